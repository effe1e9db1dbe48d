#!/usr/bin/env bash
# tests/device/browser.sh: glgemm's browser backend on a GPU machine that has
# no package registry and takes at most 64 MiB a call (the device tool's).
#
#   tests/device/browser.sh pack           here (Debian 12, as root): builds
#       .dev/ (ignored): chromium-headless-shell (shell.xz) and rest.tar.xz,
#       cut into pieces of 20 MiB in .dev/a, .dev/b, ... (deal): the libraries
#       the shell, node and glgemm load (their ldd closure less the C
#       library and the C++ runtime, which the GPU machine has newer),
#       Chromium's companions (ICU data, V8 snapshots, its Vulkan loader,
#       SwiftShader), node, glgemm, web/ with the npm packages the worker
#       needs and TensorFlow.js's tf.min.js.  About 100 MB in all.
#   tests/device/browser.sh deal           here: cuts .dev/shell.xz and
#       .dev/rest.tar.xz (pack's, before the cut) again into .dev/a, .dev/b...
#   tests/device/browser.sh unpack         there, from the repository root
#       (carry .dev/a, then .dev/b, ...: one folder a call, each under the
#       call's 64 MiB with the tree): appends the pieces that came to
#       /opt/gg/shell.xz and rest.xz; once the last folder (its `parts`)
#       came and every piece with it, unpacks everything under /opt/gg.
#       /opt outlives a call while the machine stays warm (30 s), so the
#       pieces can come in three calls.
#   . tests/device/browser-env.sh          there: PATH, LD_LIBRARY_PATH, the
#       NVIDIA Vulkan ICD and EGL vendor files; GG=/opt/gg/glgemm and
#       GG_SHELL (the shell, for --browser).
#
# A device call of the last step, e.g.:
#   tests/device/browser.sh unpack && . tests/device/browser-env.sh &&
#   $GG info --backend browser --browser $GG_SHELL --angle vulkan
# docs/browser.md ("On a GPU machine without a registry") says more.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=/opt/gg
# shellcheck source=tests/device/closure.sh
. "$root/tests/device/closure.sh"

pack() {
    cd "$root"
    command -v chromium-headless-shell >/dev/null ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium-headless-shell
    command -v xz >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q xz-utils
    make -j2 glgemm web >/dev/null
    grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >>.git/info/exclude
    rm -rf .dev && mkdir -p .dev
    local stage
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' RETURN
    local shell=/usr/lib/chromium/chromium-headless-shell
    xz -T2 -6 -c "$shell" >.dev/shell.xz
    mkdir -p "$stage/chromium" "$stage/lib" "$stage/bin" "$stage/web"
    (cd /usr/lib/chromium && cp -a icudtl.dat v8_context_snapshot.bin snapshot_blob.bin \
        headless_command_resources.pak headless_lib_data.pak headless_lib_strings.pak \
        libEGL.so libGLESv2.so libvulkan.so.1 libvk_swiftshader.so vk_swiftshader_icd.json \
        "$stage/chromium/")
    # The libraries: ldd's closure of the shell, node and glgemm.
    closure "$stage/lib" "$shell" "$(command -v node)" "$root/glgemm"
    cp "$(command -v node)" "$stage/bin/node"
    cp "$root/glgemm" "$stage/glgemm"
    cp -a web/worker web/src web/dist web/package.json web/serve.mjs "$stage/web/"
    mkdir -p "$stage/web/node_modules"
    (cd web/node_modules && tar cf - --exclude='./@tensorflow' --exclude='./core-js' --exclude='./@types' . ) |
        (cd "$stage/web/node_modules" && tar xf -)
    (cd web/node_modules && find @tensorflow -path '*/dist/*.min.js' | tar cf - -T - ) |
        (cd "$stage/web/node_modules" && tar xf -)
    tar cf - -C "$stage" . | xz -T2 -6 >.dev/rest.tar.xz
    deal
}

# .dev/shell.xz and .dev/rest.tar.xz cut into pieces of 20 MiB dealt into
# folders of at most 46 MiB (.dev/a, .dev/b, ...: one a call, under the
# call's 64 MiB with the tree, glgemm and web/dist); the last folder holds
# `parts`, the count of each, so that unpack knows when all came.
deal() {
    cd "$root"
    split -b 20m -d .dev/shell.xz .dev/shell.xz.
    split -b 20m -d .dev/rest.tar.xz .dev/rest.xz.
    local ns nr i=0 used=0 cur=
    ns=$(ls .dev/shell.xz.* | wc -l) nr=$(ls .dev/rest.xz.* | wc -l)
    rm -f .dev/shell.xz .dev/rest.tar.xz
    for f in .dev/shell.xz.* .dev/rest.xz.*; do
        sz=$(stat -c %s "$f")
        if [ $i = 0 ] || [ $((used + sz)) -gt $((46 << 20)) ]; then
            i=$((i + 1)); used=0
            cur=.dev/$(printf "\\x$(printf %x $((96 + i)))")
            mkdir -p "$cur"
        fi
        mv "$f" "$cur/"
        used=$((used + sz))
    done
    echo "shell $ns rest $nr" >"$cur/parts"
    ls -lR .dev
}

unpack() {
    mkdir -p "$dest"
    local kind p n
    for kind in shell rest; do
        for p in "$root"/.dev/*/$kind.xz.*; do
            [ -e "$p" ] || continue
            n=${p##*.}
            [ -e "$dest/got.$kind.$n" ] && continue
            cat "$p" >>"$dest/$kind.xz"
            touch "$dest/got.$kind.$n"
        done
    done
    local parts ns nr
    parts=$(ls "$root"/.dev/*/parts 2>/dev/null | head -1 || true)
    if [ -n "$parts" ] && [ ! -e "$dest/glgemm" ]; then
        read -r _ ns _ nr <"$parts"
        if [ "$(ls "$dest"/got.shell.* | wc -l)" != "$ns" ] || [ "$(ls "$dest"/got.rest.* | wc -l)" != "$nr" ]; then
            echo "browser.sh: parts missing (want $ns of the shell, $nr of the rest): carry .dev/a, .dev/b, ... in turn" >&2
            exit 2
        fi
        xz -dc "$dest/rest.xz" | tar xf - -C "$dest"
        xz -dc "$dest/shell.xz" >"$dest/chromium/chromium-headless-shell"
        chmod +x "$dest/chromium/chromium-headless-shell" "$dest/bin/node" "$dest/glgemm"
        rm -f "$dest/shell.xz" "$dest/rest.xz"
    fi
    ls "$dest"
}

case ${1:-} in
pack) pack ;;
unpack) unpack ;;
deal) deal ;;
*) echo "usage: tests/device/browser.sh pack|unpack|deal" >&2; exit 2 ;;
esac
