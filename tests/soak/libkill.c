/* The library program of the kill -9 soak (tests/soak/kill9.sh): calls
 * glgemm_sgemm_variant through a list of variants on small odd problems,
 * each one new to the program cache in this run (the sizes follow SEED), so
 * that nearly every call compiles and writes a cache entry, and every few
 * calls one of the previous run's problems again (its entries read back,
 * whatever a kill left of them).  Every result is checked here against a
 * double-precision reference with SPEC's bound, besides the library's own
 * check.  Prints one line per call ("ok ..." or "FAIL ..."), then
 * "done N calls".  Exit 0 when every call was right, 1 otherwise, 2 usage.
 *   libkill SEED [CALLS]   (CALLS default 24) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glgemm.h"

static const char *const variants[] = {
    "larsen",
    "nv-multi",
    "tfjs",
    "mrt=2x2,mc=1x4,np=2,profile=330",
    "mrt=1x2,mc=2x2,np=all,profile=300es,acc=blend",
    "acc=copy,profile=120",
    "mrt=1x1,mc=1x4,np=all,profile=430,out=image,blk=8x8",
    "mrt=1x1,mc=2x2,np=all,profile=330,compiler=spirv",
};
#define NV ((int)(sizeof variants / sizeof *variants))

static unsigned long long rng_state;
static float uniform(void) /* [-1, 1) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* The problem of call i of the run with this seed. */
static void shape(long seed, int i, int *m, int *n, int *k)
{
    unsigned long long h = (unsigned long long)seed * 1000003ull + (unsigned long long)i * 7919ull;
    *m = 5 + (int)(h % 37);
    *n = 5 + (int)(h / 37 % 41);
    *k = 3 + (int)(h / 1517 % 29);
}

/* One call, checked; 0 right, 1 wrong or failed. */
static int one(glgemm_context *g, const char *variant, int m, int n, int k, int trans, float beta)
{
    int lda = trans ? m : k; /* row-major: A m x k, or k x m when transposed */
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c);
    float *c0 = malloc(nc * sizeof *c0);
    if (!a || !b || !c || !c0) {
        printf("FAIL out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < na; i++)
        a[i] = uniform();
    for (size_t i = 0; i < nb; i++)
        b[i] = uniform();
    for (size_t i = 0; i < nc; i++)
        c[i] = c0[i] = uniform();
    int rc = glgemm_sgemm_variant(g, variant, GLGEMM_ROW_MAJOR, trans ? GLGEMM_TRANS : GLGEMM_NOTRANS,
                                  GLGEMM_NOTRANS, m, n, k, 1.0f, a, lda, b, n, beta, c, n);
    int bad = 0;
    double worst = 0;
    if (rc) {
        printf("FAIL %s %dx%dx%d: %s: %s\n", variant, m, n, k, glgemm_strerror(rc),
               glgemm_last_error());
        bad = 1;
    } else {
        for (int i = 0; i < m && !bad; i++)
            for (int j = 0; j < n; j++) {
                double r = beta * (double)c0[(size_t)i * n + j], s = fabs(beta * (double)c0[(size_t)i * n + j]);
                for (int p = 0; p < k; p++) {
                    double x = trans ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p];
                    double y = b[(size_t)p * n + j];
                    r += x * y;
                    s += fabs(x * y);
                }
                double got = c[(size_t)i * n + j], e = fabs(got - r) / (s > 0 ? s : 1);
                if (!isfinite(got) || e > k * ldexp(1.0, -23)) {
                    printf("FAIL %s %dx%dx%d: C[%d][%d] = %.9g, want %.9g (rel_err %.3g)\n", variant,
                           m, n, k, i, j, got, r, e);
                    bad = 1;
                    break;
                }
                worst = e > worst ? e : worst;
            }
        if (!bad)
            printf("ok %s %dx%dx%d rel_err %.3g (%s)\n", variant, m, n, k, worst,
                   glgemm_last_route(g));
    }
    fflush(stdout);
    free(a);
    free(b);
    free(c);
    free(c0);
    return bad;
}

int main(int argc, char **argv)
{
    long seed = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
    int calls = argc > 2 ? atoi(argv[2]) : 24;
    if (argc < 2 || argc > 3 || seed < 0 || calls < 1 || calls > 10000) {
        fprintf(stderr, "usage: libkill SEED [CALLS]\n");
        return 2;
    }
    rng_state = (unsigned long long)seed + 1;
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        printf("FAIL glgemm_open: %s\n", glgemm_last_error());
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < calls; i++) {
        int m, n, k;
        /* Every fourth call: the previous run's problem of this call (its
         * cache entry as the kill left it); else a new one (the SPIR-V
         * variant's calls among them: glslangValidator runs every time). */
        shape(i % 4 == 1 && seed > 0 ? seed - 1 : seed, i, &m, &n, &k);
        bad |= one(g, variants[i % NV], m, n, k, i % 2, i % 3 == 0 ? 0.5f : 0.0f);
    }
    glgemm_close(g);
    printf("done %d calls\n", calls);
    return bad;
}
