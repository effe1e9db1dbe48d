/* The wide stores' reference carried past double, and its verdict
 * (base/wide.h). */
#include "base/wide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/pool.h"
#include "gen/util.h"

/* A double-double: hi + lo, |lo| <= half an ulp of hi. */
typedef struct {
    double hi, lo;
} dd;

static dd two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

static dd quick(double a, double b)
{
    double s = a + b;
    return (dd){s, b - (s - a)};
}

/* The accurate double-double sum (QD's ieee_add). */
static dd dd_add(dd a, dd b)
{
    dd s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s = quick(s.hi, s.lo + t.hi);
    return quick(s.hi, s.lo + t.lo);
}

static dd two_prod(double a, double b)
{
    double p = a * b;
    return (dd){p, fma(a, b, -p)};
}

static dd dd_mul_d(dd a, double b)
{
    dd p = two_prod(a.hi, b);
    return quick(p.hi, p.lo + a.lo * b);
}

static double op_at(const double *x, int ld, bool trans, int i, int j)
{
    return trans ? x[(size_t)j * ld + i] : x[(size_t)i * ld + j];
}

/* alpha*sum + beta*c of one element, sum and the scale given. */
static void finish(gg_reference *ref, size_t at, dd sum, double scale, double alpha, double beta,
                   const double *c0)
{
    dd r = dd_mul_d(sum, alpha);
    double s = fabs(alpha) * scale;
    if (beta != 0.0) {
        dd t = two_prod(beta, c0[at]);
        r = dd_add(r, t);
        s += fabs(t.hi);
    }
    ref->r[at] = r.hi;
    ref->rlo[at] = r.lo;
    ref->s[at] = s;
}

/* One row i of op(A) op(B) into sum[j] (hi, lo) and scale[j], k in the
 * outer loop so that an untransposed B is read row by row: dd in binary128
 * where there is one (products of doubles are exact in its 113 bits),
 * else in double-double (TwoProduct by fma, the accurate sum). */
static void row_sums(const gg_inputs *in, const gg_wide_inputs *w, int i, bool quad, void *tmp,
                     dd *sum, double *scale)
{
    int n = in->n;
    for (int j = 0; j < n; j++) {
        sum[j] = (dd){0, 0};
        scale[j] = 0;
    }
#if defined(__SIZEOF_FLOAT128__)
    __float128 *q = tmp;
    if (quad)
        for (int j = 0; j < n; j++)
            q[j] = 0;
#endif
    for (int kk = 0; kk < in->k; kk++) {
        double a = op_at(w->a, in->lda, in->transa, i, kk);
        for (int j = 0; j < n; j++) {
            double b = op_at(w->b, in->ldb, in->transb, kk, j);
            scale[j] += fabs(a * b);
#if defined(__SIZEOF_FLOAT128__)
            if (quad) {
                q[j] += (__float128)a * (__float128)b;
                continue;
            }
#endif
            sum[j] = dd_add(sum[j], two_prod(a, b));
        }
    }
#if defined(__SIZEOF_FLOAT128__)
    if (quad)
        for (int j = 0; j < n; j++) {
            double hi = (double)q[j];
            sum[j] = (dd){hi, (double)(q[j] - (__float128)hi)};
        }
#else
    (void)quad;
    (void)tmp;
#endif
}

static void ref_free(gg_reference *ref)
{
    free(ref->r);
    free(ref->rlo);
    free(ref->s);
    memset(ref, 0, sizeof *ref);
}

/* The rows of the reference spread over a pool: task t takes rows t,
 * t + tasks, ...  Each task has its own row buffers (failed set when one
 * could not get them; the caller then says out of memory). */
typedef struct {
    const gg_inputs *in;
    const gg_wide_inputs *w;
    gg_reference *ref;
    double alpha, beta;
    bool quad;
    size_t qsize;
    int tasks;
    int failed;
} ref_job;

static void ref_rows(void *arg, int task)
{
    ref_job *j = arg;
    int n = j->in->n;
    dd *sum = malloc((size_t)n * sizeof *sum);
    double *scale = malloc((size_t)n * sizeof *scale);
    void *tmp = malloc((size_t)n * j->qsize);
    if (sum && scale && tmp) {
        for (int i = task; i < j->in->m; i += j->tasks) {
            row_sums(j->in, j->w, i, j->quad, tmp, sum, scale);
            for (int c = 0; c < n; c++)
                finish(j->ref, (size_t)i * n + c, sum[c], scale[c], j->alpha, j->beta, j->w->c0);
        }
    } else {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    }
    free(sum);
    free(scale);
    free(tmp);
}

int base_wide_reference(const gg_inputs *in, float alpha, float beta, gg_store store,
                        gg_reference *ref, char *err, size_t errlen)
{
    memset(ref, 0, sizeof *ref);
    if (beta != 0.0f && !in->c0 && !in->c064)
        return gen_fail(err, errlen, "internal: beta is %g but there is no C input", (double)beta);
    gg_wide_inputs w;
    if (base_wide_inputs(in, &w, err, errlen))
        return -1;
    size_t mn = (size_t)in->m * in->n;
    ref->r = malloc(mn * sizeof *ref->r);
    ref->rlo = malloc(mn * sizeof *ref->rlo);
    ref->s = malloc(mn * sizeof *ref->s);
    if (!ref->r || !ref->rlo || !ref->s || base_fault("no_memory")) {
        base_wide_inputs_free(&w);
        ref_free(ref);
        return gen_fail(err, errlen, "out of memory for the %dx%dx%d reference", in->m, in->n,
                       in->k);
    }
    ref->m = in->m;
    ref->n = in->n;
    ref->k = in->k;
    ref->store = store;
    bool quad = false;
    size_t qsize = sizeof(double);
#if defined(__SIZEOF_FLOAT128__)
    quad = store == GG_STORE_DD;
    qsize = sizeof(__float128);
#endif
    /* threads only where the work pays for them (4096^3 takes minutes alone) */
    double work = (double)in->m * in->n * in->k;
    base_pool *pool = work >= 1e7 ? base_pool_new(0) : NULL;
    ref_job job = {in, &w, ref, alpha, beta, quad, qsize, 0, 0};
    job.tasks = base_pool_threads(pool) * 4;
    if (job.tasks > in->m)
        job.tasks = in->m;
    base_pool_run(pool, job.tasks, ref_rows, &job);
    base_pool_free(pool);
    base_wide_inputs_free(&w);
    if (job.failed) {
        ref_free(ref);
        return gen_fail(err, errlen, "out of memory for the %dx%dx%d reference", in->m, in->n,
                       in->k);
    }
    return 0;
}

double base_wide_bound(gg_store store, int k)
{
    switch (store) {
    case GG_STORE_DD: return ldexp((double)k, -100);
    case GG_STORE_DF: return ldexp((double)k, -44);
    default: return ldexp((double)k, -52);
    }
}

static const char *class_name(double x)
{
    return isnan(x) ? "nan" : isinf(x) ? (x > 0 ? "+inf" : "-inf") : "finite";
}

void base_wide_verify(const gg_reference *ref, const double *chi, const double *clo,
                      gg_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->bound = base_wide_bound(ref->store, ref->k);
    v->worst_i = v->worst_j = -1;
    long first_class = -1, worst = -1;
    double worst_rel = -1;
    size_t mn = (size_t)ref->m * ref->n;
    for (size_t at = 0; at < mn; at++) {
        double r = ref->r[at], x = chi[at] + clo[at];
        bool ok = isnan(r) ? isnan(x) : isinf(r) ? x == r : isfinite(x);
        if (!ok) {
            v->bad++;
            if (first_class < 0)
                first_class = (long)at;
            continue;
        }
        if (!isfinite(r))
            continue;
        double d = fabs((r - chi[at]) + (ref->rlo[at] - clo[at]));
        double rel = ref->s[at] > 0 ? d / ref->s[at] : d == 0 ? 0.0 : INFINITY;
        if (rel > v->bound)
            v->bad++;
        if (rel > worst_rel) {
            worst_rel = rel;
            worst = (long)at;
        }
    }
    v->rel_err = worst_rel > 0 ? worst_rel : 0.0;
    v->pass = v->bad == 0;
    long at = first_class >= 0 ? first_class : worst;
    if (at < 0) {
        snprintf(v->detail, sizeof v->detail, "all %zu elements match the reference's classes", mn);
        return;
    }
    v->worst_i = (int)(at / ref->n);
    v->worst_j = (int)(at % ref->n);
    double x = chi[at] + clo[at];
    if (first_class >= 0)
        snprintf(v->detail, sizeof v->detail, "C[%d][%d] = %.17g where the reference is %s (%.17g); "
                 "%ld element%s wrong", v->worst_i, v->worst_j, x, class_name(ref->r[at]),
                 ref->r[at], v->bad, v->bad == 1 ? "" : "s");
    else
        snprintf(v->detail, sizeof v->detail, "C[%d][%d] = %.17g expected %.17g (rel %.3g, bound "
                 "%.3g, store=%s); %ld element%s beyond the bound", v->worst_i, v->worst_j, x,
                 ref->r[at], worst_rel, v->bound, gen_store_name(ref->store), v->bad,
                 v->bad == 1 ? "" : "s");
}
