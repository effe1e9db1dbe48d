/* glgemm_dgemm's GPU run: one store=f64 variant on the context's own GL
 * context (glhost/run_wide.c: doubles in RG32UI / RGBA32UI textures, sums
 * in double), alpha and beta as doubles, C read back as doubles and judged
 * by lib_dverify before the caller's C is written; and why a call cannot
 * run there (the route then is the CPU's, with that reason). */
#include "lib/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

static double *compact(const double *src, int rows, int cols, int ld)
{
    double *d = malloc((size_t)rows * (size_t)cols * sizeof *d);
    if (d)
        for (int i = 0; i < rows; i++)
            memcpy(d + (size_t)i * cols, src + (size_t)i * ld, (size_t)cols * sizeof *d);
    return d;
}

bool lib_dgemm_cpu_reason(glgemm_context *ctx, const gg_variant *v, const rm_dgemm *g,
                          char *why, size_t len)
{
    if (ctx->split) {
        snprintf(why, len, "a context of several devices serves sgemm only");
        return true;
    }
    if (lib_use_kind(ctx, host_ctx_kind_for(v->profile))) {
        snprintf(why, len, "no GL context: %.300s", lib_error_text());
        return true;
    }
    gg_card_limits lim;
    host_ctx_limits(&ctx->info, &lim);
    char card[256] = "";
    if (gen_variant_check_card(v, &lim, card, sizeof card) != GG_CARD_OK) {
        snprintf(why, len, "%s", card); /* no fp64 in this context, say */
        return true;
    }
    gg_layout L;
    if (gen_layout_compute(v, g->m, g->n, g->k, &L)) {
        snprintf(why, len, "%dx%dx%d overflows store=f64's packing", g->m, g->n, g->k);
        return true;
    }
    int lim_tex = ctx->info.max_texture_size;
    if (L.a_w > lim_tex || L.a_h > lim_tex || L.b_w > lim_tex || L.b_h > lim_tex ||
        L.tgt_w > lim_tex || L.tgt_h > lim_tex) {
        snprintf(why, len, "too big for store=f64 (A %dx%d, B %dx%d texels; the texture "
                 "limit %d; the wide stores are not cut into blocks)", L.a_w, L.a_h, L.b_w,
                 L.b_h, lim_tex);
        return true;
    }
    return false;
}

int lib_drun_variant(glgemm_context *ctx, const char *fn, const gg_variant *v,
                     const rm_dgemm *g)
{
    double t_start = base_now_s();
    ctx->last = (last_run){0};
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    int rc = lib_use_kind(ctx, host_ctx_kind_for(v->profile));
    if (rc) {
        char why[LIB_ERR_LEN];
        memcpy(why, lib_error_text(), sizeof why);
        return lib_set_error(rc, "%s: %s: no GL context: %.300s", fn, vt, why);
    }
    size_t mn = (size_t)g->m * (size_t)g->n;
    double *out = malloc(mn * sizeof *out);
    double *c0 = NULL;
    if (g->beta != 0.0)
        c0 = compact(g->c, g->m, g->n, g->ldc);
    if (!out || (g->beta != 0.0 && !c0)) {
        free(out);
        free(c0);
        return lib_set_error(GLGEMM_ENOMEM, "%s: out of memory for %dx%d", fn, g->m, g->n);
    }
    /* The host reads the doubles only (a64, b64, c064; the floats unused). */
    gg_inputs in = {.m = g->m, .n = g->n, .k = g->k, .transa = g->transa, .transb = g->transb,
                    .lda = g->lda, .ldb = g->ldb, .a64 = g->a, .b64 = g->b, .c064 = c0};
    gg_problem p;
    base_problem_default(&p);
    p.m = g->m;
    p.n = g->n;
    p.k = g->k;
    p.transa = g->transa;
    p.transb = g->transb;
    p.alpha = (float)g->alpha; /* unread: wide_ab */
    p.beta = (float)g->beta;
    p.reps = 1;
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = true;
    o.wide_ab = true;
    o.alpha64 = g->alpha;
    o.beta64 = g->beta;
    o.c64_out = out;
    gg_measurement meas;
    host_run_current(&ctx->info, v, &p, &in, NULL, &o, &meas, NULL, NULL);
    ctx->last.draws = meas.draws;
    ctx->lost = meas.status == GG_CONTEXT_LOST;
    if (meas.status != GG_OK) {
        if (ctx->lost)
            lib_drop_gl(ctx);
        rc = lib_set_error(GLGEMM_EGPU, "%s: %s: %s: %s", fn, vt, base_status_name(meas.status),
                           meas.detail);
        goto done;
    }
    double v0 = base_now_s();
    char why[400] = "";
    int bad = lib_dverify(ctx->verify, g, c0, out, ++ctx->calls, why, sizeof why);
    rc = lib_call_checked(ctx, fn, vt, &meas, v0, bad, why, g->m, g->n, g->k);
    if (rc != GLGEMM_OK)
        goto done;
    for (int i = 0; i < g->m; i++)
        memcpy(g->c + (size_t)i * g->ldc, out + (size_t)i * g->n, (size_t)g->n * sizeof *out);
    lib_set_route(ctx, false, "gpu %s", vt);
    ctx->timing.total_s = base_now_s() - t_start;
    rc = GLGEMM_OK;
done:
    free(out);
    free(c0);
    return rc;
}
