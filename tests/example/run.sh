#!/usr/bin/env bash
# Installs glgemm into a temporary PREFIX, builds tests/example/example.c
# outside the tree against it through pkg-config (shared, then static), and
# runs both from a folder with no results/.  `make check` runs this.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
make -C "$src" -s install PREFIX="$tmp/prefix"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cp "$src/tests/example/example.c" "$tmp/"
cd "$tmp"
cc -std=c11 -Wall -Wextra -Werror example.c $(pkg-config --cflags --libs glgemm) -lm -o example
ldd ./example | grep -q "$tmp/prefix/lib/libglgemm.so.0" || { echo "example: not linked to the installed libglgemm.so" >&2; exit 1; }
./example
cc -std=c11 -Wall -Wextra -Werror example.c $(pkg-config --cflags glgemm) \
    "$(pkg-config --variable=libdir glgemm)/libglgemm.a" \
    $(pkg-config --static --libs glgemm | sed 's/ -lglgemm\b//') -lm -o example-static
if ldd ./example-static | grep -q libglgemm; then echo "example: static build links libglgemm.so" >&2; exit 1; fi
GLGEMM_VERIFY=full ./example-static
"$tmp/prefix/bin/glgemm" --version
echo "tests/example/run.sh: installed library, header, glgemm.pc and binary work"
