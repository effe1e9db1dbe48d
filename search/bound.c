/* Upper bounds from counts and probed rates: see bound.h. */
#include "search/bound.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen/wide.h"
#include "store/paths.h"

int search_bound_counts_of(const gg_variant *v, int m, int n, int k, gg_bound_counts *c)
{
    memset(c, 0, sizeof *c);
    if (gen_layout_compute(v, m, n, k, &c->L))
        return -1;
    const gg_layout *L = &c->L;
    c->fragments = (double)L->tgt_w * L->tgt_h * L->passes;
    c->fetches = (double)L->fetches_per_frag_pass * c->fragments;
    /* fetch=ubo reads A from a uniform block, not through the texture units:
     * only B's texels (and the running sums) count. */
    if (v->fetch == GG_FETCH_UBO)
        c->fetches -= (double)L->a_fetches * c->fragments;
    /* The storage-buffer fetches: their matrices through the load/store
     * path, a term of their own (bound.h). */
    if (gen_fetch_path(v->fetch, 0) == GG_FETCH_SSBO)
        c->ssbo_fetches += (double)L->a_fetches * c->fragments;
    if (gen_fetch_path(v->fetch, 1) == GG_FETCH_SSBO)
        c->ssbo_fetches += (double)L->b_fetches * c->fragments;
    c->fetches -= c->ssbo_fetches;
    c->mads = (double)L->mads_per_frag_pass * c->fragments;
    c->mad_ops = c->mads;
    c->mad_flops = 2 * c->mads;
    if (gen_store_wide(v->store)) {
        /* Values for channels (gen/wide.h): each fetched value of A and B
         * is split once, each multiply-add costs per_mad operations. */
        int per_mad, per_value;
        gen_wide_mad_ops(v->store, &per_mad, &per_value);
        double values = (double)(L->a_fetches + L->b_fetches) * L->channels * c->fragments;
        c->mad_ops = per_mad * c->mads + per_value * values;
        if (v->store != GG_STORE_F64)
            c->mad_flops = c->mad_ops;
        c->fp64 = v->store != GG_STORE_DF;
        c->texel_words = gen_wide_texel_words(L, v->store);
    }
    c->writes = (double)L->targets * c->fragments;
    c->input_fetches = c->fetches - (v->acc == GG_ACC_BLEND ? 0 : (double)L->targets * c->fragments);
    return 0;
}

/* The fastest rate measured for reading a format by any path, over every
 * pattern; fmt -1: over every format too. */
static double any_path_rate(const gg_probe_result *p, int fmt)
{
    double r = 0;
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        if (fmt < 0 || f == fmt)
            for (int path = 0; path < GG_FETCH_COUNT; path++)
                r = fmax(r, base_probe_path_rate(p, f, path));
    return r;
}

/* The wide stores' texels, RGBA32UI (16 bytes) and RG32UI (8): the
 * probe's RGBA32F and RGBA16F, texels of those sizes (bound.h). */
static int wide_fmt(int texel_words)
{
    return texel_words == 4 ? GG_FETCH_RGBA32F : GG_FETCH_RGBA16F;
}

/* -1: a format the probe does not measure (any measured format's rate
 * stands in). */
static int input_fmt(const gg_variant *v, const gg_bound_counts *c)
{
    int channels = c->L.channels;
    if (c->texel_words) /* the wide stores */
        return wide_fmt(c->texel_words);
    if (v->store == GG_STORE_F16X8) /* RGBA32UI, whatever mc: not probed */
        return -1;
    if (channels == 4)
        return v->store == GG_STORE_F16 ? GG_FETCH_RGBA16F : GG_FETCH_RGBA32F;
    if (channels == 1 && v->store == GG_STORE_F32)
        return GG_FETCH_R32F;
    return -1;
}

/* The running sums' format: the render targets' (R32F, RG32F: -1, RGBA32F
 * for 3 and 4 channels), or out=image's image (R32F for one channel, else
 * RGBA32F). */
static int sums_fmt(const gg_bound_counts *c)
{
    const gg_layout *L = &c->L;
    if (c->texel_words)
        return wide_fmt(c->texel_words);
    if (L->channels == 1)
        return GG_FETCH_R32F;
    return L->image || L->channels >= 3 ? GG_FETCH_RGBA32F : -1;
}

/* A read of fmt by path: the rate of that path where the probe measured
 * it, else the fastest of every measured path of the format, else of every
 * format.  *fmt_out, *path_out: what the rate is of (-1: any). */
typedef struct {
    double rate;
    int fmt, path;
} read_rate;

static read_rate rate_of_read(const gg_probe_result *p, int fmt, int path)
{
    read_rate r = {0, fmt, path};
    if (fmt >= 0 && (r.rate = base_probe_path_rate(p, fmt, path)) > 0)
        return r;
    r.path = -1;
    if (fmt >= 0 && (r.rate = any_path_rate(p, fmt)) > 0)
        return r;
    r.fmt = -1;
    r.rate = any_path_rate(p, -1);
    return r;
}

double search_bound_compute(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                        gg_bound_detail *d)
{
    memset(d, 0, sizeof *d);
    if (search_bound_counts_of(v, m, n, k, &d->c))
        return 0;
    const gg_layout *L = &d->c.L;
    static const char *const names[GG_FETCH_NFMT] = {"r32f", "rgba32f", "rgba16f"};

    /* Fetch: A and B in their format by the variant's path, and the running
     * sums in theirs by the path that reads them: texture() from the
     * targets (out=rt), texelFetch from the other image (out=image,
     * pingpong), imageLoad of the image itself (out=image, copy). */
    /* The texture unit's path of A and B: the variant's, or for the
     * storage-buffer pairings the other matrix's (texelfetch). */
    gg_fetch tex_path = gen_fetch_path(v->fetch, 0) == GG_FETCH_SSBO ? gen_fetch_path(v->fetch, 1)
                                                                     : gen_fetch_path(v->fetch, 0);
    if (v->fetch == GG_FETCH_UBO)
        tex_path = GG_FETCH_UBO; /* (no kernel of its own: the fastest path stands in) */
    read_rate in = d->c.input_fetches > 0 ? rate_of_read(probe, input_fmt(v, &d->c), tex_path)
                                          : (read_rate){0, -1, -1}; /* fetch=ssbo: none */
    read_rate rd = in;
    if (v->acc != GG_ACC_BLEND) {
        /* (the wide stores read theirs by texelFetch: gen/wide_emit.c) */
        int sums_path = !L->image ? (d->c.texel_words ? GG_FETCH_TEXELFETCH : GG_FETCH_TEXTURE)
                        : v->acc == GG_ACC_PINGPONG ? GG_FETCH_TEXELFETCH
                                                    : GG_FETCH_IMAGE;
        read_rate rs = rate_of_read(probe, sums_fmt(&d->c), sums_path);
        if (rs.rate > rd.rate)
            rd = rs;
    }
    d->fetch_rate = rd.rate;
    d->fetch_texels = d->c.fetches;
    d->fetch_fmt = rd.fmt >= 0 ? names[rd.fmt] : "any format";
    d->fetch_path = rd.path >= 0 ? gen_fetch_name((gg_fetch)rd.path) : "any path";
    if (d->fetch_rate > 0 && d->c.fetches > 0)
        d->fetch_s = d->c.fetches / (d->fetch_rate * 1e9);
    else
        d->fetch_rate = 0;
    /* A and B alone by a path other than texture() that the probe measured:
     * at least their count at that path's rate (the running sums, read
     * otherwise, may lift the rate above, never shorten these). */
    if (tex_path != GG_FETCH_TEXTURE && in.path == (int)tex_path && in.rate > 0 &&
        d->c.input_fetches > 0 && d->c.input_fetches / (in.rate * 1e9) > d->fetch_s) {
        d->fetch_rate = in.rate;
        d->fetch_texels = d->c.input_fetches;
        d->fetch_fmt = names[in.fmt];
        d->fetch_path = gen_fetch_name(tex_path);
        d->fetch_s = d->c.input_fetches / (in.rate * 1e9);
    }
    if (d->c.ssbo_fetches > 0) {
        read_rate rb = rate_of_read(probe, input_fmt(v, &d->c), GG_FETCH_SSBO);
        if (rb.rate > 0) {
            d->ssbo_rate = rb.rate;
            d->ssbo_fmt = rb.fmt >= 0 ? names[rb.fmt] : "any format";
            d->ssbo_s = d->c.ssbo_fetches / (rb.rate * 1e9);
        }
    }

    /* A multiply-add is an fma, two flops of the rate.  dd's and df's
     * operations (mad_ops past mads) are adds and multiplies, one flop
     * each: a unit may issue them at its flop rate, and llvmpipe did (df
     * at 256^3 ran 1.57x what an fma's slot an operation allows: its
     * probe's fma chains run below its CPU's add and multiply ports). */
    double mad_rate = d->c.fp64 ? probe->mad64_gflops : probe->mad_gflops;
    if (isfinite(mad_rate) && mad_rate > 0) {
        d->mad_rate = mad_rate;
        d->mad_s = d->c.mad_flops / (d->mad_rate * 1e9);
    }

    if (L->image) {
        /* imageStore into the RGBA32F image (2 to 4 channels); none into
         * R32F, which the probe does not measure. */
        if (sums_fmt(&d->c) == GG_FETCH_RGBA32F)
            d->write_rate = base_probe_store_rate(probe);
        if (d->write_rate > 0)
            d->write_s = d->c.writes / (d->write_rate * 1e9);
    } else if (sums_fmt(&d->c) == GG_FETCH_RGBA32F) {
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
    if (d->ssbo_s > d->seconds) {
        d->seconds = d->ssbo_s;
        d->unit = "storage-buffer read";
    }
    if (d->mad_s > d->seconds) {
        d->seconds = d->mad_s;
        d->unit = d->c.fp64 ? "fp64 multiply-add" : "multiply-add";
    }
    if (d->write_s > d->seconds) {
        d->seconds = d->write_s;
        d->unit = L->image ? "image store" : "render-target write";
    }
    if (!(d->seconds > 0)) {
        d->unit = NULL;
        return 0;
    }
    d->gflops = 2.0 * m * (double)n * k / d->seconds / 1e9;
    return d->gflops;
}

double search_bound_gflops(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                       char *why, size_t len)
{
    gg_bound_detail d;
    double g = search_bound_compute(v, m, n, k, probe, &d);
    if (!why || !len)
        return g;
    if (g <= 0) {
        snprintf(why, len, "no bound: %s",
                 d.c.fragments > 0 ? "the probe has none of the rates" : "the layout cannot be computed");
        return g;
    }
    if (!strcmp(d.unit, "texel fetch"))
        snprintf(why, len,
                 "texel fetch: %.4g texels at %.4g Gtexel/s (%s, %s) >= %.4g s: %.4g GFLOP/s",
                 d.fetch_texels, d.fetch_rate, d.fetch_fmt, d.fetch_path, d.seconds, g);
    else if (!strcmp(d.unit, "storage-buffer read"))
        snprintf(why, len, "storage-buffer read: %.4g texels at %.4g Gtexel/s (%s, ssbo) >= %.4g s: "
                 "%.4g GFLOP/s", d.c.ssbo_fetches, d.ssbo_rate, d.ssbo_fmt, d.seconds, g);
    else if (strstr(d.unit, "multiply-add") && d.c.mad_ops != d.c.mads)
        snprintf(why, len, "%s: %.4g multiply-adds as %.4g operations at %.4g GFLOP/s >= %.4g s: "
                 "%.4g GFLOP/s", d.unit, d.c.mads, d.c.mad_ops, d.mad_rate, d.seconds, g);
    else if (strstr(d.unit, "multiply-add"))
        snprintf(why, len, "%s: %.4g multiply-adds at %.4g GFLOP/s >= %.4g s: %.4g GFLOP/s",
                 d.unit, d.c.mads, d.mad_rate, d.seconds, g);
    else
        snprintf(why, len, "%s: %.4g texels at %.4g Gtexel/s >= %.4g s: %.4g GFLOP/s", d.unit,
                 d.c.writes, d.write_rate, d.seconds, g);
    return g;
}

int search_bound_load(const char *results_dir, const char *card, gg_probe_result *out, char *err,
                  size_t errlen)
{
    char path[1024];
    if (store_path_cut(store_probe_path(path, sizeof path, results_dir, card), sizeof path)) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    memset(out, 0, sizeof *out);
    return base_probe_read_csv(path, out, err, errlen);
}

double search_bound_search_fn(void *user, const gg_variant *v)
{
    const gg_bound_user *u = user;
    if (!u || !u->probe)
        return 0;
    return search_bound_gflops(v, u->m, u->n, u->k, u->probe, NULL, 0);
}
