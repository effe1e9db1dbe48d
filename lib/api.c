/* The library's face (glgemm.h at the repository root): the entry points.
 * BLAS argument rules, quick returns and layouts on the CPU (lib/args.c);
 * the GEMM itself on the GPU with the variant the card's tuning records
 * name (lib/records.c, lib/run.c), over several devices (lib/devices.c),
 * or on the CPU (lib/cpuroute.c).  The files below are lib/internal.h's
 * stack; no GL header here. */
#include "lib/internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/env.h"

/* GLGEMM_DEVICES=all: every hardware device EGL lists (they come first),
 * else the one asked for. */
static int all_devices(gg_backend b, int device, int *list)
{
    int n = b == GG_BACKEND_EGL ? host_egl_hardware_devices() : 0;
    if (n > GLGEMM_MAX_DEVICES)
        n = GLGEMM_MAX_DEVICES;
    for (int i = 0; i < n; i++)
        list[i] = i;
    if (n < 1)
        list[n++] = device;
    return n;
}

glgemm_context *glgemm_open(const char *backend, int device)
{
    lib_fp_state fp;
    lib_fp_save(&fp);
    int list[GLGEMM_MAX_DEVICES], n;
    char err[300];
    glgemm_context *ctx = NULL;
    if (lib_env_devices(getenv("GLGEMM_DEVICES"), list, &n, err, sizeof err)) {
        lib_set_error(0, "glgemm_open: %s", err);
    } else if (n == 0) {
        ctx = lib_open_ctx(backend, device);
    } else {
        int b = host_backend_parse(backend ? backend : "egl");
        if (n < 0)
            n = all_devices(b < 0 ? GG_BACKEND_EGL : (gg_backend)b, device, list);
        ctx = lib_devices_open("glgemm_open", backend, list, n);
    }
    lib_fp_restore(&fp);
    return ctx;
}

glgemm_context *glgemm_open_devices(const char *backend, const int *devices, int n)
{
    lib_fp_state fp;
    lib_fp_save(&fp);
    glgemm_context *ctx = lib_devices_open("glgemm_open_devices", backend, devices, n);
    lib_fp_restore(&fp);
    return ctx;
}

int glgemm_variant_for(glgemm_context *ctx, int m, int n, int k, char *buf, size_t len)
{
    if (!ctx)
        return lib_set_error(GLGEMM_ENOCONTEXT, "glgemm_variant_for: ctx is NULL");
    if (m < 1 || n < 1 || k < 1)
        return lib_set_error(GLGEMM_EINVAL, "glgemm_variant_for: sizes %d x %d x %d must be >= 1",
                             m, n, k);
    if (!buf || len == 0)
        return lib_set_error(GLGEMM_EINVAL, "glgemm_variant_for: no buffer");
    gg_variant v;
    if (ctx->split) { /* the first tile's, on the first device in service */
        int i = 0;
        while (i < lib_split_count(ctx->split) && lib_split_state(ctx->split, i) != LIB_SPLIT_LIVE)
            i++;
        if (i == lib_split_count(ctx->split))
            return lib_set_error(GLGEMM_ENOCONTEXT, "glgemm_variant_for: every device of this "
                                 "context was retired");
        lib_grid grid = lib_devices_grid(ctx, m, n, k);
        lib_choose(lib_split_dev(ctx->split, i), grid.h, grid.w, k, &v);
    } else {
        lib_choose(ctx, m, n, k, &v);
    }
    char text[GG_VARIANT_TEXT];
    gen_variant_format(&v, text, sizeof text);
    if (strlen(text) >= len)
        return lib_set_error(GLGEMM_EINVAL, "glgemm_variant_for: buffer of %zu too small", len);
    memcpy(buf, text, strlen(text) + 1);
    return GLGEMM_OK;
}

/* This thread's calls: depth > 0 inside glgemm_sgemm. */
static _Thread_local int depth;

/* Checks, quick returns; then GPU: explicit variant, or the chosen one with
 * the default as the one fallback. */
enum { SERVE_CHOSEN, SERVE_VARIANT, SERVE_CPU }; /* glgemm_sgemm, _variant, _cpu */

static int serve_call(glgemm_context *ctx, const char *fn, int serve, const char *variant,
                 glgemm_layout layout, glgemm_op transa, glgemm_op transb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc)
{
    if (!ctx && serve != SERVE_CPU) /* the CPU route needs none (lib_cpu_process) */
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s: ctx is NULL (glgemm_open failed?)", fn);
    lib_set_route(ctx, false, "error");
    if (ctx)
        ctx->timing = (glgemm_timing){0};
    rm_gemm g;
    int rc = lib_check_args(fn, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                            ldc, &g);
    if (rc)
        return rc;
    gg_variant v;
    gg_nearest rec;
    bool explicit_variant = serve == SERVE_VARIANT;
    if (explicit_variant) {
        char err[200];
        if (!variant)
            return lib_set_error(GLGEMM_EVARIANT, "%s: variant is NULL", fn);
        /* `best` names the card's record nearest this problem. */
        bool have_rec = g.m > 0 && g.n > 0 && g.k > 0 && lib_recorded(ctx, g.m, g.n, g.k, &rec);
        if (gen_variant_parse(variant, have_rec ? &rec.v : NULL, &v, err, sizeof err))
            return lib_set_error(GLGEMM_EVARIANT, "%s: variant '%.100s': %s", fn, variant, err);
        if (v.store != GG_STORE_F32) /* the library's contract is fp32 inputs */
            return lib_set_error(GLGEMM_EVARIANT, "%s: variant '%.100s': store=%s rounds A and B "
                                 "to half floats; the library computes with fp32 inputs only "
                                 "(store=f32)", fn, variant, gen_store_name(v.store));
    }
    lib_set_route(ctx, true, "quick return");
    if (g.m == 0 || g.n == 0 || ((g.alpha == 0.0f || g.k == 0) && g.beta == 1.0f))
        return GLGEMM_OK;
    if (g.alpha == 0.0f || g.k == 0) {
        lib_scale_c(&g);
        return GLGEMM_OK;
    }
    lib_set_route(ctx, false, "error");
    /* its CPU route called it back: that route cannot serve this call */
    if (lib_in_cpu_route())
        return lib_set_error(GLGEMM_EREENTER, "%s: called back from inside its own CPU route "
                             "(the CPU sgemm %s calls glgemm_sgemm): not computed, C untouched",
                             fn, ctx && ctx->cpu ? "set by glgemm_set_cpu_sgemm"
                                 : ctx ? ctx->cpu_blas.path : lib_cpu_process(NULL, 0)->path);
    if (serve == SERVE_CPU || depth > 1) { /* depth: re-entered, not from the CPU route */
        lib_cpu_route(ctx, &g);
        lib_set_route(ctx, true, serve == SERVE_CPU ? "cpu" : "cpu re-entered");
        return GLGEMM_OK;
    }
    if (explicit_variant)
        return ctx->split ? lib_devices_call(ctx, fn, &v, &g) : lib_run_variant(ctx, fn, &v, &g);
    double c3 = (double)ctx->crossover * (double)ctx->crossover * (double)ctx->crossover;
    if ((double)g.m * (double)g.n * (double)g.k < c3) {
        lib_cpu_route(ctx, &g);
        lib_set_route(ctx, true, "cpu crossover %ld", ctx->crossover);
        return GLGEMM_OK;
    }
    return ctx->split ? lib_devices_call(ctx, fn, NULL, &g) : lib_gpu_chosen(ctx, fn, &g);
}

/* A public call: serve_call inside this thread's depth count, the caller's
 * floating-point flags as found after it, unless the arithmetic ran on this
 * CPU (the crossover's CPU BLAS, C scaled by beta, glgemm_sgemm_cpu without a
 * context): then what it raised stays. */
static int sgemm(glgemm_context *ctx, const char *fn, int serve, const char *variant,
                 glgemm_layout layout, glgemm_op transa, glgemm_op transb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc)
{
    /* One call at a time on a context of several devices (a call made
     * from inside one on this thread is served on the CPU, or refused) */
    bool hold = ctx && ctx->split && depth == 0;
    if (ctx && ctx->split && ctx->pid != getpid())
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s: this context of several devices was opened by "
                             "another process (a forked child has none of its threads): open one "
                             "here", fn);
    if (hold && atomic_exchange(&ctx->busy, true))
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s: this context of several devices is serving "
                             "another call (one call at a time)", fn);
    lib_fp_state flags;
    lib_fp_save(&flags);
    depth++;
    int rc = serve_call(ctx, fn, serve, variant, layout, transa, transb, m, n, k, alpha, a, lda,
                        b, ldb, beta, c, ldc);
    depth--;
    if (hold)
        atomic_store(&ctx->busy, false);
    bool cpu_arith = ctx ? ctx->cpu_arith : serve == SERVE_CPU && rc == GLGEMM_OK;
    if (!cpu_arith)
        lib_fp_restore(&flags);
    return rc;
}

int glgemm_sgemm(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                 int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc)
{
    return sgemm(ctx, "glgemm_sgemm", SERVE_CHOSEN, NULL, layout, transa, transb, m, n, k, alpha,
                 a, lda, b, ldb, beta, c, ldc);
}

int glgemm_sgemm_variant(glgemm_context *ctx, const char *variant, glgemm_layout layout,
                         glgemm_op transa, glgemm_op transb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc)
{
    return sgemm(ctx, "glgemm_sgemm_variant", SERVE_VARIANT, variant, layout, transa, transb, m,
                 n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int glgemm_sgemm_cpu(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa,
                     glgemm_op transb, int m, int n, int k, float alpha, const float *a, int lda,
                     const float *b, int ldb, float beta, float *c, int ldc)
{
    return sgemm(ctx, "glgemm_sgemm_cpu", SERVE_CPU, NULL, layout, transa, transb, m, n, k, alpha,
                 a, lda, b, ldb, beta, c, ldc);
}
