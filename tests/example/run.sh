#!/usr/bin/env bash
# Installs glgemm into a temporary PREFIX, builds tests/example/example.c
# outside the tree against it through pkg-config (shared, then static), and
# runs both from a folder with no results/.  `make check` runs this.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export GLGEMM_CACHE_DIR="$tmp/program-cache" # not the user's ~/.cache
export XDG_DATA_HOME="$tmp/data" # no user records: the installed ones must be used
export GLGEMM_CROSSOVER=0 # the GPU path, whatever the installed crossover record says
make -C "$src" -s install PREFIX="$tmp/prefix"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cp "$src/tests/example/example.c" "$tmp/"
cd "$tmp"
cc -std=c11 -Wall -Wextra -Werror example.c $(pkg-config --cflags --libs glgemm) -lm -o example
ldd ./example | grep "$tmp/prefix/lib/libglgemm.so.0" >/dev/null || { echo "example: not linked to the installed libglgemm.so" >&2; exit 1; }
./example
# A tuning record installed for this card is what the shared library picks
# (found next to it: PREFIX/share/glgemm/results), and it still computes right.
card="$("$tmp/prefix/bin/glgemm" info | sed -n 's/^slug: //p')"
mkdir -p "$tmp/prefix/share/glgemm/results/$card"
printf 'nv-multi\ngflops: 1\n' > "$tmp/prefix/share/glgemm/results/$card/best-32x32x32.txt"
./example | tee out.txt
grep -q "variant mrt=1x1,mc=1x4,np=6,unroll=1," out.txt || { echo "example: the installed record was not used" >&2; exit 1; }
cc -std=c11 -Wall -Wextra -Werror example.c $(pkg-config --cflags glgemm) \
    "$(pkg-config --variable=libdir glgemm)/libglgemm.a" \
    $(pkg-config --static --libs glgemm | sed 's/ -lglgemm\b//') -lm -o example-static
if ldd ./example-static | grep libglgemm >/dev/null; then echo "example: static build links libglgemm.so" >&2; exit 1; fi
GLGEMM_VERIFY=full ./example-static
"$tmp/prefix/bin/glgemm" --version
echo "tests/example/run.sh: installed library, header, glgemm.pc and binary work"
