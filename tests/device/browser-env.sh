# Source on the GPU machine after `tests/device/browser.sh unpack`: the
# carried Chromium, node and glgemm under /opt/gg, NVIDIA's Vulkan ICD and
# EGL vendor files (ANGLE over Vulkan and over gl-egl reach the GPU through
# them; without VK_DRIVER_FILES ANGLE's Vulkan is SwiftShader's).
gg_dest=/opt/gg
export PATH=$gg_dest/bin:$PATH
export LD_LIBRARY_PATH=$gg_dest/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gg_nv=/usr/local/nvidia/share
export VK_DRIVER_FILES=$gg_nv/vulkan/icd.d/nvidia_icd.json VK_ICD_FILENAMES=$gg_nv/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=$gg_nv/glvnd/egl_vendor.d/10_nvidia.json
export GLGEMM_WEB=$gg_dest/web GLGEMM_WEB_DIR=$gg_dest/web/dist
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/glgemm-cache}
export GG=$gg_dest/glgemm GG_SHELL=$gg_dest/chromium/chromium-headless-shell
