/* base/checksum: a cheap verdict on one GEMM result, without the O(mnk)
 * double reference (the library's default check).  No GL here.
 *
 * Contract (R the exact result, S = |alpha| sum_p |op(A)_ip op(B)_pj| +
 * |beta C0_ij|, g = k 2^-23 the bound of base/reference.h): every check
 * passes when |C - R| <= g S element by element and C has R's class, so a
 * result the full verification accepts is never refused.  Cost O(mk + kn + mn
 * + samples*k), all in double (the inputs' side first, then one pass over C):
 *  - bound: per row i, b_i = |alpha| (sum_p |op(A)_ip|) max|op(B)| +
 *    |beta| max_j |C0_ij| bounds S_ij.  Where the inputs are finite and
 *    b_i (1 + g) fits a float, every C_ij of row i must be finite with
 *    |C_ij| <= b_i (1 + g) (garbage, NaN and Inf are caught everywhere).
 *  - Freivalds both sides on those rows, x and w random in [1, 2):
 *    |(C x)_i - (R x)_i| <= g (S |x|)_i and |(w^T C)_j - (w^T R)_j| <= g (|w|^T S)_j,
 *    R x = alpha op(A) (op(B) x) + beta C0 x, S |x| formed the same way with
 *    absolute values (a gross error anywhere is caught).  Plus 2^-40 (2 + g)
 *    times the right side for the rounding of the double sums on both sides.
 *  - samples elements (the four corners, then random ones) computed exactly:
 *    |C - R| <= g S and R's class (R NaN -> C NaN, R +-Inf -> the same Inf,
 *    R finite -> C finite), C == R where S == 0.  With non-finite inputs
 *    only these and the class rules apply.
 * Operands are gg_src (row-major storage, row stride, transposed or not). */
#ifndef GLGEMM_CHECKSUM_H
#define GLGEMM_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "base/pool.h"
#include "gen/pack.h"

typedef struct {
    int m, n, k;
    float alpha, beta;
    gg_src a, b;     /* op(A) m x k, op(B) k x n */
    const float *c0; /* m x n, row stride ldc0: read only when beta != 0 */
    int ldc0;
} gg_gemm_operands;

/* c: m x n, row stride ldc.  seed picks x, w and the samples.  Returns 0
 * (pass), 1 (fail, one line in why naming the check and where), or -1 (out
 * of memory). */
int base_checksum_verify(const gg_gemm_operands *g, const float *c, int ldc, uint64_t seed,
                         int samples, char *why, size_t whylen);

/* The same in two steps, so that the inputs' side (every pass over A, B
 * and C0, and the sampled elements' exact values) can run while the GPU
 * computes C: prepare reads only the operands (which must stay unchanged
 * until check), check one pass over C plus the samples.  prepare returns
 * 0, or -1 out of memory (*out NULL); check returns as base_checksum_verify. */
typedef struct gg_checksum_plan gg_checksum_plan;
int base_checksum_prepare(const gg_gemm_operands *g, uint64_t seed, int samples,
                          gg_checksum_plan **out);
int base_checksum_check(const gg_checksum_plan *p, const float *c, int ldc, char *why,
                        size_t whylen);
void base_checksum_free(gg_checksum_plan *p);

/* prepare on up to nthreads threads (the caller's among them, at most 64;
 * fewer where the problem is small, one per about 2^17 multiply-adds of
 * prepare's, or where a thread cannot start), a base/pool made and freed in
 * the call.  Each value of the plan is summed by one thread in an order
 * fixed by the problem, so the plan is the same bit for bit whatever
 * nthreads (base_checksum_plan_hash); nthreads <= 1 starts no thread: that
 * is base_checksum_prepare.
 * prepare_pool: the same on a kept pool's threads (base_pool_threads of
 * them, the same cap; NULL: this thread alone), four base_pool_runs: the
 * pool must not run anything else meanwhile. */
int base_checksum_prepare_threads(const gg_gemm_operands *g, uint64_t seed, int samples,
                                  int nthreads, gg_checksum_plan **out);
int base_checksum_prepare_pool(const gg_gemm_operands *g, uint64_t seed, int samples,
                               base_pool *pool, gg_checksum_plan **out);

/* A hash of every value the plan's checks read (64-bit FNV-1a over their
 * bytes): equal for plans equal bit for bit.  For tests. */
uint64_t base_checksum_plan_hash(const gg_checksum_plan *p);

/* The check by bands of rows, so that rows can be judged as they arrive
 * (and on several threads at once):
 *   double *acc = calloc(base_checksum_colacc_len(p), sizeof *acc);  (one a thread)
 *   check_rows over each band [r0, r1) (bands disjoint, covering [0, m))
 *   colacc_add each other thread's acc into one, then check_cols on it.
 * The verdict is base_checksum_check's on the same C: every check is the
 * same, only the grouping of the column sums' additions differs (the last
 * bits of w^T C; the tolerance covers any order).  A band fails only where
 * the whole check fails, so a caller may stop at the first failing band.
 *
 * check_rows judges rows [r0, r1) of C (clamped to [0, m); c points at row 0,
 * element (i, j) at c[i*ldc + j]; only those rows are read): the bounds,
 * the row checksums and the samples lying in those rows; and adds the rows'
 * share of the column sums to colacc: colacc[j] += sum_i w_i C_ij
 * (colacc_len doubles: n, at least 1; zeroed once by the caller;
 * after a failure its content is unspecified).  It reads the plan only:
 * calls on disjoint rows with their own colacc may run at once.  Returns 0,
 * or 1 with one line in why: within the band the first bound offender in
 * row order, else the first row checksum, else the first failing sample (in
 * sample order).  Across bands, whatever band the caller judged first;
 * base_checksum_check on the whole matrix keeps the order bounds, row
 * checksums, column checksums, samples (as before the bands: it is the
 * same row pass over [0, m), then check_cols, then the samples).
 * colacc_len: the doubles of one accumulator.
 * colacc_add: dst[j] += src[j] over them.
 * check_cols judges the column checksums on the merged sums (0, or 1 with
 * why naming the first failing column). */
int base_checksum_check_rows(const gg_checksum_plan *p, const float *c, int ldc, int r0, int r1,
                             double *colacc, char *why, size_t whylen);
size_t base_checksum_colacc_len(const gg_checksum_plan *p);
void base_checksum_colacc_add(const gg_checksum_plan *p, double *dst, const double *src);
int base_checksum_check_cols(const gg_checksum_plan *p, const double *colacc, char *why,
                             size_t whylen);

#endif
