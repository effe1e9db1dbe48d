#!/usr/bin/env bash
# The cause of `make sanitize`'s old "Tracer caught signal 11" flake, made
# to happen every time (tests/SANITIZE.md): dtls_repro under ASan with the
# leak check, (1) with libasan's defaults, (2) with the LSAN_OPTIONS of
# `make sanitize` (intercept_tls_get_addr=0), (3) the control: the TLS block
# one chunk away from the bad offset.  Prints one line per run; exits 1 when
# (2) or (3) fails.  (1) crashes while the runtime has the bug; a runtime
# that has lost it (LLVM 17's asks its allocator instead) prints "clean".
set -u
cd "$(dirname "$0")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CC=${CC:-cc}
"$CC" -std=c11 -Wall -Wextra -Werror -shared -fPIC -o "$dir/libdtls.so" dtls_lib.c || exit 2
"$CC" -std=c11 -Wall -Wextra -Werror -g -fsanitize=address -o "$dir/dtls_repro" dtls_repro.c -ldl || exit 2
fail=0
run() { # name expect(crash|clean) LSAN_OPTIONS [miss]
    local out rc got
    out=$(ASAN_OPTIONS=detect_leaks=1:verbosity=2 LSAN_OPTIONS=$3 "$dir/dtls_repro" "$dir/libdtls.so" ${4:-} 2>&1)
    rc=$?
    # What the interceptor recorded for the block (verbosity=2), if anything.
    local rec
    rec=$(grep -o '__tls_get_addr: \(glibc.*\|Can.t guess.*\)' <<<"$out" | head -1)
    got=clean
    if grep -q "Tracer caught signal" <<<"$out"; then got="crash ($(grep -o 'Tracer caught signal [0-9]*: addr=[0-9a-fx]*' <<<"$out"))"
    elif [ $rc != 0 ]; then got="exit $rc"; fi
    printf '%-44s %s\n' "$1:" "$got"
    printf '%-44s %s\n' "" "${rec:-(no __tls_get_addr record: interception off)}"
    [ "$2" = any ] || [ "${got%% *}" = "$2" ] || fail=1
}
run "bad offset, libasan defaults" any ""
run "bad offset, intercept_tls_get_addr=0" clean "intercept_tls_get_addr=0"
run "control (one chunk earlier), defaults" clean "" miss
exit $fail
