/* The double-precision reference and the verdict on a result.  No GL here.
 *
 * Contract:
 *  - R = alpha*op(A)*op(B) + beta*C0, from OpenBLAS cblas_dgemm on widened
 *    (double) copies of the float inputs; the product is formed with
 *    alpha 1 and scaled after, so IEEE rules hold even for alpha == 0
 *    (0 * NaN is NaN, as the GPU computes it).  beta == 0: C0 is not read
 *    (BLAS semantics: NaN in C0 is ignored).
 *  - S = |alpha| * sum_k |op(A)_ik * op(B)_kj| + |beta * C0_ij|, the scale of
 *    the error (SPEC.md's denominator, with |alpha| added so that scaling
 *    alpha does not change the relative error).
 *  - store=f16 (gen/gen.h): A and B enter both products rounded to halves
 *    (gen/half.h), the exact values the GPU samples; C0 stays fp32.  The
 *    verdict's rule is the same, so the check is as strict about the fp32
 *    sums as for store=f32.  ref->store says which inputs it was made from:
 *    gen_store_inputs() of the store asked for (store=f16x8 holds the same
 *    halves, so its reference is store=f16's, and says f16).
 *  - base_verify(): rel_err = max over i, j of |C - R| / S (where S == 0, C must
 *    equal R exactly, else that element's error is infinite).  Pass when
 *    rel_err <= K * 2^-23 and every element has R's class: R NaN -> C NaN,
 *    R +-Inf -> C the same infinity, R finite -> C finite.  rel_err counts
 *    only elements where both R and C are finite.
 */
#ifndef GLGEMM_REFERENCE_H
#define GLGEMM_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/measure.h"
#include "gen/gen.h"
#include "base/inputs.h"

typedef struct {
    int m, n, k;
    double *r;  /* m x n, row-major: the reference */
    double *s;  /* m x n, row-major: the scale */
    double *rlo; /* wide stores (base/wide.h): the reference is r + rlo, a
                    double-double; NULL otherwise */
    gg_store store; /* the inputs it was made from: fp32 or rounded to halves (f32, f16) */
} gg_reference;

/* Returns 0, or -1 with one line in err (out of memory, C0 missing while
 * beta != 0); ref is then empty (safe to free). */
int base_reference_compute(const gg_inputs *in, float alpha, float beta, gg_reference *ref,
                         char *err, size_t errlen);
/* The same for the variant key store (base_reference_compute is GG_STORE_F32). */
int base_reference_compute_store(const gg_inputs *in, float alpha, float beta, gg_store store,
                               gg_reference *ref, char *err, size_t errlen);
void base_reference_free(gg_reference *ref);

typedef struct {
    bool pass;
    double rel_err;    /* max |C-R|/S over elements where R and C are finite */
    double bound;      /* k * 2^-23 */
    long bad;          /* elements beyond the bound or of the wrong class */
    int worst_i, worst_j; /* the element the detail names (-1 if none) */
    char detail[256];  /* one line: the first element of a wrong class, else the worst one */
} gg_verdict;

/* Judges c (m x n, row-major, contiguous) against ref. */
void base_verify(const gg_reference *ref, const float *c, gg_verdict *v);

/* The bound for inner dimension k: k * 2^-23. */
double base_verify_bound(int k);

/* base_verify as an evaluation judges its C (m x n): the tests' fault
 * wrong_result first (base/fault.h: one element changed), then the
 * verdict into *v, its time into out->verify_s and out->rel_err.  Returns
 * v->pass; the caller records a failure its own way. */
bool base_verify_measured(const gg_reference *ref, float *c, int m, int n, gg_measurement *out,
                          gg_verdict *v);

#endif
