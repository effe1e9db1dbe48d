#!/usr/bin/env bash
# tests/device/scaling.sh [SIZE [N]]: the multi-GPU measurements of issues 32
# (two GPUs) and 41 (four), on a host with N GPUs (N EGL hardware devices),
# from the tree's root after `make && make mpi`.  Not part of make check (it
# needs the GPUs).  SIZE: default 4096.  N: default every hardware EGL device
# `glgemm devices` lists; at least 2, at most as many as it lists (and 16).
#
# From-scratch phase tunes of SIZE^3, each into empty records holding only
# the card's committed probe.csv (so the bound prunes as in a real tune),
# each with empty program caches and the driver's shader disk cache off, so
# that none starts with another's compiled programs:
#   one    glgemm tune --devices 0                 one GPU
#   two    glgemm tune --devices 0,1               two GPUs (only when N > 2)
#   ALL    glgemm tune --devices 0,1,...,N-1       all N GPUs, one process
#   mpi    mpirun -np N glgemm-mpi tune --devices local   one rank per GPU
# then `one` again (one2): the drift of the machine over the runs.  ALL is
# named by N in words: two, three, four, ... eight (x9, x10, ... past that),
# so for N = 2 the runs are one, two, mpi, one2 as issue 32 committed them.
# Writes results/<card>-xN/:
#   scaling.md           the table: wall time of each tune, against one GPU
#                        (target for ALL: <= 0.6x with two, <= 0.4x with
#                        four; other N: the ratio only), the best of each and
#                        whether ALL's best is one's within the spread, how
#                        far the mpi records agree with the in-process ALL
#                        ones (the same variants; their GFLOP/s within the
#                        spread), and the library's sgemm over the N GPUs
#   <run>/               each tune's records folder: tune-SIZE^3.csv,
#                        best-*.txt, summary.txt (stdout), log.txt (stderr),
#                        wall.txt, exit.txt
#   environment.txt      the GPUs, the driver, the commit, the date
#   library.tsv          the library's figures (below) as the table has them
# The library section, for each size of LIB_SIZES (default: SIZE), one of:
#   LIB_SGEMM_CMD set: a command printing a line `gflops: X`, run once with
#       GLGEMM_DEVICES=0 and once with GLGEMM_DEVICES=0,1,...,N-1; `{size}`
#       in it is replaced by the size (lib-SIZE-one.txt, lib-SIZE-all.txt);
#   LIB_SIZES set without LIB_SGEMM_CMD: build/splitspeed SIZE 0 0,...,N-1
#       ${LIB_ROUNDS:-5} (`make perf`; tests/perf/splitspeed.c: device 0,
#       then the N devices, each call verified, medians; split-SIZE.txt);
#   neither: the rows say to fill them.
# Target for the library: >= 1.8x one GPU with two (issue 32), >= 3.5x with
# four (issue 41).  E.g. on four H200s:
#   LIB_SIZES="8192 16384" tests/device/scaling.sh 4096 4
# SCALING_DRY=1 rehearses it on any machine (see below).  SCALING_RESUME=1
# keeps what an earlier run of the script into the same folder finished (a
# tune that exited 0, a library size with its N-device line), so a run cut
# by a time limit goes on where it stopped; environment.txt is rewritten.
# Exit: 0 done (the table says whether the targets were met), 2 not an
# N-GPU host, a bad argument, or not built.
set -uo pipefail
size=${1:-4096}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
bin=./glgemm mpibin=./glgemm-mpi split=build/splitspeed
if [ ! -x "$bin" ] || [ ! -x "$mpibin" ]; then
    echo "scaling: make && make mpi first" >&2
    exit 2
fi
mpirun=$(command -v mpirun || command -v mpirun.openmpi) ||
    { echo "scaling: no mpirun (docs/cluster.md: the packages)" >&2; exit 2; }
[[ "$size" =~ ^[1-9][0-9]*$ ]] || { echo "scaling: SIZE '$size' is not a number" >&2; exit 2; }
lib_sizes=${LIB_SIZES:-$size}
for s in $lib_sizes; do
    [[ "$s" =~ ^[1-9][0-9]*$ ]] || { echo "scaling: LIB_SIZES: '$s' is not a number" >&2; exit 2; }
done
if [ -n "${LIB_SIZES:-}" ] && [ -z "${LIB_SGEMM_CMD:-}" ] && [ ! -x "$split" ]; then
    echo "scaling: LIB_SIZES without LIB_SGEMM_CMD runs $split: make perf first" >&2
    exit 2
fi
card=$("$bin" info | sed -n 's/^slug: //p')
[ -n "$card" ] || { echo "scaling: glgemm info names no card" >&2; exit 2; }
# SCALING_DRY=1: a rehearsal of the script anywhere (llvmpipe: one device N
# times, --devices 0,0,...; N ranks all on device 0, mpirun --oversubscribe
# since N ranks may be more than the machine's cores; the library calls
# split however small; the user records folder, XDG_DATA_HOME, one of its
# own), into a temporary folder.  N defaults to 2 there.
dry=0 ndev=0
[ "${SCALING_DRY:-}" = 1 ] && dry=1
if [ "$dry" = 0 ]; then
    ndev=$("$bin" devices | grep -vc 'software\|llvmpipe')
fi
n=${2:-}
if [ -z "$n" ]; then
    if [ "$dry" = 1 ]; then n=2; else n=$ndev; fi
    if [ "$n" -lt 2 ]; then
        echo "scaling: $ndev hardware EGL devices; this needs two or more (SCALING_DRY=1 rehearses it)" >&2
        exit 2
    fi
fi
if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ] || [ "$n" -gt 16 ]; then
    echo "scaling: N '$n': 2 to 16 devices" >&2
    exit 2
fi
if [ "$dry" = 0 ] && [ "$n" -gt "$ndev" ]; then
    echo "scaling: $ndev hardware EGL devices; this needs $n" >&2
    exit 2
fi
# The device lists: all N (0,1,...,N-1), the first two; mpi's ranks.
words=(zero one two three four five six seven eight)
allname=${words[$n]:-x$n}
all=$(seq -s, 0 $((n - 1))) two=0,1 local=local mpi_extra=() lib_env=()
out=results/$card-x$n
if [ "$dry" = 1 ]; then
    all=$(printf '0%.0s,' $(seq "$n")) all=${all%,} two=0,0 local=0 mpi_extra=(--oversubscribe)
    out=$(cd "$(mktemp -d "${TMPDIR:-/tmp}/scaling-dry.XXXXXX")" && pwd)
    # so that the rehearsal's small library calls are split, not handed to
    # the CPU BLAS (as tests/blas/run.sh does)
    lib_env=(GLGEMM_CROSSOVER=0 GLGEMM_SPLIT_MIN=0)
    # the tunes' best files go to a user records folder of the rehearsal's
    # own (tune copies them to the user's, where the library reads them)
    export XDG_DATA_HOME=$out/xdg-data
    mpi_extra+=(-x XDG_DATA_HOME)
fi
mkdir -p "$out"
[ "$(id -u)" = 0 ] && mpi_extra+=(--allow-run-as-root)

{
    echo "card: $card"
    echo "devices: $n ($all)$([ "$dry" = 1 ] && echo ', SCALING_DRY=1')"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    nvidia-smi -L 2>/dev/null
    nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/driver: /'
    "$bin" devices
    "$mpirun" --version 2>/dev/null | head -1
} > "$out/environment.txt"

# One tune into $out/$name: empty records but for the probe, fresh caches.
# launch: the program (and mpirun's words); opts: tune's own.
tune() {
    local name=$1 launch=$2 opts=$3
    local dir=$out/$name
    if [ "${SCALING_RESUME:-}" = 1 ] && [ "$(cat "$dir/exit.txt" 2>/dev/null)" = 0 ]; then
        echo "scaling: $name: kept (SCALING_RESUME=1), $(cat "$dir/wall.txt") s" >&2
        return
    fi
    rm -rf "$dir" && mkdir -p "$dir/$card" "$dir/cache" "$dir/xdg"
    [ -f "results/$card/probe.csv" ] && cp "results/$card/probe.csv" "$dir/$card/"
    local t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # the words of launch and opts
    GLGEMM_CACHE_DIR=$dir/cache XDG_CACHE_HOME=$dir/xdg __GL_SHADER_DISK_CACHE=0 \
        $launch tune --size "$size" --results "$dir" $opts > "$dir/summary.txt" 2> "$dir/log.txt"
    local rc=$?
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' > "$dir/wall.txt"
    echo "scaling: $name: exit $rc, $(cat "$dir/wall.txt") s" >&2
    echo "$rc" > "$dir/exit.txt"
}

tune one "$bin" "--devices 0"
[ "$n" -gt 2 ] && tune two "$bin" "--devices $two"
tune "$allname" "$bin" "--devices $all"
tune mpi "$mpirun -np $n ${mpi_extra[*]} -x GLGEMM_CACHE_DIR -x XDG_CACHE_HOME -x __GL_SHADER_DISK_CACHE $mpibin" "--devices $local"
tune one2 "$bin" "--devices 0"

# The library: one line a size in $out/library.tsv: size, one GPU's GFLOP/s,
# all N's, one's and all's median seconds (splitspeed only), the command.
lib_mode=none
if [ -n "${LIB_SGEMM_CMD:-}" ]; then
    lib_mode=cmd
elif [ -n "${LIB_SIZES:-}" ]; then
    lib_mode=splitspeed
fi
: > "$out/library.tsv"
gflops() { sed -n 's/.*gflops: *\([0-9.]*\).*/\1/p' "$1" | tail -1; }
for s in $lib_sizes; do
    [ "$lib_mode" = none ] && break
    if [ "$lib_mode" = cmd ]; then
        cmd=${LIB_SGEMM_CMD//\{size\}/$s}
        env "${lib_env[@]}" GLGEMM_DEVICES=0 sh -c "$cmd" > "$out/lib-$s-one.txt" 2>&1
        env "${lib_env[@]}" GLGEMM_DEVICES="$all" sh -c "$cmd" > "$out/lib-$s-all.txt" 2>&1
        echo "scaling: library $s^3: done" >&2
        printf '%s\t%s\t%s\t\t\t%s\n' "$s" "$(gflops "$out/lib-$s-one.txt")" \
            "$(gflops "$out/lib-$s-all.txt")" "$cmd" >> "$out/library.tsv"
    else
        cmd="$split $s 0 $all ${LIB_ROUNDS:-5}"
        if [ "${SCALING_RESUME:-}" = 1 ] && grep -q "^devices $all: median" "$out/split-$s.txt" 2>/dev/null; then
            echo "scaling: library $s^3: kept (SCALING_RESUME=1)" >&2
        else
            # shellcheck disable=SC2086 # the words of cmd
            env "${lib_env[@]}" $cmd > "$out/split-$s.txt" 2>&1
            echo "scaling: library $s^3: exit $?" >&2
        fi
        # "device 0: median S s (min .., max ..) of R: G GFLOP/s", then "devices LIST: ..."
        med() { sed -n "s/^$1: median \\([0-9.]*\\) s .*: \\([0-9.]*\\) GFLOP\\/s.*/\\$2/p" "$out/split-$s.txt" | tail -1; }
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$(med 'device 0' 2)" "$(med "devices $all" 2)" \
            "$(med 'device 0' 1)" "$(med "devices $all" 1)" "$cmd" >> "$out/library.tsv"
    fi
done

python3 - "$out" "$card" "$size" "$n" "$allname" "$all" "$two" "$local" "$lib_mode" \
    "${LIB_ROUNDS:-5}" "${lib_env[*]}" "${LIB_SGEMM_CMD:-}" <<'PY'
import csv, os, re, statistics, sys
out, card, size, n, allname, devs, two, local, lib_mode, rounds, lib_env, lib_cmd = sys.argv[1:13]
n = int(n)
def read(name, f):
    p = os.path.join(out, name, f)
    return open(p).read() if os.path.exists(p) else ""
def wall(name):
    try:
        return float(read(name, "wall.txt"))
    except ValueError:
        return float("nan")
def best(name):
    m = re.search(r"^best: (.*)$", read(name, "summary.txt"), re.M)
    g = re.search(r"^gflops: ([0-9.]+)", read(name, "summary.txt"), re.M)
    return (m.group(1) if m else "-", float(g.group(1)) if g else float("nan"))
def spread(name):
    m = re.search(r"^gflops: .*spread ([0-9.]+)%", read(name, "summary.txt"), re.M)
    return float(m.group(1)) / 100 if m else float("nan")
def records(name):
    p = os.path.join(out, name, card, "tune-%sx%sx%s.csv" % (size, size, size))
    rows = {}
    if not os.path.exists(p):
        return rows
    with open(p) as f:
        r = csv.reader(f)
        head = next(r)
        cut = head.index("passes")
        st, gf = head.index("status"), head.index("gflops")
        for row in r:
            rows[",".join(row[4:cut])] = (row[st], float(row[gf] or 0))
    return rows
# The targets: issue 32 (two GPUs), issue 41 (four).
tune_target = {2: (0.6, 32), 4: (0.4, 41)}.get(n)
lib_target = {2: (1.8, 32), 4: (3.5, 41)}.get(n)
runs = ["one"] + (["two"] if n > 2 else []) + [allname, "mpi", "one2"]
cmds = {"one": "glgemm tune --devices 0", "two": "glgemm tune --devices %s" % two,
        allname: "glgemm tune --devices %s" % devs,
        "mpi": "mpirun -np %d glgemm-mpi tune --devices %s" % (n, local),
        "one2": "glgemm tune --devices 0 (again)"}
w = {r: wall(r) for r in runs}
base = (w["one"] + w["one2"]) / 2 if w["one2"] == w["one2"] else w["one"]
lines = ["# %d GPUs: tune wall time and records (issues 32, 41)" % n, "",
         "Card `%s`, %s^3, from-scratch phase tunes (empty records but the card's "
         "probe.csv, empty program caches, `__GL_SHADER_DISK_CACHE=0`); "
         "`tests/device/scaling.sh %s %d`; environment.txt says where and when." % (card, size, size, n), "",
         "| run | command | wall s | vs one GPU | best | GFLOP/s | exit |", "|---|---|---|---|---|---|---|"]
for r in runs:
    b, g = best(r)
    lines.append("| %s | `%s` | %.1f | %.2fx | `%s` | %.1f | %s |" % (
        r, cmds[r], w[r], w[r] / base, b, g, read(r, "exit.txt").strip()))
ratio = w[allname] / base
target = ("target <= %gx (issue %d): %s" % (tune_target[0], tune_target[1],
          "met" if ratio <= tune_target[0] else "NOT met") if tune_target else
          "no target for %d GPUs: issue 32 asks <= 0.6x of two, issue 41 <= 0.4x of four" % n)
lines += ["", "%d GPUs / one GPU (one: the mean of one and one2): **%.2fx** (%s)."
          % (n, ratio, target)]
if n > 2:
    lines.append("two GPUs / one GPU: %.2fx." % (w["two"] / base))
lines.append("mpi / one GPU: %.2fx." % (w["mpi"] / base))
(b1, g1), (bn, gn) = best("one"), best(allname)
sp1 = max([x for x in (spread("one"), spread(allname)) if x == x] + [0.05])
lines += ["%d GPUs' best against one GPU's: %s, %.1f against %.1f GFLOP/s (%.3f; within the spread, "
          "%.1f%%, the larger finalist spread, at least 5%%: %s)." % (
              n, "the same variant" if bn == b1 else "another variant", gn, g1,
              gn / g1 if g1 > 0 else float("nan"), 100 * sp1,
              "yes" if g1 > 0 and abs(gn / g1 - 1) <= sp1 else "no"), ""]
a, m = records(allname), records("mpi")
common = sorted(set(a) & set(m))
sp = max([x for x in (spread(allname), spread("mpi")) if x == x] + [0.05])
ok = [k for k in common if a[k][0] == "ok" and m[k][0] == "ok" and a[k][1] > 0]
rel = [m[k][1] / a[k][1] for k in ok]
within = sum(1 for x in rel if abs(x - 1) <= sp)
lines += ["## mpi against the in-process %d-GPU tune" % n, "",
          "- rows: %s %d, mpi %d; variants in both %d, only in %s %d, only in mpi %d" % (
              allname, len(a), len(m), len(common), allname, len(set(a) - set(m)),
              len(set(m) - set(a))),
          "- statuses that differ on common variants: %d" % sum(1 for k in common if a[k][0] != m[k][0]),
          "- GFLOP/s mpi/%s on the %d common ok variants: median %.3f, within the spread "
          "(%.1f%%, the larger finalist spread, at least 5%%): %d of %d" % (
              allname, len(ok), statistics.median(rel) if rel else float("nan"), 100 * sp,
              within, len(ok)),
          "- best: %s `%s` %.1f, mpi `%s` %.1f GFLOP/s" % ((allname,) + best(allname) + best("mpi")),
          "", "## The library over %d GPUs" % n, ""]
lib = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "library.tsv")) if l.strip()]
def num(x):
    try:
        return float(x)
    except ValueError:
        return float("nan")
if lib_mode == "none":
    lines += ["| sgemm %s^3 through the library | GFLOP/s |" % size, "|---|---|",
              "| GLGEMM_DEVICES=0 | (to fill: LIB_SIZES=..., or LIB_SGEMM_CMD=...; see the script) |",
              "| GLGEMM_DEVICES=%s | (to fill) |" % devs]
else:
    if lib_mode == "splitspeed":
        lines += ["`build/splitspeed SIZE 0 %s %s` (`make perf`; tests/perf/splitspeed.c): "
                  "SIZE^3 sgemm through the library on device 0, then on devices %s, each call "
                  "verified, the median of %s calls after a first (split-SIZE.txt)." % (
                      devs, rounds, devs, rounds), ""]
    else:
        lines += ["LIB_SGEMM_CMD `%s` (`{size}`: each size), with GLGEMM_DEVICES=0, then "
                  "GLGEMM_DEVICES=%s (lib-SIZE-one.txt, lib-SIZE-all.txt)." % (lib_cmd, devs), ""]
    if lib_env:
        lines += ["SCALING_DRY=1: with `%s` (every call split over the devices)." % lib_env, ""]
    lines += ["| sgemm through the library | device 0 s | device 0 GFLOP/s | devices %s s "
              "| devices %s GFLOP/s | %d / one |" % (devs, devs, n), "|---|---|---|---|---|---|"]
    for s, g1, gn, t1, tn, _ in lib:
        r = num(gn) / num(g1) if num(g1) > 0 else float("nan")
        t = (" (target >= %gx, issue %d: %s)" % (lib_target[0], lib_target[1],
             "met" if r >= lib_target[0] else "NOT met") if lib_target else "")
        lines.append("| %s^3 | %s | %s | %s | %s | **%.2fx**%s |" % (
            s, t1 or "-", g1 or "-", tn or "-", gn or "-", r, t))
open(os.path.join(out, "scaling.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "scaling: $out/scaling.md" >&2
