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
    double bound;    /* k 2^-23 */
    bool finite_in;  /* every input read (and alpha, beta) is finite */
    bool *good;      /* rows whose bound fits a float (only when finite_in) */
    double *lim;     /* per row: |C_ij| <= lim */
} state;

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

/* The inputs' side of the row checks: R x and S |x| per good row. */
static void prepare_rows(const state *s, const float *x, double *y, double *ya, double *r_out,
                         double *sc_out)
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
        double r = 0, sc = 0;
        for (int p = 0; p < g->k; p++) {
            double v = op_at(g->a, i, p);
            r += v * y[p];
            sc += fabs(v) * ya[p];
        }
        r *= al;
        sc *= fabs(al);
        for (int j = 0; be != 0.0 && j < g->n; j++) {
            double t = be * c0_at(s, i, j);
            r += t * x[j];
            sc += fabs(t) * x[j];
        }
        r_out[i] = r;
        sc_out[i] = sc;
    }
}

/* The inputs' side of the column checks: w^T R and |w|^T S per column, over
 * the good rows. */
static void prepare_cols(const state *s, const float *w, double *u, double *ua, double *r,
                         double *sc, double *t, double *ta)
{
    const gg_gemm_operands *g = s->g;
    double al = g->alpha, be = g->beta;
    for (int p = 0; p < g->k; p++)
        u[p] = ua[p] = 0;
    for (int j = 0; j < g->n; j++)
        r[j] = sc[j] = t[j] = ta[j] = 0;
    for (int i = 0; i < g->m; i++) {
        if (!s->good[i])
            continue;
        double wi = w[i];
        for (int p = 0; p < g->k; p++) {
            double v = op_at(g->a, i, p);
            u[p] += wi * v;
            ua[p] += wi * fabs(v);
        }
        for (int j = 0; be != 0.0 && j < g->n; j++) {
            double c0 = be * c0_at(s, i, j);
            r[j] += wi * c0;
            sc[j] += wi * fabs(c0);
        }
    }
    /* u^T op(B), in the order op(B) is stored (a row of B at a time when
     * it is not transposed: the strided walk down columns cost 5x). */
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
        r[j] += al * t[j];
        sc[j] += fabs(al) * ta[j];
    }
}

static const char *class_of(double v)
{
    return isnan(v) ? "nan" : isinf(v) ? (v > 0 ? "+inf" : "-inf") : "finite";
}


struct gg_checksum_plan {
    gg_gemm_operands g;
    state s;               /* its good and lim are the plan's */
    float *x, *w;          /* the row and column vectors */
    double *rx, *sx;       /* per row: (R x)_i and (S |x|)_i */
    double *rw, *sw;       /* per column: (w^T R)_j and (|w|^T S)_j */
    int samples;
    int *si, *sj;          /* the sampled elements */
    double *sr, *ss;       /* their exact value and S */
};

void base_checksum_free(gg_checksum_plan *p)
{
    if (!p)
        return;
    free(p->s.good);
    free(p->s.lim);
    free(p->x);
    free(p->w);
    free(p->rx);
    free(p->sx);
    free(p->rw);
    free(p->sw);
    free(p->si);
    free(p->sj);
    free(p->sr);
    free(p->ss);
    free(p);
}

/* One element's exact value and S, as base/reference.h forms them. */
static void element_ref(const state *s, int i, int j, double *r_out, double *sc_out)
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
    *r_out = r;
    *sc_out = sc;
}

int base_checksum_prepare(const gg_gemm_operands *g, uint64_t seed, int samples,
                          gg_checksum_plan **out)
{
    *out = NULL;
    gg_checksum_plan *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->g = *g;
    p->s = (state){&p->g, base_verify_bound(g->k), false, NULL, NULL};
    if (g->m <= 0 || g->n <= 0) {
        *out = p;
        return 0;
    }
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)(g->k > 0 ? g->k : 1);
    int ns = samples > 0 ? samples : 0;
    p->samples = ns;
    p->s.good = malloc(m * sizeof *p->s.good);
    p->s.lim = malloc(m * sizeof *p->s.lim);
    p->x = malloc(n * sizeof *p->x);
    p->w = malloc(m * sizeof *p->w);
    p->rx = malloc(m * sizeof *p->rx);
    p->sx = malloc(m * sizeof *p->sx);
    p->rw = malloc(n * sizeof *p->rw);
    p->sw = malloc(n * sizeof *p->sw);
    p->si = malloc((size_t)(ns ? ns : 1) * sizeof *p->si);
    p->sj = malloc((size_t)(ns ? ns : 1) * sizeof *p->sj);
    p->sr = malloc((size_t)(ns ? ns : 1) * sizeof *p->sr);
    p->ss = malloc((size_t)(ns ? ns : 1) * sizeof *p->ss);
    double *d = malloc((2 * k + 2 * n) * sizeof *d);
    if (!p->s.good || !p->s.lim || !p->x || !p->w || !p->rx || !p->sx || !p->rw || !p->sw ||
        !p->si || !p->sj || !p->sr || !p->ss || !d) {
        free(d);
        base_checksum_free(p);
        return -1;
    }
    state *s = &p->s;
    scan(s);
    if (s->finite_in) {
        base_fill_uniform(p->x, n, seed, 7);
        for (size_t j = 0; j < n; j++)
            p->x[j] = 1.5f + 0.5f * p->x[j];
        prepare_rows(s, p->x, d, d + k, p->rx, p->sx);
        base_fill_uniform(p->w, m, seed, 8);
        for (size_t i = 0; i < m; i++)
            p->w[i] = 1.5f + 0.5f * p->w[i];
        prepare_cols(s, p->w, d, d + k, p->rw, p->sw, d + 2 * k, d + 2 * k + n);
    }
    free(d);
    /* The four corners, then random elements. */
    int mi = g->m, ni = g->n;
    const int ci[4] = {0, mi - 1, 0, mi - 1}, cj[4] = {0, ni - 1, ni - 1, 0};
    uint64_t st = seed ^ 0x5A5A5A5A5A5A5A5Aull;
    for (int t = 0; t < ns; t++) {
        if (t < 4) {
            p->si[t] = ci[t];
            p->sj[t] = cj[t];
        } else {
            p->si[t] = (int)(gen_splitmix64(&st) % (uint64_t)mi);
            p->sj[t] = (int)(gen_splitmix64(&st) % (uint64_t)ni);
        }
        element_ref(s, p->si[t], p->sj[t], &p->sr[t], &p->ss[t]);
    }
    *out = p;
    return 0;
}

/* One sampled element against its exact value. */
static int judge_element(const gg_checksum_plan *p, int t, double c, char *why, size_t len)
{
    double r = p->sr[t], sc = p->ss[t], bound = p->s.bound;
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
        ok = fabs(c - r) <= bound * sc * (1 + SLACK);
    if (!ok)
        return failed(why, len, "C[%d][%d] = %.9g (%s) where the exact value is %.9g (%s), "
                      "allowed error %.3g", p->si[t], p->sj[t], c, class_of(c), r, class_of(r),
                      bound * sc);
    return 0;
}

int base_checksum_check(const gg_checksum_plan *p, const float *c, int ldc, char *why,
                        size_t whylen)
{
    const gg_gemm_operands *g = &p->g;
    if (g->m <= 0 || g->n <= 0)
        return 0;
    const state *s = &p->s;
    if (s->finite_in) {
        /* One pass over C: the bounds (the first offender in row order),
         * C x per row and w^T C per column. */
        double *cw = calloc((size_t)g->n * 2, sizeof *cw);
        if (!cw)
            return -1;
        double *cwa = cw + g->n;
        int bad_i = -1, bad_j = -1, row_bad = -1;
        double row_cx = 0, row_tol = 0;
        for (int i = 0; i < g->m; i++) {
            if (!s->good[i])
                continue;
            const float *ci = c + (size_t)i * ldc;
            double lim = s->lim[i], cx = 0, cxa = 0, wi = p->w[i];
            for (int j = 0; j < g->n; j++) {
                double v = ci[j];
                if (bad_i < 0 && !(fabs(v) <= lim)) {
                    bad_i = i;
                    bad_j = j;
                }
                cx += v * p->x[j];
                cxa += fabs(v) * p->x[j];
                cw[j] += wi * v;
                cwa[j] += wi * fabs(v);
            }
            double tol = s->bound * p->sx[i] + SLACK * (p->sx[i] + cxa);
            if (row_bad < 0 && !(fabs(cx - p->rx[i]) <= tol)) {
                row_bad = i;
                row_cx = cx;
                row_tol = tol;
            }
        }
        int rc = 0;
        if (bad_i >= 0)
            rc = failed(why, whylen,
                        "C[%d][%d] = %g lies beyond %g, the bound finite inputs give row %d",
                        bad_i, bad_j, c[(size_t)bad_i * ldc + bad_j], s->lim[bad_i], bad_i);
        else if (row_bad >= 0)
            rc = failed(why, whylen,
                        "row checksum %d: C x = %.9g where alpha A (B x) + beta C x = %.9g "
                        "(allowed %.3g)",
                        row_bad, row_cx, p->rx[row_bad], row_tol);
        for (int j = 0; !rc && j < g->n; j++) {
            double tol = s->bound * p->sw[j] + SLACK * (p->sw[j] + cwa[j]);
            if (!(fabs(cw[j] - p->rw[j]) <= tol))
                rc = failed(why, whylen,
                            "column checksum %d: w^T C = %.9g where w^T (alpha A B + beta C) = "
                            "%.9g (allowed %.3g)",
                            j, cw[j], p->rw[j], tol);
        }
        free(cw);
        if (rc)
            return rc;
    }
    for (int t = 0; t < p->samples; t++)
        if (judge_element(p, t, c[(size_t)p->si[t] * ldc + p->sj[t]], why, whylen))
            return 1;
    return 0;
}

int base_checksum_verify(const gg_gemm_operands *g, const float *c, int ldc, uint64_t seed,
                         int samples, char *why, size_t whylen)
{
    gg_checksum_plan *p;
    if (base_checksum_prepare(g, seed, samples, &p))
        return -1;
    int rc = base_checksum_check(p, c, ldc, why, whylen);
    base_checksum_free(p);
    return rc;
}
