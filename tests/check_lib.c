/* glgemm.h's library as programs use it: the CPU crossover (environment,
 * record, per context, the caller's CPU sgemm), the route a call took, the
 * caller's floating-point flags left as found, records from the per-user
 * folder, programs kept between calls without keeping stale inputs, and two
 * threads with a context each.  Every result against a double loop. */
#define _GNU_SOURCE
#include <cblas.h>
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "glgemm.h"
#include "base/inputs.h"
#include "glhost/progcache.h"
#include "lib/inspect.h"
#include "tests/cli_util.h"
#include "tests/cpu_count.h"
#include "tests/suites.h"

static glgemm_context *open_ok(void)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "glgemm_open: %s", glgemm_last_error());
    return g;
}

typedef struct {
    int m, n, k;
    float *a, *b, *c;
} prob;

static prob prob_make(int m, int n, int k, uint64_t seed)
{
    prob p = {m, n, k, malloc(sizeof(float) * (size_t)m * k), malloc(sizeof(float) * (size_t)k * n),
              calloc((size_t)m * n, sizeof(float))};
    ck_assert(p.a && p.b && p.c);
    base_fill_uniform(p.a, (size_t)m * k, seed, 0);
    base_fill_uniform(p.b, (size_t)k * n, seed, 1);
    return p;
}

static void prob_free(prob *p) { free(p->a), free(p->b), free(p->c); }

/* Row-major C = A B, no transposes: every element within the tool's bound. */
static int prob_wrong(const prob *p)
{
    int bad = 0;
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            double r = 0, s = 0;
            for (int q = 0; q < p->k; q++) {
                r += (double)p->a[(size_t)i * p->k + q] * p->b[(size_t)q * p->n + j];
                s += fabs((double)p->a[(size_t)i * p->k + q] * p->b[(size_t)q * p->n + j]);
            }
            double e = fabs(p->c[(size_t)i * p->n + j] - r);
            bad += !(e <= 4 * p->k * ldexp(1, -23) * s + 1e-30);
        }
    return bad;
}

static int call(glgemm_context *g, prob *p)
{
    return glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, p->m, p->n, p->k, 1,
                        p->a, p->k, p->b, p->n, 0, p->c, p->n);
}

static void call_ok(glgemm_context *g, prob *p, const char *route)
{
    int rc = call(g, p);
    ck_assert_msg(rc == GLGEMM_OK, "%d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(prob_wrong(p), 0);
    ck_assert_msg(!strncmp(glgemm_last_route(g), route, strlen(route)), "route '%s', want '%s'",
                  glgemm_last_route(g), route);
}

START_TEST(lib_crossover_env)
{
    setenv("GLGEMM_CROSSOVER", "64", 1);
    glgemm_context *g = open_ok();
    unsetenv("GLGEMM_CROSSOVER");
    ck_assert_int_eq(glgemm_crossover(g), 64);
    prob small = prob_make(40, 50, 60, 1), big = prob_make(64, 64, 70, 2);
    call_ok(g, &small, "cpu crossover 64");
    call_ok(g, &big, "gpu ");
    ck_assert_int_eq(glgemm_set_crossover(g, 0), GLGEMM_OK);
    call_ok(g, &small, "gpu ");
    ck_assert_int_eq(glgemm_set_crossover(g, -1), GLGEMM_OK);
    ck_assert_int_eq(glgemm_crossover(g), 64);
    ck_assert_int_eq(glgemm_set_crossover(g, -2), GLGEMM_EINVAL);
    ck_assert_int_eq(glgemm_set_crossover(NULL, 5), GLGEMM_ENOCONTEXT);
    /* Quick returns and errors say so. */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 0, 5, 5, 1,
                                  small.a, 5, small.b, 5, 0, small.c, 5),
                     GLGEMM_OK);
    ck_assert_str_eq(glgemm_last_route(g), "quick return");
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 5, 5, 5, 1,
                                  small.a, 4, small.b, 5, 0, small.c, 5),
                     GLGEMM_EARG_LDA);
    ck_assert_str_eq(glgemm_last_route(g), "error");
    glgemm_close(g);
    prob_free(&small);
    prob_free(&big);
}
END_TEST

START_TEST(lib_crossover_bad_env)
{
    static const char *const bad[] = {"abc", "-1", "12x", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("GLGEMM_CROSSOVER", bad[i], 1);
        ck_assert_ptr_null(glgemm_open(NULL, 0));
        ck_assert_msg(strstr(glgemm_last_error(), "GLGEMM_CROSSOVER") != NULL, "%s",
                      glgemm_last_error());
    }
    unsetenv("GLGEMM_CROSSOVER");
}
END_TEST

/* The card's record, in the first records folder that has one. */
START_TEST(lib_crossover_record)
{
    char dir[200], path[600];
    tu_mkdtemp(dir, sizeof dir, "lib-cross");
    setenv("GLGEMM_RESULTS", dir, 1);
    unsetenv("GLGEMM_CROSSOVER"); /* the suite's 0 */
    ck_assert(!chdir(dir));       /* not the checkout's ./results */
    glgemm_context *g = open_ok();
    ck_assert_int_eq(glgemm_crossover(g), 0);
    snprintf(path, sizeof path, "%s/%s", dir, glgemm_card(g));
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/%s/crossover.txt", dir, glgemm_card(g));
    glgemm_close(g);
    tu_write(path, "# glgemm bench --crossover\ncrossover: 48\n");
    g = open_ok();
    ck_assert_int_eq(glgemm_crossover(g), 48);
    prob small = prob_make(30, 30, 30, 3);
    call_ok(g, &small, "cpu crossover 48");
    glgemm_close(g);
    /* The environment wins over the record. */
    setenv("GLGEMM_CROSSOVER", "0", 1);
    g = open_ok();
    ck_assert_int_eq(glgemm_crossover(g), 0);
    glgemm_close(g);
    unsetenv("GLGEMM_CROSSOVER");
    unsetenv("GLGEMM_RESULTS");
    prob_free(&small);
    tu_rm_rf(dir);
}
END_TEST


START_TEST(lib_cpu_function)
{
    glgemm_context *g = open_ok();
    ck_assert_int_eq(glgemm_set_cpu_sgemm(g, counting_sgemm), GLGEMM_OK);
    ck_assert_int_eq(glgemm_set_crossover(g, 100), GLGEMM_OK);
    prob p = prob_make(33, 17, 9, 4);
    call_ok(g, &p, "cpu crossover 100");
    ck_assert_int_eq(cpu_calls, 1);
    /* An explicit variant never crosses over. */
    int rc = glgemm_sgemm_variant(g, "nv-single", GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS,
                                  p.m, p.n, p.k, 1, p.a, p.k, p.b, p.n, 0, p.c, p.n);
    ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
    ck_assert_int_eq(cpu_calls, 1);
    ck_assert_msg(!strncmp(glgemm_last_route(g), "gpu mrt=1x1", 11), "%s", glgemm_last_route(g));
    ck_assert_int_eq(prob_wrong(&p), 0);
    glgemm_close(g);
    prob_free(&p);
}
END_TEST

/* Whatever the driver does, the caller's flags come back as they were:
 * none raised stays none, one raised stays raised. */
/* x86's SSE denormal-operand flag (MXCSR bit 1), outside FE_ALL_EXCEPT:
 * Mesa raised it, and Fortran programs report it at STOP. */
static unsigned denormal_flag(void)
{
#if defined(__SSE__)
    return _mm_getcsr() & 0x2u;
#else
    return 0;
#endif
}

static void clear_denormal_flag(void)
{
#if defined(__SSE__)
    _mm_setcsr(_mm_getcsr() & ~0x2u);
#endif
}

START_TEST(lib_fp_flags)
{
    feclearexcept(FE_ALL_EXCEPT);
    clear_denormal_flag();
    glgemm_context *g = open_ok();
    ck_assert_int_eq(fetestexcept(FE_ALL_EXCEPT), 0);
    ck_assert_uint_eq(denormal_flag(), 0);
    prob p = prob_make(50, 60, 70, 5);
    feclearexcept(FE_ALL_EXCEPT);
    ck_assert_int_eq(call(g, &p), GLGEMM_OK); /* the first: the program is built */
    int after = fetestexcept(FE_ALL_EXCEPT);
    ck_assert_msg(after == 0, "flags 0x%x after a GPU call", after);
    ck_assert_uint_eq(denormal_flag(), 0);
    ck_assert_msg(!strncmp(glgemm_last_route(g), "gpu ", 4), "%s", glgemm_last_route(g));
    feraiseexcept(FE_INEXACT);
    ck_assert_int_eq(call(g, &p), GLGEMM_OK);
    ck_assert_int_eq(fetestexcept(FE_ALL_EXCEPT), FE_INEXACT);
    ck_assert_int_eq(prob_wrong(&p), 0);
    feclearexcept(FE_ALL_EXCEPT);
    clear_denormal_flag();
    glgemm_close(g);
    ck_assert_int_eq(fetestexcept(FE_ALL_EXCEPT), 0);
    ck_assert_uint_eq(denormal_flag(), 0);
    prob_free(&p);
}
END_TEST

/* Records from the per-user folder ($XDG_DATA_HOME/glgemm/results) when
 * GLGEMM_RESULTS is unset, from any folder; GLGEMM_RESULTS comes first. */
START_TEST(lib_user_records)
{
    char data[200], other[200], cwd[200], path[700];
    tu_mkdtemp(data, sizeof data, "lib-data");
    tu_mkdtemp(other, sizeof other, "lib-other");
    tu_mkdtemp(cwd, sizeof cwd, "lib-cwd");
    setenv("XDG_DATA_HOME", data, 1);
    unsetenv("GLGEMM_RESULTS");
    ck_assert(!chdir(cwd));
    glgemm_context *g = open_ok();
    char v[200];
    ck_assert_int_eq(glgemm_variant_for(g, 32, 32, 32, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, GLGEMM_DEFAULT_VARIANT);
    snprintf(path, sizeof path, "mkdir -p '%s/glgemm/results/%s'", data, glgemm_card(g));
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof path, "%s/glgemm/results/%s/best-32x32x32.txt", data, glgemm_card(g));
    tu_write(path, "nv-multi\ngflops: 1\n");
    ck_assert_int_eq(glgemm_variant_for(g, 32, 32, 32, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32");
    snprintf(path, sizeof path, "mkdir -p '%s/%s'", other, glgemm_card(g));
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof path, "%s/%s/best-32x32x32.txt", other, glgemm_card(g));
    tu_write(path, "nv-single\ngflops: 1\n");
    setenv("GLGEMM_RESULTS", other, 1);
    ck_assert_int_eq(glgemm_variant_for(g, 32, 32, 32, v, sizeof v), GLGEMM_OK);
    ck_assert_msg(!strncmp(v, "mrt=1x1,mc=2x2,", 15), "%s", v);
    unsetenv("GLGEMM_RESULTS");
    glgemm_close(g);
    tu_rm_rf(data);
    tu_rm_rf(other);
    tu_rm_rf(cwd);
}
END_TEST

/* The context keeps its programs and input textures: calls of one size
 * with new inputs each give each its own right answer (the textures are
 * filled again, never stale), for each way of reading A and B. */
static const char *const repeat_variants[] = {
    NULL, /* glgemm_sgemm's own choice */
    "mrt=2x2,mc=2x2,np=4,profile=330",
    "mc=1x4,np=3,profile=430,out=image,blk=8x8,fetch=texelfetch",
    "mc=1x4,np=3,profile=430,out=image,blk=4x8,fetch=image",
    "mc=1x4,np=all,profile=430,out=image,blk=4x4,fetch=buffer",
    "mrt=2x2,mc=2x2,np=4,fetch=texelfetch+ssbo",
    "mc=1x3,np=3,out=image,blk=2x6,fetch=ssbo",
};

START_TEST(lib_repeated_calls)
{
    glgemm_context *g = open_ok();
    const char *v = repeat_variants[_i];
    for (int r = 0; r < 3; r++) {
        prob p = prob_make(48, 40, 56, 10 + (uint64_t)r);
        if (!v) {
            call_ok(g, &p, "gpu ");
        } else {
            int rc = glgemm_sgemm_variant(g, v, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS,
                                          p.m, p.n, p.k, 1, p.a, p.k, p.b, p.n, 0, p.c, p.n);
            ck_assert_msg(rc == GLGEMM_OK, "%s: %s", v, glgemm_last_error());
            ck_assert_int_eq(prob_wrong(&p), 0);
        }
        prob_free(&p);
    }
    glgemm_close(g);
}
END_TEST

/* lib_inspect_kernel_s: bench's timing of the kernel a call would run, on
 * the context's own GL context: a time for a real problem, -1 with a
 * message for bad arguments, and the calls after it still right, with no
 * staging made (it keeps none of the calls' objects). */
START_TEST(lib_kernel_time)
{
    glgemm_context *g = open_ok();
    prob p = prob_make(96, 80, 64, 77);
    long made = lib_inspect_staging_made(g);
    double t = lib_inspect_kernel_s(g, p.m, p.n, p.k, p.a, p.b, 3);
    ck_assert_msg(t > 0 && t < 60, "kernel %g s: %s", t, glgemm_last_error());
    ck_assert_double_eq(lib_inspect_kernel_s(NULL, p.m, p.n, p.k, p.a, p.b, 3), -1);
    ck_assert_double_eq(lib_inspect_kernel_s(g, 0, p.n, p.k, p.a, p.b, 3), -1);
    ck_assert_double_eq(lib_inspect_kernel_s(g, p.m, p.n, p.k, NULL, p.b, 3), -1);
    ck_assert_double_eq(lib_inspect_kernel_s(g, p.m, p.n, p.k, p.a, p.b, 0), -1);
    ck_assert_ptr_nonnull(strstr(glgemm_last_error(), "lib_inspect_kernel_s"));
    call_ok(g, &p, "gpu ");
    ck_assert_int_eq(lib_inspect_staging_made(g), made);
    prob_free(&p);
    glgemm_close(g);
}
END_TEST

/* The streamed tests' call: the out=image variant below, row-major, no
 * transposes, alpha 1, into c (ldc) with beta. */
#define STREAM_V "mc=1x4,np=all,profile=430,out=image,blk=4x8"
static int stream_call(glgemm_context *g, const prob *p, float beta, float *c, int ldc)
{
    return glgemm_sgemm_variant(g, STREAM_V, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS,
                                p->m, p->n, p->k, 1, p->a, p->k, p->b, p->n, beta, c, ldc);
}

/* order=frag streams like the plain order: its permutation lies within a
 * band's block (gen/pack.c packs any run of texture rows), in one band and
 * in three, with transposes and beta; the bands go in early. */
START_TEST(lib_stream_frag)
{
    setenv("GLGEMM_BANDS", _i ? "3" : "1", 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(101, 75, 43, 91 + (uint64_t)_i);
    int rc = glgemm_sgemm_variant(g, "mc=1x4,out=image,blk=8x8,fetch=texelfetch,order=frag,ku=2",
                                  GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, p.m, p.n, p.k, 1,
                                  p.a, p.k, p.b, p.n, 0, p.c, p.n);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(prob_wrong(&p), 0);
    if (_i)
        ck_assert_msg(lib_inspect_last_early_rows(g) > 0, "not streamed in bands");
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
}
END_TEST

/* The storage-buffer fetches stream too (the staging copied into the
 * buffers on the card), in one band and in three, and a tuning record
 * naming one runs through glgemm_sgemm. */
START_TEST(lib_ssbo)
{
    setenv("GLGEMM_BANDS", _i ? "3" : "1", 1);
    char data[200], path[700];
    tu_mkdtemp(data, sizeof data, "lib-ssbo");
    setenv("GLGEMM_RESULTS", data, 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(101, 75, 43, 191 + (uint64_t)_i);
    int rc = glgemm_sgemm_variant(g, "mc=1x4,out=image,blk=8x8,fetch=texelfetch+ssbo,order=frag",
                                  GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, p.m, p.n, p.k, 1,
                                  p.a, p.k, p.b, p.n, 0, p.c, p.n);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(prob_wrong(&p), 0);
    if (_i)
        ck_assert_msg(lib_inspect_last_early_rows(g) > 0, "not streamed in bands");
    prob_free(&p);
    snprintf(path, sizeof path, "mkdir -p '%s/%s'", data, glgemm_card(g));
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof path, "%s/%s/best-96x80x64.txt", data, glgemm_card(g));
    tu_write(path, "mrt=2x1,mc=1x4,np=5,profile=430,fetch=ssbo+texelfetch\ngflops: 1\n");
    char v[200];
    ck_assert_int_eq(glgemm_variant_for(g, 96, 80, 64, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, "mrt=2x1,mc=1x4,np=5,unroll=0,profile=430,compiler=glsl,acc=pingpong,"
                        "store=f32,fetch=ssbo+texelfetch");
    p = prob_make(96, 80, 64, 7 + (uint64_t)_i);
    char route[260];
    snprintf(route, sizeof route, "gpu %s", v);
    call_ok(g, &p, route);
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_RESULTS");
    unsetenv("GLGEMM_BANDS");
    tu_rm_rf(data);
}
END_TEST

/* A wrong element in a streamed call's band (fault wrong_result) is caught
 * by the banded checks: GLGEMM_EWRONG naming a check, C untouched; also
 * when the problem is drawn in several bands (GLGEMM_BANDS) and with the
 * check's threads at 1.  Without the fault the same calls are right. */
START_TEST(lib_stream_wrong_caught)
{
    static const char *bands[] = {"1", "3"};
    static const char *threads[] = {"8", "1"};
    setenv("GLGEMM_BANDS", bands[_i % 2], 1);
    setenv("GLGEMM_THREADS", threads[_i / 2], 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(96, 72, 40, 77 + (uint64_t)_i);
    for (size_t i = 0; i < (size_t)p.m * p.n; i++)
        p.c[i] = 7.0f;
    setenv("GLGEMM_FAULT", "wrong_result", 1);
    int rc = stream_call(g, &p, 0, p.c, p.n);
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == GLGEMM_EWRONG, "rc %d: %s", rc, glgemm_last_error());
    if (_i % 2) /* three bands: the first passed and went in before the second failed */
        ck_assert_msg(lib_inspect_last_early_rows(g) > 0, "none went in early");
    ck_assert_msg(strstr(glgemm_last_error(), "checksum") || strstr(glgemm_last_error(), "bound") ||
                      strstr(glgemm_last_error(), "exact value"),
                  "%s", glgemm_last_error());
    for (size_t i = 0; i < (size_t)p.m * p.n; i++)
        ck_assert_msg(p.c[i] == 7.0f, "C[%zu] = %g: touched", i, p.c[i]);
    rc = stream_call(g, &p, 0, p.c, p.n);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(prob_wrong(&p), 0);
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
    unsetenv("GLGEMM_THREADS");
}
END_TEST

/* A C of m rows (ldc) marked so that any write shows: element i is 7 +
 * i % 5, the padding past n NaN; and the check that it still is. */
static void mark_c(float *c, int m, int n, int ldc)
{
    for (size_t i = 0; i < (size_t)m * ldc; i++)
        c[i] = (int)(i % (size_t)ldc) >= n ? NAN : 7.0f + (float)(i % 5);
}

static void expect_marked(const float *c, int m, int n, int ldc)
{
    for (size_t i = 0; i < (size_t)m * ldc; i++)
        if ((int)(i % (size_t)ldc) >= n)
            ck_assert_msg(isnan(c[i]), "padding C[%zu] = %g: written", i, c[i]);
        else
            ck_assert_msg(c[i] == 7.0f + (float)(i % 5), "C[%zu] = %g: touched", i, c[i]);
}

/* A streamed call in `bands` bands into a marked C (ldc) that fails with
 * fault (the variant named, so no fallback), GLGEMM_... want: C is as it
 * was; the rows that had gone in early (and were put back). */
static long fail_after_rows(const char *bands, const prob *p, float beta, int ldc,
                            const char *fault, int want)
{
    setenv("GLGEMM_BANDS", bands, 1);
    glgemm_context *g = open_ok();
    float *c = malloc((size_t)p->m * ldc * sizeof *c);
    ck_assert_ptr_nonnull(c);
    mark_c(c, p->m, p->n, ldc);
    setenv("GLGEMM_FAULT", fault, 1);
    int rc = stream_call(g, p, beta, c, ldc);
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == want, "rc %d: %s", rc, glgemm_last_error());
    long early = lib_inspect_last_early_rows(g);
    expect_marked(c, p->m, p->n, ldc);
    free(c);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
    return early;
}

/* Rows that passed their band's checks go into C while the card draws the
 * later bands; a call that fails after that (fault lose_context: the
 * context reported reset once every band is back; the variant named, so
 * no fallback) leaves C as it was, for beta 0 and for beta 1 with C read
 * as C0 (ldc == n: the very array written), and for a padded C (ldc n+5,
 * padding NaN). */
START_TEST(lib_stream_fail_late_untouched)
{
    /* case 3: over 128^3, so the checks' inputs side (and the last band's
     * undo) runs on its own thread */
    prob p = _i == 3 ? prob_make(160, 144, 128, 91) : prob_make(96, 72, 40, 88 + (uint64_t)_i);
    long early = fail_after_rows("3", &p, (float)(_i % 2), _i == 2 ? p.n + 5 : p.n,
                                 "lose_context", GLGEMM_EGPU);
    ck_assert_msg(strstr(glgemm_last_error(), "reset") != NULL, "%s", glgemm_last_error());
    /* every row went in, the last band's too, before the reset was seen */
    ck_assert_int_eq(early, p.m);
    prob_free(&p);
}
END_TEST

/* A wrong element in the last band (fault wrong_result: row m/2, the first
 * row of band 1 of 2 here), on a problem over 128^3 (the checks' inputs
 * side on its own thread, keeping the last band's undo): the first band's
 * rows went in (and those of the last band's pieces judged before the bad
 * one, as the threads happen to take them), and are put back; C is as it
 * was, for beta 0 and for beta 1 with C read as C0, ldc = n and n + 3. */
START_TEST(lib_stream_fail_in_last_band)
{
    prob p = prob_make(304, 256, 200, 120 + (uint64_t)_i);
    long early = fail_after_rows("2", &p, (float)(_i % 2), _i >= 2 ? p.n + 3 : p.n,
                                 "wrong_result", GLGEMM_EWRONG);
    ck_assert_msg(early >= p.m / 2, "only %ld rows went in", early);
    prob_free(&p);
}
END_TEST

/* The chosen path (glgemm_sgemm, the record's variant) with beta 1 and C
 * as C0: the record's variant fails after rows went in (fault
 * wrong_result, in band 1 of 3), they are put back, and the default
 * variant, run next, reads C0 as it was; it fails the same way, so the
 * call fails and C is as it was. */
START_TEST(lib_stream_fallback_untouched)
{
    char dir[128];
    tu_mkdtemp(dir, sizeof dir, "fallback");
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("GLGEMM_BANDS", "3", 1);
    setenv("GLGEMM_CROSSOVER", "0", 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(96, 72, 40, 55);
    tu_write_best(dir, glgemm_card(g), p.m, p.n, p.k, STREAM_V, 10);
    mark_c(p.c, p.m, p.n, p.n);
    setenv("GLGEMM_FAULT", "wrong_result", 1);
    int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, p.m, p.n, p.k, 1,
                          p.a, p.k, p.b, p.n, 1, p.c, p.n);
    unsetenv("GLGEMM_FAULT");
    ck_assert_msg(rc == GLGEMM_EWRONG, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_msg(strstr(glgemm_last_error(), "blk=4x8") &&
                      strstr(glgemm_last_error(), "then the default"),
                  "%s", glgemm_last_error());
    ck_assert_msg(lib_inspect_last_early_rows(g) > 0, "none went in early");
    expect_marked(p.c, p.m, p.n, p.n);
    prob_free(&p);
    glgemm_close(g);
    tu_rm_rf(dir);
    unsetenv("GLGEMM_RESULTS");
    unsetenv("GLGEMM_BANDS");
    unsetenv("GLGEMM_CROSSOVER");
}
END_TEST

/* A C whose pages are new (mmap'd, never touched): no rows go in before
 * the verdict (reading new pages to keep them costs more than the copy
 * saves), C right; the same array once written: rows go in early, right. */
START_TEST(lib_stream_new_pages)
{
    setenv("GLGEMM_BANDS", "3", 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(96, 72, 40, 66);
    size_t bytes = (size_t)p.m * p.n * sizeof(float);
    float *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(c != MAP_FAILED);
    float *keep = p.c;
    p.c = c;
    for (int round = 0; round < 2; round++) {
        int rc = stream_call(g, &p, 0, p.c, p.n);
        ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
        ck_assert_int_eq(prob_wrong(&p), 0);
        if (round == 0)
            ck_assert_int_eq(lib_inspect_last_early_rows(g), 0);
        else
            ck_assert_msg(lib_inspect_last_early_rows(g) > 0, "none went in early");
    }
    ck_assert_int_eq(munmap(c, bytes), 0);
    p.c = keep;
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
}
END_TEST

/* Several bands into a C with padding (ldc = n + 5) and beta 0.5, C read
 * as C0: rows copied band by band, the last band's as they pass, land at
 * their ldc, right, the padding untouched. */
START_TEST(lib_stream_bands_ldc)
{
    setenv("GLGEMM_BANDS", "3", 1);
    glgemm_context *g = open_ok();
    prob p = prob_make(96, 72, 40, 99);
    int ldc = p.n + 5;
    size_t len = (size_t)p.m * ldc;
    float *c = malloc(len * sizeof *c), *c0 = malloc(len * sizeof *c0);
    ck_assert(c && c0);
    base_fill_uniform(c, len, 99, 2);
    for (int i = 0; i < p.m; i++)
        for (int j = p.n; j < ldc; j++)
            c[(size_t)i * ldc + j] = NAN;
    memcpy(c0, c, len * sizeof *c);
    int rc = stream_call(g, &p, 0.5f, c, ldc);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    /* every row went in as it passed, the last band's too */
    ck_assert_int_eq(lib_inspect_last_early_rows(g), p.m);
    for (int i = 0; i < p.m; i++) {
        for (int j = 0; j < p.n; j++) {
            double r = 0.5 * c0[(size_t)i * ldc + j], sc = fabs(r);
            for (int q = 0; q < p.k; q++) {
                double ab = (double)p.a[(size_t)i * p.k + q] * p.b[(size_t)q * p.n + j];
                r += ab;
                sc += fabs(ab);
            }
            double got = c[(size_t)i * ldc + j];
            ck_assert_msg(fabs(got - r) <= 4 * p.k * ldexp(1, -23) * sc + 1e-30,
                          "C(%d,%d) = %.9g, want %.9g", i, j, got, r);
        }
        for (int j = p.n; j < ldc; j++)
            ck_assert_msg(isnan(c[(size_t)i * ldc + j]), "padding (%d,%d) written", i, j);
    }
    free(c);
    free(c0);
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
}
END_TEST

/* A larger call (B over 2 MiB) whose C comes back in one or three bands:
 * right. */
START_TEST(lib_stream_large)
{
    setenv("GLGEMM_BANDS", _i ? "3" : "1", 1);
    glgemm_context *g = open_ok();
    int m = 300, n = 800, k = 720;
    prob p = prob_make(m, n, k, 91 + (uint64_t)_i);
    int rc = glgemm_sgemm_variant(g, "mc=1x4,np=all,profile=430,out=image,blk=8x8",
                                  GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, m, n, k, 1,
                                  p.a, k, p.b, n, 0, p.c, n);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(prob_wrong(&p), 0);
    prob_free(&p);
    glgemm_close(g);
    unsetenv("GLGEMM_BANDS");
}
END_TEST

/* GLGEMM_STAGING: no staging (calls unstreamed), a 1 MiB reserve that the
 * call outgrows, the default reserve: the buffers made at open (none, the
 * two), then two calls each, right, the 1 MiB reserve grown once for both
 * and the default not at all; a bad value is lib_bad_env_open's. */
START_TEST(lib_stream_reserve)
{
    static const char *mib[] = {"0", "1", ""};
    static const long at_open[] = {0, 2, 2}, after[] = {0, 4, 2};
    setenv("GLGEMM_STAGING", mib[_i], 1);
    glgemm_context *g = open_ok();
    ck_assert_int_eq(lib_inspect_staging_made(g), at_open[_i]);
    for (int r = 0; r < 2; r++) {
        int m = 300, n = 800, k = 720;
        prob p = prob_make(m, n, k, 31 + (uint64_t)(_i * 2 + r));
        int rc = glgemm_sgemm_variant(g, "mc=1x4,np=all,profile=430,out=image,blk=8x8",
                                      GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, m, n, k,
                                      1, p.a, k, p.b, n, 0, p.c, n);
        ck_assert_msg(rc == GLGEMM_OK, "GLGEMM_STAGING=%s: rc %d: %s", mib[_i], rc,
                      glgemm_last_error());
        ck_assert_int_eq(prob_wrong(&p), 0);
        prob_free(&p);
    }
    ck_assert_int_eq(lib_inspect_staging_made(g), after[_i]);
    glgemm_close(g);
    unsetenv("GLGEMM_STAGING");
}
END_TEST

/* A variant that needs another kind of GL context (profile=300es: an ES 3
 * context) gets the reserve made again with it: a small call and a bigger
 * one that still fits make no buffer (without the reserve the first would
 * make two of its size and the second grow them). */
START_TEST(lib_stream_reserve_new_context)
{
    glgemm_context *g = open_ok();
    ck_assert_int_eq(lib_inspect_staging_made(g), 2);
    static const int size[2][3] = {{64, 48, 40}, {300, 320, 280}};
    for (int r = 0; r < 2; r++) {
        prob p = prob_make(size[r][0], size[r][1], size[r][2], 57 + (uint64_t)r);
        int rc = glgemm_sgemm_variant(g, "mc=1x4,np=all,profile=300es", GLGEMM_ROW_MAJOR,
                                      GLGEMM_NOTRANS, GLGEMM_NOTRANS, p.m, p.n, p.k, 1, p.a, p.k,
                                      p.b, p.n, 0, p.c, p.n);
        ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
        ck_assert_int_eq(prob_wrong(&p), 0);
        ck_assert_int_eq(lib_inspect_staging_made(g), 2);
        prob_free(&p);
    }
    glgemm_close(g);
}
END_TEST

/* Two threads, a context each, calls at once. */
static void *thread_calls(void *arg)
{
    long id = (long)arg;
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g)
        return (void *)1L;
    long bad = 0;
    for (int r = 0; r < 6; r++) {
        prob p = prob_make(20 + 7 * r + (int)id, 30 + 5 * r, 17 + 3 * r, 100 * (uint64_t)id + r);
        bad += call(g, &p) != GLGEMM_OK || prob_wrong(&p) != 0;
        prob_free(&p);
    }
    glgemm_close(g);
    return (void *)bad;
}

START_TEST(lib_two_threads)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, thread_calls, (void *)i), 0);
    for (int i = 0; i < 2; i++) {
        void *r;
        ck_assert_int_eq(pthread_join(t[i], &r), 0);
        ck_assert_msg(r == NULL, "thread %d: %ld calls wrong or failed", i, (long)r);
    }
}
END_TEST

/* The program cache's folder cannot be made (a file stands in its path),
 * or the disk is full when an entry is written: one warning line on
 * stderr, and calls work uncached. */
START_TEST(lib_cache_dir_unusable)
{
    char dir[200], path[400], errf[400];
    tu_mkdtemp(dir, sizeof dir, "lib-cache-bad");
    if (_i == 0) {
        snprintf(path, sizeof path, "%s/file", dir);
        tu_write(path, "not a folder\n");
        snprintf(path, sizeof path, "%s/file/programs", dir);
    } else {
        snprintf(path, sizeof path, "%s/programs", dir);
        setenv("GLGEMM_FAULT", "disk_full", 1);
    }
    setenv("GLGEMM_CACHE_DIR", path, 1);
    host_progcache_reset();
    snprintf(errf, sizeof errf, "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2);
    ck_assert(freopen(errf, "w", stderr) != NULL);
    glgemm_context *g = open_ok();
    for (int r = 0; r < 2; r++) {
        prob p = prob_make(33, 44, 55, 20 + (uint64_t)r);
        call_ok(g, &p, "gpu ");
        prob_free(&p);
    }
    glgemm_close(g);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *text = tu_read(errf);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(tu_count_lines(text) == 1 && strstr(text, "program cache") &&
                      strstr(text, "going on without it") &&
                      (_i == 0 || strstr(text, "No space left on device")),
                  "stderr: '%s'", text);
    unsetenv("GLGEMM_FAULT");
    free(text);
    tu_rm_rf(dir);
}
END_TEST

/* Every entry of the cache spoilt between two contexts: the second
 * compiles again, computes right, and writes the entries anew. */
START_TEST(lib_cache_entries_corrupt)
{
    char dir[200], cmd[600];
    tu_mkdtemp(dir, sizeof dir, "lib-cache-corrupt");
    setenv("GLGEMM_CACHE_DIR", dir, 1);
    host_progcache_reset();
    prob p = prob_make(40, 40, 40, 30);
    glgemm_context *g = open_ok();
    call_ok(g, &p, "gpu ");
    glgemm_close(g);
    snprintf(cmd, sizeof cmd, "cd '%s' && ls | grep -c '\\.bin$' > count && "
                              "for f in *.bin; do head -c 100 \"$f\" > t && mv t \"$f\"; done", dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/count", dir);
    char *count = tu_read(cmd);
    ck_assert_msg(count && atoi(count) >= 1, "no cache entry written");
    int hits0, misses0, writes0, rejected0;
    host_progcache_stats(&hits0, &misses0, &writes0, &rejected0);
    g = open_ok();
    memset(p.c, 0, sizeof(float) * 40 * 40);
    call_ok(g, &p, "gpu ");
    glgemm_close(g);
    int hits, misses, writes, rejected;
    host_progcache_stats(&hits, &misses, &writes, &rejected);
    ck_assert_int_ge(rejected - rejected0, 1);
    ck_assert_int_ge(writes - writes0, 1);
    free(count);
    prob_free(&p);
    tu_rm_rf(dir);
}
END_TEST

/* glgemm bench --crossover measures and writes the record the library reads. */
START_TEST(lib_bench_crossover)
{
    char dir[200], args[400], path[600];
    tu_mkdtemp(dir, sizeof dir, "lib-bench-cross");
    snprintf(args, sizeof args, "bench --crossover --size 32 --reps 2 --results '%s'", dir);
    char *out = NULL, *err = NULL;
    int rc = tu_run(dir, "", args, &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s %s", rc, out, err);
    ck_assert_ptr_nonnull(strstr(out, "\n    16 "));
    ck_assert_ptr_nonnull(strstr(out, "\n    32 "));
    const char *line = strstr(out, "\ncrossover: ");
    ck_assert_ptr_nonnull(line);
    long n = atol(line + 12);
    ck_assert_msg(n == 16 || n == 32 || n == 64, "crossover %ld", n);
    glgemm_context *g = open_ok();
    snprintf(path, sizeof path, "%s/%s/crossover.txt", dir, glgemm_card(g));
    glgemm_close(g);
    char *rec = tu_read(path);
    ck_assert_ptr_nonnull(rec);
    ck_assert_ptr_nonnull(strstr(rec, "size,gpu_s,cpu_s\n16,"));
    char want[40];
    snprintf(want, sizeof want, "\ncrossover: %ld\n", n);
    ck_assert_ptr_nonnull(strstr(rec, want));
    setenv("GLGEMM_RESULTS", dir, 1);
    unsetenv("GLGEMM_CROSSOVER");
    g = open_ok();
    ck_assert_int_eq(glgemm_crossover(g), n);
    glgemm_close(g);
    free(out), free(err), free(rec);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_lib_suite(void)
{
    Suite *s = suite_create("lib");
    TCase *gl = tcase_create("lib_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_test(gl, lib_crossover_env);
    tcase_add_test(gl, lib_crossover_bad_env);
    tcase_add_test(gl, lib_crossover_record);
    tcase_add_test(gl, lib_cpu_function);
    tcase_add_test(gl, lib_fp_flags);
    tcase_add_test(gl, lib_user_records);
    tcase_add_loop_test(gl, lib_repeated_calls, 0,
                        (int)(sizeof repeat_variants / sizeof *repeat_variants));
    tcase_add_test(gl, lib_bench_crossover);
    tcase_add_loop_test(gl, lib_cache_dir_unusable, 0, 2);
    tcase_add_test(gl, lib_cache_entries_corrupt);
    tcase_add_test(gl, lib_kernel_time);
    suite_add_tcase(s, gl);
    /* Its own case, so that `make tsan` runs it alone (CK_RUN_CASE). */
    TCase *threads = tcase_create("lib_threads");
    tcase_set_tags(threads, "gl");
    tcase_set_timeout(threads, 300); /* under ThreadSanitizer */
    tcase_add_test(threads, lib_two_threads);
    suite_add_tcase(s, threads);
    /* Streamed calls: the run's threads unpack and judge bands (make tsan
     * runs this case too). */
    TCase *stream = tcase_create("lib_stream");
    tcase_set_tags(stream, "gl");
    tcase_set_timeout(stream, 300);
    tcase_add_loop_test(stream, lib_ssbo, 0, 2);
    tcase_add_loop_test(stream, lib_stream_frag, 0, 2);
    tcase_add_loop_test(stream, lib_stream_wrong_caught, 0, 4);
    tcase_add_loop_test(stream, lib_stream_fail_late_untouched, 0, 4);
    tcase_add_loop_test(stream, lib_stream_fail_in_last_band, 0, 4);
    tcase_add_test(stream, lib_stream_bands_ldc);
    tcase_add_test(stream, lib_stream_new_pages);
    tcase_add_test(stream, lib_stream_fallback_untouched);
    tcase_add_loop_test(stream, lib_stream_large, 0, 2);
    tcase_add_loop_test(stream, lib_stream_reserve, 0, 3);
    tcase_add_test(stream, lib_stream_reserve_new_context);
    suite_add_tcase(s, stream);
    return s;
}
