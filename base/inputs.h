/* The operands of one GEMM, on the CPU, as the user gave them.  No GL here.
 *
 * Contract:
 *  - a is op(A)'s source as stored: m x k, or k x m with transa; b is k x n,
 *    or n x k with transb; c0 is m x n or NULL.  All float, row-major,
 *    rows contiguous (leading dimension = the stored column count).
 *  - From a seed (no --a/--b): every element uniform in [-1, 1), drawn from
 *    splitmix64 in a fixed order (A, then B, then C0, each row-major as
 *    stored, each from its own stream), so the same seed and shape give the
 *    same bits on every machine.  C0 is drawn only when beta != 0.
 *  - From files (--a/--b [--c]): m, n, k come from the files' shapes (with
 *    transa the A file is k x m, with transb the B file is n x k); the
 *    problem's m, n, k are ignored.  Mismatched inner dimensions, a C file
 *    that is not m x n, and beta != 0 without --c are errors naming the
 *    shapes.  With beta == 0 a given --c is read and its shape checked, but
 *    the GEMM does not use it (BLAS semantics).
 *  - Errors: -1 and one line in err; the struct is then empty (safe to free).
 */
#ifndef GLGEMM_INPUTS_H
#define GLGEMM_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/measure.h"

typedef struct {
    int m, n, k;
    bool transa, transb;
    float *a;   /* m x k (k x m when transa) */
    float *b;   /* k x n (n x k when transb) */
    float *c0;  /* m x n, or NULL */
    int lda, ldb; /* stored column counts: transa ? m : k, transb ? k : n */
    /* store=f64, dd, df (base/wide.h): the same matrices as doubles where
     * the caller has them (tests; NULL: base_wide_inputs makes them from
     * the floats, with low bits of their own when seeded), not owned. */
    const double *a64, *b64, *c064;
    bool seeded;  /* drawn from seed (base_inputs_make without files) */
    unsigned seed;
} gg_inputs;

int base_inputs_make(const gg_problem *p, gg_inputs *in, char *err, size_t errlen);
void base_inputs_free(gg_inputs *in);

/* op(A)[i][kk] and op(B)[kk][j], whatever the storage. */
static inline float gg_op_a(const gg_inputs *in, int i, int kk)
{
    return in->transa ? in->a[(size_t)kk * in->lda + i] : in->a[(size_t)i * in->lda + kk];
}
static inline float gg_op_b(const gg_inputs *in, int kk, int j)
{
    return in->transb ? in->b[(size_t)j * in->ldb + kk] : in->b[(size_t)kk * in->ldb + j];
}

/* The generator behind the seeded inputs: fills count floats uniform in
 * [-1, 1) from stream `stream` of `seed` (multiples of 2^-23, exact). */
void base_fill_uniform(float *dst, size_t count, uint64_t seed, unsigned stream);

#endif
