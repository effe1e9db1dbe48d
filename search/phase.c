/* search/phase: the phase strategy (a gs_strategy, search_int.h, run by
 * search.c): the paper's search (Jiang & Snir, Section 5.4), after a
 * screening step.  Below search.c; calls space.c, visit.c, memo.c, notes.c
 * and fix.c, never another strategy.
 *
 * Screening: every outer combination (compiler, profile, unroll, acc) that
 * --fix and the card allow runs one representative point (mc 2x2, mrt 2x2
 * or 1x1, np 16, or what --fix holds).  Combinations scoring within
 * screen_within of the best are kept, at most screen_keep of them, best
 * first; the notes say what was dropped and why.
 *
 * Algorithm 2, for each kept combination: np over powers of two below
 * ksteps, and all, each with every mc and mrt of the pruned sets, in two
 * stages (step4_run below: every shape at every other power of two until
 * its rate falls, then the other powers on the 5 best shapes; the other
 * kept combinations on the first one's 5 best shapes only); then Algorithm
 * 1 around the best np, with the best mc and mrt fixed.
 *
 * Algorithm 1, find_np(start, length, dir): the points start + dir*p for
 * p = 1, 2, 4, ... up to length (start + dir*length is already known: an
 * evaluated neighbour or the end of the range), until the rate falls to or
 * below the lower of the last two; then the same on both sides of the best
 * point found, over the gaps to its evaluated neighbours, until a gap is no
 * longer than np_threshold.
 *
 * Past the 32-output cap (search/blocks.c), first (so that the bound, search.h, can skip
 * the paper's points that cannot reach the blocks where they are faster):
 *  - Fetch: the representative block (out=image, mc 1x4, blk 8x8, np=all)
 *    by each fetch path the card allows; the two fastest paths go on.
 *  - Blocks: out=image, acc=pingpong, unroll=0, the newest profile the card
 *    has (430, else 310es), mc 1x4, 2x2 and 4x1, blk over the set below, each
 *    kept fetch path, np=all and 16, in two stages (every mc x blk on the
 *    fastest path at np=all, then the rest on the 4 best of those); then
 *    Algorithm 1 on the best block's np.
 * Then the paper's search (out=rt, with the fetch --fix holds, texture by
 * default), and last its best point by each other fetch path the blocks
 * went on with (every other path where the blocks did not run; not with
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

/* The stride's next points start + dir*p, p = from, 2*from, ... (while the
 * rate keeps rising, Algorithm 1 looks at them next). */
static void hint_strides(np_search *ns, int start, int from, int length, int dir)
{
    gg_variant next[GG_SEARCH_HINTS];
    int nn = 0;
    for (int p = from; p <= length && nn < GG_SEARCH_HINTS; p *= 2) {
        int np = start + dir * p;
        if (np < 1 || np > ns->ksteps)
            break;
        next[nn] = ns->base;
        next[nn++].np = np >= ns->ksteps ? GG_NP_ALL : np;
    }
    gs_hint(ns->s, next, nn);
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
        hint_strides(ns, start, 2 * p, length, dir);
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
int gs_refine_np(gg_search *s, const gg_variant *best, long *evals)
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

/* ---- step 4 in two stages ----
 *
 * The paper's step 4 measures every shape (mc x mrt) at every power of two.
 * On llvmpipe a measurement is mostly the driver compiling the shader at
 * its first draw (0.1-3 s against a GEMM of a few ms, more the longer the
 * shader), so step 4 is where a tune spends its time.  The leader (the
 * first kept combination) measures every shape at every other power of two
 * (np 2, 8, 32, 128, ...; see coarse_np), np ascending, a shape until its
 * rate falls and, from np GATE_NP on, while it is within GATE of the best
 * shape; the STEP4_TOP shapes best there get the remaining powers of two up
 * to where their rate fell; the other kept combinations measure the
 * leader's STEP4_TOP best shapes only, np ascending until the rate falls.
 * Checked by replaying every committed tuning record with whole step-4
 * grids (llvmpipe 256^3 and 1024^3, H100 4096^3, H200 1024^3 and 4096^3)
 * and one from-scratch llvmpipe 256^3 tune: 11 combinations, 3 with
 * followers; the same best as the whole grid in each.  Algorithm 1 then
 * refines np around the best as before (a neighbour not measured yet is
 * measured there). */
#define STEP4_TOP 5
/* Stage A's gate: from np GATE_NP on (the longer shaders, which cost the
 * most to compile), a shape goes on only while its best is at least GATE
 * of the best shape's at the start of that np.  With 0.6 the same best as
 * the whole grid on every committed record (0.8 missed one H200 point by
 * 3%). */
#define GATE_NP 32
#define GATE 0.6

typedef struct {
    gg_shape mc[STEP4_TOP], mrt[STEP4_TOP];
    int n;
} shape_top;

static bool same_shape(gg_shape a, gg_shape b) { return a.rows == b.rows && a.cols == b.cols; }

static bool in_top(const shape_top *t, const gg_variant *v)
{
    for (int i = 0; i < t->n; i++)
        if (same_shape(t->mc[i], v->mc) && same_shape(t->mrt[i], v->mrt))
            return true;
    return false;
}

/* A power of two with an odd exponent (np 2, 8, 32, 128, ...); np=all
 * counts as the power of two its k-steps round up to (at k = 256: 256 for
 * mc 1x1, 128 for 1x2 and 2x2, 64 for 1x4 and 4x1), so that the longest
 * shaders, whose compile dominates a measurement on llvmpipe (2-3 s at
 * 256^3 against 0.1-0.2 s at np 2-16), wait for stage B on the shapes
 * where np=all is not coarse.  Anything else (an np --fix holds) is coarse. */
static long np_value(const gg_search *s, const gg_variant *v)
{
    long np = v->np;
    if (v->np == GG_NP_ALL)
        for (np = 1; np < search_ksteps(v->mc, s->cfg.k); np *= 2)
            ;
    return np;
}

static bool coarse_np(const gg_search *s, const gg_variant *v)
{
    long np = np_value(s, v);
    int e = 0;
    while ((1L << e) < np)
        e++;
    return e % 2 == 1 || (1L << e) != np;
}

/* The STEP4_TOP shapes of pts[0..n) with the best scores (sc[], 0 never). */
static void top_shapes(const gg_variant *pts, const double *sc, int n, shape_top *t)
{
    t->n = 0;
    double best[STEP4_TOP];
    for (int j = 0; j < n; j++) {
        if (!(sc[j] > 0))
            continue;
        int at = -1;
        for (int i = 0; i < t->n; i++)
            if (same_shape(t->mc[i], pts[j].mc) && same_shape(t->mrt[i], pts[j].mrt))
                at = i;
        if (at >= 0 && sc[j] <= best[at])
            continue;
        if (at < 0) {
            /* a new shape: in only when there is room or it beats the last */
            if (t->n < STEP4_TOP)
                at = t->n++;
            else if (sc[j] > best[t->n - 1])
                at = t->n - 1;
            else
                continue;
        }
        t->mc[at] = pts[j].mc;
        t->mrt[at] = pts[j].mrt;
        best[at] = sc[j];
        for (; at > 0 && best[at] > best[at - 1]; at--) { /* keep best first */
            double b = best[at];
            best[at] = best[at - 1];
            best[at - 1] = b;
            gg_shape m = t->mc[at], r = t->mrt[at];
            t->mc[at] = t->mc[at - 1];
            t->mrt[at] = t->mrt[at - 1];
            t->mc[at - 1] = m;
            t->mrt[at - 1] = r;
        }
    }
}

/* Whether v's shape is among the nsh of gs_run_marked and stopped there. */
static bool shape_off(const gg_shape *smc, const gg_shape *smrt, const bool *off, int nsh,
                      const gg_variant *v)
{
    for (int i = 0; i < nsh; i++)
        if (same_shape(smc[i], v->mc) && same_shape(smrt[i], v->mrt))
            return off[i];
    return false;
}

/* Looks at the points of pts[0..n) marked GS_TODO, in order (hinting the next
 * ones), and marks them GS_DONE; sc[j] gets each score, *best / *bs the best.
 * With falling, a shape (mc x mrt) whose latest score fell below its one
 * before (both ran) is not looked at further in this call (its points stay
 * GS_TODO): the points come np ascending, so its curve has passed its peak
 * (the stopping rule of Algorithm 1, on one side).  0, or gs_look's 1 / -1. */
int gs_run_marked(gg_search *s, const gg_variant *pts, int n, unsigned char *run, double *sc,
                  gg_variant *best, double *bs, int *looked, bool falling, double gate,
                  int *stopped)
{
    long level = -1;     /* np of the points being looked at (np ascending) */
    double level_top = 0, top = 0; /* the best score at that level's start, and now */
    enum { MAXSH = 64 };
    gg_shape smc[MAXSH], smrt[MAXSH];
    double last[MAXSH], best_sh[MAXSH];
    bool off[MAXSH];
    int nsh = 0;
    for (int j = 0; j < n; j++) {
        if (run[j] != GS_TODO)
            continue;
        int sh = -1;
        if (falling) {
            for (int i = 0; i < nsh && sh < 0; i++)
                if (same_shape(smc[i], pts[j].mc) && same_shape(smrt[i], pts[j].mrt))
                    sh = i;
            if (sh < 0 && nsh < MAXSH) {
                sh = nsh++;
                smc[sh] = pts[j].mc;
                smrt[sh] = pts[j].mrt;
                last[sh] = 0;
                best_sh[sh] = 0;
                off[sh] = false;
            }
            long npv = np_value(s, &pts[j]);
            if (npv != level) {
                level = npv;
                level_top = top;
            }
            /* the gate: from np GATE_NP on, only shapes within gate of the
             * best so far go on */
            if (sh >= 0 && !off[sh] && gate > 0 && npv >= GATE_NP && last[sh] > 0 &&
                best_sh[sh] < gate * level_top)
                off[sh] = true;
            if (sh >= 0 && off[sh]) {
                (*stopped)++;
                continue;
            }
        }
        gg_variant next[GG_SEARCH_HINTS];
        int nn = 0;
        for (int q = j + 1; q < n && nn < GG_SEARCH_HINTS; q++)
            if (run[q] == GS_TODO && !(falling && shape_off(smc, smrt, off, nsh, &pts[q])))
                next[nn++] = pts[q];
        gs_hint(s, next, nn);
        int lr = gs_look(s, &pts[j], &sc[j]);
        if (lr)
            return lr;
        run[j] = GS_DONE;
        (*looked)++;
        if (sc[j] > *bs) {
            *bs = sc[j];
            *best = pts[j];
        }
        if (sh >= 0 && sc[j] > 0) {
            if (last[sh] > 0 && sc[j] < last[sh])
                off[sh] = true;
            last[sh] = sc[j];
            if (sc[j] > best_sh[sh])
                best_sh[sh] = sc[j];
        }
        if (sc[j] > top)
            top = sc[j];
    }
    return 0;
}

/* Step 4 of one combination over pts[0..n) (the paper's order): see above.
 * only: the leader's best shapes (a follower), NULL for the leader, whose
 * best shapes go to *save.  how gets what ran, for the note. */
static int step4_run(gg_search *s, const gg_variant *pts, int n, const shape_top *only,
                     shape_top *save, gg_variant *best, double *bs, char *how, size_t hl,
                     bool leader)
{
    unsigned char *run = calloc((size_t)n + 1, 1);
    double *sc = calloc((size_t)n + 1, sizeof *sc);
    if (!run || !sc) {
        free(run);
        free(sc);
        return -1;
    }
    /* Distinct shapes: with STEP4_TOP or fewer (or np held) there is
     * nothing to choose, and every point runs. */
    shape_top all = {0};
    bool few = true;
    for (int j = 0; j < n && few; j++) {
        bool seen = false;
        for (int i = 0; i < all.n && !seen; i++)
            seen = same_shape(all.mc[i], pts[j].mc) && same_shape(all.mrt[i], pts[j].mrt);
        if (seen)
            continue;
        if (all.n == STEP4_TOP) {
            few = false;
            break;
        }
        all.mc[all.n] = pts[j].mc;
        all.mrt[all.n++] = pts[j].mrt;
    }
    bool np_fixed = s->cfg.fix.mask & GG_KEY_NP;
    int looked = 0, rc = 0, stopped = 0, beyond = 0;
    if (few || np_fixed || (!leader && (!only || only->n == 0))) {
        memset(run, GS_TODO, (size_t)n);
        rc = gs_run_marked(s, pts, n, run, sc, best, bs, &looked, false, 0, &stopped);
        snprintf(how, hl, "%d points", n);
    } else if (!leader) {
        for (int j = 0; j < n; j++)
            run[j] = in_top(only, &pts[j]) ? GS_TODO : GS_SKIP;
        rc = gs_run_marked(s, pts, n, run, sc, best, bs, &looked, true, 0, &stopped);
        snprintf(how, hl, "%d of %d points (the leader's %d best shapes, np ascending until the "
                          "rate falls)", looked, n, only->n);
    } else {
        for (int j = 0; j < n; j++)
            run[j] = coarse_np(s, &pts[j]) ? GS_TODO : GS_SKIP;
        rc = gs_run_marked(s, pts, n, run, sc, best, bs, &looked, true, GATE, &stopped);
        int coarse = looked;
        shape_top top = {0};
        if (!rc) {
            top_shapes(pts, sc, n, &top);
            for (int j = 0; j < n; j++)
                run[j] = run[j] != GS_DONE && in_top(&top, &pts[j]) ? GS_TODO : run[j] == GS_DONE ? GS_DONE : GS_SKIP;
            /* Not beyond the np where the shape's rate fell in stage A
             * (np ascending there): its peak lies below. */
            for (int t = 0; t < top.n; t++) {
                double prev = 0;
                long cut = -1;
                for (int j = 0; j < n && cut < 0; j++) {
                    if (run[j] != GS_DONE || !same_shape(pts[j].mc, top.mc[t]) ||
                        !same_shape(pts[j].mrt, top.mrt[t]) || !(sc[j] > 0))
                        continue;
                    if (prev > 0 && sc[j] < prev)
                        cut = np_value(s, &pts[j]);
                    prev = sc[j];
                }
                for (int j = 0; j < n && cut >= 0; j++)
                    if (run[j] == GS_TODO && same_shape(pts[j].mc, top.mc[t]) &&
                        same_shape(pts[j].mrt, top.mrt[t]) && np_value(s, &pts[j]) > cut) {
                        run[j] = GS_SKIP;
                        beyond++;
                    }
            }
            rc = gs_run_marked(s, pts, n, run, sc, best, bs, &looked, false, 0, &stopped);
        }
        snprintf(how, hl, "%d of %d points (%d at np 2, 8, 32, 128, ..., each shape until its "
                          "rate falls; every power of two up to there on the %d best shapes)",
                 looked, n, coarse, top.n);
    }
    if (save && leader)
        top_shapes(pts, sc, n, save);
    free(run);
    free(sc);
    return rc;
}

/* Rough count of the points step4_run looks at (the progress estimate): the
 * leader about half its grid, a follower its leader's best shapes. */
static long step4_estimate(int npts, int i)
{
    long follower = 8L * STEP4_TOP;
    return i == 0 ? npts / 2 + 1 : follower < npts ? follower : npts;
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

long gs_alg1_estimate(const gg_search *s)
{
    if (s->cfg.fix.mask & GG_KEY_NP)
        return 0;
    long e = 2;
    for (int ks = search_ksteps((gg_shape){1, 1}, s->cfg.k); ks > 1; ks /= 2)
        e += 2;
    return e;
}

int gs_rt_phase(gg_search *s)
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
    long a1 = gs_alg1_estimate(s);
    int keep = nc;
    if (nc > 1 && s->cfg.screen_keep > 0 && s->cfg.screen_keep < keep)
        keep = s->cfg.screen_keep;
    gs_plan(s, s->st.visited + (nc > 1 ? nc : 0) + step4_estimate(cs[0].npts, 0) + a1 +
                   (keep - 1) * (step4_estimate(cs[0].npts, 1) + a1));

    /* Screening. */
    if (nc > 1) {
        for (int i = 0; i < nc; i++) {
            gg_variant r = representative(s, &cs[i]), next[GG_SEARCH_HINTS];
            int nn = 0;
            for (int q = i + 1; q < nc && nn < GG_SEARCH_HINTS; q++)
                next[nn++] = representative(s, &cs[q]);
            gs_hint(s, next, nn);
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
            planned += step4_estimate(cs[i].npts, i) + a1;
        gs_plan(s, planned);
    }

    /* Algorithm 2 on each kept combination, best first: the first
     * (the leader) over every shape, the others over the leader's best
     * shapes (step4_run). */
    shape_top lead = {0};
    for (int i = 0; i < keep; i++) {
        combo *c = &cs[i];
        gg_variant best = c->pts[0];
        double bs = 0;
        char how[160];
        int sr = step4_run(s, c->pts, c->npts, i == 0 ? NULL : &lead, &lead, &best, &bs, how,
                           sizeof how, i == 0);
        if (sr) {
            rc = sr < 0 ? -1 : 0;
            goto out;
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
        int lr = gs_refine_np(s, &best, &evals);
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
        gs_note(s, "phase %s: step 4 %s, best %s at %.3g GFLOP/s; Algorithm 1 (%ld points) -> np=%s%s, %.3g GFLOP/s",
                ot, how, gen_variant_format(&best, st4, sizeof st4), bs, evals,
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
