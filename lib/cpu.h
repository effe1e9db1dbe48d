/* lib/cpu: the library's CPU sgemm (the crossover's route, and the drop-in's
 * for every call it passes on), bound by the library itself so that no
 * wrapper of the caller can intercept it.
 *
 * Contract:
 *  - lib_cpu_bind() opens the CPU BLAS and looks its routines up through
 *    the library's own handle (dlopen + dlsym on that handle: the object and
 *    its dependencies, never the process's global scope), so a program or
 *    an LD_PRELOADed library that defines cblas_sgemm or sgemm_ around
 *    glgemm_sgemm is never called back.  The library's sgemm_ is taken
 *    where it has one (it calls no other BLAS routine), else its
 *    cblas_sgemm; a named library is opened with RTLD_DEEPBIND too, so that
 *    its routines' calls to each other stay inside it where it was not
 *    loaded before.  A library whose routine lies in glgemm's own object
 *    (the drop-in named as the CPU BLAS) is refused.  Which library: the path given, else
 *    GLGEMM_CPU_BLAS (like NVBLAS's NVBLAS_CPU_BLAS_LIB), else the OpenBLAS
 *    glgemm was linked with (found by the address of openblas_get_config,
 *    which no wrapper defines).
 *  - A named library that cannot be opened, or holds neither routine, is
 *    an error: -1 with one line in err naming the variable and dlerror's
 *    reason.  Without a name, a default that cannot be found binds the
 *    small reference loop below (correct, slow, never a call out): 0.
 *  - lib_cpu_sgemm() computes C = alpha*op(A)*op(B) + beta*C with
 *    cblas_sgemm's arguments and values (layout 101/102, transposes
 *    111/112/113), arguments legal; lib_cpu_dgemm() the same in double,
 *    through the same library's dgemm_ (else cblas_dgemm; a library with
 *    neither, or none bound: a reference loop summing in long double).
 * No GL here. */
#ifndef GLGEMM_LIB_CPU_H
#define GLGEMM_LIB_CPU_H

#include <stddef.h>

#include "glgemm.h" /* glgemm_cpu_sgemm_fn */

typedef void (*lib_f77_sgemm_fn)(const char *, const char *, const int *, const int *,
                                 const int *, const float *, const float *, const int *,
                                 const float *, const int *, const float *, float *,
                                 const int *, size_t, size_t);

typedef void (*lib_f77_dgemm_fn)(const char *, const char *, const int *, const int *,
                                 const int *, const double *, const double *, const int *,
                                 const double *, const int *, const double *, double *,
                                 const int *, size_t, size_t);
typedef void (*lib_cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                                   const double *, int, double, double *, int);

typedef struct {
    void *handle;               /* dlopen's, NULL for the reference loop */
    glgemm_cpu_sgemm_fn cblas;  /* the library's cblas_sgemm, or NULL */
    lib_f77_sgemm_fn f77;       /* else its sgemm_ */
    /* The same for doubles (dgemm_ first, else cblas_dgemm), from the same
     * handle; both NULL (a library without dgemm): the reference loop. */
    lib_cblas_dgemm_fn dcblas;
    lib_f77_dgemm_fn df77;
    char path[256];             /* what was bound: a path, or "reference loop" */
} lib_cpu;

/* The environment variable naming another CPU BLAS. */
#define LIB_CPU_ENV "GLGEMM_CPU_BLAS"

/* path NULL: GLGEMM_CPU_BLAS, else the linked OpenBLAS.  0, or -1 with err
 * (*cpu then binds nothing and must not be used). */
int lib_cpu_bind(lib_cpu *cpu, const char *path, char *err, size_t errlen);
void lib_cpu_unbind(lib_cpu *cpu);

/* The process's one binding for callers without a context (the drop-in):
 * bound once, GLGEMM_CPU_BLAS first; if that fails, its one line goes to
 * *err (when err is not NULL, on the first call only) and the default is
 * bound instead.  Never NULL. */
const lib_cpu *lib_cpu_process(char *err, size_t errlen);

void lib_cpu_sgemm(const lib_cpu *cpu, int layout, int transa, int transb, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc);

/* The same in double (glgemm_dgemm's CPU route, the drop-in's dgemm_ and
 * cblas_dgemm), with cblas_dgemm's arguments, legal. */
void lib_cpu_dgemm(const lib_cpu *cpu, int layout, int transa, int transb, int m, int n, int k,
                   double alpha, const double *a, int lda, const double *b, int ldb,
                   double beta, double *c, int ldc);

#endif
