/* glgemm_dgemm (glgemm.h): cblas_dgemm's arguments and meaning, served as
 * glgemm_sgemm serves its calls: the checks and quick returns (lib/args.c),
 * the crossover's CPU route (the bound CPU BLAS's dgemm, lib/cpu.h), else
 * the card's store=f64 best or GLGEMM_DEFAULT_DVARIANT on the GPU
 * (lib/drun.c), the default as the one fallback; and the CPU route, with
 * the reason in glgemm_last_route, where the GPU cannot run it (no fp64 in
 * the context, a problem past the wide stores' one texture, a context of
 * several devices). */
#include "lib/internal.h"

#include <string.h>

/* This thread's calls: depth > 0 inside glgemm_dgemm. */
static _Thread_local int depth;

/* The chosen variant, the default as its one fallback; or the CPU route
 * with the reason. */
static int gpu_or_cpu(glgemm_context *ctx, const char *fn, const rm_dgemm *g)
{
    gg_variant v, dv;
    bool recorded;
    lib_choose_f64(ctx, g->m, g->n, g->k, &v, &recorded);
    lib_default_dvariant(&dv);
    char why[400];
    if (lib_dgemm_cpu_reason(ctx, &v, g, why, sizeof why)) {
        /* the record's variant cannot: the default may */
        if (!recorded || lib_dgemm_cpu_reason(ctx, &dv, g, why, sizeof why)) {
            lib_cpu_droute(ctx, g);
            lib_set_route(ctx, true, "cpu: %s", why);
            return GLGEMM_OK;
        }
        v = dv;
    }
    ctx->lost = false;
    int rc = lib_drun_variant(ctx, fn, &v, g);
    if ((rc == GLGEMM_EGPU || rc == GLGEMM_EWRONG) && !gen_variant_equal(&v, &dv)) {
        char first[LIB_ERR_LEN];
        memcpy(first, lib_error_text(), sizeof first);
        if (ctx->nfailed < MAX_FAILED && !ctx->lost)
            ctx->failed[ctx->nfailed++] = v;
        rc = lib_drun_variant(ctx, fn, &dv, g);
        if (rc) {
            char second[LIB_ERR_LEN];
            memcpy(second, lib_error_text(), sizeof second);
            lib_set_error(rc, "%.250s; then the default: %.250s", first, second);
        }
    }
    return rc;
}

static int serve_call(glgemm_context *ctx, const char *fn, glgemm_layout layout,
                      glgemm_op transa, glgemm_op transb, int m, int n, int k, double alpha,
                      const double *a, int lda, const double *b, int ldb, double beta,
                      double *c, int ldc)
{
    if (!ctx)
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s: ctx is NULL (glgemm_open failed?)", fn);
    lib_set_route(ctx, false, "error");
    ctx->timing = (glgemm_timing){0};
    rm_dgemm g;
    int rc = lib_check_dargs(fn, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                             ldc, &g);
    if (rc)
        return rc;
    lib_set_route(ctx, true, "quick return");
    if (g.m == 0 || g.n == 0 || ((g.alpha == 0.0 || g.k == 0) && g.beta == 1.0))
        return GLGEMM_OK;
    if (g.alpha == 0.0 || g.k == 0) {
        lib_scale_dc(&g);
        return GLGEMM_OK;
    }
    lib_set_route(ctx, false, "error");
    if (lib_in_cpu_route())
        return lib_set_error(GLGEMM_EREENTER, "%s: called back from inside its own CPU route "
                             "(the CPU dgemm %s calls glgemm_dgemm): not computed, C untouched",
                             fn, ctx->cpu_blas.path);
    if (depth > 1) {
        lib_cpu_droute(ctx, &g);
        lib_set_route(ctx, true, "cpu re-entered");
        return GLGEMM_OK;
    }
    double c3 = (double)ctx->crossover * (double)ctx->crossover * (double)ctx->crossover;
    if ((double)g.m * (double)g.n * (double)g.k < c3) {
        lib_cpu_droute(ctx, &g);
        lib_set_route(ctx, true, "cpu crossover %ld", ctx->crossover);
        return GLGEMM_OK;
    }
    return gpu_or_cpu(ctx, fn, &g);
}

int glgemm_dgemm(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                 int m, int n, int k, double alpha, const double *a, int lda, const double *b,
                 int ldb, double beta, double *c, int ldc)
{
    const char *fn = "glgemm_dgemm";
    /* A context of several devices serves one call at a time; its dgemm
     * runs on the CPU (lib_dgemm_cpu_reason), on the calling thread. */
    bool hold = ctx && ctx->split && depth == 0;
    if (hold && atomic_exchange(&ctx->busy, true))
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s: this context of several devices is serving "
                             "another call (one call at a time)", fn);
    lib_fp_state flags;
    lib_fp_save(&flags);
    depth++;
    int rc = serve_call(ctx, fn, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc);
    depth--;
    if (hold)
        atomic_store(&ctx->busy, false);
    if (!(ctx && ctx->cpu_arith))
        lib_fp_restore(&flags);
    return rc;
}
