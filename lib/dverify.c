/* glgemm_dgemm's judgement of the GPU's C (lib/internal.h lib_dverify):
 * a few random products C x against alpha op(A) (op(B) x) + beta C0 x
 * (GLGEMM_VERIFY_CHECK, O(mk + kn + mn) a vector), or every element
 * (GLGEMM_VERIFY_FULL), in long double, within store=f64's bound. */
#include "lib/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define VECTORS 2 /* random vectors of the check */

/* f64's bound (base/wide.h): k + 2 units of 2^-52 of S (the two: alpha's
 * product and beta's term). */
static double bound_of(int k) { return ((double)k + 2.0) * 0x1p-52; }

static double op_a(const rm_dgemm *g, int i, int p)
{
    return g->transa ? g->a[(size_t)p * g->lda + i] : g->a[(size_t)i * g->lda + p];
}

static double op_b(const rm_dgemm *g, int p, int j)
{
    return g->transb ? g->b[(size_t)j * g->ldb + p] : g->b[(size_t)p * g->ldb + j];
}

/* A value in [1, 2) with a random sign, from splitmix64. */
static double draw(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double v = 1.0 + (double)(z >> 12) * 0x1p-52;
    return (z & 1) ? -v : v;
}

/* Where C's element is not finite, R's must be the same kind (a NaN for a
 * NaN, the same infinity); a finite C against a non-finite R fails too. */
static bool same_class(double c, long double r)
{
    if (isnan(c) || isnan(r))
        return isnan(c) && isnan(r);
    if (isinf(c) || isinf(r))
        return (long double)c == r;
    return true;
}

static int check(const rm_dgemm *g, const double *c0, const double *out, uint64_t seed,
                 char *why, size_t len)
{
    int m = g->m, n = g->n, k = g->k;
    double *x = malloc((size_t)n * sizeof *x);
    long double *bx = malloc((size_t)k * sizeof *bx), *bax = malloc((size_t)k * sizeof *bax);
    int bad = x && bx && bax ? 0 : -1;
    uint64_t s = seed * 0x2545F4914F6CDD1DULL + 1;
    for (int v = 0; v < VECTORS && bad == 0; v++) {
        for (int j = 0; j < n; j++)
            x[j] = draw(&s);
        for (int p = 0; p < k; p++) { /* op(B) x and |op(B)| |x| */
            long double t = 0, u = 0;
            for (int j = 0; j < n; j++) {
                double b = op_b(g, p, j);
                t += (long double)b * x[j];
                u += fabsl((long double)b * x[j]);
            }
            bx[p] = t;
            bax[p] = u;
        }
        for (int i = 0; i < m && bad == 0; i++) {
            long double r = 0, sr = 0, cx = 0;
            for (int p = 0; p < k; p++) {
                double a = op_a(g, i, p);
                r += a * bx[p];
                sr += fabsl((long double)a) * bax[p];
            }
            r *= g->alpha;
            sr *= fabsl((long double)g->alpha);
            for (int j = 0; j < n; j++) {
                cx += (long double)out[(size_t)i * n + j] * x[j];
                if (c0) {
                    r += (long double)g->beta * c0[(size_t)i * n + j] * x[j];
                    sr += fabsl((long double)g->beta * c0[(size_t)i * n + j] * x[j]);
                }
            }
            long double d = fabsl(cx - r), tol = (long double)bound_of(k) * sr;
            if (!same_class((double)cx, r) || (isfinite(r) && !(d <= tol))) {
                snprintf(why, len, "checksum of row %d (vector %d): C x = %.17Lg, expected "
                         "%.17Lg (difference %.3Lg > bound %.3Lg: %d x 2^-52 of %.3Lg)",
                         i, v, cx, r, d, tol, k + 2, sr);
                bad = 1;
            }
        }
    }
    free(x);
    free(bx);
    free(bax);
    return bad;
}

static int full(const rm_dgemm *g, const double *c0, const double *out, char *why, size_t len)
{
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++) {
            long double r = 0, sr = 0;
            for (int p = 0; p < g->k; p++) {
                long double t = (long double)op_a(g, i, p) * op_b(g, p, j);
                r += t;
                sr += fabsl(t);
            }
            r *= g->alpha;
            sr *= fabsl((long double)g->alpha);
            if (c0) {
                r += (long double)g->beta * c0[(size_t)i * g->n + j];
                sr += fabsl((long double)g->beta * c0[(size_t)i * g->n + j]);
            }
            double c = out[(size_t)i * g->n + j];
            long double d = fabsl((long double)c - r), tol = (long double)bound_of(g->k) * sr;
            if (!same_class(c, r) || (isfinite(r) && !(d <= tol))) {
                snprintf(why, len, "C[%d][%d] = %.17g, expected %.17Lg (difference %.3Lg > "
                         "bound %.3Lg)", i, j, c, r, d, tol);
                return 1;
            }
        }
    return 0;
}

int lib_dverify(int level, const rm_dgemm *g, const double *c0, const double *out,
                uint64_t seed, char *why, size_t len)
{
    if (level == GLGEMM_VERIFY_FULL)
        return full(g, c0, out, why, len);
    if (level == GLGEMM_VERIFY_CHECK)
        return check(g, c0, out, seed, why, len);
    return 0;
}
