/* The probe's driver: which points are measured, how each is timed and
 * checked (see probe.h), over a backend that draws the kernels (the native
 * context: probe_native.c; a WebGL2 page: eval/browser_probe.c).  No GL
 * here.  Kernels' GLSL and CPU models: probe_src.c; the CSV file:
 * base/probe_data.c.
 *
 * Timing of a point: the kernel is drawn twice untimed (llvmpipe compiles a
 * shader variant at its first draw), the work of one draw is scaled (the
 * iteration count) so a draw takes about min(target_s, MAX_DRAW_S), the
 * draws of one repetition so a repetition takes about target_s; one warm-up
 * repetition, then `reps` timed ones, each glFinish .. draws .. glFinish on
 * CLOCK_MONOTONIC; the median counts.  Each draw is followed by glFlush:
 * llvmpipe bins a whole frame per tile and drops an opaque draw that a later
 * one covers, so unflushed repeated draws would be counted but not run.  Then a few fragments are read back and
 * compared with the CPU model of the last draw. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "glhost/probe.h"

/* Longest single draw we aim for: far below the ~2 s at which NVIDIA draws
 * returned wrong data (DESIGN.md), and below the 0.5 s the probe promises. */
#define MAX_DRAW_S 0.2
#define MAX_DRAWS_PER_REP 100000
#define MAX_REPS 1000

typedef struct {
    const gg_probe_opts *o;
    gg_probe_result *r;
    const host_probe_backend *b;
    int reps;
    double target_s;
    int max_tex;       /* the largest texture side the points use */
    bool images;       /* imageLoad, imageStore */
    long max_tbuf;     /* texels of a buffer texture; 0: no buffer textures */
    long max_ssbo;     /* bytes of a storage block in fragment shaders; 0: none */
    gg_status st;      /* of the last backend call that failed */
    char detail[512];  /* its line */
} probe;

void host_probe_opts_default(gg_probe_opts *o, bool quick)
{
    memset(o, 0, sizeof *o);
    o->quick = quick;
    o->reps = quick ? 3 : 5;
    o->target_s = quick ? 0.004 : 0.15;
}

static void add_row(gg_probe_result *r, const char *metric, const char *variant, double value,
                    const char *unit)
{
    if (r->nrows >= GG_PROBE_MAX_ROWS)
        return;
    gg_probe_row *row = &r->rows[r->nrows++];
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    row->value = value;
    snprintf(row->unit, sizeof row->unit, "%s", unit);
}

static void progress(const probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const probe *p, const char *fmt, ...)
{
    if (!p->o->progress)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    p->o->progress(line, p->o->user);
}

static gg_status fail(probe *p, gg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gg_status fail(probe *p, gg_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->r->detail, sizeof p->r->detail, fmt, ap);
    va_end(ap);
    p->r->status = st;
    return st;
}

/* One timed repetition of draws draws; a backend's failure is kept in p
 * (p->st) and times as 0. */
static double time_rep(probe *p, int iters, int draws)
{
    double t = 0;
    if (p->st == GG_OK)
        p->st = p->b->time(p->b->self, false, iters, draws, 0, 1, &t, p->detail, sizeof p->detail);
    return p->st == GG_OK ? t : 0;
}

/* Picks the iteration count (iters0 .. iters_max, a multiple of iters0's
 * step 4 when above iters0) and the draws of one repetition. */
static void plan(probe *p, int iters0, int iters_max, int *iters, int *draws)
{
    time_rep(p, iters0, 1); /* compiles the shader variant on llvmpipe */
    double t = fmin(time_rep(p, iters0, 1), time_rep(p, iters0, 1)); /* spikes of load */
    double goal = fmin(p->target_s, MAX_DRAW_S);
    int it = iters0;
    for (int step = 0; step < 4 && iters_max > iters0; step++) {
        double want = (double)it * goal / fmax(t, 1e-7);
        int nit = want >= iters_max ? iters_max : want <= iters0 ? iters0 : ((int)want / 4) * 4;
        if (nit < iters0)
            nit = iters0;
        if (nit == it || (fabs((double)(nit - it)) < 0.25 * it))
            break;
        it = nit;
        t = fmin(time_rep(p, it, 1), time_rep(p, it, 1));
    }
    double d = ceil(p->target_s / fmax(t, 1e-7));
    *iters = it;
    *draws = d < 1 ? 1 : d > MAX_DRAWS_PER_REP ? MAX_DRAWS_PER_REP : (int)d;
}

/* Warm-up, then the median of reps timed repetitions. */
static double time_point(probe *p, int iters, int draws)
{
    double v[MAX_REPS];
    if (p->st == GG_OK)
        p->st = p->b->time(p->b->self, false, iters, draws, 1, p->reps, v, p->detail,
                           sizeof p->detail);
    return p->st == GG_OK ? base_median(v, p->reps) : 0;
}

/* Compares a few fragments of every target with the CPU model. */
static gg_status check_point(probe *p, const host_probe_kernel *k, int iters, const char *name)
{
    enum { NPTS = 5 };
    const int pts[NPTS][2] = {{0, 0}, {k->w - 1, k->h - 1}, {k->w / 2, k->h / 3},
                              {k->w / 3, (2 * k->h) / 3}, {k->w - 1, 0}};
    int at[GG_MAX_TARGETS * NPTS][3], n = 0;
    float read[GG_MAX_TARGETS * NPTS][4];
    for (int t = 0; t < k->targets; t++)
        for (int i = 0; i < NPTS; i++, n++) {
            at[n][0] = t;
            at[n][1] = pts[i][0];
            at[n][2] = pts[i][1];
        }
    char detail[512] = "";
    gg_status st = p->b->texels(p->b->self, false, n, at, read, detail, sizeof detail);
    if (st != GG_OK && st != GG_GL_ERROR)
        return fail(p, st, "probe: %s: %s", name, detail);
    for (int t = 0; t < k->targets; t++)
        for (int i = 0; i < NPTS; i++) {
            float want[4];
            const float *got = read[t * NPTS + i];
            host_probe_expect(k, t, pts[i][0], pts[i][1], iters, want);
            for (int c = 0; c < 4; c++) {
                double tol = host_probe_tolerance(k, iters, want, c);
                if (!isfinite(got[c]) || fabs((double)got[c] - (double)want[c]) > tol)
                    return fail(p, GG_WRONG_RESULT,
                                "probe: %s: target %d fragment (%d,%d) channel %d is %.9g, the "
                                "CPU computes %.9g (tolerance %.3g)",
                                name, t, pts[i][0], pts[i][1], c, (double)got[c],
                                (double)want[c], tol);
            }
        }
    if (st != GG_OK)
        return fail(p, st, "probe: %s: %s", name, detail);
    return GG_OK;
}

/* One kernel: set up, plan, time, check.  *seconds gets the median time of a
 * repetition of *draws draws of *iters iterations. */
static gg_status measure(probe *p, host_probe_kernel *k, const char *name, int iters0,
                         int iters_max, int *iters, int *draws, double *seconds)
{
    char detail[512];
    gg_status st = host_probe_kernel_check(k, detail, sizeof detail);
    if (st == GG_OK)
        st = p->b->open(p->b->self, k, detail, sizeof detail);
    if (st != GG_OK) {
        p->b->close(p->b->self);
        return fail(p, st, "%s (%s)", detail, name);
    }
    p->st = GG_OK;
    plan(p, iters0, iters_max, iters, draws);
    *seconds = time_point(p, *iters, *draws);
    st = p->st != GG_OK ? fail(p, p->st, "probe: %s: %s", name, p->detail)
                        : check_point(p, k, *iters, name);
    p->b->close(p->b->self);
    if (st == GG_OK && !(*seconds > 0))
        return fail(p, GG_GL_ERROR, "probe: %s: no measurable time", name);
    return st;
}

/* Every point does 32 vec4 multiply-adds per loop iteration: few chains
 * unrolled (llvmpipe: no register spills, enough independent FMAs for the
 * latency) to many chains (a GPU: independent instructions). */
static const int mad_shapes[][2] = {{4, 8}, {8, 4}, {16, 2}, {32, 1}}; /* chains, unroll */

/* The sweep of multiply-add points, in float (rows mad,...) or in double
 * (fp64: rows mad64,...), each with its max row. */
static gg_status mad_sweep(probe *p, bool fp64)
{
    static const int full_sizes[] = {512, 2048}, quick_sizes[] = {32};
    const int *sizes = p->o->quick ? quick_sizes : full_sizes;
    int nsizes = p->o->quick ? 1 : 2;
    int nshapes = p->o->quick ? 2 : 4;
    gg_probe_result *r = p->r;
    const char *metric = fp64 ? "mad64" : "mad";
    double *max = fp64 ? &r->mad64_gflops : &r->mad_gflops;
    char *best = fp64 ? r->mad64_best : r->mad_best;
    for (int si = 0; si < nsizes; si++)
        for (int ci = 0; ci < nshapes; ci++) {
            /* --quick: the two ends of the range of shapes. */
            int shape = p->o->quick ? (ci ? 3 : 0) : ci;
            int s = sizes[si], chains = mad_shapes[shape][0], unroll = mad_shapes[shape][1];
            host_probe_kernel k = {.kind = PK_MAD, .chains = chains, .unroll = unroll, .fp64 = fp64,
                                   .w = s, .h = s};
            char name[48];
            snprintf(name, sizeof name, "%s c%du%d %dx%d", metric, chains, unroll, s, s);
            int iters, draws;
            double sec;
            /* Lane w sums chains * (c + steps/1024): exact while below 2^13. */
            gg_status st = measure(p, &k, name, 4, p->o->quick ? 16 : 65536 / unroll, &iters,
                                   &draws, &sec);
            if (st != GG_OK)
                return st;
            double flops = (double)s * s * iters * unroll * chains * 8.0 * draws;
            double g = flops / sec / 1e9;
            char variant[48];
            snprintf(variant, sizeof variant, "c%du%d-%dx%d-i%d", chains, unroll, s, s, iters);
            add_row(r, metric, variant, g, "GFLOP/s");
            progress(p, "%-8s %-31s %5d draws/rep %10.2f GFLOP/s", metric, variant, draws, g);
            if (g > *max) {
                *max = g;
                snprintf(best, sizeof r->mad_best, "%s", variant);
            }
        }
    add_row(r, metric, "max", *max, "GFLOP/s");
    return GG_OK;
}

static gg_status probe_mad(probe *p)
{
    gg_status st = mad_sweep(p, false);
    if (st != GG_OK)
        return st;
    if (!p->b->lim.fp64) {
        progress(p, "mad64    not measured: %s",
                 p->b->lim.no_fp64 ? p->b->lim.no_fp64 : "no double in this context's GLSL");
        return GG_OK;
    }
    return mad_sweep(p, true);
}

static int ilog2_floor(int v)
{
    int l = 0;
    while ((2 << l) <= v)
        l++;
    return l;
}

/* One fetch point: format f by path in pattern pat, a 2^l x 2^l texture,
 * an s x s viewport; its rates into r and two rows. */
static gg_status fetch_point(probe *p, int f, int path, int pat, int l, int s)
{
    gg_probe_result *r = p->r;
    host_probe_kernel k = {.kind = PK_FETCH, .fmt = f, .pattern = pat, .path = path, .tex_log2w = l,
                   .tex_log2h = l, .w = s, .h = s};
    char variant[48], name[64];
    base_probe_fetch_variant(f, path, pat, variant, sizeof variant);
    snprintf(name, sizeof name, "fetch %s", variant);
    int iters, draws;
    double sec;
    /* Sums of up to 8192 texel values stay exact (probe_kernels.c):
     * the GEMM pattern adds 3 a k-step to each of its 4 sums. */
    bool gemm = pat == GG_FETCH_GEMM24 || pat == GG_FETCH_GEMM42;
    int per_iter = gemm ? 12 : 1;
    int iters_max = gemm ? 2048 : 8192;
    gg_status st = measure(p, &k, name, 4, p->o->quick ? (per_iter > 1 ? 8 : 64) : iters_max,
                           &iters, &draws, &sec);
    if (st != GG_OK)
        return st;
    double texels = (double)s * s * iters * per_iter * draws;
    double gt = texels / sec / 1e9;
    double gbs = gt * base_fetch_bytes(f);
    if (path == GG_FETCH_TEXTURE) {
        r->fetch_gtexels[f][pat] = gt;
        r->fetch_gbs[f][pat] = gbs;
    } else {
        r->path_gtexels[f][path][pat] = gt;
        r->path_gbs[f][path][pat] = gbs;
    }
    add_row(r, "fetch", variant, gt, "Gtexel/s");
    add_row(r, "fetch", variant, gbs, "GB/s");
    progress(p, "fetch    %-31s %5d draws/rep %10.2f Gtexel/s %10.2f GB/s  (%dx%d %s, "
                "%d fetches/fragment)",
             variant, draws, gt, gbs, 1 << l, 1 << l,
             path == GG_FETCH_BUFFER ? "buffer texture" : path == GG_FETCH_SSBO ? "storage buffer" : "texture",
             iters * per_iter);
    return GG_OK;
}

static gg_status probe_fetch(probe *p)
{
    int s = p->o->quick ? 32 : 512;
    int lmax = ilog2_floor(p->max_tex);
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int pat = 0; pat < GG_FETCH_NPAT; pat++) {
            if (!base_probe_fetch_measured(f, pat))
                continue;
            /* Friendly: a texture of the viewport's size.  GEMM: coordinates
             * reach 4 * s (wrapped beyond).  Hostile: large. */
            int l = pat == GG_FETCH_FRIENDLY ? ilog2_floor(s)
                    : pat >= GG_FETCH_GEMM24 ? ilog2_floor(4 * s)
                                             : (p->o->quick ? 8 : 12);
            if (l > lmax)
                l = lmax;
            gg_status st = fetch_point(p, f, GG_FETCH_TEXTURE, pat, l, s);
            if (st != GG_OK)
                return st;
        }
    return GG_OK;
}

/* The GEMM patterns by the other fetch paths, on the texture of the texture
 * path's GEMM points (a buffer texture no larger than the context allows). */
static gg_status probe_fetch_paths(probe *p)
{
    int s = p->o->quick ? 32 : 512;
    int lmax = ilog2_floor(p->max_tex);
    for (int path = GG_FETCH_TEXTURE + 1; path <= GG_PROBE_LAST_PATH; path++) {
        int l = ilog2_floor(4 * s);
        if (l > lmax)
            l = lmax;
        if (path == GG_FETCH_UBO)
            continue; /* no kernel of its own (probe_data.h) */
        if (path == GG_FETCH_BUFFER)
            while (l > 0 && ((long)1 << (2 * l)) > p->max_tbuf)
                l--;
        if (path == GG_FETCH_SSBO) /* vec4 elements */
            while (l > 0 && ((long)16 << (2 * l)) > p->max_ssbo)
                l--;
        const char *why = path == GG_FETCH_IMAGE && !p->images
                              ? (p->b->lim.no_images ? p->b->lim.no_images : "imageLoad needs GL 4.3")
                          : path == GG_FETCH_BUFFER && l < 4
                              ? (p->b->lim.no_buffers ? p->b->lim.no_buffers : "no buffer textures")
                          : path == GG_FETCH_SSBO && l < 4
                              ? (p->b->lim.no_ssbos ? p->b->lim.no_ssbos
                                                    : "no storage blocks in fragment shaders")
                              : NULL;
        if (why) {
            progress(p, "fetch    %-31s not measured: %s", gen_fetch_name((gg_fetch)path), why);
            continue;
        }
        for (int f = 0; f < GG_FETCH_NFMT; f++)
            for (int pat = 0; pat < GG_FETCH_NPAT; pat++) {
                if (!base_probe_path_measured(f, path, pat))
                    continue;
                gg_status st = fetch_point(p, f, path, pat, l, s);
                if (st != GG_OK)
                    return st;
            }
    }
    return GG_OK;
}

static gg_status probe_write(probe *p, int max_targets)
{
    gg_probe_result *r = p->r;
    int s = p->o->quick ? 32 : 2048;
    for (int n = 1; n <= max_targets; n++) {
        host_probe_kernel k = {.kind = PK_WRITE, .targets = n, .w = s, .h = s};
        char name[48];
        snprintf(name, sizeof name, "write %d targets", n);
        int iters, draws;
        double sec;
        gg_status st = measure(p, &k, name, 0, 0, &iters, &draws, &sec);
        if (st != GG_OK)
            return st;
        double texels = (double)s * s * n * draws;
        r->write_gtexels[n] = texels / sec / 1e9;
        r->write_gbs[n] = r->write_gtexels[n] * 16;
        char variant[48];
        snprintf(variant, sizeof variant, "targets-%d", n);
        add_row(r, "write", variant, r->write_gtexels[n], "Gtexel/s");
        add_row(r, "write", variant, r->write_gbs[n], "GB/s");
        progress(p, "write    %-31s %5d draws/rep %10.2f Gtexel/s %10.2f GB/s", variant, draws,
                 r->write_gtexels[n], r->write_gbs[n]);
        r->write_max_targets = n;
    }
    return GG_OK;
}

/* imageStore of N texels a fragment into an s x s RGBA32F image: the same
 * texels (the image) for every N, fewer fragments for larger N. */
static gg_status probe_store(probe *p)
{
    gg_probe_result *r = p->r;
    if (!p->images) {
        progress(p, "imagestore not measured: %s",
                 p->b->lim.no_images ? p->b->lim.no_images : "imageStore needs GL 4.3");
        return GG_OK;
    }
    int s = p->o->quick ? 32 : 2048;
    for (int i = 0; i < GG_PROBE_NSTORE; i++) {
        int blk = 1;
        while (blk * blk < base_probe_store_texels[i])
            blk++;
        host_probe_kernel k = {.kind = PK_STORE, .blk = blk, .w = s, .h = s};
        char variant[48], name[80];
        base_probe_store_variant(i, variant, sizeof variant);
        snprintf(name, sizeof name, "imagestore %s", variant);
        int iters, draws;
        double sec;
        gg_status st = measure(p, &k, name, 0, 0, &iters, &draws, &sec);
        if (st != GG_OK)
            return st;
        double texels = (double)s * s * draws;
        r->store_gtexels[i] = texels / sec / 1e9;
        r->store_gbs[i] = r->store_gtexels[i] * 16;
        add_row(r, "imagestore", variant, r->store_gtexels[i], "Gtexel/s");
        add_row(r, "imagestore", variant, r->store_gbs[i], "GB/s");
        progress(p, "imagestore %-29s %5d draws/rep %10.2f Gtexel/s %10.2f GB/s  (%dx%d image)",
                 variant, draws, r->store_gtexels[i], r->store_gbs[i], s, s);
    }
    return GG_OK;
}

static gg_status probe_readback(probe *p)
{
    const host_probe_backend *b = p->b;
    int s = p->o->quick ? 64 : 2048;
    host_probe_kernel k = {.kind = PK_WRITE, .targets = 1, .w = s, .h = s};
    char detail[512];
    gg_status st = host_probe_kernel_check(&k, detail, sizeof detail);
    if (st == GG_OK)
        st = b->open(b->self, &k, detail, sizeof detail);
    double t = 0, v[MAX_REPS];
    if (st == GG_OK) /* draws the target once */
        st = b->time(b->self, false, 0, 1, 0, 1, &t, detail, sizeof detail);
    if (st == GG_OK)
        st = b->time(b->self, true, 0, 1, 1, 1, &t, detail, sizeof detail);
    int reads = 1;
    if (st == GG_OK) {
        double d = ceil(p->target_s / fmax(t, 1e-7));
        reads = d < 1 ? 1 : d > 10000 ? 10000 : (int)d;
        st = b->time(b->self, true, 0, reads, 1, p->reps, v, detail, sizeof detail);
    }
    if (st != GG_OK) {
        b->close(b->self);
        return fail(p, st, "%s (read-back)", detail);
    }
    double sec = base_median(v, p->reps);
    int at[64][3], n = 0;
    for (int y = 0; y < s && n < 64; y += s / 4 ? s / 4 : 1)
        for (int x = 0; x < s && n < 64; x += s / 3 ? s / 3 : 1, n++) {
            at[n][0] = 0;
            at[n][1] = x;
            at[n][2] = y;
        }
    float got[64][4];
    gg_status rst = b->texels(b->self, true, n, at, got, detail, sizeof detail);
    if (rst != GG_OK && rst != GG_GL_ERROR) {
        b->close(b->self);
        return fail(p, rst, "probe: read-back: %s", detail);
    }
    st = rst == GG_OK ? GG_OK : fail(p, rst, "probe: read-back: %s", detail);
    for (int i = 0; st == GG_OK && i < n; i++) {
        float want[4];
        host_probe_expect(&k, 0, at[i][1], at[i][2], 0, want);
        if (memcmp(got[i], want, sizeof want))
            st = fail(p, GG_WRONG_RESULT,
                      "probe: read-back: texel (%d,%d) is (%g,%g,%g,%g), drawn (%g,%g,%g,%g)",
                      at[i][1], at[i][2], got[i][0], got[i][1], got[i][2], got[i][3], want[0],
                      want[1], want[2], want[3]);
    }
    b->close(b->self);
    if (st != GG_OK)
        return st;
    if (!(sec > 0))
        return fail(p, GG_GL_ERROR, "probe: read-back: no measurable time");
    p->r->readback_gbs = (double)s * s * 16 * reads / sec / 1e9;
    add_row(p->r, "readback", "rgba32f", p->r->readback_gbs, "GB/s");
    progress(p, "readback %-31s %5d reads/rep %10.2f GB/s  (%dx%d)", "rgba32f", reads,
             p->r->readback_gbs, s, s);
    return GG_OK;
}

gg_status host_probe_drive(const host_probe_backend *b, const gg_probe_opts *o,
                           gg_probe_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = GG_OK;
    probe p = {.o = o, .r = r, .b = b, .reps = o->reps, .target_s = o->target_s};
    if (p.reps < 1 || p.reps > MAX_REPS || !(p.target_s > 0) || p.target_s > 10)
        return fail(&p, GG_INVALID, "probe: reps must be 1..%d and target_s in (0, 10]", MAX_REPS);
    int targets = b->lim.max_targets;
    if (targets > GG_MAX_TARGETS)
        targets = GG_MAX_TARGETS;
    if (targets < 1 || b->lim.max_tex < 64)
        return fail(&p, GG_UNSUPPORTED, "probe: the context reports %d draw buffers, textures up to %d",
                    targets, b->lim.max_tex);
    p.max_tex = b->lim.max_tex;
    p.images = b->lim.images;
    p.max_tbuf = b->lim.max_tbuf;
    p.max_ssbo = b->lim.max_ssbo;
    if (probe_mad(&p) || probe_fetch(&p) || probe_fetch_paths(&p) || probe_write(&p, targets) ||
        probe_store(&p) || probe_readback(&p))
        return r->status;
    return r->status;
}
