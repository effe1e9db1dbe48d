#!/bin/sh
# tests/docs_examples.sh [BUILD [BIN]]: runs the examples marked runnable in
# README.md and docs/*.md (SPEC.md "Documentation"; issue 30).
#
# A runnable example is a fenced ```sh block right after a line
# `<!-- runnable -->`.  Each block runs with `sh -e` (any failing command
# fails it; an example of a failure writes `cmd || test $? = 2`) in one
# scratch folder, in file order, under a deadline of 60 s a block:
#   - ./glgemm is the built binary (BIN, default glgemm), as installed;
#   - results/ is a copy of the tree's, so `gen best --card ...` and
#     `report --card ...` read the committed records and nothing in the tree
#     changes;
#   - the library is installed into a temporary prefix (make install), with
#     PKG_CONFIG_PATH and PATH pointing there, so the C and drop-in examples
#     run as a user's would;
#   - the program cache, the per-user records and XDG folders are temporary.
# On llvmpipe with the sizes the examples use, about 20 s in all.
# DOCS_EXAMPLES_VERBOSE=1 prints each block's output.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
binarg=${2:-glgemm}
case $binarg in /*) bin=$binarg ;; *) bin=$root/$binarg ;; esac
[ -x "$bin" ] || { echo "docs_examples: no binary $bin (make first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glgemm-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/work" "$tmp/cache" "$tmp/data" "$tmp/xdgcache"
# The installed library for the C and drop-in examples.  MAKEFLAGS is
# dropped: under make check the jobserver's descriptors are not ours.
if ! env -u MAKEFLAGS -u MFLAGS make -s -C "$root" install PREFIX="$tmp/prefix" BUILD="$build" \
        BIN="$binarg" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    echo "docs_examples: make install PREFIX=$tmp/prefix failed" >&2
    exit 1
fi
cp -R "$root/results" "$tmp/work/results"
# ./glgemm is the installed binary: it finds the web runtime in
# PREFIX/share/glgemm/web as a user's would.
ln -s "$tmp/prefix/bin/glgemm" "$tmp/work/glgemm"

export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# /usr/bin first: Debian's python3, the one python3-numpy is for.
export PATH="$tmp/prefix/bin:/usr/bin:$PATH"
export GLGEMM_CACHE_DIR="$tmp/cache" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/xdgcache"
unset GLGEMM_RESULTS GLGEMM_FAULT GLGEMM_CROSSOVER GLGEMM_VERIFY GLGEMM_LOG 2>/dev/null || true

# Extract the blocks: one file each, named by source and line.
mkdir -p "$tmp/blocks"
for doc in "$root/README.md" "$root"/docs/*.md; do
    rel=${doc#"$root"/}
    awk -v out="$tmp/blocks" -v rel="$rel" '
        BEGIN { mark = 0; inblock = 0; gsub(/\//, "_", rel) }
        inblock && /^```[ \t]*$/ { inblock = 0; close(f); next }
        inblock { print > f; next }
        mark && /^```(sh|bash)[ \t]*$/ { f = sprintf("%s/%s:%04d", out, rel, NR); inblock = 1; mark = 0; next }
        /^<!-- runnable -->[ \t]*$/ { mark = 1; next }
        /^[ \t]*$/ { next }
        { mark = 0 }
    ' "$doc"
done

n=0
failed=0
start=$(date +%s)
for block in $(ls "$tmp/blocks" | sort -t: -k1,1 -k2,2n); do
    n=$((n + 1))
    name=$(echo "$block" | sed 's/_/\//; s/:0*/:/')
    t0=$(date +%s.%N)
    if (cd "$tmp/work" && timeout 60 sh -e "$tmp/blocks/$block") >"$tmp/out" 2>&1; then
        t1=$(date +%s.%N)
        [ -z "${DOCS_EXAMPLES_VERBOSE:-}" ] || sed 's/^/    > /' "$tmp/out"
        echo "$name $t0 $t1" | awk '{ printf "docs_examples: %s ok (%.1f s)\n", $1, $3 - $2 }'
    else
        rc=$?
        echo "docs_examples: $name FAILED (exit $rc); the block:" >&2
        sed 's/^/    | /' "$tmp/blocks/$block" >&2
        echo "  its output:" >&2
        sed 's/^/    > /' "$tmp/out" >&2
        failed=$((failed + 1))
    fi
done
echo "docs_examples: $n runnable examples, $failed failed, $(( $(date +%s) - start )) s"
[ "$n" -gt 0 ] || { echo "docs_examples: no runnable example found" >&2; exit 1; }
[ "$failed" -eq 0 ]
