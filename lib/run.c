/* The GPU run of one variant on a context's own GL context: the inputs'
 * checks prepared beside the draws, the result judged band by band
 * (base/checksum.h) or in full (base/reference.h) before C is written; the
 * chosen variant with the default as its fallback; the warm-up at open. */
#include "lib/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/checksum.h"
#include "base/clock.h"
#include "base/fault.h"
#include "base/reference.h"
#include "lib/env.h"

#define SAMPLES 64 /* the checksum's samples (base_checksum_prepare_pool) */

static float *compact(const float *src, int rows, int cols, int ld)
{
    float *d = malloc((size_t)rows * (size_t)cols * sizeof *d);
    if (d)
        for (int i = 0; i < rows; i++)
            memcpy(d + (size_t)i * cols, src + (size_t)i * ld, (size_t)cols * sizeof *d);
    return d;
}

/* Every element against the double reference (GLGEMM_VERIFY_FULL). */
static int verify_full(const rm_gemm *g, const float *c0, const float *out, char *why,
                       size_t len)
{
    int ar = g->transa ? g->k : g->m, ac = g->transa ? g->m : g->k;
    int br = g->transb ? g->n : g->k, bc = g->transb ? g->k : g->n;
    gg_inputs in = {g->m, g->n, g->k, g->transa, g->transb, compact(g->a, ar, ac, g->lda),
                    compact(g->b, br, bc, g->ldb), NULL, ac, bc, NULL, NULL, NULL, false, 0};
    int rc = -1;
    gg_reference ref = {0};
    in.c0 = (float *)c0; /* contiguous m x n, not freed here */
    if (in.a && in.b && !base_reference_compute(&in, g->alpha, g->beta, &ref, why, len)) {
        gg_verdict vd;
        base_verify(&ref, out, &vd);
        rc = vd.pass ? 0 : 1;
        if (!vd.pass)
            snprintf(why, len, "%s", vd.detail);
    }
    base_reference_free(&ref);
    free(in.a);
    free(in.b);
    return rc;
}

/* The checks' inputs side (base_checksum_prepare), on a thread of its own
 * while the GPU runs where the problem is large enough to pay for one,
 * started once the inputs are sent (run.h's sent): started before, its
 * threads slowed the packing (H100, 1024^3: the upload took 1.3-1.7 ms
 * with the checks, 0.9 ms without). */
typedef struct band_check band_check;

typedef struct {
    gg_gemm_operands ops;
    uint64_t seed;
    gg_checksum_plan *plan;
    int rc;
    base_pool *pool;  /* prepare's threads (the context's; NULL: its own thread alone) */
    pthread_t thread;
    bool threaded;
    /* After the plan, where keep is set (and has an undo): the caller's C
     * from keep's last band on kept in its undo, so the last band's rows
     * can go into C as they pass (band_check) */
    const band_check *keep;
    int per; /* rows a copy task */
} prep_job;

#define PREP_THREAD_MIN (128.0 * 128.0 * 128.0)

/* The check's C side band by band, as the streamed run hands over rows
 * (run.h rows_done, on its threads): the first band to arrive waits for
 * the inputs' side; each band adds its column sums into one total.  Rows
 * that pass go into the caller's C at once, what C held kept in undo and
 * the rows marked in copied: those before the last band (last_row on)
 * while the card still draws, their undo taken here; the last band's as
 * their checks pass, their undo taken by the inputs' side (prep_main)
 * while the card drew.  A call that then fails puts them back (put_back),
 * so C is as it was on any error; one that passes has nothing left to
 * copy.  Only where every page of C is in memory already (in_memory):
 * reading a new array's pages to keep them maps the zero page, and writing
 * them then copies it on every thread's behalf; a program whose C is new
 * memory at each call (numpy's matmul) would pay that every time.  The
 * H100 timings behind both: docs/notes/library.md, "The band check's copy
 * into C". */
struct band_check {
    prep_job *prep;
    pthread_mutex_t mu;
    bool joined;
    const float *c;
    int n;
    float *dst;     /* the caller's C (ldc), undo and copied: see above */
    int ldc;
    float *undo;
    unsigned char *copied;
    int last_row;
    double *colacc; /* the column sums (colacc_len), made once the plan is */
    long rows;      /* judged so far */
    int bad;        /* 0, 1 (why, from the band at bad_row), -1 out of memory */
    int bad_row;
    char why[400];
};

static void keep_rows(void *arg, int t)
{
    const prep_job *j = arg;
    const band_check *b = j->keep;
    int r0 = b->last_row + t * j->per, r1 = r0 + j->per < j->ops.m ? r0 + j->per : j->ops.m;
    for (int i = r0; i < r1; i++)
        memcpy(b->undo + (size_t)i * b->n, b->dst + (size_t)i * b->ldc,
               (size_t)b->n * sizeof *b->undo);
}

/* prep_main's: the last band's rows of C (ldc) into the undo (n a row), on
 * prepare's threads. */
static void keep_last_band(prep_job *j)
{
    int rows = j->ops.m - j->keep->last_row, tasks = 2 * base_pool_threads(j->pool);
    if (rows <= 0)
        return;
    j->per = (rows + tasks - 1) / tasks;
    base_pool_run(j->pool, (rows + j->per - 1) / j->per, keep_rows, j);
}

static void *prep_main(void *arg)
{
    prep_job *j = arg;
    j->rc = base_checksum_prepare_pool(&j->ops, j->seed, SAMPLES, j->pool, &j->plan);
    if (j->keep)
        keep_last_band(j);
    return NULL;
}

/* run.h's sent hook: started once A and B are up. */
static void prep_start(void *arg)
{
    prep_job *j = arg;
    double work = (double)j->ops.m * j->ops.n * j->ops.k;
    j->threaded = work >= PREP_THREAD_MIN && pthread_create(&j->thread, NULL, prep_main, j) == 0;
}

static void prep_finish(prep_job *j)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    else
        prep_main(j);
}

static void rows_check(void *user, int r0, int r1)
{
    band_check *b = user;
    pthread_mutex_lock(&b->mu);
    if (!b->joined) {
        prep_finish(b->prep);
        b->joined = true;
        if (!b->prep->rc)
            b->colacc = calloc(base_checksum_colacc_len(b->prep->plan), sizeof *b->colacc);
    }
    pthread_mutex_unlock(&b->mu);
    const gg_checksum_plan *plan = b->prep->plan;
    double *acc = b->colacc ? calloc(base_checksum_colacc_len(plan), sizeof *acc) : NULL;
    char why[sizeof b->why] = "";
    int r = acc ? base_checksum_check_rows(plan, b->c, b->n, r0, r1, acc, why, sizeof why) : -1;
    pthread_mutex_lock(&b->mu);
    /* passed and none failed so far */
    bool early = r == 0 && b->bad == 0 && b->undo;
    bool kept = r0 >= b->last_row; /* the last band's: undo taken by prep_main */
    if (r == 0)
        base_checksum_colacc_add(plan, b->colacc, acc);
    b->rows += r1 - r0;
    if (r != 0 && (b->bad == 0 || (r > 0 && (b->bad < 0 || r0 < b->bad_row)))) {
        b->bad = r;
        b->bad_row = r0;
        memcpy(b->why, why, sizeof why);
    }
    pthread_mutex_unlock(&b->mu);
    for (int i = r0; early && i < r1; i++) {
        size_t row = (size_t)i * b->n, at = (size_t)i * b->ldc, bytes = (size_t)b->n * sizeof *b->c;
        if (!kept)
            memcpy(b->undo + row, b->dst + at, bytes);
        memcpy(b->dst + at, b->c + row, bytes);
        b->copied[i] = 1;
    }
    free(acc);
}

/* The judged result into the caller's C, in row slices on the context's
 * threads (64 MiB took 4 ms on one). */
typedef struct {
    const rm_gemm *g;
    const float *out;
    const unsigned char *skip; /* rows not to copy (NULL none) */
    int per;
} copy_job;

static void copy_rows(void *arg, int t)
{
    const copy_job *j = arg;
    const rm_gemm *g = j->g;
    int r1 = (t + 1) * j->per < g->m ? (t + 1) * j->per : g->m;
    for (int i = t * j->per; i < r1; i++)
        if (!j->skip || !j->skip[i])
            memcpy(g->c + (size_t)i * g->ldc, j->out + (size_t)i * g->n,
                   (size_t)g->n * sizeof *j->out);
}

/* out's rows into the caller's C, but those in skip. */
static void copy_out(glgemm_context *ctx, const rm_gemm *g, const float *out,
                     const unsigned char *skip)
{
    size_t bytes = (size_t)g->m * g->n * sizeof *out;
    base_pool *pool = bytes >= ((size_t)1 << 20) ? host_run_cache_pool(ctx->cache) : NULL;
    int tasks = 2 * base_pool_threads(pool);
    copy_job j = {g, out, skip, (g->m + tasks - 1) / tasks};
    base_pool_run(pool, (g->m + j.per - 1) / j.per, copy_rows, &j);
}

/* Whether every page of the caller's C (m rows of ldc) is in memory
 * (mincore); false when that cannot be told. */
static bool in_memory(const rm_gemm *g)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || g->m <= 0 || g->n <= 0)
        return false;
    uintptr_t lo = (uintptr_t)g->c & ~(uintptr_t)(page - 1);
    uintptr_t hi = (uintptr_t)(g->c + (size_t)(g->m - 1) * g->ldc + g->n);
    size_t pages = (hi - lo + (size_t)page - 1) / (size_t)page;
    unsigned char *vec = malloc(pages);
    bool all = vec && mincore((void *)lo, hi - lo, vec) == 0;
    for (size_t i = 0; all && i < pages; i++)
        all = vec[i] & 1;
    free(vec);
    return all;
}

/* A failed call: the rows already copied into C as they were. */
static void put_back(const band_check *b, const rm_gemm *g)
{
    for (int i = 0; b->copied && i < g->m; i++)
        if (b->copied[i])
            memcpy(g->c + (size_t)i * g->ldc, b->undo + (size_t)i * g->n,
                   (size_t)g->n * sizeof *b->undo);
}

/* An upper estimate of v's draws for g (glhost/run.h expect_s), when v is
 * the variant the card's record nearest g names and the record gives its
 * rate: the record's time, times k / K and (m n) / (M N) where each is
 * above 1.  A fragment's work grows with k, and fewer fragments than the
 * record's take no longer than its, so neither ratio is let below 1: the
 * estimate errs long (a 64^3 call is given a 1024^3 record's whole time).
 * 0 otherwise. */
static double expected_s(glgemm_context *ctx, const gg_variant *v, const rm_gemm *g)
{
    gg_nearest rec;
    if (!lib_recorded(ctx, g->m, g->n, g->k, &rec) || !gen_variant_equal(&rec.v, v) ||
        !(rec.gflops > 0))
        return 0;
    double rec_s = 2.0 * rec.m * (double)rec.n * rec.k / (rec.gflops * 1e9);
    double kr = (double)g->k / rec.k, fr = (double)g->m * g->n / ((double)rec.m * rec.n);
    return rec_s * (kr > 1 ? kr : 1) * (fr > 1 ? fr : 1);
}

/* The glhost inputs of g, C0 in c0 (n a row; NULL: not read). */
gg_inputs lib_inputs_of(const rm_gemm *g, float *c0)
{
    /* The host reads the operands only (gg_inputs is shared with owners). */
    return (gg_inputs){g->m, g->n, g->k, g->transa, g->transb, (float *)g->a, (float *)g->b,
                       c0, g->lda, g->ldb, NULL, NULL, NULL, false, 0};
}

/* The glhost problem of g, repeated reps times. */
gg_problem lib_problem_of(const rm_gemm *g, int reps)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = g->m;
    p.n = g->n;
    p.k = g->k;
    p.transa = g->transa;
    p.transb = g->transb;
    p.alpha = g->alpha;
    p.beta = g->beta;
    p.reps = reps;
    return p;
}

/* The call's timing and its check's verdict (internal.h). */
int lib_call_checked(glgemm_context *ctx, const char *fn, const char *vt,
                     const gg_measurement *meas, double v0, int bad, const char *why, int m,
                     int n, int k)
{
    ctx->timing.upload_s = meas->upload_s;
    ctx->timing.run_s = meas->run_s;
    ctx->timing.readback_s = meas->readback_s;
    ctx->timing.verify_s = base_now_s() - v0;
    if (bad < 0)
        return lib_set_error(GLGEMM_ENOMEM, "%s: out of memory verifying %dx%dx%d", fn, m, n, k);
    if (bad)
        return lib_set_error(GLGEMM_EWRONG, "%s: %s: wrong result: %s", fn, vt, why);
    return GLGEMM_OK;
}

/* One run of variant v; C as it was unless everything passed. */
int lib_run_variant(glgemm_context *ctx, const char *fn, const gg_variant *v,
                    const rm_gemm *g)
{
    double t_start = base_now_s();
    ctx->last = (last_run){0};
    prep_job prep = {.plan = NULL, .threaded = false};
    bool check = ctx->verify == GLGEMM_VERIFY_CHECK;
    /* last_row: m until a streamed run says where its last band starts (an
     * unstreamed one, with no staging, never does: nothing to keep) */
    band_check bc = {.prep = &prep, .mu = PTHREAD_MUTEX_INITIALIZER, .n = g->n, .last_row = g->m};
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    int rc = lib_use_kind(ctx, host_ctx_kind_for(v->profile));
    if (rc) {
        char why[LIB_ERR_LEN];
        memcpy(why, lib_error_text(), sizeof why);
        return lib_set_error(rc, "%s: %s: no GL context: %.300s", fn, vt, why);
    }
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = true;
    o.stream = true;
    o.cache = ctx->cache;
    o.max_draw_s = ctx->max_draw_s;
    o.expect_s = o.max_draw_s > 0 ? expected_s(ctx, v, g) : 0;
    size_t mn = (size_t)g->m * (size_t)g->n;
    /* Into C band by band (band_check) where the call streams in several
     * bands: the scratch holds the undo after C (and where that much memory
     * is not to be had, C alone, copied after the verdict). */
    bool early = check &&
                 host_run_stream_bands(&ctx->info, v, &o,
                                       &(gg_inputs){.m = g->m, .n = g->n, .k = g->k}) > 1 &&
                 in_memory(g);
    float *out = lib_grow_scratch(ctx, early ? 2 * mn : mn, false);
    if (!out && early) {
        early = false;
        out = lib_grow_scratch(ctx, mn, false);
    }
    float *c0 = NULL;
    bool own_c0 = false;
    if (g->beta != 0.0f) {
        own_c0 = g->ldc != g->n;
        c0 = own_c0 ? compact(g->c, g->m, g->n, g->ldc) : g->c;
    }
    if (!out || (g->beta != 0.0f && !c0)) {
        rc = lib_set_error(GLGEMM_ENOMEM, "%s: out of memory for %dx%d", fn, g->m, g->n);
        goto done;
    }
    gg_inputs in = lib_inputs_of(g, c0);
    gg_problem p = lib_problem_of(g, 1);
    prep.ops = (gg_gemm_operands){g->m, g->n, g->k, g->alpha, g->beta,
                                  {g->a, g->lda, g->transa}, {g->b, g->ldb, g->transb}, c0, g->n};
    prep.seed = ++ctx->calls;
    if (check && !ctx->prep_pool)
        ctx->prep_pool = base_pool_new(0); /* NULL: prepare on its one thread */
    prep.pool = ctx->prep_pool;
    bc.c = out;
    if (early && out) {
        bc.copied = calloc((size_t)g->m, 1);
        bc.undo = bc.copied ? out + mn : NULL;
        bc.dst = g->c;
        bc.ldc = g->ldc;
        o.last_band_row = &bc.last_row;
        prep.keep = bc.undo ? &bc : NULL;
    }
    if (check) {
        o.sent = prep_start;
        o.sent_user = &prep;
        o.rows_done = rows_check;
        o.rows_user = &bc;
    }
    gg_measurement meas;
    host_run_current(&ctx->info, v, &p, &in, NULL, &o, &meas, out, NULL);
    if (ctx->fault_device && meas.status == GG_OK && base_fault("device_lost")) {
        meas.status = GG_CONTEXT_LOST; /* tests only (base/fault.h) */
        snprintf(meas.detail, sizeof meas.detail, "the device's context was lost after its "
                 "run (fault device_lost)");
    }
    ctx->last.draws = meas.draws;
    ctx->last.expect_s = o.expect_s;
    for (int i = 0; bc.copied && i < g->m; i++)
        ctx->last.early_rows += bc.copied[i];
    double v0 = base_now_s();
    if (check && !bc.joined && (prep.threaded || meas.status == GG_OK))
        prep_finish(&prep);
    ctx->lost = meas.status == GG_CONTEXT_LOST;
    if (meas.status != GG_OK) {
        if (ctx->lost)
            lib_drop_gl(ctx); /* made again on the next call */
        rc = lib_set_error(GLGEMM_EGPU, "%s: %s: %s: %s", fn, vt, base_status_name(meas.status),
                           meas.detail);
        goto done;
    }
    char why[400] = "";
    int bad = 0;
    if (check && bc.rows == g->m) { /* streamed: every band judged, the columns left */
        bad = bc.colacc ? bc.bad : -1;
        if (bad > 0)
            memcpy(why, bc.why, sizeof why < sizeof bc.why ? sizeof why : sizeof bc.why);
        else if (!bad)
            bad = base_checksum_check_cols(prep.plan, bc.colacc, why, sizeof why);
    } else if (check) {
        bad = prep.rc ? -1 : base_checksum_check(prep.plan, out, g->n, why, sizeof why);
    } else if (ctx->verify == GLGEMM_VERIFY_FULL) {
        bad = verify_full(g, c0, out, why, sizeof why);
    }
    rc = lib_call_checked(ctx, fn, vt, &meas, v0, bad, why, g->m, g->n, g->k);
    if (rc != GLGEMM_OK)
        goto done;
    if (ctx->last.early_rows < g->m) /* else every row went in as it passed */
        copy_out(ctx, g, out, bc.copied);
    lib_set_route(ctx, false, "gpu %s", vt);
    ctx->timing.total_s = base_now_s() - t_start;
    rc = GLGEMM_OK;
done:
    if (rc != GLGEMM_OK)
        put_back(&bc, g);
    free(bc.copied);
    free(bc.colacc);
    pthread_mutex_destroy(&bc.mu);
    base_checksum_free(prep.plan);
    if (own_c0)
        free(c0);
    return rc;
}

/* A small GEMM at open, on the GPU whatever the crossover, with the variant
 * chosen for it: the driver builds its per-process pieces of the pipeline
 * (llvmpipe JIT-compiles the vertex and set-up code, which Mesa's disk cache
 * does not keep, ~12 ms), and the context its thread team and buffers, so
 * that the first call pays for its own program only.  Its result is
 * discarded and its failure ignored (the calls meet it again, with their
 * fallback).  Not with GLGEMM_WARMUP=0, nor under GLGEMM_FAULT (a test's
 * fault is for its calls). */
void lib_warm_up(glgemm_context *ctx)
{
    long warm = 1;
    char err[200];
    (void)lib_env_get(LIB_ENV_WARMUP, &warm, err, sizeof err); /* never bad */
    if (!warm || base_fault_any())
        return;
    enum { W = 64 };
    float *buf = malloc(3 * W * W * sizeof *buf);
    if (!buf)
        return;
    for (int i = 0; i < 2 * W * W; i++)
        buf[i] = (float)(i % 7 - 3);
    rm_gemm g = {.m = W, .n = W, .k = W, .alpha = 1.0f, .beta = 0.0f, .a = buf, .lda = W,
                 .b = buf + W * W, .ldb = W, .c = buf + 2 * W * W, .ldc = W};
    gg_variant v;
    lib_choose(ctx, W, W, W, &v);
    (void)lib_run_variant(ctx, "glgemm_open", &v, &g);
    free(buf);
    ctx->lost = false;
    ctx->timing = (glgemm_timing){0};
    ctx->last = (last_run){0};
    ctx->route[0] = '\0'; /* no call yet */
    ctx->cpu_arith = false;
}

/* glgemm_sgemm's GPU route on ctx's own GL context: the variant chosen for
 * g, the default as its one fallback. */
int lib_gpu_chosen(glgemm_context *ctx, const char *fn, const rm_gemm *g)
{
    gg_variant v;
    lib_choose(ctx, g->m, g->n, g->k, &v);
    ctx->lost = false;
    int rc = lib_run_variant(ctx, fn, &v, g);
    gg_variant dv;
    lib_default_variant(&dv);
    if ((rc == GLGEMM_EGPU || rc == GLGEMM_EWRONG) && !gen_variant_equal(&v, &dv)) {
        char first[LIB_ERR_LEN];
        memcpy(first, lib_error_text(), sizeof first);
        /* A lost context (a reset) is no fault of the variant: it stays
         * the one chosen for the next call. */
        if (ctx->nfailed < MAX_FAILED && !ctx->lost)
            ctx->failed[ctx->nfailed++] = v;
        rc = lib_run_variant(ctx, fn, &dv, g);
        if (rc) {
            char second[LIB_ERR_LEN];
            memcpy(second, lib_error_text(), sizeof second);
            lib_set_error(rc, "%.250s; then the default: %.250s", first, second);
        }
    }
    return rc;
}
