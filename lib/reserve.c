/* A context's GL context of the kind a variant needs, and the reserves made
 * with it: the transfers' staging and the scratch C (GLGEMM_STAGING). */
#include "lib/internal.h"

#include <stdlib.h>
#include <string.h>

/* Deletes the GL context and what was kept in it. */
void lib_drop_gl(glgemm_context *ctx)
{
    char err[200];
    if (ctx->cache) {
        if (ctx->gl && host_ctx_make_current(ctx->gl, err, sizeof err) == 0)
            host_run_cache_free(ctx->cache);
        else
            host_run_cache_forget(ctx->cache); /* no context to delete its objects in: the
                                                  context's end does */
        ctx->cache = NULL;
    }
    if (ctx->gl)
        host_ctx_destroy(ctx->gl);
    ctx->gl = NULL;
}

/* ctx->scratch of at least n floats, kept between calls (a new buffer's
 * pages would fault in every call), its pages written now when touch;
 * NULL (scratch_n 0) out of memory. */
float *lib_grow_scratch(glgemm_context *ctx, size_t n, bool touch)
{
    if (ctx->scratch_n < n) {
        free(ctx->scratch);
        ctx->scratch = malloc(n * sizeof *ctx->scratch);
        ctx->scratch_n = ctx->scratch ? n : 0;
        if (ctx->scratch && touch)
            memset(ctx->scratch, 0, n * sizeof *ctx->scratch);
    }
    return ctx->scratch;
}

/* The transfers' buffers, made ahead of the calls (GLGEMM_STAGING MiB,
 * default lib/context.c's STAGING_MIB; 0 none): each GL context's upload staging of that
 * size and its read-back staging of half, made with the context (at open,
 * and again when a call's variant needs another kind of context or a lost
 * one is made again), and the scratch C of half, made at open; their pages
 * touched, so that a first call that fits them makes none (an H100's first
 * 1024^3 call spent 5.3-5.7 ms making its 12 MiB of staging).  Calls that
 * need more grow them. */
static void reserve_staging(glgemm_context *ctx)
{
    size_t up = (size_t)ctx->reserve_mib << 20;
    if (up && ctx->cache)
        (void)host_rc_staging_reserve(ctx->cache, up, up / 2);
}

/* Makes (or keeps) a GL context of kind, current on this thread. */
int lib_use_kind(glgemm_context *ctx, gg_ctx_kind kind)
{
    char err[400] = "";
    if (ctx->gl && ctx->kind == kind) {
        if (host_ctx_make_current(ctx->gl, err, sizeof err) == 0)
            return GLGEMM_OK;
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s", err);
    }
    lib_drop_gl(ctx);
    ctx->gl = host_ctx_create(ctx->backend, ctx->device, kind, err, sizeof err, NULL);
    if (!ctx->gl)
        return lib_set_error(GLGEMM_ENOCONTEXT, "%s", err);
    ctx->kind = kind;
    host_ctx_query(ctx->gl, &ctx->info);
    ctx->cache = host_run_cache_new(); /* NULL: calls go uncached */
    reserve_staging(ctx);
    return GLGEMM_OK;
}

void lib_reserve_scratch(glgemm_context *ctx)
{
    size_t floats = ((size_t)ctx->reserve_mib << 20) / 2 / sizeof *ctx->scratch;
    if (floats)
        (void)lib_grow_scratch(ctx, floats, true);
}
