/* gen/half: IEEE 754 binary16 ("half float") conversions, done on the host so
 * that store=f16 never depends on a driver's conversion (its rounding is not
 * specified).  No GL, only the C library.
 *  - gen_float_to_half(): round to nearest, ties to even; magnitudes that
 *    round past 65504 become +-inf (65520 and up); results below 2^-14 are
 *    subnormal halves (multiples of 2^-24), below 2^-25 (and 2^-25 itself,
 *    a tie to even) zero, keeping the sign; NaN stays NaN (quiet), inf inf.
 *  - gen_half_to_float(): exact (every half is a float).
 *  - gen_half_round(): x as a half sees it, back as a float: the value the
 *    GPU samples from a half texture holding x. */
#ifndef GLGEMM_GEN_HALF_H
#define GLGEMM_GEN_HALF_H

#include <stddef.h>
#include <stdint.h>

uint16_t gen_float_to_half(float f);
float gen_half_to_float(uint16_t h);
float gen_half_round(float f);
/* dst[i] = gen_float_to_half(src[i]) for i < n. */
void gen_floats_to_halves(uint16_t *dst, const float *src, size_t n);

#endif
