/* Double-precision reference and verification: see reference.h. */
#include "base/reference.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fault.h"
#include "base/wide.h"
#include "gen/half.h"
#include "gen/util.h"

void base_reference_free(gg_reference *ref)
{
    free(ref->r);
    free(ref->s);
    free(ref->rlo);
    memset(ref, 0, sizeof *ref);
}

/* Double copies of the inputs as the GPU sees them: store=f16 (and f16x8,
 * the same halves) rounds each to a half first (gen/half.h, the host's own
 * conversion before upload). */
static double *widen(const float *src, size_t count, gg_store store)
{
    double *d = malloc(count * sizeof *d);
    bool half = gen_store_inputs(store) == GG_STORE_F16;
    if (d)
        for (size_t i = 0; i < count; i++)
            d[i] = half ? gen_half_round(src[i]) : src[i];
    return d;
}

static void absolute(double *d, size_t count)
{
    for (size_t i = 0; i < count; i++)
        d[i] = fabs(d[i]);
}

int base_reference_compute(const gg_inputs *in, float alpha, float beta, gg_reference *ref,
                         char *err, size_t errlen)
{
    return base_reference_compute_store(in, alpha, beta, GG_STORE_F32, ref, err, errlen);
}

int base_reference_compute_store(const gg_inputs *in, float alpha, float beta, gg_store store,
                               gg_reference *ref, char *err, size_t errlen)
{
    if (gen_store_wide(store))
        return base_wide_reference(in, alpha, beta, store, ref, err, errlen);
    memset(ref, 0, sizeof *ref);
    if (beta != 0.0f && !in->c0)
        return gen_fail(err, errlen, "internal: beta is %g but there is no C input", (double)beta);
    size_t mk = (size_t)in->m * (size_t)in->k, kn = (size_t)in->k * (size_t)in->n;
    size_t mn = (size_t)in->m * (size_t)in->n;
    double *a = widen(in->a, mk, store), *b = widen(in->b, kn, store);
    ref->r = malloc(mn * sizeof *ref->r);
    ref->s = malloc(mn * sizeof *ref->s);
    if (!a || !b || !ref->r || !ref->s || base_fault("no_memory")) {
        free(a);
        free(b);
        base_reference_free(ref);
        return gen_fail(err, errlen, "out of memory for the %dx%dx%d reference", in->m, in->n,
                       in->k);
    }
    ref->m = in->m;
    ref->n = in->n;
    ref->k = in->k;
    ref->store = gen_store_inputs(store);
    enum CBLAS_TRANSPOSE ta = in->transa ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = in->transb ? CblasTrans : CblasNoTrans;
    /* P = op(A) op(B), then |op(A)| |op(B)|: beta 0 means r and s are not read. */
    cblas_dgemm(CblasRowMajor, ta, tb, in->m, in->n, in->k, 1.0, a, in->lda, b, in->ldb, 0.0,
                ref->r, in->n);
    absolute(a, mk);
    absolute(b, kn);
    cblas_dgemm(CblasRowMajor, ta, tb, in->m, in->n, in->k, 1.0, a, in->lda, b, in->ldb, 0.0,
                ref->s, in->n);
    free(a);
    free(b);
    double al = alpha, be = beta, aal = fabs(al);
    for (size_t i = 0; i < mn; i++) {
        double r = al * ref->r[i], s = aal * ref->s[i];
        if (be != 0.0) {
            double t = be * (double)in->c0[i];
            r += t;
            s += fabs(t);
        }
        ref->r[i] = r;
        ref->s[i] = s;
    }
    return 0;
}

double base_verify_bound(int k)
{
    return ldexp((double)k, -23);
}

static const char *class_name(double x)
{
    return isnan(x) ? "nan" : isinf(x) ? (x > 0 ? "+inf" : "-inf") : "finite";
}

void base_verify(const gg_reference *ref, const float *c, gg_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->bound = base_verify_bound(ref->k);
    v->worst_i = v->worst_j = -1;
    long first_class = -1; /* first element of the wrong class */
    long worst = -1;
    double worst_rel = -1;
    size_t mn = (size_t)ref->m * (size_t)ref->n;
    for (size_t idx = 0; idx < mn; idx++) {
        double r = ref->r[idx], s = ref->s[idx], x = c[idx];
        bool class_ok;
        if (isnan(r))
            class_ok = isnan(x);
        else if (isinf(r))
            class_ok = x == r;
        else
            class_ok = isfinite(x);
        if (!class_ok) {
            v->bad++;
            if (first_class < 0)
                first_class = (long)idx;
            continue;
        }
        if (!isfinite(r))
            continue;
        double d = fabs(x - r);
        double rel = s > 0 ? d / s : (d == 0 ? 0.0 : INFINITY);
        if (rel > v->bound)
            v->bad++;
        if (rel > worst_rel) {
            worst_rel = rel;
            worst = (long)idx;
        }
    }
    v->rel_err = worst_rel > 0 ? worst_rel : 0.0;
    v->pass = v->bad == 0;
    long at = first_class >= 0 ? first_class : worst;
    if (at < 0) {
        snprintf(v->detail, sizeof v->detail, "all %zu elements match the reference's classes",
                 mn);
        return;
    }
    v->worst_i = (int)(at / ref->n);
    v->worst_j = (int)(at % ref->n);
    double r = ref->r[at], x = c[at];
    if (first_class >= 0)
        snprintf(v->detail, sizeof v->detail,
                 "C[%d][%d] = %.9g where the reference is %s (%.9g); %ld element%s wrong",
                 v->worst_i, v->worst_j, x, class_name(r), r, v->bad, v->bad == 1 ? "" : "s");
    else
        snprintf(v->detail, sizeof v->detail,
                 "C[%d][%d] = %.9g expected %.9g (rel %.3g, bound %.3g); %ld element%s beyond "
                 "the bound",
                 v->worst_i, v->worst_j, x, r, worst_rel, v->bound, v->bad,
                 v->bad == 1 ? "" : "s");
}

bool base_verify_measured(const gg_reference *ref, float *c, int m, int n, gg_measurement *out,
                          gg_verdict *v)
{
    if (base_fault("wrong_result")) /* tests only (fault.h): one element wrong */
        c[(size_t)m * n / 2] += 1000.0f;
    double v0 = base_now_s();
    base_verify(ref, c, v);
    out->verify_s = base_now_s() - v0;
    out->rel_err = v->rel_err;
    return v->pass;
}
