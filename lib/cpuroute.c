/* The CPU route of a call in row-major terms: the caller's
 * glgemm_set_cpu_sgemm, else the CPU BLAS the library bound (lib/cpu.h;
 * glgemm_dgemm's always that); and whether this thread is inside it. */
#include "lib/internal.h"

/* This thread's calls: in_cpu inside its CPU route (where a CPU sgemm that
 * calls glgemm_sgemm back would loop). */
static _Thread_local bool in_cpu;

/* The CPU route, row-major (g is already in those terms): the caller's
 * glgemm_set_cpu_sgemm, else the CPU BLAS the library bound (the process's
 * binding without a context). */
void lib_cpu_route(const glgemm_context *ctx, const rm_gemm *g)
{
    int ta = g->transa ? GLGEMM_TRANS : GLGEMM_NOTRANS;
    int tb = g->transb ? GLGEMM_TRANS : GLGEMM_NOTRANS;
    in_cpu = true;
    if (ctx && ctx->cpu)
        ctx->cpu(GLGEMM_ROW_MAJOR, ta, tb, g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b,
                 g->ldb, g->beta, g->c, g->ldc);
    else
        lib_cpu_sgemm(ctx ? &ctx->cpu_blas : lib_cpu_process(NULL, 0), GLGEMM_ROW_MAJOR, ta, tb,
                      g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta, g->c,
                      g->ldc);
    in_cpu = false;
}

bool lib_in_cpu_route(void) { return in_cpu; }

/* glgemm_dgemm's: the bound CPU BLAS (the process's without a context). */
void lib_cpu_droute(const glgemm_context *ctx, const rm_dgemm *g)
{
    int ta = g->transa ? GLGEMM_TRANS : GLGEMM_NOTRANS;
    int tb = g->transb ? GLGEMM_TRANS : GLGEMM_NOTRANS;
    in_cpu = true;
    lib_cpu_dgemm(ctx ? &ctx->cpu_blas : lib_cpu_process(NULL, 0), GLGEMM_ROW_MAJOR, ta, tb,
                  g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta, g->c,
                  g->ldc);
    in_cpu = false;
}
