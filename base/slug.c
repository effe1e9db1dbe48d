/* A card's slug: see slug.h. */
#include "base/slug.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void base_slug(const char *renderer, char *out, size_t len)
{
    /* The model only: text in parentheses (llvmpipe's "(LLVM ...)", Intel's
     * "(R)", AMD's "(navi21, LLVM ..., DRM ...)") and everything from the
     * first '/' (NVIDIA's "/PCIe/SSE2") are the driver's details.  Runs of
     * letters and digits, lower case, joined by single dashes; a word that
     * does not fit whole is left out, so a cut never ends in a dash. */
    if (len == 0)
        return;
    if (len > GG_CARD_MAX)
        len = GG_CARD_MAX; /* the rule's length, whatever the buffer */
    size_t o = 0;
    int depth = 0;
    bool dash = false, full = false;
    for (const char *p = renderer ? renderer : ""; *p && *p != '/' && !full; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '(') {
            depth++;
            dash = true;
        } else if (ch == ')') {
            depth -= depth > 0;
            dash = true;
        } else if (depth > 0) {
            continue;
        } else if (ch < 128 && isalnum(ch)) {
            size_t need = (dash && o > 0) + 1;
            if (o + need + 1 > len) {
                /* No room: drop the rest, and a partly written word. */
                while (o > 0 && out[o - 1] != '-' && !dash)
                    o--;
                if (o > 0 && out[o - 1] == '-')
                    o--;
                full = true;
                break;
            }
            if (dash && o > 0)
                out[o++] = '-';
            dash = false;
            out[o++] = (char)tolower(ch);
        } else {
            dash = true;
        }
    }
    out[o] = '\0';
    if (o == 0)
        snprintf(out, len, "unknown");
}

bool base_card_slug_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= GG_CARD_MAX || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}
