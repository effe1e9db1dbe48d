/* Checksums of a GEMM result: see checksum.h. */
#include "base/checksum.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen/util.h"
#include "base/inputs.h"
#include "base/reference.h"

static inline double op_at(gg_src s, int r, int c)
{
    return s.trans ? s.data[(size_t)c * s.ld + r] : s.data[(size_t)r * s.ld + c];
}

static int failed(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int failed(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* Double rounding in our own sums: far below k 2^-23 for any k >= 1. */
#define SLACK 0x1p-40

typedef struct {
    const gg_gemm_operands *g;
    const float *c;
    int ldc;
    double bound;    /* k 2^-23 */
    bool finite_in;  /* every input read (and alpha, beta) is finite */
    bool *good;      /* rows whose bound fits a float (only when finite_in) */
    double *lim;     /* per row: |C_ij| <= lim */
} state;

static inline double c_at(const state *s, int i, int j) { return s->c[(size_t)i * s->ldc + j]; }
static inline double c0_at(const state *s, int i, int j)
{
    return s->g->c0[(size_t)i * s->g->ldc0 + j];
}

/* Scans the inputs: finiteness, and the per-row bounds. */
static void scan(state *s)
{
    const gg_gemm_operands *g = s->g;
    bool use_c0 = g->beta != 0.0f;
    s->finite_in = isfinite(g->alpha) && isfinite(g->beta);
    double maxb = 0;
    for (int p = 0; p < g->k; p++)
        for (int j = 0; j < g->n; j++) {
            double v = op_at(g->b, p, j);
            s->finite_in = s->finite_in && isfinite(v);
            maxb = fmax(maxb, fabs(v));
        }
    for (int i = 0; i < g->m; i++) {
        double rowa = 0, maxc0 = 0;
        for (int p = 0; p < g->k; p++) {
            double v = op_at(g->a, i, p);
            s->finite_in = s->finite_in && isfinite(v);
            rowa += fabs(v);
        }
        for (int j = 0; use_c0 && j < g->n; j++) {
            double v = c0_at(s, i, j);
            s->finite_in = s->finite_in && isfinite(v);
            maxc0 = fmax(maxc0, fabs(v));
        }
        double b = fabs((double)g->alpha) * rowa * maxb + fabs((double)g->beta) * maxc0;
        s->lim[i] = b * (1 + s->bound) * (1 + SLACK);
        s->good[i] = s->lim[i] <= FLT_MAX;
    }
}

static int check_bounds(const state *s, char *why, size_t len)
{
    for (int i = 0; i < s->g->m; i++) {
        if (!s->good[i])
            continue;
        for (int j = 0; j < s->g->n; j++) {
            double v = c_at(s, i, j);
            if (!isfinite(v) || fabs(v) > s->lim[i])
                return failed(why, len,
                              "C[%d][%d] = %g lies beyond %g, the bound finite inputs give row %d",
                              i, j, v, s->lim[i], i);
        }
    }
    return 0;
}

/* C x against R x on the good rows. */
static int check_rows(const state *s, const float *x, double *y, double *ya, char *why,
                      size_t len)
{
    const gg_gemm_operands *g = s->g;
    double al = g->alpha, be = g->beta;
    for (int p = 0; p < g->k; p++) {
        double t = 0, ta = 0;
        for (int j = 0; j < g->n; j++) {
            double v = op_at(g->b, p, j);
            t += v * x[j];
            ta += fabs(v) * x[j];
        }
        y[p] = t;
        ya[p] = ta;
    }
    for (int i = 0; i < g->m; i++) {
        if (!s->good[i])
            continue;
        double r = 0, sc = 0, cx = 0, cxa = 0;
        for (int p = 0; p < g->k; p++) {
            double v = op_at(g->a, i, p);
            r += v * y[p];
            sc += fabs(v) * ya[p];
        }
        r *= al;
        sc *= fabs(al);
        for (int j = 0; j < g->n; j++) {
            double cv = c_at(s, i, j);
            cx += cv * x[j];
            cxa += fabs(cv) * x[j];
            if (be != 0.0) {
                double t = be * c0_at(s, i, j);
                r += t * x[j];
                sc += fabs(t) * x[j];
            }
        }
        double tol = s->bound * sc + SLACK * (sc + cxa);
        if (fabs(cx - r) > tol)
            return failed(why, len,
                          "row checksum %d: C x = %.9g where alpha A (B x) + beta C x = %.9g "
                          "(allowed %.3g)",
                          i, cx, r, tol);
    }
    return 0;
}

/* w^T C against w^T R over the good rows. */
static int check_cols(const state *s, const float *w, double *u, double *ua, double *r,
                      double *sc, double *cw, double *cwa, double *t, double *ta, char *why,
                      size_t len)
{
    const gg_gemm_operands *g = s->g;
    double al = g->alpha, be = g->beta;
    for (int p = 0; p < g->k; p++)
        u[p] = ua[p] = 0;
    for (int j = 0; j < g->n; j++)
        r[j] = sc[j] = cw[j] = cwa[j] = 0;
    for (int i = 0; i < g->m; i++) {
        if (!s->good[i])
            continue;
        double wi = w[i];
        for (int p = 0; p < g->k; p++) {
            double v = op_at(g->a, i, p);
            u[p] += wi * v;
            ua[p] += wi * fabs(v);
        }
        for (int j = 0; j < g->n; j++) {
            double cv = c_at(s, i, j);
            cw[j] += wi * cv;
            cwa[j] += wi * fabs(cv);
            if (be != 0.0) {
                double t = be * c0_at(s, i, j);
                r[j] += wi * t;
                sc[j] += wi * fabs(t);
            }
        }
    }
    /* u^T op(B), in the order op(B) is stored (a row of B at a time when
     * it is not transposed: the strided walk down columns cost 5x). */
    for (int j = 0; j < g->n; j++)
        t[j] = ta[j] = 0;
    if (!g->b.trans)
        for (int p = 0; p < g->k; p++) {
            const float *row = g->b.data + (size_t)p * g->b.ld;
            double up = u[p], uap = ua[p];
            for (int j = 0; j < g->n; j++) {
                t[j] += up * row[j];
                ta[j] += uap * fabs((double)row[j]);
            }
        }
    else
        for (int j = 0; j < g->n; j++) {
            const float *col = g->b.data + (size_t)j * g->b.ld;
            for (int p = 0; p < g->k; p++) {
                t[j] += u[p] * col[p];
                ta[j] += ua[p] * fabs((double)col[p]);
            }
        }
    for (int j = 0; j < g->n; j++) {
        double rj = al * t[j] + r[j], sj = fabs(al) * ta[j] + sc[j];
        double tol = s->bound * sj + SLACK * (sj + cwa[j]);
        if (fabs(cw[j] - rj) > tol)
            return failed(why, len,
                          "column checksum %d: w^T C = %.9g where w^T (alpha A B + beta C) = "
                          "%.9g (allowed %.3g)",
                          j, cw[j], rj, tol);
    }
    return 0;
}

static const char *class_of(double v)
{
    return isnan(v) ? "nan" : isinf(v) ? (v > 0 ? "+inf" : "-inf") : "finite";
}

/* One element exactly, as base/reference.h judges it. */
static int check_element(const state *s, int i, int j, char *why, size_t len)
{
    const gg_gemm_operands *g = s->g;
    double r = 0, sc = 0;
    for (int p = 0; p < g->k; p++) {
        double t = op_at(g->a, i, p) * op_at(g->b, p, j);
        r += t;
        sc += fabs(t);
    }
    r *= g->alpha;
    sc *= fabs((double)g->alpha);
    if (g->beta != 0.0f) {
        double t = (double)g->beta * c0_at(s, i, j);
        r += t;
        sc += fabs(t);
    }
    double c = c_at(s, i, j);
    bool ok;
    if (isnan(r))
        ok = isnan(c);
    else if (isinf(r))
        ok = c == r;
    else if (!isfinite(c))
        ok = false;
    else if (sc == 0 || isinf(sc))
        ok = sc == 0 ? c == r : true;
    else
        ok = fabs(c - r) <= s->bound * sc * (1 + SLACK);
    if (!ok)
        return failed(why, len, "C[%d][%d] = %.9g (%s) where the exact value is %.9g (%s), "
                      "allowed error %.3g", i, j, c, class_of(c), r, class_of(r),
                      s->bound * sc);
    return 0;
}

static int check_samples(const state *s, uint64_t seed, int samples, char *why, size_t len)
{
    int m = s->g->m, n = s->g->n;
    const int ci[4] = {0, m - 1, 0, m - 1}, cj[4] = {0, n - 1, n - 1, 0};
    for (int t = 0; t < 4 && t < samples; t++)
        if (check_element(s, ci[t], cj[t], why, len))
            return 1;
    uint64_t st = seed ^ 0x5A5A5A5A5A5A5A5Aull;
    for (int t = 4; t < samples; t++) {
        int i = (int)(gen_splitmix64(&st) % (uint64_t)m);
        int j = (int)(gen_splitmix64(&st) % (uint64_t)n);
        if (check_element(s, i, j, why, len))
            return 1;
    }
    return 0;
}

int base_checksum_verify(const gg_gemm_operands *g, const float *c, int ldc, uint64_t seed,
                       int samples, char *why, size_t whylen)
{
    if (g->m <= 0 || g->n <= 0)
        return 0;
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)(g->k > 0 ? g->k : 1);
    size_t mn = m > n ? m : n;
    state s = {g, c, ldc, base_verify_bound(g->k), false, NULL, NULL};
    s.good = malloc(m * sizeof *s.good);
    s.lim = malloc(m * sizeof *s.lim);
    float *x = malloc(mn * sizeof *x);
    double *d = malloc((2 * k + 6 * n) * sizeof *d);
    int rc = -1;
    if (!s.good || !s.lim || !x || !d)
        goto done;
    scan(&s);
    rc = 0;
    if (s.finite_in) {
        rc = check_bounds(&s, why, whylen);
        if (!rc) {
            base_fill_uniform(x, n, seed, 7);
            for (size_t j = 0; j < n; j++)
                x[j] = 1.5f + 0.5f * x[j];
            rc = check_rows(&s, x, d, d + k, why, whylen);
        }
        if (!rc) {
            base_fill_uniform(x, m, seed, 8);
            for (size_t i = 0; i < m; i++)
                x[i] = 1.5f + 0.5f * x[i];
            double *dn = d + 2 * k;
            rc = check_cols(&s, x, d, d + k, dn, dn + n, dn + 2 * n, dn + 3 * n, dn + 4 * n,
                            dn + 5 * n, why, whylen);
        }
    }
    if (!rc)
        rc = check_samples(&s, seed, samples, why, whylen);
done:
    free(s.good);
    free(s.lim);
    free(x);
    free(d);
    return rc;
}
