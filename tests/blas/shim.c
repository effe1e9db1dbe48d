/* tests/blas/shim.c: a program's own BLAS wrapper around glgemm, as users
 * write them: cblas_sgemm and sgemm_ that forward to glgemm_sgemm (one
 * context a thread), report illegal arguments through the program's
 * xerbla_ / cblas_xerbla as the reference BLAS numbers them, and compute
 * on glgemm's own CPU route (glgemm_sgemm_cpu) when the GPU fails or no
 * context could be opened (it needs none).
 * Built as a shared library for LD_PRELOAD into unmodified programs
 * (netlib's xblat3s and xscblat3), and linked into tests/blas/wrap.c, a
 * program that defines the two names itself.  Neither may make glgemm call
 * itself back: its CPU route is bound to the CPU BLAS, not to these names.
 * SHIM_LOG (a file): one line a call, "cblas|sgemm_ M N K route". */
#include <stdio.h>
#include <stdlib.h>

#include "glgemm.h"

#define EXPORT __attribute__((visibility("default")))

/* The program's, where it has them (weak: a Fortran program has no
 * cblas_xerbla). */
void xerbla_(const char *name, const int *info, size_t len) __attribute__((weak));
void cblas_xerbla(int info, const char *rout, const char *form, ...) __attribute__((weak));
/* The reference CBLAS's: set, its test's cblas_xerbla reads the positions as
 * those of the swapped row-major call; ours are cblas_sgemm's own. */
extern int RowMajorStrg __attribute__((weak));

static _Thread_local glgemm_context *ctx;
static _Thread_local int tried; /* glgemm_open was tried (ctx NULL: it failed) */
static _Thread_local int depth; /* > 1: glgemm called us back */

/* sgemm_'s TRANSA / TRANSB; 0 (illegal) for any other character. */
static glgemm_op op(char t)
{
    return t == 'N' || t == 'n' ? GLGEMM_NOTRANS
         : t == 'T' || t == 't' ? GLGEMM_TRANS
         : t == 'C' || t == 'c' ? GLGEMM_CONJTRANS
                                : (glgemm_op)0;
}

/* glgemm_sgemm, then its CPU route if the GPU could not serve the call:
 * the return code of the first, or of glgemm_sgemm_cpu after a failure. */
static int forward(const char *who, glgemm_layout layout, glgemm_op ta, glgemm_op tb, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc)
{
    if (++depth > 1) {
        fprintf(stderr, "shim: %s re-entered from inside glgemm\n", who);
        abort();
    }
    if (!ctx && !tried++ && !(ctx = glgemm_open(NULL, 0)))
        fprintf(stderr, "shim: glgemm_open: %s: every call on the CPU\n", glgemm_last_error());
    /* No context: glgemm's CPU route serves without one. */
    int rc = ctx ? glgemm_sgemm(ctx, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                ldc)
                 : GLGEMM_ENOCONTEXT;
    if (rc > 0)
        rc = glgemm_sgemm_cpu(ctx, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                              c, ldc);
    const char *log = getenv("SHIM_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s %d %d %d %s\n", who, m, n, k,
                rc ? "error" : ctx ? glgemm_last_route(ctx) : "cpu without a context");
        fclose(f);
    }
    if (rc > 0) {
        fprintf(stderr, "shim: %s: %s\n", glgemm_strerror(rc), glgemm_last_error());
        exit(1);
    }
    depth--;
    return rc;
}

EXPORT void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const float *alpha, const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc)
{
    int rc = forward("sgemm_", GLGEMM_COL_MAJOR, op(*ta), op(*tb), *m, *n, *k, *alpha, a, *lda, b, *ldb,
                     *beta, c, *ldc);
    if (rc < 0 && xerbla_) { /* cblas positions; sgemm.f's INFO has no layout argument */
        int info = -rc - 1;
        xerbla_("SGEMM ", &info, 6);
    }
}

EXPORT void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc)
{
    int rc = forward("cblas", (glgemm_layout)layout, (glgemm_op)ta, (glgemm_op)tb, m, n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc);
    if (rc < 0 && cblas_xerbla) {
        if (&RowMajorStrg)
            RowMajorStrg = 0;
        cblas_xerbla(-rc, "cblas_sgemm", "");
    }
}
