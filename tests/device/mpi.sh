#!/usr/bin/env bash
# tests/device/mpi.sh: glgemm, glgemm-mpi and build/splitspeed on a GPU
# machine that has no package registry (the device tool's), for
# tests/device/scaling.sh there.
#
#   tests/device/mpi.sh pack      here (Debian 12, after `make && make mpi &&
#       make perf`): .dev/mpi/mpi.tar.xz (ignored), holding lib/ (the
#       libraries the three programs load: their ldd closure less the C
#       library and the C++ runtime, with the GL loaders) and deb/ (Open
#       MPI's runtime, the packages docs/cluster.md lists).  ~25 MB.
#   tests/device/mpi.sh unpack    there, from the repository root (carry
#       .dev/mpi, glgemm, glgemm-mpi, build/splitspeed): lib/ to /opt/ggm/lib,
#       the packages unpacked under /opt/mpi (beside the system's, as
#       docs/cluster.md says), mpirun named.
#   . tests/device/mpi-env.sh     there: OPAL_PREFIX, PATH, LD_LIBRARY_PATH,
#       NVIDIA's EGL vendor file.
#
# A device call, e.g. (nvidia-h200-x4):
#   tests/device/mpi.sh unpack && . tests/device/mpi-env.sh &&
#   LIB_SIZES="8192 16384" tests/device/scaling.sh 4096 4
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/device/closure.sh
. "$root/tests/device/closure.sh"
# docs/cluster.md, "On a machine without a package registry": Open MPI's
# runtime closure against a minimal bookworm (no -dev package: the programs
# are built here).
debs="ibverbs-providers libatomic1 libbsd0 libcbor0.8 libedit2 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libfabric1 libfido2-1 libgssapi-krb5-2 libhwloc-plugins libhwloc15
  libibverbs1 libicu72 libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libmunge2
  libnl-3-200 libnl-route-3-200 libnuma1 libopenmpi3 libpciaccess0 libpmix2
  libpsm-infinipath1 libpsm2-2 librdmacm1 libssl3 libucx0 libx11-6 libx11-data libxau6
  libxcb1 libxdmcp6 libxext6 libxml2 libxnvctrl0 ocl-icd-libopencl1 openmpi-bin
  openmpi-common openssh-client"

pack() {
    cd "$root"
    for b in glgemm glgemm-mpi build/splitspeed; do
        [ -x "$b" ] || { echo "mpi.sh: $b missing: make && make mpi && make perf" >&2; exit 2; }
    done
    command -v xz >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q xz-utils
    grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >>.git/info/exclude
    rm -rf .dev/mpi && mkdir -p .dev/mpi
    local stage
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' RETURN
    closure "$stage/lib" glgemm glgemm-mpi build/splitspeed
    # Open MPI's own libraries come from deb/, under its prefix.
    rm -f "$stage"/lib/libmpi* "$stage"/lib/libopen-* "$stage"/lib/libhwloc* \
        "$stage"/lib/libevent* "$stage"/lib/libpmix*
    mkdir -p "$stage/deb"
    # shellcheck disable=SC2086 # the package names
    (cd "$stage/deb" && apt-get download -q $debs >/dev/null)
    tar cf - -C "$stage" . | xz -T2 -6 >.dev/mpi/mpi.tar.xz
    ls -l .dev/mpi
}

unpack() {
    cd "$root"
    rm -rf /opt/ggm && mkdir -p /opt/ggm /opt/mpi
    xz -dc .dev/mpi/mpi.tar.xz | tar xf - -C /opt/ggm
    for f in /opt/ggm/deb/*.deb; do dpkg -x "$f" /opt/mpi; done
    ln -sf mpirun.openmpi /opt/mpi/usr/bin/mpirun
    ls /opt/ggm/lib | wc -l
}

case ${1:-} in
pack) pack ;;
unpack) unpack ;;
*) echo "usage: tests/device/mpi.sh pack|unpack" >&2; exit 2 ;;
esac
