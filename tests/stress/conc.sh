#!/usr/bin/env bash
# tests/stress/conc.sh [BUILD]: processes and threads at once on one GL
# device, sharing one program cache (GLGEMM_CACHE_DIR) and one records
# folder; `make check` runs it (about 15 s on the 2-core llvmpipe machine).
#   Round 1, cold cache, all at once:
#     - API processes of THREADS threads (tests/stress/conc_worker.c built
#       against libglgemm.a), a glgemm context each, CALLS glgemm_sgemm /
#       glgemm_sgemm_variant calls per thread;
#     - BLAS processes of THREADS threads calling sgemm_ and cblas_sgemm
#       through the drop-in (LD_PRELOAD=libglgemm_blas.so, every call on the
#       GPU, one shared log);
#     - a `glgemm tune` (64^3, random search of 6, own --results) whose best
#       lands in the per-user records the library processes read;
#     - a vandal process that tears, truncates, corrupts and swaps the
#       cache's entries in place, one at a time, putting each back.
#   Round 2, warm cache, the vandal still at it: the same library processes.
#   Every result against a double loop (tests/stress/conc_util.h); odd
#   threads of the API processes with the library's verification off, so a
#   wrong program would show there.  Then: every process exited 0, every
#   drop-in call was served on the GPU, the tune recorded every evaluation
#   and a best, the cache holds no temporary file, and a last process
#   reading the cache as left gets every result right.
# The last line gives the figures: processes x threads x calls checked.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
make -C "$src" -s BUILD="${1:-build}" all # the binary, libglgemm.a, the drop-in
build="${1:-build}"
case "$build" in /*) ;; *) build="$src/$build" ;; esac
API=${CONC_API_PROCS:-3} BLAS=${CONC_BLAS_PROCS:-2} THREADS=${CONC_THREADS:-3} CALLS=${CONC_CALLS:-12}
tmp="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "tests/stress/conc.sh: $*" >&2; exit 1; }
t0=$(date +%s.%N)

pkgs="egl gl glesv2 glew glfw3 openblas"
cc -std=c11 -O2 -Wall -Wextra -Werror -DCONC_API -I"$src" "$src/tests/stress/conc_worker.c" \
    "$build/libglgemm.a" $(pkg-config --libs $pkgs) -lm -lpthread -o "$tmp/conc_api"
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$src" "$src/tests/stress/conc_worker.c" \
    -lblas -lm -lpthread -o "$tmp/conc_blas"
so="$build/libglgemm_blas.so"

export GLGEMM_CACHE_DIR="$tmp/cache" # shared by every process here, the tune too
export XDG_DATA_HOME="$tmp/data"     # the per-user records the tune writes, the library reads
export GLGEMM_CROSSOVER=0            # every call on the GPU
unset GLGEMM_RESULTS GLGEMM_VERIFY GLGEMM_BACKEND GLGEMM_DEVICE GLGEMM_CACHE GLGEMM_LOG GLGEMM_FAULT
cd "$tmp"

# start_round N: the library processes of round N, in the background.
start_round() {
    local r=$1 i
    for i in $(seq 1 "$API"); do
        "$tmp/conc_api" "$THREADS" "$CALLS" "$r$i" > "api-$r-$i.out" 2> "api-$r-$i.err" &
        pids+=($!)
        echo "$! api-$r-$i" >> "round-$r.pids"
    done
    for i in $(seq 1 "$BLAS"); do
        env LD_PRELOAD="$so" GLGEMM_LOG="$tmp/blas.log" \
            "$tmp/conc_blas" "$THREADS" "$CALLS" "$r$i$i" > "blas-$r-$i.out" 2> "blas-$r-$i.err" &
        pids+=($!)
        echo "$! blas-$r-$i" >> "round-$r.pids"
    done
}

# wait_round N: every process of round N exited 0.
wait_round() {
    local pid name
    while read -r pid name; do
        wait "$pid" || { rc=$?; cat "$name.out" "$name.err" >&2; fail "round $1: $name exited $rc"; }
    done < "round-$1.pids"
}

"$tmp/conc_blas" vandal "$tmp/cache" "$tmp/stop" > vandal.out 2> vandal.err &
vandal=$!
pids+=("$vandal")
"$src/glgemm" tune --size 64 --search random --budget 6 --seed 1 --reps 3 --finalists 0 \
    --results "$tmp/results" > tune.out 2> tune.err &
tune=$!
pids+=("$tune")
r1=$(date +%s.%N)
start_round 1
wait_round 1
r1=$(awk -v a="$r1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
tune_running=$(kill -0 "$tune" 2>/dev/null && echo ", still tuning when it ended" || true)
wait "$tune" || { rc=$?; cat tune.out tune.err >&2; fail "glgemm tune exited $rc beside the library"; }
start_round 2
wait_round 2
touch "$tmp/stop"
wait "$vandal" || fail "the vandal exited $?"
pids=()

# The tune: every evaluation recorded whole, none wrong, a best written
# (also into the per-user records the library read).
card="$("$src/glgemm" info 2>/dev/null | sed -n 's/^slug: //p')"
csv="$tmp/results/$card/tune-64x64x64.csv"
[ -f "$csv" ] && [ -f "$tmp/results/$card/best-64x64x64.txt" ] || fail "tune: no records or best file"
[ -f "$XDG_DATA_HOME/glgemm/results/$card/best-64x64x64.txt" ] || fail "tune: no per-user best file"
evals=$(($(wc -l < "$csv") - 1))
awk -F, 'NR == 1 { n = NF } NR > 1 && NF != n { exit 1 }' "$csv" || fail "tune: a record without the header's columns"
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i }
          NR > 1 && $s != "ok" && $s != "unsupported" && $s != "invalid"' "$csv" | grep .; then
    fail "tune: evaluations neither ok nor unsupported beside the library (above)"
fi
tune_wall=$(sed -n 's/^wall time: //p' tune.out)
[ -n "$tune_wall" ] || fail "tune: no summary"

# The drop-in: every call logged, on the GPU.
nblas=$((BLAS * THREADS * CALLS * 2))
[ "$(grep -c ': gpu ' blas.log)" = "$nblas" ] ||
    { grep -v ': gpu ' blas.log | head >&2; fail "drop-in: $(grep -c ': gpu ' blas.log) of $nblas calls on the GPU"; }

# The cache as left: no temporary file, and a last process reading it
# (the vandal has put every entry back) gets every result right.
if ls -A cache | grep -v '\.bin$'; then fail "cache: files other than entries left (above)"; fi
"$tmp/conc_api" "$THREADS" "$CALLS" 99 > last.out 2> last.err || { cat last.out last.err >&2; fail "a process after the run"; }

# Figures.
sum() { cat "$@" | awk -v f="$FIELD" '{ for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) } END { print s + 0 }'; }
FIELD=checked; checked=$(sum api-*.out blas-*.out)
FIELD=wrong; wrong=$(sum api-*.out blas-*.out)
FIELD=hits; hits=$(sum api-*.out)
FIELD=rejected; rejected=$(sum api-*.out)
FIELD=writes; writes=$(sum api-*.out)
want=$((2 * (API + BLAS) * THREADS * CALLS))
[ "$checked" = "$want" ] && [ "$wrong" = 0 ] || fail "$checked results checked of $want, $wrong wrong"
cat vandal.out
echo "tests/stress/conc.sh: the tune took $tune_wall; round 1 took $r1 s beside it$tune_running"
awk -v a="$t0" -v b="$(date +%s.%N)" -v api="$API" -v blas="$BLAS" -v t="$THREADS" -v c="$CALLS" \
    -v n="$checked" -v e="$evals" -v h="$hits" -v r="$rejected" -v w="$writes" 'BEGIN {
    printf "tests/stress/conc.sh: 2 rounds x (%d API + %d drop-in processes) x %d threads x %d calls = %d results checked against a double loop, 0 wrong; beside a glgemm tune (%d evaluations recorded) and the vandal; the API processes: %d cache entries loaded, %d rejected, %d written (%.1f s)\n",
        api, blas, t, c, n, e, h, r, w, b - a }'
