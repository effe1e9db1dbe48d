/* base/clock: the one clock and the statistics of timed repetitions, for
 * every layer above gen/ that measures.  No GL.
 *  - base_now_s(): CLOCK_MONOTONIC in seconds.
 *  - base_median(): the median of v[0..n) (n >= 1); sorts v in place; of an
 *    even count, the mean of the middle two.
 *  - base_spread(): (largest - smallest) / median of v[0..n) (n >= 1; 0 for
 *    one value or a median <= 0); sorts v in place. */
#ifndef GLGEMM_BASE_CLOCK_H
#define GLGEMM_BASE_CLOCK_H

double base_now_s(void);
double base_median(double *v, int n);
double base_spread(double *v, int n);

#endif
