# tests/blas/lib.sh: what tests/blas/run.sh and tests/blas/double.sh share,
# sourced (bash): step, fail, check_blat, check_cblas_log.  $me names the
# script in their lines.
me=${me:-tests/blas/run.sh}
t0=$(date +%s.%N)
step() { # step NAME: prints the seconds since the last step
    local t; t=$(date +%s.%N)
    awk -v m="$me" -v n="$1" -v a="$t0" -v b="$t" 'BEGIN { printf "%s: %s: %.1f s\n", m, n, b - a }'
    t0=$t
}
fail() { echo "$me: $*" >&2; exit 1; }

# check_blat OUTPUT ROUTINE...: every routine passed its error exits and its
# computational tests (the CBLAS test in both layouts), nothing failed.
check_blat() {
    local out="$1" r; shift
    if grep -nE 'FAIL|SUSPECT|FATAL|\*\*\*\*\*|ERROR[^-]|ERROR$' "$out"; then
        fail "$out: failures (above)"
    fi
    for r in "$@"; do
        grep -qE "^ $r +PASSED THE TESTS OF ERROR-EXITS" "$out" || fail "$out: $r: error exits not passed"
        if [[ $r == cblas_* ]]; then
            grep -qE "^ $r +PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS" "$out" &&
                grep -qE "^ $r +PASSED THE ROW-MAJOR +COMPUTATIONAL TESTS" "$out" ||
                fail "$out: $r: computational tests not passed in both layouts"
        else
            grep -qE "^ $r +PASSED THE COMPUTATIONAL TESTS" "$out" || fail "$out: $r: computational tests not passed"
        fi
    done
}

# check_cblas_log LOG PROGRAM ROUTINE VARIANT_RE: in glgemm's log of a
# CBLAS test program, over 1000 ROUTINE calls a layout served on the GPU
# (the variant matching the extended regex VARIANT_RE after 'gpu '), an
# error exit through cblas_xerbla, and no call passed on or on the CPU.
check_cblas_log() {
    local log="$1" prog="$2" r="$3" re="$4" l n
    for l in row col; do
        n=$(grep -cE "^glgemm_blas [0-9]*: $r $l .*: gpu $re" "$log" || true)
        [ "$n" -gt 1000 ] || fail "$prog: $n $l-major $r calls on the GPU in the log"
    done
    grep -q ": $r .*: illegal argument [0-9]*: cblas_xerbla\$" "$log" ||
        fail "$prog: no error exit through cblas_xerbla in the log"
    if grep -qE 'passed on|: cpu' "$log"; then
        fail "$prog: calls not on the GPU (log: $(grep -m1 -E 'passed on|: cpu' "$log"))"
    fi
}
