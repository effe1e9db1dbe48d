/* Inside glhost/ only: the interface every context backend fills.
 *
 * A backend makes a native context of one kind and makes it current; the
 * common code (context.c) then loads GL entry points with GLEW, checks them and
 * the version, and wraps the result in a gg_ctx.  Errors are one line that
 * names the backend and decodes its native error (host_ctx_err, in
 * context_err.c: below context.c and the backends, which both use it). */
#ifndef GLGEMM_CONTEXT_INTERNAL_H
#define GLGEMM_CONTEXT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "glhost/context.h"

typedef struct {
    const char *name; /* "EGL", "GLFW": the prefix of every message */
    /* Makes a context of that kind and makes it current.  Returns the native
     * handle, or NULL with one line in err; sets *no_device when the device
     * index does not exist.  desc gets how the context was made.  *via_egl is
     * set when the context sits on EGL (GLEW's GLX part then cannot load). */
    void *(*create)(int device, gg_ctx_kind kind, char *desc, size_t desclen,
                    bool *via_egl, char *err, size_t errlen, bool *no_device);
    /* Makes the native context current again: 0, or -1 with err. */
    int (*make_current)(void *native, char *err, size_t errlen);
    void (*destroy)(void *native);
} gg_ctx_backend;

extern const gg_ctx_backend host_ctx_backend_egl;
extern const gg_ctx_backend host_ctx_backend_glfw;

struct gg_ctx {
    const gg_ctx_backend *be;
    void *native;
    gg_backend backend;
    gg_ctx_kind kind;
    char device[128];
};

/* "<backend>: <formatted>" into err (context_err.c). */
void host_ctx_err(char *err, size_t errlen, const char *backend, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
