/* The names both context backends and context.c share: the bottom of the
 * context files (context.c -> context_egl.c, context_glfw.c -> this file;
 * it calls none of them).
 *
 * host_ctx_err(): the one-line error "<backend>: <message>"; host_ctx_kind_name():
 * the name of a context kind ("compat", "core", "es3"). */
#include <stdarg.h>
#include <stdio.h>

#include "glhost/context_internal.h"

void host_ctx_err(char *err, size_t errlen, const char *backend, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    int n = snprintf(err, errlen, "%s: ", backend);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

const char *host_ctx_kind_name(gg_ctx_kind k)
{
    switch (k) {
    case GG_CTX_COMPAT: return "compat";
    case GG_CTX_CORE: return "core";
    case GG_CTX_ES3: return "es3";
    }
    return "?";
}
