#!/usr/bin/env bash
# tests/blas/double.sh SO DIR: the drop-in BLAS SO (libglgemm_blas.so)
# under the double-precision test programs, every dgemm on the GL device in
# store=f64, working in the folder DIR (its files stay there):
#   - netlib's xblat3d (Fortran) and xdcblat3 (CBLAS, both layouts), Debian's
#     libblas-test, every routine on, over the reference BLAS, with
#     GLGEMM_CROSSOVER=0: every routine passes, the error exits too, and the
#     log shows every dgemm call served on the GPU;
#   - LAPACK's xlintstd (Debian's liblapack-test) over the reference LAPACK,
#     paths DGE DPO DSY DQR DLS at cut sizes, every dgemm on the GPU.
# tests/blas/run.sh (make check) calls it on llvmpipe; on the device,
# tests/device/blas.sh (the packages carried, the card's records).
# BLASDIR and LAPACKDIR override Debian's folders.
set -euo pipefail
me=tests/blas/double.sh
. "$(dirname "$0")/lib.sh"
[ $# = 2 ] || fail "usage: tests/blas/double.sh SO DIR"
so="$1" tmp="$2"
[ -f "$so" ] || fail "$so: no such file"
so="$(cd "$(dirname "$so")" && pwd)/$(basename "$so")"
blasdir=${BLASDIR:-/usr/lib/x86_64-linux-gnu/blas}       # Debian's reference BLAS and its tests
lapackdir=${LAPACKDIR:-/usr/lib/x86_64-linux-gnu/lapack} # the reference LAPACK and its tests
mkdir -p "$tmp"
tmp="$(cd "$tmp" && pwd)"
cd "$tmp"
rm -f xblat3d.log xdcblat3.log xlintstd.log # glgemm appends to its log
ref_env=(LD_LIBRARY_PATH="$blasdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$so")
# Every routine on (T); the output files are named relative to the working
# folder (the names are CHARACTER*32 in the Fortran).
sed -E 's/^(D[A-Z0-9]+ +)F /\1T /' "$blasdir/dblat3.in" > dblat3.in
sed -E 's/^(cblas_d[a-z0-9]+ +)F /\1T /' "$blasdir/din3" > din3
grep -q "^'dblat3.out'" dblat3.in || fail "dblat3.in: the summary file is not dblat3.out"

# The double-precision programs, every dgemm on the GPU in store=f64
# (glgemm_dgemm: the card's f64 record, else GLGEMM_DEFAULT_DVARIANT).
env "${ref_env[@]}" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/xblat3d.log" \
    "$blasdir/xblat3d" < dblat3.in > xblat3d.stdout 2> xblat3d.stderr || fail "xblat3d failed"
[ -s xblat3d.stderr ] && { cat xblat3d.stderr >&2; fail "xblat3d wrote on stderr (above)"; }
check_blat dblat3.out DGEMM DSYMM DTRMM DTRSM DSYRK DSYR2K
ngpu=$(grep -cE '^glgemm_blas [0-9]*: dgemm_ col .*: gpu mrt=.*store=f64(,|$)' xblat3d.log || true)
[ "$ngpu" -gt 1000 ] || fail "xblat3d: $ngpu dgemm_ calls on the GPU in store=f64 in the log"
grep -q ': dgemm_ col .*: illegal argument [0-9]*: xerbla$' xblat3d.log ||
    fail "xblat3d: no error exit through xerbla in the log"
grep -qE 'passed on|: cpu' xblat3d.log && fail "xblat3d: calls not on the GPU (log: $(grep -m1 -E 'passed on|: cpu' xblat3d.log))"
step "xblat3d (every routine; $ngpu dgemm_ calls on the GPU)"

env "${ref_env[@]}" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/xdcblat3.log" \
    "$blasdir/xdcblat3" < din3 > xdcblat3.out 2> xdcblat3.stderr || fail "xdcblat3 failed"
[ -s xdcblat3.stderr ] && { cat xdcblat3.stderr >&2; fail "xdcblat3 wrote on stderr (above)"; }
check_blat xdcblat3.out cblas_dgemm cblas_dsymm cblas_dtrmm cblas_dtrsm cblas_dsyrk cblas_dsyr2k
check_cblas_log xdcblat3.log xdcblat3 cblas_dgemm 'mrt=.*store=f64(,|$)'
step "xdcblat3 (every routine, both layouts; $(grep -c ': gpu ' xdcblat3.log) on the GPU)"

# LAPACK's double-precision linear-equation tests (Debian's liblapack-test:
# xlintstd over the reference LAPACK, whose routines call dgemm_ through the
# PLT, so the preload serves them; OpenBLAS's LAPACK, which the alternatives
# may select, would call its own kernels) with every dgemm on the GPU.  The
# paths DGE, DPO, DSY, DQR and DLS, every type, the error exits, the usual
# threshold 30; the sizes cut from dtest.in's (M, N 0 1 2 3 5 10 50, NRHS
# 1 2 15, NB 1 3 3 3 20: 684k dgemm calls, DLS 627k of them, ~20 min here)
# to 47k calls: M, N 0 1 5 50 (50 is blocked at NB 3 and 20 and recursive
# at NB 1; 5 is blocked at NB 3), NRHS 2, NB 1 3 20.  ~1.7 min on llvmpipe.
# A GPU result whose true value underflows (the near-underflow types) can
# fail glgemm_dgemm's check, whose bound is relative only (llvmpipe flushes
# subnormals; the check's sums in long double go past double's range), and
# is passed on to the CPU BLAS: those and only those are allowed.
if [ -x "$lapackdir/xlintstd" ]; then
    cat > xlintstd.in <<'EOF'
Data file for testing DOUBLE PRECISION LAPACK linear eqn. routines (tests/blas/run.sh)
4                      Number of values of M
0 1 5 50               Values of M (row dimension)
4                      Number of values of N
0 1 5 50               Values of N (column dimension)
1                      Number of values of NRHS
2                      Values of NRHS (number of right hand sides)
3                      Number of values of NB
1 3 20                 Values of NB (the blocksize)
1 0 1                  Values of NX (crossover point)
3                      Number of values of RANK
30 50 90               Values of rank (as a % of N)
30.0                   Threshold value of test ratio
T                      Put T to test the LAPACK routines
T                      Put T to test the driver routines
T                      Put T to test the error exits
DGE   11               List types on next line if 0 < NTYPES < 11
DPO    9               List types on next line if 0 < NTYPES <  9
DSY   10               List types on next line if 0 < NTYPES < 10
DQR    8               List types on next line if 0 < NTYPES <  8
DLS    6               List types on next line if 0 < NTYPES <  6
EOF
    env LD_LIBRARY_PATH="$lapackdir:$blasdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 \
        GLGEMM_LOG="$tmp/xlintstd.log" "$lapackdir/xlintstd" < xlintstd.in > xlintstd.out \
        2> xlintstd.stderr || { cat xlintstd.out; fail "xlintstd failed"; }
    if grep -v '^glgemm_blas: an dgemm call failed on the GPU (the GPU result failed verification: ' \
        xlintstd.stderr | grep .; then
        fail "xlintstd wrote on stderr (above)"
    fi
    if grep -niE 'fail|\*\*\*|not run|error code' xlintstd.out; then
        fail "xlintstd.out: failures (above)"
    fi
    for t in 'DGE routines' 'DGE drivers ' 'DPO routines' 'DPO drivers ' 'DSY routines' \
        'DSY drivers ' 'DQR routines' 'DLS drivers '; do
        grep -qF "All tests for $t passed the threshold" xlintstd.out ||
            fail "xlintstd.out: no '$t passed the threshold'"
    done
    for t in 'DGE routines' 'DGE drivers' 'DPO routines' 'DPO drivers' 'DSY routines' \
        'DSY drivers' 'DQR routines' 'DLS routines'; do
        grep -qF "$t passed the tests of the error exits" xlintstd.out ||
            fail "xlintstd.out: no '$t passed the tests of the error exits'"
    done
    ngpu=$(grep -cE '^glgemm_blas [0-9]*: dgemm_ col .*: gpu mrt=.*store=f64(,|$)' xlintstd.log || true)
    [ "$ngpu" -gt 10000 ] || fail "xlintstd: $ngpu dgemm_ calls on the GPU in store=f64 in the log"
    under='^glgemm_blas [0-9]+: dgemm_ col [NT]{2} m=[0-9]+ n=[0-9]+ k=[0-9]+: passed on: the GPU result failed verification: .*: wrong result: checksum of row [0-9]+ \(vector [0-9]+\): C x = 0, expected -?[0-9.]+e-(29[0-9]|[3-9][0-9][0-9]) '
    other=$(grep -vE '^glgemm_blas [0-9]+: dgemm_ col .*: (gpu mrt=.*store=f64(,[^ ]*)?|quick return)$' xlintstd.log | grep -vE "$under" || true)
    [ -z "$other" ] || { head -3 <<<"$other" >&2
        fail "xlintstd: calls neither dgemm_ on the GPU nor passed on for an underflow (above)"; }
    step "xlintstd DGE DPO DSY DQR DLS ($(sed -n 's/.*passed the threshold ( *\([0-9]*\) tests run)/\1/p' xlintstd.out |
        awk '{s += $1} END {print s}') tests passed; $ngpu dgemm_ calls on the GPU, $(grep -cE "$under" xlintstd.log || true) underflows passed on)"
else
    echo "tests/blas/run.sh: SKIP xlintstd: $lapackdir/xlintstd missing (Debian's liblapack-test; make deps installs it)"
fi

