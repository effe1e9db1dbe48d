/* gen/util: the two helpers of the bottom layer that every layer shares.
 * Only the C library.
 *  - gen_fail(): formats one line into err (when err and n allow) and returns
 *    -1, so a check reads `return gen_fail(err, n, "...", ...);`.
 *  - gen_splitmix64(): the next number of Vigna's splitmix64 sequence; the
 *    same sequence everywhere for a starting state (inputs, samples, seeds).
 * The clock and the statistics of repetitions are base/clock.h. */
#ifndef GLGEMM_GEN_UTIL_H
#define GLGEMM_GEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

int gen_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t gen_splitmix64(uint64_t *state);

#endif
