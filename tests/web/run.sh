#!/bin/sh
# tests/web/run.sh BUILD: the browser tests (issue 29), part of make check.
# Installs what they need (tests/web/deps.sh), builds web/dist (make web:
# gen/ as WebAssembly and the runtime), then runs tests/web/test.mjs in
# headless Chromium: the runner's variants against a double reference,
# matmul's errors and GL state, the exported module from a folder outside
# the project, export's exit codes, the example page.  GLGEMM_BIN: the
# glgemm binary for export (default ./glgemm); when web/dist is not beside
# it, GLGEMM_WEB_DIR points export at this tree's.  About 10 s here.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
cd "$root"
tests/web/deps.sh
make --no-print-directory web >/dev/null
bin=${GLGEMM_BIN:-$root/glgemm}
case $bin in /*) ;; *) bin=$root/$bin ;; esac
if [ ! -x "$bin" ]; then
  echo "tests/web: no glgemm binary at $bin (make it, or set GLGEMM_BIN)" >&2
  exit 2
fi
bindir=$(cd "$(dirname "$bin")" && pwd)
if [ ! -f "$bindir/web/dist/glgemm.js" ] || [ ! -f "$bindir/web/dist/glgemm-gen.wasm" ]; then
  export GLGEMM_WEB_DIR="$root/web/dist"
fi
echo "tests/web: build $build, glgemm $bin"
GLGEMM_BIN=$bin timeout 300 node tests/web/test.mjs
echo "tests/web: glgemm-tfjs.js (tests/web/tfjs.mjs)"
GLGEMM_BIN=$bin timeout 300 node tests/web/tfjs.mjs
