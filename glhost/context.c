/* Backend table and the names shared by both backends. */
#include <ctype.h>
#include <string.h>

#include "glhost/context.h"

int gg_backend_parse(const char *name)
{
    if (!strcmp(name, "egl"))
        return GG_BACKEND_EGL;
    if (!strcmp(name, "glfw"))
        return GG_BACKEND_GLFW;
    return -1;
}

const char *gg_backend_name(gg_backend b) { return b == GG_BACKEND_GLFW ? "glfw" : "egl"; }

const char *gg_ctx_kind_name(gg_ctx_kind k)
{
    switch (k) {
    case GG_CTX_COMPAT: return "compat";
    case GG_CTX_CORE: return "core";
    case GG_CTX_ES3: return "es3";
    }
    return "?";
}

gg_ctx_kind gg_ctx_kind_for(gg_profile p)
{
    switch (p) {
    case GG_PROFILE_120: return GG_CTX_COMPAT;
    case GG_PROFILE_330: return GG_CTX_CORE;
    case GG_PROFILE_300ES: return GG_CTX_ES3;
    }
    return GG_CTX_CORE;
}

void gg_slug(const char *renderer, char *out, size_t len)
{
    /* Up to the first '(' or '/': the model, not the driver's build details. */
    size_t o = 0;
    bool dash = false;
    for (const char *p = renderer; *p && *p != '(' && *p != '/' && o + 1 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch)) {
            if (dash && o > 0 && o + 2 < len)
                out[o++] = '-';
            dash = false;
            out[o++] = (char)tolower(ch);
        } else {
            dash = true;
        }
    }
    if (o == 0 && len > 8) {
        strcpy(out, "unknown");
        return;
    }
    out[o < len ? o : len - 1] = '\0';
}
