/* base/wide: the wide stores' inputs, reference and verdict (store=f64,
 * dd, df; gen/wide.h has their words).  No GL.
 *
 * Contract:
 *  - Inputs: base_wide_inputs gives A, B and C0 as doubles: the caller's
 *    (gg_inputs.a64 ..), else made from the floats: seeded inputs get 30
 *    random bits below each fp32 value (streams 3, 4, 5 of the seed: each
 *    value x + u*2^-53, u < 2^30, a multiple of 2^-53 in [-1, 1), so values
 *    use all 53 bits), inputs from files are widened exactly.
 *  - Reference (base_wide_reference, through base_reference_compute_store):
 *    R = alpha*op(A)*op(B) + beta*C0 of those doubles, carried past double:
 *    f64 and df in double-double (TwoProduct by fma, the accurate
 *    double-double sum; relative error about k*2^-104 of S), dd in
 *    __float128 (113 bits) where the compiler has it, else double-double.
 *    ref->r + ref->rlo is R; ref->s is S = |alpha| sum |a b| + |beta c0|.
 *  - base_wide_bound: the bound on |C - R| / S for k terms: f64 k*2^-52
 *    (two units of 2^-53 a term, as fp32's k*2^-23); df k*2^-44 (inputs
 *    rounded to hi + lo fp32s, about 2^-49 each, products and sums in
 *    double-float about 2^-46 and 2^-47 a term); dd k*2^-100 (products
 *    of doubles exact, sums about 2^-105 a term).
 *  - base_wide_verify: C as hi + lo pairs (gen_wide_unpack_c), judged as
 *    base_verify judges fp32 (classes, then |C - R| / S <= the bound), the
 *    difference formed as (r - chi) + (rlo - clo). */
#ifndef GLGEMM_BASE_WIDE_H
#define GLGEMM_BASE_WIDE_H

#include "base/inputs.h"
#include "base/measure.h"
#include "base/reference.h"
#include "gen/gen.h"

typedef struct {
    double *a, *b, *c0; /* as gg_inputs stores them (c0 NULL without one) */
    bool own;           /* made here: base_wide_inputs_free frees them */
} gg_wide_inputs;

int base_wide_inputs(const gg_inputs *in, gg_wide_inputs *w, char *err, size_t errlen);
void base_wide_inputs_free(gg_wide_inputs *w);

int base_wide_reference(const gg_inputs *in, float alpha, float beta, gg_store store,
                        gg_reference *ref, char *err, size_t errlen);

double base_wide_bound(gg_store store, int k);

void base_wide_verify(const gg_reference *ref, const double *chi, const double *clo,
                      gg_verdict *v);

#endif
