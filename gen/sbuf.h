/* A growing string with a sticky error (SQLite's StrAccum habit): append
 * freely, check once at the end.  Internal to gen/. */
#ifndef GLGEMM_GEN_SBUF_H
#define GLGEMM_GEN_SBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, cap;
    bool failed; /* out of memory (sticky): every later append is a no-op */
} gg_sbuf;

void gen_sb_init(gg_sbuf *sb);
void gen_sb_puts(gg_sbuf *sb, const char *s);
void gen_sb_printf(gg_sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text (caller frees), or NULL if any append failed. */
char *gen_sb_finish(gg_sbuf *sb);

#endif
