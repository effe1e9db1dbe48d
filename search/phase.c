/* The paper's search (Jiang & Snir, Section 5.4), after a screening step.
 *
 * Screening: every outer combination (compiler, profile, unroll, acc) that
 * --fix and the card allow runs one representative point (mc 2x2, mrt 2x2
 * or 1x1, np 16, or what --fix holds).  Combinations scoring within
 * screen_within of the best are kept, at most screen_keep of them, best
 * first; the notes say what was dropped and why.
 *
 * Algorithm 2, for each kept combination: np over powers of two below
 * ksteps, and all, each with every mc and mrt of the pruned sets; then
 * Algorithm 1 around the best np, with the best mc and mrt fixed.
 *
 * Algorithm 1, find_np(start, length, dir): the points start + dir*p for
 * p = 1, 2, 4, ... up to length (start + dir*length is already known: an
 * evaluated neighbour or the end of the range), until the rate falls to or
 * below the lower of the last two; then the same on both sides of the best
 * point found, over the gaps to its evaluated neighbours, until a gap is no
 * longer than np_threshold.
 *
 * Past the 32-output cap, first (so that the bound, search.h, can skip
 * the paper's points that cannot reach the blocks where they are faster):
 *  - Fetch: the representative block (out=image, mc 1x4, blk 8x8, np=all)
 *    by each fetch path the card allows; the two fastest paths go on.
 *  - Blocks: out=image, acc=pingpong, unroll=0, the newest profile the card
 *    has (430, else 310es), mc 1x4, 2x2 and 4x1, blk over the set below, each
 *    kept fetch path, np=all and 16; then Algorithm 1 on the best block's np.
 * Then the paper's search (out=rt, with the fetch --fix holds, texture by
 * default), and last its best point by each other fetch path (not with
 * --fix out=rt or mrt: then the paper's search alone).
 * --fix out=image (or blk) skips the paper's search, --fix out=rt the rest. */
#include "search/search_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    gg_search *s;
    gg_variant base; /* mc, mrt and outer keys fixed */
    int ksteps;
    int rc;          /* 0, 1 budget spent, -1 stop */
    long evals;      /* points looked at by Algorithm 1 */
} np_search;

static double score_np(np_search *ns, int np)
{
    gg_variant v = ns->base;
    v.np = np >= ns->ksteps ? GG_NP_ALL : np;
    double sc = 0;
    if (ns->rc == 0) {
        ns->rc = gs_look(ns->s, &v, &sc);
        ns->evals++;
    }
    return sc;
}

static void find_np(np_search *ns, int start, int length, int dir)
{
    if (length <= ns->s->cfg.np_threshold || ns->rc)
        return;
    double f0 = score_np(ns, start);
    double best = f0;
    int best_p = 0;
    double last[2] = {f0, f0};
    for (int p = 1; p <= length && ns->rc == 0; p *= 2) {
        int np = start + dir * p;
        if (np < 1 || np > ns->ksteps)
            break;
        double f = score_np(ns, np);
        if (f > best) {
            best = f;
            best_p = p;
        }
        double lo = last[0] < last[1] ? last[0] : last[1];
        if (f <= lo)
            break;
        last[0] = last[1];
        last[1] = f;
    }
    if (best_p == 0 || ns->rc)
        return; /* start stays best: its neighbour start + dir is known */
    int best_np = start + dir * best_p;
    int inner = best_p - best_p / 2;                                   /* back to start + dir*best_p/2 */
    int outer = (2 * best_p < length ? 2 * best_p : length) - best_p; /* on to the next known point */
    find_np(ns, best_np, inner, -dir);
    find_np(ns, best_np, outer, dir);
}

static int pow2_below(int x)
{
    int p = 1;
    while (p * 2 < x)
        p *= 2;
    return p < x ? p : 0;
}

static int pow2_above(int x)
{
    int p = 1;
    while (p <= x)
        p *= 2;
    return p;
}

/* Algorithm 1 from np0, the best of step 4 (np0 in 1..ksteps): over the
 * gaps to the nearest powers of two on each side, which step 4 evaluated. */
static int refine_np(gg_search *s, const gg_variant *best, long *evals)
{
    np_search ns = {s, *best, search_ksteps(best->mc, s->cfg.k), 0, 0};
    int np0 = best->np == GG_NP_ALL ? ns.ksteps : best->np;
    int left = pow2_below(np0);
    int right = pow2_above(np0);
    if (right > ns.ksteps)
        right = ns.ksteps;
    find_np(&ns, np0, np0 - left, -1);
    find_np(&ns, np0, right - np0, 1);
    *evals = ns.evals;
    return ns.rc;
}

/* Step 4's points of one outer combination: powers of two (then all) x mc x
 * mrt, in the paper's loop order, that the card allows. */
static int step4_points(gg_search *s, const gg_variant *outer, gg_variant **out)
{
    gg_shape mcs[8], mrts[20];
    int nmc = gs_mc_set(s, false, mcs), nmrt = gs_mrt_set(s, false, mrts);
    int maxks = 1;
    for (int i = 0; i < nmc; i++)
        if (search_ksteps(mcs[i], s->cfg.k) > maxks)
            maxks = search_ksteps(mcs[i], s->cfg.k);
    int cap = 64 * nmc * nmrt, n = 0;
    gg_variant *pts = malloc((size_t)cap * sizeof *pts);
    if (!pts)
        return -1;
    bool np_fixed = s->cfg.fix.mask & GG_KEY_NP;
    for (long p = 1; p < 2L * maxks && n < cap; p *= 2) {
        for (int i = 0; i < nmc; i++) {
            int ks = search_ksteps(mcs[i], s->cfg.k), np;
            if (np_fixed)
                np = s->cfg.fix.v.np;
            else if (p < ks)
                np = (int)p;
            else if (p / 2 < ks || p == 1)
                np = GG_NP_ALL; /* the first power of two that reaches ksteps */
            else
                continue;
            for (int j = 0; j < nmrt && n < cap; j++) {
                gg_variant v = *outer;
                v.mc = mcs[i];
                v.mrt = mrts[j];
                v.np = np;
                search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k);
                if (gs_allowed(s, &v, 1))
                    pts[n++] = v;
            }
        }
        if (np_fixed)
            break;
    }
    *out = pts;
    return n;
}

static char *outer_text(const gg_variant *v, char *buf, size_t len)
{
    snprintf(buf, len, "compiler=%s,profile=%s,unroll=%d,acc=%s", gen_compiler_name(v->compiler),
             gen_profile_name(v->profile), v->unroll, gen_acc_name(v->acc));
    return buf;
}

typedef struct {
    gg_variant outer;
    gg_variant *pts;
    int npts;
    double score;    /* of the representative */
    gg_outcome rep;  /* its outcome */
    int order;
} combo;

static int by_score(const void *a, const void *b)
{
    const combo *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->order - y->order;
}

/* The representative of a combination: mc 2x2, mrt 2x2 (else 1x1), np 16,
 * where --fix does not say otherwise and the card allows; else its first
 * step-4 point. */
static gg_variant representative(gg_search *s, const combo *c)
{
    const gg_fix *f = &s->cfg.fix;
    gg_shape mrts[2] = {{2, 2}, {1, 1}};
    for (int i = 0; i < 2; i++) {
        gg_variant v = c->outer;
        v.mc = (f->mask & GG_KEY_MC) ? f->v.mc : (gg_shape){2, 2};
        v.mrt = (f->mask & GG_KEY_MRT) ? f->v.mrt : mrts[i];
        v.np = (f->mask & GG_KEY_NP) ? f->v.np : 16;
        char why[256];
        if (gs_card_status(s, &v, why, sizeof why) == GG_OK)
            return v;
    }
    return c->pts[0];
}

static long alg1_estimate(const gg_search *s)
{
    if (s->cfg.fix.mask & GG_KEY_NP)
        return 0;
    long e = 2;
    for (int ks = search_ksteps((gg_shape){1, 1}, s->cfg.k); ks > 1; ks /= 2)
        e += 2;
    return e;
}

static int rt_phase(gg_search *s)
{
    gg_variant outer[36];
    int no = gs_outer(s, outer);
    combo *cs = calloc((size_t)no + 1, sizeof *cs);
    if (!cs)
        return -1;
    int nc = 0, rc = 0;
    gg_variant pruned = s->cfg.fix.v;
    bool have_pruned = false;
    for (int i = 0; i < no; i++) {
        combo c = {.outer = outer[i], .order = i};
        c.npts = step4_points(s, &outer[i], &c.pts);
        if (c.npts < 0) {
            rc = -1;
            goto out;
        }
        if (c.npts == 0) {
            if (!have_pruned)
                pruned = outer[i];
            have_pruned = true;
            free(c.pts);
            continue;
        }
        cs[nc++] = c;
    }
    if (nc == 0) {
        double sc;
        gs_note(s, "nothing to search: the card rules out every variant --fix allows");
        rc = gs_look(s, &pruned, &sc) < 0 ? -1 : 0;
        goto out;
    }
    long a1 = alg1_estimate(s);
    int keep = nc;
    if (nc > 1 && s->cfg.screen_keep > 0 && s->cfg.screen_keep < keep)
        keep = s->cfg.screen_keep;
    gs_plan(s, s->st.visited + (nc > 1 ? nc : 0) + keep * (cs[0].npts + a1));

    /* Screening. */
    if (nc > 1) {
        for (int i = 0; i < nc; i++) {
            gg_variant r = representative(s, &cs[i]);
            int lr = gs_look(s, &r, &cs[i].score);
            if (lr) {
                rc = lr < 0 ? -1 : 0;
                goto out;
            }
            gs_entry *e = NULL;
            search_variant_normalize(&r, s->cfg.m, s->cfg.n, s->cfg.k);
            e = gs_memo_find(s, gs_key(&r));
            if (e)
                cs[i].rep = e->o;
        }
        qsort(cs, (size_t)nc, sizeof *cs, by_score);
        double top = cs[0].score;
        char ot[128], rt[GG_VARIANT_TEXT];
        if (top <= 0) {
            gs_note(s, "screening: no outer combination ran its representative; kept the first %d "
                       "in loop order", keep);
            for (int i = 0; i < nc; i++)
                cs[i].score = -cs[i].order; /* back to loop order */
            qsort(cs, (size_t)nc, sizeof *cs, by_score);
        } else {
            int kept = 0;
            for (int i = 0; i < nc; i++) {
                gg_variant r = representative(s, &cs[i]);
                outer_text(&cs[i].outer, ot, sizeof ot);
                if (cs[i].score <= 0) {
                    gs_note(s, "screening dropped %s: %s at the representative %s", ot,
                            base_status_name(cs[i].rep.status), gen_variant_format(&r, rt, sizeof rt));
                } else if (cs[i].score < (1 - s->cfg.screen_within) * top) {
                    gs_note(s, "screening dropped %s: %.3g GFLOP/s at the representative, %.0f%% of "
                               "the best combination's %.3g (keeps those within %.0f%%)",
                            ot, cs[i].score, 100 * cs[i].score / top, top,
                            100 * s->cfg.screen_within);
                } else if (s->cfg.screen_keep > 0 && kept >= s->cfg.screen_keep) {
                    gs_note(s, "screening dropped %s: %.3g GFLOP/s at the representative, within "
                               "%.0f%% of the best but beyond the %d kept",
                            ot, cs[i].score, 100 * s->cfg.screen_within, s->cfg.screen_keep);
                } else {
                    kept++;
                    continue;
                }
            }
            keep = kept;
        }
        long planned = s->st.visited;
        for (int i = 0; i < keep; i++)
            planned += cs[i].npts + a1;
        gs_plan(s, planned);
    }

    /* Algorithm 2 on each kept combination, best first. */
    for (int i = 0; i < keep; i++) {
        combo *c = &cs[i];
        gg_variant best = c->pts[0];
        double bs = 0;
        for (int j = 0; j < c->npts; j++) {
            double sc;
            gs_hint(s, &c->pts[j + 1], c->npts - j - 1 < 8 ? c->npts - j - 1 : 8);
            int lr = gs_look(s, &c->pts[j], &sc);
            if (lr) {
                rc = lr < 0 ? -1 : 0;
                goto out;
            }
            if (sc > bs) {
                bs = sc;
                best = c->pts[j];
            }
        }
        char ot[128], bt[GG_VARIANT_TEXT];
        outer_text(&c->outer, ot, sizeof ot);
        if (bs <= 0) {
            gs_note(s, "phase %s: no variant ran (%d tried)", ot, c->npts);
            continue;
        }
        if (s->cfg.fix.mask & GG_KEY_NP) {
            gs_note(s, "phase %s: best %s, %.3g GFLOP/s", ot, gen_variant_format(&best, bt, sizeof bt), bs);
            continue;
        }
        long evals = 0;
        int lr = refine_np(s, &best, &evals);
        gg_variant b2 = best;
        double s2 = bs;
        int ks = search_ksteps(best.mc, s->cfg.k);
        for (int np = 1; np <= ks; np++) { /* the best Algorithm 1 saw, from the memo */
            gg_variant v = best;
            v.np = np >= ks ? GG_NP_ALL : np;
            gs_entry *e = gs_memo_find(s, gs_key(&v));
            if (e && e->visited && search_outcome_score(&e->o) > s2) {
                s2 = search_outcome_score(&e->o);
                b2 = v;
            }
        }
        char st4[GG_VARIANT_TEXT];
        gs_note(s, "phase %s: step 4 best %s at %.3g GFLOP/s; Algorithm 1 (%ld points) -> np=%s%s, %.3g GFLOP/s",
                ot, gen_variant_format(&best, st4, sizeof st4), bs, evals,
                b2.np == GG_NP_ALL ? "all" : (snprintf(bt, sizeof bt, "%d", b2.np), bt),
                lr > 0 ? " (budget spent)" : "", s2);
        if (lr) {
            rc = lr < 0 ? -1 : 0;
            goto out;
        }
    }
out:
    for (int i = 0; i < nc; i++)
        free(cs[i].pts);
    free(cs);
    return rc;
}

/* ---- past the 32-output cap ---- */

/* Rows x columns of C a fragment computes: around the 8 x 4-channel
 * targets' 32, up to 256 (larger blocks spill their registers). */
static const gg_shape blk_set[] = {{4, 8}, {8, 4}, {8, 8}, {4, 16}, {16, 4},
                                   {8, 16}, {16, 8}, {16, 16}};
static const gg_shape blk_mc[] = {{1, 4}, {2, 2}, {4, 1}};

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
                      const char *what, gg_fetch paths[2])
{
    const gg_fix *f = &s->cfg.fix;
    double score[GG_FETCH_COUNT] = {0};
    score[base->fetch] = base_score;
    for (int p = 0; p < GG_FETCH_COUNT; p++) {
        if (p == (int)base->fetch)
            continue;
        gg_variant v = *base;
        v.fetch = (gg_fetch)p;
        char why[256];
        if (gs_card_status(s, &v, why, sizeof why) == GG_INVALID && prof >= 0 &&
            !(f->mask & GG_KEY_PROFILE))
            v.profile = (gg_profile)prof;
        if (!gs_allowed(s, &v, 1))
            continue;
        int lr = gs_look(s, &v, &score[p]);
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
    gg_variant r = block_point(s, prof, (gg_shape){1, 4}, (gg_shape){8, 8}, GG_FETCH_TEXTURE, GG_NP_ALL);
    double rs = 0;
    if (!search_variant_normalize(&r, s->cfg.m, s->cfg.n, s->cfg.k) && gs_allowed(s, &r, 1)) {
        int lr = gs_look(s, &r, &rs);
        if (lr)
            return lr < 0 ? -1 : -2;
    }
    int n = fetch_step(s, &r, rs, prof, "the representative block", paths);
    if (n == 0) {
        paths[0] = GG_FETCH_TEXTURE;
        paths[1] = GG_FETCH_TEXELFETCH;
        n = 2;
    }
    return n;
}

static int blocks_phase(gg_search *s)
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
    int nps[2] = {GG_NP_ALL, 16}, nnp = 2;
    if (f->mask & GG_KEY_NP) {
        nps[0] = f->v.np;
        nnp = 1;
    }
    size_t nmc = sizeof blk_mc / sizeof *blk_mc, nblk = sizeof blk_set / sizeof *blk_set;
    gg_variant *pts = malloc(nmc * nblk * 2 * 2 * sizeof *pts);
    if (!pts)
        return -1;
    int n = 0;
    for (size_t i = 0; i < ((f->mask & GG_KEY_MC) ? 1 : nmc); i++)
        for (size_t j = 0; j < ((f->mask & GG_KEY_BLK) ? 1 : nblk); j++)
            for (int q = 0; q < np_paths; q++)
                for (int z = 0; z < nnp; z++) {
                    gg_variant v = block_point(s, prof, blk_mc[i], blk_set[j], paths[q], nps[z]);
                    if (v.blk.rows % v.mc.rows || v.blk.cols % v.mc.cols)
                        continue;
                    if (search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k))
                        continue;
                    bool dup = false;
                    for (int d = 0; d < n && !dup; d++)
                        dup = gen_variant_equal(&pts[d], &v);
                    if (!dup && gs_allowed(s, &v, 1))
                        pts[n++] = v;
                }
    gs_plan(s, s->st.visited + n + alg1_estimate(s));
    gg_variant best = n ? pts[0] : block_point(s, prof, blk_mc[0], blk_set[0], paths[0], GG_NP_ALL);
    double bs = 0;
    int rc = 0;
    for (int j = 0; j < n; j++) {
        double sc;
        gs_hint(s, &pts[j + 1], n - j - 1 < 8 ? n - j - 1 : 8);
        int lr = gs_look(s, &pts[j], &sc);
        if (lr) {
            rc = lr < 0 ? -1 : 0;
            goto out;
        }
        if (sc > bs) {
            bs = sc;
            best = pts[j];
        }
    }
    char bt[GG_VARIANT_TEXT];
    if (bs <= 0) {
        gs_note(s, "blocks: no out=image variant ran (%d tried)", n);
        goto out;
    }
    long evals = 0;
    if (!(f->mask & GG_KEY_NP))
        rc = refine_np(s, &best, &evals) < 0 ? -1 : 0;
    gg_variant b2;
    double s2;
    memo_best(s, GG_OUT_IMAGE, &b2, &s2);
    gs_note(s, "blocks: %d points, best %s at %.3g GFLOP/s; Algorithm 1 (%ld points) -> %s, %.3g "
               "GFLOP/s", n, gen_variant_format(&best, bt, sizeof bt), bs, evals,
            gen_variant_format(&b2, (char[GG_VARIANT_TEXT]){0}, GG_VARIANT_TEXT), s2);
out:
    free(pts);
    return rc;
}

/* After the paper's search: its best out=rt point by each other fetch path. */
static int rt_fetch_paths(gg_search *s)
{
    gg_variant best;
    double bs;
    gg_fetch paths[2];
    if ((s->cfg.fix.mask & GG_KEY_FETCH) || !memo_best(s, GG_OUT_RT, &best, &bs))
        return 0;
    int n = fetch_step(s, &best, bs, image_profile(s), "the best out=rt point", paths);
    return n == -1 ? -1 : 0;
}

static bool budget_spent(const gg_search *s)
{
    return s->cfg.budget > 0 && s->st.visited >= s->cfg.budget;
}

int gs_phase(gg_search *s)
{
    const gg_fix *f = &s->cfg.fix;
    bool image_only = ((f->mask & GG_KEY_OUT) && f->v.out == GG_OUT_IMAGE) || (f->mask & GG_KEY_BLK);
    bool rt_only = ((f->mask & GG_KEY_OUT) && f->v.out == GG_OUT_RT) ||
                   ((f->mask & GG_KEY_MRT) && f->v.mrt.rows * f->v.mrt.cols > 1);
    if (image_only)
        return blocks_phase(s);
    /* The blocks first: where they are fast, the bound then skips the
     * paper's points that cannot reach them. */
    if (rt_only)
        return rt_phase(s);
    int rc = blocks_phase(s);
    if (rc || budget_spent(s))
        return rc;
    rc = rt_phase(s);
    if (rc || budget_spent(s))
        return rc;
    return rt_fetch_paths(s);
}
