/* Checksums of a GEMM result: see checksum.h.
 *
 * Speed: every long loop is one of three kernels over a contiguous stretch
 * of floats (dot, axpy, the check's row pass), written with LANES partial
 * sums so that the compiler vectorizes them without reassociating anything
 * itself; transposed operands get their own loop orders (a stored row at a
 * time, never a strided walk).  prepare's work splits over threads by its
 * outputs (rows, columns, k, samples), each output summed by one thread in
 * an order fixed by the problem alone: the plan is the same bit for bit
 * whatever the thread count.
 *
 * Rounding: all sums are in double, products of two floats exact.  A sum of
 * N terms, in any order or grouping, is within (N-1) 2^-53 sum|terms| of the
 * exact one (the recursive-summation bound holds for every order; partial
 * sums and per-band accumulators merged later only shorten the chains).  The
 * tolerances add SLACK (2^-40) times the absolute sums on both sides, which
 * covers that for N up to 2^13 in the worst case and far beyond in practice
 * (random rounding errors grow as sqrt N), as before this reordering. */
#include "base/checksum.h"
#include "base/hash.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "gen/util.h"
#include "base/inputs.h"
#include "base/pool.h"
#include "base/reference.h"

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

/* Partial sums per kernel: lane q takes the elements j == q mod LANES. */
#define LANES 8
/* Column stretch of the axpy loops: their accumulators stay in L2, and
 * each row is read in long runs (short runs in many rows, 1024 floats,
 * cost 1.5x: the prefetchers start again at each). */
#define STRETCH 4096

/* The kernels use GCC's (and clang's) vector extension: two doubles a
 * vector, what the baseline x86-64 (SSE2) has, on any target; without it
 * GCC's -O2 vectorizes none of these mixed float/double loops. */
typedef double v2d __attribute__((vector_size(16)));
typedef float v2f __attribute__((vector_size(8)));
typedef long long v2l __attribute__((vector_size(16)));

static inline v2d ld_f(const float *p)
{
#ifdef __SSE2__
    /* one cvtps2pd from memory; GCC's way for the generic form goes
     * through the stack */
    return (v2d)_mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)));
#else
    v2f f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, v2d);
#endif
}
static inline v2d ld_d(const double *p)
{
    v2d d;
    memcpy(&d, p, sizeof d);
    return d;
}
static inline void st_d(double *p, v2d v) { memcpy(p, &v, sizeof v); }
static inline v2d vabs(v2d v) { return (v2d)((v2l)v & 0x7fffffffffffffffLL); }
/* max(m, a), a NaN never taken */
static inline v2d vmax(v2d m, v2d a)
{
#ifdef __SSE2__
    return (v2d)_mm_max_pd((__m128d)a, (__m128d)m); /* a > m ? a : m */
#else
    v2l gt = a > m;
    return (v2d)(((v2l)a & gt) | ((v2l)m & ~gt));
#endif
}

static double lanes_sum(const double *s)
{
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* Over a[0..n): *s = sum a x, *sa = sum |a| xa, and where not NULL
 * *s1 = sum |a|, *mx = max |a| (a NaN is not seen by mx).  Inlined into
 * each caller, so that the sums it does not want cost nothing.  Where xa
 * is finite and positive, *sa is finite iff every a is (n FLT_MAX 2^k
 * never overflows a double for the sizes here). */
static inline __attribute__((always_inline)) void
dot_row(const float *restrict a, const double *restrict x, const double *restrict xa, size_t n,
        double *s, double *sa, double *s1, double *mx)
{
    /* the lanes in named variables: GCC keeps an array of them in memory */
    v2d ls0 = {0}, ls1 = {0}, ls2 = {0}, ls3 = {0}, la0 = {0}, la1 = {0}, la2 = {0}, la3 = {0};
    v2d l10 = {0}, l11 = {0}, l12 = {0}, l13 = {0}, lm0 = {0}, lm1 = {0}, lm2 = {0}, lm3 = {0};
    size_t j = 0;
    for (; j + LANES <= n; j += LANES) {
#define DOT_STEP(q)                                                                         \
    do {                                                                                    \
        v2d v = ld_f(a + j + 2 * q), av = vabs(v);                                          \
        ls##q += v * ld_d(x + j + 2 * q);                                                   \
        la##q += av * ld_d(xa + j + 2 * q);                                                 \
        if (s1)                                                                             \
            l1##q += av;                                                                    \
        if (mx)                                                                             \
            lm##q = vmax(lm##q, av);                                                        \
    } while (0)
        DOT_STEP(0);
        DOT_STEP(1);
        DOT_STEP(2);
        DOT_STEP(3);
#undef DOT_STEP
    }
    v2d ls[LANES / 2] = {ls0, ls1, ls2, ls3}, la[LANES / 2] = {la0, la1, la2, la3};
    v2d l1[LANES / 2] = {l10, l11, l12, l13}, lm[LANES / 2] = {lm0, lm1, lm2, lm3};
    double ds[LANES], da[LANES], d1[LANES], dm[LANES];
    memcpy(ds, ls, sizeof ds);
    memcpy(da, la, sizeof da);
    memcpy(d1, l1, sizeof d1);
    memcpy(dm, lm, sizeof dm);
    for (int q = 0; j < n; j++, q++) {
        double v = a[j], av = fabs(v);
        ds[q] += v * x[j];
        da[q] += av * xa[j];
        d1[q] += av;
        dm[q] = av > dm[q] ? av : dm[q];
    }
    *s = lanes_sum(ds);
    *sa = lanes_sum(da);
    if (s1)
        *s1 = lanes_sum(d1);
    if (mx) {
        double m = 0;
        for (int q = 0; q < LANES; q++)
            m = dm[q] > m ? dm[q] : m;
        *mx = m;
    }
}

/* Over a[0..n): t += s a, ta += sa |a|, and where not NULL t1 += |a|,
 * mx = max(mx, |a|). */
static inline __attribute__((always_inline)) void
axpy_row(const float *restrict a, double s, double sa, size_t n, double *restrict t,
         double *restrict ta, double *restrict t1, double *restrict mx)
{
    size_t j = 0;
    v2d vs = {s, s}, vsa = {sa, sa};
    for (; j + 2 <= n; j += 2) {
        v2d v = ld_f(a + j), av = vabs(v);
        st_d(t + j, ld_d(t + j) + vs * v);
        st_d(ta + j, ld_d(ta + j) + vsa * av);
        if (t1)
            st_d(t1 + j, ld_d(t1 + j) + av);
        if (mx)
            st_d(mx + j, vmax(ld_d(mx + j), av));
    }
    for (; j < n; j++) {
        double v = a[j], av = fabs(v);
        t[j] += s * v;
        ta[j] += sa * av;
        if (t1)
            t1[j] += av;
        if (mx)
            mx[j] = av > mx[j] ? av : mx[j];
    }
}

/* Four rows at once: t += (s0 a0 + s1 a1) + (s2 a2 + s3 a3), ta the same
 * with sa and |a|, and where not NULL t1 += (|a0| + |a1|) + (|a2| + |a3|),
 * mx = max(mx, |a0|, .., |a3|) (a quarter of the accumulators' loads and
 * stores of one row at a time). */
static inline __attribute__((always_inline)) void
axpy4_rows(const float *const *restrict a, const double *s, const double *sa, size_t n,
           double *restrict t, double *restrict ta, double *restrict t1, double *restrict mx)
{
    const float *restrict a0 = a[0], *restrict a1 = a[1], *restrict a2 = a[2],
                          *restrict a3 = a[3];
    v2d s0 = {s[0], s[0]}, s1 = {s[1], s[1]}, s2 = {s[2], s[2]}, s3 = {s[3], s[3]};
    v2d b0 = {sa[0], sa[0]}, b1 = {sa[1], sa[1]}, b2 = {sa[2], sa[2]}, b3 = {sa[3], sa[3]};
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
        v2d v0 = ld_f(a0 + j), v1 = ld_f(a1 + j), v2 = ld_f(a2 + j), v3 = ld_f(a3 + j);
        v2d w0 = vabs(v0), w1 = vabs(v1), w2 = vabs(v2), w3 = vabs(v3);
        st_d(t + j, ld_d(t + j) + ((s0 * v0 + s1 * v1) + (s2 * v2 + s3 * v3)));
        st_d(ta + j, ld_d(ta + j) + ((b0 * w0 + b1 * w1) + (b2 * w2 + b3 * w3)));
        if (t1)
            st_d(t1 + j, ld_d(t1 + j) + ((w0 + w1) + (w2 + w3)));
        if (mx)
            st_d(mx + j, vmax(vmax(ld_d(mx + j), vmax(w0, w1)), vmax(w2, w3)));
    }
    for (; j < n; j++) {
        double v0 = a0[j], v1 = a1[j], v2 = a2[j], v3 = a3[j];
        double w0 = fabs(v0), w1 = fabs(v1), w2 = fabs(v2), w3 = fabs(v3);
        t[j] += (s[0] * v0 + s[1] * v1) + (s[2] * v2 + s[3] * v3);
        ta[j] += (sa[0] * w0 + sa[1] * w1) + (sa[2] * w2 + sa[3] * w3);
        if (t1)
            t1[j] += (w0 + w1) + (w2 + w3);
        if (mx) {
            double m01 = w1 > w0 ? w1 : w0, m23 = w3 > w2 ? w3 : w2;
            double m = m23 > m01 ? m23 : m01;
            mx[j] = m > mx[j] ? m : mx[j];
        }
    }
}

/* Where a column of a stored matrix is wanted whole: element col of each
 * row r goes to out[t*k + r] for every t < n with lo <= col[t] < hi. */
typedef struct {
    const int *col;
    int n, lo, hi;
    float *out;
    size_t k;
} gather;

static inline void gather_row(const gather *G, const float *row, int r)
{
    for (int t = 0; G && t < G->n; t++)
        if (G->col[t] >= G->lo && G->col[t] < G->hi)
            G->out[(size_t)t * G->k + (size_t)r] = row[G->col[t]];
}

/* t[0..len) = sum over rows r < nr of s[r] row_r, ta with sa[r] and |row_r|,
 * t1 (if not NULL) sum |row_r|, mx (if not NULL) max |row_r|; row r at
 * base + r*ld + off (the gather, if not NULL, is from base + r*ld).  Rows
 * in groups of four from 0, so the sums' grouping depends on nr alone. */
static inline __attribute__((always_inline)) void
axpy_rows(const float *base, size_t ld, size_t off, int nr, const double *s, const double *sa,
          size_t len, double *t, double *ta, double *t1, double *mx, const gather *G)
{
    memset(t, 0, len * sizeof *t);
    memset(ta, 0, len * sizeof *ta);
    if (t1)
        memset(t1, 0, len * sizeof *t1);
    if (mx)
        memset(mx, 0, len * sizeof *mx);
    int r = 0;
    for (; r + 4 <= nr; r += 4) {
        const float *a[4];
        for (int q = 0; q < 4; q++)
            a[q] = base + (size_t)(r + q) * ld + off;
        axpy4_rows(a, s + r, sa + r, len, t, ta, t1, mx);
        for (int q = 0; G && q < 4; q++)
            gather_row(G, base + (size_t)(r + q) * ld, r + q);
    }
    for (; r < nr; r++) {
        axpy_row(base + (size_t)r * ld + off, s[r], sa[r], len, t, ta, t1, mx);
        if (G)
            gather_row(G, base + (size_t)r * ld, r);
    }
}

struct gg_checksum_plan {
    gg_gemm_operands g;
    double bound;          /* k 2^-23 */
    bool finite_in;        /* every input read (and alpha, beta) is finite */
    bool *good;            /* rows whose bound fits a float (only when finite_in) */
    double *lim;           /* per row: |C_ij| <= lim */
    double *x, *w;         /* the row and column vectors (floats in [1, 2)) */
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
    free(p->good);
    free(p->lim);
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

/* ---- prepare: phases over a team of threads ---- */

typedef struct {
    gg_checksum_plan *p;
    int nt;                /* tasks a phase */
    double maxb_all;       /* max |op(B)| (after phase 1) */
    /* per k: op(B) x, |op(B)| x, then w^T op(A), w^T |op(A)| over good rows */
    double *y, *ya, *u, *ua;
    /* per row: sum |op(A)_i.|; per column: w^T C0, w^T |C0| */
    double *rowa, *cr, *cra;
    /* per column: u^T op(B), ua^T |op(B)|; per k (transposed B): max |B| */
    double *t, *ta, *mxk;
    double *wg;            /* w where good, else 0 */
    /* the samples' operands where they lie down a stored column: sample t's
     * op(A)_{si,.} (transposed A) and op(B)_{.,sj} (B not transposed) at
     * [t*k], gathered while phases 1 and 2 pass the rows */
    float *acol, *bcol;
    double maxb[64];       /* per thread */
    bool fin[64];          /* per thread: its share of the inputs is finite */
} prep;

/* Thread id's share of [0, n), boundaries on multiples of 16 (no two
 * threads write one cache line of doubles). */
static void share(int n, int nt, int id, int *lo, int *hi)
{
    long blocks = ((long)n + 15) / 16;
    long b0 = blocks * id / nt, b1 = blocks * (id + 1) / nt;
    *lo = (int)(b0 * 16 < n ? b0 * 16 : n);
    *hi = (int)(b1 * 16 < n ? b1 * 16 : n);
}

/* Exact value and S of samples [t0, t1), as base/reference.h forms them:
 * each summed in p order, from contiguous rows (the gathered columns). */
static void samples_ref(const prep *P, gg_checksum_plan *p, int t0, int t1)
{
    const gg_gemm_operands *g = &p->g;
    size_t k = (size_t)g->k;
    for (int t = t0; t < t1; t++) {
        const float *a = g->a.trans ? P->acol + (size_t)t * k
                                    : g->a.data + (size_t)p->si[t] * g->a.ld;
        const float *b = g->b.trans ? g->b.data + (size_t)p->sj[t] * g->b.ld
                                    : P->bcol + (size_t)t * k;
        double r = 0, sc = 0;
        for (size_t q = 0; q < k; q++) {
            double v = (double)a[q] * b[q];
            r += v;
            sc += fabs(v);
        }
        p->sr[t] = r;
        p->ss[t] = sc;
    }
    for (int t = t0; t < t1; t++) {
        p->sr[t] *= g->alpha;
        p->ss[t] *= fabs((double)g->alpha);
        if (g->beta != 0.0f) {
            double v = (double)g->beta * g->c0[(size_t)p->si[t] * g->ldc0 + p->sj[t]];
            p->sr[t] += v;
            p->ss[t] += fabs(v);
        }
    }
}

/* s[q] and sa[q] for the columns lo..hi of op(X), rows x cols (stored
 * transposed when trans): the sums over its rows r of w[r] op(X)[r][q] and
 * wa[r] |op(X)[r][q]|. */
static inline __attribute__((always_inline)) void
col_sums(const float *data, size_t ld, bool trans, int rows, int lo, int hi, const double *w,
         const double *wa, double *s, double *sa)
{
    if (!trans) {
        for (int q0 = lo; q0 < hi; q0 += STRETCH) {
            size_t len = (size_t)(hi - q0 < STRETCH ? hi - q0 : STRETCH);
            axpy_rows(data, ld, (size_t)q0, rows, w, wa, len, s + q0, sa + q0, NULL, NULL, NULL);
        }
    } else {
        for (int q = lo; q < hi; q++)
            dot_row(data + (size_t)q * ld, w, wa, (size_t)rows, &s[q], &sa[q], NULL, NULL);
    }
}

/* The phases, each a base_pool_run of nt tasks (task id's share of the
 * phase's outputs); between them the caller merges what the next needs. */
static void phase1(void *arg, int id)
{
    prep *P = arg;
    gg_checksum_plan *p = P->p;
    const gg_gemm_operands *g = &p->g;
    const int n = g->n, k = g->k, nt = P->nt;
    const gg_src B = g->b;
    int lo, hi;
    /* 1. op(B) x and |op(B)| x per k, max |op(B)|, B finite; the samples' columns of B. */
    bool fin = true;
    double maxb = 0;
    share(k, nt, id, &lo, &hi);
    if (!B.trans) {
        for (int q = lo; q < hi; q++) {
            double mx;
            dot_row(B.data + (size_t)q * B.ld, p->x, p->x, (size_t)n, &P->y[q], &P->ya[q], NULL,
                    &mx);
            fin = fin && isfinite(P->ya[q]); /* x >= 1: see dot_row */
            const float *row = B.data + (size_t)q * B.ld; /* in cache now */
            for (int t = 0; t < p->samples; t++)
                P->bcol[(size_t)t * k + q] = row[p->sj[t]];
            maxb = mx > maxb ? mx : maxb;
        }
    } else {
        /* stored B is n x k: op(B)[q][j] = B[j][q]; a stretch of k at a time */
        for (int q0 = lo; q0 < hi; q0 += STRETCH) {
            size_t len = (size_t)(hi - q0 < STRETCH ? hi - q0 : STRETCH);
            axpy_rows(B.data, (size_t)B.ld, (size_t)q0, n, p->x, p->x, len, P->y + q0,
                      P->ya + q0, NULL, P->mxk + q0, NULL);
            for (size_t q = 0; q < len; q++) {
                fin = fin && isfinite(P->ya[q0 + q]); /* x >= 1: a NaN or Inf shows */
                maxb = P->mxk[q0 + q] > maxb ? P->mxk[q0 + q] : maxb;
            }
        }
    }
    P->maxb[id] = maxb;
    P->fin[id] = fin;
}

static void phase2(void *arg, int id)
{
    prep *P = arg;
    gg_checksum_plan *p = P->p;
    const gg_gemm_operands *g = &p->g;
    const int m = g->m, n = g->n, k = g->k, nt = P->nt;
    const gg_src A = g->a;
    const bool use_c0 = g->beta != 0.0f;
    const double al = g->alpha, be = g->beta, maxb = P->maxb_all;
    int lo, hi;
    /* 2. Per row: sum |op(A)_i.|, R x and S |x|, the bound. */
    bool fin = true;
    share(m, nt, id, &lo, &hi);
    if (!A.trans) {
        for (int i = lo; i < hi; i++) {
            dot_row(A.data + (size_t)i * A.ld, P->y, P->ya, (size_t)k, &p->rx[i], &p->sx[i],
                    &P->rowa[i], NULL);
        }
    } else {
        /* stored A is k x m: op(A)[i][q] = A[q][i] */
        for (int i0 = lo; i0 < hi; i0 += STRETCH) {
            size_t len = (size_t)(hi - i0 < STRETCH ? hi - i0 : STRETCH);
            gather G = {p->si, p->samples, i0, i0 + (int)len, P->acol, (size_t)k};
            axpy_rows(A.data, (size_t)A.ld, (size_t)i0, k, P->y, P->ya, len, p->rx + i0,
                      p->sx + i0, P->rowa + i0, NULL, &G);
        }
    }
    for (int i = lo; i < hi; i++) {
        double r = al * p->rx[i], sc = fabs(al) * p->sx[i], maxc0 = 0;
        fin = fin && isfinite(P->rowa[i]);
        if (use_c0) {
            double cx, cxa;
            dot_row(g->c0 + (size_t)i * g->ldc0, p->x, p->x, (size_t)n, &cx, &cxa, NULL, &maxc0);
            fin = fin && isfinite(cxa); /* x >= 1 */
            r += be * cx;
            sc += fabs(be) * cxa;
        }
        p->rx[i] = r;
        p->sx[i] = sc;
        double b = fabs(al) * P->rowa[i] * maxb + fabs(be) * maxc0;
        p->lim[i] = b * (1 + p->bound) * (1 + SLACK);
        p->good[i] = p->lim[i] <= FLT_MAX;
        P->wg[i] = p->good[i] ? p->w[i] : 0;
    }
    P->fin[id] = fin;
}

static void phase3(void *arg, int id)
{
    prep *P = arg;
    gg_checksum_plan *p = P->p;
    const gg_gemm_operands *g = &p->g;
    const int m = g->m, n = g->n, k = g->k, nt = P->nt;
    const gg_src A = g->a;
    const bool use_c0 = g->beta != 0.0f;
    int lo, hi;
    samples_ref(P, p, (int)((long)p->samples * id / nt), (int)((long)p->samples * (id + 1) / nt));
    if (!p->finite_in)
        return;
    /* 3. w^T op(A) and w^T |op(A)| per k over the good rows (the rows not
     * good weigh 0: 0 times a finite value is exactly 0); w^T C0 per column. */
    share(k, nt, id, &lo, &hi);
    col_sums(A.data, (size_t)A.ld, A.trans, m, lo, hi, P->wg, P->wg, P->u, P->ua);
    share(n, nt, id, &lo, &hi);
    if (use_c0)
        col_sums(g->c0, (size_t)g->ldc0, false, m, lo, hi, P->wg, P->wg, P->cr, P->cra);
}

static void phase4(void *arg, int id)
{
    prep *P = arg;
    gg_checksum_plan *p = P->p;
    const gg_gemm_operands *g = &p->g;
    const int n = g->n, k = g->k, nt = P->nt;
    const gg_src B = g->b;
    const bool use_c0 = g->beta != 0.0f;
    const double al = g->alpha, be = g->beta;
    int lo, hi;
    if (!p->finite_in)
        return;
    share(n, nt, id, &lo, &hi);
    /* 4. u^T op(B), ua^T |op(B)| per column: w^T R and |w|^T S. */
    col_sums(B.data, (size_t)B.ld, B.trans, k, lo, hi, P->u, P->ua, P->t, P->ta);
    for (int j = lo; j < hi; j++) {
        p->rw[j] = al * P->t[j] + (use_c0 ? be * P->cr[j] : 0);
        p->sw[j] = fabs(al) * P->ta[j] + (use_c0 ? fabs(be) * P->cra[j] : 0);
    }
}

/* Tasks worth a thread: about 2^17 multiply-adds of prepare's each (a
 * thread costs some 10 to 50 us to start and join: at 256^3, 2 threads
 * were slower than 1 here). */
static int team_size(const gg_gemm_operands *g, int nthreads)
{
    double work = (double)g->k * ((double)g->m + g->n) +
                  (g->beta != 0.0f ? 2.0 * g->m * (double)g->n : 0.0);
    double most = work / 131072.0;
    int nt = nthreads < 64 ? nthreads : 64;
    if (most < nt)
        nt = most < 1 ? 1 : (int)most;
    return nt < 1 ? 1 : nt;
}

/* The four phases on pool (NULL: this thread), nt tasks each. */
static void run_phases(prep *P, base_pool *pool)
{
    gg_checksum_plan *p = P->p;
    base_pool_run(pool, P->nt, phase1, P);
    P->maxb_all = 0;
    for (int t = 0; t < P->nt; t++)
        P->maxb_all = P->maxb[t] > P->maxb_all ? P->maxb[t] : P->maxb_all;
    base_pool_run(pool, P->nt, phase2, P);
    p->finite_in = isfinite(p->g.alpha) && isfinite(p->g.beta);
    for (int t = 0; t < P->nt; t++)
        p->finite_in = p->finite_in && P->fin[t];
    base_pool_run(pool, P->nt, phase3, P);
    if (p->finite_in)
        base_pool_run(pool, P->nt, phase4, P);
}

/* pool, else nthreads threads of a pool made for the call. */
static int prepare_on(const gg_gemm_operands *g, uint64_t seed, int samples, int nthreads,
                      base_pool *pool, gg_checksum_plan **out)
{
    *out = NULL;
    gg_checksum_plan *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->g = *g;
    p->bound = base_verify_bound(g->k);
    if (g->m <= 0 || g->n <= 0) {
        *out = p;
        return 0;
    }
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)(g->k > 0 ? g->k : 1);
    int ns = samples > 0 ? samples : 0;
    p->samples = ns;
    p->good = malloc(m * sizeof *p->good);
    p->lim = malloc(m * sizeof *p->lim);
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
    /* scratch: y ya u ua mxk (k each), rowa wg (m), cr cra t ta (n each) */
    double *d = malloc((5 * k + 2 * m + 4 * n) * sizeof *d);
    float *xf = malloc((n > m ? n : m) * sizeof *xf);
    if (!p->good || !p->lim || !p->x || !p->w || !p->rx || !p->sx || !p->rw || !p->sw ||
        !p->si || !p->sj || !p->sr || !p->ss || !d || !xf) {
        free(d);
        free(xf);
        base_checksum_free(p);
        return -1;
    }
    base_fill_uniform(xf, n, seed, 7);
    for (size_t j = 0; j < n; j++)
        p->x[j] = 1.5f + 0.5f * xf[j];
    base_fill_uniform(xf, m, seed, 8);
    for (size_t i = 0; i < m; i++)
        p->w[i] = 1.5f + 0.5f * xf[i];
    free(xf);
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
    }
    prep P = {.p = p};
    size_t cols = (size_t)ns * (size_t)(g->k > 0 ? g->k : 0);
    P.acol = g->a.trans && cols ? malloc(cols * sizeof *P.acol) : NULL;
    P.bcol = !g->b.trans && cols ? malloc(cols * sizeof *P.bcol) : NULL;
    if ((g->a.trans && cols && !P.acol) || (!g->b.trans && cols && !P.bcol)) {
        free(P.acol);
        free(P.bcol);
        free(d);
        base_checksum_free(p);
        return -1;
    }
    P.y = d;
    P.ya = P.y + k;
    P.u = P.ya + k;
    P.ua = P.u + k;
    P.mxk = P.ua + k;
    P.rowa = P.mxk + k;
    P.wg = P.rowa + m;
    P.cr = P.wg + m;
    P.cra = P.cr + n;
    P.t = P.cra + n;
    P.ta = P.t + n;
    P.nt = team_size(g, pool ? base_pool_threads(pool) : nthreads);
    base_pool *own = !pool && P.nt > 1 ? base_pool_new(P.nt) : NULL; /* NULL: this thread */
    run_phases(&P, pool ? pool : own);
    base_pool_free(own);
    free(P.acol);
    free(P.bcol);
    free(d);
    *out = p;
    return 0;
}

int base_checksum_prepare_threads(const gg_gemm_operands *g, uint64_t seed, int samples,
                                  int nthreads, gg_checksum_plan **out)
{
    return prepare_on(g, seed, samples, nthreads, NULL, out);
}

int base_checksum_prepare_pool(const gg_gemm_operands *g, uint64_t seed, int samples,
                               base_pool *pool, gg_checksum_plan **out)
{
    return prepare_on(g, seed, samples, 1, pool, out);
}

int base_checksum_prepare(const gg_gemm_operands *g, uint64_t seed, int samples,
                          gg_checksum_plan **out)
{
    return prepare_on(g, seed, samples, 1, NULL, out);
}

static uint64_t mix(uint64_t h, const void *v, size_t len) { return base_fnv1a(h, v, len); }

uint64_t base_checksum_plan_hash(const gg_checksum_plan *p)
{
    const gg_gemm_operands *g = &p->g;
    uint64_t h = BASE_FNV1A_BASIS;
    int f = p->finite_in;
    h = mix(h, &f, sizeof f);
    h = mix(h, &p->bound, sizeof p->bound);
    h = mix(h, &p->samples, sizeof p->samples);
    if (g->m <= 0 || g->n <= 0)
        return h;
    size_t m = (size_t)g->m, n = (size_t)g->n, ns = (size_t)p->samples;
    h = mix(h, p->si, ns * sizeof *p->si);
    h = mix(h, p->sj, ns * sizeof *p->sj);
    h = mix(h, p->sr, ns * sizeof *p->sr);
    h = mix(h, p->ss, ns * sizeof *p->ss);
    if (!p->finite_in) /* nothing else is read */
        return h;
    h = mix(h, p->good, m * sizeof *p->good);
    h = mix(h, p->lim, m * sizeof *p->lim);
    h = mix(h, p->x, n * sizeof *p->x);
    h = mix(h, p->w, m * sizeof *p->w);
    h = mix(h, p->rx, m * sizeof *p->rx);
    h = mix(h, p->sx, m * sizeof *p->sx);
    h = mix(h, p->rw, n * sizeof *p->rw);
    return mix(h, p->sw, n * sizeof *p->sw);
}

/* ---- check ---- */

static const char *class_of(double v)
{
    return isnan(v) ? "nan" : isinf(v) ? (v > 0 ? "+inf" : "-inf") : "finite";
}

/* One sampled element against its exact value. */
static int judge_element(const gg_checksum_plan *p, int t, double c, char *why, size_t len)
{
    double r = p->sr[t], sc = p->ss[t], bound = p->bound;
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

/* One good row: C x and the column sums w^T C; returns whether every
 * element lies within lim (NaN does not). */
static bool row_pass(const float *restrict c, const double *restrict x, size_t n, double w,
                     double lim, double *restrict cw, double *cx)
{
    v2d ls0 = {0}, ls1 = {0}, ls2 = {0}, ls3 = {0}, vw = {w, w}, vlim = {lim, lim};
    v2l ok = {-1, -1};
    size_t j = 0;
    for (; j + LANES <= n; j += LANES) {
#define ROW_STEP(q)                                                                         \
    do {                                                                                    \
        size_t e = j + 2 * q;                                                               \
        v2d v = ld_f(c + e);                                                                \
        ls##q += v * ld_d(x + e);                                                           \
        st_d(cw + e, ld_d(cw + e) + vw * v);                                                \
        ok &= vabs(v) <= vlim;                                                              \
    } while (0)
        ROW_STEP(0);
        ROW_STEP(1);
        ROW_STEP(2);
        ROW_STEP(3);
#undef ROW_STEP
    }
    v2d ls[LANES / 2] = {ls0, ls1, ls2, ls3};
    double ds[LANES];
    memcpy(ds, ls, sizeof ds);
    bool good = ok[0] && ok[1];
    for (int q = 0; j < n; j++, q++) {
        double v = c[j];
        ds[q] += v * x[j];
        cw[j] += w * v;
        good = good && fabs(v) <= lim;
    }
    *cx = lanes_sum(ds);
    return good;
}

/* The checksums' tolerance for an exact side with absolute sum sa (S |x|
 * or |w|^T S): g sa for C's error, SLACK (2 + g) sa for the rounding of both
 * sides' double sums: each is within N 2^-53 of its absolute sum, sa for
 * the exact side, and for C's side sum |C| |x| <= (1 + g) sa whenever
 * |C - R| <= g S (the contract's premise), so no accepted result is refused.
 * (Before the bands this used C's own absolute sum, which needed a second
 * sum per row and column; where C is within the bound the two agree, and
 * where C is far off the old one grew with it.) */
static inline double tolerance(const gg_checksum_plan *p, double sa)
{
    return sa * (p->bound + SLACK * (2 + p->bound));
}

/* Bounds then row checksums over rows [r0, r1): the first bound offender
 * in row order, else the first row checksum; colacc as check_rows. */
static int rows_judge(const gg_checksum_plan *p, const float *c, int ldc, int r0, int r1,
                      double *colacc, char *why, size_t whylen)
{
    const gg_gemm_operands *g = &p->g;
    if (!p->finite_in)
        return 0;
    size_t n = (size_t)g->n;
    int row_bad = -1;
    double row_cx = 0, row_tol = 0;
    for (int i = r0; i < r1; i++) {
        if (!p->good[i])
            continue;
        const float *ci = c + (size_t)i * ldc;
        double cx, lim = p->lim[i];
        if (!row_pass(ci, p->x, n, p->w[i], lim, colacc, &cx)) {
            /* the first bound offender wins over any row checksum */
            int j = 0;
            while (fabs((double)ci[j]) <= lim)
                j++;
            return failed(why, whylen,
                          "C[%d][%d] = %g lies beyond %g, the bound finite inputs give row %d",
                          i, j, ci[j], lim, i);
        }
        double tol = tolerance(p, p->sx[i]);
        if (row_bad < 0 && !(fabs(cx - p->rx[i]) <= tol)) {
            row_bad = i;
            row_cx = cx;
            row_tol = tol;
        }
    }
    if (row_bad >= 0)
        return failed(why, whylen,
                      "row checksum %d: C x = %.9g where alpha A (B x) + beta C x = %.9g "
                      "(allowed %.3g)",
                      row_bad, row_cx, p->rx[row_bad], row_tol);
    return 0;
}

/* The samples in rows [r0, r1), in sample order. */
static int samples_judge(const gg_checksum_plan *p, const float *c, int ldc, int r0, int r1,
                         char *why, size_t whylen)
{
    for (int t = 0; t < p->samples; t++)
        if (p->si[t] >= r0 && p->si[t] < r1 &&
            judge_element(p, t, c[(size_t)p->si[t] * ldc + p->sj[t]], why, whylen))
            return 1;
    return 0;
}

int base_checksum_check_rows(const gg_checksum_plan *p, const float *c, int ldc, int r0, int r1,
                             double *colacc, char *why, size_t whylen)
{
    const gg_gemm_operands *g = &p->g;
    if (g->m <= 0 || g->n <= 0)
        return 0;
    r0 = r0 > 0 ? r0 : 0;
    r1 = r1 < g->m ? r1 : g->m;
    if (r0 >= r1)
        return 0;
    if (rows_judge(p, c, ldc, r0, r1, colacc, why, whylen))
        return 1;
    return samples_judge(p, c, ldc, r0, r1, why, whylen);
}

size_t base_checksum_colacc_len(const gg_checksum_plan *p)
{
    return p->g.m > 0 && p->g.n > 0 ? (size_t)p->g.n : 1;
}

void base_checksum_colacc_add(const gg_checksum_plan *p, double *dst, const double *src)
{
    size_t len = base_checksum_colacc_len(p);
    for (size_t j = 0; j < len; j++)
        dst[j] += src[j];
}

int base_checksum_check_cols(const gg_checksum_plan *p, const double *colacc, char *why,
                             size_t whylen)
{
    const gg_gemm_operands *g = &p->g;
    if (g->m <= 0 || g->n <= 0 || !p->finite_in)
        return 0;
    const double *cw = colacc;
    for (int j = 0; j < g->n; j++) {
        double tol = tolerance(p, p->sw[j]);
        if (!(fabs(cw[j] - p->rw[j]) <= tol))
            return failed(why, whylen,
                          "column checksum %d: w^T C = %.9g where w^T (alpha A B + beta C) = "
                          "%.9g (allowed %.3g)",
                          j, cw[j], p->rw[j], tol);
    }
    return 0;
}

int base_checksum_check(const gg_checksum_plan *p, const float *c, int ldc, char *why,
                        size_t whylen)
{
    const gg_gemm_operands *g = &p->g;
    if (g->m <= 0 || g->n <= 0)
        return 0;
    if (p->finite_in) {
        double *acc = calloc((size_t)g->n, sizeof *acc);
        if (!acc)
            return -1;
        int rc = rows_judge(p, c, ldc, 0, g->m, acc, why, whylen);
        if (!rc)
            rc = base_checksum_check_cols(p, acc, why, whylen);
        free(acc);
        if (rc)
            return rc;
    }
    return samples_judge(p, c, ldc, 0, g->m, why, whylen);
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
