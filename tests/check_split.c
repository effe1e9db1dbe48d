/* The library over several devices (glgemm_open_devices, GLGEMM_DEVICES;
 * lib/split.h).  This machine has one EGL device (llvmpipe): the cases
 * name it twice (0,0: two contexts on it, each on its own thread), which
 * splits the calls as two GPUs would.  Every result against a double
 * reference with the error bound of a one-device call, the padding of C
 * untouched; the tiles went to both devices; a device that fails its tiles
 * (fault device_lost, on the last device of the list) is retired and the
 * result is still right; every device failing (fault wrong_result): the CPU
 * computes the tiles; glgemm_sgemm_variant fails as a one-device call does,
 * C as it was; bad GLGEMM_DEVICES, GLGEMM_SPLIT_* and arguments: no context
 * and one line; the tile grid and the list's text (pure). */
#define _GNU_SOURCE
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glgemm.h"
#include "base/inputs.h"
#include "lib/env.h"
#include "lib/inspect.h"
#include "lib/split.h"
#include "tests/cli_util.h"
#include "tests/cpu_count.h"
#include "tests/suites.h"

static const int two[2] = {0, 0};

/* A context over device 0 twice, every call split (GLGEMM_SPLIT_MIN=0)
 * into tiles a device; through GLGEMM_DEVICES or glgemm_open_devices. */
static glgemm_context *open_two(const char *tiles, bool by_env)
{
    setenv("GLGEMM_SPLIT_MIN", "0", 1);
    setenv("GLGEMM_SPLIT_TILES", tiles, 1);
    glgemm_context *g;
    if (by_env) {
        setenv("GLGEMM_DEVICES", "0,0", 1);
        g = glgemm_open(NULL, 0);
        unsetenv("GLGEMM_DEVICES");
    } else {
        g = glgemm_open_devices("egl", two, 2);
    }
    unsetenv("GLGEMM_SPLIT_MIN");
    unsetenv("GLGEMM_SPLIT_TILES");
    ck_assert_msg(g != NULL, "open: %s", glgemm_last_error());
    return g;
}

/* One sgemm in cblas terms, with its operands and C (padded: ldc > the
 * stored rows or columns; the padding NaN, so that a write shows). */
typedef struct {
    glgemm_layout layout;
    glgemm_op ta, tb;
    int m, n, k;
    float alpha, beta;
    int pad; /* added to every leading dimension */
} shape;

typedef struct {
    shape s;
    int lda, ldb, ldc;
    int crows, ccols; /* C as stored: ccols of ldc */
    float *a, *b, *c, *c0;
} call_t;

static call_t call_make(shape s, uint64_t seed)
{
    call_t x = {.s = s};
    bool row = s.layout == GLGEMM_ROW_MAJOR;
    bool ta = s.ta != GLGEMM_NOTRANS, tb = s.tb != GLGEMM_NOTRANS;
    /* stored: rows x cols with ld >= cols (row-major) or rows (column-major) */
    int ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    x.lda = (row ? ac : ar) + s.pad;
    x.ldb = (row ? bc : br) + s.pad;
    x.ldc = (row ? s.n : s.m) + s.pad;
    size_t la = (size_t)(row ? ar : ac) * x.lda, lb = (size_t)(row ? br : bc) * x.ldb;
    x.crows = row ? s.m : s.n;
    x.ccols = row ? s.n : s.m;
    size_t lc = (size_t)x.crows * x.ldc;
    x.a = malloc(la * sizeof *x.a);
    x.b = malloc(lb * sizeof *x.b);
    x.c = malloc(lc * sizeof *x.c);
    x.c0 = malloc(lc * sizeof *x.c0);
    ck_assert(x.a && x.b && x.c && x.c0);
    base_fill_uniform(x.a, la, seed, 0);
    base_fill_uniform(x.b, lb, seed, 1);
    base_fill_uniform(x.c, lc, seed, 2);
    for (size_t i = 0; i < lc; i++)
        if ((int)(i % (size_t)x.ldc) >= x.ccols)
            x.c[i] = NAN;
    memcpy(x.c0, x.c, lc * sizeof *x.c);
    return x;
}

static void call_free(call_t *x) { free(x->a), free(x->b), free(x->c), free(x->c0); }

static int call_run(glgemm_context *g, call_t *x, const char *variant)
{
    const shape *s = &x->s;
    if (variant)
        return glgemm_sgemm_variant(g, variant, s->layout, s->ta, s->tb, s->m, s->n, s->k,
                                    s->alpha, x->a, x->lda, x->b, x->ldb, s->beta, x->c, x->ldc);
    return glgemm_sgemm(g, s->layout, s->ta, s->tb, s->m, s->n, s->k, s->alpha, x->a, x->lda,
                        x->b, x->ldb, s->beta, x->c, x->ldc);
}

/* Element (i, j) of op(X), X stored with leading dimension ld in layout. */
static double op_at(const float *x, int ld, bool row, bool t, int i, int j)
{
    if (t) {
        int s = i;
        i = j;
        j = s;
    }
    return row ? x[(size_t)i * ld + j] : x[i + (size_t)j * ld];
}

/* Elements of C outside the bound k 2^-23 S of the double reference (or
 * not finite), plus padding that was written. */
static int call_wrong(const call_t *x)
{
    const shape *s = &x->s;
    bool row = s->layout == GLGEMM_ROW_MAJOR;
    bool ta = s->ta != GLGEMM_NOTRANS, tb = s->tb != GLGEMM_NOTRANS;
    int bad = 0;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            size_t at = row ? (size_t)i * x->ldc + j : i + (size_t)j * x->ldc;
            double c0 = s->beta != 0.0f ? (double)s->beta * x->c0[at] : 0.0;
            double r = c0, sc = fabs(c0);
            for (int q = 0; q < s->k; q++) {
                double p = (double)s->alpha * op_at(x->a, x->lda, row, ta, i, q) *
                           op_at(x->b, x->ldb, row, tb, q, j);
                r += p;
                sc += fabs(p);
            }
            double e = fabs(x->c[at] - r);
            bad += !(e <= s->k * ldexp(1, -23) * sc + 1e-30);
        }
    for (size_t i = 0; i < (size_t)x->crows * x->ldc; i++)
        bad += (int)(i % (size_t)x->ldc) >= x->ccols && !isnan(x->c[i]);
    return bad;
}

/* C exactly as it was, padding included. */
static bool call_untouched(const call_t *x)
{
    size_t n = (size_t)x->crows * x->ldc;
    for (size_t i = 0; i < n; i++)
        if (!(x->c[i] == x->c0[i] || (isnan(x->c[i]) && isnan(x->c0[i]))))
            return false;
    return true;
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static const shape shapes[] = {
    {GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 130, 100, 70, 1.0f, 0.0f, 0},
    {GLGEMM_COL_MAJOR, GLGEMM_TRANS, GLGEMM_NOTRANS, 97, 61, 45, -0.5f, 2.0f, 3},
    {GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_TRANS, 64, 129, 33, 1.5f, 1.0f, 5},
    {GLGEMM_COL_MAJOR, GLGEMM_TRANS, GLGEMM_CONJTRANS, 33, 47, 81, 1.0f, -1.0f, 2},
    {GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 1, 301, 20, 2.0f, 0.5f, 1},
    {GLGEMM_ROW_MAJOR, GLGEMM_TRANS, GLGEMM_NOTRANS, 257, 3, 19, 1.0f, 0.0f, 4},
    {GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 77, 91, 1, 0.25f, 1.0f, 7},
};

/* Every shape, split over the two devices (tiles on both), right, the
 * padding untouched; the context opened both ways; every other shape run
 * with an explicit variant too. */
START_TEST(split_right)
{
    glgemm_context *g = open_two("2", _i % 2 == 0);
    ck_assert_int_eq(lib_inspect_split_live(g), 2);
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        call_t x = call_make(shapes[i], 40 + i + 100 * (uint64_t)_i);
        const char *variant = _i / 2 && i % 2 ? "nv-multi" : NULL;
        int rc = call_run(g, &x, variant);
        ck_assert_msg(rc == GLGEMM_OK, "shape %zu: rc %d: %s", i, rc, glgemm_last_error());
        ck_assert_msg(call_wrong(&x) == 0, "shape %zu: %d elements wrong (%s)", i,
                      call_wrong(&x), glgemm_last_route(g));
        long t0 = lib_inspect_split_tiles(g, 0), t1 = lib_inspect_split_tiles(g, 1);
        ck_assert_msg(t0 >= 1 && t1 >= 1 && t0 + t1 == 4 && lib_inspect_split_tiles(g, -1) == 0,
                      "shape %zu: tiles %ld + %ld: %s", i, t0, t1, glgemm_last_route(g));
        ck_assert_msg(starts(glgemm_last_route(g), "split 4 tiles of "), "%s",
                      glgemm_last_route(g));
        if (variant)
            ck_assert_msg(strstr(glgemm_last_route(g), "gpu mrt=1x1,mc=1x4,np=6,unroll=1"), "%s",
                          glgemm_last_route(g));
        call_free(&x);
    }
    glgemm_close(g);
}
END_TEST

/* GLGEMM_SPLIT_TILES=3: six tiles, each device at least one (its first);
 * below GLGEMM_SPLIT_MIN a call is one tile on the first device; below the
 * crossover, the CPU; quick returns and bad arguments as one device's. */
START_TEST(split_tiles_and_small)
{
    glgemm_context *g = open_two("3", false);
    call_t x = call_make(shapes[0], 7);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    long t0 = lib_inspect_split_tiles(g, 0), t1 = lib_inspect_split_tiles(g, 1);
    ck_assert_msg(t0 >= 1 && t1 >= 1 && t0 + t1 == 6, "tiles %ld + %ld", t0, t1);
    ck_assert_msg(starts(glgemm_last_route(g), "split 6 tiles of 44x50: device 0: "), "%s",
                  glgemm_last_route(g));
    glgemm_timing t;
    glgemm_last_timing(g, &t);
    ck_assert(t.total_s > 0);
    glgemm_close(g);

    setenv("GLGEMM_SPLIT_MIN", "100", 1); /* 130 * 100 * 70 < 100^3 */
    g = glgemm_open_devices(NULL, two, 2);
    unsetenv("GLGEMM_SPLIT_MIN");
    ck_assert_ptr_nonnull(g);
    memcpy(x.c, x.c0, (size_t)x.crows * x.ldc * sizeof *x.c);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    ck_assert_int_eq(lib_inspect_split_tiles(g, 0), 1);
    ck_assert_int_eq(lib_inspect_split_tiles(g, 1), 0);
    ck_assert_msg(starts(glgemm_last_route(g), "gpu mrt=") &&
                      strstr(glgemm_last_route(g), " on device 0"),
                  "%s", glgemm_last_route(g));
    ck_assert_int_eq(glgemm_set_crossover(g, 200), GLGEMM_OK);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_str_eq(glgemm_last_route(g), "cpu crossover 200");
    ck_assert_int_eq(glgemm_set_crossover(g, 0), GLGEMM_OK);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 0, 5, 5, 1,
                                  x.a, 5, x.b, 5, 0, x.c, 5),
                     GLGEMM_OK);
    ck_assert_str_eq(glgemm_last_route(g), "quick return");
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 5, 5, 5, 1,
                                  x.a, 4, x.b, 5, 0, x.c, 5),
                     GLGEMM_EARG_LDA);
    ck_assert_str_eq(glgemm_last_route(g), "error");
    ck_assert_int_eq(glgemm_sgemm_variant(g, "mrt=9x9", GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                          GLGEMM_NOTRANS, 5, 5, 5, 1, x.a, 5, x.b, 5, 0, x.c, 5),
                     GLGEMM_EVARIANT);
    call_free(&x);
    glgemm_close(g);
}
END_TEST

/* The required case: the last device fails its tiles (fault device_lost:
 * its runs report a lost context, after some rows went into C: 3 bands)
 * with beta 0.5 (C read): it is retired, the first device computes every
 * tile, the result is right; the route says so; later calls go to the
 * first device alone, right. */
START_TEST(split_device_fails)
{
    setenv("GLGEMM_BANDS", "3", 1);
    glgemm_context *g = open_two("2", _i == 0);
    shape s = {GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 144, 120, 96, 1.0f, 0.5f, 3};
    call_t x = call_make(s, 91);
    setenv("GLGEMM_FAULT", "device_lost", 1);
    int rc = call_run(g, &x, NULL);
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_msg(call_wrong(&x) == 0, "%d wrong: %s", call_wrong(&x), glgemm_last_route(g));
    ck_assert_int_eq(lib_inspect_split_live(g), 1);
    ck_assert_int_eq(lib_inspect_split_tiles(g, 0), 4);
    ck_assert_int_eq(lib_inspect_split_tiles(g, 1), 0);
    ck_assert_msg(strstr(glgemm_last_route(g), "; device 0 retired: ") &&
                      strstr(glgemm_last_route(g), "fault device_lost"),
                  "%s", glgemm_last_route(g));
    memcpy(x.c, x.c0, (size_t)x.crows * x.ldc * sizeof *x.c);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    ck_assert_int_eq(lib_inspect_split_tiles(g, 0), 2); /* two tiles a device in service */
    ck_assert_int_eq(lib_inspect_split_tiles(g, 1), 0);
    ck_assert_ptr_null(strstr(glgemm_last_route(g), "retired"));
    char v[300];
    ck_assert_int_eq(glgemm_variant_for(g, 144, 120, 96, v, sizeof v), GLGEMM_OK);
    call_free(&x);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
}
END_TEST

/* Every device wrong (fault wrong_result on all): both retired, the tiles
 * computed on the CPU route (the caller's own CPU sgemm here), right; then
 * every call on the CPU, and an explicit variant has no device to run on. */
START_TEST(split_all_fail_cpu)
{
    glgemm_context *g = open_two("2", false);
    ck_assert_int_eq(glgemm_set_cpu_sgemm(g, counting_sgemm), GLGEMM_OK);
    call_t x = call_make(shapes[1], 17);
    setenv("GLGEMM_FAULT", "wrong_result", 1);
    int rc = call_run(g, &x, NULL);
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(call_wrong(&x), 0);
    ck_assert_int_eq(lib_inspect_split_live(g), 0);
    long cpu = lib_inspect_split_tiles(g, -1);
    /* a device is retired at its first failure: it served none */
    ck_assert_msg(cpu == 4 && lib_inspect_split_tiles(g, 0) + lib_inspect_split_tiles(g, 1) == 0,
                  "cpu %ld: %s", cpu, glgemm_last_route(g));
    ck_assert_int_eq(cpu_calls, cpu);
    ck_assert_msg(starts(glgemm_last_route(g), "split 4 tiles of ") &&
                      strstr(glgemm_last_route(g), ": cpu: 4; device 0 retired: ") &&
                      strstr(glgemm_last_route(g), "wrong result"),
                  "%s", glgemm_last_route(g));
    memcpy(x.c, x.c0, (size_t)x.crows * x.ldc * sizeof *x.c);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    ck_assert_str_eq(glgemm_last_route(g), "cpu: no device left");
    memcpy(x.c, x.c0, (size_t)x.crows * x.ldc * sizeof *x.c);
    ck_assert_int_eq(call_run(g, &x, "nv-multi"), GLGEMM_ENOCONTEXT);
    ck_assert(call_untouched(&x));
    char v[300];
    ck_assert_int_eq(glgemm_variant_for(g, 64, 64, 64, v, sizeof v), GLGEMM_ENOCONTEXT);
    call_free(&x);
    glgemm_close(g);
}
END_TEST

/* glgemm_sgemm_variant over two devices, the last failing (device_lost):
 * the call fails as a one-device call would (GLGEMM_EGPU), and C is as it
 * was although the first device's tiles went in; no device is retired, and
 * the same call without the fault is right. */
START_TEST(split_variant_fails_untouched)
{
    glgemm_context *g = open_two("3", false);
    shape s = {GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_TRANS, 90, 110, 50, 1.0f, 1.0f, 4};
    call_t x = call_make(s, 23);
    setenv("GLGEMM_FAULT", "device_lost", 1);
    int rc = call_run(g, &x, "nv-single");
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == GLGEMM_EGPU, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_msg(strstr(glgemm_last_error(), "fault device_lost"), "%s", glgemm_last_error());
    ck_assert_msg(call_untouched(&x), "C changed");
    ck_assert_str_eq(glgemm_last_route(g), "error");
    ck_assert_int_eq(lib_inspect_split_live(g), 2);
    rc = call_run(g, &x, "nv-single");
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(call_wrong(&x), 0);
    call_free(&x);
    glgemm_close(g);
}
END_TEST

/* Each device runs its card's record nearest the tile's size (not the
 * call's); glgemm_variant_for names it; glgemm_set_verify reaches the
 * devices (with none, the fault's wrong element is not caught). */
START_TEST(split_tile_records_verify)
{
    char dir[200];
    tu_mkdtemp(dir, sizeof dir, "split-rec");
    setenv("GLGEMM_RESULTS", dir, 1);
    glgemm_context *g = open_two("2", false);
    const char *tile_v = "mrt=1x2,mc=1x4,np=8,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                         "store=f32";
    tu_write_best(dir, glgemm_card(g), 65, 50, 70, tile_v, 10);
    tu_write_best(dir, glgemm_card(g), 130, 100, 70, "nv-single", 10);
    char v[300];
    ck_assert_int_eq(glgemm_variant_for(g, 130, 100, 70, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, tile_v);
    call_t x = call_make(shapes[0], 5);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    char want[400];
    snprintf(want, sizeof want, "split 4 tiles of 65x50: device 0: %ld gpu %s, device 0: %ld gpu %s",
             lib_inspect_split_tiles(g, 0), tile_v, lib_inspect_split_tiles(g, 1), tile_v);
    ck_assert_str_eq(glgemm_last_route(g), want);
    ck_assert_int_eq(glgemm_set_verify(g, GLGEMM_VERIFY_NONE), GLGEMM_OK);
    setenv("GLGEMM_FAULT", "wrong_result", 1);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    unsetenv("GLGEMM_FAULT");
    ck_assert_int_eq(call_wrong(&x), 4); /* one element a tile, unchecked */
    ck_assert_int_eq(lib_inspect_split_live(g), 2);
    call_free(&x);
    glgemm_close(g);
    unsetenv("GLGEMM_RESULTS");
    tu_rm_rf(dir);
}
END_TEST

/* One call at a time: a call made from another thread while one is in
 * progress (here: from the CPU sgemm the crossover runs) is refused. */
static glgemm_context *busy_ctx;
static int busy_rc;
static void *other_call(void *arg)
{
    call_t *x = arg;
    busy_rc = call_run(busy_ctx, x, NULL);
    return NULL;
}

static void calling_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha,
                          const float *a, int lda, const float *b, int ldb, float beta, float *c,
                          int ldc)
{
    call_t y = call_make(shapes[0], 3);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_call, &y), 0);
    pthread_join(t, NULL);
    call_free(&y);
    cblas_sgemm((CBLAS_ORDER)layout, (CBLAS_TRANSPOSE)ta, (CBLAS_TRANSPOSE)tb, m, n, k, alpha, a,
                lda, b, ldb, beta, c, ldc);
}

START_TEST(split_one_call_at_a_time)
{
    glgemm_context *g = busy_ctx = open_two("2", false);
    ck_assert_int_eq(glgemm_set_cpu_sgemm(g, calling_sgemm), GLGEMM_OK);
    ck_assert_int_eq(glgemm_set_crossover(g, 1000), GLGEMM_OK);
    call_t x = call_make(shapes[0], 9);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    ck_assert_int_eq(busy_rc, GLGEMM_ENOCONTEXT);
    ck_assert_int_eq(glgemm_set_crossover(g, 0), GLGEMM_OK);
    ck_assert_int_eq(glgemm_set_cpu_sgemm(g, NULL), GLGEMM_OK);
    memcpy(x.c, x.c0, (size_t)x.crows * x.ldc * sizeof *x.c);
    busy_rc = -99;
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_call, &x), 0); /* another thread, alone */
    pthread_join(t, NULL);
    ck_assert_int_eq(busy_rc, GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    call_free(&x);
    glgemm_close(g);
}
END_TEST

/* A forked child has none of the devices' threads: a call there is
 * refused at once (not a wait for threads that are not there), and closing
 * the context there returns; the parent's context still serves. */
START_TEST(split_forked_child)
{
    glgemm_context *g = open_two("2", false);
    call_t x = call_make(shapes[0], 4);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int rc = call_run(g, &x, NULL);
        bool said = strstr(glgemm_last_error(), "another process") != NULL;
        glgemm_close(g);
        _exit(rc == GLGEMM_ENOCONTEXT && said && call_untouched(&x) ? 0 : 1);
    }
    int status = -1;
    for (int i = 0; i < 300 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(100000);
    if (status == -1)
        kill(pid, SIGKILL), waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status 0x%x", status);
    ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
    ck_assert_int_eq(call_wrong(&x), 0);
    call_free(&x);
    glgemm_close(g);
}
END_TEST

/* Bad GLGEMM_DEVICES, GLGEMM_SPLIT_MIN, GLGEMM_SPLIT_TILES and arguments:
 * no context, one line naming the problem.  GLGEMM_DEVICES=all and a list
 * of one: a one-device context (this machine has no hardware device). */
START_TEST(split_bad_open)
{
    static const char *const bad_list[] = {"x", "0,", ",0", "0,,1", "-1", "1 2", "all,0",
                                           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "99999999"};
    for (size_t i = 0; i < sizeof bad_list / sizeof *bad_list; i++) {
        setenv("GLGEMM_DEVICES", bad_list[i], 1);
        ck_assert_ptr_null(glgemm_open(NULL, 0));
        const char *e = glgemm_last_error();
        ck_assert_msg(starts(e, "glgemm_open: GLGEMM_DEVICES=") && !strchr(e, '\n'), "%s: %s",
                      bad_list[i], e);
    }
    setenv("GLGEMM_DEVICES", "0,0", 1);
    static const char *const bad_env[][2] = {{"GLGEMM_SPLIT_MIN", "12x"},
                                             {"GLGEMM_SPLIT_TILES", "0"},
                                             {"GLGEMM_SPLIT_TILES", "65"}};
    for (size_t i = 0; i < 3; i++) {
        setenv(bad_env[i][0], bad_env[i][1], 1);
        ck_assert_ptr_null(glgemm_open(NULL, 0));
        ck_assert_msg(strstr(glgemm_last_error(), bad_env[i][0]), "%s", glgemm_last_error());
        unsetenv(bad_env[i][0]);
    }
    setenv("GLGEMM_DEVICES", "0,5", 1);
    ck_assert_ptr_null(glgemm_open(NULL, 0));
    ck_assert_msg(strstr(glgemm_last_error(), "device 5 (number 2 of the list)") &&
                      strstr(glgemm_last_error(), "no device 5"),
                  "%s", glgemm_last_error());
    unsetenv("GLGEMM_DEVICES");
    int neg[2] = {0, -1}, many[GLGEMM_MAX_DEVICES + 1] = {0};
    ck_assert_ptr_null(glgemm_open_devices(NULL, NULL, 2));
    ck_assert_ptr_null(glgemm_open_devices(NULL, two, 0));
    ck_assert_ptr_null(glgemm_open_devices(NULL, many, GLGEMM_MAX_DEVICES + 1));
    ck_assert_msg(strstr(glgemm_last_error(), "from 1 to 16"), "%s", glgemm_last_error());
    ck_assert_ptr_null(glgemm_open_devices(NULL, neg, 2));
    ck_assert_msg(strstr(glgemm_last_error(), "device -1 (number 2"), "%s", glgemm_last_error());
    ck_assert_ptr_null(glgemm_open_devices("glfw", two, 2));
    ck_assert_msg(strstr(glgemm_last_error(), "need egl"), "%s", glgemm_last_error());
    ck_assert_ptr_null(glgemm_open_devices("vulkan", two, 2));
    static const char *const one[] = {"all", "0"};
    for (size_t i = 0; i < 2; i++) {
        setenv("GLGEMM_DEVICES", one[i], 1);
        glgemm_context *g = glgemm_open(NULL, 0);
        unsetenv("GLGEMM_DEVICES");
        ck_assert_msg(g != NULL, "%s", glgemm_last_error());
        call_t x = call_make(shapes[0], 2);
        ck_assert_int_eq(call_run(g, &x, NULL), GLGEMM_OK);
        ck_assert_int_eq(call_wrong(&x), 0);
        ck_assert_msg(starts(glgemm_last_route(g), "gpu ") &&
                          !strstr(glgemm_last_route(g), "device"),
                      "%s", glgemm_last_route(g));
        ck_assert_int_eq(lib_inspect_split_live(g), 0);
        call_free(&x);
        glgemm_close(g);
    }
    glgemm_context *g = glgemm_open_devices(NULL, two, 1); /* one: a one-device context */
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(lib_inspect_split_live(g), 0);
    glgemm_close(g);
}
END_TEST

/* The grid: about the tiles asked, as square as the factors allow, every
 * element of C in exactly one tile, none empty. */
START_TEST(split_grid)
{
    static const int cases[][5] = {
        /* m, n, tiles, rows, cols */
        {8192, 8192, 4, 2, 2},  {8192, 8192, 2, 2, 1}, {8192, 4096, 2, 2, 1},
        {4096, 8192, 2, 1, 2},  {1000, 10, 4, 4, 1},   {130, 100, 6, 3, 2},
        {1, 301, 4, 1, 4},      {257, 3, 4, 4, 1},     {3, 3, 16, 3, 3},
        {9, 100, 4, 1, 4},      {5, 5, 1, 1, 1},       {1, 1, 8, 1, 1},
        {100, 100, 3, 3, 1},    {10, 9, 4, 2, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int m = cases[c][0], n = cases[c][1];
        lib_grid g = lib_split_grid(m, n, cases[c][2]);
        ck_assert_msg(g.rows == cases[c][3] && g.cols == cases[c][4], "%dx%d in %d: %dx%d",
                      m, n, cases[c][2], g.rows, g.cols);
        long area = 0;
        for (int i = 0; i < lib_grid_count(&g); i++) {
            lib_tile t = lib_grid_tile(&g, m, n, i);
            ck_assert(t.index == i && t.r0 < t.r1 && t.c0 < t.c1 && t.r1 <= m && t.c1 <= n);
            ck_assert(t.r1 - t.r0 <= g.h && t.c1 - t.c0 <= g.w);
            area += (long)(t.r1 - t.r0) * (t.c1 - t.c0);
        }
        ck_assert_int_eq(area, (long)m * n);
    }
}
END_TEST

/* GLGEMM_DEVICES's text: lists and all taken, their canonical text the
 * same; anything else refused with one line naming the variable. */
START_TEST(split_devices_env)
{
    static const struct {
        const char *text;
        int n;
        const char *canon;
    } good[] = {{"", 0, ""}, {"all", -1, "all"}, {"0", 1, "0"}, {"0,0", 2, "0,0"},
                {"3,1,2", 3, "3,1,2"}, {"007,1", 2, "7,1"},
                {"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", 16, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int list[GLGEMM_MAX_DEVICES], n = -7;
        char err[200], buf[200];
        ck_assert_int_eq(lib_env_devices(good[i].text, list, &n, err, sizeof err), 0);
        ck_assert_int_eq(n, good[i].n);
        ck_assert_str_eq(lib_env_devices_format(list, n, buf, sizeof buf), good[i].canon);
    }
    ck_assert_int_eq(lib_env_devices(NULL, NULL, &(int){5}, NULL, 0), 0);
    static const char *const bad[] = {"ALL", " 0", "0 ", "0;1", "1,-1", "+1", "0x1", "1,2,",
                                      "1048577", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int list[GLGEMM_MAX_DEVICES], n = -7;
        char err[300];
        ck_assert_int_eq(lib_env_devices(bad[i], list, &n, err, sizeof err), -1);
        ck_assert_int_eq(n, -7);
        ck_assert_msg(starts(err, "GLGEMM_DEVICES=") && !strchr(err, '\n'), "%s", err);
    }
}
END_TEST

Suite *make_split_suite(void)
{
    Suite *s = suite_create("split");
    TCase *pure = tcase_create("split_pure");
    tcase_set_tags(pure, "pure");
    tcase_add_test(pure, split_grid);
    tcase_add_test(pure, split_devices_env);
    suite_add_tcase(s, pure);
    /* The devices' threads serve the tiles (make tsan runs this case). */
    TCase *gl = tcase_create("split_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 300); /* under ThreadSanitizer */
    tcase_add_loop_test(gl, split_right, 0, 4);
    tcase_add_test(gl, split_tiles_and_small);
    tcase_add_loop_test(gl, split_device_fails, 0, 2);
    tcase_add_test(gl, split_all_fail_cpu);
    tcase_add_test(gl, split_variant_fails_untouched);
    tcase_add_test(gl, split_tile_records_verify);
    tcase_add_test(gl, split_one_call_at_a_time);
    tcase_add_test(gl, split_bad_open);
    tcase_add_test(gl, split_forked_child);
    suite_add_tcase(s, gl);
    return s;
}
