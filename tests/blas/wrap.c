/* tests/blas/wrap.c: a program that defines cblas_sgemm and sgemm_ itself
 * (tests/blas/shim.c, included) around glgemm_sgemm, as programs that wrap
 * their BLAS do.  glgemm's CPU route must never call those names back:
 * below the crossover, above it, with the GPU's result made wrong
 * (GLGEMM_FAULT=wrong_result: the shim then takes glgemm_sgemm_cpu), in both
 * layouts, every C is right; a CPU sgemm that calls glgemm_sgemm back gets
 * GLGEMM_EREENTER instead of a loop; GLGEMM_CPU_BLAS picks another CPU BLAS
 * (argv[1], a path) or fails glgemm_open with one line naming it.
 * Run with GLGEMM_CROSSOVER=64 (tests/blas/run.sh).  Exit 0, or 1 with a
 * line naming the case. */
#define _POSIX_C_SOURCE 200809L
#include "shim.c"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static int fails;
#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "wrap: " __VA_ARGS__); \
            fputc('\n', stderr); \
            fails++; \
        } \
    } while (0)

/* C (row- or column-major, ld = its rows' or columns' length) against a
 * double product: SPEC.md's bound |C - R| <= k 2^-23 |A||B|. */
static double worst(bool row, int m, int n, int k, const float *a, const float *b,
                    const float *c)
{
    double w = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, mag = 0;
            for (int p = 0; p < k; p++) {
                double x = row ? (double)a[i * k + p] * b[p * n + j]
                               : (double)a[p * m + i] * b[j * k + p];
                s += x;
                mag += fabs(x);
            }
            double e = fabs((row ? c[i * n + j] : c[j * m + i]) - s) / (mag > 0 ? mag : 1);
            w = e > w ? e : w;
        }
    return w / (k * 0x1p-23);
}

/* One product through the program's own name; the route it took. */
static void one(const char *name, bool row, int m, int n, int k, const char *want_route)
{
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n),
          *c = malloc(sizeof *c * m * n);
    for (int i = 0; i < m * k; i++)
        a[i] = (float)((i * 7919 % 201) - 100) / 100.0f;
    for (int i = 0; i < k * n; i++)
        b[i] = (float)((i * 104729 % 199) - 99) / 99.0f;
    for (int i = 0; i < m * n; i++)
        c[i] = NAN;
    if (row) {
        cblas_sgemm(GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, m, n, k, 1.0f, a, k, b, n,
                    0.0f, c, n);
    } else {
        float one = 1, zero = 0;
        sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
    }
    double w = worst(row, m, n, k, a, b, c);
    const char *route = glgemm_last_route(ctx);
    CHECK(w <= 1.0, "%s %dx%dx%d: error %.3g of the bound", name, m, n, k, w);
    CHECK(strncmp(route, want_route, strlen(want_route)) == 0, "%s %dx%dx%d: route '%s', not '%s'",
          name, m, n, k, route, want_route);
    printf("wrap: %-26s %s %dx%dx%d: %s, error %.3g of the bound\n", name, row ? "row" : "col", m,
           n, k, route, w);
    free(a);
    free(b);
    free(c);
}

/* A CPU sgemm that calls glgemm back: the inner call's return code. */
static int inner_rc = 99;
static void calls_back(int layout, int ta, int tb, int m, int n, int k, float alpha,
                       const float *a, int lda, const float *b, int ldb, float beta, float *c,
                       int ldc)
{
    inner_rc = glgemm_sgemm(ctx, (glgemm_layout)layout, (glgemm_op)ta, (glgemm_op)tb, m, n, k,
                            alpha, a, lda, b, ldb, beta, c, ldc);
}

int main(int argc, char **argv)
{
    for (int row = 1; row >= 0; row--) {
        one("below the crossover", row, 24, 20, 28, "cpu crossover 64");
        one("above it", row, 96, 80, 72, "gpu ");
        setenv("GLGEMM_FAULT", "wrong_result", 1);
        one("wrong on the GPU", row, 96, 80, 72, "cpu");
        unsetenv("GLGEMM_FAULT");
    }
    /* The caller's own CPU sgemm, which calls glgemm_sgemm back. */
    glgemm_set_cpu_sgemm(ctx, calls_back);
    float x[4] = {1, 2, 3, 4}, y[4] = {0};
    int rc = glgemm_sgemm(ctx, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, 2, 2, 1, 1, x, 1,
                          x, 2, 0, y, 2);
    CHECK(rc == GLGEMM_OK && inner_rc == GLGEMM_EREENTER && strstr(glgemm_last_error(), "CPU route"),
          "a CPU sgemm calling back: rc %d, inner %d (%s)", rc, inner_rc, glgemm_last_error());
    printf("wrap: a CPU sgemm that calls glgemm_sgemm back: inner call %s\n",
           glgemm_strerror(inner_rc));
    glgemm_set_cpu_sgemm(ctx, NULL);
    glgemm_close(ctx);
    ctx = NULL;
    tried = 0; /* the shim opens a new context, with the environment below */
    /* GLGEMM_CPU_BLAS: a library that cannot be opened; another CPU BLAS. */
    setenv("GLGEMM_CPU_BLAS", "/nonexistent/libblas.so", 1);
    glgemm_context *bad = glgemm_open(NULL, 0);
    CHECK(!bad && strstr(glgemm_last_error(), "GLGEMM_CPU_BLAS=/nonexistent/libblas.so cannot be opened"),
          "GLGEMM_CPU_BLAS unopenable: %s", bad ? "opened" : glgemm_last_error());
    printf("wrap: %s\n", glgemm_last_error());
    if (argc > 1) {
        setenv("GLGEMM_CPU_BLAS", argv[1], 1);
        one("GLGEMM_CPU_BLAS", 1, 24, 20, 28, "cpu crossover 64");
        one("GLGEMM_CPU_BLAS", 0, 24, 20, 28, "cpu crossover 64");
    }
    return fails ? 1 : 0;
}
