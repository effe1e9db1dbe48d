/* gen/eft: the GLSL of the error-free transformations that store=df and
 * store=dd compute with (internal to gen/).
 *
 * gen_eft_put() writes, for scalar type T (float for df, double for dd)
 * and pair type V (vec2, dvec2; .x the high part, .y the low):
 *   V two_sum(T a, T b)      a + b exactly as s + e (Knuth, 6 operations);
 *   V quick_two_sum(T a, T b) the same when |a| >= |b| (Dekker, 3);
 *   V two_prod(T a, T b)     a * b exactly: fma(a, b, -p) when fma is
 *                            asked for, else Dekker's split (2^12 + 1 for
 *                            fp32, 2^27 + 1 for doubles);
 *   V w_add(V a, V b)        the accurate double-word sum (QD's ieee_add:
 *                            relative error about 2 u^2, u = 2^-24 or 2^-53);
 *   V w_mul(V a, V b)        the double-word product (about 4 u^2).
 * Every intermediate is a `precise` local where the profile has the
 * qualifier (GLSL 4.00 and up), so that the compiler neither reassociates
 * nor contracts it; elsewhere (GLSL 3.30, ES 3.00, 3.10 without
 * gpu_shader5) each goes through eft_opq(x): x's bits xor'd with a zero
 * made from eft_one, a global T the shader sets to 1 from a uniform at the
 * top of main (the compiler cannot know it, and no floating-point algebra
 * sees through an integer operation).  Without either, llvmpipe returned
 * fp32-accurate sums from this very text; multiplying each by eft_one
 * instead was not enough either (gen/eft.c). */
#ifndef GLGEMM_GEN_EFT_H
#define GLGEMM_GEN_EFT_H

#include <stdbool.h>

#include "gen/sbuf.h"

/* How the intermediates are kept from the compiler's algebra: `precise`
 * (GLSL 4.00+), eft_opq, or the macros EFT_PRECISE and EFT_OPQ(x), which
 * the shader defines (gen/wide_emit.c) as one or the other by the
 * extension it has (GL_ARB_gpu_shader5 in 3.30, GL_EXT_gpu_shader5 in ES
 * 3.10: `precise`). */
typedef enum { GG_EFT_PRECISE, GG_EFT_ONE, GG_EFT_MACRO } gg_eft_guard;
void gen_eft_put(gg_sbuf *sb, bool dbl, bool fma, gg_eft_guard guard);

/* What each function above costs in operations of T (an addition,
 * subtraction or multiplication each; the guard's multiplies by eft_one
 * not counted: they only add), two_prod by Dekker's split (fma false, as
 * gen/wide_emit.c asks).  Counted from the text gen_eft_put writes
 * (tests/check_bound.c counts them there again):
 *   two_sum 6: s = a + b, bb = s - a, (a - (s - bb)) + (b - bb);
 *   quick_two_sum 3: s = a + b, b - (s - a);
 *   split 4: t = c * a, t - (t - a), a - hi;
 *   two_prod 17: p = a * b, two splits (8), e's 4 products and 4 sums;
 *   w_add 20: two two_sums (12), v, w (2), two quick_two_sums (6);
 *   w_mul 24: two_prod (17), c's 2 products and a sum, e (1),
 *     quick_two_sum (3). */
enum {
    GG_EFT_OPS_TWO_SUM = 6,
    GG_EFT_OPS_QUICK_TWO_SUM = 3,
    GG_EFT_OPS_SPLIT = 4,
    GG_EFT_OPS_TWO_PROD = 1 + 2 * GG_EFT_OPS_SPLIT + 8,
    GG_EFT_OPS_W_ADD = 2 * GG_EFT_OPS_TWO_SUM + 2 + 2 * GG_EFT_OPS_QUICK_TWO_SUM,
    GG_EFT_OPS_W_MUL = GG_EFT_OPS_TWO_PROD + 3 + 1 + GG_EFT_OPS_QUICK_TWO_SUM,
};

#endif
