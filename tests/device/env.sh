# Source this on a bare GPU machine (the device tool's) before running
# glgemm there: unpacks the carried runtime packages (.gl/*.deb: the GL
# loader, GLEW, GLFW, OpenBLAS, and what they need) into / and points EGL at
# NVIDIA's vendor file.  From the repository root: `. tests/device/env.sh`.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/glgemm-cache}
