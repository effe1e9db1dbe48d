/* This thread's error text (glgemm_last_error, lib_set_error), the codes'
 * texts (glgemm_strerror) and the route a call took (glgemm_last_route,
 * lib_set_route): what the library says of its last call.  The bottom of
 * lib/internal.h's stack: it calls none of it. */
#include "lib/internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_err[LIB_ERR_LEN];

int lib_set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    return code;
}

const char *glgemm_last_error(void) { return last_err; }

const char *lib_error_text(void) { return last_err; }

void lib_error_clear(void) { last_err[0] = '\0'; }

const char *glgemm_strerror(int code)
{
    static const char *const illegal[15] = {
        NULL,
        "illegal value of argument 1 (layout)",
        "illegal value of argument 2 (transa)",
        "illegal value of argument 3 (transb)",
        "illegal value of argument 4 (m)",
        "illegal value of argument 5 (n)",
        "illegal value of argument 6 (k)",
        "illegal value of argument 7 (alpha)",
        "illegal value of argument 8 (a)",
        "illegal value of argument 9 (lda)",
        "illegal value of argument 10 (b)",
        "illegal value of argument 11 (ldb)",
        "illegal value of argument 12 (beta)",
        "illegal value of argument 13 (c)",
        "illegal value of argument 14 (ldc)",
    };
    switch (code) {
    case GLGEMM_OK: return "success";
    case GLGEMM_ENOCONTEXT: return "no GL context";
    case GLGEMM_EVARIANT: return "bad variant";
    case GLGEMM_EGPU: return "the variant failed on the GPU";
    case GLGEMM_EWRONG: return "the GPU result failed verification";
    case GLGEMM_ENOMEM: return "out of memory";
    case GLGEMM_EINVAL: return "invalid argument";
    case GLGEMM_EREENTER: return "called back from its own CPU route";
    default: break;
    }
    if (code < 0 && code >= -14)
        return illegal[-code];
    return "unknown glgemm error code";
}

const char *glgemm_last_route(const glgemm_context *ctx) { return ctx ? ctx->route : ""; }

/* How this call is being served: the text glgemm_last_route gives, and
 * whether its arithmetic runs on this CPU (then the flags it raises stay). */
void lib_set_route(glgemm_context *ctx, bool cpu_arith, const char *fmt, ...)
{
    if (!ctx) /* glgemm_sgemm_cpu without a context */
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->route, sizeof ctx->route, fmt, ap);
    va_end(ap);
    ctx->cpu_arith = cpu_arith;
}
