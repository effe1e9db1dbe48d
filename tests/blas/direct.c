/* tests/blas/direct.c: a program linked with libglgemm_blas.so (through
 * glgemm_blas.pc) that uses glgemm.h itself, for tests/blas/run.sh.  Its
 * glgemm_sgemm below the crossover, with no CPU sgemm set, makes the core
 * objects call cblas_sgemm, which this library defines: that call must go
 * to the CPU BLAS without coming back into glgemm (no log line, no second
 * context, no recursion).  Then the program's own cblas_sgemm call, which
 * is the library's, must run on the GPU.  Both checked against a double
 * loop.  Exit 0 when all is right. */
#include <glgemm.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);

enum { N = 24 };

static int check(const char *what, const float *a, const float *b, const float *c)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double r = 0, s = 0;
            for (int p = 0; p < N; p++) {
                r += (double)a[i * N + p] * b[p * N + j];
                s += fabs((double)a[i * N + p] * b[p * N + j]);
            }
            if (!(fabs(c[i * N + j] - r) <= N * ldexp(1.0, -23) * s + 1e-30)) {
                fprintf(stderr, "direct: %s: C[%d][%d] = %.9g, expected %.9g\n", what, i, j,
                        c[i * N + j], r);
                return 1;
            }
        }
    return 0;
}

int main(void)
{
    static float a[N * N], b[N * N], c[N * N];
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)((i * 7) % 13) - 6.0f;
        b[i] = (float)((i * 5) % 11) / 4.0f - 1.0f;
    }
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        fprintf(stderr, "direct: glgemm_open: %s\n", glgemm_last_error());
        return 1;
    }
    int rc = glgemm_set_crossover(g, 1000);
    if (!rc)
        rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, N, N, N, 1.0f, a,
                          N, b, N, 0.0f, c, N);
    if (rc) {
        fprintf(stderr, "direct: glgemm_sgemm: %s: %s\n", glgemm_strerror(rc),
                glgemm_last_error());
        return 1;
    }
    printf("direct: glgemm_sgemm: %s\n", glgemm_last_route(g));
    if (strcmp(glgemm_last_route(g), "cpu crossover 1000") || check("crossover", a, b, c))
        return 1;
    glgemm_close(g);
    memset(c, 0, sizeof c);
    cblas_sgemm(101, 111, 111, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
    if (check("cblas_sgemm", a, b, c))
        return 1;
    printf("direct: right\n");
    return 0;
}
