#!/usr/bin/env bash
# Interleaved runs of a list of variants (one a line in FILE, '#' comments),
# ROUNDS rounds, each `glgemm run VARIANT --size S --csv`: one CSV of every
# run on stdout (header once), so that ratios come from one machine and one
# time.  Usage: tests/device/runs.sh FILE SIZE [ROUNDS] [extra run options]
# With IMIX=FILE, the first round also appends to FILE each variant's k-loop
# instruction mix (tests/device/imix.sh on the programs its run added to
# glgemm's program cache; NVIDIA only).  With ASM=DIR, the first round
# writes each variant's whole program (the driver's assembly) to DIR/N.asm,
# N its line in the list, named in DIR/index.txt.
set -u
file=$1 size=$2 rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
bin=${GLGEMM_BIN:-./glgemm}
first=1
for r in $(seq "$rounds"); do
    grep -v '^\s*#' "$file" | grep -v '^\s*$' | while read -r v; do
        cache=${XDG_CACHE_HOME:-$HOME/.cache}/glgemm/programs
        before=$(ls "$cache" 2>/dev/null)
        out=$("$bin" run "$v" --size "$size" --csv "$@" 2>&1)
        if [ -n "${ASM:-}" ] && [ "$r" = 1 ]; then
            mkdir -p "$ASM"
            n=1
            [ -f "$ASM/index.txt" ] && n=$(( $(wc -l < "$ASM/index.txt") + 1 ))
            echo "$n $v" >> "$ASM/index.txt"
            for f in $(ls "$cache" 2>/dev/null); do
                printf '%s\n' "$before" | grep -qx "$f" ||
                    strings "$cache/$f" | sed -n '/!!NVfp5.0/,/^END/p' >> "$ASM/$n.asm"
            done
        fi
        if [ -n "${IMIX:-}" ] && [ "$r" = 1 ]; then
            tmp=$(mktemp -d)
            for f in $(ls "$cache" 2>/dev/null); do
                printf '%s\n' "$before" | grep -qx "$f" || ln -s "$cache/$f" "$tmp/$f"
            done
            "$(dirname "$0")/imix.sh" "$tmp" | sed "s#^[^|]*|[^|]*|#$v $size |#" >>"$IMIX"
            rm -rf "$tmp"
        fi
        if [ "$first" = 1 ] && [ "$r" = 1 ]; then printf '%s\n' "$out" | head -1 | sed 's/^/round,/'; fi
        first=0
        printf '%s\n' "$out" | tail -1 | sed "s/^/$r,/"
    done
    first=0
done
