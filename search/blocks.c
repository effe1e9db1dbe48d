/* search/blocks: the phase strategy's steps past the 32-output cap
 * (phase.c runs them; search_int.h): the fetch paths at the representative
 * block, the blocks (out=image, blk over the set below, mc 1x4, 2x2, 4x1,
 * the kept paths, np=all and 16, in two stages, then Algorithm 1 on the
 * best block's np), and, after the paper's search, its best out=rt point by
 * each other fetch path the blocks went on with.  Calls space.c, visit.c,
 * memo.c, notes.c, fix.c and phase.c's Algorithm 1, never a strategy. */
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- past the 32-output cap ---- */

/* Rows x columns of C a fragment computes: around the 8 x 4-channel
 * targets' 32, up to 256 (larger blocks spill their registers), and three
 * off the powers of two between 64 and 128 outputs (on the H100 at 4096^3
 * 12x12 ran at 0.85x of 16x8, 12x8 0.78x, 8x12 0.67x:
 * results/nvidia-h100-80gb-hbm3/feed/feed-4096.csv). */
static const gg_shape blk_set[] = {{4, 8}, {8, 4}, {8, 8}, {4, 16}, {16, 4},
                                   {8, 16}, {16, 8}, {16, 16}, {12, 8}, {8, 12}, {12, 12}};
static const gg_shape blk_mc[] = {{1, 4}, {2, 2}, {4, 1}};
/* A wide store's (--fix store=f64, dd, df) shapes: those a texel holds
 * (gs_mc_set's), 1x1 last; on the H200 at 1024^3 f64's 8x8 blocks ran
 * 462-470 GFLOP/s by every one of them (results/nvidia-h200/wide/). */
static const gg_shape wide_mc[] = {{2, 1}, {1, 2}, {1, 1}};
/* A wide store's blocks: 2 words a sum, so fp32's set past 8x8 spills;
 * 10x8 and 8x10 between.  On the H200 at 4096^3 f64's mc 2x1 10x8 ran
 * 1.10x 8x8 (the texels a multiply-add: 18 for 160 against 16 for 128),
 * 12x8 0.66x (spilled); results/nvidia-h200/wide/NOTES.md. */
static const gg_shape wide_blk[] = {{4, 8}, {8, 4}, {8, 8}, {4, 16}, {16, 4}, {10, 8},
                                    {8, 10}, {8, 16}, {16, 8}, {12, 8}, {8, 12}};
#define BLOCK_TOP 4

/* The block shapes of the searched store; returns the count. */
static size_t block_mcs(const gg_search *s, const gg_shape **out)
{
    if (!gen_store_wide(s->cfg.fix.v.store)) {
        *out = blk_mc;
        return sizeof blk_mc / sizeof *blk_mc;
    }
    *out = wide_mc;
    /* dd holds one value a texel */
    return s->cfg.fix.v.store == GG_STORE_DD ? 1 : sizeof wide_mc / sizeof *wide_mc;
}

/* The blocks of the searched store; returns the count. */
static size_t block_blks(const gg_search *s, const gg_shape **out)
{
    bool wide = gen_store_wide(s->cfg.fix.v.store);
    *out = wide ? wide_blk : blk_set;
    return wide ? sizeof wide_blk / sizeof *wide_blk : sizeof blk_set / sizeof *blk_set;
}

/* The profile for images: --fix's, else 430 where the core context is 4.3
 * or later, else 310es; -1 when there is none. */
static int image_profile(const gg_search *s)
{
    if (s->cfg.fix.mask & GG_KEY_PROFILE)
        return (int)s->cfg.fix.v.profile;
    const gg_card_limits *c = &s->cfg.lim[GG_PROFILE_430], *e = &s->cfg.lim[GG_PROFILE_310ES];
    if (s->cfg.profile_ok[GG_PROFILE_430] && !c->es && c->gl_version >= 43)
        return GG_PROFILE_430;
    if (s->cfg.profile_ok[GG_PROFILE_310ES] && e->es && e->gl_version >= 31)
        return GG_PROFILE_310ES;
    return -1;
}

/* The best scored point of the memo with the searched store and out. */
static bool memo_best(const gg_search *s, gg_out out, gg_variant *v, double *score)
{
    *score = 0;
    for (size_t i = 0; i < s->cap; i++) {
        const gs_entry *e = &s->tab[i];
        if (!e->key || e->v.store != s->cfg.fix.v.store || e->v.out != out ||
            !search_fix_matches(&s->cfg.fix, &e->v))
            continue;
        double sc = search_outcome_score(&e->o);
        if (sc > *score) {
            *score = sc;
            *v = e->v;
        }
    }
    return *score > 0;
}

/* Fetch step: base with each fetch path the card allows (base's own is
 * already scored: base_score); paths[] gets the fastest first (at most 2).
 * Returns the count, or -1/-2 to stop (look's 1 budget spent -> -2, -1
 * error).  what names base's role in the note. */
static int fetch_step(gg_search *s, const gg_variant *base, double base_score, int prof,
                      const char *what, gg_fetch paths[2], unsigned only)
{
    const gg_fix *f = &s->cfg.fix;
    double score[GG_FETCH_COUNT] = {0};
    score[base->fetch] = base_score;
    gg_variant vs[GG_FETCH_COUNT];
    int nv = 0;
    for (int p = 0; p < GG_FETCH_COUNT; p++) {
        if (p == (int)base->fetch || (only && !(only & (1u << p))))
            continue;
        gg_variant v = *base;
        v.fetch = (gg_fetch)p;
        char why[256];
        if (gs_card_status(s, &v, why, sizeof why) == GG_INVALID && prof >= 0 &&
            !(f->mask & GG_KEY_PROFILE))
            v.profile = (gg_profile)prof;
        if (gs_allowed(s, &v, 1))
            vs[nv++] = v;
    }
    for (int i = 0; i < nv; i++) {
        gs_hint(s, vs + i + 1, nv - i - 1);
        int lr = gs_look(s, &vs[i], &score[vs[i].fetch]);
        if (lr)
            return lr < 0 ? -1 : -2;
    }
    int n = 0;
    char note[256];
    size_t o = 0;
    for (int k = 0; k < GG_FETCH_COUNT; k++) {
        int top = -1;
        for (int p = 0; p < GG_FETCH_COUNT; p++)
            if (score[p] > 0 && (top < 0 || score[p] > score[top]))
                top = p;
        if (top < 0)
            break;
        o += (size_t)snprintf(note + o, o < sizeof note ? sizeof note - o : 0, "%s%s %.3g",
                              k ? ", " : "", gen_fetch_name((gg_fetch)top), score[top]);
        if (n < 2)
            paths[n++] = (gg_fetch)top;
        score[top] = 0;
        if (o >= sizeof note)
            break;
    }
    char bt[GG_VARIANT_TEXT];
    if (n == 0) {
        gs_note(s, "fetch paths on %s %s: none ran", what, gen_variant_format(base, bt, sizeof bt));
        return 0;
    }
    gs_note(s, "fetch paths on %s %s: %s GFLOP/s", what, gen_variant_format(base, bt, sizeof bt), note);
    return n;
}

/* A block variant of the searched store with --fix's keys where it holds
 * them: out=image, acc=pingpong, unroll=0, glsl, the image profile. */
static gg_variant block_point(const gg_search *s, int prof, gg_shape mc, gg_shape blk, gg_fetch fetch, int np)
{
    const gg_fix *f = &s->cfg.fix;
    gg_variant v;
    gen_variant_default(&v);
    v.out = GG_OUT_IMAGE;
    v.mc = (f->mask & GG_KEY_MC) ? f->v.mc : mc;
    v.blk = (f->mask & GG_KEY_BLK) ? f->v.blk : blk;
    v.fetch = (f->mask & GG_KEY_FETCH) ? f->v.fetch : fetch;
    v.np = (f->mask & GG_KEY_NP) ? f->v.np : np;
    v.profile = (gg_profile)prof;
    v.unroll = (f->mask & GG_KEY_UNROLL) ? f->v.unroll : 0;
    v.compiler = (f->mask & GG_KEY_COMPILER) ? f->v.compiler : GG_COMPILER_GLSL;
    v.acc = (f->mask & GG_KEY_ACC) ? f->v.acc : GG_ACC_PINGPONG;
    v.store = f->v.store;
    v.tile = f->v.tile; /* --fix's or none */
    v.tile_order = f->v.tile_order;
    v.ku = v.unroll ? 1 : f->v.ku;
    v.order = f->v.order;
    return v;
}

/* Fetch paths for the blocks: the representative block (mc 1x4, blk 8x8,
 * np=all, or what --fix holds) by each path. */
static int block_fetch_paths(gg_search *s, int prof, gg_fetch paths[2])
{
    const gg_fix *f = &s->cfg.fix;
    if (f->mask & GG_KEY_FETCH) {
        paths[0] = f->v.fetch;
        return 1;
    }
    const gg_shape *mcs;
    bool wide = gen_store_wide(s->cfg.fix.v.store);
    block_mcs(s, &mcs);
    /* dd: 4x8, a quarter of 8x8's 256 words the sums (f64's 128) */
    gg_shape rblk = s->cfg.fix.v.store == GG_STORE_DD ? (gg_shape){4, 8} : (gg_shape){8, 8};
    gg_variant r = block_point(s, prof, wide ? mcs[0] : (gg_shape){1, 4}, rblk, GG_FETCH_TEXTURE,
                               GG_NP_ALL);
    double rs = 0;
    if (!search_variant_normalize(&r, s->cfg.m, s->cfg.n, s->cfg.k) && gs_allowed(s, &r, 1)) {
        int lr = gs_look(s, &r, &rs);
        if (lr)
            return lr < 0 ? -1 : -2;
    }
    int n = fetch_step(s, &r, rs, prof, "the representative block", paths, 0);
    if (n == 0) {
        paths[0] = GG_FETCH_TEXTURE;
        paths[1] = GG_FETCH_TEXELFETCH;
        n = 2;
    }
    return n;
}

int gs_blocks_phase(gg_search *s)
{
    const gg_fix *f = &s->cfg.fix;
    int prof = image_profile(s);
    if (prof < 0) {
        gs_note(s, "blocks: no OpenGL 4.3 core or ES 3.1 context, so no out=image variant");
        return 0;
    }
    gg_fetch paths[2];
    int np_paths = block_fetch_paths(s, prof, paths);
    if (np_paths < 0)
        return np_paths == -1 ? -1 : 0;
    s->nblock_paths = np_paths;
    for (int q = 0; q < np_paths; q++)
        s->block_paths[q] = (int)paths[q];
    int nps[2] = {GG_NP_ALL, 16}, nnp = 2;
    if (f->mask & GG_KEY_NP) {
        nps[0] = f->v.np;
        nnp = 1;
    }
    /* Two stages (the points are the block's dominant cost on llvmpipe,
     * where each is mostly the shader's compile at its first draw): every
     * mc x blk on the fastest path at the first np; then the BLOCK_TOP best
     * of those also on the other path and at the other np.  Checked against
     * every committed tuning record with the blocks (llvmpipe 256^3 and
     * 1024^3, H100 1024^3 and 4096^3, H200 1024^3 and 4096^3): no block
     * below the 4 best on one path at np=all was the best on another path
     * or at np=16. */
    const gg_shape *mcs, *blks;
    size_t nmc = block_mcs(s, &mcs), nblk = block_blks(s, &blks);
    size_t cap = nmc * nblk * 2 * 2;
    gg_variant *pts = malloc(cap * sizeof *pts);
    double *sc = calloc(cap, sizeof *sc);
    unsigned char *run = calloc(cap, 1);
    int *blk_of = calloc(cap, sizeof *blk_of); /* the stage-A block a point belongs to */
    if (!pts || !sc || !run || !blk_of) {
        free(pts);
        free(sc);
        free(run);
        free(blk_of);
        return -1;
    }
    int n = 0, na = 0;
    for (int stage = 0; stage < 2; stage++) {
        for (size_t i = 0; i < ((f->mask & GG_KEY_MC) ? 1 : nmc); i++)
            for (size_t j = 0; j < ((f->mask & GG_KEY_BLK) ? 1 : nblk); j++)
                for (int q = 0; q < np_paths; q++)
                    for (int z = 0; z < nnp; z++) {
                        if ((stage == 0) != (q == 0 && z == 0))
                            continue;
                        gg_variant v = block_point(s, prof, mcs[i], blks[j], paths[q], nps[z]);
                        if (v.blk.rows % v.mc.rows || v.blk.cols % v.mc.cols)
                            continue;
                        if (search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k))
                            continue;
                        bool dup = false;
                        for (int d = 0; d < n && !dup; d++)
                            dup = gen_variant_equal(&pts[d], &v);
                        if (dup || !gs_allowed(s, &v, 1))
                            continue;
                        blk_of[n] = (int)(i * nblk + j);
                        pts[n++] = v;
                    }
        if (stage == 0)
            na = n; /* pts[0..na): stage A, pts[na..n): stage B */
    }
    int per = np_paths * nnp - 1;
    int nb_est = n - na < BLOCK_TOP * per ? n - na : BLOCK_TOP * per;
    gs_plan(s, s->st.visited + na + nb_est + gs_alg1_estimate(s));
    gg_variant best = n ? pts[0] : block_point(s, prof, mcs[0], blks[0], paths[0], GG_NP_ALL);
    double bs = 0;
    int rc = 0, looked = 0, top_n = 0;
    int stopped = 0;
    memset(run, GS_TODO, (size_t)na);
    int lr = gs_run_marked(s, pts, n, run, sc, &best, &bs, &looked, false, 0, &stopped);
    int ran_a = looked;
    if (!lr) {
        /* stage B: the rest of the points of the BLOCK_TOP best blocks */
        int top[BLOCK_TOP];
        for (int d = 0; d < na; d++) {
            if (!(sc[d] > 0))
                continue;
            int at = top_n < BLOCK_TOP ? top_n++ : sc[d] > sc[top[BLOCK_TOP - 1]] ? BLOCK_TOP - 1 : -1;
            if (at < 0)
                continue;
            top[at] = d;
            for (; at > 0 && sc[top[at]] > sc[top[at - 1]]; at--) {
                int t = top[at];
                top[at] = top[at - 1];
                top[at - 1] = t;
            }
        }
        for (int d = na; d < n; d++)
            for (int t = 0; t < top_n && run[d] != GS_TODO; t++)
                run[d] = blk_of[d] == blk_of[top[t]] ? GS_TODO : GS_SKIP;
        lr = gs_run_marked(s, pts, n, run, sc, &best, &bs, &looked, false, 0, &stopped);
    }
    if (lr) {
        rc = lr < 0 ? -1 : 0;
        goto out;
    }
    char bt[GG_VARIANT_TEXT];
    if (bs <= 0) {
        gs_note(s, "blocks: no out=image variant ran (%d tried)", n);
        goto out;
    }
    long evals = 0;
    if (!(f->mask & GG_KEY_NP))
        rc = gs_refine_np(s, &best, &evals) < 0 ? -1 : 0;
    gg_variant b2;
    double s2;
    memo_best(s, GG_OUT_IMAGE, &b2, &s2);
    gs_note(s, "blocks: %d of %d points (%d on fetch=%s at the first np; the other path and np on "
               "the %d best), best %s at %.3g GFLOP/s; Algorithm 1 (%ld points) -> %s, %.3g "
               "GFLOP/s", looked, n, ran_a, gen_fetch_name(paths[0]), top_n,
            gen_variant_format(&best, bt, sizeof bt), bs, evals,
            gen_variant_format(&b2, (char[GG_VARIANT_TEXT]){0}, GG_VARIANT_TEXT), s2);
out:
    free(pts);
    free(sc);
    free(run);
    free(blk_of);
    return rc;
}

/* After the paper's search: its best out=rt point by each other fetch path. */
int gs_rt_fetch_paths(gg_search *s)
{
    gg_variant best;
    double bs;
    gg_fetch paths[2];
    if ((s->cfg.fix.mask & GG_KEY_FETCH) || !memo_best(s, GG_OUT_RT, &best, &bs))
        return 0;
    /* Only the paths the blocks went on with (the two fastest at the
     * representative block), where they ran: in every committed tune the
     * best out=rt point's best path other than texture was one of those
     * two, and the others cost as much as any point to measure (at 256^3 on
     * llvmpipe the best point is often np=all, 2-3 s of compile a path, and
     * fetch=ubo there ran past the 11 s deadline). */
    unsigned only = 0;
    for (int q = 0; q < s->nblock_paths; q++)
        only |= 1u << s->block_paths[q];
    int n = fetch_step(s, &best, bs, image_profile(s), "the best out=rt point", paths, only);
    if (only) {
        char skipped[96] = "";
        size_t o = 0;
        for (int p = 0; p < GG_FETCH_COUNT; p++)
            if (p != (int)best.fetch && !(only & (1u << p)))
                o += (size_t)snprintf(skipped + o, o < sizeof skipped ? sizeof skipped - o : 0, "%s%s",
                                      o ? ", " : "", gen_fetch_name((gg_fetch)p));
        if (skipped[0])
            gs_note(s, "fetch paths on the best out=rt point: not tried: %s (not among the two "
                       "fastest at the representative block)", skipped);
    }
    return n == -1 ? -1 : 0;
}
