/* The wide stores' rules and words (gen/wide.h). */
#include "gen/wide.h"

#include <string.h>

#include "gen/util.h"

int gen_wide_words(gg_store s)
{
    return s == GG_STORE_DD ? 4 : s == GG_STORE_F64 || s == GG_STORE_DF ? 2 : 1;
}

int gen_wide_texel_words(const gg_layout *L, gg_store s)
{
    return L->channels * gen_wide_words(s) <= 2 ? 2 : 4;
}

/* The store's name as gen/variant.c spells it (said here again: variant.c
 * calls this file, not the other way round). */
static const char *wide_name(gg_store s)
{
    return s == GG_STORE_F64 ? "f64" : s == GG_STORE_DD ? "dd" : s == GG_STORE_DF ? "df" : "?";
}

bool gen_wide_invalid(const gg_variant *v, char *why, size_t whylen)
{
    const char *st = wide_name(v->store);
    int ch = v->mc.rows * v->mc.cols, words = gen_wide_words(v->store);
    bool dbl = v->store != GG_STORE_DF;
    /* Each rule: what the wide path (gen/wide_emit.c, glhost/run_wide.c)
     * implements; the rest is not written yet, or cannot be. */
    if (ch * words > 4)
        return gen_fail(why, whylen, "store=%s holds %d words a value and a texel has 4: mc=%dx%d's "
                                 "%d values do not fit (use %s)", st, words, v->mc.rows, v->mc.cols,
                       ch, words == 4 ? "mc=1x1" : "mc=1x1, 1x2 or 2x1") != 0;
    if (v->profile == GG_PROFILE_120)
        return gen_fail(why, whylen, "store=%s needs unsigned integer textures (GLSL 1.30 or later), "
                                 "not profile 120", st) != 0;
    if (dbl && (v->profile == GG_PROFILE_300ES || v->profile == GG_PROFILE_310ES))
        return gen_fail(why, whylen, "store=%s needs double arithmetic, which GLSL ES %s lacks; "
                                 "store=df runs on fp32 there", st,
                       v->profile == GG_PROFILE_300ES ? "3.00" : "3.10") != 0;
    if (v->compiler != GG_COMPILER_GLSL)
        return gen_fail(why, whylen, "store=%s: compiler=glsl only", st) != 0;
    if (v->out == GG_OUT_IMAGE && v->profile != GG_PROFILE_430 && v->profile != GG_PROFILE_310ES)
        return gen_fail(why, whylen, "store=%s,out=image needs profile=430 or 310es (imageStore of "
                                 "unsigned words)", st) != 0;
    if (v->out == GG_OUT_IMAGE && v->profile == GG_PROFILE_310ES && ch * words == 2)
        return gen_fail(why, whylen, "store=%s,out=image in profile 310es: mc=%dx%d's texels are two "
                                 "words (rg32ui), which GLSL ES 3.10 images lack; use mc=1x2 or 2x1",
                       st, v->mc.rows, v->mc.cols) != 0;
    if (v->out == GG_OUT_IMAGE && v->blk.rows * v->blk.cols * words > GG_MAX_BLK)
        return gen_fail(why, whylen, "store=%s: blk=%dx%d holds %d words a fragment; at most %d, "
                                 "blk's limit in fp32 words", st, v->blk.rows, v->blk.cols,
                       v->blk.rows * v->blk.cols * words, GG_MAX_BLK) != 0;
    if (v->acc != GG_ACC_PINGPONG)
        return gen_fail(why, whylen, "store=%s accumulates with acc=pingpong only (%s)", st,
                       v->acc == GG_ACC_BLEND ? "integer targets do not blend"
                                              : "acc=copy is not written for it") != 0;
    /* (the values named, not gen_fetch_ssbos: variant.c calls this file) */
    if (v->fetch != GG_FETCH_TEXTURE && v->fetch != GG_FETCH_TEXELFETCH && v->fetch != GG_FETCH_SSBO &&
        v->fetch != GG_FETCH_TEXELFETCH_SSBO && v->fetch != GG_FETCH_SSBO_TEXELFETCH)
        return gen_fail(why, whylen, "store=%s reads A and B with fetch=texture, texelfetch, ssbo, "
                                 "texelfetch+ssbo or ssbo+texelfetch only", st) != 0;
    if (v->ku != 1 || v->order != GG_ORDER_PLAIN)
        return gen_fail(why, whylen, "store=%s: ku and order keep their defaults", st) != 0;
    return false;
}

/* The words of a double, low first (unpackDouble2x32). */
static void dwords(double x, uint32_t *w)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    w[0] = (uint32_t)u;
    w[1] = (uint32_t)(u >> 32);
}

static double from_dwords(const uint32_t *w)
{
    uint64_t u = (uint64_t)w[0] | (uint64_t)w[1] << 32;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t fword(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_fword(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void gen_wide_value(gg_store s, double hi, double lo, uint32_t *w)
{
    switch (s) {
    case GG_STORE_DD:
        dwords(hi + lo, w);                    /* renormalised: hi = fl(hi + lo) */
        dwords(lo - (from_dwords(w) - hi), w + 2);
        return;
    case GG_STORE_DF: {
        double x = hi + lo;
        float h = (float)x;
        w[0] = fword(h);
        w[1] = fword((float)((x - (double)h) + (lo - (x - hi))));
        return;
    }
    default:
        dwords(hi + lo, w);
        return;
    }
}

void gen_wide_read(gg_store s, const uint32_t *w, double *hi, double *lo)
{
    switch (s) {
    case GG_STORE_DD:
        *hi = from_dwords(w);
        *lo = from_dwords(w + 2);
        return;
    case GG_STORE_DF:
        /* both exact as doubles: no rounding in the read-back */
        *hi = (double)from_fword(w[0]);
        *lo = (double)from_fword(w[1]);
        return;
    default:
        *hi = from_dwords(w);
        *lo = 0.0;
        return;
    }
}
