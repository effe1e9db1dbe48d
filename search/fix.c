/* search/fix: the bottom of search/: --fix, what a search holds fixed:
 * parsed from and formatted as "key=value,...", and matched against a
 * variant.  Calls no other file of search/. */
#include "search/search.h"

#include <stdio.h>
#include <string.h>

int search_fix_parse(const char *text, gg_fix *fix, char *err, size_t errlen)
{
    memset(fix, 0, sizeof *fix);
    gen_variant_default(&fix->v);
    if (!text || !*text)
        return 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[128];
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "--fix: empty or overlong item in '%s' (want key=value,...)", text);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "--fix: '%s' is not key=value (keys: " GG_KEYS_LIST ")", item);
            return -1;
        }
        size_t klen = (size_t)(eq - item);
        unsigned bit = 0;
        for (size_t i = 0; i < GG_KEY_COUNT; i++)
            if (strlen(gen_keys[i].name) == klen && !strncmp(item, gen_keys[i].name, klen))
                bit = gen_keys[i].bit;
        if (!bit) {
            snprintf(err, errlen, "--fix: unknown key '%.*s' (keys: " GG_KEYS_LIST ")", (int)klen, item);
            return -1;
        }
        if (fix->mask & bit) {
            snprintf(err, errlen, "--fix: key '%.*s' given twice", (int)klen, item);
            return -1;
        }
        /* The value by the variant parser's own rules (blk and out=image
         * only parse together: each is checked with a stand-in for the
         * other). */
        gg_variant one;
        char perr[256], text[160];
        if (bit == GG_KEY_BLK)
            snprintf(text, sizeof text, "out=image,%s", item);
        else if (bit == GG_KEY_OUT && !strcmp(eq + 1, "image"))
            snprintf(text, sizeof text, "%s,blk=1x1", item);
        else
            snprintf(text, sizeof text, "%s", item);
        if (gen_variant_parse(text, NULL, &one, perr, sizeof perr)) {
            snprintf(err, errlen, "--fix: %s", perr);
            return -1;
        }
        switch (bit) {
        case GG_KEY_MRT: fix->v.mrt = one.mrt; break;
        case GG_KEY_MC: fix->v.mc = one.mc; break;
        case GG_KEY_NP: fix->v.np = one.np; break;
        case GG_KEY_UNROLL: fix->v.unroll = one.unroll; break;
        case GG_KEY_PROFILE: fix->v.profile = one.profile; break;
        case GG_KEY_COMPILER: fix->v.compiler = one.compiler; break;
        case GG_KEY_ACC: fix->v.acc = one.acc; break;
        case GG_KEY_STORE: fix->v.store = one.store; break;
        case GG_KEY_OUT: fix->v.out = one.out; break;
        case GG_KEY_BLK: fix->v.blk = one.blk; break;
        case GG_KEY_FETCH: fix->v.fetch = one.fetch; break;
        case GG_KEY_TILE:
            fix->v.tile = one.tile;
            fix->v.tile_order = one.tile_order;
            break;
        case GG_KEY_KU: fix->v.ku = one.ku; break;
        case GG_KEY_ORDER: fix->v.order = one.order; break;
        }
        fix->mask |= bit;
        if ((fix->mask & GG_KEY_BLK) && (fix->mask & GG_KEY_OUT) && fix->v.out != GG_OUT_IMAGE) {
            snprintf(err, errlen, "--fix: blk=RxC is a block of out=image; it cannot go with out=rt");
            return -1;
        }
        if (!end)
            return 0;
        p = end + 1;
    }
}

char *search_fix_format(const gg_fix *fix, char *buf, size_t len)
{
    /* Cut the canonical form down to the held keys, in the table's order;
     * the last four (fetch, tile, ku, order), which the canonical form
     * leaves out at their defaults, written out here. */
    unsigned tail = GG_KEY_FETCH | GG_KEY_TILE | GG_KEY_KU | GG_KEY_ORDER;
    char canon[GG_VARIANT_TEXT];
    gg_variant v = fix->v;
    if (fix->mask & GG_KEY_BLK)
        v.out = GG_OUT_IMAGE; /* the canonical form writes blk only with out=image */
    gen_variant_format(&v, canon, sizeof canon);
    size_t o = 0;
    buf[0] = '\0';
    char *save = NULL;
    for (char *t = strtok_r(canon, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        for (size_t i = 0; i < GG_KEY_COUNT; i++) {
            size_t kl = strlen(gen_keys[i].name);
            if ((fix->mask & gen_keys[i].bit & ~tail) && !strncmp(t, gen_keys[i].name, kl) &&
                t[kl] == '=') {
                int w = snprintf(buf + o, len > o ? len - o : 0, "%s%s", o ? "," : "", t);
                if (w > 0)
                    o += (size_t)w;
            }
        }
    }
    char tile[32], ku[8];
    snprintf(ku, sizeof ku, "%d", fix->v.ku);
    const char *vals[4] = {gen_fetch_name(fix->v.fetch),
                           fix->v.tile.rows ? gen_tile_format(&fix->v, tile, sizeof tile) : "none",
                           ku, gen_order_name(fix->v.order)};
    const unsigned bits[4] = {GG_KEY_FETCH, GG_KEY_TILE, GG_KEY_KU, GG_KEY_ORDER};
    const char *names[4] = {"fetch", "tile", "ku", "order"};
    for (int i = 0; i < 4; i++)
        if (fix->mask & bits[i]) {
            int w = snprintf(buf + o, len > o ? len - o : 0, "%s%s=%s", o ? "," : "", names[i],
                             vals[i]);
            if (w > 0)
                o += (size_t)w;
        }
    return buf;
}

bool search_fix_matches(const gg_fix *fix, const gg_variant *v)
{
    const gg_variant *f = &fix->v;
    unsigned m = fix->mask;
    return (!(m & GG_KEY_MRT) || (f->mrt.rows == v->mrt.rows && f->mrt.cols == v->mrt.cols)) &&
           (!(m & GG_KEY_MC) || (f->mc.rows == v->mc.rows && f->mc.cols == v->mc.cols)) &&
           (!(m & GG_KEY_NP) || f->np == v->np) && (!(m & GG_KEY_UNROLL) || f->unroll == v->unroll) &&
           (!(m & GG_KEY_PROFILE) || f->profile == v->profile) &&
           (!(m & GG_KEY_COMPILER) || f->compiler == v->compiler) &&
           (!(m & GG_KEY_ACC) || f->acc == v->acc) && (!(m & GG_KEY_STORE) || f->store == v->store) &&
           (!(m & GG_KEY_OUT) || f->out == v->out) &&
           (!(m & GG_KEY_BLK) || (f->blk.rows == v->blk.rows && f->blk.cols == v->blk.cols)) &&
           (!(m & GG_KEY_FETCH) || f->fetch == v->fetch) &&
           (!(m & GG_KEY_TILE) || (f->tile.rows == v->tile.rows && f->tile.cols == v->tile.cols &&
                                   f->tile_order == v->tile_order)) &&
           (!(m & GG_KEY_KU) || f->ku == v->ku) && (!(m & GG_KEY_ORDER) || f->order == v->order);
}
