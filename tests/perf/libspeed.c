/* How fast the library is to call: the figures of the drop-in BLAS issue.
 *   build/libspeed [SIZE [CALLS [PAIRS]]]     (default 256, 20, 0)
 * Opens a context, then calls glgemm_sgemm on SIZE^3 row-major problems
 * with new random inputs each call: the first call (no program in the
 * process yet: the disk cache's or the compiler's cost), then CALLS more.
 * Prints the open time, the first call, the median of the repeated calls
 * and their GFLOP/s, for the verification level of GLGEMM_VERIFY (default
 * check).  Compare with `glgemm run VARIANT --size SIZE` of the variant it
 * names; or, with PAIRS, in this process: PAIRS rounds of 5 library calls
 * (new inputs each) then bench's measure of their kernel on the same
 * context (lib/inspect.h lib_inspect_kernel_s, median of 5 timed runs), so
 * both sides of each round's ratio (the kernel's time over the calls'
 * median) see the machine at the same speed; prints the medians of the
 * calls, of the kernels and of the rounds' ratios.  (One call a round
 * measured 10% slower on an H100 than a run of calls: the kernel's runs in
 * between cost the next call.)  Not a
 * test: figures, never asserted. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glgemm.h"
#include "lib/inspect.h"

#define ROUND_CALLS 5 /* library calls a round (PAIRS) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* New inputs in [-0.5, 0.5). */
static void fill(float *a, float *b, size_t n, unsigned *seed)
{
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        a[i] = (float)((*seed >> 16) & 0x7fff) / 32768.0f - 0.5f;
        b[i] = (float)((*seed >> 8) & 0x7fff) / 32768.0f - 0.5f;
    }
}

/* One SIZE^3 row-major call on new inputs: its status, *dt its seconds. */
static int timed_call(glgemm_context *g, int s, float *a, float *b, float *c, size_t n,
                      unsigned *seed, double *dt)
{
    fill(a, b, n, seed);
    double c0 = now();
    int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, s, s, s, 1.0f, a,
                          s, b, s, 0.0f, c, s);
    *dt = now() - c0;
    return rc;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int s = argc > 1 ? atoi(argv[1]) : 256;
    int calls = argc > 2 ? atoi(argv[2]) : 20;
    int pairs = argc > 3 ? atoi(argv[3]) : 0;
    if (s < 1 || s > 16384 || calls < 1 || calls > 100000 || pairs < 0 || pairs > 100000) {
        fprintf(stderr, "usage: libspeed [SIZE 1..16384 [CALLS 1..100000 [PAIRS 0..100000]]]\n");
        return 2;
    }
    size_t n = (size_t)s * (size_t)s;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double *t = malloc((size_t)calls * sizeof *t);
    double *parts = malloc((size_t)calls * 5 * sizeof *parts);
    double *pt = malloc((size_t)(3 * pairs + 1) * sizeof *pt); /* call, kernel, ratio */
    if (!a || !b || !c || !t || !parts || !pt)
        return 1;
    double t0 = now();
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        fprintf(stderr, "libspeed: %s\n", glgemm_last_error());
        return 3;
    }
    double open_s = now() - t0;
    unsigned seed = 1;
    double first = 0, fparts[5] = {0};
    for (int r = -1; r < calls; r++) {
        double dt;
        int rc = timed_call(g, s, a, b, c, n, &seed, &dt);
        if (rc) {
            fprintf(stderr, "libspeed: %s: %s\n", glgemm_strerror(rc), glgemm_last_error());
            return 1;
        }
        glgemm_timing tm;
        glgemm_last_timing(g, &tm);
        double v5[5] = {tm.upload_s, tm.run_s, tm.readback_s, tm.verify_s, dt - tm.total_s};
        if (r < 0) {
            first = dt;
            memcpy(fparts, v5, sizeof v5);
        } else {
            t[r] = dt;
            for (int q = 0; q < 5; q++)
                parts[q * calls + r] = v5[q];
        }
    }
    qsort(t, (size_t)calls, sizeof *t, cmp);
    double med = t[calls / 2];
    const char *v = getenv("GLGEMM_VERIFY");
    printf("card: %s\nsize: %d^3, verify=%s\nroute: %s\n", glgemm_card(g), s, v && *v ? v : "check",
           glgemm_last_route(g));
    printf("open: %.3f s\nfirst call: %.4f s (%.2fx a repeated call)\n", open_s, first,
           first / med);
    printf("repeated calls: median %.4f s of %d (min %.4f, max %.4f): %.2f GFLOP/s\n", med, calls,
           t[0], t[calls - 1], 2.0 * s * (double)s * s / med / 1e9);
    static const char *names[5] = {"pack+upload", "draws", "read-back+unpack", "verify",
                                    "outside the GPU run (checks, choice, copies)"};
    printf("first call, parts:");
    for (int q = 0; q < 5; q++)
        printf("%s %s %.4f s", q ? "," : "", names[q], fparts[q]);
    printf("\n");
    printf("repeated calls, medians:");
    for (int q = 0; q < 5; q++) {
        qsort(parts + q * calls, (size_t)calls, sizeof *parts, cmp);
        printf("%s %s %.4f s", q ? "," : "", names[q], parts[q * calls + calls / 2]);
    }
    printf("\n");
    double flop = 2.0 * s * (double)s * s;
    for (int r = 0; r < pairs; r++) {
        double round[ROUND_CALLS];
        for (int q = 0; q < ROUND_CALLS; q++) {
            if (timed_call(g, s, a, b, c, n, &seed, &round[q])) {
                fprintf(stderr, "libspeed: round %d: %s\n", r, glgemm_last_error());
                return 1;
            }
        }
        qsort(round, ROUND_CALLS, sizeof *round, cmp);
        double ks = lib_inspect_kernel_s(g, s, s, s, a, b, 5);
        if (ks <= 0) {
            fprintf(stderr, "libspeed: round %d: %s\n", r, glgemm_last_error());
            return 1;
        }
        pt[r] = round[ROUND_CALLS / 2];
        pt[pairs + r] = ks;
        pt[2 * pairs + r] = ks / pt[r];
    }
    if (pairs > 0) {
        for (int q = 0; q < 3; q++)
            qsort(pt + q * pairs, (size_t)pairs, sizeof *pt, cmp);
        double mc = pt[pairs / 2], mk = pt[pairs + pairs / 2];
        printf("rounds: %d of %d calls then their kernel (bench's measure, same context): calls "
               "median %.4f s (%.2f GFLOP/s), kernel median %.4f s (%.2f GFLOP/s); call / kernel "
               "rate, median of the rounds %.3f (min %.3f, max %.3f)\n",
               pairs, ROUND_CALLS, mc, flop / mc / 1e9, mk, flop / mk / 1e9,
               pt[2 * pairs + pairs / 2], pt[2 * pairs], pt[3 * pairs - 1]);
    }
    glgemm_close(g);
    free(a);
    free(b);
    free(c);
    free(t);
    free(parts);
    free(pt);
    return 0;
}
