/* eval/crossover: where the library's calls start paying off on the GPU.
 * Times glgemm_sgemm (glgemm.h: uploads, read-back and its default
 * verification included, crossover off) against the CPU BLAS (cblas_sgemm)
 * on square problems of 16, 32, ... up to a largest size, and writes the
 * size from which the GPU call is faster as the card's crossover record,
 * DIR/<card>/crossover.txt, which glgemm_open reads ("crossover: N").
 *
 * Contract:
 *  - Each size: new uniform inputs, one call of each to warm up (the GPU's
 *    program is built there), then reps calls of each, medians compared.
 *  - The crossover is the smallest measured size from which the GPU call
 *    is faster at that size and every larger measured one; when the GPU
 *    wins at no measured size it is twice the largest (every measured size
 *    goes to the CPU).
 *  - A GPU call that fails ends the measurement: -1 with one line in err;
 *    no context: -3. */
#ifndef GLGEMM_CROSSOVER_H
#define GLGEMM_CROSSOVER_H

#include <stddef.h>

#define GG_CROSS_MAX 16

typedef struct {
    int n;
    struct {
        int size;
        double gpu_s, cpu_s; /* medians of one call */
    } pt[GG_CROSS_MAX];
    long crossover;
    char card[64];
    char route[256]; /* the largest size's GPU route (glgemm_last_route) */
} gg_cross;

/* backend NULL: EGL.  max_size >= 16; reps >= 1.  0, or -1 / -3 with err. */
int eval_crossover_measure(const char *backend, int device, int max_size, int reps, gg_cross *out,
                         char *err, size_t errlen);

/* DIR/<card>/crossover.txt, atomically: comment lines, the table as
 * "size,gpu_s,cpu_s" rows, and "crossover: N".  0, or -1 with err. */
int eval_crossover_write(const char *dir, const gg_cross *c, char *path, size_t pathlen, char *err,
                       size_t errlen);

#endif
