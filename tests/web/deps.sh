#!/bin/sh
# tests/web/deps.sh: what the browser tests and the example page need
# (issue 29): Chromium (/usr/bin/chromium, or $GLGEMM_CHROMIUM), Node and
# npm (apt-get as root when missing), and web/node_modules as
# web/package-lock.json pins it (npm ci when it is missing or stale: a
# package whose installed version is not the lockfile's).  With --npm
# (make web): Node, npm and web/node_modules only, no Chromium.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
chromium=${GLGEMM_CHROMIUM:-/usr/bin/chromium}
missing=""
[ "${1:-}" = --npm ] || [ -x "$chromium" ] || missing="$missing chromium"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "tests/web: missing:$missing; install them (as root: apt-get install$missing)" >&2
    exit 2
  fi
  echo "tests/web: installing:$missing"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi
if ! node -e '
const fs = require("fs");
const want = JSON.parse(fs.readFileSync(process.argv[1] + "/package-lock.json", "utf8")).packages;
let have;
try { have = JSON.parse(fs.readFileSync(process.argv[1] + "/node_modules/.package-lock.json", "utf8")).packages; }
catch { process.exit(1); }
for (const [p, v] of Object.entries(want))
  if (p && (!have[p] || have[p].version !== v.version || !fs.existsSync(process.argv[1] + "/" + p))) process.exit(1);
' "$root/web"; then
  echo "tests/web: web/node_modules missing or stale: npm ci"
  (cd "$root/web" && npm ci --no-audit --no-fund)
fi
