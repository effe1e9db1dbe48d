#!/usr/bin/env bash
# tests/blas/run.sh [BUILD]: the drop-in BLAS (libglgemm_blas.so) under
# unmodified programs, headless (EGL).  `make check` runs it.
#   0. build and install it (make install-blas into a temporary PREFIX):
#      it defines sgemm_, cblas_sgemm, dgemm_ and cblas_dgemm and no other
#      BLAS routine.
#   1. the reference BLAS test programs of Debian's libblas-test, xblat3s
#      (Fortran) and xscblat3 (CBLAS, both layouts), every routine on, over
#      the reference BLAS, with GLGEMM_CROSSOVER=0: every routine passes, the
#      error exits too, and the log shows sgemm calls served on the GPU.
#      Then both through a wrapper of their own names around glgemm_sgemm
#      (tests/blas/shim.c, preloaded; at the default crossover and at 0), a
#      program that defines those names itself (tests/blas/wrap.c), xscblat3
#      below a crossover (the bound CPU BLAS) and xblat3s with no GL context
#      (every call passed on); and both with every call split over two
#      devices (GLGEMM_DEVICES=0,0: this machine's one device twice).
#      The double-precision programs (tests/blas/double.sh, which the
#      device's tests/device/blas.sh runs too): xblat3d and xdcblat3
#      likewise with GLGEMM_CROSSOVER=0, every dgemm on the GPU in
#      store=f64, then LAPACK's xlintstd (Debian's liblapack-test) over the
#      reference LAPACK, paths DGE DPO DSY DQR DLS at cut sizes.
#   2. numpy's float32 and float64 matmul (Debian's python3-numpy) with and
#      without the preload: both within the error bound of a product
#      carried further (float64; long double for float64).
#   3. two processes of two threads calling sgemm_ at once (tests/blas/mt.c)
#      sharing one log, then with their calls split over two devices; bad values of its environment (one line each, the
#      calls right); and a program linked with the library that uses
#      glgemm.h itself (tests/blas/direct.c).
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-build}"
blasdir=/usr/lib/x86_64-linux-gnu/blas # Debian's reference BLAS and its tests
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export GLGEMM_CACHE_DIR="$tmp/program-cache" # not the user's ~/.cache
export XDG_DATA_HOME="$tmp/data"              # nor the user's tuning records
unset GLGEMM_BACKEND GLGEMM_DEVICE GLGEMM_VERIFY GLGEMM_LOG GLGEMM_CROSSOVER GLGEMM_RESULTS \
    GLGEMM_DEVICES GLGEMM_SPLIT_MIN GLGEMM_SPLIT_TILES
. "$src/tests/blas/lib.sh"

# ---- 0. build, install, exports
make -C "$src" -s BUILD="$build" install-blas PREFIX="$tmp/prefix"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
so="$(pkg-config --variable=preload glgemm_blas)"
[ -f "$so" ] || fail "glgemm_blas.pc: preload=$so is not a file"
exports="$(nm -D --defined-only "$so" | awk '{print $3}')"
for s in sgemm_ cblas_sgemm dgemm_ cblas_dgemm glgemm_sgemm glgemm_dgemm; do
    grep -qx "$s" <<<"$exports" || fail "$so does not export $s"
done
if grep -vE '^(sgemm_|cblas_sgemm|dgemm_|cblas_dgemm|glgemm_[a-z_]+|_edata|_end|__bss_start|_init|_fini)$' \
    <<<"$exports" | grep .; then
    fail "$so exports more than sgemm_, cblas_sgemm, dgemm_, cblas_dgemm and glgemm.h (above)"
fi
[ "$(readelf -d "$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')" = libglgemm_blas.so.0 ] ||
    fail "$so: soname is not libglgemm_blas.so.0"
if [ -f "$src/$build/libglgemm.so" ] && nm -D --defined-only "$src/$build/libglgemm.so" |
    grep -qwE "sgemm_|dgemm_"; then
    fail "libglgemm.so defines sgemm_ or dgemm_"
fi
step "build, install and exports"

# ---- 1. the reference BLAS tests
# Over the reference BLAS whatever the alternatives select: its CBLAS has
# the globals (RowMajorStrg, CBLAS_CallFromC) its error exits read.
ref_env=(LD_LIBRARY_PATH="$blasdir" LD_PRELOAD="$so")
cd "$tmp"
# Every routine on (T); the output files are named relative to $tmp, the
# working folder (the names are CHARACTER*32 in the Fortran).
sed -E 's/^(S[A-Z0-9]+ +)F /\1T /' "$blasdir/sblat3.in" > sblat3.in
sed -E 's/^(cblas_s[a-z0-9]+ +)F /\1T /' "$blasdir/sin3" > sin3
grep -q "^'sblat3.out'" sblat3.in || fail "sblat3.in: the summary file is not sblat3.out"


FORTRAN_ROUTINES=(SGEMM SSYMM STRMM STRSM SSYRK SSYR2K)
CBLAS_ROUTINES=(cblas_sgemm cblas_ssymm cblas_strmm cblas_strsm cblas_ssyrk cblas_ssyr2k)

env "${ref_env[@]}" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/xblat3s.log" \
    "$blasdir/xblat3s" < sblat3.in > xblat3s.stdout 2> xblat3s.stderr || fail "xblat3s failed"
[ -s xblat3s.stderr ] && { cat xblat3s.stderr >&2; fail "xblat3s wrote on stderr (above)"; }
check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
ngpu=$(grep -c '^glgemm_blas [0-9]*: sgemm_ col .*: gpu mrt=' xblat3s.log || true)
nerr=$(grep -c ': sgemm_ col .*: illegal argument [0-9]*: xerbla$' xblat3s.log || true)
[ "$ngpu" -gt 1000 ] || fail "xblat3s: $ngpu sgemm_ calls on the GPU in the log"
[ "$nerr" -gt 0 ] || fail "xblat3s: no error exit through xerbla in the log"
grep -q 'passed on' xblat3s.log && fail "xblat3s: calls passed on (log: $(grep -m1 'passed on' xblat3s.log))"
step "xblat3s (every routine; $ngpu sgemm_ calls on the GPU, $(wc -l < xblat3s.log) logged)"

env "${ref_env[@]}" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/xscblat3.log" \
    "$blasdir/xscblat3" < sin3 > xscblat3.out 2> xscblat3.stderr || fail "xscblat3 failed"
[ -s xscblat3.stderr ] && { cat xscblat3.stderr >&2; fail "xscblat3 wrote on stderr (above)"; }
check_blat xscblat3.out "${CBLAS_ROUTINES[@]}"
check_cblas_log xscblat3.log xscblat3 cblas_sgemm 'mrt='
step "xscblat3 (every routine, both layouts; $(grep -c ': gpu ' xscblat3.log) on the GPU)"

# The double-precision programs, every dgemm on the GPU in store=f64:
# tests/blas/double.sh (xblat3d, xdcblat3, LAPACK's xlintstd).
"$src/tests/blas/double.sh" "$so" "$tmp/double"
t0=$(date +%s.%N)

# Every call split over two devices (GLGEMM_DEVICES names device 0 twice:
# two contexts, each on a thread of its own; GLGEMM_SPLIT_MIN=0: every
# call): every routine passes, and the log shows the splits, none retired.
split_env=(GLGEMM_CROSSOVER=0 GLGEMM_DEVICES=0,0 GLGEMM_SPLIT_MIN=0)
env "${ref_env[@]}" "${split_env[@]}" GLGEMM_LOG="$tmp/split3s.log" \
    "$blasdir/xblat3s" < sblat3.in > split3s.stdout 2> split3s.stderr || fail "xblat3s (split) failed"
[ -s split3s.stderr ] && { cat split3s.stderr >&2; fail "xblat3s (split) wrote on stderr (above)"; }
check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
env "${ref_env[@]}" "${split_env[@]}" GLGEMM_LOG="$tmp/splitc.log" \
    "$blasdir/xscblat3" < sin3 > splitc.out 2> splitc.stderr || fail "xscblat3 (split) failed"
[ -s splitc.stderr ] && { cat splitc.stderr >&2; fail "xscblat3 (split) wrote on stderr (above)"; }
check_blat splitc.out "${CBLAS_ROUTINES[@]}"
split_line=': split [0-9]+ tiles of [0-9]+x[0-9]+: device 0: [0-9]+ gpu mrt=[^ ]+, device 0: [0-9]+ gpu mrt=[^ ]+$'
for log in split3s.log splitc.log; do
    n=$(grep -cE "$split_line" $log || true)
    [ "$n" -gt 1000 ] || fail "$log: $n calls split over both devices"
    grep -qE 'passed on|retired|cpu: ' $log && fail "$log: $(grep -m1 -E 'passed on|retired|cpu: ' $log)"
done
step "xblat3s and xscblat3 split over two devices ($(grep -cE "$split_line" split3s.log) and $(grep -cE "$split_line" splitc.log) calls)"

# Below a crossover every product runs on the CPU BLAS the library binds
# (lib/cpu.h: not the program's names, which are ours).
env "${ref_env[@]}" GLGEMM_CROSSOVER=64 GLGEMM_LOG="$tmp/cross.log" \
    "$blasdir/xscblat3" < sin3 > cross.out 2> cross.stderr || fail "xscblat3 (crossover) failed"
[ -s cross.stderr ] && { cat cross.stderr >&2; fail "xscblat3 (crossover) wrote on stderr"; }
check_blat cross.out "${CBLAS_ROUTINES[@]}"
grep -q ': cblas_sgemm .*: cpu crossover 64$' cross.log || fail "crossover: no 'cpu crossover 64' in the log"
grep -q ': gpu ' cross.log && fail "crossover: a call below it went to the GPU"
step "xscblat3 below GLGEMM_CROSSOVER=64 (the bound CPU BLAS)"

# A program's own wrapper (tests/blas/shim.c: cblas_sgemm and sgemm_ that
# forward to glgemm_sgemm, glgemm_sgemm_cpu when the GPU fails), preloaded
# at the default crossover (the committed llvmpipe record: every product of
# these tests goes to the CPU route) and with none: glgemm's CPU route never
# calls the wrapper back (it looped until SIGSEGV before lib/cpu.c).  Then
# a program that defines both names itself (tests/blas/wrap.c): below and
# above a crossover, a wrong GPU result, a CPU sgemm calling back,
# GLGEMM_CPU_BLAS unopenable and naming the reference BLAS.
make -C "$src" -s BUILD="$build" "$build/libglgemm.so"
mkdir -p "$tmp/lib"
cp "$src/$build/libglgemm.so" "$tmp/lib/libglgemm.so.0"
ln -sf libglgemm.so.0 "$tmp/lib/libglgemm.so"
wrapcc=(cc -std=c11 -O2 -Wall -Wextra -Werror -I"$src" -I"$src/tests/blas" -L"$tmp/lib"
    -Wl,-rpath,"$tmp/lib")
"${wrapcc[@]}" -fPIC -shared "$src/tests/blas/shim.c" -lglgemm -o shim.so
"${wrapcc[@]}" "$src/tests/blas/wrap.c" -lglgemm -lm -o wrap
shim_env=(LD_LIBRARY_PATH="$blasdir" LD_PRELOAD="$tmp/shim.so")
for cross in default 0; do
    if [ $cross = default ]; then set -- GLGEMM_RESULTS="$src/results"; else set -- GLGEMM_CROSSOVER=0; fi
    rm -f shim.log
    env "${shim_env[@]}" "$@" SHIM_LOG="$tmp/shim.log" "$blasdir/xblat3s" < sblat3.in > shim.stdout 2> shim.stderr ||
        { tail -5 shim.stderr >&2; fail "xblat3s through the shim ($cross crossover) failed"; }
    [ -s shim.stderr ] && { cat shim.stderr >&2; fail "xblat3s through the shim wrote on stderr"; }
    check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
    env "${shim_env[@]}" "$@" SHIM_LOG="$tmp/shim.log" "$blasdir/xscblat3" < sin3 > shim.out 2> shim.stderr ||
        { tail -5 shim.stderr >&2; fail "xscblat3 through the shim ($cross crossover) failed"; }
    [ -s shim.stderr ] && { cat shim.stderr >&2; fail "xscblat3 through the shim wrote on stderr"; }
    check_blat shim.out "${CBLAS_ROUTINES[@]}"
    want=$([ $cross = default ] && echo 'cpu crossover' || echo 'gpu mrt=')
    n=$(grep -c " $want" shim.log || true)
    [ "$n" -gt 10000 ] || fail "shim ($cross crossover): $n calls routed '$want'"
    step "xblat3s and xscblat3 through a wrapper of their own names ($cross crossover: $n calls '$want')"
done
GLGEMM_CROSSOVER=64 ./wrap "$blasdir/libblas.so.3" > wrap.out 2>&1 || { cat wrap.out >&2; fail "wrap failed"; }
[ "$(grep -c "^wrap: " wrap.out)" = 10 ] || { cat wrap.out >&2; fail "wrap: not 10 cases"; }
# The same program linked with the reference BLAS, GLGEMM_CPU_BLAS naming
# that very library (already loaded, so RTLD_DEEPBIND cannot help: its own
# sgemm_ is taken, which calls no other BLAS routine).
"${wrapcc[@]}" "$src/tests/blas/wrap.c" -lglgemm -L"$blasdir" -lblas -lm -o wrap_ref
LD_LIBRARY_PATH="$blasdir" GLGEMM_CROSSOVER=64 ./wrap_ref "$blasdir/libblas.so.3" > wrap.out 2>&1 ||
    { cat wrap.out >&2; fail "wrap linked with the reference BLAS failed"; }
[ "$(grep -c "^wrap: " wrap.out)" = 10 ] || { cat wrap.out >&2; fail "wrap_ref: not 10 cases"; }
# No context at all (glgemm_open fails on a GLGEMM_CPU_BLAS that is not
# there): the shim serves every call through glgemm_sgemm_cpu(NULL, ...).
rm -f shim.log
env "${shim_env[@]}" GLGEMM_CPU_BLAS=/nonexistent/libblas.so SHIM_LOG="$tmp/shim.log" \
    "$blasdir/xblat3s" < sblat3.in > shim.stdout 2> shim.stderr ||
    { tail -5 shim.stderr >&2; fail "xblat3s through the shim without a context failed"; }
check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
grep -q 'shim: glgemm_open: glgemm_open: GLGEMM_CPU_BLAS=/nonexistent/libblas.so cannot be opened' shim.stderr ||
    { cat shim.stderr >&2; fail "shim without a context: glgemm_open did not fail naming GLGEMM_CPU_BLAS"; }
[ "$(grep -c ' cpu without a context$' shim.log)" -gt 10000 ] || fail "shim without a context: calls not on the CPU route"
# The drop-in with GLGEMM_CPU_BLAS naming the reference BLAS the program
# already loaded, with no context and below a crossover: no loop.
for extra in GLGEMM_BACKEND=none GLGEMM_CROSSOVER=64; do
    env "${ref_env[@]}" "$extra" GLGEMM_CPU_BLAS="$blasdir/libblas.so.3" "$blasdir/xblat3s" \
        < sblat3.in > cpub.stdout 2> cpub.stderr || { tail -5 cpub.stderr >&2; fail "drop-in, $extra, GLGEMM_CPU_BLAS=libblas.so.3 failed"; }
    check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
done
step "a program defining cblas_sgemm and sgemm_ around glgemm_sgemm (tests/blas/wrap.c, with the reference BLAS linked too), the shim without a context, the drop-in with GLGEMM_CPU_BLAS"

# No GL context: every call passed on to the CPU BLAS, said once.
env "${ref_env[@]}" GLGEMM_BACKEND=none GLGEMM_LOG="$tmp/nogl.log" \
    "$blasdir/xblat3s" < sblat3.in > nogl.stdout 2> nogl.stderr || fail "xblat3s (no GL) failed"
check_blat sblat3.out "${FORTRAN_ROUTINES[@]}"
[ "$(grep -c 'glgemm_blas: no GL context' nogl.stderr)" = 1 ] && [ "$(wc -l < nogl.stderr)" = 1 ] ||
    { cat nogl.stderr >&2; fail "no GL context: not said exactly once on stderr"; }
grep -q ': passed on: no GL context: ' nogl.log || fail "no GL context: no 'passed on' in the log"
step "xblat3s with no GL context (passed on)"

# ---- 2. numpy (Debian's, with its own BLAS through libblas.so.3)
py=/usr/bin/python3
cp "$src/tests/blas/matmul.py" "$tmp/"
# A tuned record for this very problem in the per-user records folder (as
# `glgemm tune` leaves it): the preloaded call must run that variant.
card="$("$src/glgemm" info 2>/dev/null | sed -n 's/^slug: //p')"
[ -n "$card" ] || fail "numpy: no card slug from glgemm info"
tuned="mrt=2x2,mc=2x2,np=16,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"
mkdir -p "$XDG_DATA_HOME/glgemm/results/$card"
printf '%s\ngflops: 1\n' "$tuned" > "$XDG_DATA_HOME/glgemm/results/$card/best-300x250x200.txt"
"$py" -W error matmul.py run own.npy
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/numpy.log" \
    "$py" -W error matmul.py run gl.npy 2> numpy.stderr || { cat numpy.stderr >&2; fail "numpy under the preload failed"; }
[ -s numpy.stderr ] && { cat numpy.stderr >&2; fail "numpy under the preload wrote on stderr"; }
"$py" -W error matmul.py compare gl.npy own.npy || fail "numpy: results differ"
grep -q ': cblas_sgemm row NN m=300 n=250 k=200: gpu mrt=' numpy.log ||
    { cat numpy.log >&2; fail "numpy: its matmul did not run on the GPU"; }
grep -q ": gpu $tuned\$" numpy.log ||
    { cat numpy.log >&2; fail "numpy: not the tuned variant of the user's records ($tuned)"; }
step "numpy 300x200 @ 200x250"
# float64: cblas_dgemm on the GPU in store=f64 (the user's record above is
# an f32 one: the default f64 variant).
"$py" -W error matmul.py run own64.npy float64
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/numpy64.log" \
    "$py" -W error matmul.py run gl64.npy float64 2> numpy.stderr || { cat numpy.stderr >&2; fail "numpy float64 under the preload failed"; }
[ -s numpy.stderr ] && { cat numpy.stderr >&2; fail "numpy float64 under the preload wrote on stderr"; }
"$py" -W error matmul.py compare gl64.npy own64.npy float64 || fail "numpy float64: results differ"
grep -q ': cblas_dgemm row NN m=300 n=250 k=200: gpu mrt=.*store=f64$' numpy64.log ||
    { cat numpy64.log >&2; fail "numpy float64: its matmul did not run on the GPU in store=f64"; }
step "numpy float64 300x200 @ 200x250"

# ---- 3. threads and processes, and the API linked in
cd "$tmp"
cc -std=c11 -O2 -Wall -Wextra -Werror "$src/tests/blas/mt.c" -o mt -lblas -lpthread -lm
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/mt.log" ./mt 1 > mt1.out &
p1=$!
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/mt.log" ./mt 2 > mt2.out &
p2=$!
wait $p1 || fail "mt 1 failed"
wait $p2 || fail "mt 2 failed"
cat mt1.out mt2.out
if grep -vE '^glgemm_blas [0-9]+: sgemm_ col [NTC]{2} m=[0-9]+ n=[0-9]+ k=[0-9]+: gpu mrt=[^ ]+$' mt.log; then
    fail "mt: log lines other than whole gpu lines (above)"
fi
[ "$(wc -l < mt.log)" = 128 ] || fail "mt: $(wc -l < mt.log) log lines, not 2 x 2 x 32"
[ "$(cut -d: -f1 mt.log | sort -u | wc -l)" = 2 ] || fail "mt: not two processes in the log"
# The crossover's CPU sgemm (the bound CPU BLAS), under a program that
# calls sgemm_.
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=200 GLGEMM_LOG="$tmp/mtx.log" ./mt 3 || fail "mt (crossover) failed"
grep -q ': cpu crossover 200$' mtx.log || fail "mt: no 'cpu crossover 200' in the log"
# Each thread's context over two devices: its own two threads, every call
# split (GLGEMM_SPLIT_MIN=0) and right.
env LD_PRELOAD="$so" "${split_env[@]}" GLGEMM_LOG="$tmp/mts.log" ./mt 5 || fail "mt (split) failed"
[ "$(grep -cE "$split_line" mts.log)" = 64 ] || { cat mts.log >&2; fail "mt (split): not 64 calls split over both devices"; }
step "two processes x two threads of sgemm_, then below a crossover, then split over two devices"

# Bad configuration (lib/env.h): one line on stderr naming the variable,
# every call still right (passed on to the CPU BLAS: no context).
for bad in GLGEMM_DEVICE=x GLGEMM_DEVICE=-1 GLGEMM_BACKEND=vulkan GLGEMM_VERIFY=sometimes \
    GLGEMM_CROSSOVER=12x GLGEMM_DEVICES=0,x; do
    env LD_PRELOAD="$so" "$bad" ./mt 4 > bad.out 2> bad.stderr || { cat bad.stderr >&2; fail "mt with $bad failed"; }
    [ "$(wc -l < bad.stderr)" = 1 ] && grep -q "^glgemm_blas: no GL context (.*$bad is not .*): sgemm calls go to the CPU BLAS\$" bad.stderr ||
        { cat bad.stderr >&2; fail "$bad: not one line naming it"; }
done
# A log that cannot be opened: one line, the calls served all the same.
env LD_PRELOAD="$so" GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/no-such-dir/log" ./mt 4 > bad.out 2> bad.stderr ||
    { cat bad.stderr >&2; fail "mt with a bad GLGEMM_LOG failed"; }
[ "$(wc -l < bad.stderr)" = 1 ] && grep -q "^glgemm_blas: GLGEMM_LOG=$tmp/no-such-dir/log: No such file or directory: no log\$" bad.stderr ||
    { cat bad.stderr >&2; fail "GLGEMM_LOG unopenable: not one line naming it"; }
step "bad GLGEMM_DEVICE, GLGEMM_BACKEND, GLGEMM_VERIFY, GLGEMM_CROSSOVER, GLGEMM_DEVICES, GLGEMM_LOG: one line each"

cc -std=c11 -Wall -Wextra -Werror -I"$src" "$src/tests/blas/direct.c" \
    $(pkg-config --libs glgemm_blas) -lm -o direct
GLGEMM_CROSSOVER=0 GLGEMM_LOG="$tmp/direct.log" ./direct
[ "$(grep -c . direct.log)" = 1 ] && grep -q ': cblas_sgemm row NN m=24 n=24 k=24: gpu ' direct.log ||
    { cat direct.log >&2; fail "direct: the log is not one gpu line for the program's own call"; }
step "a program linked with it using glgemm.h (the core's cblas_sgemm not re-entered)"

echo "tests/blas/run.sh: the drop-in BLAS passes the reference BLAS tests, numpy, threads and processes"
