/* search/bound and the search's bound pruning (no GL): the bound's
 * arithmetic on a synthetic probe, worked out by hand, fetch paths and
 * out=image's stores included; a probe without the per-path and image-store
 * rows bounds every variant as the rule before them did (never lower); its
 * calibration against every committed card's probe and tuning records; a
 * search with a formula for an evaluator and an upper bound of it: pruned
 * points are recorded as pruned_bound, never evaluated, and the best is the
 * same. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/eft.h"
#include "gen/wide.h"
#include "store/csv.h"
#include "search/bound.h"
#include "search/search.h"
#include "search/tune.h"
#include "tests/suites.h"

static gg_variant var(const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s", err);
    return v;
}

/* ---- the arithmetic ---- */

/* mad 100 GFLOP/s; fetch (Gtexel/s) r32f 4 friendly / 1 hostile, rgba32f 2
 * friendly / 3 GEMM, rgba16f 5 friendly; writes 1 Gtexel/s on one target,
 * 0.5 on 2 .. 8. */
static void synthetic(gg_probe_result *p)
{
    memset(p, 0, sizeof *p);
    p->mad_gflops = 100;
    p->fetch_gtexels[GG_FETCH_R32F][GG_FETCH_FRIENDLY] = 4;
    p->fetch_gtexels[GG_FETCH_R32F][GG_FETCH_HOSTILE] = 1;
    p->fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_FRIENDLY] = 2;
    p->fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_HOSTILE] = 0.5;
    p->fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_GEMM24] = 3;
    p->fetch_gtexels[GG_FETCH_RGBA16F][GG_FETCH_FRIENDLY] = 5;
    p->write_max_targets = 8;
    p->write_gtexels[1] = 1;
    for (int t = 2; t <= 8; t++)
        p->write_gtexels[t] = 0.5;
}

static void near(double got, double want)
{
    ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "got %.12g, want %.12g", got, want);
}

START_TEST(test_arithmetic)
{
    gg_probe_result p;
    synthetic(&p);
    char why[256];
    gg_bound_detail d;
    const double flops = 2.0 * 64 * 64 * 64; /* 524288 */

    /* mrt=2x2,mc=2x2,np=all at 64^3: step 2, 32 k-steps, 1 pass; 16 x 16
     * fragments, each 32 k-steps x (2 A + 2 B texels) + 4 running sums =
     * 132 fetches: 33792 texels at RGBA32F's fastest (3, the GEMM pattern):
     * 11.264 us; 262144 multiply-adds at 100 GFLOP/s: 5.24 us; 1024 target
     * texels at 1 Gtexel/s: 1.024 us.  Fetch binds: 524288 / 11264 = 46.5. */
    gg_variant v = var("mrt=2x2,mc=2x2,np=all,acc=pingpong");
    double g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fragments, 256);
    near(d.c.fetches, 33792);
    near(d.c.mads, 262144);
    near(d.c.writes, 1024);
    near(d.fetch_rate, 3);
    ck_assert_str_eq(d.fetch_fmt, "rgba32f");
    near(d.fetch_s, 33792 / 3e9);
    near(d.mad_s, 2 * 262144 / 100e9);
    near(d.write_s, 1024 / 1e9);
    near(g, flops / (33792 / 3.0));
    ck_assert_str_eq(d.unit, "texel fetch");
    near(search_bound_gflops(&v, 64, 64, 64, &p, why, sizeof why), g);
    ck_assert_msg(strstr(why, "texel fetch") && strstr(why, "rgba32f") && strstr(why, "46.55"),
                  "%s", why);

    /* store=f16: A and B RGBA16F (5), the sums RGBA32F (3): every texel at
     * the faster, 5: 6.7584 us, still above the multiply-adds' 5.24. */
    v = var("mrt=2x2,mc=2x2,np=all,acc=pingpong,store=f16");
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.fetch_fmt, "rgba16f");
    near(g, flops / (33792 / 5.0));

    /* The same on a card whose multiply-adds are slower (20 GFLOP/s): with
     * no padding, the bound is that rate. */
    p.mad_gflops = 20;
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.unit, "multiply-add");
    near(g, 20);
    search_bound_gflops(&v, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "multiply-add") == why, "%s", why);
    p.mad_gflops = 100;

    /* mrt=1x1,mc=1x1,np=1,acc=copy: 64 passes of 64 x 64 fragments, each 1 A
     * + 1 B + 1 running sum, all R32F (4): 786432 texels, 196.6 us.  R32F
     * targets: no write term. */
    v = var("mrt=1x1,mc=1x1,np=1,acc=copy");
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fragments, 262144);
    near(d.c.fetches, 786432);
    ck_assert_str_eq(d.fetch_fmt, "r32f");
    near(d.write_rate, 0);
    near(d.write_s, 0);
    near(g, flops / (786432 / 4.0));

    /* mrt=1x1,mc=1x2,np=all,acc=blend: RG32F, not measured: the fastest of
     * any format (5).  32 x 64 fragments, 32 k-steps of 1 A + 2 B texels:
     * 196608 texels, 39.32 us: 13.33 GFLOP/s. */
    v = var("mrt=1x1,mc=1x2,np=all,acc=blend");
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.fetch_fmt, "any format");
    near(d.c.fetches, 196608);
    near(g, flops / (196608 / 5.0));

    /* mrt=1x1,mc=4x1,np=1,acc=blend with writes at 0.1 Gtexel/s: 16 passes
     * of 64 x 16 fragments (16384), each 4 A + 1 B texels (81920: 27.3 us
     * at 3) and one RGBA32F target texel (16384 at 0.1: 163.84 us). */
    for (int t = 1; t <= 8; t++)
        p.write_gtexels[t] = 0.1;
    v = var("mrt=1x1,mc=4x1,np=1,acc=blend");
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fragments, 16384);
    near(d.c.fetches, 81920);
    ck_assert_str_eq(d.unit, "render-target write");
    near(g, flops / (16384 / 0.1));
    search_bound_gflops(&v, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "render-target write") == why, "%s", why);
    synthetic(&p);

    /* A probe without RGBA16F (an older file): halves count at the fastest
     * measured format (r32f's 4), not at RGBA32F's 3. */
    for (int pat = 0; pat < GG_FETCH_NPAT; pat++)
        p.fetch_gtexels[GG_FETCH_RGBA16F][pat] = 0;
    v = var("mrt=2x2,mc=2x2,np=all,acc=blend,store=f16");
    g = search_bound_compute(&v, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.fetch_fmt, "any format");
    near(d.fetch_rate, 4);

    /* Only the multiply-add rate: still a bound. */
    gg_probe_result q;
    memset(&q, 0, sizeof q);
    q.mad_gflops = 50;
    near(search_bound_compute(&v, 64, 64, 64, &q, &d), 50);
    /* Nothing: no bound. */
    q.mad_gflops = 0;
    ck_assert(search_bound_gflops(&v, 64, 64, 64, &q, why, sizeof why) <= 0);
    ck_assert_msg(!strncmp(why, "no bound", 8), "%s", why);
    /* A layout that cannot be computed: no bound. */
    ck_assert(search_bound_gflops(&v, 0, 64, 64, &p, why, sizeof why) <= 0);

    /* The search's callback is the same number. */
    synthetic(&p);
    v = var("mrt=2x2,mc=2x2,np=all,acc=pingpong");
    gg_bound_user u = {&p, 64, 64, 64};
    near(search_bound_search_fn(&u, &v), flops / (33792 / 3.0));
}
END_TEST

/* ---- fetch paths and image stores ---- */

START_TEST(test_paths_and_image_store)
{
    gg_probe_result p;
    synthetic(&p);
    char why[256];
    gg_bound_detail d;
    const double flops = 2.0 * 64 * 64 * 64;

    /* mrt=2x2,mc=2x2,np=all,acc=blend: 16 x 16 fragments, 32 k-steps of 2 A
     * + 2 B texels: 32768 texels.  By texture(): RGBA32F's fastest, 3. */
    gg_variant v = var("mrt=2x2,mc=2x2,np=all,acc=blend");
    double tex = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fetches, 32768);
    near(d.c.input_fetches, 32768);
    near(tex, flops / (32768 / 3.0));
    ck_assert_str_eq(d.fetch_path, "texture");

    /* fetch=texelfetch, which this probe lacks: the fastest measured path
     * of RGBA32F stands in (texture's 3), the same bound. */
    v = var("mrt=2x2,mc=2x2,np=all,acc=blend,fetch=texelfetch");
    near(search_bound_compute(&v, 64, 64, 64, &p, &d), tex);
    ck_assert_str_eq(d.fetch_path, "any path");

    /* The probe measures texelFetch at 1.5 (1.25 in the other pattern):
     * the variant's path is its rate, the bound halves. */
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM24] = 1.25;
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM42] = 1.5;
    double tf = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.fetch_rate, 1.5);
    ck_assert_str_eq(d.fetch_fmt, "rgba32f");
    ck_assert_str_eq(d.fetch_path, "texelfetch");
    near(tf, flops / (32768 / 1.5));
    ck_assert(tf < tex);
    search_bound_gflops(&v, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "texel fetch") == why && strstr(why, "texelfetch"), "%s", why);
    /* The texture path's variant keeps its bound. */
    v = var("mrt=2x2,mc=2x2,np=all,acc=blend");
    near(search_bound_compute(&v, 64, 64, 64, &p, &d), tex);

    /* With running sums (pingpong: 4 texels a fragment more, read by
     * texture() at 3): every texel at 3 takes 33792 / 3 = 11264 ns, A and B
     * alone at texelFetch's 1.5 32768 / 1.5 = 21845 ns, the longer. */
    v = var("mrt=2x2,mc=2x2,np=all,acc=pingpong,fetch=texelfetch");
    double pp = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fetches, 33792);
    near(d.c.input_fetches, 32768);
    near(d.fetch_texels, 32768);
    near(pp, flops / (32768 / 1.5));
    /* A path faster than texture(): the sums do not slow it, all at 6. */
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_BUFFER][GG_FETCH_GEMM42] = 6;
    v = var("mrt=2x2,mc=2x2,np=all,acc=pingpong,fetch=buffer");
    near(search_bound_compute(&v, 64, 64, 64, &p, &d), flops / (33792 / 6.0));
    near(d.fetch_texels, 33792);
    ck_assert_str_eq(d.fetch_path, "buffer");
    /* store=f16 by texelFetch, not measured for RGBA16F: its fastest path
     * (texture, 5). */
    v = var("mrt=2x2,mc=2x2,np=all,acc=blend,store=f16,fetch=texelfetch");
    near(search_bound_compute(&v, 64, 64, 64, &p, &d), flops / (32768 / 5.0));
    ck_assert_str_eq(d.fetch_fmt, "rgba16f");
    ck_assert_str_eq(d.fetch_path, "any path");

    /* out=image,blk=4x4,mc=2x2: the geometry of mrt=2x2; pingpong reads the
     * sums from the other image by texelFetch (1.5), A and B by texture()
     * (3): 33792 / 3.  No imageStore rate in the probe: no write term, the
     * render-target rates do not stand in (1024 texels at 0.1 would bind). */
    synthetic(&p);
    for (int t = 1; t <= 8; t++)
        p.write_gtexels[t] = 0.1;
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM24] = 1.5;
    v = var("mc=2x2,np=all,profile=430,acc=pingpong,out=image,blk=4x4");
    double img = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.c.fragments, 256);
    near(d.c.writes, 1024);
    near(d.write_rate, 0);
    near(d.write_s, 0);
    near(img, flops / (33792 / 3.0));
    ck_assert_str_eq(d.unit, "texel fetch");
    /* With imageStore rates (the fastest of the four, 0.01): 1024 texels
     * take 102.4 us, more than the fetches: the image store binds. */
    const double st[GG_PROBE_NSTORE] = {0.004, 0.01, 0.008, 0.002};
    for (int i = 0; i < GG_PROBE_NSTORE; i++)
        p.store_gtexels[i] = st[i];
    double img_st = search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.write_rate, 0.01);
    near(img_st, flops / (1024 / 0.01));
    ck_assert_str_eq(d.unit, "image store");
    ck_assert(img_st < img);
    search_bound_gflops(&v, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "image store: 1024 texels at 0.01 Gtexel/s") == why, "%s", why);
    /* One channel: an R32F image, whose stores the probe does not measure. */
    v = var("mc=1x1,np=all,profile=430,acc=pingpong,out=image,blk=2x2");
    search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.write_rate, 0);
    ck_assert(d.unit && strcmp(d.unit, "image store"));
    /* Render targets never take the imageStore rate. */
    v = var("mrt=1x1,mc=4x1,np=1,acc=blend");
    search_bound_compute(&v, 64, 64, 64, &p, &d);
    near(d.write_rate, 0.1);
    ck_assert_str_eq(d.unit, "render-target write");
}
END_TEST

/* The rule before the per-path and image-store rows (search/bound.c as it
 * was), for comparison: every fetch at the fastest pattern of the formats
 * read (any format's where one is not measured), render-target writes for
 * RGBA32F targets whatever the out key. */
static double old_fmt_rate(const gg_probe_result *p, int fmt)
{
    double r = 0;
    for (int pat = 0; pat < GG_FETCH_NPAT; pat++)
        if (isfinite(p->fetch_gtexels[fmt][pat]) && p->fetch_gtexels[fmt][pat] > r)
            r = p->fetch_gtexels[fmt][pat];
    return r;
}

static double old_rate_of(const gg_probe_result *p, int fmt)
{
    if (fmt >= 0)
        return old_fmt_rate(p, fmt);
    double r = 0;
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        r = fmax(r, old_fmt_rate(p, f));
    return r;
}

static double old_bound(const gg_variant *v, int m, int n, int k, const gg_probe_result *p)
{
    gg_bound_counts c;
    ck_assert_int_eq(search_bound_counts_of(v, m, n, k, &c), 0);
    int ch = c.L.channels;
    int in = ch == 4 ? (v->store == GG_STORE_F16 ? GG_FETCH_RGBA16F : GG_FETCH_RGBA32F)
             : ch == 1 && v->store == GG_STORE_F32 ? GG_FETCH_R32F
                                                   : -1;
    int tg = ch == 1 ? GG_FETCH_R32F : ch >= 3 ? GG_FETCH_RGBA32F : -1;
    int fin = in >= 0 && old_fmt_rate(p, in) > 0 ? in : -1, fmt = fin;
    if (v->acc != GG_ACC_BLEND) {
        int ft = tg >= 0 && old_fmt_rate(p, tg) > 0 ? tg : -1;
        if (ft != fin)
            fmt = fin < 0 || ft < 0 ? -1 : old_rate_of(p, ft) > old_rate_of(p, fin) ? ft : fin;
    }
    double fr = old_rate_of(p, fmt), s = 0;
    if (fr > 0 && c.fetches > 0)
        s = c.fetches / (fr * 1e9);
    if (p->mad_gflops > 0)
        s = fmax(s, 2 * c.mads / (p->mad_gflops * 1e9));
    if (tg == GG_FETCH_RGBA32F) {
        double wr = 0;
        for (int t = 1; t <= p->write_max_targets && t <= GG_MAX_TARGETS; t++)
            wr = fmax(wr, p->write_gtexels[t]);
        if (wr > 0)
            s = fmax(s, c.writes / (wr * 1e9));
    }
    return s > 0 ? 2.0 * m * (double)n * k / s / 1e9 : 0;
}

/* Calls f on a grid of variants: every packing, MRT shapes and blocks,
 * np, acc, store (f32, f16: store=f16x8 came after the per-path rows, so
 * it has no bound from before them; test_f16x8_bound), fetch path and out
 * (out=image without blend). */
static void each_variant(void (*f)(const gg_variant *v, void *user), void *user)
{
    static const gg_shape mcs[] = {{1, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1}, {1, 4}, {4, 1}, {2, 2}};
    static const gg_shape mrts[] = {{1, 1}, {2, 1}, {2, 2}, {1, 3}, {4, 1}, {2, 4}, {4, 2}, {1, 8}};
    static const gg_shape blks[] = {{4, 4}, {8, 8}, {12, 12}, {8, 16}, {16, 4}, {6, 6}};
    static const int nps[] = {1, 3, GG_NP_ALL};
    for (size_t mc = 0; mc < sizeof mcs / sizeof *mcs; mc++)
        for (int out = 0; out < GG_OUT_COUNT; out++)
            for (size_t sh = 0; sh < (out ? sizeof blks / sizeof *blks : sizeof mrts / sizeof *mrts);
                 sh++)
                for (size_t np = 0; np < sizeof nps / sizeof *nps; np++)
                    for (int acc = 0; acc < 3; acc++)
                        for (int st = 0; st < GG_STORE_F16X8; st++) /* f16x8: own test */
                            for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
                                gg_variant v;
                                gen_variant_default(&v);
                                v.mc = mcs[mc];
                                v.np = nps[np];
                                v.acc = (gg_acc)acc;
                                v.store = (gg_store)st;
                                v.fetch = (gg_fetch)fe;
                                v.out = (gg_out)out;
                                if (out) {
                                    v.profile = GG_PROFILE_430;
                                    v.blk = blks[sh];
                                    if (acc == GG_ACC_BLEND || v.blk.rows % v.mc.rows ||
                                        v.blk.cols % v.mc.cols)
                                        continue;
                                } else {
                                    v.mrt = mrts[sh];
                                }
                                f(&v, user);
                            }
}

typedef struct {
    const gg_probe_result *old, *paths; /* a probe without the new rows; the same with them */
    long n;
} cmp_job;

static void compare_one(const gg_variant *v, void *user)
{
    cmp_job *j = user;
    static const int sizes[][3] = {{64, 64, 64}, {257, 100, 333}};
    if (gen_fetch_ssbos(v->fetch))
        return; /* no bound before them: test_ssbo_bound */
    for (int i = 0; i < 2; i++) {
        int m = sizes[i][0], n = sizes[i][1], k = sizes[i][2];
        char vt[GG_VARIANT_TEXT];
        gen_variant_format(v, vt, sizeof vt);
        double before = old_bound(v, m, n, k, j->old);
        double now = search_bound_gflops(v, m, n, k, j->old, NULL, 0);
        /* Without the new rows: the same for render targets, never lower
         * for out=image (its render-target write term is gone). */
        if (v->out == GG_OUT_RT)
            ck_assert_msg(now == before, "%s %dx%dx%d: %.17g, before %.17g", vt, m, n, k, now,
                          before);
        else
            ck_assert_msg(now >= before, "%s %dx%dx%d: %.17g, before %.17g", vt, m, n, k, now,
                          before);
        /* With them, fetch=texture out=rt reading formats the probe
         * measured: the same (else the fastest of every path may stand in). */
        int ch = v->mc.rows * v->mc.cols;
        int in = ch == 4 ? (v->store == GG_STORE_F16 ? GG_FETCH_RGBA16F : GG_FETCH_RGBA32F)
                 : ch == 1 && v->store == GG_STORE_F32 ? GG_FETCH_R32F
                                                       : -1;
        int tg = ch == 1 ? GG_FETCH_R32F : ch >= 3 ? GG_FETCH_RGBA32F : -1;
        bool measured_fmt = in >= 0 && old_fmt_rate(j->old, in) > 0 &&
                            (v->acc == GG_ACC_BLEND || (tg >= 0 && old_fmt_rate(j->old, tg) > 0));
        if (j->paths && v->out == GG_OUT_RT && v->fetch == GG_FETCH_TEXTURE && measured_fmt)
            ck_assert_msg(search_bound_gflops(v, m, n, k, j->paths, NULL, 0) == before,
                          "%s %dx%dx%d with the per-path rows", vt, m, n, k);
        j->n++;
    }
}

/* Adds per-path and imageStore rows to p: texelFetch slower than texture,
 * imageLoad and buffers faster. */
static void add_paths(gg_probe_result *p)
{
    for (int f = GG_FETCH_RGBA32F; f <= GG_FETCH_RGBA16F; f++)
        for (int pat = GG_FETCH_GEMM24; pat <= GG_FETCH_GEMM42; pat++) {
            double t = fmax(p->fetch_gtexels[f][GG_FETCH_GEMM24], p->fetch_gtexels[f][GG_FETCH_FRIENDLY]);
            p->path_gtexels[f][GG_FETCH_TEXELFETCH][pat] = 0.5 * t;
            p->path_gtexels[f][GG_FETCH_IMAGE][pat] = 1.5 * t;
            p->path_gtexels[f][GG_FETCH_BUFFER][pat] = 1.25 * t;
        }
    for (int i = 0; i < GG_PROBE_NSTORE; i++)
        p->store_gtexels[i] = 0.05 * (i + 1);
}

START_TEST(test_old_probe_same_bound)
{
    static gg_probe_result p[4], q;
    synthetic(&p[0]);
    synthetic(&p[1]); /* an older file still: no RGBA16F */
    for (int pat = 0; pat < GG_FETCH_NPAT; pat++)
        p[1].fetch_gtexels[GG_FETCH_RGBA16F][pat] = 0;
    char err[512];
    ck_assert_msg(search_bound_load("results", "llvmpipe", &p[2], err, sizeof err) == 0, "%s", err);
    ck_assert_msg(search_bound_load("results", "nvidia-h200", &p[3], err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < 4; i++) {
        /* The committed files may be re-run with the new rows: then only
         * the synthetic probes stand for an older file. */
        bool old = base_probe_store_rate(&p[i]) == 0;
        for (int f = 0; f < GG_FETCH_NFMT; f++)
            for (int pa = GG_FETCH_TEXTURE + 1; pa <= GG_PROBE_LAST_PATH; pa++)
                old = old && base_probe_path_rate(&p[i], f, pa) == 0;
        if (!old)
            continue;
        q = p[i];
        add_paths(&q);
        cmp_job j = {&p[i], &q, 0};
        each_variant(compare_one, &j);
        ck_assert_int_gt(j.n, 1000);
    }
}
END_TEST

/* ---- calibration against the committed results ---- */

typedef struct {
    double max_ratio;
    char worst[GG_VARIANT_TEXT + 64];
} calib;

/* One tuning records file: every ok row below margin x bound, the best not
 * pruned; the largest measured / bound into c.  Returns the ok rows. */
static long calibrate_file(const char *path, const gg_probe_result *p, calib *c, long *prunable)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    char line[GG_CSV_ROW_MAX + 8];
    long ok = 0, n = 0, cap = 0;
    double best = 0, *bounds = NULL;
    while (fgets(line, sizeof line, f)) {
        if (store_csv_is_header(line))
            continue;
        char card[GG_CARD_MAX], err[256];
        gg_problem pr;
        gg_variant v;
        gg_measurement m;
        ck_assert_msg(store_csv_parse(line, card, sizeof card, &pr, &v, &m, err, sizeof err) == 0,
                      "%s: %s", path, err);
        if (m.status != GG_OK)
            continue;
        char why[256];
        double b = search_bound_gflops(&v, pr.m, pr.n, pr.k, p, why, sizeof why);
        char vt[GG_VARIANT_TEXT];
        gen_variant_format(&v, vt, sizeof vt);
        ck_assert_msg(b > 0, "%s: %s: %s", path, vt, why);
        double r = m.gflops / b;
        ck_assert_msg(m.gflops <= GG_BOUND_MARGIN * b,
                      "%s: %s measured %.4g GFLOP/s, above margin %.2g x its bound (%s)", path, vt,
                      m.gflops, GG_BOUND_MARGIN, why);
        if (r > c->max_ratio) {
            c->max_ratio = r;
            snprintf(c->worst, sizeof c->worst, "%s %dx%dx%d", vt, pr.m, pr.n, pr.k);
        }
        if (m.gflops > best)
            best = m.gflops;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            bounds = realloc(bounds, (size_t)cap * sizeof *bounds);
            ck_assert_ptr_nonnull(bounds);
        }
        bounds[n++] = b;
        ok++;
    }
    fclose(f);
    /* Against the file's best, as a search that had found it would see them. */
    *prunable = 0;
    for (long i = 0; i < n; i++)
        *prunable += GG_BOUND_MARGIN * bounds[i] < best;
    ck_assert_int_lt(*prunable, n); /* the best itself never */
    free(bounds);
    return ok;
}

/* store=f16x8: its fetches are the stored RGBA32UI texels (half of f16's
 * for 4 channels), counted at the fastest rate the probe measured for any
 * format (it does not measure RGBA32UI): here RGBA16F's 5, so the bound is
 * twice f16's. */
/* The storage-buffer fetches: the matrices read from storage buffers are a
 * term of their own at the probe's ssbo rate, beside the texture unit's
 * (the other matrix at its path's rate); without an ssbo row the fastest
 * rate of the format stands in. */
START_TEST(test_ssbo_bound)
{
    gg_probe_result p;
    synthetic(&p);
    p.mad_gflops = 1e6; /* fetch binds */
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM24] = 4;
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_SSBO][GG_FETCH_GEMM24] = 1;
    const double flops = 2.0 * 64 * 64 * 64;
    gg_bound_detail d;
    char why[300];
    /* 16 x 16 fragments, 32 k-steps of 2 A and 2 B texels: 16384 each */
    gg_variant ts = var("mrt=2x2,mc=2x2,np=all,acc=blend,fetch=texelfetch+ssbo");
    double b = search_bound_compute(&ts, 64, 64, 64, &p, &d);
    near(d.c.fetches, 16384);
    near(d.c.ssbo_fetches, 16384);
    near(d.fetch_s, 16384 / 4e9);
    ck_assert_str_eq(d.fetch_path, "texelfetch");
    near(d.ssbo_s, 16384 / 1e9);
    ck_assert_str_eq(d.unit, "storage-buffer read");
    near(b, flops / (16384 / 1e9) / 1e9);
    search_bound_gflops(&ts, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "storage-buffer read: 1.638e+04 texels at 1 Gtexel/s (rgba32f, ssbo)"), "%s", why);
    /* a faster load/store path: the texture unit binds, A's texels alone */
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_SSBO][GG_FETCH_GEMM24] = 8;
    b = search_bound_compute(&ts, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.unit, "texel fetch");
    near(b, flops / (16384 / 4e9) / 1e9);
    /* both from storage buffers: no texture-unit term with acc=blend */
    gg_variant ss = var("mrt=2x2,mc=2x2,np=all,acc=blend,fetch=ssbo");
    b = search_bound_compute(&ss, 64, 64, 64, &p, &d);
    near(d.c.fetches, 0);
    near(d.c.ssbo_fetches, 32768);
    near(b, flops / (32768 / 8e9) / 1e9);
    /* a probe without the ssbo rows: the format's fastest rate (texelfetch's 4) */
    p.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_SSBO][GG_FETCH_GEMM24] = 0;
    search_bound_compute(&ts, 64, 64, 64, &p, &d);
    near(d.ssbo_rate, 4);
}
END_TEST

START_TEST(test_f16x8_bound)
{
    gg_probe_result p;
    synthetic(&p);
    p.mad_gflops = 1000; /* fetch binds */
    gg_bound_detail d8, d16;
    const double flops = 2.0 * 64 * 64 * 64;
    gg_variant v8 = var("mrt=2x2,mc=2x2,np=all,acc=blend,store=f16x8");
    gg_variant v16 = var("mrt=2x2,mc=2x2,np=all,acc=blend,store=f16");
    double b8 = search_bound_compute(&v8, 64, 64, 64, &p, &d8);
    double b16 = search_bound_compute(&v16, 64, 64, 64, &p, &d16);
    near(d16.c.fetches, 32768); /* 16 x 16 fragments, 32 k-steps of 2 A + 2 B half texels */
    near(d8.c.fetches, 16384);
    near(d8.c.mads, d16.c.mads);
    near(d8.fetch_rate, 5);
    ck_assert_str_eq(d8.fetch_fmt, "any format");
    ck_assert_str_eq(d16.fetch_fmt, "rgba16f");
    near(b16, flops / (32768 / 5e9) / 1e9);
    near(b8, 2 * b16);
    /* 1 and 2 channels: no probed format of their own either */
    gg_variant v1 = var("mrt=2x1,mc=1x1,np=all,acc=blend,store=f16x8");
    search_bound_compute(&v1, 64, 64, 64, &p, &d8);
    ck_assert_str_eq(d8.fetch_fmt, "any format");
    near(d8.c.fetches, 32 * 64 * 64 * (2 + 1) / 8.0); /* 64 k-steps / 8 a texel, 2 A + 1 B */
    /* fetch=ubo: B's stored texels only (A's came off as f16's count, which
     * left none at all) */
    gg_variant vu = var("mrt=2x2,mc=2x2,np=all,acc=blend,store=f16x8,fetch=ubo");
    search_bound_compute(&vu, 64, 64, 64, &p, &d8);
    near(d8.c.fetches, 8192);
}
END_TEST

/* The wide stores (bound.h): counts from the layout with values for
 * channels, 4-word texels at RGBA32F's rate and 2-word ones at RGBA16F's,
 * the multiply-add term in gen_wide_mad_ops's operations at fp64's rate
 * (f64, dd; none without mad64 rows) or fp32's (df). */
START_TEST(test_wide_bound)
{
    gg_probe_result p;
    synthetic(&p); /* rgba32f: 3 (texture, GEMM); rgba16f: 5; writes 1; mad 100 */
    gg_bound_detail d;
    char why[256];
    const double mads = 64.0 * 64 * 64, flops = 2 * mads;
    /* f64, mc=1x2: two doubles a RGBA32UI texel; 2x2 targets of 16x32
     * fragments, one pass of 32 k-steps of 1 A and 2 B texels a row or
     * column block, 4 running sums. */
    gg_variant f64 = var("mrt=2x2,mc=1x2,np=all,store=f64");
    double g = search_bound_compute(&f64, 64, 64, 64, &p, &d);
    ck_assert_int_eq(d.c.texel_words, 4);
    ck_assert(d.c.fp64);
    near(d.c.fragments, 512);
    near(d.c.fetches, 512 * (2 * 1 * 32 + 2 * 2 * 32 + 4));
    near(d.c.mads, mads);
    near(d.c.mad_ops, mads); /* an fma each */
    near(d.c.writes, 4 * 512);
    ck_assert_str_eq(d.fetch_fmt, "rgba32f");
    near(d.fetch_rate, 3);
    ck_assert(d.mad_rate == 0 && d.mad_s == 0); /* no mad64 rows: no term */
    ck_assert_str_eq(d.unit, "texel fetch");
    near(g, flops / (d.c.fetches / 3e9) / 1e9);
    near(d.write_rate, 1); /* RGBA32UI targets: the RGBA32F write rate */
    /* With an fp64 rate below the fetch bound, it binds, at that rate. */
    p.mad64_gflops = 10;
    g = search_bound_compute(&f64, 64, 64, 64, &p, &d);
    ck_assert_str_eq(d.unit, "fp64 multiply-add");
    near(d.mad_rate, 10);
    near(g, 10);
    search_bound_gflops(&f64, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "fp64 multiply-add") && strstr(why, "at 10 GFLOP/s"), "%s", why);

    /* dd, mc=1x1: four words a value, a RGBA32UI texel; 36 operations a
     * multiply-add and a split (4) a value fetched. */
    int per_mad, per_value;
    gen_wide_mad_ops(GG_STORE_DD, &per_mad, &per_value);
    ck_assert_int_eq(per_mad, 36);
    ck_assert_int_eq(per_value, 4);
    gg_variant dd = var("mrt=2x2,mc=1x1,np=all,store=dd");
    g = search_bound_compute(&dd, 64, 64, 64, &p, &d);
    near(d.c.fragments, 1024);
    double values = 1024.0 * (2 * 64 + 2 * 64); /* one value a texel */
    near(d.c.mad_ops, 36 * mads + 4 * values);
    ck_assert_str_eq(d.unit, "fp64 multiply-add");
    near(g, 20.0 * mads / d.c.mad_ops); /* 0.5 GFLOP/s: 40 operations (flops) a multiply-add here */
    near(g, 0.5);
    search_bound_gflops(&dd, 64, 64, 64, &p, why, sizeof why);
    ck_assert_msg(strstr(why, "operations"), "%s", why);

    /* df: the same operations in fp32, at fp32's rate (mad64 does not
     * change it). */
    gg_variant df = var("mrt=2x2,mc=1x1,np=all,store=df");
    g = search_bound_compute(&df, 64, 64, 64, &p, &d);
    ck_assert(!d.c.fp64);
    ck_assert_int_eq(d.c.texel_words, 2); /* two fp32 words: RG32UI */
    ck_assert_str_eq(d.unit, "multiply-add");
    near(d.mad_rate, 100);
    near(g, 200.0 * mads / d.c.mad_ops);
    p.mad64_gflops = 1e-3;
    near(search_bound_compute(&df, 64, 64, 64, &p, &d), g);

    /* 2-word texels (f64, mc=1x1: RG32UI) at RGBA16F's rate; their targets
     * are not measured: no write term. */
    p.mad64_gflops = 1e6;
    gg_variant f64one = var("mrt=2x2,mc=1x1,np=all,store=f64");
    g = search_bound_compute(&f64one, 64, 64, 64, &p, &d);
    ck_assert_int_eq(d.c.texel_words, 2);
    ck_assert_str_eq(d.fetch_fmt, "rgba16f");
    near(d.fetch_rate, 5);
    ck_assert(d.write_rate == 0 && d.write_s == 0);
    ck_assert_str_eq(d.unit, "texel fetch");
    near(g, flops / (1024.0 * (64 + 64 + 64 + 64 + 4) / 5e9) / 1e9);

    /* fp32 variants do not see the fp64 rate. */
    gg_variant f32 = var("mrt=2x2,mc=1x2,np=all");
    p.mad64_gflops = 0;
    double g32 = search_bound_compute(&f32, 64, 64, 64, &p, &d);
    p.mad64_gflops = 1e-3;
    near(search_bound_compute(&f32, 64, 64, 64, &p, &d), g32);
    ck_assert(!d.c.fp64 && d.c.texel_words == 0);
    near(d.c.mad_ops, d.c.mads);
}
END_TEST

/* The H200's figures (results/nvidia-h200/probe.csv; its fp64 rate is
 * tests/device/fp64mad.c's 917 GFLOP/s where the file has no mad64 row):
 * the tuned f64 best at 1024^3 fetches 8 RGBA32UI texels per 32 fp64
 * fmas, so fetch binds it, below the 235.6 GFLOP/s it measured at most by
 * the margin. */
START_TEST(test_wide_bound_h200)
{
    static gg_probe_result p;
    char err[512], why[256];
    ck_assert_msg(search_bound_load("results", "nvidia-h200", &p, err, sizeof err) == 0, "%s", err);
    if (!(p.mad64_gflops > 0))
        p.mad64_gflops = 917;
    gg_variant v = var("store=f64,mrt=4x2,mc=1x2,np=32,unroll=1,profile=330");
    gg_bound_detail d;
    double g = search_bound_compute(&v, 1024, 1024, 1024, &p, &d);
    search_bound_gflops(&v, 1024, 1024, 1024, &p, why, sizeof why);
    fprintf(stderr, "bound: H200 f64 best: %s\n", why);
    ck_assert(isfinite(g) && g > 0);
    ck_assert_str_eq(d.unit, "texel fetch");
    ck_assert_str_eq(d.fetch_fmt, "rgba32f");
    /* 8 texels (4 of A, 4 of B) a k-step of 32 multiply-adds */
    near(d.c.input_fetches / d.c.mads, 8.0 / 32);
    ck_assert(d.fetch_s > d.mad_s && d.mad_s > 0 && d.fetch_s > d.write_s);
    const double measured = 235.63;
    ck_assert_msg(g >= measured && g <= GG_BOUND_MARGIN * measured, "bound %g", g);
}
END_TEST

/* gen/eft.h's operation counts are those of the text gen_eft_put writes
 * (the Dekker split variant that gen/wide_emit.c asks for, `precise`):
 * each function's additions, subtractions and multiplications, and those
 * of the functions it calls. */
static int eft_ops(const char *text, const char *fn)
{
    char def[64];
    snprintf(def, sizeof def, " %s(", fn);
    const char *at = text, *body = NULL;
    while ((at = strstr(at, def))) { /* the definition: its line ends ")\n{\n" */
        const char *eol = strchr(at, '\n');
        if (eol && !strncmp(eol, "\n{\n", 3) && eol[-1] == ')') {
            body = eol + 3;
            break;
        }
        at++;
    }
    ck_assert_msg(body != NULL, "no function %s in the text", fn);
    const char *end = strstr(body, "\n}\n");
    ck_assert_ptr_nonnull(end);
    int ops = 0;
    static const char *const ins[] = {" + ", " - ", " * "};
    for (size_t i = 0; i < 3; i++)
        for (const char *q = body; (q = strstr(q, ins[i])) && q < end; q++)
            ops++;
    static const char *const callees[] = {"two_sum", "quick_two_sum", "split", "two_prod"};
    for (size_t i = 0; i < 4; i++) {
        char call[32];
        snprintf(call, sizeof call, " %s(", callees[i]);
        for (const char *q = body; (q = strstr(q, call)) && q < end; q++)
            ops += eft_ops(text, callees[i]);
    }
    return ops;
}

START_TEST(test_eft_op_counts)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        gg_sbuf sb;
        gen_sb_init(&sb);
        gen_eft_put(&sb, dbl, false, GG_EFT_PRECISE);
        char *text = gen_sb_finish(&sb);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(eft_ops(text, "two_sum"), GG_EFT_OPS_TWO_SUM);
        ck_assert_int_eq(eft_ops(text, "quick_two_sum"), GG_EFT_OPS_QUICK_TWO_SUM);
        ck_assert_int_eq(eft_ops(text, "split"), GG_EFT_OPS_SPLIT);
        ck_assert_int_eq(eft_ops(text, "two_prod"), GG_EFT_OPS_TWO_PROD);
        ck_assert_int_eq(eft_ops(text, "w_add"), GG_EFT_OPS_W_ADD);
        ck_assert_int_eq(eft_ops(text, "w_mul"), GG_EFT_OPS_W_MUL);
        ck_assert_int_eq(GG_EFT_OPS_W_ADD, 20);
        ck_assert_int_eq(GG_EFT_OPS_W_MUL, 24);
        free(text);
    }
    int per_mad, per_value;
    gen_wide_mad_ops(GG_STORE_DF, &per_mad, &per_value);
    ck_assert_int_eq(per_mad, GG_EFT_OPS_W_ADD + GG_EFT_OPS_W_MUL - 2 * GG_EFT_OPS_SPLIT);
    ck_assert_int_eq(per_value, GG_EFT_OPS_SPLIT);
    gen_wide_mad_ops(GG_STORE_F64, &per_mad, &per_value);
    ck_assert(per_mad == 1 && per_value == 0);
}
END_TEST

START_TEST(test_calibration)
{
    DIR *top = opendir("results");
    ck_assert_msg(top != NULL, "run from the repository root (results/)");
    struct dirent *e;
    int cards = 0;
    bool llvmpipe = false, h200 = false;
    while ((e = readdir(top))) {
        if (e->d_name[0] == '.')
            continue;
        char dir[300], path[700], err[512];
        snprintf(dir, sizeof dir, "results/%s", e->d_name);
        static gg_probe_result p;
        snprintf(path, sizeof path, "%s/probe.csv", dir);
        if (access(path, F_OK) != 0)
            continue;
        ck_assert_msg(search_bound_load("results", e->d_name, &p, err, sizeof err) == 0, "%s", err);
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        struct dirent *f;
        calib c = {0, ""};
        long rows = 0;
        while ((f = readdir(d))) {
            size_t l = strlen(f->d_name);
            if (strncmp(f->d_name, "tune-", 5) || l < 4 || strcmp(f->d_name + l - 4, ".csv"))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            long prunable, ok = calibrate_file(path, &p, &c, &prunable);
            fprintf(stderr, "bound calibration: %s: %ld ok rows, %ld below best/%.2g\n", path, ok,
                    prunable, GG_BOUND_MARGIN);
            rows += ok;
        }
        closedir(d);
        if (!rows)
            continue;
        cards++;
        llvmpipe |= !strcmp(e->d_name, "llvmpipe");
        h200 |= !strcmp(e->d_name, "nvidia-h200");
        fprintf(stderr, "bound calibration: %s: max measured/bound %.3f (%s) over %ld ok rows; "
                        "margin %.2g\n", e->d_name, c.max_ratio, c.worst, rows, GG_BOUND_MARGIN);
        /* Room under the margin: a tenth at least. */
        ck_assert_msg(c.max_ratio * 1.1 <= GG_BOUND_MARGIN, "%s: max ratio %.3f (%s)", e->d_name,
                      c.max_ratio, c.worst);
    }
    closedir(top);
    ck_assert(llvmpipe && h200);
    ck_assert_int_ge(cards, 2);
}
END_TEST

START_TEST(test_load)
{
    static gg_probe_result p;
    char err[512];
    ck_assert_int_eq(search_bound_load("results", "llvmpipe", &p, err, sizeof err), 0);
    ck_assert(p.mad_gflops > 0 && p.write_max_targets >= 1);
    ck_assert_int_eq(search_bound_load("results", "no-such-card", &p, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no-such-card/probe.csv"), "%s", err);
}
END_TEST

/* ---- the search ---- */

/* Every factor has its own best: profile 300es, unroll 1, acc blend,
 * compiler glsl, mc 2x2, mrt 2x4, np 12 (64 k-steps of 1x1 at k = 64). */
static double formula(const gg_variant *v)
{
    static const double prof[GG_PROFILE_COUNT] = {0.7, 0.9, 1.0, 0.5, 0.5};
    static const double acc[3] = {0.6, 0.8, 1.0};
    double g = prof[v->profile] * acc[v->acc] * (v->unroll ? 1.0 : 0.93) *
               (v->compiler == GG_COMPILER_GLSL ? 1.0 : 0.95);
    int mc = v->mc.rows * v->mc.cols, mrt = v->mrt.rows * v->mrt.cols;
    g *= (mc == 4 ? 2.0 : mc == 2 ? 1.5 : mc == 3 ? 1.2 : 1.0) * (v->mc.rows == v->mc.cols ? 1.1 : 1.0);
    g *= 1 + 0.1 * mrt - 0.002 * mrt * mrt + (v->mrt.rows == 2 && v->mrt.cols == 4 ? 0.05 : 0);
    g *= v->store == GG_STORE_F16 ? 1.3 : 1.0;
    return g;
}

typedef struct {
    int k;
    long calls;
    char (*seen)[GG_VARIANT_TEXT];
    long nseen, cap;
    /* what the hook saw pruned */
    char (*pruned)[GG_VARIANT_TEXT];
    long npruned, cappruned;
    bool bad_detail;
    double bound_factor; /* bound = formula x this (>= 1: a true upper bound) */
    long bound_calls;
} world;

static double value(const world *w, const gg_variant *v)
{
    int ks = search_ksteps(v->mc, w->k);
    int np = v->np == GG_NP_ALL ? ks : v->np;
    return formula(v) * (100 - 0.8 * fabs(np - 12.0));
}

static void push(char (**list)[GG_VARIANT_TEXT], long *n, long *cap, const gg_variant *v)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *list = realloc(*list, (size_t)*cap * sizeof **list);
        ck_assert_ptr_nonnull(*list);
    }
    gen_variant_format(v, (*list)[(*n)++], GG_VARIANT_TEXT);
}

static int eval(void *user, const gg_variant *v, gg_measurement *m)
{
    world *w = user;
    w->calls++;
    push(&w->seen, &w->nseen, &w->cap, v);
    double g = value(w, v);
    m->status = GG_OK;
    m->gflops = g;
    m->seconds = 1 / g;
    m->passes = 1;
    return 0;
}

static double bound(void *user, const gg_variant *v)
{
    world *w = user;
    w->bound_calls++;
    return value(w, v) * w->bound_factor;
}

static int hook(void *user, gg_search *s, const gg_variant *v, const gg_outcome *o,
                const gg_measurement *m, bool fresh)
{
    (void)s;
    world *w = user;
    if (o->status == GG_PRUNED_BOUND && fresh) {
        push(&w->pruned, &w->npruned, &w->cappruned, v);
        if (!m || m->status != GG_PRUNED_BOUND || !strstr(m->detail, "upper bound") ||
            !strstr(m->detail, "best") || o->gflops != 0)
            w->bad_detail = true;
    }
    return 0;
}

static void world_free(world *w)
{
    free(w->seen);
    free(w->pruned);
}

static gg_search *make(gg_search_config *c, world *w, const char *fix, bool with_bound)
{
    char err[256];
    ck_assert_msg(search_fix_parse(fix, &c->fix, err, sizeof err) == 0, "%s", err);
    w->k = c->k;
    if (w->bound_factor == 0)
        w->bound_factor = 1.2;
    c->eval = eval;
    c->user = w;
    c->hook = hook;
    c->hook_user = w;
    if (with_bound) {
        c->bound = bound;
        c->bound_user = w;
    }
    gg_search *s = search_new(c, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

static bool listed(char (*list)[GG_VARIANT_TEXT], long n, const char *t)
{
    for (long i = 0; i < n; i++)
        if (!strcmp(list[i], t))
            return true;
    return false;
}

static bool has_note(const gg_search *s, const char *prefix)
{
    for (int i = 0; i < search_nnotes(s); i++)
        if (!strncmp(search_note(s, i), prefix, strlen(prefix)))
            return true;
    return false;
}

/* Runs strategy with and without the bound: the same best; the pruned points
 * never reached the evaluator, were recorded as pruned_bound and were truly
 * below the best over the margin. */
static void same_best(gg_strategy strategy, const char *fix, int mnk, long budget, long *pruned_out)
{
    char bt[2][GG_VARIANT_TEXT];
    double bg[2];
    long calls[2];
    for (int with = 0; with < 2; with++) {
        gg_search_config c;
        search_config_default(&c, mnk, mnk, mnk);
        c.strategy = strategy;
        c.budget = budget;
        world w = {0};
        gg_search *s = make(&c, &w, fix, with);
        ck_assert_int_eq(search_run(s), 0);
        const gg_search_stats *st = search_get_stats(s);
        ck_assert(st->have_best);
        gen_variant_format(&st->best, bt[with], sizeof bt[with]);
        bg[with] = st->best_outcome.gflops;
        calls[with] = w.calls;
        ck_assert_int_eq(st->bound_pruned, w.npruned);
        ck_assert_int_eq(st->by_status[GG_PRUNED_BOUND], w.npruned);
        ck_assert_int_eq(st->visited, st->measured + st->from_memo);
        ck_assert_int_eq(st->measured, w.calls + w.npruned);
        ck_assert(!w.bad_detail);
        for (long i = 0; i < w.npruned; i++) {
            ck_assert_msg(!listed(w.seen, w.nseen, w.pruned[i]), "%s pruned and evaluated",
                          w.pruned[i]);
            gg_variant v = var(w.pruned[i]);
            ck_assert(c.bound_margin * bound(&w, &v) < bg[with]);
        }
        if (with) {
            ck_assert_int_gt(w.npruned, 0);
            ck_assert(has_note(s, "bound: "));
            char note[64];
            snprintf(note, sizeof note, "bound: %ld variants not run", w.npruned);
            ck_assert(has_note(s, note));
            *pruned_out = w.npruned;
        } else {
            ck_assert_int_eq(w.npruned, 0);
            ck_assert_int_eq(w.bound_calls, 0);
            ck_assert(!has_note(s, "bound: "));
        }
        search_free(s);
        world_free(&w);
    }
    ck_assert_str_eq(bt[0], bt[1]);
    ck_assert_double_eq(bg[0], bg[1]);
    ck_assert_int_lt(calls[1], calls[0]);
    fprintf(stderr, "bound pruning, %s %s: %ld evaluations without, %ld with (%s)\n",
            search_strategy_name(strategy), fix ? fix : "", calls[0], calls[1], bt[1]);
}

START_TEST(test_search_exhaustive)
{
    long pruned;
    same_best(GG_SEARCH_EXHAUSTIVE, "profile=330,compiler=glsl,unroll=0,acc=copy", 64, 0, &pruned);
    same_best(GG_SEARCH_EXHAUSTIVE, "profile=120,unroll=1,acc=pingpong,store=f16", 64, 0, &pruned);
}
END_TEST

START_TEST(test_search_phase)
{
    long pruned;
    same_best(GG_SEARCH_PHASE, NULL, 64, 0, &pruned);
    same_best(GG_SEARCH_PHASE, "mrt=2x4,unroll=1", 256, 0, &pruned);
}
END_TEST

/* Random: pruned points count against the budget like any point looked
 * at, so the seeded draw is the same set with or without the bound. */
START_TEST(test_search_random)
{
    long pruned;
    same_best(GG_SEARCH_RANDOM, "profile=330,compiler=glsl,unroll=0", 64, 400, &pruned);
}
END_TEST

/* Resumed records count towards the best, those of the other store do not;
 * a point asked for by name is never pruned; the margin must be >= 1. */
START_TEST(test_search_preload_and_visit)
{
    const char *fix = "profile=330,compiler=glsl,unroll=0,acc=copy";
    long base;
    {
        gg_search_config c;
        search_config_default(&c, 64, 64, 64);
        c.strategy = GG_SEARCH_EXHAUSTIVE;
        world w = {0};
        gg_search *s = make(&c, &w, fix, true);
        ck_assert_int_eq(search_run(s), 0);
        base = w.npruned;
        search_free(s);
        world_free(&w);
    }
    /* An f16 point scoring 1e9 from the records: not this search's store. */
    gg_search_config c;
    search_config_default(&c, 64, 64, 64);
    c.strategy = GG_SEARCH_EXHAUSTIVE;
    world w = {0};
    gg_search *s = make(&c, &w, fix, true);
    gg_outcome huge = {GG_OK, 1, 1e-9, 1e9, 1e-7};
    gg_variant h = var("mrt=4x2,mc=2x2,np=3,store=f16");
    ck_assert_int_eq(search_preload(s, &h, &huge), 1);
    ck_assert_int_eq(search_run(s), 0);
    ck_assert_int_eq(w.npruned, base);
    search_free(s);
    world_free(&w);

    /* An f32 record above anything this space reaches: every new point the
     * strategy looks at is pruned, from the first on. */
    memset(&w, 0, sizeof w);
    search_config_default(&c, 64, 64, 64);
    c.strategy = GG_SEARCH_EXHAUSTIVE;
    s = make(&c, &w, fix, true);
    h = var("mrt=4x2,mc=2x2,np=3,profile=120");
    ck_assert_int_eq(search_preload(s, &h, &huge), 1);
    ck_assert_int_eq(search_run(s), 0);
    ck_assert_int_eq(w.calls, 0);
    const gg_search_stats *st = search_get_stats(s);
    ck_assert_int_eq(st->bound_pruned, st->visited);
    ck_assert_int_gt(st->visited, 1000);
    ck_assert(!st->have_best); /* nothing this search looked at scored */
    gg_variant b;
    ck_assert(search_memo_best_store(s, GG_STORE_F32, &b, NULL));
    ck_assert_int_eq(b.profile, GG_PROFILE_120);
    /* By name: evaluated, pruned or not. */
    gg_variant v = var("mrt=1x1,mc=1x1,np=1,profile=330,compiler=glsl,unroll=1,acc=copy");
    gg_outcome o;
    ck_assert_int_eq(search_visit(s, &v, &o), 0);
    ck_assert_int_eq(w.calls, 1);
    ck_assert_int_eq(o.status, GG_OK);
    /* A pruned point asked for again by name: the memo's (pruned_bound). */
    v = var("mrt=1x1,mc=1x1,np=1,profile=330,compiler=glsl,unroll=0,acc=copy");
    ck_assert_int_eq(search_visit(s, &v, &o), 0);
    ck_assert_int_eq(o.status, GG_PRUNED_BOUND);
    ck_assert_int_eq(w.calls, 1);
    search_free(s);
    world_free(&w);

    /* A margin below 1 could prune the winner. */
    search_config_default(&c, 64, 64, 64);
    ck_assert_double_eq(c.bound_margin, GG_BOUND_MARGIN);
    c.eval = eval;
    c.bound = bound;
    c.bound_margin = 0.9;
    char err[256];
    ck_assert_ptr_null(search_new(&c, err, sizeof err));
    ck_assert_msg(strstr(err, "margin"), "%s", err);
    c.bound = NULL; /* no bound: the margin is not used */
    s = search_new(&c, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    search_free(s);
}
END_TEST

/* Through the tune: pruned points are rows of the records (status
 * pruned_bound, gflops 0), and a resumed tune neither evaluates nor appends
 * them again. */
START_TEST(test_tune_records_pruned)
{
    char dir[] = "/tmp/glgemm-bound-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    long pruned = 0, rows_first = 0;
    for (int run = 0; run < 2; run++) {
        world w = {.bound_factor = 1.2};
        gg_tune_config tc = {.results_dir = dir, .card = "test-card"};
        search_config_default(&tc.search, 64, 64, 64);
        tc.search.strategy = GG_SEARCH_EXHAUSTIVE;
        char err[256];
        ck_assert_int_eq(search_fix_parse("profile=330,compiler=glsl,unroll=0,acc=copy,mrt=2x2",
                                      &tc.search.fix, err, sizeof err), 0);
        w.k = 64;
        tc.search.eval = eval;
        tc.search.user = &w;
        tc.search.bound = bound;
        tc.search.bound_user = &w;
        gg_records_info info;
        gg_tune *t = search_tune_open(&tc, &info, err, sizeof err);
        ck_assert_msg(t != NULL, "%s", err);
        ck_assert_int_eq(search_tune_run(t), 0);
        ck_assert_int_eq(search_tune_finish(t), 0);
        const gg_search_stats *st = search_get_stats(search_tune_search(t));
        if (run == 0) {
            pruned = st->bound_pruned;
            ck_assert_int_gt(pruned, 0);
            ck_assert_int_eq(st->by_status[GG_PRUNED_BOUND], pruned);
        } else {
            ck_assert_int_eq(info.rows, rows_first);
            ck_assert_int_eq(w.calls, 0);
            ck_assert_int_eq(st->bound_pruned, 0);
            ck_assert_int_eq(st->by_status[GG_PRUNED_BOUND], pruned); /* from the records */
        }
        char path[400];
        snprintf(path, sizeof path, "%s", search_tune_records_path(t));
        search_tune_close(t);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        char line[GG_CSV_ROW_MAX + 8];
        long rows = 0, prows = 0;
        while (fgets(line, sizeof line, f)) {
            if (store_csv_is_header(line))
                continue;
            rows++;
            if (strstr(line, ",pruned_bound,")) {
                prows++;
                ck_assert_msg(strstr(line, ",pruned_bound,0,0,\n"), "%s", line);
            }
        }
        fclose(f);
        ck_assert_int_eq(prows, pruned);
        if (run == 0)
            rows_first = rows;
        else
            ck_assert_int_eq(rows, rows_first);
        world_free(&w);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *make_bound_suite(void)
{
    Suite *s = suite_create("bound");
    TCase *tc = tcase_create("bound");
    tcase_add_test(tc, test_arithmetic);
    tcase_add_test(tc, test_paths_and_image_store);
    tcase_add_test(tc, test_old_probe_same_bound);
    tcase_add_test(tc, test_f16x8_bound);
    tcase_add_test(tc, test_ssbo_bound);
    tcase_add_test(tc, test_wide_bound);
    tcase_add_test(tc, test_wide_bound_h200);
    tcase_add_test(tc, test_eft_op_counts);
    tcase_add_test(tc, test_calibration);
    tcase_add_test(tc, test_load);
    suite_add_tcase(s, tc);
    TCase *se = tcase_create("search");
    tcase_set_timeout(se, 60);
    tcase_add_test(se, test_search_exhaustive);
    tcase_add_test(se, test_search_phase);
    tcase_add_test(se, test_search_random);
    tcase_add_test(se, test_search_preload_and_visit);
    tcase_add_test(se, test_tune_records_pruned);
    suite_add_tcase(s, se);
    return s;
}
