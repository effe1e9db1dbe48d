#!/usr/bin/env bash
# The k loop's instruction mix of every program in glgemm's program cache
# (NVIDIA: the driver's binary holds its NV_gpu_program5 assembly as text;
# results/nvidia-h100-80gb-hbm3/instruction-mix.txt): per program the
# variant and problem from the shader's header, then the loop's
# instruction count by opcode.  Usage: tests/device/imix.sh [CACHE_DIR]
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/glgemm/programs}
for f in "$dir"/*.bin; do
    [ -e "$f" ] || continue
    v=$(strings "$f" | sed -n 's/^ \* variant: //p' | head -1)
    p=$(strings "$f" | sed -n 's/^ \* problem: \(m=[0-9]* n=[0-9]* k=[0-9]*\).*/\1/p' | head -1)
    mix=$(strings "$f" | sed -n '/!!NVfp5.0/,/^END/p' |
        awk '/^ *REP/{l=1;next} /^ *ENDREP/{l=0} l{split($1,a,".");print a[1]}' | sort | uniq -c |
        sort -rn | awk '{t+=$1; s=s sprintf("%s %d, ", $2, $1)} END{printf "loop %d: %s", t, s}')
    printf '%s | %s | %s\n' "$v" "$p" "$mix"
done
