/* gen/wide: the stores past fp32 (store=f64, dd, df): their rules, their
 * words, and packing doubles into them.  No GL.
 *
 * Contract:
 *  - A value of a wide store is gen_wide_words() 32-bit words: f64 the
 *    double's two (low word first, unpackDouble2x32's order); df the bits
 *    of two fp32s, hi = (float)x and lo = (float)(x - hi) (about 48
 *    significant bits; a double-float is an unevaluated sum hi + lo);
 *    dd four, the words of two doubles hi and lo (hi + lo, lo at most half
 *    an ulp of hi; inputs that are doubles have lo = 0).
 *  - gen_wide_value() turns a double-double (hi, lo) into those words;
 *    gen_wide_read() a value's words back into a double-double (f64: lo
 *    0; df: hi + lo as doubles, exact; dd: as stored).
 *  - Packing follows gen.h's geometry with values for channels: texel
 *    (x, y) holds value i*c + j at words (i*c + j) * words; a texel is
 *    gen_wide_texel_words() words (2: RG32UI, 4: RGBA32UI), the channels
 *    past the values zero.  gen_wide_pack_a / _b fill A's or B's texture
 *    from op(A) / op(B) of a row-major double matrix, zero in the padding;
 *    gen_wide_pack_c0 each target's first running sums (beta*C0, or zero
 *    when beta == 0, C0 then unread); gen_wide_unpack_c reads C back into
 *    (hi, lo) pairs, dropping the padding.
 *  - gen_wide_invalid: the variants no card runs with a wide store, with
 *    one line saying why (the subset of gen.h's "store=f64, dd, df"). */
#ifndef GLGEMM_GEN_WIDE_H
#define GLGEMM_GEN_WIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"

/* 32-bit words a value of store s holds (2 or 4; 1 for fp32 stores). */
int gen_wide_words(gg_store s);
/* Words a texel of the layout holds under s: 2 or 4. */
int gen_wide_texel_words(const gg_layout *L, gg_store s);

bool gen_wide_invalid(const gg_variant *v, char *why, size_t whylen);

/* The k loop's arithmetic of store s in operations of the multiply-add
 * unit (an fma, addition, subtraction or multiplication each; double for
 * f64 and dd, float for df): *per_mad for each scalar multiply-add, and
 * *per_value for each value of A or B fetched.  f64: 1 (fma(a, b, acc)) and
 * 0.  df and dd: acc = w_add(acc, w_mul(a, b)) (gen/eft.h's counts):
 * w_add 20 + w_mul 24 less its two splits (8) = 36 a multiply-add, and a
 * split (4) a value, which a compiler computes once for all the products a
 * value enters.  The least work the text asks for (the opaque guard's
 * multiplies of profiles without `precise` not counted), so a time from it
 * is a lower bound.  Other stores: 1 and 0. */
void gen_wide_mad_ops(gg_store s, int *per_mad, int *per_value);

void gen_wide_value(gg_store s, double hi, double lo, uint32_t *w);
void gen_wide_read(gg_store s, const uint32_t *w, double *hi, double *lo);

/* A stored row-major double matrix and its op (gen/pack.h's gg_src). */
typedef struct {
    const double *data;
    int ld;
    bool trans;
} gg_src64;

size_t gen_wide_a_words(const gg_layout *L, gg_store s);
size_t gen_wide_b_words(const gg_layout *L, gg_store s);
size_t gen_wide_target_words(const gg_layout *L, gg_store s);
void gen_wide_pack_a(const gg_layout *L, gg_store s, gg_src64 a, uint32_t *out);
void gen_wide_pack_b(const gg_layout *L, gg_store s, gg_src64 b, uint32_t *out);
/* targets[t], t < L->targets, gen_wide_target_words words each; c0 m x n
 * with row stride ldc, read only when beta != 0 (beta*C0 exactly, as a
 * double-double: dd keeps both halves, f64 and df round it). */
void gen_wide_pack_c0(const gg_layout *L, gg_store s, const double *c0, int ldc, double beta,
                      uint32_t *const *targets);
/* C[i][j] = hi[i*ldc + j] + lo[i*ldc + j] for the valid i < L->m, j < L->n. */
void gen_wide_unpack_c(const gg_layout *L, gg_store s, const uint32_t *const *targets,
                       double *hi, double *lo, int ldc);

#endif
