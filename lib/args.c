/* cblas_sgemm's and cblas_dgemm's argument rules, in argument order, and
 * the call turned into row-major terms (rm_gemm, rm_dgemm); C scaled by
 * beta for the quick returns. */
#include "lib/internal.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const arg_names[15] = {
    NULL, "layout", "transa", "transb", "m", "n", "k", "alpha", "a", "lda", "b", "ldb",
    "beta", "c", "ldc",
};

static bool is_op(glgemm_op t)
{
    return t == GLGEMM_NOTRANS || t == GLGEMM_TRANS || t == GLGEMM_CONJTRANS;
}

static int illegal(const char *fn, int pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int illegal(const char *fn, int pos, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return lib_set_error(-pos, "%s: argument %d (%s) %s", fn, pos, arg_names[pos], what);
}

static int max1(int x) { return x > 1 ? x : 1; }

/* cblas_sgemm's and cblas_dgemm's checks, in argument order (writes: C is
 * written; reads_ab: A and B are read). */
static int check_shape(const char *fn, glgemm_layout layout, glgemm_op transa,
                       glgemm_op transb, int m, int n, int k, bool zero_alpha, bool one_beta,
                       const void *a, int lda, const void *b, int ldb, const void *c, int ldc)
{
    bool row = layout == GLGEMM_ROW_MAJOR;
    if (!row && layout != GLGEMM_COL_MAJOR)
        return illegal(fn, 1, "is %d: not GLGEMM_ROW_MAJOR or GLGEMM_COL_MAJOR", (int)layout);
    if (!is_op(transa))
        return illegal(fn, 2, "is %d: not GLGEMM_NOTRANS, _TRANS or _CONJTRANS", (int)transa);
    if (!is_op(transb))
        return illegal(fn, 3, "is %d: not GLGEMM_NOTRANS, _TRANS or _CONJTRANS", (int)transb);
    if (m < 0)
        return illegal(fn, 4, "is %d: must be >= 0", m);
    if (n < 0)
        return illegal(fn, 5, "is %d: must be >= 0", n);
    if (k < 0)
        return illegal(fn, 6, "is %d: must be >= 0", k);
    bool ta = transa != GLGEMM_NOTRANS, tb = transb != GLGEMM_NOTRANS;
    /* Stored row counts (column-major) or column counts (row-major). */
    int need_a = row ? (ta ? m : k) : (ta ? k : m);
    int need_b = row ? (tb ? k : n) : (tb ? n : k);
    int need_c = row ? n : m;
    bool writes = m > 0 && n > 0 && !(one_beta && (zero_alpha || k == 0));
    bool reads_ab = writes && k > 0 && !zero_alpha;
    if (reads_ab && !a)
        return illegal(fn, 8, "is NULL");
    if (lda < max1(need_a))
        return illegal(fn, 9, "is %d: must be >= %d for this layout and transa", lda,
                       max1(need_a));
    if (reads_ab && !b)
        return illegal(fn, 10, "is NULL");
    if (ldb < max1(need_b))
        return illegal(fn, 11, "is %d: must be >= %d for this layout and transb", ldb,
                       max1(need_b));
    if (writes && !c)
        return illegal(fn, 13, "is NULL");
    if (ldc < max1(need_c))
        return illegal(fn, 14, "is %d: must be >= %d for this layout", ldc, max1(need_c));
    return GLGEMM_OK;
}

/* cblas_sgemm's checks, in argument order; fills g on success. */
int lib_check_args(const char *fn, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                   int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc, rm_gemm *g)
{
    int rc = check_shape(fn, layout, transa, transb, m, n, k, alpha == 0.0f, beta == 1.0f, a,
                         lda, b, ldb, c, ldc);
    if (rc)
        return rc;
    bool ta = transa != GLGEMM_NOTRANS, tb = transb != GLGEMM_NOTRANS;
    /* C^T = op(B)^T op(A)^T: a column-major C is the row-major C^T. */
    if (layout == GLGEMM_ROW_MAJOR)
        *g = (rm_gemm){ta, tb, m, n, k, alpha, beta, a, b, lda, ldb, c, ldc};
    else
        *g = (rm_gemm){tb, ta, n, m, k, alpha, beta, b, a, ldb, lda, c, ldc};
    return GLGEMM_OK;
}

/* cblas_dgemm's, the same. */
int lib_check_dargs(const char *fn, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                    int m, int n, int k, double alpha, const double *a, int lda,
                    const double *b, int ldb, double beta, double *c, int ldc, rm_dgemm *g)
{
    int rc = check_shape(fn, layout, transa, transb, m, n, k, alpha == 0.0, beta == 1.0, a,
                         lda, b, ldb, c, ldc);
    if (rc)
        return rc;
    bool ta = transa != GLGEMM_NOTRANS, tb = transb != GLGEMM_NOTRANS;
    if (layout == GLGEMM_ROW_MAJOR)
        *g = (rm_dgemm){ta, tb, m, n, k, alpha, beta, a, b, lda, ldb, c, ldc};
    else
        *g = (rm_dgemm){tb, ta, n, m, k, alpha, beta, b, a, ldb, lda, c, ldc};
    return GLGEMM_OK;
}

/* alpha == 0 or k == 0: C = beta*C (zeros for beta == 0), as sgemm.f. */
void lib_scale_c(const rm_gemm *g)
{
    for (int i = 0; i < g->m; i++) {
        float *row = g->c + (size_t)i * g->ldc;
        for (int j = 0; j < g->n; j++)
            row[j] = g->beta == 0.0f ? 0.0f : g->beta * row[j];
    }
}

/* The same of dgemm.f. */
void lib_scale_dc(const rm_dgemm *g)
{
    for (int i = 0; i < g->m; i++) {
        double *row = g->c + (size_t)i * g->ldc;
        for (int j = 0; j < g->n; j++)
            row[j] = g->beta == 0.0 ? 0.0 : g->beta * row[j];
    }
}
