# Sourced by tests/device/browser.sh and mpi.sh: closure DIR BIN...  copies
# into DIR the shared libraries BIN... load (ldd's closure), with the GL
# loaders glgemm and ANGLE open by name and theirs, less the C library and
# the C++ runtime (the GPU machine has them, newer).
closure() {
    local dir=$1 libs l p
    shift
    mkdir -p "$dir"
    libs=$( { for b in "$@"; do ldd "$b"; done
              for l in libEGL.so.1 libGLESv2.so.2 libGL.so.1 libGLX.so.0 libOpenGL.so.0 libGLdispatch.so.0; do
                  p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')
                  [ -n "$p" ] && { echo "$l => $p"; ldd "$p"; }
              done; } | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
    for l in $libs; do
        case $(basename "$l") in
        libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
        *) cp -L "$l" "$dir/" ;;
        esac
    done
}
