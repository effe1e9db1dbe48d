/* The crossover measurement (eval/crossover.h), through the public
 * library itself: what a program calling glgemm_sgemm pays. */
#include "eval/crossover.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "gen/sbuf.h"
#include "base/clock.h"
#include "gen/util.h"
#include "glgemm.h"
#include "base/inputs.h"
#include "store/paths.h"
#include "store/records.h"

static double median_call(glgemm_context *g, bool gpu, int s, const float *a, const float *b,
                          float *c, int reps, int *rc)
{
    double *t = malloc((size_t)reps * sizeof *t), med = 0;
    if (!t) {
        *rc = GLGEMM_ENOMEM;
        return 0;
    }
    for (int r = -1; r < reps && *rc == GLGEMM_OK; r++) {
        double t0 = base_now_s();
        if (gpu)
            *rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, s, s, s, 1.0f,
                               a, s, b, s, 0.0f, c, s);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s, s, s, 1.0f, a, s, b, s,
                        0.0f, c, s);
        if (r >= 0)
            t[r] = base_now_s() - t0;
    }
    if (*rc == GLGEMM_OK)
        med = base_median(t, reps);
    free(t);
    return med;
}

int eval_crossover_measure(const char *backend, int device, int max_size, int reps, gg_cross *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (max_size < 16 || reps < 1)
        return gen_fail(err, errlen, "crossover: largest size %d must be >= 16, reps %d >= 1",
                       max_size, reps);
    glgemm_context *g = glgemm_open(backend, device);
    if (!g) {
        gen_fail(err, errlen, "crossover: %s", glgemm_last_error());
        return -3;
    }
    glgemm_set_crossover(g, 0);
    snprintf(out->card, sizeof out->card, "%s", glgemm_card(g));
    int rc = GLGEMM_OK;
    for (int s = 16; s <= max_size && out->n < GG_CROSS_MAX && rc == GLGEMM_OK; s *= 2) {
        size_t n = (size_t)s * (size_t)s;
        float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        if (!a || !b || !c) {
            rc = GLGEMM_ENOMEM;
        } else {
            base_fill_uniform(a, n, (uint64_t)s, 0);
            base_fill_uniform(b, n, (uint64_t)s, 1);
            double gs = median_call(g, true, s, a, b, c, reps, &rc);
            snprintf(out->route, sizeof out->route, "%s", glgemm_last_route(g));
            double cs = median_call(g, false, s, a, b, c, reps, &rc);
            out->pt[out->n].size = s;
            out->pt[out->n].gpu_s = gs;
            out->pt[out->n].cpu_s = cs;
            out->n++;
        }
        free(a);
        free(b);
        free(c);
    }
    if (rc != GLGEMM_OK) {
        gen_fail(err, errlen, "crossover: %s: %s", glgemm_strerror(rc), glgemm_last_error());
        glgemm_close(g);
        return -1;
    }
    glgemm_close(g);
    out->crossover = 2L * out->pt[out->n - 1].size;
    for (int i = out->n - 1; i >= 0 && out->pt[i].gpu_s < out->pt[i].cpu_s; i--)
        out->crossover = out->pt[i].size;
    return 0;
}

int eval_crossover_write(const char *dir, const gg_cross *c, char *path, size_t pathlen, char *err,
                       size_t errlen)
{
    char folder[1024];
    store_card_dir(folder, sizeof folder, dir, c->card);
    store_crossover_path(path, pathlen, dir, c->card);
    gg_sbuf b;
    gen_sb_init(&b);
    gen_sb_printf(&b, "# glgemm bench --crossover: one glgemm_sgemm call (transfers and the\n"
                       "# default verification included) against the CPU BLAS, medians, square\n"
                       "# sizes; calls whose m*n*k is below crossover^3 go to the CPU BLAS.\n"
                       "# GPU route at the largest size: %s\n"
                       "size,gpu_s,cpu_s\n",
                   c->route);
    for (int i = 0; i < c->n; i++)
        gen_sb_printf(&b, "%d,%.6g,%.6g\n", c->pt[i].size, c->pt[i].gpu_s, c->pt[i].cpu_s);
    char line[64];
    gen_sb_printf(&b, "%s", store_crossover_line(line, sizeof line, c->crossover));
    size_t len = b.len;
    char *text = gen_sb_finish(&b);
    int rc = -1;
    if (!text)
        gen_fail(err, errlen, "crossover: out of memory");
    else if (!base_mkdirs(folder, err, errlen))
        rc = base_write_atomic(path, text, len, err, errlen);
    free(text);
    return rc;
}
