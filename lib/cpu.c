/* The library's CPU sgemm, bound through its own handle: see lib/cpu.h. */
#define _GNU_SOURCE /* dladdr */
#include "lib/cpu.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS's own routine, which no BLAS wrapper defines: its address names
 * the library glgemm was linked with. */
extern char *openblas_get_config(void);

enum { ROW = 101, NOTRANS = 111 };

/* A named library's own calls between its routines bind inside it: the
 * reference CBLAS's cblas_sgemm calls sgemm_, which the global scope would
 * resolve to the program's own sgemm_ first (measured: tests/blas/wrap.c
 * with Debian's libblas.so.3 looped through the program's wrapper).
 * AddressSanitizer refuses RTLD_DEEPBIND; its builds go without. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEEPBIND 0
#else
#define DEEPBIND RTLD_DEEPBIND
#endif

/* Whether p lies in the object that holds this code (libglgemm.so, the
 * drop-in, or the program glgemm is linked into). */
static bool in_glgemm(void *p)
{
    Dl_info self, it;
    return dladdr((void *)lib_cpu_bind, &self) && dladdr(p, &it) &&
           self.dli_fbase == it.dli_fbase;
}

/* sgemm_ first: a library's own, as dlsym on its handle finds it, calls no
 * other BLAS routine, while a reference cblas_sgemm calls sgemm_ through
 * the global scope, which a library that was loaded before (RTLD_DEEPBIND
 * then has no effect) resolves to the program's own sgemm_ (measured:
 * tests/blas/run.sh, wrap linked with the reference BLAS). */
static int lookup(lib_cpu *cpu, void *h, const char *path, char *err, size_t errlen)
{
    /* A cast between object and function pointers: POSIX's dlsym contract. */
    cpu->f77 = (lib_f77_sgemm_fn)dlsym(h, "sgemm_");
    cpu->cblas = cpu->f77 ? NULL : (glgemm_cpu_sgemm_fn)dlsym(h, "cblas_sgemm");
    if (!cpu->cblas && !cpu->f77) {
        snprintf(err, errlen, "%.200s defines neither sgemm_ nor cblas_sgemm", path);
        return -1;
    }
    if (in_glgemm(cpu->f77 ? (void *)cpu->f77 : (void *)cpu->cblas)) {
        snprintf(err, errlen, "%.200s is glgemm's own library, not a CPU BLAS", path);
        cpu->f77 = NULL;
        cpu->cblas = NULL;
        return -1;
    }
    cpu->df77 = (lib_f77_dgemm_fn)dlsym(h, "dgemm_");
    cpu->dcblas = cpu->df77 ? NULL : (lib_cblas_dgemm_fn)dlsym(h, "cblas_dgemm");
    if (in_glgemm(cpu->df77 ? (void *)cpu->df77 : (void *)cpu->dcblas)) {
        cpu->df77 = NULL; /* not reached: its sgemm would be glgemm's too */
        cpu->dcblas = NULL;
    }
    cpu->handle = h;
    snprintf(cpu->path, sizeof cpu->path, "%s", path);
    return 0;
}

/* The linked OpenBLAS, by the file that holds openblas_get_config: opened
 * again (it is loaded: RTLD_NOLOAD) for a handle of its own. */
static void bind_default(lib_cpu *cpu)
{
    Dl_info di;
    char err[300];
    if (dladdr((void *)openblas_get_config, &di) && di.dli_fname && di.dli_fname[0]) {
        void *h = dlopen(di.dli_fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        void *self = dlopen(NULL, RTLD_NOW);
        /* Linked statically into the program: its handle is the global
         * scope, where a wrapper would be found first; not that one. */
        if (h && h != self && lookup(cpu, h, di.dli_fname, err, sizeof err) == 0) {
            if (self)
                dlclose(self);
            return;
        }
        if (h)
            dlclose(h);
        if (self)
            dlclose(self);
    }
    snprintf(cpu->path, sizeof cpu->path, "reference loop");
}

int lib_cpu_bind(lib_cpu *cpu, const char *path, char *err, size_t errlen)
{
    memset(cpu, 0, sizeof *cpu);
    const char *env = path ? NULL : getenv(LIB_CPU_ENV);
    const char *name = path ? path : env && *env ? env : NULL;
    if (!name) {
        bind_default(cpu);
        return 0;
    }
    /* NODELETE: the drop-in closes a context at each thread's end; a BLAS
     * (and its threads) loaded and unloaded with them would churn. */
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | DEEPBIND);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s%.200s cannot be opened: %.200s", env ? LIB_CPU_ENV "=" : "",
                 name, why ? why : "dlopen failed");
        return -1;
    }
    char why[300];
    if (lookup(cpu, h, name, why, sizeof why)) {
        dlclose(h);
        snprintf(err, errlen, "%s%.300s", env ? LIB_CPU_ENV ": " : "", why);
        memset(cpu, 0, sizeof *cpu);
        return -1;
    }
    return 0;
}

void lib_cpu_unbind(lib_cpu *cpu)
{
    if (cpu->handle)
        dlclose(cpu->handle);
    memset(cpu, 0, sizeof *cpu);
}

static lib_cpu process_cpu;
static char process_err[400];
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

static void bind_process(void)
{
    if (lib_cpu_bind(&process_cpu, NULL, process_err, sizeof process_err))
        bind_default(&process_cpu); /* failed binds leave *cpu zeroed */
}

const lib_cpu *lib_cpu_process(char *err, size_t errlen)
{
    static bool told;
    pthread_once(&process_once, bind_process);
    if (err && errlen) {
        err[0] = '\0';
        if (process_err[0] && !__atomic_exchange_n(&told, true, __ATOMIC_ACQ_REL))
            snprintf(err, errlen, "%s", process_err);
    }
    return &process_cpu;
}

/* Row-major C = alpha*op(A)*op(B) + beta*C, sums in double: the last
 * resort when no CPU BLAS could be bound. */
static void reference_rm(bool ta, bool tb, int m, int n, int k, float alpha, const float *a,
                         int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++)
                s += (double)(ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p]) *
                     (tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j]);
            float *cij = &c[(size_t)i * ldc + j];
            *cij = (float)(alpha * s + (beta == 0.0f ? 0.0 : (double)beta * *cij));
        }
}

static char tchar(int t) { return t == NOTRANS ? 'N' : t == NOTRANS + 1 ? 'T' : 'C'; }

void lib_cpu_sgemm(const lib_cpu *cpu, int layout, int transa, int transb, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc)
{
    if (cpu->cblas) {
        cpu->cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    bool row = layout == ROW;
    if (cpu->f77) { /* column-major; row-major as C^T = op(B)^T op(A)^T */
        char ta = tchar(transa), tb = tchar(transb);
        if (row)
            cpu->f77(&tb, &ta, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc, 1, 1);
        else
            cpu->f77(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
        return;
    }
    if (row)
        reference_rm(transa != NOTRANS, transb != NOTRANS, m, n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc);
    else
        reference_rm(transb != NOTRANS, transa != NOTRANS, n, m, k, alpha, b, ldb, a, lda, beta,
                     c, ldc);
}

/* Row-major in double, sums in long double: the last resort. */
static void reference_drm(bool ta, bool tb, int m, int n, int k, double alpha, const double *a,
                          int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double s = 0;
            for (int p = 0; p < k; p++)
                s += (long double)(ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p]) *
                     (tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j]);
            double *cij = &c[(size_t)i * ldc + j];
            *cij = (double)(alpha * s + (beta == 0.0 ? 0.0L : (long double)beta * *cij));
        }
}

void lib_cpu_dgemm(const lib_cpu *cpu, int layout, int transa, int transb, int m, int n, int k,
                   double alpha, const double *a, int lda, const double *b, int ldb,
                   double beta, double *c, int ldc)
{
    if (cpu->dcblas) {
        cpu->dcblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    bool row = layout == ROW;
    if (cpu->df77) {
        char ta = tchar(transa), tb = tchar(transb);
        if (row)
            cpu->df77(&tb, &ta, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc, 1, 1);
        else
            cpu->df77(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
        return;
    }
    if (row)
        reference_drm(transa != NOTRANS, transb != NOTRANS, m, n, k, alpha, a, lda, b, ldb,
                      beta, c, ldc);
    else
        reference_drm(transb != NOTRANS, transa != NOTRANS, n, m, k, alpha, b, ldb, a, lda,
                      beta, c, ldc);
}
