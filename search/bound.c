/* Upper bounds from counts and probed rates: see bound.h. */
#include "search/bound.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int gg_bound_counts_of(const gg_variant *v, int m, int n, int k, gg_bound_counts *c)
{
    memset(c, 0, sizeof *c);
    if (gg_layout_compute(v, m, n, k, &c->L))
        return -1;
    const gg_layout *L = &c->L;
    c->fragments = (double)L->tgt_w * L->tgt_h * L->passes;
    c->fetches = (double)L->fetches_per_frag_pass * c->fragments;
    c->mads = (double)L->mads_per_frag_pass * c->fragments;
    c->writes = (double)L->targets * c->fragments;
    return 0;
}

/* The fastest rate measured for a format, over every pattern. */
static double fmt_rate(const gg_probe_result *p, int fmt)
{
    double r = 0;
    for (int pat = 0; pat < GG_FETCH_NPAT; pat++)
        if (isfinite(p->fetch_gtexels[fmt][pat]) && p->fetch_gtexels[fmt][pat] > r)
            r = p->fetch_gtexels[fmt][pat];
    return r;
}

/* -1: a format the probe does not measure (any measured format's rate
 * stands in). */
static int input_fmt(const gg_variant *v, int channels)
{
    if (channels == 4)
        return v->store == GG_STORE_F16 ? GG_FETCH_RGBA16F : GG_FETCH_RGBA32F;
    if (channels == 1 && v->store == GG_STORE_F32)
        return GG_FETCH_R32F;
    return -1;
}

static int target_fmt(int channels)
{
    return channels == 1 ? GG_FETCH_R32F : channels >= 3 ? GG_FETCH_RGBA32F : -1;
}

/* fmt, or -1 when this probe did not measure it (older files lack RGBA16F). */
static int measured(const gg_probe_result *p, int fmt)
{
    return fmt >= 0 && fmt_rate(p, fmt) > 0 ? fmt : -1;
}

static double rate_of(const gg_probe_result *p, int fmt)
{
    if (fmt >= 0)
        return fmt_rate(p, fmt);
    double r = 0;
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        r = fmax(r, fmt_rate(p, f));
    return r;
}

double gg_bound_compute(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                        gg_bound_detail *d)
{
    memset(d, 0, sizeof *d);
    if (gg_bound_counts_of(v, m, n, k, &d->c))
        return 0;
    const gg_layout *L = &d->c.L;
    static const char *const names[GG_FETCH_NFMT] = {"r32f", "rgba32f", "rgba16f"};

    /* Fetch: A and B's format, and the running sums' (the target's). */
    int fin = measured(probe, input_fmt(v, L->channels));
    int fmt = fin;
    if (v->acc != GG_ACC_BLEND) {
        int ft = measured(probe, target_fmt(L->channels));
        if (ft != fin)
            fmt = fin < 0 || ft < 0 ? -1 : rate_of(probe, ft) > rate_of(probe, fin) ? ft : fin;
    }
    d->fetch_rate = rate_of(probe, fmt);
    d->fetch_fmt = fmt >= 0 ? names[fmt] : "any format";
    if (d->fetch_rate > 0 && d->c.fetches > 0)
        d->fetch_s = d->c.fetches / (d->fetch_rate * 1e9);
    else
        d->fetch_rate = 0;

    if (isfinite(probe->mad_gflops) && probe->mad_gflops > 0) {
        d->mad_rate = probe->mad_gflops;
        d->mad_s = 2 * d->c.mads / (d->mad_rate * 1e9);
    }

    if (target_fmt(L->channels) == GG_FETCH_RGBA32F) {
        int tmax = probe->write_max_targets < GG_MAX_TARGETS ? probe->write_max_targets
                                                             : GG_MAX_TARGETS;
        for (int t = 1; t <= tmax; t++)
            if (isfinite(probe->write_gtexels[t]) && probe->write_gtexels[t] > d->write_rate)
                d->write_rate = probe->write_gtexels[t];
        if (d->write_rate > 0)
            d->write_s = d->c.writes / (d->write_rate * 1e9);
    }

    d->seconds = d->fetch_s;
    d->unit = d->fetch_s > 0 ? "texel fetch" : NULL;
    if (d->mad_s > d->seconds) {
        d->seconds = d->mad_s;
        d->unit = "multiply-add";
    }
    if (d->write_s > d->seconds) {
        d->seconds = d->write_s;
        d->unit = "render-target write";
    }
    if (!(d->seconds > 0)) {
        d->unit = NULL;
        return 0;
    }
    d->gflops = 2.0 * m * (double)n * k / d->seconds / 1e9;
    return d->gflops;
}

double gg_bound_gflops(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                       char *why, size_t len)
{
    gg_bound_detail d;
    double g = gg_bound_compute(v, m, n, k, probe, &d);
    if (!why || !len)
        return g;
    if (g <= 0) {
        snprintf(why, len, "no bound: %s",
                 d.c.fragments > 0 ? "the probe has none of the rates" : "the layout cannot be computed");
        return g;
    }
    if (!strcmp(d.unit, "texel fetch"))
        snprintf(why, len, "texel fetch: %.4g texels at %.4g Gtexel/s (%s) >= %.4g s: %.4g GFLOP/s",
                 d.c.fetches, d.fetch_rate, d.fetch_fmt, d.seconds, g);
    else if (!strcmp(d.unit, "multiply-add"))
        snprintf(why, len, "multiply-add: %.4g multiply-adds at %.4g GFLOP/s >= %.4g s: %.4g GFLOP/s",
                 d.c.mads, d.mad_rate, d.seconds, g);
    else
        snprintf(why, len,
                 "render-target write: %.4g texels at %.4g Gtexel/s >= %.4g s: %.4g GFLOP/s",
                 d.c.writes, d.write_rate, d.seconds, g);
    return g;
}

int gg_bound_load(const char *results_dir, const char *card, gg_probe_result *out, char *err,
                  size_t errlen)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s/%s/probe.csv", results_dir, card) >= (int)sizeof path) {
        snprintf(err, errlen, "%s/%s/probe.csv: path too long", results_dir, card);
        return -1;
    }
    memset(out, 0, sizeof *out);
    return gg_probe_read_csv(path, out, err, errlen);
}

double gg_bound_search_fn(void *user, const gg_variant *v)
{
    const gg_bound_user *u = user;
    if (!u || !u->probe)
        return 0;
    return gg_bound_gflops(v, u->m, u->n, u->k, u->probe, NULL, 0);
}
