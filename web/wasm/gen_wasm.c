/* web/wasm/gen_wasm: gen/ for the browser, compiled with every file of gen/ into
 * web/dist/glgemm-gen.wasm (`make web`): one generator for both worlds.
 * The WebGL2 runtime (its binding in web/src/glgemm.js) calls these exports; it never
 * writes GLSL itself.
 *
 * Contract (pointers are offsets into the module's memory; the JS side
 * allocates with gw_malloc and frees with gw_free):
 *  - gw_variant_new(text, err, errlen): a malloc'd gg_variant parsed from
 *    text (presets and overrides as gen_variant_parse; `best` is not known
 *    here), or 0 with the parser's one line in err.
 *  - gw_variant_info(v, out): GW_VINFO ints (the order of enum vinfo
 *    below); gw_variant_format(v, buf, len): the canonical form.
 *  - gw_check_card(v, draw_buffers, max_texture, float_blend, why, len):
 *    gen_variant_check_card with the limits of a WebGL2 context (OpenGL
 *    ES 3.0, no SPIR-V, no images, no buffer textures): 0 ok, 1 invalid,
 *    2 unsupported, with the reason in why.
 *  - gw_split_new(v, m, n, k, max_texture): a malloc'd gg_split
 *    (gen_split_plan), 0 when none fits; gw_split_info(s, out): GW_SINFO
 *    ints (enum sinfo).
 *  - gw_emit_fragment(v, m, n, k), gw_emit_vertex(v): malloc'd text.
 *  - gw_pack_a(s, a, lda, trans, m, n, k, bi, bk, out), gw_pack_b(s, b,
 *    ldb, trans, m, n, k, bk, bj, out): block (bi, bk) of op(A) / (bk, bj)
 *    of op(B) of the m x n x k problem, by gen/pack.h.
 *  - gw_pack_c0(s, c0, ldc, beta, m, n, k, bi, bj, stride, targets):
 *    targets is an array of L.targets float pointers; gw_unpack_c(s,
 *    targets, stride, m, n, k, bi, bj, c, ldc) the other way.
 *  - gw_to_halves(dst, src, count): gen/half.h's rounding (store=f16).
 *  - gw_pack_words(s, b, packed, words): store=f16x8, the floats gw_pack_a
 *    (b 0) or gw_pack_b (b 1) wrote as the RGBA32UI texels' words
 *    (gen_pack_words_a / _b).
 *  - The wide stores (gen/wide.h; store=df is the one WebGL2 runs), on
 *    row-major double matrices, block by block as gw_pack_a .. above:
 *    gw_wide_texel_words(s, store): 2 (RG32UI) or 4 (RGBA32UI);
 *    gw_wide_value(store, hi, lo, w): a value's words (alpha's uAlphaW);
 *    gw_wide_pack_a / _b(s, store, x, ld, trans, m, n, k, bi|bk, bk|bj,
 *    out): the block's texels as words; gw_wide_pack_c0(s, store, c0, ldc,
 *    beta, m, n, k, bi, bj, targets): each target's first sums (beta*C0
 *    exactly, then rounded to the store; zero when beta is 0);
 *    gw_wide_unpack_c(s, store, targets, stride, m, n, k, bi, bj, c, ldc):
 *    C block (bi, bj) from the targets read back with stride words a
 *    texel (4: readPixels RGBA_INTEGER) into c as doubles, hi + lo.
 * No I/O: the module imports nothing but what wasi-libc's malloc and
 * snprintf need. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/half.h"
#include "gen/pack.h"
#include "gen/wide.h"

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("gw_malloc") void *gw_malloc(size_t n) { return malloc(n ? n : 1); }
EXPORT("gw_free") void gw_free(void *p) { free(p); }

EXPORT("gw_variant_new") gg_variant *gw_variant_new(const char *text, char *err, int errlen)
{
    gg_variant *v = malloc(sizeof *v);
    if (!v) {
        if (err && errlen > 0)
            snprintf(err, (size_t)errlen, "out of memory");
        return NULL;
    }
    if (gen_variant_parse(text, NULL, v, err, (size_t)(errlen > 0 ? errlen : 0))) {
        free(v);
        return NULL;
    }
    return v;
}

enum vinfo {
    VI_MRT_R, VI_MRT_C, VI_MC_R, VI_MC_C, VI_NP, VI_UNROLL, VI_PROFILE, VI_COMPILER, VI_ACC,
    VI_STORE, VI_OUT, VI_BLK_R, VI_BLK_C, VI_FETCH, GW_VINFO
};

EXPORT("gw_variant_info") int gw_variant_info(const gg_variant *v, int *out)
{
    int i[GW_VINFO] = {v->mrt.rows, v->mrt.cols, v->mc.rows, v->mc.cols, v->np, v->unroll,
                       (int)v->profile, (int)v->compiler, (int)v->acc, (int)v->store,
                       (int)v->out, v->blk.rows, v->blk.cols, (int)v->fetch};
    memcpy(out, i, sizeof i);
    return GW_VINFO;
}

EXPORT("gw_variant_format") void gw_variant_format(const gg_variant *v, char *buf, int len)
{
    gen_variant_format(v, buf, (size_t)len);
}

EXPORT("gw_check_card") int gw_check_card(const gg_variant *v, int draw_buffers, int max_texture,
                                          int float_blend, char *why, int len)
{
    gg_card_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.max_draw_buffers = draw_buffers;
    lim.max_texture_size = max_texture;
    lim.float_blend = float_blend != 0;
    lim.es = true;
    lim.gl_version = 30; /* WebGL2 is OpenGL ES 3.0 */
    return (int)gen_variant_check_card(v, &lim, why, (size_t)(len > 0 ? len : 0));
}

EXPORT("gw_split_new") gg_split *gw_split_new(const gg_variant *v, int m, int n, int k,
                                              int max_texture)
{
    gg_split *s = malloc(sizeof *s);
    if (s && gen_split_plan(v, m, n, k, max_texture, s)) {
        free(s);
        s = NULL;
    }
    return s;
}

enum sinfo {
    SI_MB, SI_NB, SI_KB, SI_MBLOCKS, SI_NBLOCKS, SI_KBLOCKS,
    SI_R, SI_C, SI_TR, SI_TC, SI_TARGETS, SI_CHANNELS, SI_STEP, SI_KSTEPS, SI_NP, SI_PASSES,
    SI_KPAD, SI_MPAD, SI_NPAD, SI_A_W, SI_A_H, SI_B_W, SI_B_H, SI_TGT_W, SI_TGT_H, SI_UBO_ROW,
    SI_UBO_VEC4S, SI_TCH, SI_GROUP, GW_SINFO
};

EXPORT("gw_split_info") int gw_split_info(const gg_split *s, int *out)
{
    const gg_layout *L = &s->L;
    int i[GW_SINFO] = {s->mb, s->nb, s->kb, s->mblocks, s->nblocks, s->kblocks,
                       L->r, L->c, L->tr, L->tc, L->targets, L->channels, L->step, L->ksteps,
                       L->np, L->passes, L->kpad, L->mpad, L->npad, L->a_w, L->a_h, L->b_w,
                       L->b_h, L->tgt_w, L->tgt_h, L->ubo_row, (int)L->ubo_vec4s,
                       gen_target_channels(L), L->group};
    memcpy(out, i, sizeof i);
    return GW_SINFO;
}

EXPORT("gw_emit_fragment") char *gw_emit_fragment(const gg_variant *v, int m, int n, int k)
{
    return gen_emit_fragment(v, m, n, k);
}

EXPORT("gw_emit_vertex") char *gw_emit_vertex(const gg_variant *v) { return gen_emit_vertex(v); }

/* tile=WxH: the boxes of a pass in drawing order, four ints each (x, y, w,
 * h) into out (cap boxes); returns the count (1: one draw; -1: too many). */
EXPORT("gw_tile_boxes") int gw_tile_boxes(const gg_variant *v, int w, int h, int *out, int cap)
{
    return gen_tile_boxes(v, w, h, (gg_box *)out, cap);
}

EXPORT("gw_pack_a") void gw_pack_a(const gg_split *s, const float *a, int lda, int trans, int m,
                                   int n, int k, int bi, int bk, float *out)
{
    gg_src src = {a, lda, trans != 0};
    gg_block blk = gen_split_block(s, m, n, k, bi, 0, bk);
    gen_pack_a(&s->L, src, &blk, out);
}

EXPORT("gw_pack_b") void gw_pack_b(const gg_split *s, const float *b, int ldb, int trans, int m,
                                   int n, int k, int bk, int bj, float *out)
{
    gg_src src = {b, ldb, trans != 0};
    gg_block blk = gen_split_block(s, m, n, k, 0, bj, bk);
    gen_pack_b(&s->L, src, &blk, out);
}

EXPORT("gw_pack_c0") void gw_pack_c0(const gg_split *s, const float *c0, int ldc, float beta,
                                     int m, int n, int k, int bi, int bj, int stride,
                                     float *const *targets)
{
    gg_block blk = gen_split_block(s, m, n, k, bi, bj, 0);
    gen_pack_c0(&s->L, c0, ldc, beta, &blk, stride, targets);
}

EXPORT("gw_unpack_c") void gw_unpack_c(const gg_split *s, const float *const *targets, int stride,
                                       int m, int n, int k, int bi, int bj, float *c, int ldc)
{
    gg_block blk = gen_split_block(s, m, n, k, bi, bj, 0);
    gen_unpack_c(&s->L, targets, stride, &blk, c, ldc);
}

EXPORT("gw_to_halves") void gw_to_halves(uint16_t *dst, const float *src, int count)
{
    gen_floats_to_halves(dst, src, (size_t)(count > 0 ? count : 0));
}

EXPORT("gw_pack_words") void gw_pack_words(const gg_split *s, int b, const float *packed,
                                           uint32_t *words)
{
    (b ? gen_pack_words_b : gen_pack_words_a)(&s->L, packed, words);
}

/* ---- the wide stores (gen/wide.h) by blocks of a split ---- */

EXPORT("gw_wide_texel_words") int gw_wide_texel_words(const gg_split *s, int store)
{
    return gen_wide_texel_words(&s->L, (gg_store)store);
}

EXPORT("gw_wide_value") void gw_wide_value(int store, double hi, double lo, uint32_t *w)
{
    w[0] = w[1] = w[2] = w[3] = 0;
    gen_wide_value((gg_store)store, hi, lo, w);
}

/* The split's layout with the block's valid extents: gen/wide_pack.c
 * packs and unpacks L->m x L->n x L->k, zero past them. */
static gg_layout block_layout(const gg_split *s, const gg_block *b)
{
    gg_layout L = s->L;
    L.m = b->m;
    L.n = b->n;
    L.k = b->k;
    return L;
}

/* op(X)[r0..][c0..] of a row-major matrix with row stride ld. */
static gg_src64 sub64(const double *x, int ld, int trans, int r0, int c0)
{
    gg_src64 src = {trans ? x + (size_t)c0 * ld + r0 : x + (size_t)r0 * ld + c0, ld, trans != 0};
    return src;
}

EXPORT("gw_wide_pack_a") void gw_wide_pack_a(const gg_split *s, int store, const double *a, int lda,
                                             int trans, int m, int n, int k, int bi, int bk,
                                             uint32_t *out)
{
    gg_block b = gen_split_block(s, m, n, k, bi, 0, bk);
    gg_layout L = block_layout(s, &b);
    gen_wide_pack_a(&L, (gg_store)store, sub64(a, lda, trans, b.i0, b.k0), out);
}

EXPORT("gw_wide_pack_b") void gw_wide_pack_b(const gg_split *s, int store, const double *bm, int ldb,
                                             int trans, int m, int n, int k, int bk, int bj,
                                             uint32_t *out)
{
    gg_block b = gen_split_block(s, m, n, k, 0, bj, bk);
    gg_layout L = block_layout(s, &b);
    gen_wide_pack_b(&L, (gg_store)store, sub64(bm, ldb, trans, b.k0, b.j0), out);
}

EXPORT("gw_wide_pack_c0") void gw_wide_pack_c0(const gg_split *s, int store, const double *c0,
                                               int ldc, double beta, int m, int n, int k, int bi,
                                               int bj, uint32_t *const *targets)
{
    gg_block b = gen_split_block(s, m, n, k, bi, bj, 0);
    gg_layout L = block_layout(s, &b);
    const double *at = c0 ? c0 + (size_t)b.i0 * ldc + b.j0 : NULL;
    gen_wide_pack_c0(&L, (gg_store)store, at, ldc, beta, targets);
}

/* 0, or -1 out of memory. */
EXPORT("gw_wide_unpack_c") int gw_wide_unpack_c(const gg_split *s, int store,
                                                const uint32_t *const *targets, int stride, int m,
                                                int n, int k, int bi, int bj, double *c, int ldc)
{
    gg_block b = gen_split_block(s, m, n, k, bi, bj, 0);
    gg_layout L = block_layout(s, &b);
    int tw = gen_wide_texel_words(&L, (gg_store)store);
    size_t texels = (size_t)L.tgt_w * L.tgt_h, vals = (size_t)b.m * b.n;
    uint32_t *packed[GG_MAX_TARGETS] = {0};
    double *hi = malloc(vals * sizeof *hi), *lo = malloc(vals * sizeof *lo);
    int rc = hi && lo ? 0 : -1;
    for (int t = 0; t < L.targets && rc == 0; t++) {
        packed[t] = malloc(texels * tw * sizeof(uint32_t));
        if (!packed[t]) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < texels; i++)
            memcpy(packed[t] + i * tw, targets[t] + i * stride, (size_t)tw * sizeof(uint32_t));
    }
    if (rc == 0) {
        /* hi and lo: the block's b.m x b.n values, row stride b.n */
        gen_wide_unpack_c(&L, (gg_store)store, (const uint32_t *const *)packed, hi, lo, b.n);
        for (int i = 0; i < b.m; i++)
            for (int j = 0; j < b.n; j++) {
                size_t at = (size_t)i * b.n + j;
                c[(size_t)(b.i0 + i) * ldc + b.j0 + j] = hi[at] + lo[at];
            }
    }
    for (int t = 0; t < GG_MAX_TARGETS; t++)
        free(packed[t]);
    free(hi);
    free(lo);
    return rc;
}
