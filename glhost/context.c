/* Backend table and GL loading: the top of the context files.
 *
 * context.c -> context_egl.c, context_glfw.c (the backends) -> context_err.c
 * (host_ctx_err, host_ctx_kind_name): one direction, no file calls back up.
 *
 * host_ctx_create(): the backend makes a current context; GLEW then loads the
 * entry points (glewExperimental, so core and ES contexts get them too).  On a
 * context that sits on EGL, glewInit() returns GLEW_ERROR_NO_GLX_DISPLAY after
 * loading the GL entry points (GLEW's GLX part finds no GLX display): that one
 * code is accepted there, and every entry point glgemm calls through GLEW is
 * then checked to be non-NULL.  Any other GLEW error is a failure.  The
 * version the driver gave is checked against the kind asked for.
 *
 * Threads: contexts are made one at a time in the process (create_lock):
 * glewInit() fills GLEW's process-wide entry-point table for every context,
 * and the backends set up displays and libraries that all contexts share.
 * Using contexts (one per thread) and destroying them needs no lock. */
#include <GL/glew.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glhost/context_internal.h"

static const gg_ctx_backend *const backends[] = {
    [GG_BACKEND_EGL] = &host_ctx_backend_egl,
    [GG_BACKEND_GLFW] = &host_ctx_backend_glfw,
};

/* "OpenGL ES 3.2 Mesa ...", "4.5 (Core Profile) Mesa ...", "3.3.0 NVIDIA ...". */
static void parse_version(const char *s, bool *es, int *major, int *minor)
{
    *es = s && strncmp(s, "OpenGL ES", 9) == 0;
    *major = *minor = 0;
    while (s && *s && !isdigit((unsigned char)*s))
        s++;
    if (s && sscanf(s, "%d.%d", major, minor) != 2)
        *major = *minor = 0;
}

/* The entry points glgemm calls that GLEW loads (functions of GL 1.1 are
 * linked directly and need no check).  `modern`: core and ES only. */
static const struct {
    const char *name;
    const void *const *ptr;
    bool modern;
} entry_points[] = {
    {"glActiveTexture", (const void *const *)&__glewActiveTexture, false},
    {"glCreateShader", (const void *const *)&__glewCreateShader, false},
    {"glShaderSource", (const void *const *)&__glewShaderSource, false},
    {"glCompileShader", (const void *const *)&__glewCompileShader, false},
    {"glGetShaderiv", (const void *const *)&__glewGetShaderiv, false},
    {"glGetShaderInfoLog", (const void *const *)&__glewGetShaderInfoLog, false},
    {"glCreateProgram", (const void *const *)&__glewCreateProgram, false},
    {"glAttachShader", (const void *const *)&__glewAttachShader, false},
    {"glBindAttribLocation", (const void *const *)&__glewBindAttribLocation, false},
    {"glLinkProgram", (const void *const *)&__glewLinkProgram, false},
    {"glGetProgramiv", (const void *const *)&__glewGetProgramiv, false},
    {"glGetProgramInfoLog", (const void *const *)&__glewGetProgramInfoLog, false},
    {"glUseProgram", (const void *const *)&__glewUseProgram, false},
    {"glDeleteShader", (const void *const *)&__glewDeleteShader, false},
    {"glDeleteProgram", (const void *const *)&__glewDeleteProgram, false},
    {"glGetUniformLocation", (const void *const *)&__glewGetUniformLocation, false},
    {"glUniform1i", (const void *const *)&__glewUniform1i, false},
    {"glUniform1f", (const void *const *)&__glewUniform1f, false},
    {"glGenBuffers", (const void *const *)&__glewGenBuffers, false},
    {"glBindBuffer", (const void *const *)&__glewBindBuffer, false},
    {"glBufferData", (const void *const *)&__glewBufferData, false},
    {"glDeleteBuffers", (const void *const *)&__glewDeleteBuffers, false},
    {"glVertexAttribPointer", (const void *const *)&__glewVertexAttribPointer, false},
    {"glEnableVertexAttribArray", (const void *const *)&__glewEnableVertexAttribArray, false},
    {"glDrawBuffers", (const void *const *)&__glewDrawBuffers, false},
    {"glGenFramebuffers", (const void *const *)&__glewGenFramebuffers, false},
    {"glBindFramebuffer", (const void *const *)&__glewBindFramebuffer, false},
    {"glFramebufferTexture2D", (const void *const *)&__glewFramebufferTexture2D, false},
    {"glCheckFramebufferStatus", (const void *const *)&__glewCheckFramebufferStatus, false},
    {"glDeleteFramebuffers", (const void *const *)&__glewDeleteFramebuffers, false},
    {"glGenVertexArrays", (const void *const *)&__glewGenVertexArrays, true},
    {"glBindVertexArray", (const void *const *)&__glewBindVertexArray, true},
    {"glDeleteVertexArrays", (const void *const *)&__glewDeleteVertexArrays, true},
    {"glGetStringi", (const void *const *)&__glewGetStringi, true},
};

/* GLEW, then the version and the entry points.  0, or -1 with err. */
static int load_gl(const char *be, gg_ctx_kind kind, bool via_egl, char *err, size_t errlen)
{
    glewExperimental = GL_TRUE;
    GLenum g = glewInit();
    if (g != GLEW_OK && !(via_egl && g == GLEW_ERROR_NO_GLX_DISPLAY)) {
        host_ctx_err(err, errlen, be, "glewInit failed: %s (GLEW error %u)",
                   (const char *)glewGetErrorString(g), (unsigned)g);
        return -1;
    }
    while (glGetError() != GL_NO_ERROR) /* GLEW may leave GL_INVALID_ENUM behind */
        ;
    const char *ver = (const char *)glGetString(GL_VERSION);
    bool es;
    int major, minor;
    parse_version(ver, &es, &major, &minor);
    if (!ver || major == 0) {
        host_ctx_err(err, errlen, be, "the %s context gives no GL version", host_ctx_kind_name(kind));
        return -1;
    }
    bool fits;
    const char *want;
    switch (kind) {
    case GG_CTX_COMPAT: fits = !es && (major > 2 || (major == 2 && minor >= 1)); want = "desktop OpenGL 2.1"; break;
    case GG_CTX_CORE: fits = !es && (major > 3 || (major == 3 && minor >= 3)); want = "desktop OpenGL 3.3"; break;
    default: fits = es && major >= 3; want = "OpenGL ES 3.0"; break;
    }
    if (!fits) {
        host_ctx_err(err, errlen, be, "a %s context needs %s or later; the driver gave \"%s\"",
                   host_ctx_kind_name(kind), want, ver);
        return -1;
    }
    for (size_t i = 0; i < sizeof entry_points / sizeof *entry_points; i++) {
        if (entry_points[i].modern && kind == GG_CTX_COMPAT && major < 3)
            continue;
        if (*entry_points[i].ptr == NULL) {
            host_ctx_err(err, errlen, be, "GLEW loaded no %s on \"%s\" (glewInit: %s)", entry_points[i].name,
                       ver, (const char *)glewGetErrorString(g));
            return -1;
        }
    }
    return 0;
}

gg_ctx *host_ctx_create(gg_backend backend, int device, gg_ctx_kind kind, char *err, size_t errlen,
                      bool *no_device)
{
    if (no_device)
        *no_device = false;
    if (backend == GG_BACKEND_BROWSER) {
        host_ctx_err(err, errlen, "browser", "no GL context in this process: the browser backend's "
                                             "kernels run in a page (eval/browser)");
        return NULL;
    }
    if ((unsigned)backend >= sizeof backends / sizeof *backends || !backends[backend]) {
        host_ctx_err(err, errlen, "glgemm", "unknown context backend %d", (int)backend);
        return NULL;
    }
    const gg_ctx_backend *be = backends[backend];
    gg_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        host_ctx_err(err, errlen, be->name, "out of memory");
        return NULL;
    }
    bool via_egl = false;
    c->be = be;
    c->backend = backend;
    c->kind = kind;
    static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&create_lock);
    c->native = be->create(device, kind, c->device, sizeof c->device, &via_egl, err, errlen, no_device);
    bool loaded = c->native && load_gl(be->name, kind, via_egl, err, errlen) == 0;
    pthread_mutex_unlock(&create_lock);
    if (!c->native) {
        free(c);
        return NULL;
    }
    if (!loaded) {
        host_ctx_destroy(c);
        return NULL;
    }
    return c;
}

int host_ctx_make_current(gg_ctx *ctx, char *err, size_t errlen)
{
    return ctx->be->make_current(ctx->native, err, errlen);
}

void host_ctx_destroy(gg_ctx *ctx)
{
    if (!ctx)
        return;
    ctx->be->destroy(ctx->native);
    free(ctx);
}

int host_backend_parse(const char *name)
{
    if (!strcmp(name, "egl"))
        return GG_BACKEND_EGL;
    if (!strcmp(name, "glfw"))
        return GG_BACKEND_GLFW;
    if (!strcmp(name, "browser"))
        return GG_BACKEND_BROWSER;
    return -1;
}

const char *host_backend_name(gg_backend b)
{
    return b == GG_BACKEND_GLFW ? "glfw" : b == GG_BACKEND_BROWSER ? "browser" : "egl";
}

gg_ctx_kind host_ctx_kind_for(gg_profile p)
{
    switch (p) {
    case GG_PROFILE_120: return GG_CTX_COMPAT;
    case GG_PROFILE_330: return GG_CTX_CORE;
    case GG_PROFILE_300ES: return GG_CTX_ES3;
    /* The newer profiles run on the same contexts: EGL and GLFW give the
     * newest version of the kind (checked per variant: gen_variant_check_card). */
    case GG_PROFILE_430: return GG_CTX_CORE;
    case GG_PROFILE_310ES: return GG_CTX_ES3;
    case GG_PROFILE_COUNT: break;
    }
    return GG_CTX_CORE;
}

