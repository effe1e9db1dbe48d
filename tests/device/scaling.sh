#!/usr/bin/env bash
# tests/device/scaling.sh [SIZE]: issue 32's two-GPU measurements, on a host
# with two GPUs (two EGL hardware devices), from the tree's root after
# `make && make mpi`.  Not part of make check (it needs the GPUs).
#
# Three from-scratch phase tunes of SIZE^3 (default 4096), each into empty
# records holding only the card's committed probe.csv (so the bound prunes
# as in a real tune), each with empty program caches and the driver's shader
# disk cache off, so that none starts with another's compiled programs:
#   one   glgemm tune --devices 0               one GPU
#   two   glgemm tune --devices 0,1             both GPUs, one process
#   mpi   mpirun -np 2 glgemm-mpi tune --devices local   one rank per GPU
# then `one` again (one2): the drift of the machine over the runs.
# Writes results/<card>-x2/:
#   scaling.md           the table: wall time of each tune, two/one (target
#                        <= 0.6) and mpi/one, the best of each, how far the
#                        mpi records agree with the in-process two-GPU ones
#                        (the same variants; their GFLOP/s within the spread),
#                        and a slot for the library's sgemm over both GPUs
#   <run>/               each tune's records folder: tune-SIZE^3.csv,
#                        best-*.txt, summary.txt (stdout), log.txt (stderr)
#   environment.txt      the GPUs, the driver, the commit, the date
# The library slot: with LIB_SGEMM_CMD set (a command of the library helper's
# tool printing a line `gflops: X`), it is run with GLGEMM_DEVICES=0 and with
# GLGEMM_DEVICES=all and both figures go in; else the row says to fill it.
# SCALING_DRY=1 rehearses it on any machine (see below).
# Exit: 0 done (the table says whether the targets were met), 2 not a
# two-GPU host or not built.
set -uo pipefail
size=${1:-4096}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=./glgemm mpibin=./glgemm-mpi
[ -x "$bin" ] && [ -x "$mpibin" ] || { echo "scaling: make && make mpi first" >&2; exit 2; }
mpirun=$(command -v mpirun || command -v mpirun.openmpi) ||
    { echo "scaling: no mpirun (docs/cluster.md: the packages)" >&2; exit 2; }
# SCALING_DRY=1: a rehearsal of the script anywhere (llvmpipe: one device
# twice, --devices 0,0 and both ranks on device 0), into a temporary folder.
two=0,1 local=local
card=$("$bin" info | sed -n 's/^slug: //p')
[ -n "$card" ] || { echo "scaling: glgemm info names no card" >&2; exit 2; }
out=results/$card-x2
if [ "${SCALING_DRY:-}" = 1 ]; then
    two=0,0 local=0 out=$(mktemp -d "${TMPDIR:-/tmp}/scaling-dry.XXXXXX")
else
    ndev=$("$bin" devices | grep -vc 'software\|llvmpipe')
    [ "$ndev" -ge 2 ] || { echo "scaling: $ndev hardware EGL devices; this needs two" >&2; exit 2; }
fi
mkdir -p "$out"
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-run-as-root)

{
    echo "card: $card"
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
tune two "$bin" "--devices $two"
tune mpi "$mpirun -np 2 ${root_flag[*]} -x GLGEMM_CACHE_DIR -x XDG_CACHE_HOME -x __GL_SHADER_DISK_CACHE $mpibin" "--devices $local"
tune one2 "$bin" "--devices 0"

lib_one="" lib_two=""
if [ -n "${LIB_SGEMM_CMD:-}" ]; then
    lib_one=$(GLGEMM_DEVICES=0 sh -c "$LIB_SGEMM_CMD" 2>&1 | sed -n 's/.*gflops: *\([0-9.]*\).*/\1/p' | tail -1)
    lib_two=$(GLGEMM_DEVICES=all sh -c "$LIB_SGEMM_CMD" 2>&1 | sed -n 's/.*gflops: *\([0-9.]*\).*/\1/p' | tail -1)
fi

python3 - "$out" "$card" "$size" "$lib_one" "$lib_two" "${LIB_SGEMM_CMD:-}" <<'PY'
import csv, os, re, statistics, sys
out, card, size, lib_one, lib_two, lib_cmd = sys.argv[1:7]
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
runs = ["one", "two", "mpi", "one2"]
w = {n: wall(n) for n in runs}
base = (w["one"] + w["one2"]) / 2 if w["one2"] == w["one2"] else w["one"]
lines = ["# Two GPUs: tune wall time and records (issue 32)", "",
         "Card `%s`, %s^3, from-scratch phase tunes (empty records but the card's "
         "probe.csv, empty program caches, `__GL_SHADER_DISK_CACHE=0`); "
         "`tests/device/scaling.sh %s`; environment.txt says where and when." % (card, size, size), "",
         "| run | command | wall s | vs one GPU | best | GFLOP/s | exit |", "|---|---|---|---|---|---|---|"]
cmds = {"one": "glgemm tune --devices 0", "two": "glgemm tune --devices 0,1",
        "mpi": "mpirun -np 2 glgemm-mpi tune --devices local", "one2": "glgemm tune --devices 0 (again)"}
for n in runs:
    b, g = best(n)
    lines.append("| %s | `%s` | %.1f | %.2fx | `%s` | %.1f | %s |" % (
        n, cmds[n], w[n], w[n] / base, b, g, read(n, "exit.txt").strip()))
ratio = w["two"] / base
lines += ["", "two GPUs / one GPU (one: the mean of one and one2): **%.2fx** (target <= 0.6x: %s)."
          % (ratio, "met" if ratio <= 0.6 else "NOT met"),
          "mpi / one GPU: %.2fx." % (w["mpi"] / base), ""]
a, m = records("two"), records("mpi")
common = sorted(set(a) & set(m))
sp = max([x for x in (spread("two"), spread("mpi")) if x == x] + [0.05])
ok = [k for k in common if a[k][0] == "ok" and m[k][0] == "ok" and a[k][1] > 0]
rel = [m[k][1] / a[k][1] for k in ok]
within = sum(1 for x in rel if abs(x - 1) <= sp)
lines += ["## mpi against the in-process two-GPU tune", "",
          "- rows: two %d, mpi %d; variants in both %d, only in two %d, only in mpi %d" % (
              len(a), len(m), len(common), len(set(a) - set(m)), len(set(m) - set(a))),
          "- statuses that differ on common variants: %d" % sum(1 for k in common if a[k][0] != m[k][0]),
          "- GFLOP/s mpi/two on the %d common ok variants: median %.3f, within the spread "
          "(%.1f%%, the larger finalist spread, at least 5%%): %d of %d" % (
              len(ok), statistics.median(rel) if rel else float("nan"), 100 * sp, within, len(ok)),
          "- best: two `%s` %.1f, mpi `%s` %.1f GFLOP/s" % (best("two") + best("mpi")),
          "", "## The library over both GPUs", "",
          "| sgemm %s^3 through the library | GFLOP/s |" % size, "|---|---|"]
if lib_cmd:
    lines += ["| GLGEMM_DEVICES=0 (`%s`) | %s |" % (lib_cmd, lib_one or "-"),
              "| GLGEMM_DEVICES=all | %s |" % (lib_two or "-")]
else:
    lines += ["| GLGEMM_DEVICES=0 | (to fill: the library helper's tool; LIB_SGEMM_CMD=...) |",
              "| GLGEMM_DEVICES=all | (to fill) |"]
open(os.path.join(out, "scaling.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
