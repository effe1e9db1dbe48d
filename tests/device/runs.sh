#!/usr/bin/env bash
# Interleaved runs of a list of variants (one a line in FILE, '#' comments),
# ROUNDS rounds, each `glgemm run VARIANT --size S --csv`: one CSV of every
# run on stdout (header once), so that ratios come from one machine and one
# time.  Usage: tests/device/runs.sh FILE SIZE [ROUNDS] [extra run options]
set -u
file=$1 size=$2 rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
bin=${GLGEMM_BIN:-./glgemm}
first=1
for r in $(seq "$rounds"); do
    grep -v '^\s*#' "$file" | grep -v '^\s*$' | while read -r v; do
        out=$("$bin" run "$v" --size "$size" --csv "$@" 2>&1)
        if [ "$first" = 1 ] && [ "$r" = 1 ]; then printf '%s\n' "$out" | head -1 | sed 's/^/round,/'; fi
        first=0
        printf '%s\n' "$out" | tail -1 | sed "s/^/$r,/"
    done
    first=0
done
