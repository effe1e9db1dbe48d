/* tests/stress/conc_util.h: one sgemm call of the concurrency tests
 * (tests/check_concurrency.c, tests/stress/conc_worker.c): an odd shape,
 * both layouts, transposes, alpha and beta, leading dimensions with
 * padding, and every element of the result checked against a double loop.
 * Header-only (static), plain C11 and libc: the drop-in's worker includes
 * it without glgemm.h.  Layout and transpose values are cblas's (glgemm.h
 * uses the same). */
#ifndef GLGEMM_TEST_CONC_UTIL_H
#define GLGEMM_TEST_CONC_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

enum { CU_ROW = 101, CU_COL = 102, CU_NOTRANS = 111, CU_TRANS = 112, CU_CONJTRANS = 113 };

/* A value no result can hold: the padding of C (past m or n within ldc)
 * starts as it and must stay it. */
#define CU_SENTINEL 12345.5f

typedef struct {
    int layout, transa, transb;
    int m, n, k;
    float alpha, beta;
    int lda, ldb, ldc;
    float *a, *b, *c, *c0; /* c0: C before the call (as stored, with padding) */
    size_t na, nb, nc;     /* floats allocated */
} cu_call;

/* splitmix64 */
static inline uint64_t cu_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int cu_pick(uint64_t *s, const int *v, int n) { return v[cu_next(s) % (uint64_t)n]; }

/* Values in [-1, 1), quarters of 2^-10 apart: exact in fp32. */
static inline float cu_value(uint64_t *s) { return (float)((int)(cu_next(s) % 2048) - 1024) / 1024.0f; }

/* Rows and columns of a stored operand, and the floats it needs. */
static inline size_t cu_size(int layout, int rows, int cols, int ld)
{
    return layout == CU_COL ? (size_t)ld * (size_t)(cols > 0 ? cols : 1)
                            : (size_t)(rows > 0 ? rows : 1) * (size_t)ld;
}

static inline size_t cu_at(int layout, int i, int j, int ld)
{
    return layout == CU_COL ? (size_t)i + (size_t)j * (size_t)ld : (size_t)i * (size_t)ld + (size_t)j;
}

/* A new random call of m x n x k: layout, transposes, alpha, beta and
 * padded leading dimensions drawn from s; false when out of memory.  A and
 * B padding is NaN, so a read of it shows in C. */
static inline bool cu_make_dims(cu_call *c, uint64_t *s, int m, int n, int k)
{
    static const float alphas[] = {1.0f, -0.75f, 2.5f, 0.5f};
    static const float betas[] = {0.0f, 1.0f, -1.25f, 0.5f};
    static const int ops[] = {CU_NOTRANS, CU_TRANS, CU_CONJTRANS};
    memset(c, 0, sizeof *c);
    c->layout = cu_next(s) & 1 ? CU_ROW : CU_COL;
    c->transa = cu_pick(s, ops, 3);
    c->transb = cu_pick(s, ops, 3);
    c->m = m;
    c->n = n;
    c->k = k;
    c->alpha = alphas[cu_next(s) % 4];
    c->beta = betas[cu_next(s) % 4];
    bool ta = c->transa != CU_NOTRANS, tb = c->transb != CU_NOTRANS;
    int ar = ta ? c->k : c->m, ac = ta ? c->m : c->k;
    int br = tb ? c->n : c->k, bc = tb ? c->k : c->n;
    bool col = c->layout == CU_COL;
    c->lda = (col ? ar : ac) + (int)(cu_next(s) % 4);
    c->ldb = (col ? br : bc) + (int)(cu_next(s) % 4);
    c->ldc = (col ? c->m : c->n) + (int)(cu_next(s) % 4);
    c->na = cu_size(c->layout, ar, ac, c->lda);
    c->nb = cu_size(c->layout, br, bc, c->ldb);
    c->nc = cu_size(c->layout, c->m, c->n, c->ldc);
    c->a = malloc(c->na * sizeof *c->a);
    c->b = malloc(c->nb * sizeof *c->b);
    c->c = malloc(c->nc * sizeof *c->c);
    c->c0 = malloc(c->nc * sizeof *c->c0);
    if (!c->a || !c->b || !c->c || !c->c0)
        return false;
    for (size_t i = 0; i < c->na; i++)
        c->a[i] = NAN;
    for (size_t i = 0; i < c->nb; i++)
        c->b[i] = NAN;
    for (size_t i = 0; i < c->nc; i++)
        c->c[i] = CU_SENTINEL;
    for (int i = 0; i < ar; i++)
        for (int j = 0; j < ac; j++)
            c->a[cu_at(c->layout, i, j, c->lda)] = cu_value(s);
    for (int i = 0; i < br; i++)
        for (int j = 0; j < bc; j++)
            c->b[cu_at(c->layout, i, j, c->ldb)] = cu_value(s);
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++)
            c->c[cu_at(c->layout, i, j, c->ldc)] = cu_value(s);
    memcpy(c->c0, c->c, c->nc * sizeof *c->c);
    return true;
}

/* The same with odd sizes up to max_dim (small ones too) drawn from s. */
static inline bool cu_make(cu_call *c, uint64_t *s, int max_dim)
{
    static const int dims[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 47, 64, 65, 97, 100, 127};
    int nd = 0;
    while (nd < (int)(sizeof dims / sizeof *dims) && dims[nd] <= max_dim)
        nd++;
    int m = cu_pick(s, dims, nd), n = cu_pick(s, dims, nd);
    return cu_make_dims(c, s, m, n, cu_pick(s, dims, nd));
}

static inline void cu_free(cu_call *c)
{
    free(c->a);
    free(c->b);
    free(c->c);
    free(c->c0);
    memset(c, 0, sizeof *c);
}

/* Elements of C wrong: each against a double loop of the same inputs,
 * within 4 k 2^-23 S (S = |alpha| sum |A_ip B_pj| + |beta C0_ij|, the
 * tool's bound with room for the checksum-verified GPU sums), beta 0 never
 * reading C0; and every padding element still CU_SENTINEL. */
static inline long cu_wrong(const cu_call *c)
{
    long bad = 0;
    bool ta = c->transa != CU_NOTRANS, tb = c->transb != CU_NOTRANS;
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double r = 0, s = 0;
            for (int p = 0; p < c->k; p++) {
                double x = c->a[ta ? cu_at(c->layout, p, i, c->lda) : cu_at(c->layout, i, p, c->lda)];
                double y = c->b[tb ? cu_at(c->layout, j, p, c->ldb) : cu_at(c->layout, p, j, c->ldb)];
                r += x * y;
                s += fabs(x * y);
            }
            r *= c->alpha;
            s *= fabs((double)c->alpha);
            if (c->beta != 0.0f) {
                double c0 = c->c0[cu_at(c->layout, i, j, c->ldc)];
                r += (double)c->beta * c0;
                s += fabs((double)c->beta * c0);
            }
            double got = c->c[cu_at(c->layout, i, j, c->ldc)];
            bad += !(fabs(got - r) <= 4.0 * c->k * ldexp(1.0, -23) * s + 1e-30);
        }
    int rows = c->layout == CU_COL ? c->ldc : c->m, cols = c->layout == CU_COL ? c->n : c->ldc;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            bool inside = c->layout == CU_COL ? i < c->m : j < c->n;
            if (!inside && c->c[cu_at(c->layout, i, j, c->ldc)] != CU_SENTINEL)
                bad++;
        }
    return bad;
}

/* Writes len bytes in place (no temporary, no rename): what a writer that
 * is not atomic, or one killed mid-write, leaves; pause_us between halves. */
static inline void cu_write_in_place(const char *path, const char *data, size_t len,
                                     unsigned pause_us)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t half = len / 2;
    ssize_t w = write(fd, data, half);
    if (pause_us)
        usleep(pause_us);
    if (w == (ssize_t)half && len > half)
        w = write(fd, data + half, len - half);
    (void)w;
    close(fd);
}

#endif
