/* glhost/probe: the quick probe gives positive finite rates on llvmpipe
 * (every fetch path, image stores included); the multiply-add, fetch and
 * image-store shaders compute what their rates claim (checked against the
 * CPU for every fragment of small targets); probe.csv is written atomically
 * and parses back with every ceiling, and a file from before the per-path
 * and image-store rows still reads; `glgemm probe` writes it and rejects bad
 * usage with exit 2.  GL cases make their context inside the (forked) test. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glhost/context.h"
#include "glhost/probe.h"
#include "glhost/probe_internal.h"
#include "tests/cli_util.h"
#include "tests/suites.h"


static gg_ctx *make_ctx(void)
{
    char err[512] = "";
    gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, 0, GG_CTX_CORE, err, sizeof err, NULL);
    ck_assert_msg(ctx != NULL, "no EGL core context: %s", err);
    return ctx;
}

static void make_tmpdir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/glgemm-probe-XXXXXX");
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static bool positive(double v) { return isfinite(v) && v > 0; }

static void assert_ceilings(const gg_probe_result *r)
{
    ck_assert_msg(positive(r->mad_gflops), "mad %g", r->mad_gflops);
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int p = 0; p < GG_FETCH_NPAT; p++) {
            if (!base_probe_fetch_measured(f, p)) {
                ck_assert(r->fetch_gtexels[f][p] == 0 && r->fetch_gbs[f][p] == 0);
                continue;
            }
            ck_assert_msg(positive(r->fetch_gtexels[f][p]), "fetch[%d][%d] %g", f, p,
                          r->fetch_gtexels[f][p]);
            /* 4 bytes an R32F texel, 16 an RGBA32F one, 8 an RGBA16F one. */
            double bytes = f == GG_FETCH_R32F ? 4 : f == GG_FETCH_RGBA16F ? 8 : 16;
            ck_assert_msg(fabs(r->fetch_gbs[f][p] - bytes * r->fetch_gtexels[f][p]) <=
                              1e-4 * r->fetch_gbs[f][p],
                          "fetch GB/s %g vs %g Gtexel/s", r->fetch_gbs[f][p],
                          r->fetch_gtexels[f][p]);
        }
    ck_assert_int_ge(r->write_max_targets, 1);
    ck_assert_int_le(r->write_max_targets, GG_MAX_TARGETS);
    for (int n = 1; n <= r->write_max_targets; n++) {
        ck_assert_msg(positive(r->write_gtexels[n]), "write %d: %g", n, r->write_gtexels[n]);
        ck_assert_msg(fabs(r->write_gbs[n] - 16 * r->write_gtexels[n]) <= 1e-4 * r->write_gbs[n],
                      "write %d GB/s", n);
    }
    ck_assert_msg(positive(r->readback_gbs), "readback %g", r->readback_gbs);
}

/* The fetch paths and image stores: llvmpipe's core context is 4.5, so
 * every one of them is measured. */
static void assert_paths_and_stores(const gg_probe_result *r)
{
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int pa = GG_FETCH_TEXTURE + 1; pa <= GG_PROBE_LAST_PATH; pa++)
            for (int p = 0; p < GG_FETCH_NPAT; p++) {
                double g = r->path_gtexels[f][pa][p], b = r->path_gbs[f][pa][p];
                if (!base_probe_path_measured(f, pa, p)) {
                    ck_assert(g == 0 && b == 0);
                    continue;
                }
                ck_assert_msg(positive(g), "fetch %s path %s pattern %s: %g", base_fetch_fmt_names[f],
                              gen_fetch_name((gg_fetch)pa), base_fetch_pat_names[p], g);
                ck_assert(fabs(b - base_fetch_bytes(f) * g) <= 1e-4 * b);
            }
    for (int i = 0; i < GG_PROBE_NSTORE; i++) {
        ck_assert_msg(positive(r->store_gtexels[i]), "imagestore %d: %g", base_probe_store_texels[i],
                      r->store_gtexels[i]);
        ck_assert(fabs(r->store_gbs[i] - 16 * r->store_gtexels[i]) <= 1e-4 * r->store_gbs[i]);
    }
    ck_assert(positive(base_probe_store_rate(r)));
    for (int f = GG_FETCH_RGBA32F; f <= GG_FETCH_RGBA16F; f++)
        for (int pa = 0; pa <= GG_PROBE_LAST_PATH; pa++)
            if (pa == GG_FETCH_TEXTURE || base_probe_path_measured(f, pa, GG_FETCH_GEMM24))
                ck_assert_msg(positive(base_probe_path_rate(r, f, pa)), "%s %s",
                              base_fetch_fmt_names[f], gen_fetch_name((gg_fetch)pa));
}

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-5 * fabs(b); }

static bool has_row(const gg_probe_result *r, const char *metric, const char *variant,
                    const char *unit)
{
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].metric, metric) && !strcmp(r->rows[i].variant, variant) &&
            !strcmp(r->rows[i].unit, unit))
            return true;
    return false;
}

START_TEST(quick_probe_runs_and_round_trips)
{
    gg_ctx *ctx = make_ctx();
    gg_probe_opts o;
    host_probe_opts_default(&o, true);
    static gg_probe_result r, back;
    gg_status st = host_probe_run(&o, &r);
    ck_assert_msg(st == GG_OK, "probe: %s: %s", base_status_name(st), r.detail);
    host_ctx_destroy(ctx);
    assert_ceilings(&r);
    assert_paths_and_stores(&r);
    ck_assert(has_row(&r, "fetch", "rgba32f-texelfetch-gemm-2x4-4x1", "Gtexel/s"));
    ck_assert(has_row(&r, "fetch", "rgba16f-image-gemm-4x2-1x4", "GB/s"));
    ck_assert(has_row(&r, "fetch", "rgba32f-buffer-gemm-4x2-1x4", "Gtexel/s"));
    ck_assert(has_row(&r, "imagestore", "rgba32f-1-per-fragment", "Gtexel/s"));
    ck_assert(has_row(&r, "imagestore", "rgba32f-64-per-fragment", "GB/s"));
    /* llvmpipe offers 8 draw buffers: all eight are measured. */
    ck_assert_int_eq(r.write_max_targets, 8);
    double best = 0;
    for (int i = 0; i < r.nrows; i++)
        if (!strcmp(r.rows[i].metric, "mad") && strcmp(r.rows[i].variant, "max"))
            best = fmax(best, r.rows[i].value);
    ck_assert_msg(best == r.mad_gflops, "max %g is not the best point %g", r.mad_gflops, best);
    /* llvmpipe's 4.5 core context has doubles: the fp64 sweep is measured,
     * its max is its best point, and it is named apart from fp32's. */
    ck_assert_msg(positive(r.mad64_gflops), "mad64 %g", r.mad64_gflops);
    ck_assert(has_row(&r, "mad64", "max", "GFLOP/s"));
    double best64 = 0;
    int points64 = 0;
    for (int i = 0; i < r.nrows; i++)
        if (!strcmp(r.rows[i].metric, "mad64") && strcmp(r.rows[i].variant, "max")) {
            best64 = fmax(best64, r.rows[i].value);
            points64++;
            ck_assert(has_row(&r, "mad64", r.rows[i].variant, "GFLOP/s"));
        }
    ck_assert_int_eq(points64, 2); /* --quick: two shapes at one size, as fp32's */
    ck_assert(best64 == r.mad64_gflops);
    ck_assert(has_row(&r, "mad64", r.mad64_best, "GFLOP/s"));

    char dir[64], path[128], err[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/probe.csv", dir);
    ck_assert_msg(base_probe_write_csv(&r, path, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(base_probe_read_csv(path, &back, err, sizeof err) == 0, "%s", err);
    assert_ceilings(&back);
    ck_assert_int_eq(back.nrows, r.nrows);
    ck_assert(close_to(back.mad_gflops, r.mad_gflops));
    ck_assert_str_eq(back.mad_best, r.mad_best);
    ck_assert(close_to(back.mad64_gflops, r.mad64_gflops));
    ck_assert_str_eq(back.mad64_best, r.mad64_best);
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int p = 0; p < GG_FETCH_NPAT; p++)
            ck_assert(close_to(back.fetch_gtexels[f][p], r.fetch_gtexels[f][p]) &&
                      close_to(back.fetch_gbs[f][p], r.fetch_gbs[f][p]));
    /* The GEMM patterns are measured, so the faster is the RGBA formats' ceiling. */
    for (int fm = GG_FETCH_RGBA32F; fm <= GG_FETCH_RGBA16F; fm++)
        ck_assert(base_probe_fetch_ceiling(&back, fm) ==
                  fmax(back.fetch_gtexels[fm][GG_FETCH_GEMM24],
                       back.fetch_gtexels[fm][GG_FETCH_GEMM42]));
    ck_assert_int_eq(back.write_max_targets, r.write_max_targets);
    for (int n = 1; n <= r.write_max_targets; n++)
        ck_assert(close_to(back.write_gbs[n], r.write_gbs[n]));
    ck_assert(close_to(back.readback_gbs, r.readback_gbs));
    assert_paths_and_stores(&back);
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int pa = 0; pa <= GG_PROBE_LAST_PATH; pa++) {
            for (int p = 0; p < GG_FETCH_NPAT; p++)
                ck_assert(close_to(back.path_gtexels[f][pa][p], r.path_gtexels[f][pa][p]) &&
                          close_to(back.path_gbs[f][pa][p], r.path_gbs[f][pa][p]));
            ck_assert(close_to(base_probe_path_rate(&back, f, pa), base_probe_path_rate(&r, f, pa)));
        }
    for (int i = 0; i < GG_PROBE_NSTORE; i++)
        ck_assert(close_to(back.store_gtexels[i], r.store_gtexels[i]) &&
                  close_to(back.store_gbs[i], r.store_gbs[i]));
    rm_rf(dir);
}
END_TEST

/* w, h, chains, unroll, iters (the probe's shapes and some odd ones) */
static const int mad_cases[][5] = {
    {16, 8, 4, 8, 1}, {16, 16, 8, 4, 37}, {8, 8, 16, 2, 100}, {4, 4, 32, 1, 1000},
    {33, 7, 1, 1, 5}, {9, 5, 3, 5, 7},
};

START_TEST(mad_shader_matches_cpu)
{
    const int *c = mad_cases[_i];
    int w = c[0], h = c[1], chains = c[2], unroll = c[3], iters = c[4], steps = unroll * iters;
    gg_ctx *ctx = make_ctx();
    float *px = malloc((size_t)w * h * 4 * sizeof *px);
    ck_assert_ptr_nonnull(px);
    char err[512];
    ck_assert_msg(host_probe_mad_values(w, h, chains, unroll, iters, px, err, sizeof err) == 0, "%s", err);
    host_ctx_destroy(ctx);
    /* Lane w: sum over chains of (c + steps * 2^-10), exact in float. */
    double lane_w = chains * (chains - 1) / 2.0 + chains * steps / 1024.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float *got = px + ((size_t)y * w + x) * 4;
            float ref[4], other[4];
            host_probe_mad_reference(x, y, chains, steps, ref);
            double tol = host_probe_mad_tolerance(chains, steps, ref);
            for (int l = 0; l < 4; l++)
                ck_assert_msg(isfinite(got[l]) && fabs((double)got[l] - ref[l]) <= tol,
                              "(%d,%d) lane %d: GPU %.9g CPU %.9g tol %g", x, y, l, got[l],
                              ref[l], tol);
            ck_assert_msg((double)got[3] == lane_w, "(%d,%d) lane w %.9g, expected %.9g", x, y,
                          got[3], lane_w);
            /* The check can fail: one step more is outside the tolerance. */
            host_probe_mad_reference(x, y, chains, steps + 1, other);
            ck_assert_msg(fabs((double)other[3] - got[3]) > tol, "tolerance too loose");
        }
    free(px);
}
END_TEST

/* The fp64 kernel computes in double: every fragment within two float
 * ulps of the double model (lane w exact), which the fp32 kernel of the
 * same chains misses somewhere, so the comparison can tell them apart. */
static void mad_kernel_values(bool fp64, int w, int h, int chains, int unroll, int iters,
                              float *px)
{
    pk_kernel k = {.d = {.kind = PK_MAD, .chains = chains, .unroll = unroll, .fp64 = fp64, .w = w,
                         .h = h}};
    char err[512];
    gg_status st = pk_init(&k, err, sizeof err);
    ck_assert_msg(st == GG_OK, "%s", err);
    pk_draw(&k, iters);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, k.fbo);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_FLOAT, px);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    pk_free(&k);
}

START_TEST(mad64_shader_computes_in_double)
{
    const int *c = mad_cases[_i];
    int w = c[0], h = c[1], chains = c[2], unroll = c[3], iters = c[4], steps = unroll * iters;
    gg_ctx *ctx = make_ctx();
    float *px = malloc((size_t)w * h * 4 * sizeof *px), *px32 = malloc((size_t)w * h * 4 * sizeof *px);
    ck_assert(px && px32);
    mad_kernel_values(true, w, h, chains, unroll, iters, px);
    mad_kernel_values(false, w, h, chains, unroll, iters, px32);
    host_ctx_destroy(ctx);
    double lane_w = chains * (chains - 1) / 2.0 + chains * steps / 1024.0;
    int fp32_off = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float *got = px + ((size_t)y * w + x) * 4, *got32 = px32 + ((size_t)y * w + x) * 4;
            float ref[4];
            host_probe_mad64_reference(x, y, chains, steps, ref);
            for (int l = 0; l < 3; l++) {
                double tol = host_probe_mad64_tolerance(ref[l]);
                ck_assert_msg(isfinite(got[l]) && fabs((double)got[l] - ref[l]) <= tol,
                              "(%d,%d) lane %d: GPU %.9g CPU (double) %.9g tol %g", x, y, l,
                              got[l], ref[l], tol);
                fp32_off += fabs((double)got32[l] - ref[l]) > tol;
            }
            ck_assert_msg((double)got[3] == lane_w, "(%d,%d) lane w %.9g, expected %.9g", x, y,
                          got[3], lane_w);
        }
    /* Long enough chains in float stray past two ulps of the double result. */
    if (steps >= 100)
        ck_assert_msg(fp32_off > 0, "the fp32 kernel also passes the fp64 check (%d steps)", steps);
    free(px);
    free(px32);
}
END_TEST

/* A context without doubles (Mesa told to hide GL 4.0 and
 * GL_ARB_gpu_shader_fp64): the probe runs, with no mad64 row. */
START_TEST(quick_probe_without_fp64)
{
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
    setenv("MESA_GLSL_VERSION_OVERRIDE", "330", 1);
    setenv("MESA_EXTENSION_OVERRIDE", "-GL_ARB_gpu_shader_fp64", 1);
    gg_ctx *ctx = make_ctx();
    gg_probe_opts o;
    host_probe_opts_default(&o, true);
    static gg_probe_result r, back;
    gg_status st = host_probe_run(&o, &r);
    host_ctx_destroy(ctx);
    unsetenv("MESA_GL_VERSION_OVERRIDE");
    unsetenv("MESA_GLSL_VERSION_OVERRIDE");
    unsetenv("MESA_EXTENSION_OVERRIDE");
    ck_assert_msg(st == GG_OK, "probe: %s: %s", base_status_name(st), r.detail);
    assert_ceilings(&r);
    ck_assert(r.mad64_gflops == 0 && !r.mad64_best[0]);
    for (int i = 0; i < r.nrows; i++)
        ck_assert_msg(strcmp(r.rows[i].metric, "mad64"), "row mad64,%s", r.rows[i].variant);
    char dir[64], path[128], err[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/probe.csv", dir);
    ck_assert_msg(base_probe_write_csv(&r, path, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(base_probe_read_csv(path, &back, err, sizeof err) == 0, "%s", err);
    ck_assert(back.mad64_gflops == 0);
    rm_rf(dir);
}
END_TEST

/* Every fetch kernel the probe times (every path), drawn small, against its CPU model at
 * every fragment (exact: sums of multiples of 2^-10); one iteration more
 * changes the model, so the comparison can fail. */
START_TEST(fetch_kernels_match_cpu)
{
    gg_ctx *ctx = make_ctx();
    for (int path = 0; path <= GG_PROBE_LAST_PATH; path++)
        for (int f = 0; f < GG_FETCH_NFMT; f++)
            for (int pat = 0; pat < GG_FETCH_NPAT; pat++) {
                if (!base_probe_path_measured(f, path, pat))
                    continue;
                /* A small texture: the GEMM pattern and the walk wrap around it. */
                pk_kernel k = {.d = {.kind = PK_FETCH, .fmt = f, .pattern = pat, .path = path,
                                     .tex_log2w = 5, .tex_log2h = 4, .w = 13, .h = 9}};
                int iters = pat >= GG_FETCH_GEMM24 ? 11 : 24;
                char err[512];
                gg_status st = pk_init(&k, err, sizeof err);
                ck_assert_msg(st == GG_OK, "%s", err);
                pk_draw(&k, iters);
                float *px = malloc((size_t)k.d.w * k.d.h * 4 * sizeof *px);
                ck_assert_ptr_nonnull(px);
                glBindFramebuffer(GL_READ_FRAMEBUFFER, k.fbo);
                glReadBuffer(GL_COLOR_ATTACHMENT0);
                glReadPixels(0, 0, k.d.w, k.d.h, GL_RGBA, GL_FLOAT, px);
                ck_assert_int_eq(glGetError(), GL_NO_ERROR);
                for (int y = 0; y < k.d.h; y++)
                    for (int x = 0; x < k.d.w; x++) {
                        float want[4], more[4];
                        const float *got = px + ((size_t)y * k.d.w + x) * 4;
                        host_probe_expect(&k.d, 0, x, y, iters, want);
                        host_probe_expect(&k.d, 0, x, y, iters + 4, more);
                        char name[48];
                        ck_assert_msg(!memcmp(got, want, sizeof want),
                                      "fetch %s (%d,%d): GPU (%g,%g,%g,%g) CPU (%g,%g,%g,%g)",
                                      base_probe_fetch_variant(f, path, pat, name, sizeof name), x, y,
                                      got[0], got[1], got[2], got[3], want[0], want[1], want[2],
                                      want[3]);
                        ck_assert(memcmp(more, want, sizeof want) != 0);
                    }
                free(px);
                pk_free(&k);
            }
    host_ctx_destroy(ctx);
}
END_TEST

/* The image-store kernel for every block the probe times, on a small
 * image: every texel of it holds what the CPU model says (the image starts
 * at zero, which no written texel is: lane w is 1), read back through the
 * framebuffer the image is attached to. */
START_TEST(store_kernels_match_cpu)
{
    gg_ctx *ctx = make_ctx();
    for (int i = 0; i < GG_PROBE_NSTORE; i++) {
        int blk = 1;
        while (blk * blk < base_probe_store_texels[i])
            blk++;
        pk_kernel k = {.d = {.kind = PK_STORE, .blk = blk, .w = 3 * 8, .h = 2 * 8}};
        char err[512];
        gg_status st = pk_init(&k, err, sizeof err);
        ck_assert_msg(st == GG_OK, "%s", err);
        float before[4];
        pk_read(&k, 0, k.d.w - 1, k.d.h - 1, before);
        ck_assert(before[0] == 0 && before[3] == 0);
        pk_draw(&k, 0);
        float *px = malloc((size_t)k.d.w * k.d.h * 4 * sizeof *px);
        ck_assert_ptr_nonnull(px);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, k.rfbo);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        glReadPixels(0, 0, k.d.w, k.d.h, GL_RGBA, GL_FLOAT, px);
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
        for (int y = 0; y < k.d.h; y++)
            for (int x = 0; x < k.d.w; x++) {
                float want[4];
                const float *got = px + ((size_t)y * k.d.w + x) * 4;
                host_probe_expect(&k.d, 0, x, y, 0, want);
                ck_assert_msg(!memcmp(got, want, sizeof want),
                              "imagestore %dx%d (%d,%d): GPU (%g,%g,%g,%g) CPU (%g,%g,%g,%g)", blk,
                              blk, x, y, got[0], got[1], got[2], got[3], want[0], want[1], want[2],
                              want[3]);
            }
        /* The probe's own check of a few texels agrees. */
        float one[4], want[4];
        pk_read(&k, 0, k.d.w / 2, k.d.h / 3, one);
        host_probe_expect(&k.d, 0, k.d.w / 2, k.d.h / 3, 0, want);
        ck_assert(!memcmp(one, want, sizeof want));
        free(px);
        pk_free(&k);
    }
    /* A block that does not divide the image is refused. */
    pk_kernel bad = {.d = {.kind = PK_STORE, .blk = 3, .w = 16, .h = 16}};
    char err[512];
    ck_assert_int_eq(pk_init(&bad, err, sizeof err), GG_INVALID);
    pk_free(&bad);
    /* Other paths than texture() for the GEMM patterns only. */
    pk_kernel friendly = {.d = {.kind = PK_FETCH, .fmt = GG_FETCH_RGBA32F,
                                .pattern = GG_FETCH_FRIENDLY, .path = GG_FETCH_IMAGE,
                                .tex_log2w = 4, .tex_log2h = 4, .w = 4, .h = 4}};
    ck_assert_int_eq(pk_init(&friendly, err, sizeof err), GG_INVALID);
    pk_free(&friendly);
    host_ctx_destroy(ctx);
}
END_TEST

/* ---- CSV without GL ----------------------------------------------------- */

static const char *good_csv =
    "metric,variant,value,unit\n"
    "mad,c8u4-64x64-i16,10.5,GFLOP/s\n"
    "mad,c16u2-64x64-i16,12.25,GFLOP/s\n"
    "mad,max,12.25,GFLOP/s\n"
    "fetch,r32f-friendly,1,Gtexel/s\nfetch,r32f-friendly,4,GB/s\n"
    "fetch,r32f-hostile,0.5,Gtexel/s\nfetch,r32f-hostile,2,GB/s\n"
    "fetch,rgba32f-friendly,2,Gtexel/s\nfetch,rgba32f-friendly,32,GB/s\n"
    "fetch,rgba32f-hostile,0.25,Gtexel/s\nfetch,rgba32f-hostile,4,GB/s\n"
    "write,targets-1,1.5,Gtexel/s\nwrite,targets-1,24,GB/s\n"
    "write,targets-2,2,Gtexel/s\nwrite,targets-2,32,GB/s\n"
    "readback,rgba32f,7.5,GB/s\n";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(csv_reads_summary)
{
    char dir[64], path[128], err[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/probe.csv", dir);
    write_file(path, good_csv);
    static gg_probe_result r;
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.nrows, 16);
    ck_assert(r.mad_gflops == 12.25);
    ck_assert_str_eq(r.mad_best, "c16u2-64x64-i16");
    ck_assert(r.fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_HOSTILE] == 0.25);
    ck_assert(r.fetch_gbs[GG_FETCH_R32F][GG_FETCH_FRIENDLY] == 4);
    ck_assert_int_eq(r.write_max_targets, 2);
    ck_assert(r.write_gbs[2] == 32);
    ck_assert(r.readback_gbs == 7.5);
    /* A file from before the GEMM pattern: the ceiling is the friendly rate. */
    ck_assert(r.fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_GEMM24] == 0);
    ck_assert(base_probe_fetch_ceiling(&r, GG_FETCH_RGBA32F) == 2);
    ck_assert(base_probe_fetch_ceiling(&r, GG_FETCH_RGBA16F) == 0);
    /* ... and from before the other fetch paths and image stores: they are
     * not measured (0); the texture path's rate is its fastest pattern. */
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int pa = GG_FETCH_TEXTURE + 1; pa <= GG_PROBE_LAST_PATH; pa++) {
            ck_assert(base_probe_path_rate(&r, f, pa) == 0);
            for (int p = 0; p < GG_FETCH_NPAT; p++)
                ck_assert(r.path_gtexels[f][pa][p] == 0 && r.path_gbs[f][pa][p] == 0);
        }
    for (int i = 0; i < GG_PROBE_NSTORE; i++)
        ck_assert(r.store_gtexels[i] == 0 && r.store_gbs[i] == 0);
    ck_assert(base_probe_store_rate(&r) == 0);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_TEXTURE) == 2);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_R32F, GG_FETCH_TEXTURE) == 1);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA16F, GG_FETCH_TEXTURE) == 0);

    /* With GEMM-pattern rows they are read and become the ceiling; half of
     * such a pair is an error naming it. */
    char *text = malloc(strlen(good_csv) + 1024);
    ck_assert_ptr_nonnull(text);
    sprintf(text, "%sfetch,rgba32f-gemm-2x4-4x1,3,Gtexel/s\nfetch,rgba32f-gemm-2x4-4x1,48,GB/s\n"
                  "fetch,rgba32f-gemm-4x2-1x4,2.5,Gtexel/s\nfetch,rgba32f-gemm-4x2-1x4,40,GB/s\n"
                  "fetch,rgba16f-gemm-4x2-1x4,5,Gtexel/s\nfetch,rgba16f-gemm-4x2-1x4,40,GB/s\n",
            good_csv);
    write_file(path, text);
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert(base_probe_fetch_ceiling(&r, GG_FETCH_RGBA32F) == 3);
    ck_assert(base_probe_fetch_ceiling(&r, GG_FETCH_RGBA16F) == 5);
    ck_assert(r.fetch_gbs[GG_FETCH_RGBA16F][GG_FETCH_GEMM42] == 40);
    sprintf(text, "%sfetch,rgba32f-gemm-4x2-1x4,3,Gtexel/s\n", good_csv);
    write_file(path, text);
    ck_assert(base_probe_read_csv(path, &r, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "rgba32f-gemm-4x2-1x4") != NULL, "%s", err);

    /* Rows of the other fetch paths and of image stores: read where present
     * (some of them: the others stay 0), the fastest of each is the rate;
     * half a pair is an error naming it. */
    sprintf(text, "%sfetch,rgba32f-texelfetch-gemm-2x4-4x1,1.5,Gtexel/s\n"
                  "fetch,rgba32f-texelfetch-gemm-2x4-4x1,24,GB/s\n"
                  "fetch,rgba32f-texelfetch-gemm-4x2-1x4,1.25,Gtexel/s\n"
                  "fetch,rgba32f-texelfetch-gemm-4x2-1x4,20,GB/s\n"
                  "fetch,rgba16f-buffer-gemm-4x2-1x4,6,Gtexel/s\n"
                  "fetch,rgba16f-buffer-gemm-4x2-1x4,48,GB/s\n"
                  "imagestore,rgba32f-1-per-fragment,0.5,Gtexel/s\n"
                  "imagestore,rgba32f-1-per-fragment,8,GB/s\n"
                  "imagestore,rgba32f-16-per-fragment,0.75,Gtexel/s\n"
                  "imagestore,rgba32f-16-per-fragment,12,GB/s\n",
            good_csv);
    write_file(path, text);
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.nrows, 26);
    ck_assert(r.path_gtexels[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM24] == 1.5);
    ck_assert(r.path_gbs[GG_FETCH_RGBA32F][GG_FETCH_TEXELFETCH][GG_FETCH_GEMM42] == 20);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_TEXELFETCH) == 1.5);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_TEXTURE) == 2);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_IMAGE) == 0);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA16F, GG_FETCH_BUFFER) == 6);
    ck_assert(r.store_gtexels[0] == 0.5 && r.store_gbs[2] == 12);
    ck_assert(r.store_gtexels[1] == 0 && r.store_gtexels[3] == 0);
    ck_assert(base_probe_store_rate(&r) == 0.75);
    /* What the texture path's ceilings were stays. */
    ck_assert(base_probe_fetch_ceiling(&r, GG_FETCH_RGBA32F) == 2);
    sprintf(text, "%sfetch,rgba32f-image-gemm-2x4-4x1,3,Gtexel/s\n", good_csv);
    write_file(path, text);
    ck_assert(base_probe_read_csv(path, &r, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "rgba32f-image-gemm-2x4-4x1") != NULL, "%s", err);
    sprintf(text, "%simagestore,rgba32f-4-per-fragment,3,Gtexel/s\n", good_csv);
    write_file(path, text);
    ck_assert(base_probe_read_csv(path, &r, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "imagestore,rgba32f-4-per-fragment") != NULL, "%s", err);

    /* The fp64 rows: none in good_csv (0: not measured); with them, the max
     * row is the ceiling and the best point is named; points without the
     * max row are an error naming it. */
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == -1, "still broken");
    write_file(path, good_csv);
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert(r.mad64_gflops == 0 && !r.mad64_best[0]);
    sprintf(text, "%smad64,c4u8-64x64-i16,5.5,GFLOP/s\nmad64,c32u1-64x64-i16,6.75,GFLOP/s\n"
                  "mad64,max,6.75,GFLOP/s\n", good_csv);
    write_file(path, text);
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.nrows, 19);
    ck_assert(r.mad64_gflops == 6.75);
    ck_assert_str_eq(r.mad64_best, "c32u1-64x64-i16");
    ck_assert(r.mad_gflops == 12.25); /* fp32's stays its own */
    ck_assert_str_eq(r.mad_best, "c16u2-64x64-i16");
    sprintf(text, "%smad64,c4u8-64x64-i16,5.5,GFLOP/s\n", good_csv);
    write_file(path, text);
    ck_assert(base_probe_read_csv(path, &r, err, sizeof err) == -1);
    ck_assert_msg(strstr(err, "mad64,max") != NULL, "%s", err);
    free(text);
    rm_rf(dir);
}
END_TEST

/* Broken variants of good_csv: {text to replace, replacement, what err names}. */
static const char *csv_bad[][3] = {
    {"metric,variant,value,unit", "metric,variant,value", "header"},
    {"mad,max,12.25,GFLOP/s\n", "", "mad,max"},
    {"readback,rgba32f,7.5,GB/s\n", "", "readback"},
    {"fetch,rgba32f-hostile,4,GB/s\n", "", "rgba32f-hostile"},
    {"write,targets-1,24,GB/s\n", "", "targets-1"},
    {"write,targets-2,32,GB/s", "write,targets-2,nan,GB/s", "finite"},
    {"write,targets-2,32,GB/s", "write,targets-2,3x,GB/s", "finite"},
    {"fetch,r32f-hostile,2,GB/s", "fetch,r32f-hostile,2", "metric,variant,value,unit"},
    {"fetch,r32f-hostile,2,GB/s", "fetch,r32f-hostile,2,GB/s,extra", "metric,variant,value,unit"},
    {"fetch,r32f-hostile,2,GB/s", "fetch,,2,GB/s", "metric,variant,value,unit"},
    /* fuzz: a control byte in the value came out in the message (two lines) */
    {"write,targets-2,32,GB/s", "write,targets-2,3\r\r2,GB/s", "value '3??2' is not"},
    {"write,targets-2,32,GB/s", "write,targets-2,3\n,GB/s", "metric,variant,value,unit"},
};

START_TEST(csv_rejects_broken)
{
    char dir[64], path[128], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/probe.csv", dir);
    const char *from = csv_bad[_i][0], *to = csv_bad[_i][1];
    const char *at = strstr(good_csv, from);
    ck_assert_ptr_nonnull(at);
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good_csv), good_csv, to, at + strlen(from));
    write_file(path, text);
    static gg_probe_result r;
    ck_assert_int_eq(base_probe_read_csv(path, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, csv_bad[_i][2]) != NULL, "message '%s' does not name '%s'", err,
                  csv_bad[_i][2]);
    ck_assert_msg(strstr(err, path) != NULL, "message '%s' does not name the file", err);
    ck_assert_msg(!strchr(err, '\n') && !strchr(err, '\r'), "message '%s' is not one line", err);
    rm_rf(dir);
}
END_TEST

START_TEST(csv_write_is_atomic)
{
    char dir[64], path[160], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    static gg_probe_result r;
    memset(&r, 0, sizeof r);
    r.nrows = 1;
    snprintf(r.rows[0].metric, sizeof r.rows[0].metric, "mad");
    snprintf(r.rows[0].variant, sizeof r.rows[0].variant, "max");
    snprintf(r.rows[0].unit, sizeof r.rows[0].unit, "GFLOP/s");
    r.rows[0].value = 3.5;
    /* A folder that does not exist: an error, and nothing left behind. */
    snprintf(path, sizeof path, "%s/missing/probe.csv", dir);
    ck_assert_int_eq(base_probe_write_csv(&r, path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "missing") != NULL, "%s", err);
    /* Over an old file: replaced whole, no temporary left. */
    snprintf(path, sizeof path, "%s/probe.csv", dir);
    write_file(path, "old contents\n");
    ck_assert_msg(base_probe_write_csv(&r, path, err, sizeof err) == 0, "%s", err);
    FILE *f = fopen(path, "r");
    char buf[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "metric,variant,value,unit\nmad,max,3.5,GFLOP/s\n");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", dir);
    ck_assert_msg(system(cmd) == 0, "a temporary file was left in %s", dir);
    rm_rf(dir);
}
END_TEST

/* ---- the command -------------------------------------------------------- */

/* Runs glgemm with args (tests/cli_util.h); stdout and stderr to the files
 * out and errf.  Returns the exit status. */
static int run_cli(const char *const *args, const char *out, const char *errf)
{
    tu_result r;
    tu_exec(NULL, NULL, args, &r);
    ck_assert_msg(r.sig == 0, "glgemm %s died by signal %d", args[0], r.sig);
    tu_write(out, r.out);
    tu_write(errf, r.err);
    tu_result_free(&r);
    return r.status;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

START_TEST(cli_quick_writes_probe_csv)
{
    char dir[64], res[96], out[96], errf[96], cmd[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(res, sizeof res, "%s/res", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    const char *args[] = {"probe", "--quick", "--csv", "--results", res, NULL};
    int rc = run_cli(args, out, errf);
    ck_assert_msg(rc == 0, "glgemm probe --quick exited %d", rc);
    /* One card folder holding probe.csv; stdout is the same rows. */
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 1 && cmp %s/*/probe.csv %s", res, res,
             out);
    ck_assert_msg(system(cmd) == 0, "results/<card>/probe.csv missing or not what --csv printed");
    snprintf(cmd, sizeof cmd, "cp %s/*/probe.csv %s/copy.csv", res, dir);
    ck_assert_int_eq(system(cmd), 0);
    char copy[128], err[512];
    snprintf(copy, sizeof copy, "%s/copy.csv", dir);
    static gg_probe_result r;
    ck_assert_msg(base_probe_read_csv(copy, &r, err, sizeof err) == 0, "%s", err);
    assert_ceilings(&r);
    assert_paths_and_stores(&r);
    rm_rf(dir);
}
END_TEST

/* Bad usage: exit 2, one line on stderr, nothing on stdout, no results. */
static const char *const bad_args[][5] = {
    {"probe", "--bogus", NULL},
    {"probe", "--reps", "0", NULL},
    {"probe", "--reps", "many", NULL},
    {"probe", "extra", NULL},
    {"probe", "--results", NULL},
    {"probe", "--results=", NULL},
    {"probe", "--quick=yes", NULL},
    {"probe", "--backend", "vulkan", NULL},
    {"probe", "--device", "-1", NULL},
};

START_TEST(cli_bad_usage_exits_2)
{
    char dir[64], out[96], errf[96], cmd[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(errf, sizeof errf, "%s/err", dir);
    ck_assert_int_eq(chdir(dir), 0); /* a stray results/ would land here */
    int rc = run_cli(bad_args[_i], out, errf);
    ck_assert_msg(rc == 2, "%s %s: exit %d, expected 2", bad_args[_i][1],
                  bad_args[_i][2] ? bad_args[_i][2] : "", rc);
    ck_assert_int_eq(count_lines(errf), 1);
    ck_assert_int_eq(count_lines(out), 0);
    snprintf(cmd, sizeof cmd, "test ! -e %s/results", dir);
    ck_assert_msg(system(cmd) == 0, "bad usage made a results folder");
    rm_rf(dir);
}
END_TEST

Suite *make_probe_suite(void)
{
    Suite *s = suite_create("probe");

    TCase *csv = tcase_create("csv");
    tcase_add_test(csv, csv_reads_summary);
    tcase_add_loop_test(csv, csv_rejects_broken, 0, (int)(sizeof csv_bad / sizeof *csv_bad));
    tcase_add_test(csv, csv_write_is_atomic);
    suite_add_tcase(s, csv);

    TCase *usage = tcase_create("cli_usage");
    tcase_add_loop_test(usage, cli_bad_usage_exits_2, 0, (int)(sizeof bad_args / sizeof *bad_args));
    tcase_set_timeout(usage, 30);
    suite_add_tcase(s, usage);

    TCase *gl = tcase_create("gl");
    tcase_set_tags(gl, "gl");
    tcase_add_test(gl, quick_probe_runs_and_round_trips);
    tcase_add_loop_test(gl, mad_shader_matches_cpu, 0, (int)(sizeof mad_cases / sizeof *mad_cases));
    tcase_add_loop_test(gl, mad64_shader_computes_in_double, 0,
                        (int)(sizeof mad_cases / sizeof *mad_cases));
    tcase_add_test(gl, quick_probe_without_fp64);
    tcase_add_test(gl, fetch_kernels_match_cpu);
    tcase_add_test(gl, store_kernels_match_cpu);
    tcase_add_test(gl, cli_quick_writes_probe_csv);
    tcase_set_timeout(gl, 120);
    suite_add_tcase(s, gl);
    return s;
}
