/* The CPU BLAS timing helper: see cpublas.h. */
#include "base/cpublas.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/wide.h"

static void all_cores(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    openblas_set_num_threads(cpus > 0 ? (int)cpus : 1);
}

int base_cpu_threads(void)
{
    return openblas_get_num_threads();
}

/* The figures of a timed CPU call: the median of its reps and the
 * verdict (what names the routine in a wrong result's detail). */
static void judged(gg_measurement *out, const gg_inputs *in, double *t, int reps,
                   const gg_verdict *vd, const char *what)
{
    out->seconds = base_median(t, reps);
    out->passes = 0;
    out->rel_err = vd->rel_err;
    if (!vd->pass) {
        out->status = GG_WRONG_RESULT;
        snprintf(out->detail, sizeof out->detail, "%s: %s", what, vd->detail);
    } else if (out->seconds > 0) {
        out->gflops = 2.0 * in->m * (double)in->n * in->k / out->seconds / 1e9;
    }
}

int base_cpu_sgemm(const gg_problem *p, const gg_inputs *in, const gg_reference *ref,
                 gg_measurement *out, char *err, size_t errlen)
{
    base_measurement_init(out);
    int reps = p->reps > 0 ? p->reps : 1;
    size_t mn = (size_t)in->m * (size_t)in->n;
    float *c = malloc(mn * sizeof *c);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!c || !t) {
        free(c);
        free(t);
        snprintf(err, errlen, "out of memory for the CPU BLAS result (%dx%d)", in->m, in->n);
        return -1;
    }
    all_cores();
    bool beta0 = p->beta == 0.0f;
    for (int r = -1; r < reps; r++) {
        if (beta0)
            memset(c, 0, mn * sizeof *c); /* BLAS does not read C when beta is 0 */
        else
            memcpy(c, in->c0, mn * sizeof *c);
        double t0 = base_now_s();
        cblas_sgemm(CblasRowMajor, in->transa ? CblasTrans : CblasNoTrans,
                    in->transb ? CblasTrans : CblasNoTrans, in->m, in->n, in->k, p->alpha, in->a,
                    in->lda, in->b, in->ldb, p->beta, c, in->n);
        double dt = base_now_s() - t0;
        if (r >= 0)
            t[r] = dt;
    }
    gg_verdict vd;
    base_verify(ref, c, &vd);
    judged(out, in, t, reps, &vd, "CPU BLAS");
    free(c);
    free(t);
    return 0;
}

int base_cpu_dgemm(const gg_problem *p, const gg_inputs *in, const gg_reference *ref,
                   gg_measurement *out, char *err, size_t errlen)
{
    base_measurement_init(out);
    int reps = p->reps > 0 ? p->reps : 1;
    size_t mn = (size_t)in->m * (size_t)in->n;
    gg_wide_inputs w;
    if (base_wide_inputs(in, &w, err, errlen))
        return -1;
    double *c = malloc(mn * sizeof *c), *lo = calloc(mn, sizeof *lo);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!c || !lo || !t) {
        free(c);
        free(lo);
        free(t);
        base_wide_inputs_free(&w);
        snprintf(err, errlen, "out of memory for the CPU BLAS result (%dx%d)", in->m, in->n);
        return -1;
    }
    all_cores();
    bool beta0 = p->beta == 0.0f || !w.c0;
    for (int r = -1; r < reps; r++) {
        if (beta0)
            memset(c, 0, mn * sizeof *c);
        else
            memcpy(c, w.c0, mn * sizeof *c);
        double t0 = base_now_s();
        cblas_dgemm(CblasRowMajor, in->transa ? CblasTrans : CblasNoTrans,
                    in->transb ? CblasTrans : CblasNoTrans, in->m, in->n, in->k, p->alpha, w.a,
                    in->lda, w.b, in->ldb, beta0 ? 0.0 : p->beta, c, in->n);
        double dt = base_now_s() - t0;
        if (r >= 0)
            t[r] = dt;
    }
    gg_verdict vd;
    base_wide_verify(ref, c, lo, &vd);
    judged(out, in, t, reps, &vd, "CPU BLAS dgemm");
    free(c);
    free(lo);
    free(t);
    base_wide_inputs_free(&w);
    return 0;
}

char *base_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10))
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        colon += strspn(colon, " \t");
        colon[strcspn(colon, "\r\n")] = '\0';
        if (*colon)
            snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
    return buf;
}
