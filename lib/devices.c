/* A context of several devices (glgemm_open_devices, GLGEMM_DEVICES):
 * glgemm's side of lib/split.h.  Each device has a one-device context of
 * its own on its thread (lib/context.c); a call is cut into tiles of C,
 * each run there as a call of its own (lib/run.c). */
#include "lib/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "lib/env.h"

#define SPLIT_MIN 2048 /* GLGEMM_SPLIT_MIN's default: smaller calls run on one device */
#define SPLIT_TILES 2  /* GLGEMM_SPLIT_TILES's default: tiles a device */

/* One split call, as the devices' threads see it. */
typedef struct {
    glgemm_context *ctx;  /* the context of several devices */
    const char *fn;
    const rm_gemm *g;
    const gg_variant *v;  /* glgemm_sgemm_variant's; NULL: each device's choice */
    float *undo;          /* a strict call of several tiles: C as it was, n a row */
    unsigned char *saved; /* by tile: its block is in undo */
} tile_job;

/* The part of g a tile computes: its rows of op(A), its columns of op(B),
 * its block of C (the same leading dimensions). */
static rm_gemm tile_gemm(const rm_gemm *g, const lib_tile *t)
{
    rm_gemm s = *g;
    s.m = t->r1 - t->r0;
    s.n = t->c1 - t->c0;
    s.a = g->transa ? g->a + t->r0 : g->a + (size_t)t->r0 * g->lda;
    s.b = g->transb ? g->b + (size_t)t->c0 * g->ldb : g->b + t->c0;
    s.c = g->c + (size_t)t->r0 * g->ldc + t->c0;
    return s;
}

/* rows x cols floats from src (ld ls) to dst (ld ld). */
static void copy_block(float *dst, size_t ld, const float *src, size_t ls, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        memcpy(dst + (size_t)i * ld, src + (size_t)i * ls, (size_t)cols * sizeof *dst);
}

/* lib_split's run, on the device's thread: the tile on its context, as a
 * call of its own (the member's checks; C untouched if it fails). */
static int tile_run(void *dev, int slot, void *job, const lib_tile *t, char *why, size_t len)
{
    glgemm_context *d = dev;
    tile_job *j = job;
    rm_gemm sub = tile_gemm(j->g, t);
    if (j->undo) {
        copy_block(j->undo + (size_t)t->r0 * j->g->n + t->c0, (size_t)j->g->n, sub.c,
                   (size_t)sub.ldc, sub.m, sub.n);
        j->saved[t->index] = 1;
    }
    int rc = j->v ? lib_run_variant(d, j->fn, j->v, &sub) : lib_gpu_chosen(d, j->fn, &sub);
    if (rc)
        snprintf(why, len, "%s (device %d, tile of %dx%d at row %d, column %d)", lib_error_text(),
                 d->device, sub.m, sub.n, t->r0, t->c0);
    if (rc)
        return rc;
    const char *vt = strncmp(d->route, "gpu ", 4) ? d->route : d->route + 4;
    size_t vl = strnlen(vt, sizeof *j->ctx->slot_variant - 1);
    memcpy(j->ctx->slot_variant[slot], vt, vl);
    j->ctx->slot_variant[slot][vl] = '\0';
    return 0;
}

/* lib_split's cpu, on the caller's thread: no device left. */
static void tile_cpu(void *job, const lib_tile *t)
{
    tile_job *j = job;
    rm_gemm sub = tile_gemm(j->g, t);
    lib_cpu_route(j->ctx, &sub);
}

/* What the devices' threads open: a one-device context each. */
typedef struct {
    const char *backend;
    int n;
} member_args;

static void *member_open(void *user, int slot, int device, char *err, size_t errlen)
{
    const member_args *a = user;
    glgemm_context *m = lib_open_ctx(a->backend, device);
    if (!m)
        snprintf(err, errlen, "%s", lib_error_text()); /* this thread's */
    else
        m->fault_device = slot == a->n - 1;
    return m;
}

static void member_close(void *dev) { glgemm_close(dev); }

/* The callbacks lib/split.h runs: each device's context opened, its tile
 * run, a tile on the CPU, the context closed. */
static void split_ops(lib_split_ops *ops)
{
    *ops = (lib_split_ops){member_open, tile_run, tile_cpu, member_close};
}

glgemm_context *lib_devices_open(const char *fn, const char *backend, const int *devices,
                                 int n)
{
    lib_error_clear();
    if (!devices || n < 1 || n > GLGEMM_MAX_DEVICES) {
        lib_set_error(0, "%s: %s%d devices: from 1 to %d", fn, devices ? "" : "no list, ", n,
                      GLGEMM_MAX_DEVICES);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (devices[i] < 0) {
            lib_set_error(0, "%s: device %d (number %d of the list): the index must be >= 0", fn,
                          devices[i], i + 1);
            return NULL;
        }
    if (n == 1)
        return lib_open_ctx(backend, devices[0]);
    long cross, split_min, split_tiles;
    glgemm_context *ctx = lib_new_ctx(fn, backend, devices[0], &cross);
    if (!ctx)
        return NULL;
    char eerr[200];
    if (ctx->backend != GG_BACKEND_EGL) {
        lib_set_error(0, "%s: the %s backend makes one context, on one thread: several devices "
                      "need egl", fn, host_backend_name(ctx->backend));
        lib_free_ctx(ctx);
        return NULL;
    }
    if (lib_env_get(LIB_ENV_SPLIT_MIN, &split_min, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_SPLIT_TILES, &split_tiles, eerr, sizeof eerr)) {
        lib_set_error(0, "%s: %s", fn, eerr);
        lib_free_ctx(ctx);
        return NULL;
    }
    ctx->split_min = split_min >= 0 ? split_min : SPLIT_MIN;
    ctx->split_tiles = split_tiles >= 0 ? (int)split_tiles : SPLIT_TILES;
    ctx->slot_variant = calloc((size_t)n, sizeof *ctx->slot_variant);
    lib_split_ops ops;
    split_ops(&ops);
    member_args args = {backend, n};
    char err[LIB_ERR_LEN - 100];
    ctx->split = ctx->slot_variant ? lib_split_open(devices, n, &ops, &args, err, sizeof err)
                                   : NULL;
    if (!ctx->split) {
        lib_set_error(0, "%s: %s", fn, ctx->slot_variant ? err : "out of memory");
        lib_free_ctx(ctx);
        return NULL;
    }
    ctx->pid = getpid();
    const glgemm_context *first = lib_split_dev(ctx->split, 0);
    memcpy(ctx->card, first->card, sizeof ctx->card);
    lib_set_crossover_env(ctx, cross);
    lib_error_clear();
    return ctx;
}


/* The tiles of an m x n x k call: one below GLGEMM_SPLIT_MIN, else
 * GLGEMM_SPLIT_TILES a device in service. */
lib_grid lib_devices_grid(const glgemm_context *ctx, int m, int n, int k)
{
    double lim = (double)ctx->split_min * (double)ctx->split_min * (double)ctx->split_min;
    bool one = (double)m * (double)n * (double)k < lim;
    return lib_split_grid(m, n, one ? 1 : lib_split_live(ctx->split) * ctx->split_tiles);
}

/* glgemm_last_route of a split call. */
static void split_route(glgemm_context *ctx, const lib_grid *grid)
{
    const lib_split *s = ctx->split;
    int nt = lib_grid_count(grid);
    long cpu = lib_split_served(s, -1);
    char *r = ctx->route;
    size_t len = sizeof ctx->route, o = 0;
#define ROUTE_ADD(...) \
    (o += o < len ? (size_t)snprintf(r + o, len - o, __VA_ARGS__) : 0)
    if (nt > 1)
        ROUTE_ADD("split %d tiles of %dx%d:", nt, grid->h, grid->w);
    const char *sep = " ";
    for (int i = 0; i < lib_split_count(s); i++) {
        long served = lib_split_served(s, i);
        if (served && nt > 1)
            ROUTE_ADD("%sdevice %d: %ld gpu %s", sep, lib_split_device(s, i), served,
                      ctx->slot_variant[i]);
        else if (served)
            ROUTE_ADD("gpu %s on device %d", ctx->slot_variant[i], lib_split_device(s, i));
        sep = served ? ", " : sep;
    }
    if (cpu)
        ROUTE_ADD(nt > 1 ? "%scpu: %ld" : "cpu: no device left", sep, cpu);
    for (int i = 0; i < lib_split_count(s); i++)
        if (lib_split_state(s, i) == LIB_SPLIT_RETIRED_NOW)
            ROUTE_ADD("; device %d retired: %s", lib_split_device(s, i), lib_split_why(s, i));
#undef ROUTE_ADD
    ctx->cpu_arith = cpu == nt;
}

/* A call over ctx's devices: tiles of C handed out to them (lib/split.h).
 * glgemm_sgemm's (v NULL): a device whose tile fails is retired and the
 * tile done again, on the CPU when no device is left: never an error.
 * glgemm_sgemm_variant's (v): every tile with v; one that fails fails the
 * call, and the tiles written are put back. */
int lib_devices_call(glgemm_context *ctx, const char *fn, const gg_variant *v,
                     const rm_gemm *g)
{
    double t0 = base_now_s();
    if (!lib_split_live(ctx->split)) {
        if (v)
            return lib_set_error(GLGEMM_ENOCONTEXT, "%s: every device of this context was retired "
                                 "(its tiles failed)", fn);
        lib_cpu_route(ctx, g);
        lib_set_route(ctx, true, "cpu: no device left");
        return GLGEMM_OK;
    }
    lib_grid grid = lib_devices_grid(ctx, g->m, g->n, g->k);
    int nt = lib_grid_count(&grid);
    tile_job j = {ctx, fn, g, v, NULL, NULL};
    if (v && nt > 1) {
        j.undo = malloc((size_t)g->m * (size_t)g->n * sizeof *j.undo);
        j.saved = calloc((size_t)nt, 1);
        if (!j.undo || !j.saved) {
            free(j.undo);
            free(j.saved);
            return lib_set_error(GLGEMM_ENOMEM, "%s: out of memory for C's %dx%d as it was", fn,
                                 g->m, g->n);
        }
    }
    char why[LIB_ERR_LEN];
    int rc = lib_split_run(ctx->split, v ? LIB_SPLIT_STRICT : LIB_SPLIT_RETIRE, &j, g->m, g->n,
                           &grid, why, sizeof why);
    for (int i = 0; rc && j.saved && i < nt; i++)
        if (j.saved[i]) {
            lib_tile t = lib_grid_tile(&grid, g->m, g->n, i);
            copy_block(g->c + (size_t)t.r0 * g->ldc + t.c0, (size_t)g->ldc,
                       j.undo + (size_t)t.r0 * g->n + t.c0, (size_t)g->n, t.r1 - t.r0,
                       t.c1 - t.c0);
        }
    free(j.undo);
    free(j.saved);
    if (rc < 0)
        return lib_set_error(GLGEMM_ENOMEM, "%s: %s", fn, why);
    if (rc)
        return lib_set_error(rc, "%s", why);
    split_route(ctx, &grid);
    ctx->timing.total_s = base_now_s() - t0;
    return GLGEMM_OK;
}
