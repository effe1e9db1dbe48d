/* tests/device/cpugemm.c N [REPS]: OpenBLAS's cblas_dgemm and cblas_sgemm
 * on N x N x N (all cores), the median of REPS (default 5) after a
 * warm-up: "dgemm GFLOP/s", "sgemm GFLOP/s" (issue 40's CPU anchor beside
 * the GPU's f64 rows).  Built by tests/device/wide.sh's caller:
 *   cc -O2 -o build/cpugemm tests/device/cpugemm.c base/clock.c -I. \
 *      -I/usr/include/x86_64-linux-gnu/openblas-pthread -lopenblas */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"

#define TIMED(call, out)                                                                  \
    do {                                                                                  \
        double ts[64];                                                                    \
        call;                                                                             \
        for (int r = 0; r < reps; r++) {                                                  \
            double t0 = base_now_s();                                                     \
            call;                                                                         \
            ts[r] = base_now_s() - t0;                                                    \
        }                                                                                 \
        out = 2.0 * n * n * (double)n / base_median(ts, reps) / 1e9;                      \
    } while (0)

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0, reps = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: cpugemm N [REPS 1..64]\n");
        return 2;
    }
    size_t e = (size_t)n * n;
    double *a = malloc(e * sizeof *a), *b = malloc(e * sizeof *b), *c = malloc(e * sizeof *c);
    float *as = malloc(e * sizeof *as), *bs = malloc(e * sizeof *bs), *cs = malloc(e * sizeof *cs);
    if (!a || !b || !c || !as || !bs || !cs) {
        fprintf(stderr, "cpugemm: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < e; i++) {
        a[i] = as[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
        b[i] = bs[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
    }
    double gd, gs;
    TIMED(cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n), gd);
    TIMED(cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, as, n, bs, n, 0.0f, cs, n), gs);
    printf("cpugemm %d: dgemm %.1f GFLOP/s, sgemm %.1f GFLOP/s (OpenBLAS, median of %d)\n", n, gd, gs, reps);
    free(a); free(b); free(c); free(as); free(bs); free(cs);
    return 0;
}
