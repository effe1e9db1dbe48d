/* What the current context offers: strings, limits, optional features.
 *
 * Feature rules (each names the core version or extension that grants it):
 *  - float_render: float textures colour-renderable.  Desktop GL 3.0+ (core),
 *    or ARB_color_buffer_float with ARB_texture_float; ES 3.2 (core) or
 *    EXT_color_buffer_float.
 *  - float_blend: blending into 32-bit float targets.  Desktop: wherever
 *    float_render holds (GL 3.0 and ARB_color_buffer_float blend float targets
 *    unclamped); ES: EXT_float_blend on top of float_render.
 *  - texture_barrier: GL 4.5, ARB_texture_barrier or NV_texture_barrier.
 *  - timer_query: desktop GL 3.3, ARB_timer_query or EXT_timer_query; ES:
 *    EXT_disjoint_timer_query.
 *  - spirv: GL 4.6 or ARB_gl_spirv (desktop only).
 *  - robustness: ARB_robustness, KHR_robustness or EXT_robustness, or the
 *    versions that include KHR_robustness (GL 4.5, ES 3.2).
 *  - parallel_compile: KHR_parallel_shader_compile or
 *    ARB_parallel_shader_compile (compiles run on the driver's threads).
 *  - packing: ARB_shading_language_packing, the extension a GLSL 3.30
 *    shader enables for unpackHalf2x16 (store=f16x8; GLSL 4.20 and ES 3.00
 *    have it core, so a desktop context says so only by the extension).
 *  - fp64: desktop GL 4.0 or ARB_gpu_shader_fp64 (double in GLSL, the
 *    extension a GLSL 3.30 shader enables for store=f64 and dd). */
#include <GL/glew.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/spirv.h"
#include "glhost/context_internal.h"

typedef struct {
    bool es;
    int major, minor;
} gl_version;

static bool at_least(gl_version v, int major, int minor)
{
    return v.major > major || (v.major == major && v.minor >= minor);
}

static bool has_ext(gl_version v, const char *name)
{
    if (v.major >= 3) {
        GLint n = 0;
        glGetIntegerv(GL_NUM_EXTENSIONS, &n);
        for (GLint i = 0; i < n; i++) {
            const char *e = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
            if (e && strcmp(e, name) == 0)
                return true;
        }
        return false;
    }
    const char *list = (const char *)glGetString(GL_EXTENSIONS);
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

static gl_version current_version(const char *version)
{
    gl_version v = {strncmp(version, "OpenGL ES", 9) == 0, 0, 0};
    const char *p = version;
    while (*p && !isdigit((unsigned char)*p))
        p++;
    if (sscanf(p, "%d.%d", &v.major, &v.minor) != 2)
        v.major = v.minor = 0;
    return v;
}

bool host_gl_has_extension(const char *name)
{
    const char *version = (const char *)glGetString(GL_VERSION);
    return version && has_ext(current_version(version), name);
}

static void copy_str(char *dst, size_t len, GLenum name)
{
    const char *s = (const char *)glGetString(name);
    snprintf(dst, len, "%s", s ? s : "(none)");
}

void host_ctx_query(const gg_ctx *ctx, gg_ctx_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->backend, sizeof info->backend, "%s", host_backend_name(ctx->backend));
    snprintf(info->kind, sizeof info->kind, "%s", host_ctx_kind_name(ctx->kind));
    snprintf(info->device, sizeof info->device, "%s", ctx->device);
    copy_str(info->vendor, sizeof info->vendor, GL_VENDOR);
    copy_str(info->renderer, sizeof info->renderer, GL_RENDERER);
    copy_str(info->version, sizeof info->version, GL_VERSION);
    copy_str(info->glsl, sizeof info->glsl, GL_SHADING_LANGUAGE_VERSION);

    gl_version v = current_version(info->version);

    GLint x = 0;
    glGetIntegerv(GL_MAX_DRAW_BUFFERS, &x);
    info->max_draw_buffers = x;
    x = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &x);
    info->max_texture_size = x;
    info->es = v.es;
    info->gl_version = v.major * 10 + v.minor;
    /* Fragment image units: GL 4.2 / ES 3.1 (the query is an error before). */
    x = 0;
    if (at_least(v, v.es ? 3 : 4, v.es ? 1 : 2))
        glGetIntegerv(GL_MAX_FRAGMENT_IMAGE_UNIFORMS, &x);
    info->max_fragment_images = x;
    /* Buffer textures: core in GL 3.1 and ES 3.2. */
    x = 0;
    if (at_least(v, 3, v.es ? 2 : 1))
        glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &x);
    info->max_texture_buffer = x;
    /* Shader storage blocks: GL 4.3 and ES 3.1 (ES 3.1 may offer none to
     * fragment shaders). */
    x = 0;
    GLint64 big = 0;
    if (at_least(v, v.es ? 3 : 4, v.es ? 1 : 3)) {
        glGetIntegerv(GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS, &x);
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &big);
    }
    info->max_fragment_ssbos = x;
    info->max_ssbo_bytes = (long)big;
    x = 0;
    if (v.es ? at_least(v, 3, 2)
             : at_least(v, 4, 3) || has_ext(v, "GL_ARB_texture_buffer_range"))
        glGetIntegerv(GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT, &x);
    info->tbo_offset_align = x;
    info->software = strstr(info->renderer, "llvmpipe") || strstr(info->renderer, "softpipe");

    if (v.es) {
        info->float_render = at_least(v, 3, 2) || has_ext(v, "GL_EXT_color_buffer_float");
        info->float_blend = info->float_render && has_ext(v, "GL_EXT_float_blend");
        info->texture_barrier = has_ext(v, "GL_NV_texture_barrier");
        info->timer_query = has_ext(v, "GL_EXT_disjoint_timer_query");
        info->spirv = false;
        info->robustness = at_least(v, 3, 2) || has_ext(v, "GL_KHR_robustness") ||
                           has_ext(v, "GL_EXT_robustness");
    } else {
        info->float_render = at_least(v, 3, 0) || (has_ext(v, "GL_ARB_color_buffer_float") &&
                                                   has_ext(v, "GL_ARB_texture_float"));
        info->float_blend = info->float_render;
        info->texture_barrier = at_least(v, 4, 5) || has_ext(v, "GL_ARB_texture_barrier") ||
                                has_ext(v, "GL_NV_texture_barrier");
        info->timer_query = at_least(v, 3, 3) || has_ext(v, "GL_ARB_timer_query") ||
                            has_ext(v, "GL_EXT_timer_query");
        info->spirv = at_least(v, 4, 6) || has_ext(v, "GL_ARB_gl_spirv");
        info->robustness = at_least(v, 4, 5) || has_ext(v, "GL_ARB_robustness") ||
                           has_ext(v, "GL_KHR_robustness");
    }
    info->parallel_compile = has_ext(v, "GL_KHR_parallel_shader_compile") ||
                             has_ext(v, "GL_ARB_parallel_shader_compile");
    info->packing = !v.es && has_ext(v, "GL_ARB_shading_language_packing");
    info->fp64 = !v.es && (at_least(v, 4, 0) || has_ext(v, "GL_ARB_gpu_shader_fp64"));
    while (glGetError() != GL_NO_ERROR)
        ;
}

void host_ctx_limits(const gg_ctx_info *info, gg_card_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_draw_buffers = info->max_draw_buffers;
    lim->max_texture_size = info->max_texture_size;
    lim->float_blend = info->float_blend;
    lim->es = info->es;
    lim->gl_version = info->gl_version;
    lim->max_fragment_images = info->max_fragment_images;
    lim->max_texture_buffer = info->max_texture_buffer;
    lim->max_fragment_ssbos = info->max_fragment_ssbos;
    lim->packing_ext = info->packing;
    lim->fp64 = info->fp64;
    /* gen.h: SPIR-V needs the extension and a compiler (glslangValidator).
     * Asked first, whatever the driver: the first ask sweeps the folders
     * killed compiles left (base/spirv.h). */
    lim->spirv = base_spirv_available() && info->spirv;
}
