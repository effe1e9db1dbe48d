/* lib/inspect.h: what the tests may read of a context's insides. */
#include "lib/internal.h"

#include "lib/inspect.h"

long lib_inspect_staging_made(const glgemm_context *ctx)
{
    return ctx ? host_rc_staging_made(ctx->cache) : 0;
}

long lib_inspect_last_draws(const glgemm_context *ctx) { return ctx ? ctx->last.draws : 0; }

double lib_inspect_last_expect_s(const glgemm_context *ctx)
{
    return ctx ? ctx->last.expect_s : 0;
}

long lib_inspect_last_early_rows(const glgemm_context *ctx)
{
    return ctx ? ctx->last.early_rows : 0;
}

long lib_inspect_split_tiles(const glgemm_context *ctx, int slot)
{
    return ctx ? lib_split_served(ctx->split, slot) : 0;
}

int lib_inspect_split_live(const glgemm_context *ctx)
{
    return ctx ? lib_split_live(ctx->split) : 0;
}

double lib_inspect_kernel_s(glgemm_context *ctx, int m, int n, int k, const float *a,
                            const float *b, int reps)
{
    if (!ctx || !a || !b || m < 1 || n < 1 || k < 1 || reps < 1 || ctx->split) {
        lib_set_error(GLGEMM_EINVAL, "lib_inspect_kernel_s: no context, a context of several "
                      "devices, no operand or a size < 1");
        return -1;
    }
    gg_variant v;
    lib_choose(ctx, m, n, k, &v);
    if (lib_use_kind(ctx, host_ctx_kind_for(v.profile)))
        return -1;
    rm_gemm g = {.m = m, .n = n, .k = k, .alpha = 1.0f, .a = a, .b = b, .lda = k, .ldb = n,
                 .ldc = n};
    gg_inputs in = lib_inputs_of(&g, NULL);
    gg_problem p = lib_problem_of(&g, reps);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.same_inputs = true; /* as bench: the inputs stay, the draws are timed */
    /* no cache: its own program, textures and targets, made and freed
     * outside the timing, so the calls' kept ones stay as they were */
    o.max_draw_s = ctx->max_draw_s;
    gg_measurement meas;
    lib_fp_state flags; /* as glgemm_sgemm: the caller's flags as found */
    lib_fp_save(&flags);
    host_run_current(&ctx->info, &v, &p, &in, NULL, &o, &meas, NULL, NULL);
    lib_fp_restore(&flags);
    if (meas.status == GG_CONTEXT_LOST)
        lib_drop_gl(ctx); /* made again on the next call, as after a call's */
    if (meas.status != GG_OK) {
        lib_set_error(GLGEMM_EGPU, "lib_inspect_kernel_s: %s: %s", base_status_name(meas.status),
                      meas.detail);
        return -1;
    }
    return meas.seconds;
}

int lib_inspect_dverify(int level, bool transa, bool transb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        const double *c0, const double *c, char *why, size_t len)
{
    rm_dgemm g = {transa, transb, m, n, k, alpha, beta, a, b, lda, ldb, NULL, n};
    return lib_dverify(level, &g, c0, c, 1, why, len);
}
