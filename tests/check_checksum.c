/* base/checksum.h by bands of rows and with prepare on threads: every
 * split of the rows (one band, one-row bands, uneven bands, bands judged on
 * several threads at once) gives the whole check's verdict, on right
 * results and on wrong ones; a plan prepared on threads (its own or a kept
 * base/pool's) is the one prepared on one.  No GL. */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checksum.h"
#include "base/inputs.h"
#include "base/pool.h"
#include "gen/util.h"
#include "tests/suites.h"

typedef struct {
    int m, n, k;
    float *a, *b, *c0, *c;
    gg_gemm_operands g;
} prob;

/* op(A) m x k, op(B) k x n stored as ta/tb say, C0 m x n; C right (OpenBLAS,
 * float sums as a GPU's).  positive: inputs in [0.25, 1.25). */
static prob prob_make(int m, int n, int k, float alpha, float beta, bool ta, bool tb,
                      uint64_t seed, bool positive)
{
    prob P = {m, n, k, malloc(sizeof(float) * m * k), malloc(sizeof(float) * k * n),
              malloc(sizeof(float) * m * n), malloc(sizeof(float) * m * n), {0}};
    ck_assert(P.a && P.b && P.c0 && P.c);
    base_fill_uniform(P.a, (size_t)m * k, seed, 0);
    base_fill_uniform(P.b, (size_t)k * n, seed, 1);
    base_fill_uniform(P.c0, (size_t)m * n, seed, 2);
    if (positive) {
        for (int t = 0; t < m * k; t++)
            P.a[t] = 0.25f + fabsf(P.a[t]);
        for (int t = 0; t < k * n; t++)
            P.b[t] = 0.25f + fabsf(P.b[t]);
    }
    int lda = ta ? m : k, ldb = tb ? k : n;
    memcpy(P.c, P.c0, sizeof(float) * m * n);
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
                n, k, alpha, P.a, lda, P.b, ldb, beta, P.c, n);
    P.g = (gg_gemm_operands){m, n, k, alpha, beta, {P.a, lda, ta}, {P.b, ldb, tb}, P.c0, n};
    return P;
}

static void prob_free(prob *P) { free(P->a), free(P->b), free(P->c0), free(P->c); }

/* S_ij = |alpha| sum_p |op(A)_ip op(B)_pj| + |beta C0_ij|. */
static double s_of(const prob *P, int i, int j)
{
    const gg_gemm_operands *g = &P->g;
    double s = 0;
    for (int p = 0; p < g->k; p++) {
        double a = g->a.trans ? g->a.data[(size_t)p * g->a.ld + i]
                              : g->a.data[(size_t)i * g->a.ld + p];
        double b = g->b.trans ? g->b.data[(size_t)j * g->b.ld + p]
                              : g->b.data[(size_t)p * g->b.ld + j];
        s += fabs(a * b);
    }
    return fabs((double)g->alpha) * s + fabs((double)g->beta * P->c0[(size_t)i * P->n + j]);
}

/* ---- the ways of judging ---- */

static int whole(const gg_checksum_plan *p, const float *c, int n, char *why, size_t len)
{
    return base_checksum_check(p, c, n, why, len);
}

/* Bands [cut[b], cut[b+1]), b < nb, in order on this thread, then the
 * columns; band_rc[b] each band's result (every band is judged).  Returns
 * the first failure (a band's, in band order, else the columns'). */
static int banded(const gg_checksum_plan *p, const float *c, int n, const int *cut, int nb,
                  int *band_rc, int *cols_rc, char *why, size_t len)
{
    double *acc = calloc(base_checksum_colacc_len(p), sizeof *acc);
    ck_assert_ptr_nonnull(acc);
    char w[400];
    int rc = 0;
    for (int b = 0; b < nb; b++) {
        w[0] = 0;
        band_rc[b] = base_checksum_check_rows(p, c, n, cut[b], cut[b + 1], acc, w, sizeof w);
        if (band_rc[b] && !rc) {
            rc = band_rc[b];
            snprintf(why, len, "%s", w);
        }
    }
    w[0] = 0;
    *cols_rc = base_checksum_check_cols(p, acc, w, sizeof w);
    if (!rc && *cols_rc) {
        rc = *cols_rc;
        snprintf(why, len, "%s", w);
    }
    free(acc);
    return rc;
}

typedef struct {
    const gg_checksum_plan *p;
    const float *c;
    int n, r0, r1, band, rc;
    double *acc;
    char why[400];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->rc = 0;
    for (int r = w->r0; r < w->r1 && !w->rc; r += w->band)
        w->rc = base_checksum_check_rows(w->p, w->c, w->n, r,
                                         r + w->band < w->r1 ? r + w->band : w->r1, w->acc,
                                         w->why, sizeof w->why);
    return NULL;
}

/* nt threads at once, each over its share of the rows in bands of band
 * rows with its own accumulator; merged; then the columns. */
static int threaded(const gg_checksum_plan *p, const float *c, int m, int n, int nt, int band,
                    char *why, size_t len)
{
    worker ws[8];
    pthread_t th[8];
    ck_assert_int_le(nt, 8);
    for (int t = 0; t < nt; t++) {
        ws[t] = (worker){p, c, n, m * t / nt, m * (t + 1) / nt, band, 0, NULL, ""};
        ws[t].acc = calloc(base_checksum_colacc_len(p), sizeof *ws[t].acc);
        ck_assert_ptr_nonnull(ws[t].acc);
        ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &ws[t]), 0);
    }
    int rc = 0;
    for (int t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        if (ws[t].rc && !rc) {
            rc = ws[t].rc;
            snprintf(why, len, "%s", ws[t].why);
        }
        if (t)
            base_checksum_colacc_add(p, ws[0].acc, ws[t].acc);
    }
    char w[400] = "";
    if (!rc && base_checksum_check_cols(p, ws[0].acc, w, sizeof w)) {
        rc = 1;
        snprintf(why, len, "%s", w);
    }
    for (int t = 0; t < nt; t++)
        free(ws[t].acc);
    return rc;
}

/* The splits of [0, m) tried: one band, one-row bands, uneven bands (sizes
 * 1..17 from seed), two bands at every cut (for small m). */
enum { MAXCUTS = 4096 };
typedef struct {
    int nb;
    int cut[MAXCUTS + 1];
} split;

static int make_splits(int m, uint64_t seed, split *out, int most)
{
    int ns = 0;
    out[ns].nb = 1, out[ns].cut[0] = 0, out[ns].cut[1] = m, ns++;
    if (m <= MAXCUTS) {
        out[ns].nb = m;
        for (int i = 0; i <= m; i++)
            out[ns].cut[i] = i;
        ns++;
    }
    for (int v = 0; v < 3; v++) {
        split *s = &out[ns++];
        s->nb = 0;
        s->cut[0] = 0;
        uint64_t st = seed * 31 + (uint64_t)v;
        for (int r = 0; r < m;) {
            r += 1 + (int)(gen_splitmix64(&st) % 17);
            r = r < m ? r : m;
            s->cut[++s->nb] = r;
        }
    }
    for (int at = 1; at < m && ns < most; at += (m > 40 ? m / 7 : 1)) {
        out[ns].nb = 2, out[ns].cut[0] = 0, out[ns].cut[1] = at, out[ns].cut[2] = m;
        ns++;
    }
    return ns;
}

/* Every split and the threaded runs give want; wrong_row >= 0: the band
 * holding that row (only) fails its rows' check.  cols_only: every band
 * passes, the columns fail.  Returns the whole check's why in why. */
static void agree(const prob *P, const gg_checksum_plan *p, int want, int wrong_row,
                  bool cols_only, const char *needle, uint64_t seed)
{
    static split sp[64];
    int ns = make_splits(P->m, seed, sp, 64);
    char why[400] = "", bw[400] = "";
    int rc = whole(p, P->c, P->n, why, sizeof why);
    ck_assert_msg(rc == want, "whole check: %d, want %d (%s)", rc, want, why);
    if (needle)
        ck_assert_msg(strstr(why, needle), "whole check said \"%s\", want \"%s\"", why, needle);
    int *band_rc = malloc(sizeof(int) * (P->m + 1));
    ck_assert_ptr_nonnull(band_rc);
    for (int s = 0; s < ns; s++) {
        int cols_rc;
        bw[0] = 0;
        int brc = banded(p, P->c, P->n, sp[s].cut, sp[s].nb, band_rc, &cols_rc, bw, sizeof bw);
        ck_assert_msg(brc == want, "split %d (%d bands): %d, whole %d (%s / %s)", s, sp[s].nb, brc,
                      want, bw, why);
        for (int b = 0; b < sp[s].nb && (wrong_row >= 0 || cols_only); b++) {
            bool holds = wrong_row >= sp[s].cut[b] && wrong_row < sp[s].cut[b + 1];
            ck_assert_msg(band_rc[b] == (holds && !cols_only),
                          "split %d band %d [%d, %d): %d, wrong row %d", s, b, sp[s].cut[b],
                          sp[s].cut[b + 1], band_rc[b], wrong_row);
        }
        if (cols_only)
            ck_assert_msg(cols_rc == 1 && strstr(bw, "column checksum"), "split %d: %s", s, bw);
        if (needle && !cols_only)
            ck_assert_msg(strstr(bw, needle), "split %d said \"%s\", want \"%s\"", s, bw, needle);
    }
    for (int nt = 1; nt <= 4; nt++)
        for (int band = 1; band <= 5; band += 4) {
            bw[0] = 0;
            int trc = threaded(p, P->c, P->m, P->n, nt, band, bw, sizeof bw);
            ck_assert_msg(trc == want, "%d threads, bands of %d: %d, whole %d (%s)", nt, band, trc,
                          want, bw);
            if (needle)
                ck_assert_msg(strstr(bw, needle), "%d threads said \"%s\", want \"%s\"", nt, bw,
                              needle);
        }
    free(band_rc);
}

/* The configurations: op(A), op(B) each N or T, beta 0 or not, alpha. */
#define NCONF 8
static prob conf_make(int conf, int m, int n, int k, uint64_t seed, bool positive)
{
    float alpha = conf & 4 ? -0.5f : 1.0f, beta = conf & 4 ? 0.75f : 0.0f;
    return prob_make(m, n, k, alpha, beta, conf & 1, (conf >> 1) & 1, seed, positive);
}

static gg_checksum_plan *plan_of(const prob *P, uint64_t seed, int samples, int nthreads)
{
    gg_checksum_plan *p;
    ck_assert_int_eq(base_checksum_prepare_threads(&P->g, seed, samples, nthreads, &p), 0);
    ck_assert_ptr_nonnull(p);
    return p;
}

START_TEST(checksum_bands_right)
{
    /* odd sizes: every kernel's tail */
    prob P = conf_make(_i, 37, 29 + _i, 45 + 3 * _i, 10 + (uint64_t)_i, false);
    gg_checksum_plan *p = plan_of(&P, 5, 64, 1);
    agree(&P, p, 0, -1, false, NULL, (uint64_t)_i);
    base_checksum_free(p);
    /* rows beyond the checks' reach (a bound past FLT_MAX): skipped the
     * same way by every split */
    for (int q = 0; q < 4; q++) /* |alpha| sum |A_3.| max |B| > 2 FLT_MAX * 0.5 */
        P.a[P.g.a.trans ? 3 + (size_t)q * P.m : 3 * (size_t)P.k + q] = 3e38f;
    p = plan_of(&P, 5, 0, 1);
    for (int j = 0; j < P.n; j++)
        P.c[3 * P.n + j] = 1e30f; /* unchecked: no sample, no bound */
    agree(&P, p, 0, -1, false, NULL, (uint64_t)_i);
    base_checksum_free(p);
    prob_free(&P);
}
END_TEST

/* One gross error in each row in turn (row checksum), then a NaN (bound). */
START_TEST(checksum_bands_wrong_element)
{
    prob P = conf_make(_i, 23, 19, 33 + _i, 20 + (uint64_t)_i, false);
    gg_checksum_plan *p = plan_of(&P, 6, 0, 1);
    agree(&P, p, 0, -1, false, NULL, 1);
    char needle[64];
    for (int i = 0; i < P.m; i++) {
        float *e = &P.c[(size_t)i * P.n + (i * 7) % P.n], keep = *e;
        *e += 1.0f;
        snprintf(needle, sizeof needle, "row checksum %d:", i);
        agree(&P, p, 1, i, false, needle, (uint64_t)i);
        *e = NAN;
        snprintf(needle, sizeof needle, "C[%d][%d] = nan lies beyond", i, (i * 7) % P.n);
        agree(&P, p, 1, i, false, needle, (uint64_t)i);
        *e = keep;
    }
    agree(&P, p, 0, -1, false, NULL, 2);
    base_checksum_free(p);
    prob_free(&P);
}
END_TEST

/* An error the rows' checksums cannot see (far below their tolerance,
 * which sums over the long rows), but the columns' can (short columns). */
START_TEST(checksum_bands_column_only)
{
    prob P = conf_make(_i, 4, 256, 64, 30 + (uint64_t)_i, true);
    gg_checksum_plan *p = plan_of(&P, 7, 0, 1);
    agree(&P, p, 0, -1, false, NULL, 1);
    double g = P.k * 0x1p-23;
    for (int i = 0; i < P.m; i++) {
        int j = 100 + 37 * i;
        double rowsum = 0;
        for (int q = 0; q < P.n; q++)
            rowsum += s_of(&P, i, q);
        float *e = &P.c[(size_t)i * P.n + j], keep = *e;
        *e += (float)(0.3 * g * rowsum);
        char needle[64];
        snprintf(needle, sizeof needle, "column checksum %d:", j);
        agree(&P, p, 1, -1, true, needle, (uint64_t)i);
        *e = keep;
    }
    base_checksum_free(p);
    prob_free(&P);
}
END_TEST

/* An error only the exact samples see: 3 g S on a corner (always sampled). */
START_TEST(checksum_bands_sample)
{
    prob P = conf_make(_i, 41, 67, 50, 40 + (uint64_t)_i, false);
    gg_checksum_plan *p = plan_of(&P, 8, 16, 1);
    const int ci[4] = {0, P.m - 1, 0, P.m - 1}, cj[4] = {0, P.n - 1, P.n - 1, 0};
    double g = P.k * 0x1p-23;
    for (int t = 0; t < 4; t++) {
        float *e = &P.c[(size_t)ci[t] * P.n + cj[t]], keep = *e;
        *e = (float)(*e + 3 * g * s_of(&P, ci[t], cj[t]));
        char needle[64];
        snprintf(needle, sizeof needle, "C[%d][%d] = ", ci[t], cj[t]);
        agree(&P, p, 1, ci[t], false, needle, (uint64_t)t);
        *e = keep;
    }
    agree(&P, p, 0, -1, false, NULL, 9);
    base_checksum_free(p);
    prob_free(&P);
}
END_TEST

/* Band edges: empty and out-of-range bands judge nothing. */
START_TEST(checksum_bands_edges)
{
    prob P = conf_make(0, 9, 8, 7, 50, false);
    gg_checksum_plan *p = plan_of(&P, 9, 64, 1);
    double acc[16] = {0};
    ck_assert_uint_le(base_checksum_colacc_len(p), 16);
    char why[200];
    P.c[0] = NAN;
    ck_assert_int_eq(base_checksum_check_rows(p, P.c, P.n, 3, 3, acc, why, sizeof why), 0);
    ck_assert_int_eq(base_checksum_check_rows(p, P.c, P.n, 5, 2, acc, why, sizeof why), 0);
    ck_assert_int_eq(base_checksum_check_rows(p, P.c, P.n, 9, 20, acc, why, sizeof why), 0);
    ck_assert_int_eq(base_checksum_check_rows(p, P.c, P.n, -5, 1, acc, why, sizeof why), 1);
    base_checksum_free(p);
    prob_free(&P);
}
END_TEST

/* prepare on threads: the same verdicts and the same numbers as on one
 * thread (the why lines print the plan's values: each row's R x and bound,
 * each column's w^T R, a sample's exact value). */
static void same_plans(const prob *P, const gg_checksum_plan *p1, const gg_checksum_plan *pt,
                       int nt)
{
    char w1[400] = "", wt[400] = "";
    int r1 = whole(p1, P->c, P->n, w1, sizeof w1), rt = whole(pt, P->c, P->n, wt, sizeof wt);
    ck_assert_msg(rt == r1 && !strcmp(w1, wt), "%d threads: %d \"%s\", one: %d \"%s\"", nt, rt,
                  wt, r1, w1);
    size_t len = base_checksum_colacc_len(p1);
    ck_assert_uint_eq(len, base_checksum_colacc_len(pt));
    double *acc = calloc(len, sizeof *acc), *scratch = calloc(len, sizeof *acc);
    ck_assert(acc && scratch);
    ck_assert_int_eq(base_checksum_check_rows(p1, P->c, P->n, 0, P->m, acc, w1, sizeof w1), r1);
    for (int i = 0; i < P->m; i++) {
        float *e = &P->c[(size_t)i * P->n + i % P->n], keep = *e;
        for (int v = 0; v < 2; v++) {
            *e = v ? 1e30f : keep + 0.5f; /* row checksum, then the bound */
            w1[0] = wt[0] = 0;
            r1 = base_checksum_check_rows(p1, P->c, P->n, i, i + 1, scratch, w1, sizeof w1);
            rt = base_checksum_check_rows(pt, P->c, P->n, i, i + 1, scratch, wt, sizeof wt);
            ck_assert_msg(r1 == rt && !strcmp(w1, wt), "%d threads, row %d: \"%s\" / \"%s\"", nt,
                          i, wt, w1);
        }
        *e = keep;
    }
    for (int j = 0; j < P->n; j++) {
        double keep = acc[j];
        acc[j] += 1e3;
        w1[0] = wt[0] = 0;
        r1 = base_checksum_check_cols(p1, acc, w1, sizeof w1);
        rt = base_checksum_check_cols(pt, acc, wt, sizeof wt);
        ck_assert_msg(r1 == rt && !strcmp(w1, wt), "%d threads, column %d: \"%s\" / \"%s\"", nt,
                      j, wt, w1);
        acc[j] = keep;
    }
    free(acc);
    free(scratch);
}

/* Every value bit for bit (the why lines above print 9 digits). */
static void same_hash(const gg_checksum_plan *p1, const gg_checksum_plan *pt, int nt)
{
    ck_assert_msg(base_checksum_plan_hash(p1) == base_checksum_plan_hash(pt),
                  "%d threads: plan hash %016llx, one thread %016llx", nt,
                  (unsigned long long)base_checksum_plan_hash(pt),
                  (unsigned long long)base_checksum_plan_hash(p1));
}

START_TEST(checksum_prepare_threads)
{
    prob P = conf_make(_i, 523, 389, 301, 60 + (uint64_t)_i, false);
    const int nts[] = {2, 3, 5, 8, 16, 64};
    for (int v = 0; v < 3; v++) {
        if (v == 1) /* a corner wrong, seen by its sample only */
            P.c[(size_t)P.m * P.n - 1] += (float)(3 * P.k * 0x1p-23 * s_of(&P, P.m - 1, P.n - 1));
        if (v == 2) /* non-finite inputs: samples only */
            P.b[5] = NAN;
        gg_checksum_plan *p1 = plan_of(&P, 11, 64, 1), *other = plan_of(&P, 12, 64, 1);
        ck_assert(base_checksum_plan_hash(p1) != base_checksum_plan_hash(other));
        base_checksum_free(other);
        char why[400] = "";
        ck_assert_int_eq(whole(p1, P.c, P.n, why, sizeof why), v == 0 ? 0 : 1);
        for (size_t t = 0; t < sizeof nts / sizeof *nts; t++) {
            gg_checksum_plan *pt = plan_of(&P, 11, 64, nts[t]);
            same_plans(&P, p1, pt, nts[t]);
            same_hash(p1, pt, nts[t]);
            base_checksum_free(pt);
        }
        /* on a kept pool (and on none) */
        for (int t = 0; t <= 3; t++) {
            base_pool *pool = t ? base_pool_new(t == 3 ? 8 : t + 1) : NULL;
            ck_assert(!t || pool);
            gg_checksum_plan *pt;
            ck_assert_int_eq(base_checksum_prepare_pool(&P.g, 11, 64, pool, &pt), 0);
            same_hash(p1, pt, base_pool_threads(pool));
            if (t == 1)
                same_plans(&P, p1, pt, base_pool_threads(pool));
            base_checksum_free(pt);
            base_pool_free(pool);
        }
        base_checksum_free(p1);
    }
    prob_free(&P);
}
END_TEST

Suite *make_checksum_suite(void)
{
    Suite *s = suite_create("checksum");
    TCase *tc = tcase_create("checksum_bands");
    tcase_set_tags(tc, "pure");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, checksum_bands_right, 0, NCONF);
    tcase_add_loop_test(tc, checksum_bands_wrong_element, 0, NCONF);
    tcase_add_loop_test(tc, checksum_bands_column_only, 0, NCONF);
    tcase_add_loop_test(tc, checksum_bands_sample, 0, NCONF);
    tcase_add_test(tc, checksum_bands_edges);
    tcase_add_loop_test(tc, checksum_prepare_threads, 0, NCONF);
    suite_add_tcase(s, tc);
    return s;
}
