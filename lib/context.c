/* A context's life: its settings from the environment, its opening on one
 * device (the default variant's GL context, the card's records, the
 * reserves, the warm-up), its closing, and the public setters and getters. */
#include "lib/internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/env.h"
#include "store/draw.h"

#define STAGING_MIB 16 /* the transfers' reserve (lib/reserve.c) */

/* A context's settings, before any GL: the backend and device checked,
 * the environment read (a bad value fails), the CPU BLAS bound; *cross is
 * GLGEMM_CROSSOVER (-1 unset).  NULL with the error set (fn names the
 * entry point). */
glgemm_context *lib_new_ctx(const char *fn, const char *backend, int device, long *cross)
{
    int b = host_backend_parse(backend ? backend : "egl");
    if (b < 0) {
        lib_set_error(0, "%s: unknown backend '%.100s' (egl or glfw)", fn, backend);
        return NULL;
    }
    if (device < 0) {
        lib_set_error(0, "%s: device %d: the index must be >= 0", fn, device);
        return NULL;
    }
    long verify, staging;
    char eerr[200];
    if (lib_env_get(LIB_ENV_VERIFY, &verify, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_CROSSOVER, cross, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_STAGING, &staging, eerr, sizeof eerr)) {
        lib_set_error(0, "%s: %s", fn, eerr);
        return NULL;
    }
    double draw_ms;
    char draw_err[200];
    if (store_draw_env(&draw_ms, draw_err, sizeof draw_err) < 0) {
        lib_set_error(0, "%s: %s", fn, draw_err);
        return NULL;
    }
    glgemm_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        lib_set_error(0, "%s: out of memory", fn);
        return NULL;
    }
    if (lib_cpu_bind(&ctx->cpu_blas, NULL, eerr, sizeof eerr)) {
        lib_set_error(0, "%s: %s", fn, eerr);
        free(ctx);
        return NULL;
    }
    ctx->backend = (gg_backend)b;
    ctx->device = device;
    ctx->verify = (int)verify;
    ctx->reserve_mib = staging >= 0 ? staging : STAGING_MIB;
    return ctx;
}

/* The crossover in force from GLGEMM_CROSSOVER (cross, -1 unset), else the
 * card's record. */
void lib_set_crossover_env(glgemm_context *ctx, long cross)
{
    ctx->crossover_env = cross >= 0 ? cross : lib_recorded_crossover(ctx->card);
    ctx->crossover = ctx->crossover_env > 0 ? ctx->crossover_env : 0;
}

/* A context of one device: the default variant's GL context, the card's
 * records read, the reserves made, the warm-up run (glgemm_open's without
 * GLGEMM_DEVICES, and each device's of a context of several). */
glgemm_context *lib_open_ctx(const char *backend, int device)
{
    lib_error_clear();
    long cross;
    glgemm_context *ctx = lib_new_ctx("glgemm_open", backend, device, &cross);
    if (!ctx)
        return NULL;
    gg_variant dv;
    char err[160];
    if (gen_variant_parse(GLGEMM_DEFAULT_VARIANT, NULL, &dv, err, sizeof err) ||
        lib_use_kind(ctx, host_ctx_kind_for(dv.profile)) != GLGEMM_OK) {
        if (!ctx->gl && !lib_error_text()[0])
            lib_set_error(0, "glgemm_open: default variant: %s", err);
        lib_cpu_unbind(&ctx->cpu_blas);
        free(ctx);
        return NULL;
    }
    base_slug(ctx->info.renderer, ctx->card, sizeof ctx->card);
    lib_set_crossover_env(ctx, cross);
    ctx->max_draw_s = lib_recorded_draw_ms(ctx->card) / 1000.0;
    lib_reserve_scratch(ctx);
    lib_warm_up(ctx);
    lib_error_clear();
    return ctx;
}

/* What ctx holds but its GL context, and ctx. */
void lib_free_ctx(glgemm_context *ctx)
{
    /* The devices' contexts, each closed on its thread; in a forked child
     * (no such threads) left to the parent. */
    if (ctx->pid == getpid())
        lib_split_close(ctx->split);
    free(ctx->slot_variant);
    free(ctx->scratch);
    base_pool_free(ctx->prep_pool);
    lib_cpu_unbind(&ctx->cpu_blas);
    free(ctx);
}

void glgemm_close(glgemm_context *ctx)
{
    if (!ctx)
        return;
    lib_fp_state fp;
    lib_fp_save(&fp);
    lib_drop_gl(ctx);
    lib_free_ctx(ctx);
    lib_fp_restore(&fp);
}

int glgemm_set_crossover(glgemm_context *ctx, long size)
{
    if (!ctx)
        return lib_set_error(GLGEMM_ENOCONTEXT, "glgemm_set_crossover: ctx is NULL");
    if (size < -1 || size > 1L << 20)
        return lib_set_error(GLGEMM_EINVAL, "glgemm_set_crossover: size %ld is not -1 or 0 .. %ld",
                             size, 1L << 20);
    ctx->crossover = size >= 0 ? size : ctx->crossover_env > 0 ? ctx->crossover_env : 0;
    return GLGEMM_OK;
}

long glgemm_crossover(const glgemm_context *ctx) { return ctx ? ctx->crossover : 0; }

int glgemm_set_cpu_sgemm(glgemm_context *ctx, glgemm_cpu_sgemm_fn fn)
{
    if (!ctx)
        return lib_set_error(GLGEMM_ENOCONTEXT, "glgemm_set_cpu_sgemm: ctx is NULL");
    ctx->cpu = fn;
    return GLGEMM_OK;
}

void glgemm_last_timing(const glgemm_context *ctx, glgemm_timing *t)
{
    if (t)
        *t = ctx ? ctx->timing : (glgemm_timing){0};
}

const char *glgemm_card(const glgemm_context *ctx) { return ctx ? ctx->card : ""; }

int glgemm_set_verify(glgemm_context *ctx, int level)
{
    if (!ctx)
        return lib_set_error(GLGEMM_ENOCONTEXT, "glgemm_set_verify: ctx is NULL");
    if (level < GLGEMM_VERIFY_NONE || level > GLGEMM_VERIFY_FULL)
        return lib_set_error(GLGEMM_EINVAL, "glgemm_set_verify: level %d is not "
                             "GLGEMM_VERIFY_NONE, _CHECK or _FULL", level);
    ctx->verify = level;
    for (int i = 0; i < lib_split_count(ctx->split); i++) /* idle between calls */
        ((glgemm_context *)lib_split_dev(ctx->split, i))->verify = level;
    return GLGEMM_OK;
}
