/* The clock and the statistics of repetitions: see clock.h. */
#include "base/clock.h"

#include <stdlib.h>
#include <time.h>

double base_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double base_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double base_spread(double *v, int n)
{
    double med = base_median(v, n);
    return n > 1 && med > 0 ? (v[n - 1] - v[0]) / med : 0;
}
