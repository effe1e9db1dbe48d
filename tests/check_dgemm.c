/* glgemm_dgemm (glgemm.h): against a long double loop on odd shapes, both
 * layouts, every transpose pair, alpha and beta, lda > the stored rows;
 * values that need all 53 bits; the route (store=f64 on the GPU, the
 * crossover's CPU BLAS, the CPU with a reason where the GPU cannot); and
 * its check failing a C carried in fp32. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glgemm.h"
#include "lib/inspect.h"
#include "tests/suites.h"

static glgemm_context *open_ok(void)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "glgemm_open: %s", glgemm_last_error());
    return g;
}

/* Doubles in [-1, 1) using all 53 bits (splitmix64). */
static void fill(double *d, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        d[i] = (double)(z >> 11) * 0x1p-52 - 1.0;
    }
}

typedef struct {
    int layout, transa, transb, m, n, k, pad; /* pad: extra leading dimension */
    double alpha, beta;
} dcase;

#define R GLGEMM_ROW_MAJOR
#define C GLGEMM_COL_MAJOR
#define N GLGEMM_NOTRANS
#define T GLGEMM_TRANS
static const dcase cases[] = {
    {R, N, N, 37, 53, 71, 0, 1.0, 0.0},   {R, T, N, 37, 53, 71, 3, -0.75, 0.5},
    {R, N, T, 37, 53, 71, 5, 1.5, -2.0},  {R, T, T, 37, 53, 71, 1, 0.3, 1.0},
    {C, N, N, 37, 53, 71, 4, 1.0, 0.25},  {C, T, N, 37, 53, 71, 0, -1.25, 0.0},
    {C, N, T, 37, 53, 71, 7, 2.0, 1.0},   {C, T, GLGEMM_CONJTRANS, 37, 53, 71, 2, 0.5, -0.5},
    {R, N, N, 1, 1, 1, 0, 1.0, 0.0},      {C, N, N, 130, 3, 257, 9, 1.0, 0.5},
};
#undef R
#undef C
#undef N
#undef T
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* op(X)[r][c] of a matrix stored in layout with leading dimension ld. */
static double at(const double *x, int layout, bool trans, int ld, int r, int c)
{
    if (trans) {
        int t = r;
        r = c;
        c = t;
    }
    return layout == GLGEMM_ROW_MAJOR ? x[(size_t)r * ld + c] : x[(size_t)c * ld + r];
}

START_TEST(dgemm_shapes)
{
    const dcase *t = &cases[_i];
    bool row = t->layout == GLGEMM_ROW_MAJOR;
    bool ta = t->transa != GLGEMM_NOTRANS, tb = t->transb != GLGEMM_NOTRANS;
    int m = t->m, n = t->n, k = t->k;
    /* stored rows x cols of A, B (op'd back), C */
    int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int lda = (row ? ac : ar) + t->pad, ldb = (row ? bc : br) + t->pad,
        ldc = (row ? n : m) + t->pad;
    size_t na = (size_t)lda * (row ? ar : ac), nb = (size_t)ldb * (row ? br : bc),
           nc = (size_t)ldc * (row ? m : n);
    double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c),
           *c0 = malloc(nc * sizeof *c0);
    ck_assert(a && b && c && c0);
    fill(a, na, 11 + _i);
    fill(b, nb, 23 + _i);
    fill(c0, nc, 37 + _i);
    memcpy(c, c0, nc * sizeof *c);
    glgemm_context *g = open_ok();
    int rc = glgemm_dgemm(g, t->layout, t->transa, t->transb, m, n, k, t->alpha, a, lda, b, ldb,
                          t->beta, c, ldc);
    ck_assert_msg(rc == GLGEMM_OK, "case %d: %s: %s", _i, glgemm_strerror(rc),
                  glgemm_last_error());
    const char *route = glgemm_last_route(g);
    ck_assert_msg(!strncmp(route, "gpu ", 4) && strstr(route, "store=f64"),
                  "case %d: route '%s', not the GPU in store=f64", _i, route);
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double r = 0, s = 0;
            for (int p = 0; p < k; p++) {
                long double x = (long double)at(a, t->layout, ta, lda, i, p) *
                                at(b, t->layout, tb, ldb, p, j);
                r += x;
                s += fabsl(x);
            }
            size_t ij = row ? (size_t)i * ldc + j : (size_t)j * ldc + i;
            r = t->alpha * r + (t->beta == 0 ? 0.0L : (long double)t->beta * c0[ij]);
            s = fabsl(t->alpha) * s + fabsl((long double)t->beta * c0[ij]);
            double e = (double)(fabsl((long double)c[ij] - r) / s);
            worst = e > worst ? e : worst;
        }
    /* the padding between columns (rows) untouched */
    for (int col = 0; col < (row ? m : n); col++)
        for (int p = row ? n : m; p < ldc; p++)
            ck_assert(c[(size_t)col * ldc + p] == c0[(size_t)col * ldc + p]);
    /* f64's bound, far below fp32's 2^-24 */
    ck_assert_msg(worst <= (k + 2) * 0x1p-52, "case %d: relative error %.3g past %.3g", _i,
                  worst, (k + 2) * 0x1p-52);
    glgemm_close(g);
    free(a), free(b), free(c), free(c0);
}
END_TEST

/* 1 + 2^-40 in every A term, B all ones: C = k (1 + 2^-40) exactly, which
 * fp32 anywhere on the way (inputs, products, sums) rounds to k. */
START_TEST(dgemm_53_bits)
{
    enum { M = 19, NN = 23, K = 64 };
    static double a[M * K], b[K * NN], c[M * NN];
    for (int i = 0; i < M * K; i++)
        a[i] = 1.0 + 0x1p-40 * (1 + i % 3);
    for (int i = 0; i < K * NN; i++)
        b[i] = 1.0 + 0x1p-45;
    glgemm_context *g = open_ok();
    int rc = glgemm_dgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, M, NN, K, 1.0, a,
                          K, b, NN, 0.0, c, NN);
    ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
    ck_assert_msg(strstr(glgemm_last_route(g), "gpu ") == glgemm_last_route(g), "route %s",
                  glgemm_last_route(g));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < NN; j++) {
            long double r = 0;
            for (int p = 0; p < K; p++)
                r += (long double)a[i * K + p] * b[p * NN + j];
            double want = (double)r;
            ck_assert_msg(fabs(c[i * NN + j] - want) <= 0x1p-52 * K * 2,
                          "C[%d][%d] = %.17g, wanted %.17g (fp32 gives %.17g)", i, j,
                          c[i * NN + j], want, (double)(float)want);
            ck_assert(c[i * NN + j] != (double)(float)c[i * NN + j]); /* not an fp32 value */
        }
    glgemm_close(g);
}
END_TEST

/* The check (and the full verification) pass the exact C and fail it
 * rounded to fp32, or with one element carried in fp32. */
START_TEST(dgemm_verify_catches_fp32)
{
    enum { M = 37, NN = 53, K = 71 };
    static double a[M * K], b[K * NN], c0[M * NN], c[M * NN], f[M * NN];
    fill(a, M * K, 5);
    fill(b, K * NN, 6);
    fill(c0, M * NN, 7);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < NN; j++) {
            long double r = 0;
            for (int p = 0; p < K; p++)
                r += (long double)a[i * K + p] * b[p * NN + j];
            c[i * NN + j] = (double)(0.5L * r + 0.25L * c0[i * NN + j]);
            f[i * NN + j] = (double)(float)c[i * NN + j];
        }
    char why[400];
    for (int level = GLGEMM_VERIFY_CHECK; level <= GLGEMM_VERIFY_FULL; level++) {
        ck_assert_int_eq(lib_inspect_dverify(level, false, false, M, NN, K, 0.5, a, K, b, NN,
                                             0.25, c0, c, why, sizeof why), 0);
        ck_assert_int_eq(lib_inspect_dverify(level, false, false, M, NN, K, 0.5, a, K, b, NN,
                                             0.25, c0, f, why, sizeof why), 1);
        double keep = c[17 * NN + 29];
        c[17 * NN + 29] = (double)(float)keep;
        ck_assert_msg(lib_inspect_dverify(level, false, false, M, NN, K, 0.5, a, K, b, NN, 0.25,
                                          c0, c, why, sizeof why) == 1,
                      "level %d: one fp32 element passed", level);
        ck_assert_msg(strstr(why, level == GLGEMM_VERIFY_FULL ? "C[17][29]" : "row 17"), "%s",
                      why);
        c[17 * NN + 29] = keep;
    }
}
END_TEST

/* Below the crossover: the CPU BLAS's dgemm, route "cpu crossover N", the
 * result a double one. */
START_TEST(dgemm_crossover)
{
    enum { S = 24 };
    static double a[S * S], b[S * S], c[S * S];
    fill(a, S * S, 1);
    fill(b, S * S, 2);
    glgemm_context *g = open_ok();
    ck_assert_int_eq(glgemm_set_crossover(g, 64), GLGEMM_OK);
    ck_assert_int_eq(glgemm_dgemm(g, GLGEMM_COL_MAJOR, GLGEMM_TRANS, GLGEMM_NOTRANS, S, S, S, 2.0,
                                  a, S, b, S, 0.0, c, S), GLGEMM_OK);
    ck_assert_str_eq(glgemm_last_route(g), "cpu crossover 64");
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            long double r = 0, s = 0;
            for (int p = 0; p < S; p++) {
                r += (long double)a[i * S + p] * b[j * S + p];
                s += fabsl((long double)a[i * S + p] * b[j * S + p]);
            }
            ck_assert(fabsl(c[j * S + i] - 2 * r) <= 2 * S * 0x1p-52 * 2 * s);
        }
    /* quick returns: alpha 0 scales C, beta 1 leaves it */
    c[0] = 3.0;
    ck_assert_int_eq(glgemm_dgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, S, S, S,
                                  0.0, NULL, S, NULL, S, 0.5, c, S), GLGEMM_OK);
    ck_assert(c[0] == 1.5);
    ck_assert_str_eq(glgemm_last_route(g), "quick return");
    glgemm_close(g);
}
END_TEST

/* Past the wide stores' one texture: the CPU, saying why. */
START_TEST(dgemm_too_big)
{
    glgemm_context *g = open_ok();
    /* k so long that A's texels pass any texture limit (16384 here): one
     * row of A and one column of B, C 1 x 1 */
    enum { K = 1 << 20 };
    double *a = malloc(K * sizeof *a), *b = malloc(K * sizeof *b), c = 0;
    ck_assert(a && b);
    for (int i = 0; i < K; i++)
        a[i] = b[i] = 1.0 + 0x1p-30;
    int rc = glgemm_dgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 1, 1, K, 1.0, a,
                          K, b, 1, 0.0, &c, 1);
    ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
    ck_assert_msg(strstr(glgemm_last_route(g), "cpu: too big for store=f64"), "route %s",
                  glgemm_last_route(g));
    double want = K * (1.0 + 0x1p-30) * (1.0 + 0x1p-30);
    ck_assert_msg(fabs(c - want) <= K * 0x1p-52 * want, "%.17g vs %.17g", c, want);
    glgemm_close(g);
    free(a), free(b);
}
END_TEST

/* A context without double in GLSL (Mesa told to hide GL 4.0 and
 * GL_ARB_gpu_shader_fp64): the CPU BLAS computes it, the route says why. */
START_TEST(dgemm_no_fp64)
{
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
    setenv("MESA_GLSL_VERSION_OVERRIDE", "330", 1);
    setenv("MESA_EXTENSION_OVERRIDE", "-GL_ARB_gpu_shader_fp64", 1);
    enum { S = 40 };
    static double a[S * S], b[S * S], c[S * S];
    fill(a, S * S, 3);
    fill(b, S * S, 4);
    glgemm_context *g = open_ok();
    int rc = glgemm_dgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, S, S, S, 1.0, a,
                          S, b, S, 0.0, c, S);
    ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
    const char *route = glgemm_last_route(g);
    ck_assert_msg(!strncmp(route, "cpu: ", 5) && strstr(route, "fp64"), "route '%s'", route);
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            long double r = 0, s = 0;
            for (int p = 0; p < S; p++) {
                r += (long double)a[i * S + p] * b[p * S + j];
                s += fabsl((long double)a[i * S + p] * b[p * S + j]);
            }
            ck_assert(fabsl(c[i * S + j] - r) <= S * 0x1p-52 * s);
        }
    glgemm_close(g);
    unsetenv("MESA_GL_VERSION_OVERRIDE");
    unsetenv("MESA_GLSL_VERSION_OVERRIDE");
    unsetenv("MESA_EXTENSION_OVERRIDE");
}
END_TEST

Suite *make_dgemm_suite(void)
{
    Suite *s = suite_create("dgemm");
    TCase *gl = tcase_create("dgemm_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, dgemm_shapes, 0, NCASES);
    tcase_add_test(gl, dgemm_53_bits);
    tcase_add_test(gl, dgemm_crossover);
    tcase_add_test(gl, dgemm_too_big);
    tcase_add_test(gl, dgemm_no_fp64);
    suite_add_tcase(s, gl);
    TCase *pure = tcase_create("dgemm_pure");
    tcase_set_tags(pure, "pure");
    tcase_add_test(pure, dgemm_verify_catches_fp32);
    suite_add_tcase(s, pure);
    return s;
}
