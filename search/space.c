/* The space a search walks: --fix, the outer combinations, the mc and mrt
 * sets, and what the card allows. */
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- --fix ---- */

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
    /* Cut the canonical form down to the held keys, in the table's order. */
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
            if ((fix->mask & gen_keys[i].bit) && !strncmp(t, gen_keys[i].name, kl) && t[kl] == '=') {
                int w = snprintf(buf + o, len > o ? len - o : 0, "%s%s", o ? "," : "", t);
                if (w > 0)
                    o += (size_t)w;
            }
        }
    }
    return buf;
}

/* ---- the card ---- */

gg_status gs_card_status(const gg_search *s, const gg_variant *v, char *why, size_t len)
{
    if ((unsigned)v->profile >= GG_PROFILE_COUNT) {
        snprintf(why, len, "unknown profile");
        return GG_INVALID;
    }
    if (!s->cfg.profile_ok[v->profile]) {
        snprintf(why, len, "profile=%s: this device has no %s context", gen_profile_name(v->profile),
                 v->profile == GG_PROFILE_120   ? "compatibility"
                 : v->profile == GG_PROFILE_330 || v->profile == GG_PROFILE_430 ? "core"
                                                : "OpenGL ES 3");
        return GG_UNSUPPORTED;
    }
    switch (gen_variant_check_card(v, &s->cfg.lim[v->profile], why, len)) {
    case GG_CARD_OK: return GG_OK;
    case GG_CARD_INVALID: return GG_INVALID;
    default: return GG_UNSUPPORTED;
    }
}

bool gs_allowed(gg_search *s, const gg_variant *v, long n)
{
    char why[256];
    if (gs_card_status(s, v, why, sizeof why) == GG_OK)
        return true;
    gs_card_pruned(s, why, n);
    return false;
}

/* ---- enumerations ---- */

int gs_outer(const gg_search *s, gg_variant out[36])
{
    const gg_fix *f = &s->cfg.fix;
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 3; p++)
            for (int u = 0; u < 2; u++)
                for (int a = 0; a < 3; a++) {
                    gg_variant v = f->v; /* mrt, mc, np: fixed values or defaults */
                    v.compiler = (gg_compiler)c;
                    v.profile = (gg_profile)p;
                    v.unroll = u;
                    v.acc = (gg_acc)a;
                    if (((f->mask & GG_KEY_COMPILER) && f->v.compiler != v.compiler) ||
                        ((f->mask & GG_KEY_PROFILE) && f->v.profile != v.profile) ||
                        ((f->mask & GG_KEY_UNROLL) && f->v.unroll != v.unroll) ||
                        ((f->mask & GG_KEY_ACC) && f->v.acc != v.acc))
                        continue;
                    out[n++] = v;
                }
    return n;
}

int gs_mc_set(const gg_search *s, bool full, gg_shape out[8])
{
    if (s->cfg.fix.mask & GG_KEY_MC) {
        out[0] = s->cfg.fix.v.mc;
        return 1;
    }
    int n = 0;
    if (!full) {
        for (int i = 0; i < GG_PRUNED_MC; i++)
            out[n++] = gen_pruned_mc[i];
        return n;
    }
    for (int r = 1; r <= 4; r++)
        for (int c = 1; r * c <= 4; c++)
            out[n++] = (gg_shape){r, c};
    return n;
}

int gs_mrt_set(const gg_search *s, bool full, gg_shape out[20])
{
    if (s->cfg.fix.mask & GG_KEY_MRT) {
        out[0] = s->cfg.fix.v.mrt;
        return 1;
    }
    int n = 0;
    if (!full) {
        for (int i = 0; i < GG_PRUNED_MRT; i++)
            out[n++] = gen_pruned_mrt[i];
        return n;
    }
    for (int r = 1; r <= GG_MAX_TARGETS; r++)
        for (int c = 1; r * c <= GG_MAX_TARGETS; c++)
            out[n++] = (gg_shape){r, c};
    return n;
}

int gs_cells(gg_search *s, bool full, gs_cell **out, gg_variant *first_pruned)
{
    gg_variant outer[36];
    gg_shape mcs[8], mrts[20];
    int no = gs_outer(s, outer);
    int nmc = gs_mc_set(s, full, mcs), nmrt = gs_mrt_set(s, full, mrts);
    gs_cell *cells = malloc((size_t)(no * nmc * nmrt + 1) * sizeof *cells);
    if (!cells)
        return -1;
    int n = 0;
    bool have_pruned = false;
    for (int o = 0; o < no; o++)
        for (int i = 0; i < nmc; i++)
            for (int j = 0; j < nmrt; j++) {
                gs_cell c = {outer[o], 1};
                c.v.mc = mcs[i];
                c.v.mrt = mrts[j];
                if (!(s->cfg.fix.mask & GG_KEY_NP))
                    c.nnp = search_ksteps(c.v.mc, s->cfg.k);
                if (!gs_allowed(s, &c.v, c.nnp)) {
                    if (!have_pruned && first_pruned)
                        *first_pruned = c.v;
                    have_pruned = true;
                    continue;
                }
                cells[n++] = c;
            }
    *out = cells;
    return n;
}

int gs_cell_np(const gg_search *s, const gs_cell *c, int i)
{
    (void)c; /* every cell has np 1..its nnp, or --fix's */
    return (s->cfg.fix.mask & GG_KEY_NP) ? s->cfg.fix.v.np : i + 1;
}
