#!/usr/bin/env bash
# netlib's and LAPACK's double-precision tests through the drop-in on the
# device, every dgemm on its GPU in store=f64 with this card's records
# (results/): tests/blas/double.sh, what make check runs on llvmpipe.
#   here:  tests/device/blas.sh fetch   (Debian's reference BLAS, LAPACK and
#          their test programs into .glblas/, which .git/info/exclude
#          ignores), then make blas
#   there: . tests/device/env.sh; tests/device/blas.sh DIR
#          (carry .gl, .glblas and build/libglgemm_blas.so; DIR keeps the
#          programs' outputs and glgemm's logs)
set -euo pipefail
if [ "${1:-}" = fetch ]; then
    grep -qsx '/.glblas/' .git/info/exclude || echo /.glblas/ >> .git/info/exclude
    mkdir -p .glblas && cd .glblas &&
        apt-get download libblas3 libblas-test liblapack3 liblapack-test libtmglib3
    exit
fi
[ $# = 1 ] || { echo "usage: tests/device/blas.sh fetch | DIR" >&2; exit 2; }
for f in .glblas/*.deb; do dpkg -x "$f" /; done
ldconfig
export GLGEMM_RESULTS="$PWD/results" GLGEMM_CACHE_DIR=/tmp/glgemm-blas-cache \
    XDG_DATA_HOME=/tmp/glgemm-blas-data
exec tests/blas/double.sh build/libglgemm_blas.so "$1"
