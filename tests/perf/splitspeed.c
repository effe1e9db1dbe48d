/* How much a call gains from several devices (issue 32's library part).
 *   build/splitspeed [SIZE|MxNxK [ONE [LIST [ROUNDS]]]]   (default 4096 0 0,1 5)
 * Opens a one-device context on device ONE and a context over the devices
 * of LIST (glgemm_open_devices; GLGEMM_SPLIT_TILES and GLGEMM_SPLIT_MIN as
 * the environment says), makes row-major A (M x K) and B (K x N) uniform in
 * [-1, 1], and calls glgemm_sgemm (alpha 1, beta 0) on each: a first call
 * each (not timed: programs, textures), then ROUNDS rounds of one call each,
 * the two in turns (which goes first alternates), so both see the machine
 * at the same speed.  Every call is checked by the library (GLGEMM_VERIFY,
 * default check) and here: 256 elements of C against a double-precision dot
 * product, within the error bound k 2^-23 S; a call that fails, a wrong
 * element, or a device retired by the context of LIST exits 1.  Prints each
 * context's median, min and max seconds and GFLOP/s (2 M N K / median), its
 * route, the tiles of the last call by device, and the ratio of the two
 * rates.  Not a test: figures, never asserted. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glgemm.h"
#include "lib/env.h"
#include "lib/inspect.h"

#define SAMPLES 256

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* SAMPLES elements of C (M x N, row-major) against double dot products:
 * how many lie outside the bound. */
static int sample_wrong(const float *a, const float *b, const float *c, int m, int n, int k)
{
    unsigned s = 12345u;
    int bad = 0;
    for (int q = 0; q < SAMPLES; q++) {
        s = s * 1103515245u + 12345u;
        int i = (int)((s >> 8) % (unsigned)m);
        s = s * 1103515245u + 12345u;
        int j = (int)((s >> 8) % (unsigned)n);
        double r = 0, sc = 0;
        for (int p = 0; p < k; p++) {
            double x = (double)a[(size_t)i * k + p] * b[(size_t)p * n + j];
            r += x;
            sc += fabs(x);
        }
        double e = fabs(c[(size_t)i * n + j] - r);
        bad += !(e <= k * ldexp(1, -23) * sc + 1e-30);
    }
    return bad;
}

typedef struct {
    const char *name;
    glgemm_context *g;
    float *c;
    double *t;
} side;

/* One timed call; 0, or 1 with a line on stderr. */
static int one_call(side *sd, int round, int m, int n, int k, const float *a, const float *b)
{
    double t0 = now();
    int rc = glgemm_sgemm(sd->g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, m, n, k, 1.0f,
                          a, k, b, n, 0.0f, sd->c, n);
    double dt = now() - t0;
    if (rc) {
        fprintf(stderr, "splitspeed: %s: %s: %s\n", sd->name, glgemm_strerror(rc),
                glgemm_last_error());
        return 1;
    }
    int bad = sample_wrong(a, b, sd->c, m, n, k);
    if (bad) {
        fprintf(stderr, "splitspeed: %s: %d of %d sampled elements wrong (%s)\n", sd->name, bad,
                SAMPLES, glgemm_last_route(sd->g));
        return 1;
    }
    if (round >= 0)
        sd->t[round] = dt;
    return 0;
}

static double report(side *sd, int rounds, double flop)
{
    qsort(sd->t, (size_t)rounds, sizeof *sd->t, cmp);
    double med = sd->t[rounds / 2];
    printf("%s: median %.4f s (min %.4f, max %.4f) of %d: %.2f GFLOP/s\n  route: %s\n", sd->name,
           med, sd->t[0], sd->t[rounds - 1], rounds, flop / med / 1e9, glgemm_last_route(sd->g));
    return flop / med / 1e9;
}

int main(int argc, char **argv)
{
    int m = 4096, n = 4096, k = 4096, one = 0, rounds = 5;
    const char *list_text = argc > 3 ? argv[3] : "0,1";
    if (argc > 1 && sscanf(argv[1], "%dx%dx%d", &m, &n, &k) != 3) {
        m = n = k = atoi(argv[1]);
    }
    if (argc > 2)
        one = atoi(argv[2]);
    if (argc > 4)
        rounds = atoi(argv[4]);
    int list[GLGEMM_MAX_DEVICES], nl = 0;
    char err[300];
    if (m < 1 || n < 1 || k < 1 || m > 65536 || n > 65536 || k > 65536 || one < 0 ||
        rounds < 1 || rounds > 1000 || lib_env_devices(list_text, list, &nl, err, sizeof err) ||
        nl < 1) {
        fprintf(stderr, "usage: splitspeed [SIZE|MxNxK [ONE [LIST [ROUNDS]]]]   e.g. splitspeed "
                        "8192 0 0,1 5 (LIST: device indices joined by commas)\n");
        return 2;
    }
    size_t la = (size_t)m * k, lb = (size_t)k * n, lc = (size_t)m * n;
    float *a = malloc(la * sizeof *a), *b = malloc(lb * sizeof *b);
    side sd[2] = {{"one device", NULL, malloc(lc * sizeof(float)), calloc((size_t)rounds, sizeof(double))},
                  {"devices", NULL, malloc(lc * sizeof(float)), calloc((size_t)rounds, sizeof(double))}};
    if (!a || !b || !sd[0].c || !sd[1].c || !sd[0].t || !sd[1].t) {
        fprintf(stderr, "splitspeed: out of memory\n");
        return 1;
    }
    unsigned s = 1;
    for (size_t i = 0; i < la || i < lb; i++) {
        s = s * 1103515245u + 12345u;
        if (i < la)
            a[i] = (float)((s >> 9) & 0xffff) / 32768.0f - 1.0f;
        s = s * 1103515245u + 12345u;
        if (i < lb)
            b[i] = (float)((s >> 9) & 0xffff) / 32768.0f - 1.0f;
    }
    char names[2][120];
    snprintf(names[0], sizeof names[0], "device %d", one);
    snprintf(names[1], sizeof names[1], "devices %s", list_text);
    sd[0].name = names[0];
    sd[1].name = names[1];
    sd[0].g = glgemm_open_devices(NULL, &one, 1);
    sd[1].g = sd[0].g ? glgemm_open_devices(NULL, list, nl) : NULL;
    if (!sd[0].g || !sd[1].g) {
        fprintf(stderr, "splitspeed: %s\n", glgemm_last_error());
        return 3;
    }
    const char *v = getenv("GLGEMM_VERIFY");
    printf("splitspeed: %dx%dx%d on %s, then on %s; card %s; verify=%s and %d sampled elements "
           "a call; %d rounds after a first call each\n",
           m, n, k, names[0], names[1], glgemm_card(sd[0].g), v && *v ? v : "check", SAMPLES,
           rounds);
    int bad = one_call(&sd[0], -1, m, n, k, a, b) || one_call(&sd[1], -1, m, n, k, a, b);
    for (int r = 0; r < rounds && !bad; r++)
        for (int q = 0; q < 2 && !bad; q++)
            bad = one_call(&sd[(q + r) % 2], r, m, n, k, a, b);
    if (!bad && lib_inspect_split_live(sd[1].g) < nl && nl > 1) {
        fprintf(stderr, "splitspeed: %s: a device was retired (%d of %d in service)\n", names[1],
                lib_inspect_split_live(sd[1].g), nl);
        bad = 1;
    }
    if (bad)
        return 1;
    double flop = 2.0 * m * (double)n * k;
    double r0 = report(&sd[0], rounds, flop), r1 = report(&sd[1], rounds, flop);
    printf("  tiles of the last call:");
    for (int i = 0; i < nl; i++)
        printf(" device %d: %ld,", list[i], lib_inspect_split_tiles(sd[1].g, i));
    printf(" cpu: %ld\n", lib_inspect_split_tiles(sd[1].g, -1));
    printf("ratio: %.3f (%s over %s, GFLOP/s of the medians)\n", r1 / r0, names[1], names[0]);
    glgemm_close(sd[1].g);
    glgemm_close(sd[0].g);
    free(a);
    free(b);
    for (int i = 0; i < 2; i++) {
        free(sd[i].c);
        free(sd[i].t);
    }
    return 0;
}
