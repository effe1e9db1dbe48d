#!/usr/bin/env bash
# Kill -9 soak (issue 19): kills a running `glgemm tune` with SIGKILL at
# random moments, TUNE_CYCLES times, resuming each time, then a library
# program (tests/soak/libkill.c, glgemm.h) LIB_CYCLES times while it fills
# the program cache; checks after every cycle (tests/soak/soakcheck.py):
#  - the records: whole rows of the right columns, no variant twice, the
#    earlier bytes kept and rows only added, every evaluation the killed run
#    printed recorded but for the one in flight; no warning on resuming;
#  - the best files (and the per-user copy): absent, or whole and naming a
#    variant the records hold as ok;
#  - the program cache: every entry whole (header, lengths, checksum);
#  - no process left: each run carries a tag in its environment, and no
#    process with it may outlive its kill by more than 5 s (the tune's
#    worker, glslangValidator);
#  - the library program: every call right (its own double reference);
#  - at the end, no glslang folder a killed compile left in TMPDIR.
# At the end a tune runs to its end, and `glgemm run` verifies the best and
# the next fastest recorded variants through the cache the kills left, once
# more after corrupting every entry.  Everything lives in a temporary folder
# (--results, GLGEMM_CACHE_DIR, XDG_DATA_HOME, TMPDIR).
#
#   tests/soak/kill9.sh [TUNE_CYCLES [LIB_CYCLES [MAX_DELAY_S]]]   (default 50 50 3.5)
#   tests/soak/kill9.sh --quick     5 and 5 cycles, kills within 1.2 s, the tune a
#                                   random search of 60 variants (make check)
#
# Exit 0 when every check passed, 1 when one failed (each printed), 2 usage.
# `make soak` runs the full form (minutes on 2 cores), `make check` --quick.
set -uo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
tune_args=() final_calls=48
if [ "${1:-}" = --quick ]; then
    set -- 5 5 1.2
    tune_args=(--search random --budget 60 --seed 7) final_calls=16
fi
tune_cycles="${1:-50}"
lib_cycles="${2:-$tune_cycles}"
max_delay="${3:-3.5}"
case "$tune_cycles$lib_cycles" in *[!0-9]*) echo "usage: $0 [TUNE_CYCLES [LIB_CYCLES [MAX_DELAY_S]]]" >&2; exit 2 ;; esac
bin="$src/glgemm"
check="$src/tests/soak/soakcheck.py"
[ -x "$bin" ] && [ -f "$src/build/libglgemm-core.a" ] || { echo "kill9: build first (make)" >&2; exit 2; }

T="$(mktemp -d "${TMPDIR:-/tmp}/glgemm-kill9.XXXXXX")"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tmp" "$T/state" "$T/none"
cp "$bin" "$T/glgemm" && bin="$T/glgemm" # a rebuild meanwhile changes nothing here
export GLGEMM_CACHE_DIR="$T/cache" XDG_DATA_HOME="$T/data" TMPDIR="$T/tmp" GLGEMM_RESULTS="$T/none"
unset GLGEMM_FAULT GLGEMM_CACHE
tag="kill9-$$-$RANDOM$RANDOM"
card="$("$bin" info 2>/dev/null | sed -n 's/^slug: //p')"
[ -n "$card" ] || { echo "kill9: glgemm info names no card" >&2; exit 2; }
res="$T/results"

cc -std=c11 -Wall -Wextra -Werror -O2 -I"$src" "$src/tests/soak/libkill.c" "$src/build/libglgemm-core.a" \
   $(pkg-config --libs egl gl glesv2 glew glfw3 openblas) -lm -lpthread -o "$T/libkill" ||
   { echo "kill9: cannot build tests/soak/libkill.c" >&2; exit 2; }

failed=0 checks=0 survived=0 lib_survived=0
python3 "$check" selftest > /dev/null || { echo "kill9: soakcheck.py selftest failed" >&2; exit 1; }
declare -A phases=()
fail() { echo "kill9: FAIL: $*"; failed=$((failed + 1)); }

# The processes still carrying the tag (the tune, its worker, their children).
tagged() { grep -lsz "^GLGEMM_SOAK_TAG=$tag\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '; }
# Waits up to 5 s for them to go; fails if they do not.
no_leftovers() {
    local left
    for _ in $(seq 50); do
        left="$(tagged)"
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "cycle $1: processes left after the kill: $left ($(for p in $left; do tr '\0' ' ' < /proc/$p/cmdline; echo -n '; '; done))"
}
delay() { awk -v s="$RANDOM$RANDOM" -v max="$max_delay" 'BEGIN { srand(s); printf "%.3f", 0.05 + rand() * (max - 0.05) }'; }
# Runs the checks (soakcheck.py's arguments); their figures into R, counted.
declare -A R=()
run_check() {
    local what="$1" line
    shift
    R=()
    if ! python3 "$check" "$@" > "$T/check" 2> "$T/checkerr"; then
        cat "$T/checkerr"
        fail "$what: the checks above"
        if [ "$2" = tune ]; then # what the run said and left, to find the cause
            echo "kill9: its stderr (first and last 8 lines of $(wc -l < "$T/err")):"
            head -8 "$T/err"; echo "  ..."; tail -8 "$T/err"
            echo "kill9: its stdout:"; cat "$T/out"
            echo "kill9: the results folder:"; ls -laR "$res" | head -40
        fi
    fi
    while IFS= read -r line; do R[${line%%=*}]="${line#*=}"; done < "$T/check"
    checks=$((checks + ${R[checks]:-0}))
}

# ---- the tune ----
size=16
rows=0 tune_tmp=0 killed=0 completed=0 lost=0 evals=0
echo "kill9: $tune_cycles tune cycles (glgemm tune --size S --reps 1 ${tune_args[*]}, S from 16 on, killed after 0.05-$max_delay s), then $lib_cycles library cycles; in $T"
for c in $(seq "$tune_cycles"); do
    # Emptied here, not only by the job's redirections: a kill that lands
    # before the forked shell opened them (a loaded machine, the shortest
    # delay) left the previous cycle's output for this cycle's checks (CI:
    # a size's first cycle "printed" the last size's 29 evaluations).
    : > "$T/out"; : > "$T/err"
    env GLGEMM_SOAK_TAG="$tag" nice "$bin" tune --size "$size" --reps 1 "${tune_args[@]}" --verbose --results "$res" \
        > "$T/out" 2> "$T/err" &
    pid=$!
    sleep "$(delay)"
    k=0
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null && k=1
    { wait "$pid"; } 2>/dev/null
    rc=$?
    no_leftovers "$c"
    if [ "$k" = 1 ] && [ "$rc" != 137 ]; then k=0; fi # it ended on its own meanwhile
    if [ "$k" = 0 ] && [ "$rc" != 0 ]; then fail "cycle $c: tune exit $rc: $(tail -3 "$T/err")"; fi
    run_check "cycle $c (size $size, killed $k)" tune "$res" "$card" "$size" "$T/err" "$T/out" "$T/state" cache "$GLGEMM_CACHE_DIR"
    ph="${R[phase]}"
    [ "$k" = 1 ] && { killed=$((killed + 1)); phases[$ph]=$((${phases[$ph]:-0} + 1)); lost=$((lost + R[in_flight_lost])); }
    evals=$((evals + R[evals_printed]))
    rows=${R[rows]} tune_tmp=${R[cache_tmp]}
    [ "$failed" = 0 ] && survived=$c
    printf '[%3ds] cycle %2d: size %d, %s, %s; rows %s (+%s), evaluations printed %s, best %s, cache %s entries, tmp files %s+%s\n' \
        "$SECONDS" "$c" "$size" "$([ $k = 1 ] && echo "killed in $ph" || echo "ran to its end")" "exit $rc" \
        "$rows" "${R[new_rows]}" "${R[evals_printed]}" "${R[best]}" "${R[entries]}" "${R[results_tmp]}" "${R[cache_tmp]}"
    if [ "$k" = 0 ] && [ "$rc" = 0 ]; then completed=$((completed + 1)); size=$((size + 1)); fi
done

# The last size run to its end: every variant measured, the best verified
# again through the cache the kills left (then with entries corrupted).
env GLGEMM_SOAK_TAG="$tag" nice "$bin" tune --size "$size" --reps 1 "${tune_args[@]}" --verbose --results "$res" > "$T/out" 2> "$T/err" ||
    fail "final tune: exit $?: $(tail -3 "$T/err")"
run_check "final tune" tune "$res" "$card" "$size" "$T/err" "$T/out" "$T/state" cache "$GLGEMM_CACHE_DIR"
rows=${R[rows]}
grep -q '^best: mrt=' "$T/out" || fail "final tune: no best on stdout"
grep -q 'measured now, .* from the records' "$T/out" || fail "final tune: no search summary"
csv="$res/$card/tune-${size}x${size}x${size}.csv"
verify_top() { # the best file's variant and the 3 fastest ok rows, each run and verified
    local v
    vt_n=0
    for v in $( (head -1 "$res/$card/best-${size}x${size}x${size}.txt"
                 awk -F, 'NR > 1 && $17 == "ok" { print $19, $0 }' "$csv" | sort -gr | head -3 | cut -d' ' -f2- |
                 python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import soakcheck
for l in sys.stdin: print(soakcheck.canonical(l.strip().split(",")))' "$src/tests/soak") | awk '!seen[$0]++'); do
        if env GLGEMM_SOAK_TAG="$tag" "$bin" run "$v" --size "$size" --reps 1 > "$T/run" 2>&1 &&
           grep -q ": ok, " "$T/run"; then vt_n=$((vt_n + 1)); else fail "$1: glgemm run $v: $(cat "$T/run")"; fi
        checks=$((checks + 1))
    done
}
verify_top "verify"
ran=$vt_n
# Every entry of the cache corrupted (bytes of its binary changed): the
# same runs must come out right again, compiling what they read and writing
# those entries anew.
entries="$(ls "$GLGEMM_CACHE_DIR"/*.bin | wc -l)"
for f in "$GLGEMM_CACHE_DIR"/*.bin; do
    printf 'XXXX' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 8)) conv=notrunc status=none
done
verify_top "verify after corrupting"
ran2=$vt_n
bad_left="$(python3 "$check" cache "$GLGEMM_CACHE_DIR" 2>&1 | grep -c 'checksum wrong')"
[ "$bad_left" -lt "$entries" ] || fail "no corrupted cache entry was written anew"
echo "[$(printf %3d $SECONDS)s] final: tune of ${size}^3 to its end: $rows rows; glgemm run verified $ran variants (the best file's and the 3 fastest rows) through the cache the kills left; then every one of its $entries entries corrupted: verified $ran2 again, $((entries - bad_left)) entries written anew (the other $bad_left never read)"

# ---- the library program (a cache of its own) ----
export GLGEMM_CACHE_DIR="$T/libcache"
lib_killed=0 lib_calls=0 lib_done=0 lib_tmp=0
for c in $(seq "$lib_cycles"); do
    : > "$T/lout"; : > "$T/lerr" # as for the tune: not the last cycle's output
    env GLGEMM_SOAK_TAG="$tag" nice "$T/libkill" "$c" > "$T/lout" 2> "$T/lerr" &
    pid=$!
    sleep "$(awk -v s="$RANDOM$RANDOM" 'BEGIN { srand(s); printf "%.3f", 0.05 + rand() * 1.5 }')"
    k=0
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null && k=1
    { wait "$pid"; } 2>/dev/null
    rc=$?
    no_leftovers "lib $c"
    if [ "$k" = 1 ] && [ "$rc" != 137 ]; then k=0; fi
    [ "$k" = 0 ] && [ "$rc" != 0 ] && fail "lib cycle $c: exit $rc: $(tail -3 "$T/lout" "$T/lerr")"
    grep -q 'going on without it\|warning' "$T/lerr" && fail "lib cycle $c: $(cat "$T/lerr")"
    run_check "lib cycle $c" lib "$T/lout" cache "$GLGEMM_CACHE_DIR"
    lib_killed=$((lib_killed + k))
    lib_calls=$((lib_calls + R[calls_ok]))
    [ "${R[done]}" = True ] && lib_done=$((lib_done + 1))
    lib_tmp="${R[cache_tmp]}"
    [ "$failed" = 0 ] && lib_survived=$c
    printf '[%3ds] lib cycle %2d: %s, %s calls right, cache %s entries, tmp files %s\n' "$SECONDS" "$c" \
        "$([ $k = 1 ] && echo killed || echo "ran to its end (exit $rc)")" "${R[calls_ok]}" \
        "${R[entries]}" "$lib_tmp"
done
# Once more to its end: every call right with whatever the kills left.
env GLGEMM_SOAK_TAG="$tag" "$T/libkill" "$lib_cycles" "$final_calls" > "$T/lout" 2>&1 || fail "final library run: $(grep FAIL "$T/lout")"
run_check "final library run" lib "$T/lout" cache "$GLGEMM_CACHE_DIR"
no_leftovers "final"
# A folder a killed glslang compile left is removed by a later process.
spirv_left="$(ls -d "$TMPDIR"/glgemm-spirv-* 2>/dev/null | wc -l)"
checks=$((checks + 1))
[ "$spirv_left" = 0 ] || fail "$spirv_left glslang folders left in TMPDIR: $(ls "$TMPDIR")"

echo
echo "summary: tune: $tune_cycles cycles, $killed killed (at: $(for p in "${!phases[@]}"; do echo -n "$p ${phases[$p]}, "; done | sed 's/, $//')), $completed ran to their end; $evals evaluations printed, $lost lost in flight; $rows rows in the last records, $(cat "$res/$card"/tune-*.csv | grep -vc '^card,') in all"
echo "summary: library: $lib_cycles cycles, $lib_killed killed, $lib_done ran to their end; $lib_calls calls right, then ${R[calls_ok]} of $final_calls in the final run"
echo "summary: left behind by the kills: $(ls -A "$res/$card" | grep -c '\.tmp-') temporary best files, $tune_tmp + $lib_tmp temporary cache entries (tune + library), $spirv_left glslang folders in TMPDIR at the end (a later compile removes them)"
echo "summary: $checks checks, $failed failed; cycles survived: $survived of $tune_cycles tune, $lib_survived of $lib_cycles library"
[ "$failed" = 0 ]
