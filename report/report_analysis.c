/* The numbers report.md states, computed from the loaded files: see
 * report.h.  Pure arithmetic; no files, no GL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "search/bound.h"
#include "report/report.h"

/* The keys Figures 7 and 8 hold fixed: all but mrt, mc and np (blk is 0x0
 * with out=rt, the only out they plot). */
static bool same_outer(const gg_variant *a, const gg_variant *b)
{
    return a->unroll == b->unroll && a->profile == b->profile && a->compiler == b->compiler &&
           a->acc == b->acc && a->store == b->store && a->out == b->out && a->fetch == b->fetch &&
           a->blk.rows == b->blk.rows && a->blk.cols == b->blk.cols;
}

static bool same_shape(gg_shape a, gg_shape b)
{
    return a.rows == b.rows && a.cols == b.cols;
}

static double score(const gg_report_rec *r)
{
    return r && r->m.status == GG_OK ? r->m.gflops : 0;
}

static bool is_pow2(int x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

bool report_curve_unimodal(const double *g, int n, double tol)
{
    if (n < 1)
        return false;
    int peak = 0;
    for (int i = 1; i < n; i++)
        if (g[i] > g[peak])
            peak = i;
    double run = g[0];
    for (int i = 1; i <= peak; i++) {
        if (g[i] < (1 - tol) * run)
            return false;
        if (g[i] > run)
            run = g[i];
    }
    run = g[n - 1];
    for (int i = n - 2; i >= peak; i--) {
        if (g[i] < (1 - tol) * run)
            return false;
        if (g[i] > run)
            run = g[i];
    }
    return true;
}

int report_curve_dips(const double *g, int n, int w, double drop, int *idx, int max)
{
    int count = 0;
    for (int i = 1; i + 1 < n; i++) {
        double left = 0, right = 0;
        for (int j = i - w; j < i; j++)
            if (j >= 0 && g[j] > left)
                left = g[j];
        for (int j = i + 1; j <= i + w; j++)
            if (j < n && g[j] > right)
                right = g[j];
        double side = left < right ? left : right;
        if (g[i] < (1 - drop) * side) {
            if (count < max)
                idx[count] = i;
            count++;
        }
    }
    return count < max ? count : max;
}

bool report_dips_sparse(int ndips, int npoints)
{
    return 4 * ndips <= npoints;
}

double report_curve_scatter(const double *g, const bool *skip, int n)
{
    if (n < 3)
        return 0;
    double *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return 0;
    int k = 0;
    for (int i = 1; i + 1 < n; i++)
        if (g[i] > 0 && !(skip && (skip[i - 1] || skip[i] || skip[i + 1])))
            d[k++] = fabs(g[i] - 0.5 * (g[i - 1] + g[i + 1])) / g[i];
    double med = 0;
    if (k) {
        med = base_median(d, k);
    }
    free(d);
    return med;
}

/* The figures hold the outer keys (unroll, profile, compiler, acc, fetch)
 * with the most ok out=rt records, where the search spent its effort (ties:
 * the best's); the base is the best ok record among them.  Figures 7 and 8
 * are the paper's, over mrt and mc: out=image records (no render targets)
 * are not theirs. */
static bool outer_key_equal(const gg_variant *a, const gg_variant *b)
{
    return a->unroll == b->unroll && a->profile == b->profile && a->compiler == b->compiler &&
           a->acc == b->acc && a->fetch == b->fetch;
}

static void pick_base(const gg_report_data *d, gg_findings *f)
{
    enum { NCOMBO = 2 * GG_PROFILE_COUNT * 2 * 3 * GG_FETCH_COUNT };
    long count[NCOMBO] = {0};
    long best_of[NCOMBO];
    int nc = 0;
    for (long i = 0; i < d->nrecs; i++) {
        const gg_variant *v = &d->recs[i].v;
        if (score(&d->recs[i]) <= 0 || v->out != GG_OUT_RT)
            continue;
        int c = 0;
        while (c < nc && !outer_key_equal(&d->recs[best_of[c]].v, v))
            c++;
        if (c == nc) {
            if (nc == NCOMBO)
                continue; /* cannot happen: every combination has its slot */
            best_of[nc++] = i;
        }
        count[c]++;
        if (score(&d->recs[i]) > score(&d->recs[best_of[c]]))
            best_of[c] = i;
    }
    int top = -1;
    for (int c = 0; c < nc; c++)
        if (top < 0 || count[c] > count[top] ||
            (count[c] == count[top] && score(&d->recs[best_of[c]]) > score(&d->recs[best_of[top]])))
            top = c;
    if (top < 0)
        return;
    f->base = d->recs[best_of[top]].v;
    f->have_base = true;
}

/* Adds rec's point to curve c (kept sorted by np). */
static void curve_add(gg_np_curve *c, const gg_report_data *d, const gg_report_rec *r)
{
    if (c->n >= GG_CURVE_MAX)
        return;
    gg_layout L;
    if (gen_layout_compute(&r->v, d->m, d->n, d->k, &L))
        return;
    int np = L.np;
    int at = c->n;
    while (at > 0 && c->np[at - 1] > np)
        at--;
    for (int j = c->n; j > at; j--) {
        c->np[j] = c->np[j - 1];
        c->all[j] = c->all[j - 1];
        c->gflops[j] = c->gflops[j - 1];
        c->passes[j] = c->passes[j - 1];
        c->kpad[j] = c->kpad[j - 1];
    }
    c->np[at] = np;
    c->all[at] = r->v.np == GG_NP_ALL;
    c->gflops[at] = score(r);
    c->passes[at] = L.passes;
    c->kpad[at] = L.kpad;
    c->n++;
}

static double curve_max(const gg_np_curve *c)
{
    double m = 0;
    for (int i = 0; i < c->n; i++)
        if (c->gflops[i] > m)
            m = c->gflops[i];
    return m;
}

/* Distinct (mc, mrt) pairs recorded with the base's outer keys. */
static int pairs_of(const gg_report_data *d, const gg_variant *base, gg_variant *out, int max)
{
    int n = 0;
    for (long i = 0; i < d->nrecs; i++) {
        const gg_variant *v = &d->recs[i].v;
        if (!same_outer(v, base))
            continue;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = same_shape(out[j].mc, v->mc) && same_shape(out[j].mrt, v->mrt);
        if (!seen && n < max)
            out[n++] = *v;
    }
    return n;
}

/* dense: every np; else only powers of two and all. */
static void build_curve(const gg_report_data *d, const gg_variant *pair, bool dense,
                        gg_np_curve *c)
{
    memset(c, 0, sizeof *c);
    c->base = *pair;
    for (long i = 0; i < d->nrecs; i++) {
        const gg_report_rec *r = &d->recs[i];
        if (!same_outer(&r->v, pair) || !same_shape(r->v.mc, pair->mc) ||
            !same_shape(r->v.mrt, pair->mrt))
            continue;
        if (dense || r->v.np == GG_NP_ALL || is_pow2(r->v.np))
            curve_add(c, d, r);
    }
}

static int non_pow2_points(const gg_np_curve *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += !c->all[i] && !is_pow2(c->np[i]);
    return n;
}

/* Sorts curves [from, n) by their maximum, largest first. */
static void sort_by_max(gg_np_curve *c, int from, int n)
{
    for (int i = from + 1; i < n; i++)
        for (int j = i; j > from && curve_max(&c[j]) > curve_max(&c[j - 1]); j--) {
            gg_np_curve t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
}

static int build_curves(const gg_report_data *d, const gg_variant *base, bool dense,
                        gg_np_curve **out)
{
    enum { MAXPAIRS = 256 };
    gg_variant pairs[MAXPAIRS];
    int np = pairs_of(d, base, pairs, MAXPAIRS);
    gg_np_curve *all = calloc((size_t)np + 1, sizeof *all);
    if (!all)
        return -1;
    int n = 0;
    for (int i = 0; i < np; i++) {
        build_curve(d, &pairs[i], dense, &all[n]);
        bool keep = dense ? non_pow2_points(&all[n]) >= 8 : all[n].n >= 3;
        if (keep)
            n++;
    }
    /* The base's pair first, then by maximum. */
    for (int i = 0; i < n; i++)
        if (same_shape(all[i].base.mc, base->mc) && same_shape(all[i].base.mrt, base->mrt)) {
            gg_np_curve t = all[0];
            all[0] = all[i];
            all[i] = t;
            sort_by_max(all, 1, n);
            *out = all;
            return n < GG_MAX_CURVES ? n : GG_MAX_CURVES;
        }
    sort_by_max(all, 0, n);
    *out = all;
    return n < GG_MAX_CURVES ? n : GG_MAX_CURVES;
}

static const int f8_nps[5] = {2, 4, 8, 16, 32};

/* The phase search's pruned sets (gen/gen.h): mc the paper's; mrt the
 * paper's, then each modern one where the base's outer keys recorded it. */
static void figure8(const gg_report_data *d, gg_findings *f)
{
    f->n_mrt = 0;
    for (int i = 0; i < GG_PRUNED_MRT; i++) {
        bool seen = i < GG_PAPER_MRT;
        for (long r = 0; r < d->nrecs && !seen; r++)
            seen = same_outer(&d->recs[r].v, &f->base) &&
                   same_shape(d->recs[r].v.mrt, gen_pruned_mrt[i]);
        if (seen)
            f->f8_mrt[f->n_mrt++] = gen_pruned_mrt[i];
    }
    for (int c = 0; c < GG_F8_MC; c++)
        f->f8_mc[c] = gen_pruned_mc[c];
    for (int r = 0; r < f->n_mrt; r++)
        for (int c = 0; c < GG_F8_MC; c++) {
            f->f8[r][c] = -1;
            f->f8_np[r][c] = -1;
            for (int i = 0; i < 5; i++) {
                gg_variant v = f->base;
                v.mrt = f->f8_mrt[r];
                v.mc = f->f8_mc[c];
                v.np = f8_nps[i];
                const gg_report_rec *rec = report_find(d, &v);
                if (!rec)
                    continue;
                if (score(rec) > f->f8[r][c]) {
                    f->f8[r][c] = score(rec);
                    f->f8_np[r][c] = rec->v.np;
                }
            }
        }
}

/* ratio of the best of column/row `hi` over the best of `lo` (Figure 8). */
static void f8_ratio(const gg_findings *f, bool by_mc, bool *have, double *ratio, double *lo,
                     double *hi)
{
    int a = 3, b = 0; /* indexes of 2x2 and of 1x1 in the set, for mc and mrt alike */
    int outer = by_mc ? f->n_mrt : GG_F8_MC;
    double top_a = 0, top_b = 0;
    *have = false;
    *lo = INFINITY;
    *hi = 0;
    for (int i = 0; i < outer; i++) {
        double va = by_mc ? f->f8[i][a] : f->f8[a][i];
        double vb = by_mc ? f->f8[i][b] : f->f8[b][i];
        if (va > top_a)
            top_a = va;
        if (vb > top_b)
            top_b = vb;
        if (va > 0 && vb > 0) {
            double r = va / vb;
            if (r < *lo)
                *lo = r;
            if (r > *hi)
                *hi = r;
        }
    }
    if (top_a > 0 && top_b > 0) {
        *have = true;
        *ratio = top_a / top_b;
    }
    if (!isfinite(*lo))
        *lo = *hi = 0;
}

static void unroll_finding(const gg_report_data *d, gg_findings *f)
{
    double logsum = 0;
    for (long i = 0; i < d->nrecs; i++) {
        const gg_report_rec *r = &d->recs[i];
        double s = score(r);
        if (r->v.unroll == 0 && s > f->best_u0)
            f->best_u0 = s;
        if (r->v.unroll == 1 && s > f->best_u1)
            f->best_u1 = s;
        if (r->v.unroll != 0 || s <= 0)
            continue;
        gg_variant w = r->v;
        w.unroll = 1;
        const gg_report_rec *p = report_find(d, &w);
        if (!p || score(p) <= 0)
            continue;
        f->unroll_pairs++;
        f->unroll0_wins += s >= score(p);
        logsum += log(score(p) / s);
    }
    f->unroll_geomean = f->unroll_pairs ? exp(logsum / f->unroll_pairs) : 0;
}

static void np_finding(const gg_report_data *d, gg_findings *f)
{
    f->pow2_curves = f->n7a;
    for (int i = 0; i < f->n7a; i++)
        f->pow2_unimodal += report_curve_unimodal(f->c7a[i].gflops, f->c7a[i].n, 0.05);
    for (int i = 0; i < f->n7b; i++) {
        const gg_np_curve *c = &f->c7b[i];
        int idx[GG_MAX_DIPS];
        f->ndips[i] = report_curve_dips(c->gflops, c->n, 2, 0.10, idx, GG_MAX_DIPS);
        for (int j = 0; j < f->ndips[i]; j++) {
            /* Measured again: still 10% below the neighbourhoods' smaller maximum? */
            gg_variant v = c->base;
            v.np = c->all[idx[j]] ? GG_NP_ALL : c->np[idx[j]];
            const gg_report_rec *a = report_find_again(d, &v);
            f->dip_again[i][j] = a ? score(a) : -1;
            if (!a)
                continue;
            f->dips_checked[i]++;
            double left = 0, right = 0;
            for (int q = idx[j] - 2; q < idx[j]; q++)
                if (q >= 0 && c->gflops[q] > left)
                    left = c->gflops[q];
            for (int q = idx[j] + 1; q <= idx[j] + 2; q++)
                if (q < c->n && c->gflops[q] > right)
                    right = c->gflops[q];
            f->dip_stayed[i][j] = score(a) < 0.9 * (left < right ? left : right);
            f->dips_repro[i] += f->dip_stayed[i][j];
        }
        bool dip[GG_CURVE_MAX] = {false};
        for (int j = 0; j < f->ndips[i]; j++) {
            f->dip_np[i][j] = c->np[idx[j]];
            f->dip_pad[i][j] = (double)c->kpad[idx[j]] / d->k;
            dip[idx[j]] = true;
        }
        double pad = 0;
        int npad = 0;
        f->dense_max[i] = f->dense_pow2_max[i] = -1;
        for (int j = 0; j < c->n; j++) {
            if (!dip[j]) {
                pad += (double)c->kpad[j] / d->k;
                npad++;
            }
            if (c->gflops[j] > f->dense_max[i]) {
                f->dense_max[i] = c->gflops[j];
                f->dense_argmax[i] = c->all[j] ? 0 : c->np[j];
            }
            if ((c->all[j] || is_pow2(c->np[j])) && c->gflops[j] > f->dense_pow2_max[i]) {
                f->dense_pow2_max[i] = c->gflops[j];
                f->dense_pow2_argmax[i] = c->all[j] ? 0 : c->np[j];
            }
        }
        f->dense_mean_pad[i] = npad ? pad / npad : 0;
        f->dense_scatter[i] = report_curve_scatter(c->gflops, dip, c->n);
    }
}

static void search_finding(const gg_report_data *d, gg_findings *f)
{
    f->best_gflops = d->have_best ? d->best_gflops : 0;
    if (!d->have_bench)
        return;
    const gg_bench_row *best = &d->bench.rows[GG_BENCH_BEST];
    if (best->present && best->m.status == GG_OK)
        f->best_gflops = best->m.gflops;
    if (f->best_gflops <= 0)
        return;
    f->bench_have = true;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        const gg_bench_row *r = &d->bench.rows[i];
        /* a model row's rate is of the model's products, not this problem */
        f->vs[i] = r->present && r->m.status == GG_OK && r->m.gflops > 0 && !eval_bench_row_model(i)
                       ? f->best_gflops / r->m.gflops
                       : 0;
    }
    const gg_bench_row *multi = &d->bench.rows[1], *single = &d->bench.rows[2];
    double gm = multi->m.status == GG_OK ? multi->m.gflops : 0;
    double gs = single->m.status == GG_OK ? single->m.gflops : 0;
    f->multi_worst = gm < gs && gm < f->best_gflops;
}

/* What fetching costs a variant at gflops: its texel rate, the probe's
 * ceiling for its texture format (GG_FETCH_RGBA16F for store=f16), its
 * multiply-adds a texel and the GFLOP/s that ceiling allows it and any
 * variant.  The counts are search/bound.h's (the search's pruning bound
 * counts the same work, against the fastest rate of any pattern instead of
 * the GEMM patterns' ceiling stated here).  -1 when its layout cannot be
 * computed. */
typedef struct {
    gg_layout L;
    gg_bound_counts n;
    double frags, seconds, gtexels, ceiling, mads_per_fetch, mads_per_fetch_max, bound, bound_any;
    int fmt;
} fetch_cost;

static int fetch_cost_of(const gg_report_data *d, const gg_variant *v, double gflops, fetch_cost *c)
{
    if (gflops <= 0 || search_bound_counts_of(v, d->m, d->n, d->k, &c->n))
        return -1;
    c->L = c->n.L;
    const gg_layout *L = &c->L;
    c->seconds = 2.0 * d->m * (double)d->n * d->k / (gflops * 1e9);
    c->frags = c->n.fragments;
    /* store=f16x8's RGBA32UI texels: RGBA32F's rate, the probed format of
     * their 16 bytes */
    c->fmt = v->store == GG_STORE_F16                       ? GG_FETCH_RGBA16F
             : L->channels == 1 && v->store == GG_STORE_F32 ? GG_FETCH_R32F
                                                            : GG_FETCH_RGBA32F;
    c->gtexels = c->n.fetches / c->seconds / 1e9;
    c->ceiling = base_probe_fetch_ceiling(&d->probe, c->fmt);
    /* A path other than texture() is held to its own GEMM-pattern rate
     * where the probe measured it (it may be faster or slower). */
    if (v->fetch != GG_FETCH_TEXTURE && base_probe_path_rate(&d->probe, c->fmt, (int)v->fetch) > 0)
        c->ceiling = base_probe_path_rate(&d->probe, c->fmt, (int)v->fetch);
    /* Any variant: T targets of 4 channels hold 4T outputs, an r x c block;
     * a k-step of 4 fetches (r + c) 4-channel texels for 4rc multiply-adds,
     * at most 2 sqrt(4T) a texel (r = c).  Texel-bound: ceiling * that * 2. */
    int tmax = d->probe.write_max_targets > 0 ? d->probe.write_max_targets : GG_MAX_TARGETS;
    c->mads_per_fetch = L->fetches_per_frag_pass > 0
                            ? (double)L->mads_per_frag_pass / (double)L->fetches_per_frag_pass
                            : 0;
    c->mads_per_fetch_max = L->channels == 4 ? 2.0 * sqrt(4.0 * tmax) * L->group : 0;
    c->bound = c->ceiling * c->mads_per_fetch * 2;
    c->bound_any = c->ceiling * c->mads_per_fetch_max * 2;
    return 0;
}

/* Bench's half rows: best-f16 (store=f16), best-f16x8 (store=f16x8). */
static void half_finding(const gg_report_data *d, gg_findings *f)
{
    static const struct {
        int row;
        gg_store store;
    } rows[GG_HALF_ROWS] = {{GG_BENCH_BEST_F16, GG_STORE_F16}, {GG_BENCH_BEST_F16X8, GG_STORE_F16X8}};
    for (int i = 0; i < GG_HALF_ROWS; i++) {
        const gg_bench_row *r = &d->bench.rows[rows[i].row];
        gg_half_finding *h = &f->half[i];
        fetch_cost c;
        h->row = rows[i].row;
        if (!d->have_probe || !d->have_bench || !r->present || r->m.status != GG_OK ||
            r->v.store != rows[i].store || fetch_cost_of(d, &r->v, r->m.gflops, &c))
            continue;
        h->have = true;
        h->v = r->v;
        h->gflops = r->m.gflops;
        h->mad_frac = d->probe.mad_gflops > 0 ? r->m.gflops / d->probe.mad_gflops : 0;
        h->fetch_gtexels = c.gtexels;
        h->fetch_ceiling = c.ceiling;
        h->mads_per_fetch = c.mads_per_fetch;
        h->fetch_bound_gflops = c.bound;
        h->fetch_bound_any_gflops = c.bound_any;
    }
}

static void ceiling_finding(const gg_report_data *d, gg_findings *f)
{
    if (!d->have_probe || !d->have_best || f->best_gflops <= 0)
        return;
    fetch_cost c;
    if (fetch_cost_of(d, &d->best, f->best_gflops, &c))
        return;
    static const char *const upper[GG_FETCH_NFMT] = {"R32F", "RGBA32F", "RGBA16F"};
    f->fetch_format = upper[c.fmt];
    f->fetch_own_path = d->best.fetch != GG_FETCH_TEXTURE &&
                        base_probe_path_rate(&d->probe, c.fmt, (int)d->best.fetch) > 0;
    f->fetch_gtexels = c.gtexels;
    f->fetch_ceiling = c.ceiling;
    f->fetch_gemm_pattern = d->probe.fetch_gtexels[c.fmt][GG_FETCH_GEMM24] > 0 ||
                            d->probe.fetch_gtexels[c.fmt][GG_FETCH_GEMM42] > 0;
    f->mads_per_fetch = c.mads_per_fetch;
    f->mads_per_fetch_max = c.mads_per_fetch_max;
    f->fetch_bound_gflops = c.bound;
    f->fetch_bound_any_gflops = c.bound_any;
    int targets = c.L.targets;
    f->write_gtexels = c.n.writes / c.seconds / 1e9;
    int t = targets <= d->probe.write_max_targets ? targets : d->probe.write_max_targets;
    /* out=image stores its block with imageStore, no render target: the
     * probe's fastest imageStore rate (0 in a probe.csv from before it). */
    f->write_ceiling = c.L.image ? base_probe_store_rate(&d->probe)
                       : t >= 1  ? d->probe.write_gtexels[t]
                                 : 0;
    f->mad_frac = d->probe.mad_gflops > 0 ? f->best_gflops / d->probe.mad_gflops : 0;
    f->fetch_frac = f->fetch_ceiling > 0 ? f->fetch_gtexels / f->fetch_ceiling : 0;
    f->write_frac = f->write_ceiling > 0 ? f->write_gtexels / f->write_ceiling : 0;
    f->limit = "multiply-add";
    double top = f->mad_frac;
    if (f->fetch_frac > top) {
        top = f->fetch_frac;
        f->limit = "texel fetch";
    }
    if (f->write_frac > top)
        f->limit = c.L.image ? "imageStore" : "render-target write";
    f->ceil_have = true;
}

static int outputs_of(const gg_report_data *d, const gg_variant *v)
{
    gg_layout L;
    return gen_layout_compute(v, d->m, d->n, d->k, &L) ? 0 : gen_layout_outputs(&L);
}

/* The fastest of the records at index a and b (-1: none). */
static long faster(const gg_report_data *d, long a, long b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return score(&d->recs[b]) > score(&d->recs[a]) ? b : a;
}

static void outputs_finding(const gg_report_data *d, gg_outputs_finding *o)
{
    memset(o, 0, sizeof *o);
    int targets = d->env.have && d->env.max_draw_buffers > 0 &&
                          d->env.max_draw_buffers < GG_MAX_TARGETS
                      ? d->env.max_draw_buffers
                      : GG_MAX_TARGETS;
    o->cap = 4 * targets;
    o->rt_at_cap = o->image_past_cap = -1;
    for (int out = 0; out < GG_OUT_COUNT; out++) {
        o->best[out] = o->common_rec[out] = -1;
        for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
            o->s[fe][out].best = -1;
    }
    for (long i = 0; i < d->nrecs; i++) {
        const gg_variant *v = &d->recs[i].v;
        if (v->store != GG_STORE_F32 || (unsigned)v->fetch >= GG_FETCH_COUNT ||
            (unsigned)v->out >= GG_OUT_COUNT)
            continue;
        gg_outputs_series *s = &o->s[v->fetch][v->out];
        s->total++;
        double g = score(&d->recs[i]);
        int q = outputs_of(d, v);
        if (g <= 0 || q <= 0)
            continue;
        s->ok++;
        o->have = true;
        int j = 0;
        while (j < s->n && s->outputs[j] < q)
            j++;
        if (j < s->n && s->outputs[j] == q) {
            if (g > s->gflops[j]) {
                s->gflops[j] = g;
                s->rec[j] = i;
            }
        } else if (s->n < GG_OUTS_MAX) {
            memmove(s->outputs + j + 1, s->outputs + j, (size_t)(s->n - j) * sizeof *s->outputs);
            memmove(s->gflops + j + 1, s->gflops + j, (size_t)(s->n - j) * sizeof *s->gflops);
            memmove(s->rec + j + 1, s->rec + j, (size_t)(s->n - j) * sizeof *s->rec);
            s->outputs[j] = q;
            s->gflops[j] = g;
            s->rec[j] = i;
            s->n++;
        }
        o->best[v->out] = faster(d, o->best[v->out], i);
        if (v->out == GG_OUT_RT && q == o->cap)
            o->rt_at_cap = faster(d, o->rt_at_cap, i);
        if (v->out == GG_OUT_IMAGE && q > o->cap)
            o->image_past_cap = faster(d, o->image_past_cap, i);
    }
    for (int out = 0; out < GG_OUT_COUNT; out++)
        for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
            gg_outputs_series *s = &o->s[fe][out];
            for (int j = 0; j < s->n; j++)
                if (s->best < 0 || s->gflops[j] > s->gflops[s->best])
                    s->best = j;
        }
    /* The most outputs measured with both outs, any fetch path. */
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
        const gg_outputs_series *r = &o->s[fe][GG_OUT_RT];
        for (int j = 0; j < r->n; j++) {
            int q = r->outputs[j];
            long img = -1;
            for (int fi = 0; fi < GG_FETCH_COUNT; fi++) {
                const gg_outputs_series *m = &o->s[fi][GG_OUT_IMAGE];
                for (int x = 0; x < m->n; x++)
                    if (m->outputs[x] == q)
                        img = faster(d, img, m->rec[x]);
            }
            if (img < 0 || q < o->common)
                continue;
            if (q > o->common) {
                o->common = q;
                o->common_rec[GG_OUT_RT] = -1;
            }
            o->common_rec[GG_OUT_RT] = faster(d, o->common_rec[GG_OUT_RT], r->rec[j]);
            o->common_rec[GG_OUT_IMAGE] = img;
        }
    }
}

int report_analyse(const gg_report_data *d, gg_findings *f)
{
    memset(f, 0, sizeof *f);
    pick_base(d, f);
    if (f->have_base) {
        int n = build_curves(d, &f->base, false, &f->c7a);
        if (n < 0)
            return -1;
        f->n7a = n < 6 ? n : 6;
        n = build_curves(d, &f->base, true, &f->c7b);
        if (n < 0) {
            report_findings_free(f);
            return -1;
        }
        f->n7b = n < 3 ? n : 3;
        figure8(d, f);
        f8_ratio(f, true, &f->mc_have, &f->mc_ratio, &f->mc_lo, &f->mc_hi);
        f8_ratio(f, false, &f->mrt_have, &f->mrt_ratio, &f->mrt_lo, &f->mrt_hi);
        np_finding(d, f);
    }
    unroll_finding(d, f);
    search_finding(d, f);
    ceiling_finding(d, f);
    half_finding(d, f);
    f->outs = malloc(sizeof *f->outs);
    if (!f->outs) {
        report_findings_free(f);
        return -1;
    }
    outputs_finding(d, f->outs);
    return 0;
}

void report_findings_free(gg_findings *f)
{
    free(f->c7a);
    free(f->c7b);
    free(f->outs);
    f->c7a = f->c7b = NULL;
    f->outs = NULL;
    f->n7a = f->n7b = 0;
}

const char *report_verdict_outputs(double g_image, double g_rt, int q_image, int cap)
{
    if (g_image <= 0)
        return "not measured: no out=image variant ran ok";
    if (g_rt <= 0)
        return "not measured: no out=rt variant ran ok";
    if (g_image > 1.03 * g_rt)
        return q_image > cap ? "more outputs than render targets hold pay off: what capped "
                               "the gain of MRT was the number of targets, not the reuse"
                             : "out=image is faster, but not by more outputs than the cap: its "
                               "writes, not more reuse, make the difference";
    if (g_image < 0.97 * g_rt)
        return "more outputs per fragment do not pay off past the cap: out=image stays below "
               "the best out=rt";
    return "about even: past the cap neither gain nor loss";
}

const char *report_verdict_mc(double r)
{
    if (r >= 1.8 && r <= 2.8)
        return "agrees";
    if (r > 2.8)
        return "agrees in direction, with a larger gain";
    if (r > 1.05)
        return "agrees in direction, with a smaller gain";
    if (r >= 0.95)
        return "disagrees: no gain";
    return "disagrees: mc=2x2 is slower";
}

const char *report_verdict_mrt(double r)
{
    if (r >= 1.03 && r <= 1.20)
        return "agrees";
    if (r > 1.20)
        return "agrees in direction, with a larger gain";
    if (r >= 0.97)
        return "disagrees: no measurable gain";
    return "disagrees: mrt=2x2 is slower";
}

const char *report_verdict_unroll(int pairs, int wins, double geomean)
{
    if (pairs == 0)
        return "not measured (no pair differing only in unroll)";
    if (geomean > 1.05)
        return "disagrees: unrolling helps on this card";
    if (4 * wins >= 3 * pairs)
        return "agrees";
    return "agrees on the whole: no gain from unrolling on average, though unroll=1 wins some pairs";
}

const char *report_verdict_unimodal(int curves, int unimodal)
{
    if (curves == 0)
        return "not measured";
    if (unimodal == curves)
        return "agrees";
    if (2 * unimodal >= curves)
        return "mostly agrees";
    return "disagrees: most curves have several maxima";
}

const char *report_verdict_search(double r)
{
    if (r <= 0)
        return "not measured";
    if (r >= 1.0)
        return "search at or above nv-single, as on the paper's G6800G and QF3400";
    if (r >= 0.5)
        return "search below nv-single, as on the paper's G6800U and G5800U";
    return "disagrees: search far below nv-single";
}

int report_sweep_pairs(const gg_findings *f, const gg_report_data *d, gg_variant out[2])
{
    if (!f->have_base)
        return 0;
    out[0] = f->base;
    enum { MAXPAIRS = 256 };
    gg_variant pairs[MAXPAIRS];
    int np = pairs_of(d, &f->base, pairs, MAXPAIRS);
    double top = 0;
    bool found = false;
    for (int i = 0; i < np; i++) {
        if (same_shape(pairs[i].mc, f->base.mc) && same_shape(pairs[i].mrt, f->base.mrt))
            continue;
        gg_np_curve *c = malloc(sizeof *c);
        if (!c)
            break;
        build_curve(d, &pairs[i], true, c);
        double m = curve_max(c);
        free(c);
        if (m > top) {
            top = m;
            out[1] = pairs[i];
            found = true;
        }
    }
    if (!found) {
        out[1] = f->base;
        out[1].mrt = (gg_shape){1, 1};
        out[1].mc = (gg_shape){1, 1};
        if (same_shape(f->base.mc, out[1].mc) && same_shape(f->base.mrt, out[1].mrt))
            out[1].mc = (gg_shape){2, 2};
    }
    out[0].np = out[1].np = GG_NP_ALL;
    return 2;
}

int report_dips_to_check(const gg_findings *f, const gg_report_data *d, gg_variant *out,
                            int max)
{
    int n = 0;
    for (int i = 0; i < f->n7b; i++)
        for (int j = 0; j < f->ndips[i] && n < max; j++) {
            if (f->dip_again[i][j] >= 0)
                continue;
            gg_variant v = f->c7b[i].base;
            v.np = f->dip_np[i][j];
            search_variant_normalize(&v, d->m, d->n, d->k);
            out[n++] = v;
        }
    return n;
}

int report_sweep_npmax(const gg_variant *base, int k, int npmax)
{
    int ks = search_ksteps(base->mc, k);
    return ks < npmax ? ks : npmax;
}
