#!/usr/bin/env bash
# tests/device/browser-gpu.sh STEP [ARGS] ...: the browser backend's
# measurements on the GPU machine, after the carried parts came
# (tests/device/browser.sh; carry .dev/<part>, glgemm and web/dist).  Runs
# the steps in order; each prints what it ran and how long it took.  The
# worker is this tree's web/ (node_modules from the carried bundle), the
# binary this tree's ./glgemm.  Steps:
#   info                         info for each --angle (default vulkan gl-egl swiftshader)
#   hand ANGLE SIZE              tests/device/browser-hand.txt's variants, run --reps 10 --csv
#   tune ANGLE SIZE "OPTS"       a tune (OPTS one word, e.g. "--fresh --max-time 300");
#                                its summary to results/CARD/tune-SIZE-summary.txt,
#                                its log appended to tune-log-SIZE.txt (--fresh: anew)
#   trace ANGLE SIZE VARIANT     one run with GLGEMM_BROWSER_TRACE=1 (where its time goes)
#   bench ANGLE SIZE N           N benches, appended to results/CARD/bench-runs-SIZE.txt
#   probe ANGLE                  glgemm probe --backend browser
#   race ANGLE SIZE              tests/web/race.mjs on an exported --portfolio module,
#                                its line appended to results/CARD/race-SIZE.jsonl
#   race-ms ANGLE SIZE MS        the same with a race budget of MS milliseconds
#   pack                         results/chromium-*-{vulkan,gl}/ into $OUT/results.tgz
# The records are packed to $OUT/results.tgz after each step and every 15 s
# during one: a call stopped at its limit still brings back what was
# measured (the device's tree is a new copy at each call: only $OUT comes
# back).
# e.g. (a device call): tests/device/browser-gpu.sh info tune vulkan 1024 "--fresh --max-time 300"
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tests/device/browser.sh unpack >/dev/null
. tests/device/browser-env.sh
[ -e web/node_modules ] || ln -s /opt/gg/web/node_modules web/node_modules
export GLGEMM_WEB=$root/web GLGEMM_WEB_DIR=$root/web/dist
[ -x ./glgemm ] && GG=$root/glgemm
B=(--backend browser --browser "$GG_SHELL")
t0=$(date +%s)
say() { echo "== [$(( $(date +%s) - t0 )) s] $*"; }
card() { "$GG" info "${B[@]}" --angle "$1" 2>/dev/null | sed -n 's/^slug: //p'; }
sz() { echo "${1}x${1}x${1}"; }
# Every 15 s while a step runs, the records so far to $OUT: a call cut at
# its limit in the middle of a long step (a 4096^3 tune) still brings back
# its log and the points measured.
packer() { while sleep 15; do outpack; done; }
outpack() {
    [ -n "${OUT:-}" ] && tar czf "$OUT/results.tgz.part" $(ls -d results/chromium-*-vulkan results/chromium-*-gl 2>/dev/null) 2>/dev/null &&
        mv "$OUT/results.tgz.part" "$OUT/results.tgz"
}
packer &
trap 'kill $! 2>/dev/null' EXIT
while [ $# -gt 0 ]; do
    step=$1; shift
    case $step in
    info)
        for a in default vulkan gl-egl swiftshader; do
            say "info --angle $a"
            "$GG" info "${B[@]}" --angle "$a" 2>&1 | grep -E '^(glgemm|device|renderer|version|max|float|slug)'
        done ;;
    hand)
        a=$1 s=$2; shift 2
        say "hand $a $s"
        grep -v '^\s*#' tests/device/browser-hand.txt | grep -v '^\s*$' | while read -r v; do
            "$GG" run "$v" "${B[@]}" --angle "$a" --size "$s" --reps 10 --csv 2>&1 | tail -1
        done ;;
    tune)
        a=$1 s=$2; read -r -a opts <<<"${3:-}"; shift 3
        c=$(card "$a"); mkdir -p "results/$c"
        say "tune $a $s ${opts[*]} (card $c)"
        # the log grows over a tune resumed in several calls; --fresh starts it
        log="results/$c/tune-log-$(sz "$s").txt"
        case " ${opts[*]} " in *" --fresh "*) : >"$log" ;; esac
        "$GG" tune "${B[@]}" --angle "$a" --size "$s" "${opts[@]}" >"results/$c/tune-$(sz "$s")-summary.txt" \
            2>>"$log"
        echo "exit $?"; cat "results/$c/tune-$(sz "$s")-summary.txt" ;;
    trace)
        a=$1 s=$2 v=$3; shift 3
        say "trace $a $s $v"
        GLGEMM_BROWSER_TRACE=1 "$GG" run "$v" "${B[@]}" --angle "$a" --size "$s" --reps 3 2>&1 | tail -4 ;;
    bench)
        a=$1 s=$2 n=$3; shift 3
        c=$(card "$a"); mkdir -p "results/$c"
        for i in $(seq "$n"); do
            say "bench $a $s ($i of $n)"
            "$GG" bench "${B[@]}" --angle "$a" --size "$s" 2>&1 | tee -a "results/$c/bench-runs-$(sz "$s").txt"
        done ;;
    probe)
        a=$1; shift
        say "probe $a"
        "$GG" probe "${B[@]}" --angle "$a" 2>&1 | tail -25 ;;
    race|race-ms)
        a=$1 s=$2; shift 2
        ms=; if [ "$step" = race-ms ]; then ms=$1; shift; fi
        c=$(card "$a")
        say "race $a $s (card $c)"
        rm -rf /tmp/pf && "$GG" export --portfolio --js /tmp/pf >/dev/null &&
        best=$(head -1 "results/$c/best-$(sz "$s").txt" 2>/dev/null)
        flag=$(case $a in vulkan) echo --use-angle=vulkan ;; gl-egl) echo --use-angle=gl-egl ;;
               swiftshader) echo --use-angle=swiftshader ;; *) echo --enable-unsafe-swiftshader ;; esac)
        node tests/web/race.mjs --chromium "$GG_SHELL" --arg "$flag" --module /tmp/pf --size "$s" ${best:+--best "$best"} \
            ${ms:+--race-ms "$ms"} | tee -a "results/$c/race-$(sz "$s").jsonl" ;;
    pack)
        say pack
        OUT=${OUT:-/tmp} outpack ;;
    *) echo "browser-gpu.sh: unknown step '$step'" >&2; exit 2 ;;
    esac
    outpack
done
say done
