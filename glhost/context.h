/* glhost/ contexts: one small interface, two backends (EGL, GLFW).
 *
 * glhost/ is the only code that includes GL or EGL headers; this header
 * includes neither.  A context is made in the process that uses it (a context
 * does not survive fork()), made current on creation, and loaded with GLEW.
 *
 * Backends fill one table of function pointers (context_egl.c,
 * context_glfw.c); host_ctx_create() picks one by name.  Every failure gives one
 * line naming the backend and decoding its native error, e.g.
 * "EGL: eglCreateContext failed: EGL_BAD_ATTRIBUTE".
 *
 * Do not test GLEW's GLEW_<extension> flags: with glewExperimental under
 * GLVND every entry point resolves, so GLEW claims e.g. GLEW_ARB_gl_spirv on
 * an ES context.  Use host_ctx_query(), which reads the extension strings. */
#ifndef GLGEMM_CONTEXT_H
#define GLGEMM_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "base/slug.h" /* base_slug: the card's slug from gg_ctx_info.renderer */

/* GG_BACKEND_BROWSER makes no context here: its kernels run as WebGL2 in
 * a page that eval/browser drives; host_ctx_create() refuses it. */
typedef enum { GG_BACKEND_EGL, GG_BACKEND_GLFW, GG_BACKEND_BROWSER } gg_backend;

/* The three context kinds the profiles need. */
typedef enum {
    GG_CTX_COMPAT, /* compatibility profile, for GLSL 1.20 */
    GG_CTX_CORE,   /* 3.3 (or later) core, for GLSL 3.30 */
    GG_CTX_ES3     /* OpenGL ES 3, for GLSL ES 3.00 */
} gg_ctx_kind;

typedef struct gg_ctx gg_ctx;

/* "egl" / "glfw" / "browser" -> backend; -1 if unknown. */
int host_backend_parse(const char *name);
const char *host_backend_name(gg_backend b);
const char *host_ctx_kind_name(gg_ctx_kind k);
gg_ctx_kind host_ctx_kind_for(gg_profile p);

/* Makes and makes current a context of that kind.  device: the EGL device
 * index, as `glgemm devices` lists them: hardware devices first, Mesa's
 * software device last, so 0 is a GPU where EGL lists one (ignored by GLFW).
 * Several contexts may live at once (one thread); the last one made or made
 * current is current.  NULL on failure with one line in err.  *no_device
 * (may be NULL) is set when the failure is a device index that does not exist,
 * which is bad usage (exit 2) rather than no context (exit 3). */
gg_ctx *host_ctx_create(gg_backend backend, int device, gg_ctx_kind kind,
                      char *err, size_t errlen, bool *no_device);
void host_ctx_destroy(gg_ctx *ctx);

/* Makes ctx current again (after another context was made).  0, or -1 with
 * one line in err. */
int host_ctx_make_current(gg_ctx *ctx, char *err, size_t errlen);

typedef struct {
    char backend[16];
    char kind[16];
    char device[128];   /* how the context was made, e.g. "EGL device 0 (EGL_NV...)" */
    char vendor[128], renderer[256], version[256], glsl[128];
    int max_draw_buffers;
    int max_texture_size;
    bool float_render;   /* float textures are colour-renderable */
    bool float_blend;
    bool texture_barrier;
    bool timer_query;
    bool spirv;          /* GL_ARB_gl_spirv (or GL 4.6) */
    bool robustness;     /* a robustness extension is exposed */
    bool parallel_compile; /* KHR/ARB_parallel_shader_compile */
    bool packing;        /* GL_ARB_shading_language_packing: unpackHalf2x16 in GLSL 3.30
                            (store=f16x8 at profile 330) */
    bool fp64;           /* double in GLSL: desktop GL 4.0 or GL_ARB_gpu_shader_fp64
                            (store=f64 and dd) */
    bool es;             /* an OpenGL ES context */
    int gl_version;      /* major*10 + minor of GL_VERSION */
    int max_fragment_images; /* GL_MAX_FRAGMENT_IMAGE_UNIFORMS, 0 before GL 4.2 / ES 3.1 */
    long max_texture_buffer; /* GL_MAX_TEXTURE_BUFFER_SIZE texels, 0 without buffer textures */
    int max_fragment_ssbos; /* GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS, 0 before GL 4.3 / ES 3.1 */
    long max_ssbo_bytes; /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 0 likewise */
    int tbo_offset_align; /* GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT; 0 without glTexBufferRange
                             (GL 4.3, ES 3.2, GL_ARB_texture_buffer_range) */
    bool software;       /* a software rasteriser (llvmpipe, softpipe): its memory is this
                            process's, its shaders are compiled on the CPU at the first draw */
} gg_ctx_info;

/* Reads the current context's strings, limits and features. */
void host_ctx_query(const gg_ctx *ctx, gg_ctx_info *info);

/* Whether the current context lists the extension (its extension strings,
 * not GLEW's flags: see above). */
bool host_gl_has_extension(const char *name);

/* The card limits variants care about, from an info.  spirv also needs a
 * SPIR-V compiler (base_spirv_available()). */
void host_ctx_limits(const gg_ctx_info *info, gg_card_limits *lim);

/* EGL devices, one line each into out[i] (up to max); returns the count, or
 * -1 with a message in err when EGL device enumeration is not available. */
int host_egl_devices(char out[][256], int max, char *err, size_t errlen);

/* The hardware devices EGL lists (indices 0 .. count-1: they come before
 * the software ones); 0 when none, or without device enumeration. */
int host_egl_hardware_devices(void);

#endif
