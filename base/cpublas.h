/* base/cpublas: the CPU's BLAS sgemm on the same float inputs as the GPU,
 * timed the same way, so `bench` and `report` compare like with like.
 * No GL here.
 *
 * Contract:
 *  - cblas_sgemm (OpenBLAS) computes C = alpha*op(A)*op(B) + beta*C0 on the
 *    gg_inputs as stored (row-major, transa/transb as given), on all the
 *    machine's cores (openblas_set_num_threads(online CPUs)).
 *  - Time: one warm-up call, then p->reps calls (at least 1); before each,
 *    C is reset to C0 (beta != 0) outside the timed region; each call is
 *    timed on CLOCK_MONOTONIC; seconds is the median.  compile, upload and
 *    read-back are 0 (there are none); gpu_s is -1.
 *  - The last call's C is judged by base_verify against ref, as a GPU result
 *    is: wrong_result (gflops 0) on failure.  GFLOP/s = 2*m*n*k / seconds.
 *  - passes is 0 (no render passes).  Out of memory: status gl_error is not
 *    apt, so the function returns -1 with one line in err instead.
 */
#ifndef GLGEMM_CPUBLAS_H
#define GLGEMM_CPUBLAS_H

#include <stddef.h>

#include "base/inputs.h"
#include "base/measure.h"
#include "base/reference.h"

/* 0 with *out filled (ok or wrong_result), or -1 with one line in err. */
int base_cpu_sgemm(const gg_problem *p, const gg_inputs *in, const gg_reference *ref,
                 gg_measurement *out, char *err, size_t errlen);

/* The same with cblas_dgemm on the inputs as doubles (base/wide.h's
 * base_wide_inputs: the doubles store=f64 multiplies), C judged by
 * base_wide_verify against ref, a store=f64 reference
 * (base_reference_compute_store(in, alpha, beta, GG_STORE_F64, ...)): the
 * CPU row of bench's wide rows. */
int base_cpu_dgemm(const gg_problem *p, const gg_inputs *in, const gg_reference *ref,
                   gg_measurement *out, char *err, size_t errlen);

/* The threads OpenBLAS uses (after base_cpu_sgemm: all online CPUs). */
int base_cpu_threads(void);

/* "AMD EPYC" (first "model name" of /proc/cpuinfo, else "unknown") into buf. */
char *base_cpu_model(char *buf, size_t len);

#endif
