/* tests/blas/mt.c: an unmodified-style BLAS program for tests/blas/run.sh.
 * Two threads call the Fortran sgemm_ at once (linked with -lblas; run with
 * LD_PRELOAD=libglgemm_blas.so), on several shapes, transposes, alphas and
 * betas with padded leading dimensions; each C is checked against a
 * double-precision loop (the error bound k 2^-23 S of glgemm.h) and its
 * padding must be untouched.  Exit 0 when every call was right.
 * Usage: mt SEED */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t la, size_t lb);

typedef struct {
    unsigned seed;
    int bad;
    int calls;
} job;

static float rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Column-major element (i, j) of op(X), X stored with leading dimension ld. */
static double at(const float *x, int ld, int trans, int i, int j)
{
    return trans ? x[j + (size_t)i * ld] : x[i + (size_t)j * ld];
}

static int one(job *jb, char ta, char tb, int m, int n, int k, float alpha, float beta)
{
    int tra = ta != 'N', trb = tb != 'N';
    int lda = (tra ? k : m) + 3, ldb = (trb ? n : k) + 2, ldc = m + 5;
    int acols = tra ? m : k, bcols = trb ? k : n;
    float *a = malloc(sizeof *a * (size_t)lda * acols);
    float *b = malloc(sizeof *b * (size_t)ldb * bcols);
    float *c = malloc(sizeof *c * (size_t)ldc * n);
    float *c0 = malloc(sizeof *c0 * (size_t)ldc * n);
    if (!a || !b || !c || !c0) {
        fprintf(stderr, "mt: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < (size_t)lda * acols; i++)
        a[i] = rnd(&jb->seed);
    for (size_t i = 0; i < (size_t)ldb * bcols; i++)
        b[i] = rnd(&jb->seed);
    for (size_t i = 0; i < (size_t)ldc * n; i++)
        c0[i] = c[i] = rnd(&jb->seed);
    sgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    jb->calls++;
    int bad = 0;
    for (int j = 0; j < n && !bad; j++)
        for (int i = 0; i < ldc && !bad; i++) {
            size_t p = i + (size_t)j * ldc;
            if (i >= m) { /* padding: never written */
                if (c[p] != c0[p]) {
                    fprintf(stderr, "mt: %c%c %dx%dx%d: padding C(%d,%d) written\n", ta, tb, m,
                            n, k, i, j);
                    bad = 1;
                }
                continue;
            }
            double r = 0, s = 0;
            for (int q = 0; q < k; q++) {
                double t = at(a, lda, tra, i, q) * at(b, ldb, trb, q, j);
                r += t;
                s += fabs(t);
            }
            r = alpha * r + (beta != 0.0f ? beta * (double)c0[p] : 0.0);
            s = fabs(alpha) * s + fabs(beta * (double)c0[p]);
            double tol = (k + 2) * ldexp(1.0, -23) * s + 1e-30;
            if (!(fabs(c[p] - r) <= tol)) {
                fprintf(stderr, "mt: %c%c %dx%dx%d alpha %g beta %g: C(%d,%d) = %.9g, "
                        "expected %.9g (tolerance %.3g)\n", ta, tb, m, n, k, alpha, beta, i,
                        j, c[p], r, tol);
                bad = 1;
            }
        }
    free(a);
    free(b);
    free(c);
    free(c0);
    return bad;
}

static void *work(void *arg)
{
    job *jb = arg;
    static const int shapes[][3] = {{64, 48, 40}, {37, 53, 29}, {100, 30, 70}, {1, 17, 9}};
    static const char tr[] = "NTC";
    for (int rep = 0; rep < 2; rep++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 4; t++) {
                float alpha = t == 3 ? -0.5f : 1.0f, beta = t == 1 ? 0.0f : 0.75f;
                jb->bad |= one(jb, tr[t % 3], tr[(t + s) % 3], shapes[s][0], shapes[s][1],
                               shapes[s][2], alpha, beta);
            }
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    job jobs[2] = {{seed * 2 + 1, 0, 0}, {seed * 2 + 2, 0, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, work, &jobs[i])) {
            fprintf(stderr, "mt: pthread_create failed\n");
            return 2;
        }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    int bad = jobs[0].bad | jobs[1].bad;
    printf("mt %u: %d + %d sgemm_ calls in two threads: %s\n", seed, jobs[0].calls,
           jobs[1].calls, bad ? "WRONG" : "right");
    return bad;
}
