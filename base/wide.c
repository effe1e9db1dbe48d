/* The wide stores' inputs as doubles (base/wide.h). */
#include "base/wide.h"

#include <stdlib.h>
#include <string.h>

#include "gen/util.h"

/* count doubles: src widened, plus (seeded) u * 2^-53 for u < 2^30 from
 * stream `stream` of seed. */
static double *widen(const float *src, size_t count, bool seeded, unsigned seed, unsigned stream)
{
    double *d = malloc((count ? count : 1) * sizeof *d);
    if (!d)
        return NULL;
    uint64_t st = (uint64_t)seed ^ ((uint64_t)(stream + 1) << 56);
    for (size_t i = 0; i < count; i++) {
        d[i] = src[i];
        if (seeded)
            d[i] += (double)(gen_splitmix64(&st) >> 34) * 0x1p-53;
    }
    return d;
}

int base_wide_inputs(const gg_inputs *in, gg_wide_inputs *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    if (in->a64 && in->b64 && (in->c064 || !in->c0)) {
        w->a = (double *)in->a64;
        w->b = (double *)in->b64;
        w->c0 = (double *)in->c064;
        return 0;
    }
    w->own = true;
    size_t mk = (size_t)in->m * in->k, kn = (size_t)in->k * in->n, mn = (size_t)in->m * in->n;
    w->a = widen(in->a, mk, in->seeded, in->seed, 3);
    w->b = widen(in->b, kn, in->seeded, in->seed, 4);
    w->c0 = in->c0 ? widen(in->c0, mn, in->seeded, in->seed, 5) : NULL;
    if (!w->a || !w->b || (in->c0 && !w->c0)) {
        base_wide_inputs_free(w);
        return gen_fail(err, errlen, "out of memory for the %dx%dx%d inputs as doubles", in->m,
                       in->n, in->k);
    }
    return 0;
}

void base_wide_inputs_free(gg_wide_inputs *w)
{
    if (w->own) {
        free(w->a);
        free(w->b);
        free(w->c0);
    }
    memset(w, 0, sizeof *w);
}
