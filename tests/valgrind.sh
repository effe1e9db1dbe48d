#!/bin/sh
# Runs the host under valgrind memcheck on small problems (make valgrind).
# A command passes when valgrind reports no error (exit status 9 is kept for
# errors, so the command's own status, 0, 1 or 2, still shows) and no block
# is definitely lost.  Suppressions: tests/valgrind.supp (GL driver stack only).
#   tests/valgrind.sh [BIN]     (default ./glgemm)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "${1:-./glgemm}")" && pwd)/$(basename "${1:-./glgemm}")
command -v valgrind >/dev/null 2>&1 || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d /tmp/glgemm-valgrind-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GLGEMM_CACHE_DIR="$work/program-cache" # not the user's ~/.cache
cd "$work" || exit 2
# A (5, 7), B (7, 3), C0 (5, 3) as float32 .npy, and one truncated file.
npy() { # name rows cols count
    python3 -c "import struct,sys
n,r,c,k=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]),int(sys.argv[4])
d=\"{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }\"%(r,c)
t=(10+len(d)+1+63)//64*64
h=d+' '*(t-10-len(d)-1)+'\n'
open(n,'wb').write(b'\x93NUMPY\x01\x00'+struct.pack('<H',len(h))+h.encode()+struct.pack('<%df'%k,*[(i%7-3)/4 for i in range(k)]))" "$@"
}
npy a.npy 5 7 35; npy b.npy 7 3 21; npy c.npy 5 3 15; npy trunc.npy 5 7 30
status=0
run() {
    valgrind -q --suppressions="$root/tests/valgrind.supp" --leak-check=full \
        --errors-for-leak-kinds=definite --error-exitcode=9 --num-callers=30 \
        "$bin" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    errs=$(grep -c '^==[0-9]*== [A-Z]' "$work/err")
    if [ $rc -eq 9 ] || [ $rc -gt 128 ] || [ "$errs" -ne 0 ]; then
        echo "FAIL (exit $rc): glgemm $*"
        sed -n '1,60p' "$work/err"
        status=1
    else
        echo "clean (exit $rc): glgemm $*"
    fi
}
run gen larsen --size 8
run gen nv-multi,mrt=2x2 --m 5 --n 7 --k 9 -o "$work/s.frag"
run info
run devices
run run nv-multi --size 33 --reps 1
run run larsen,profile=120,acc=copy --m 17 --n 9 --k 13 --transa --transb --alpha 0.5 --reps 1
run run tfjs,profile=300es,acc=blend --size 20 --reps 1
run run mrt=2x2,mc=2x2,np=2,unroll=1 --m 33 --n 31 --k 29 --reps 2
run run nv-single,compiler=spirv --size 16 --reps 1
run run larsen --a a.npy --b b.npy --c c.npy --beta 1 --out "$work/o.npy" --reps 1
run run larsen --a trunc.npy --b b.npy
run run mc=3x2 --size 8
# tune: a watchdog kills an evaluation after --timeout s; memcheck is ~50x slower.
run tune --size 8 --search random --budget 3 --reps 1 --timeout 300 --results "$work/results"
run tune --size 8 --search random --budget 4 --reps 1 --timeout 300 --results "$work/results"
run bench --size 8 --reps 1 --results "$work/results"
exit $status
