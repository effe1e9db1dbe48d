# Source on the GPU machine after `tests/device/mpi.sh unpack`: Open MPI
# under /opt/mpi (OPAL_PREFIX, as docs/cluster.md says), glgemm's libraries
# under /opt/ggm/lib, NVIDIA's EGL vendor file.
export OPAL_PREFIX=/opt/mpi/usr PATH=/opt/mpi/usr/bin:$PATH
gg_mpi_lib=/opt/mpi/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=/opt/ggm/lib:$gg_mpi_lib:$gg_mpi_lib/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/glgemm-cache}
