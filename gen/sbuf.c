/* The string builder of gen/sbuf.h. */
#include "gen/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gen_sb_init(gg_sbuf *sb)
{
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    sb->failed = false;
}

static bool reserve(gg_sbuf *sb, size_t extra)
{
    if (sb->failed)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 1024;
    while (cap < sb->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            sb->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(sb->buf, cap);
    if (!p) {
        sb->failed = true;
        return false;
    }
    sb->buf = p;
    sb->cap = cap;
    return true;
}

void gen_sb_puts(gg_sbuf *sb, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(sb, n))
        return;
    memcpy(sb->buf + sb->len, s, n + 1);
    sb->len += n;
}

void gen_sb_printf(gg_sbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return;
    }
    if (!reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *gen_sb_finish(gg_sbuf *sb)
{
    if (sb->failed || !reserve(sb, 0)) {
        free(sb->buf);
        gen_sb_init(sb);
        return NULL;
    }
    sb->buf[sb->len] = '\0';
    char *out = sb->buf;
    gen_sb_init(sb);
    return out;
}
