/* gen/util: small helpers every layer shares (gen/, glhost/, search/, cli/).
 * No GL, no variants: only the C library, so the bottom layer can hold them.
 *  - gg_fail(): formats one line into err (when err and n allow) and returns
 *    -1, so a check reads `return gg_fail(err, n, "...", ...);`.
 *  - gg_now_s(): CLOCK_MONOTONIC in seconds.
 *  - gg_median(): the median of v[0..n) (n >= 1); sorts v in place; of an
 *    even count, the mean of the middle two.
 *  - gg_spread(): (largest - smallest) / median of v[0..n) (n >= 1; 0 for
 *    one value or a median <= 0); sorts v in place.
 *  - gg_splitmix64(): the next number of Vigna's splitmix64 sequence; the
 *    same sequence everywhere for a starting state (inputs, samples, seeds). */
#ifndef GLGEMM_GEN_UTIL_H
#define GLGEMM_GEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

int gg_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double gg_now_s(void);
double gg_median(double *v, int n);
double gg_spread(double *v, int n);
uint64_t gg_splitmix64(uint64_t *state);

#endif
