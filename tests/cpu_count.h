/* tests/cpu_count.h: a CPU sgemm for glgemm_set_cpu_sgemm that counts its
 * calls in cpu_calls (a count for each test file that includes it) and
 * computes with the cblas_sgemm the test binary links (OpenBLAS). */
#ifndef GLGEMM_TESTS_CPU_COUNT_H
#define GLGEMM_TESTS_CPU_COUNT_H

#include <cblas.h>

static int cpu_calls;

static inline void counting_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha,
                                  const float *a, int lda, const float *b, int ldb, float beta,
                                  float *c, int ldc)
{
    cpu_calls++;
    cblas_sgemm((CBLAS_ORDER)layout, (CBLAS_TRANSPOSE)ta, (CBLAS_TRANSPOSE)tb, m, n, k, alpha, a,
                lda, b, ldb, beta, c, ldc);
}

#endif
