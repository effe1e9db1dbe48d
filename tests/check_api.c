/* glgemm.h, the library: cblas_sgemm semantics (both layouts x every
 * transpose x alpha/beta, padded leading dimensions, against a double loop
 * written here, the padding untouched), quick returns, every argument error
 * with its code and nothing written, glgemm_open failures, the variant the
 * tuning records pick (nearest size, fallback to the default), and the
 * checksum judge (base/checksum.h) on right and wrong results.
 *
 * GL cases make their context inside the test (Check forks each one). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glgemm.h"
#include "tests/cli_util.h"
#include "base/checksum.h"
#include "base/inputs.h"
#include "store/nearest.h"
#include "tests/suites.h"

#define SENTINEL (-7777.0f)

static glgemm_context *open_ok(void)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "glgemm_open: %s", glgemm_last_error());
    return g;
}

/* A stored matrix of rows x cols in a layout with ld, padding = SENTINEL. */
typedef struct {
    int rows, cols, ld, row_major;
    size_t size;
    float *v;
} mat;

static size_t idx(const mat *x, int r, int c)
{
    return x->row_major ? (size_t)r * x->ld + c : (size_t)c * x->ld + r;
}

static mat mat_make(int rows, int cols, int row_major, int pad, uint64_t seed, unsigned stream)
{
    mat x = {rows, cols, (row_major ? cols : rows) + pad, row_major, 0, NULL};
    if (x.ld < 1)
        x.ld = 1;
    x.size = (size_t)x.ld * (size_t)(row_major ? rows : cols);
    x.v = malloc((x.size ? x.size : 1) * sizeof *x.v);
    ck_assert(x.v != NULL);
    for (size_t i = 0; i < x.size; i++)
        x.v[i] = SENTINEL;
    size_t n = (size_t)rows * cols;
    float *t = malloc((n ? n : 1) * sizeof *t);
    base_fill_uniform(t, n, seed, stream);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            x.v[idx(&x, r, c)] = t[(size_t)r * cols + c];
    free(t);
    return x;
}

static float *copy_of(const mat *x)
{
    float *c = malloc((x->size ? x->size : 1) * sizeof *c);
    memcpy(c, x->v, x->size * sizeof *c);
    return c;
}

/* ---- semantics: layouts x transposes x alpha/beta ---- */

static const struct {
    float alpha, beta;
} ab[] = {{1.0f, 0.0f}, {-0.5f, 2.0f}, {0.75f, 1.0f}};
#define NAB 3

static const glgemm_op ops[4][2] = {
    {GLGEMM_NOTRANS, GLGEMM_NOTRANS},
    {GLGEMM_NOTRANS, GLGEMM_TRANS},
    {GLGEMM_TRANS, GLGEMM_NOTRANS},
    {GLGEMM_CONJTRANS, GLGEMM_TRANS}, /* real: conjugate transpose is transpose */
};

START_TEST(api_semantics)
{
    int row_major = _i / (4 * NAB), t = (_i / NAB) % 4, s = _i % NAB;
    int m = 19, n = 23, k = 37;
    glgemm_op ta = ops[t][0], tb = ops[t][1];
    float alpha = ab[s].alpha, beta = ab[s].beta;
    bool tra = ta != GLGEMM_NOTRANS, trb = tb != GLGEMM_NOTRANS;
    mat a = mat_make(tra ? k : m, tra ? m : k, row_major, 3, 11 + (uint64_t)_i, 0);
    mat b = mat_make(trb ? n : k, trb ? k : n, row_major, 5, 11 + (uint64_t)_i, 1);
    mat c = mat_make(m, n, row_major, 2, 11 + (uint64_t)_i, 2);
    if (beta == 0.0f) /* C is not read when beta == 0: NaN must not come through */
        for (int i = 0; i < m; i++)
            c.v[idx(&c, i, (i * 7) % n)] = NAN;
    float *c0 = copy_of(&c), *a0 = copy_of(&a), *b0 = copy_of(&b);
    glgemm_context *g = open_ok();
    int rc = glgemm_sgemm(g, row_major ? GLGEMM_ROW_MAJOR : GLGEMM_COL_MAJOR, ta, tb, m, n, k,
                          alpha, a.v, a.ld, b.v, b.ld, beta, c.v, c.ld);
    ck_assert_msg(rc == GLGEMM_OK, "rc %d: %s", rc, glgemm_last_error());
    glgemm_close(g);
    double worst = 0, bound = k * ldexp(1.0, -23);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double r = 0, sc = 0;
            for (int p = 0; p < k; p++) {
                double x = (tra ? a.v[idx(&a, p, i)] : a.v[idx(&a, i, p)]) *
                           (double)(trb ? b.v[idx(&b, j, p)] : b.v[idx(&b, p, j)]);
                r += x;
                sc += fabs(x);
            }
            r *= alpha;
            sc *= fabs(alpha);
            if (beta != 0.0f) {
                r += beta * (double)c0[idx(&c, i, j)];
                sc += fabs(beta * (double)c0[idx(&c, i, j)]);
            }
            double got = c.v[idx(&c, i, j)];
            ck_assert_msg(isfinite(got), "C[%d][%d] = %g", i, j, got);
            double e = fabs(got - r) / sc;
            worst = e > worst ? e : worst;
        }
    ck_assert_msg(worst <= bound, "rel_err %g beyond %g (%s %d%d alpha %g beta %g)", worst,
                  bound, row_major ? "row" : "col", tra, trb, alpha, beta);
    for (size_t i = 0; i < c.size; i++)
        if (c0[i] == SENTINEL)
            ck_assert_msg(c.v[i] == SENTINEL, "padding element %zu of C written", i);
    ck_assert(!memcmp(a0, a.v, a.size * sizeof *a0) && !memcmp(b0, b.v, b.size * sizeof *b0));
    free(a.v), free(b.v), free(c.v), free(c0), free(a0), free(b0);
}
END_TEST

/* ---- quick returns (as sgemm.f) ---- */

START_TEST(api_quick_returns)
{
    glgemm_context *g = open_ok();
    float c[12], a[12], b[12];
    for (int i = 0; i < 12; i++)
        a[i] = b[i] = 1.0f, c[i] = (float)i;
    c[5] = NAN;
    /* m == 0 and n == 0: nothing; NULL arrays allowed where nothing is read. */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 0, 3, 2,
                                  1, NULL, 2, NULL, 3, 0, NULL, 3), GLGEMM_OK);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 3, 0, 2,
                                  1, NULL, 3, NULL, 2, 0, NULL, 3), GLGEMM_OK);
    /* k == 0 or alpha == 0 with beta == 1: C untouched, NaN stays. */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 3, 4, 0,
                                  2, NULL, 1, NULL, 4, 1, c, 4), GLGEMM_OK);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 3, 4, 3,
                                  0, NULL, 3, NULL, 4, 1, c, 4), GLGEMM_OK);
    for (int i = 0; i < 12; i++)
        ck_assert(i == 5 ? isnan(c[i]) : c[i] == (float)i);
    /* alpha == 0, beta == 2: C = 2C on the block only (ldc 4, n 3). */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 3, 3, 3,
                                  0, a, 3, b, 3, 2, c, 4), GLGEMM_OK);
    for (int i = 0; i < 12; i++)
        if (i % 4 == 3)
            ck_assert(c[i] == (float)i);
        else if (i == 5)
            ck_assert(isnan(c[i]));
        else
            ck_assert_msg(c[i] == 2.0f * i, "c[%d] = %g", i, c[i]);
    /* k == 0, beta == 0: zeros over NaN, column-major block 3 x 2, ldc 4. */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 3, 2, 0,
                                  1, a, 3, b, 1, 0, c, 4), GLGEMM_OK);
    for (int i = 0; i < 12; i++)
        if (i < 8 && i % 4 != 3)
            ck_assert_msg(c[i] == 0.0f && !signbit(c[i]), "c[%d] = %g", i, c[i]);
        else
            ck_assert(c[i] == (i % 4 == 3 ? (float)i : 2.0f * i));
    glgemm_close(g);
}
END_TEST

/* ---- argument errors: code, message, nothing written ---- */

typedef struct {
    const char *what;
    int layout, transa, transb, m, n, k;
    int lda, ldb, ldc;
    int null_a, null_b, null_c;
    float alpha, beta;
    int code;
} arg_case;

#define R GLGEMM_ROW_MAJOR
#define C GLGEMM_COL_MAJOR
#define N GLGEMM_NOTRANS
#define T GLGEMM_TRANS
static const arg_case arg_cases[] = {
    {"bad layout", 0, N, N, 4, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LAYOUT},
    {"bad transa", R, 0, N, 4, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_TRANSA},
    {"bad transb", R, N, 114, 4, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_TRANSB},
    {"m < 0", R, N, N, -1, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_M},
    {"n < 0", C, N, N, 4, -2, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_N},
    {"k < 0", R, T, T, 4, 4, -3, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_K},
    {"m < 0 before lda", R, N, N, -1, 4, 4, 0, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_M},
    {"A NULL", R, N, N, 4, 4, 4, 4, 4, 4, 1, 0, 0, 1, 0, GLGEMM_EARG_A},
    {"lda < k, row NN", R, N, N, 4, 4, 5, 4, 5, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDA},
    {"lda < m, row TN", R, T, N, 5, 4, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDA},
    {"lda < m, col NN", C, N, N, 5, 4, 4, 4, 4, 5, 0, 0, 0, 1, 0, GLGEMM_EARG_LDA},
    {"lda < k, col TN", C, T, N, 4, 4, 5, 4, 5, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDA},
    {"lda 0 with k 0", R, N, N, 4, 4, 0, 0, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDA},
    {"B NULL", C, N, T, 4, 4, 4, 4, 4, 4, 0, 1, 0, 1, 0, GLGEMM_EARG_B},
    {"ldb < n, row NN", R, N, N, 4, 5, 4, 4, 4, 5, 0, 0, 0, 1, 0, GLGEMM_EARG_LDB},
    {"ldb < k, row NT", R, N, T, 4, 4, 5, 5, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDB},
    {"ldb < k, col NN", C, N, N, 4, 4, 5, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDB},
    {"ldb < n, col NT", C, N, T, 4, 5, 4, 4, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDB},
    {"C NULL", R, N, N, 4, 4, 4, 4, 4, 4, 0, 0, 1, 1, 0, GLGEMM_EARG_C},
    {"C NULL, alpha 0, beta 2", R, N, N, 4, 4, 4, 4, 4, 4, 0, 0, 1, 0, 2, GLGEMM_EARG_C},
    {"ldc < n, row", R, N, N, 4, 5, 4, 4, 5, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDC},
    {"ldc < m, col", C, N, N, 5, 4, 4, 5, 4, 4, 0, 0, 0, 1, 0, GLGEMM_EARG_LDC},
    {"ldc 0 with m 0", C, N, N, 0, 4, 4, 1, 4, 0, 0, 0, 0, 1, 0, GLGEMM_EARG_LDC},
    /* Not errors: NULL where nothing is read. */
    {"A, B NULL with alpha 0", R, N, N, 4, 4, 4, 4, 4, 4, 1, 1, 0, 0, 3, GLGEMM_OK},
    {"all NULL with n 0", R, N, N, 4, 0, 4, 4, 1, 1, 1, 1, 1, 1, 0, GLGEMM_OK},
};
#undef R
#undef C
#undef N
#undef T
#define NARG_CASES ((int)(sizeof arg_cases / sizeof *arg_cases))

START_TEST(api_arg_errors)
{
    const arg_case *t = &arg_cases[_i];
    float a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1.0f, c[i] = c0[i] = 0.5f * i;
    glgemm_context *g = open_ok();
    for (int variant = 0; variant < 2; variant++) {
        memcpy(c, c0, sizeof c);
        int rc = variant
                     ? glgemm_sgemm_variant(g, "larsen", t->layout, t->transa, t->transb, t->m,
                                            t->n, t->k, t->alpha, t->null_a ? NULL : a, t->lda,
                                            t->null_b ? NULL : b, t->ldb, t->beta,
                                            t->null_c ? NULL : c, t->ldc)
                     : glgemm_sgemm(g, t->layout, t->transa, t->transb, t->m, t->n, t->k,
                                    t->alpha, t->null_a ? NULL : a, t->lda,
                                    t->null_b ? NULL : b, t->ldb, t->beta,
                                    t->null_c ? NULL : c, t->ldc);
        ck_assert_msg(rc == t->code, "%s: rc %d (%s), wanted %d; %s", t->what, rc,
                      glgemm_strerror(rc), t->code, glgemm_last_error());
        if (t->code < 0) {
            char pos[32];
            snprintf(pos, sizeof pos, "argument %d", -t->code);
            ck_assert_msg(strstr(glgemm_last_error(), pos), "%s: '%s' does not name %s",
                          t->what, glgemm_last_error(), pos);
            ck_assert_msg(!memcmp(c, c0, sizeof c), "%s: C written", t->what);
            ck_assert(GLGEMM_EINVAL_ARG(rc));
        }
    }
    if (t->code == GLGEMM_OK && !t->null_c && t->n > 0) /* alpha 0, beta 3: C = 3C */
        for (int i = 0; i < t->m; i++)
            for (int j = 0; j < t->n; j++)
                ck_assert(c[i * t->ldc + j] == 3.0f * c0[i * t->ldc + j]);
    glgemm_close(g);
}
END_TEST

/* glgemm_dgemm: the same cases, the same codes, C untouched. */
START_TEST(api_darg_errors)
{
    const arg_case *t = &arg_cases[_i];
    double a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1.0, c[i] = c0[i] = 0.5 * i;
    glgemm_context *g = open_ok();
    int rc = glgemm_dgemm(g, t->layout, t->transa, t->transb, t->m, t->n, t->k, t->alpha,
                          t->null_a ? NULL : a, t->lda, t->null_b ? NULL : b, t->ldb, t->beta,
                          t->null_c ? NULL : c, t->ldc);
    ck_assert_msg(rc == t->code, "%s: rc %d (%s), wanted %d; %s", t->what, rc,
                  glgemm_strerror(rc), t->code, glgemm_last_error());
    if (t->code < 0) {
        char pos[32];
        snprintf(pos, sizeof pos, "argument %d", -t->code);
        ck_assert_msg(strstr(glgemm_last_error(), pos) && strstr(glgemm_last_error(), "dgemm"),
                      "%s: '%s' does not name %s", t->what, glgemm_last_error(), pos);
        ck_assert_msg(!memcmp(c, c0, sizeof c), "%s: C written", t->what);
    }
    if (t->code == GLGEMM_OK && !t->null_c && t->n > 0) /* alpha 0, beta 3: C = 3C */
        for (int i = 0; i < t->m; i++)
            for (int j = 0; j < t->n; j++)
                ck_assert(c[i * t->ldc + j] == 3.0 * c0[i * t->ldc + j]);
    ck_assert_int_eq(glgemm_dgemm(NULL, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 4, 4,
                                  4, 1, a, 4, b, 4, 0, c, 4), GLGEMM_ENOCONTEXT);
    glgemm_close(g);
}
END_TEST

START_TEST(api_other_errors)
{
    float a[16] = {1}, b[16] = {1}, c[16], c0[16];
    for (int i = 0; i < 16; i++)
        c[i] = c0[i] = (float)i;
    /* No context. */
    ck_assert_int_eq(glgemm_sgemm(NULL, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 4, 4,
                                  4, 1, a, 4, b, 4, 0, c, 4), GLGEMM_ENOCONTEXT);
    ck_assert(strstr(glgemm_last_error(), "ctx"));
    glgemm_context *g = open_ok();
    /* Variants: NULL, unknown key, `best` with no record (empty results dir). */
    char dir[] = "/tmp/glgemm-api-XXXXXX";
    ck_assert(mkdtemp(dir));
    ck_assert(!chdir(dir)); /* no ./results here */
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("XDG_DATA_HOME", dir, 1); /* no user records (other cases' tunes write the suite's) */
    const char *bad[] = {NULL, "mrt=9x9", "nosuchkey=1", "best"};
    for (int i = 0; i < 4; i++) {
        int rc = glgemm_sgemm_variant(g, bad[i], GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                      GLGEMM_NOTRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
        ck_assert_msg(rc == GLGEMM_EVARIANT, "%s: %d", bad[i] ? bad[i] : "NULL", rc);
        ck_assert(glgemm_last_error()[0] != '\0');
        ck_assert(!memcmp(c, c0, sizeof c));
    }
    /* A variant no card runs (GLSL 1.20 does not go to SPIR-V): EGPU naming
     * the status, C untouched. */
    int rc = glgemm_sgemm_variant(g, "profile=120,compiler=spirv", GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                  GLGEMM_NOTRANS, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4);
    ck_assert_msg(rc == GLGEMM_EGPU, "rc %d: %s", rc, glgemm_last_error());
    ck_assert_msg(strstr(glgemm_last_error(), "invalid"), "%s", glgemm_last_error());
    ck_assert(!memcmp(c, c0, sizeof c));
    /* Helpers' arguments. */
    ck_assert_int_eq(glgemm_set_verify(g, 7), GLGEMM_EINVAL);
    ck_assert_int_eq(glgemm_set_verify(NULL, GLGEMM_VERIFY_FULL), GLGEMM_ENOCONTEXT);
    char small[8];
    ck_assert_int_eq(glgemm_variant_for(g, 8, 8, 8, small, sizeof small), GLGEMM_EINVAL);
    ck_assert_int_eq(glgemm_variant_for(g, 0, 8, 8, small, sizeof small), GLGEMM_EINVAL);
    glgemm_close(g);
    rmdir(dir);
}
END_TEST

START_TEST(api_strerror)
{
    const int codes[] = {GLGEMM_OK, GLGEMM_ENOCONTEXT, GLGEMM_EVARIANT, GLGEMM_EGPU,
                         GLGEMM_EWRONG, GLGEMM_ENOMEM, GLGEMM_EINVAL, GLGEMM_EREENTER,
                         GLGEMM_EARG_LAYOUT,
                         GLGEMM_EARG_TRANSA, GLGEMM_EARG_TRANSB, GLGEMM_EARG_M, GLGEMM_EARG_N,
                         GLGEMM_EARG_K, GLGEMM_EARG_A, GLGEMM_EARG_LDA, GLGEMM_EARG_B,
                         GLGEMM_EARG_LDB, GLGEMM_EARG_C, GLGEMM_EARG_LDC};
    int n = sizeof codes / sizeof *codes;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(glgemm_strerror(codes[i]), glgemm_strerror(codes[j])),
                          "codes %d and %d share a text", codes[i], codes[j]);
    ck_assert_str_eq(glgemm_strerror(GLGEMM_EARG_LDA), "illegal value of argument 9 (lda)");
    ck_assert_str_eq(glgemm_strerror(99), "unknown glgemm error code");
    ck_assert_str_eq(glgemm_strerror(-15), "unknown glgemm error code");
}
END_TEST

/* ---- glgemm_open ---- */

START_TEST(api_open_failures)
{
    ck_assert(glgemm_open("vulkan", 0) == NULL);
    ck_assert_msg(strstr(glgemm_last_error(), "unknown backend 'vulkan'"), "%s",
                  glgemm_last_error());
    ck_assert(glgemm_open(NULL, -1) == NULL);
    ck_assert_msg(strstr(glgemm_last_error(), "device -1"), "%s", glgemm_last_error());
    ck_assert(glgemm_open("egl", 999) == NULL);
    ck_assert_msg(strstr(glgemm_last_error(), "EGL"), "%s", glgemm_last_error());
    setenv("GLGEMM_VERIFY", "sometimes", 1);
    ck_assert(glgemm_open(NULL, 0) == NULL);
    ck_assert_msg(strstr(glgemm_last_error(), "GLGEMM_VERIFY=sometimes"), "%s",
                  glgemm_last_error());
    setenv("GLGEMM_VERIFY", "full", 1);
    glgemm_context *g = open_ok();
    ck_assert_str_eq(glgemm_last_error(), "");
    ck_assert_msg(strlen(glgemm_card(g)) > 0 && !strchr(glgemm_card(g), ' '), "card '%s'",
                  glgemm_card(g));
    glgemm_close(g);
    glgemm_close(NULL);
}
END_TEST

/* ---- the variant: records, nearest size, explicit variants, fallback ---- */

static void write_best(const char *dir, const char *card, int m, int n, int k, const char *v)
{
    tu_write_best(dir, card, m, n, k, v, 1.5);
}

START_TEST(api_nearest_records)
{
    char dir[] = "/tmp/glgemm-near-XXXXXX";
    ck_assert(mkdtemp(dir));
    gg_nearest near;
    ck_assert_int_eq(store_best_nearest(dir, "card", 64, 64, 64, &near), -1);
    write_best(dir, "card", 64, 64, 64, "larsen");
    write_best(dir, "card", 512, 512, 512, "nv-single");
    write_best(dir, "card", 256, 256, 256, "not a variant");
    write_best(dir, "card", 32, 32, 128, "tfjs");
    write_best(dir, "card", 128, 128, 32, "nv-multi");
    char junk[700];
    snprintf(junk, sizeof junk, "%s/card/best-12x12.txt", dir);
    fclose(fopen(junk, "w"));
    struct {
        int m, n, k;
        int wm, wn, wk;
    } q[] = {
        {100, 100, 100, 64, 64, 64},  /* ln 1.56 vs 5.12 */
        {300, 300, 300, 512, 512, 512}, /* 256^3 is nearer but unreadable: passed over */
        {1, 1, 1, 32, 32, 128},       /* distance ln(MNK): the smallest volume */
        {64, 64, 64, 64, 64, 64},
        {10000, 3, 700, 512, 512, 512},
    };
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        ck_assert_int_eq(store_best_nearest(dir, "card", q[i].m, q[i].n, q[i].k, &near), 0);
        ck_assert_msg(near.m == q[i].wm && near.n == q[i].wn && near.k == q[i].wk,
                      "%dx%dx%d: got %dx%dx%d", q[i].m, q[i].n, q[i].k, near.m, near.n, near.k);
    }
    ck_assert_int_eq(store_best_nearest(dir, "other", 64, 64, 64, &near), -1);
    /* Ties: the larger volume, then the smaller (M, N, K). */
    write_best(dir, "tie", 32, 64, 64, "larsen");
    write_best(dir, "tie", 128, 64, 64, "larsen");
    write_best(dir, "tie", 64, 128, 64, "larsen");
    ck_assert_int_eq(store_best_nearest(dir, "tie", 64, 64, 64, &near), 0);
    ck_assert_msg(near.m == 64 && near.n == 128 && near.k == 64, "tie: %dx%dx%d", near.m,
                  near.n, near.k);
    ck_assert(strstr(near.path, "/tie/best-64x128x64.txt"));
    /* store_best_for: the problem's own file, else the nearest of that store
     * (best-f16-MxNxK.txt for f16), saying which; an own file that does not
     * read is an error, not a reason to look elsewhere. */
    gg_variant v;
    char from[900], err[900];
    ck_assert_int_eq(store_best_for(dir, "card", 64, 64, 64, GG_STORE_F32, &v, from, sizeof from,
                                    err, sizeof err), 0);
    ck_assert_str_eq(from, "");
    ck_assert_int_eq(store_best_for(dir, "card", 100, 100, 100, GG_STORE_F32, &v, from,
                                    sizeof from, err, sizeof err), 0);
    ck_assert_msg(!strncmp(from, "64x64x64 (", 10), "%s", from);
    ck_assert_int_eq(store_best_for(dir, "card", 256, 256, 256, GG_STORE_F32, &v, from,
                                    sizeof from, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "does not start with a variant"), "%s", err);
    ck_assert_int_eq(store_best_for(dir, "card", 100, 100, 100, GG_STORE_F16, &v, from,
                                    sizeof from, err, sizeof err), -1);
    snprintf(junk, sizeof junk, "%s/card/best-f16-128x128x128.txt", dir);
    FILE *f = fopen(junk, "w");
    ck_assert_ptr_nonnull(f);
    fputs("mrt=2x2,mc=1x4,store=f16\ngflops: 2\n", f);
    fclose(f);
    ck_assert_int_eq(store_best_for(dir, "card", 100, 100, 100, GG_STORE_F16, &v, from,
                                    sizeof from, err, sizeof err), 0);
    ck_assert_msg(v.store == GG_STORE_F16 && !strncmp(from, "128x128x128 (", 13), "%s", from);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(api_records_pick_variant)
{
    char dir[] = "/tmp/glgemm-rec-XXXXXX";
    ck_assert(mkdtemp(dir));
    ck_assert(!chdir(dir));
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("XDG_DATA_HOME", dir, 1); /* no user records (other cases' tunes write the suite's) */
    glgemm_context *g = open_ok();
    char v[200], want[200];
    gg_variant pv;
    char err[200];
    /* Nothing recorded: the default. */
    ck_assert_int_eq(glgemm_variant_for(g, 40, 40, 40, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, GLGEMM_DEFAULT_VARIANT);
    ck_assert_int_eq(gen_variant_parse(GLGEMM_DEFAULT_VARIANT, NULL, &pv, err, sizeof err), 0);
    ck_assert_str_eq(gen_variant_format(&pv, want, sizeof want), GLGEMM_DEFAULT_VARIANT);
    /* Records of this card: the nearest size's. */
    write_best(dir, glgemm_card(g), 32, 32, 32, "nv-multi");
    write_best(dir, glgemm_card(g), 256, 256, 256, "mc=2x2,profile=120,compiler=spirv"); /* invalid */
    ck_assert_int_eq(glgemm_variant_for(g, 40, 40, 40, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32");
    /* `best` in an explicit variant names the same record, with overrides. */
    mat a = mat_make(40, 40, 1, 0, 5, 0), b = mat_make(40, 40, 1, 0, 5, 1);
    mat c = mat_make(40, 40, 1, 0, 5, 2);
    ck_assert_int_eq(glgemm_sgemm_variant(g, "best,acc=copy", GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                          GLGEMM_NOTRANS, 40, 40, 40, 1, a.v, 40, b.v, 40, 0,
                                          c.v, 40),
                     GLGEMM_OK);
    /* The record for 256^3 cannot run here: glgemm_sgemm falls back to the
     * default, succeeds, and stops choosing it. */
    ck_assert_int_eq(glgemm_variant_for(g, 200, 200, 200, v, sizeof v), GLGEMM_OK);
    ck_assert_msg(strstr(v, "profile=120,compiler=spirv"), "%s", v);
    mat a2 = mat_make(200, 30, 0, 1, 6, 0), b2 = mat_make(30, 20, 0, 2, 6, 1);
    mat c2 = mat_make(200, 20, 0, 3, 6, 2);
    int rc = glgemm_sgemm(g, GLGEMM_COL_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 200, 20, 30, 1,
                          a2.v, a2.ld, b2.v, b2.ld, 0, c2.v, c2.ld);
    ck_assert_msg(rc == GLGEMM_OK, "%d: %s", rc, glgemm_last_error());
    /* (column-major 200 x 20 is the row-major 20 x 200 problem: the nearest
     * record to 20x200x30 is 32^3, so check the row-major 200^3 choice.) */
    float *a3 = calloc(200 * 200, sizeof *a3), *c3 = calloc(200 * 200, sizeof *c3);
    rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 200, 200, 200, 1, a3,
                      200, a3, 200, 0, c3, 200);
    ck_assert_msg(rc == GLGEMM_OK, "%d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(glgemm_variant_for(g, 200, 200, 200, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, GLGEMM_DEFAULT_VARIANT);
    for (int i = 0; i < 200 * 200; i++)
        ck_assert(c3[i] == 0.0f);
    glgemm_close(g);
    free(a.v), free(b.v), free(c.v), free(a2.v), free(b2.v), free(c2.v), free(a3), free(c3);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A recorded out=image best is what the library picks, and it computes
 * right (through glgemm_sgemm, the record's variant). */
START_TEST(api_records_image_best)
{
    char dir[] = "/tmp/glgemm-rec-XXXXXX";
    ck_assert(mkdtemp(dir));
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("XDG_DATA_HOME", dir, 1); /* no user records (other cases' tunes write the suite's) */
    glgemm_context *g = open_ok();
    write_best(dir, glgemm_card(g), 48, 48, 48,
               "mc=4x1,np=5,profile=430,out=image,blk=16x8,fetch=buffer");
    char v[200];
    ck_assert_int_eq(glgemm_variant_for(g, 45, 47, 49, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, "mrt=1x1,mc=4x1,np=5,unroll=0,profile=430,compiler=glsl,acc=pingpong,"
                        "store=f32,out=image,blk=16x8,fetch=buffer");
    int m = 45, n = 47, k = 49;
    mat a = mat_make(m, k, 1, 0, 11, 0), b = mat_make(k, n, 1, 0, 11, 1);
    mat c = mat_make(m, n, 1, 0, 11, 2);
    float *c0 = copy_of(&c);
    ck_assert_int_eq(glgemm_set_verify(g, GLGEMM_VERIFY_FULL), GLGEMM_OK);
    int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, m, n, k, 0.5f, a.v,
                          a.ld, b.v, b.ld, 2.0f, c.v, c.ld);
    ck_assert_msg(rc == GLGEMM_OK, "%d: %s", rc, glgemm_last_error());
    /* still the record's variant: it did not fail over to the default */
    ck_assert_int_eq(glgemm_variant_for(g, 45, 47, 49, v, sizeof v), GLGEMM_OK);
    ck_assert_ptr_nonnull(strstr(v, "out=image,blk=16x8,fetch=buffer"));
    glgemm_close(g);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double r = 0, sc = 0;
            for (int p = 0; p < k; p++) {
                double x = (double)a.v[idx(&a, i, p)] * b.v[idx(&b, p, j)];
                r += x;
                sc += fabs(x);
            }
            double z = c0[idx(&c, i, j)];
            r = 0.5 * r + 2.0 * z;
            sc = 0.5 * sc + fabs(2.0 * z);
            ck_assert_msg(fabs(c.v[idx(&c, i, j)] - r) <= k * ldexp(sc, -23), "C[%d][%d]", i, j);
        }
    free(a.v), free(b.v), free(c.v), free(c0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The library is fp32 only: a store=f16 best is passed over (the nearest
 * fp32 best, or the default, serves), `best` in an explicit variant names
 * the fp32 record, and an explicit store=f16 is refused. */
START_TEST(api_skips_f16_records)
{
    char dir[] = "/tmp/glgemm-f16-XXXXXX";
    ck_assert(mkdtemp(dir));
    ck_assert(!chdir(dir));
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("XDG_DATA_HOME", dir, 1); /* no user records (other cases' tunes write the suite's) */
    glgemm_context *g = open_ok();
    char v[200];
    /* Only a store=f16 record: the default, not it. */
    write_best(dir, glgemm_card(g), 40, 40, 40, "mrt=1x2,mc=2x2,np=2,store=f16");
    ck_assert_int_eq(glgemm_variant_for(g, 40, 40, 40, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, GLGEMM_DEFAULT_VARIANT);
    gg_nearest near;
    ck_assert_int_eq(store_best_nearest(dir, glgemm_card(g), 40, 40, 40, &near), 0); /* it is there */
    ck_assert_int_eq(near.v.store, GG_STORE_F16);
    /* An fp32 record further away is the one used. */
    write_best(dir, glgemm_card(g), 32, 32, 32, "nv-multi");
    ck_assert_int_eq(glgemm_variant_for(g, 40, 40, 40, v, sizeof v), GLGEMM_OK);
    ck_assert_str_eq(v, "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32");
    mat a = mat_make(40, 40, 1, 0, 5, 0), b = mat_make(40, 40, 1, 0, 5, 1);
    mat c = mat_make(40, 40, 1, 0, 5, 2);
    int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 40, 40, 40, 1, a.v,
                          40, b.v, 40, 0, c.v, 40);
    ck_assert_msg(rc == GLGEMM_OK, "%d: %s", rc, glgemm_last_error());
    ck_assert_int_eq(glgemm_sgemm_variant(g, "best", GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                          GLGEMM_NOTRANS, 40, 40, 40, 1, a.v, 40, b.v, 40, 0,
                                          c.v, 40),
                     GLGEMM_OK);
    /* Asked for by name: refused, C untouched. */
    float keep = c.v[0];
    ck_assert_int_eq(glgemm_sgemm_variant(g, "mrt=1x2,mc=2x2,store=f16", GLGEMM_ROW_MAJOR,
                                          GLGEMM_NOTRANS, GLGEMM_NOTRANS, 40, 40, 40, 1, a.v, 40,
                                          b.v, 40, 0, c.v, 40),
                     GLGEMM_EVARIANT);
    ck_assert_msg(strstr(glgemm_last_error(), "fp32 inputs only"), "%s", glgemm_last_error());
    ck_assert(c.v[0] == keep);
    glgemm_close(g);
    free(a.v), free(b.v), free(c.v);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Explicit variants of other profiles and accumulations, verify levels. */
static const char *const explicit_variants[] = {
    "larsen",
    "nv-single,profile=120",
    "mrt=2x1,mc=2x2,np=2,profile=300es,acc=blend",
    "mrt=1x2,mc=1x3,np=3,acc=copy",
    "mc=1x4,np=3,profile=430,out=image,blk=8x8,fetch=texelfetch",
    "mc=2x2,np=2,profile=310es,out=image,blk=4x4,fetch=image",
    "mrt=2x1,mc=4x1,np=all,profile=430,fetch=buffer",
};

START_TEST(api_explicit_variants)
{
    int m = 21, n = 18, k = 26;
    mat a = mat_make(k, m, 0, 2, 9, 0), b = mat_make(k, n, 0, 1, 9, 1);
    mat c = mat_make(m, n, 0, 4, 9, 2);
    float *c0 = copy_of(&c);
    glgemm_context *g = open_ok();
    ck_assert_int_eq(glgemm_set_verify(g, _i % 3), GLGEMM_OK);
    int rc = glgemm_sgemm_variant(g, explicit_variants[_i], GLGEMM_COL_MAJOR, GLGEMM_TRANS,
                                  GLGEMM_NOTRANS, m, n, k, 1.5f, a.v, a.ld, b.v, b.ld, -1.0f,
                                  c.v, c.ld);
    ck_assert_msg(rc == GLGEMM_OK, "%s: %d: %s", explicit_variants[_i], rc,
                  glgemm_last_error());
    glgemm_close(g);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double r = 0, sc = 0;
            for (int p = 0; p < k; p++) {
                double x = (double)a.v[idx(&a, p, i)] * b.v[idx(&b, p, j)];
                r += x;
                sc += fabs(x);
            }
            double z = c0[idx(&c, i, j)];
            r = 1.5 * r - z;
            sc = 1.5 * sc + fabs(z);
            ck_assert_msg(fabs(c.v[idx(&c, i, j)] - r) <= k * ldexp(sc, -23), "C[%d][%d]", i, j);
        }
    for (size_t i = 0; i < c.size; i++)
        if (c0[i] == SENTINEL)
            ck_assert(c.v[i] == SENTINEL);
    free(a.v), free(b.v), free(c.v), free(c0);
}
END_TEST

/* ---- the checksum judge (no GL) ---- */

typedef struct {
    int m, n, k;
    float alpha, beta;
    float *a, *b, *c0, *c;
} judge_case;

/* Random operands and C computed in double then rounded: within the bound. */
static judge_case judge_make(int m, int n, int k, float alpha, float beta, uint64_t seed)
{
    judge_case j = {m, n, k, alpha, beta, malloc(sizeof(float) * m * k),
                    malloc(sizeof(float) * k * n), malloc(sizeof(float) * m * n),
                    malloc(sizeof(float) * m * n)};
    base_fill_uniform(j.a, (size_t)m * k, seed, 0);
    base_fill_uniform(j.b, (size_t)k * n, seed, 1);
    base_fill_uniform(j.c0, (size_t)m * n, seed, 2);
    for (int i = 0; i < m; i++)
        for (int q = 0; q < n; q++) {
            float acc = 0; /* float accumulation, as a GPU does */
            for (int p = 0; p < k; p++)
                acc += j.a[i * k + p] * j.b[p * n + q];
            j.c[i * n + q] = alpha * acc + (beta != 0 ? beta * j.c0[i * n + q] : 0);
        }
    return j;
}

static int judge(const judge_case *j, int samples, uint64_t seed, char *why, size_t len)
{
    gg_gemm_operands g = {j->m, j->n, j->k, j->alpha, j->beta, {j->a, j->k, false},
                          {j->b, j->n, false}, j->c0, j->n};
    return base_checksum_verify(&g, j->c, j->n, seed, samples, why, len);
}

static void judge_free(judge_case *j) { free(j->a), free(j->b), free(j->c0), free(j->c); }

START_TEST(checksum_accepts_right_results)
{
    char why[400] = "";
    for (uint64_t seed = 1; seed <= 20; seed++) {
        judge_case j = judge_make(30 + (int)seed, 17, 200 + 13 * (int)seed,
                                  seed % 2 ? 1.0f : -0.25f, seed % 3 ? 0.0f : 1.5f, seed);
        ck_assert_msg(judge(&j, 64, seed, why, sizeof why) == 0, "seed %d: %s", (int)seed, why);
        /* beta == 0: C0 is not read, NaN there changes nothing. */
        if (j.beta == 0.0f) {
            j.c0[3] = NAN;
            ck_assert_msg(judge(&j, 64, seed, why, sizeof why) == 0, "%s", why);
        }
        judge_free(&j);
    }
}
END_TEST

START_TEST(checksum_refuses_wrong_results)
{
    char why[400] = "";
    /* A small error beyond the bound on a corner: the exact samples. */
    judge_case j = judge_make(40, 30, 64, 1.0f, 0.5f, 3);
    float keep = j.c[40 * 30 - 1];
    j.c[40 * 30 - 1] += 1e-3f;
    ck_assert_int_eq(judge(&j, 4, 1, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "C[39][29]"), "%s", why);
    j.c[40 * 30 - 1] = keep;
    ck_assert_int_eq(judge(&j, 4, 1, why, sizeof why), 0);
    /* A gross error inside, no samples: the row and column checksums. */
    j.c[17 * 30 + 11] += 0.5f;
    ck_assert_int_eq(judge(&j, 0, 1, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "checksum"), "%s", why);
    j.c[17 * 30 + 11] -= 0.5f;
    /* A row left at zero (a pass not run): checksums. */
    float row[30];
    memcpy(row, j.c + 5 * 30, sizeof row);
    memset(j.c + 5 * 30, 0, sizeof row);
    ck_assert_int_eq(judge(&j, 0, 2, why, sizeof why), 1);
    memcpy(j.c + 5 * 30, row, sizeof row);
    /* NaN and huge values where finite inputs bound everything: the bounds. */
    j.c[200] = NAN;
    ck_assert_int_eq(judge(&j, 0, 1, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "C[6][20]") && strstr(why, "bound"), "%s", why);
    j.c[200] = 1e30f;
    ck_assert_int_eq(judge(&j, 0, 1, why, sizeof why), 1);
    judge_free(&j);
}
END_TEST

START_TEST(checksum_non_finite_inputs)
{
    char why[400] = "";
    judge_case j = judge_make(8, 8, 8, 1.0f, 0.0f, 4);
    /* NaN in A row 0: row 0 of R is NaN, everything is judged by samples. */
    j.a[3] = NAN;
    for (int q = 0; q < 8; q++)
        j.c[q] = NAN;
    ck_assert_msg(judge(&j, 64, 1, why, sizeof why) == 0, "%s", why);
    j.c[7] = 1.0f; /* finite where R is NaN, on a corner (always sampled) */
    ck_assert_int_eq(judge(&j, 64, 1, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "nan"), "%s", why);
    judge_free(&j);
}
END_TEST

/* glgemm_last_timing: each part of a GPU call measured and inside the
 * whole; all zero after a quick return, a CPU crossover call, or a NULL ctx. */
START_TEST(api_last_timing)
{
    glgemm_context *g = open_ok();
    ck_assert_int_eq(glgemm_set_crossover(g, 0), GLGEMM_OK);
    enum { N = 48 };
    static float a[N * N], b[N * N], c[N * N];
    base_fill_uniform(a, N * N, 3, 1);
    base_fill_uniform(b, N * N, 3, 2);
    glgemm_timing t = {-1, -1, -1, -1, -1};
    glgemm_last_timing(g, &t);
    ck_assert(t.upload_s == 0 && t.run_s == 0 && t.readback_s == 0 && t.verify_s == 0 &&
              t.total_s == 0);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, N, N, N,
                                  1, a, N, b, N, 0, c, N), GLGEMM_OK);
    ck_assert_msg(!strncmp(glgemm_last_route(g), "gpu ", 4), "route %s", glgemm_last_route(g));
    glgemm_last_timing(g, &t);
    ck_assert_msg(t.upload_s > 0 && t.run_s > 0 && t.readback_s > 0 && t.verify_s > 0,
                  "upload %g run %g read-back %g verify %g", t.upload_s, t.run_s, t.readback_s,
                  t.verify_s);
    ck_assert_msg(t.total_s >= t.upload_s + t.run_s + t.readback_s + t.verify_s,
                  "total %g below its parts", t.total_s);
    /* A quick return (alpha 0, beta 1) and a crossover call: no GPU time. */
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, N, N, N,
                                  0, a, N, b, N, 1, c, N), GLGEMM_OK);
    glgemm_last_timing(g, &t);
    ck_assert(t.total_s == 0 && t.run_s == 0);
    ck_assert_int_eq(glgemm_set_crossover(g, 1024), GLGEMM_OK);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, N, N, N,
                                  1, a, N, b, N, 0, c, N), GLGEMM_OK);
    ck_assert_msg(!strncmp(glgemm_last_route(g), "cpu ", 4), "route %s", glgemm_last_route(g));
    glgemm_last_timing(g, &t);
    ck_assert(t.total_s == 0 && t.upload_s == 0);
    glgemm_close(g);
    glgemm_last_timing(NULL, &t);
    ck_assert(t.total_s == 0);
    glgemm_last_timing(NULL, NULL); /* nothing to fill: no crash */
}
END_TEST

Suite *make_api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *gl = tcase_create("api_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, api_semantics, 0, 2 * 4 * NAB);
    tcase_add_test(gl, api_quick_returns);
    tcase_add_test(gl, api_last_timing);
    tcase_add_loop_test(gl, api_arg_errors, 0, NARG_CASES);
    tcase_add_loop_test(gl, api_darg_errors, 0, NARG_CASES);
    tcase_add_test(gl, api_other_errors);
    tcase_add_test(gl, api_open_failures);
    tcase_add_test(gl, api_records_pick_variant);
    tcase_add_test(gl, api_records_image_best);
    tcase_add_test(gl, api_skips_f16_records);
    tcase_add_loop_test(gl, api_explicit_variants, 0,
                        (int)(sizeof explicit_variants / sizeof *explicit_variants));
    suite_add_tcase(s, gl);
    TCase *cpu = tcase_create("api_cpu");
    tcase_set_timeout(cpu, 60);
    tcase_add_test(cpu, api_strerror);
    tcase_add_test(cpu, api_nearest_records);
    tcase_add_test(cpu, checksum_accepts_right_results);
    tcase_add_test(cpu, checksum_refuses_wrong_results);
    tcase_add_test(cpu, checksum_non_finite_inputs);
    suite_add_tcase(s, cpu);
    return s;
}
