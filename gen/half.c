/* Half-float conversions: see half.h. */
#include "gen/half.h"

#include <string.h>

uint16_t gen_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xffu) /* inf, or NaN with its top payload bits and the quiet bit */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15; /* the half's biased exponent */
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) /* below 2^-25 (float subnormals included): zero */
            return sign;
        /* Subnormal half: units of 2^-24; the 24-bit significand shifted. */
        man |= 0x800000u;
        int shift = 14 - e; /* 14 .. 24 */
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), tie = 1u << (shift - 1);
        if (rem > tie || (rem == tie && (h & 1u)))
            h++; /* 0x400 is the smallest normal: the encoding carries over */
        return (uint16_t)(sign | h);
    }
    uint32_t h = (uint32_t)e << 10 | man >> 13, rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is right; past 65504 it gives 0x7c00, inf */
    return (uint16_t)(sign | h);
}

float gen_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = (float)m * 0x1p-24f; /* zero or subnormal: exact */
        return sign ? -f : f;
    }
    if (e == 31)
        x = sign | 0x7f800000u | m << 13;
    else
        x = sign | (e - 15 + 127) << 23 | m << 13;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

float gen_half_round(float f) { return gen_half_to_float(gen_float_to_half(f)); }

void gen_floats_to_halves(uint16_t *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = gen_float_to_half(src[i]);
}
