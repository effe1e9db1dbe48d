/* lib/blas.c: libglgemm_blas.so, a drop-in BLAS for unmodified programs
 * (LD_PRELOAD=libglgemm_blas.so prog, as NVBLAS).  It defines sgemm_,
 * cblas_sgemm, dgemm_ and cblas_dgemm only, with the reference BLAS's
 * semantics (netlib sgemm.f / dgemm.f and CBLAS cblas_sgemm.c /
 * cblas_dgemm.c: argument checks reported through xerbla_ / cblas_xerbla
 * with the reference's argument numbers, quick returns, beta 0 never reads
 * C, alpha 0 reads neither A nor B), and serves them with glgemm_sgemm and
 * glgemm_dgemm on a GL context of the calling thread (glgemm_dgemm's own
 * CPU route, where the GPU cannot run a dgemm, is the library's).  Every other BLAS
 * symbol is left to the program's own BLAS.  A call that glgemm cannot
 * serve (no GL context, a GPU failure, a failed verification) and one below
 * the crossover go to the CPU BLAS that the library binds itself
 * (lib/cpu.h: GLGEMM_CPU_BLAS, else the OpenBLAS it was linked with, looked
 * up through its own handle), never to a name the program or another
 * preloaded library may define: a wrapper around glgemm_sgemm is never
 * called back.
 *
 * Environment (lib/env.h parses it): GLGEMM_BACKEND (egl, glfw),
 * GLGEMM_DEVICE (an index), GLGEMM_LOG (a file, or "stderr": one line a
 * call), and what the library reads itself (GLGEMM_VERIFY,
 * GLGEMM_CROSSOVER, GLGEMM_RESULTS, ...): GLGEMM_DEVICES naming several
 * devices makes each thread's context one over those devices (glgemm.h,
 * glgemm_open_devices: its large calls split, a thread a device), in place
 * of GLGEMM_DEVICE.  A bad GLGEMM_BACKEND or GLGEMM_DEVICE (or a value
 * glgemm_open refuses) opens no context: its one line is said once on
 * stderr and the calls go to the CPU BLAS. */
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr */
#include "glgemm.h"
#include "lib/cpu.h"
#include "lib/env.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* cblas's values (glgemm.h uses the same). */
enum { ROW = 101, COL = 102, NOTRANS = 111, TRANS = 112, CONJTRANS = 113 };

typedef void (*xerbla_fn)(const char *, const int *, size_t);
typedef void (*cblas_xerbla_fn)(int, const char *, const char *, ...);

/* The four routines this library defines (hidden string lengths of the
 * Fortran ones may follow; they are not read: one character counts). */
EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                   const int *k, const float *alpha, const float *a, const int *lda,
                   const float *b, const int *ldb, const float *beta, float *c, const int *ldc);
EXPORT void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc);
EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
                   const int *k, const double *alpha, const double *a, const int *lda,
                   const double *b, const int *ldb, const double *beta, double *c,
                   const int *ldc);
EXPORT void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        double *c, int ldc);

/* One call in cblas terms, either precision (float's alpha and beta are
 * exact as doubles; the pointers are float's or double's). */
typedef struct {
    bool dbl;
    int layout, transa, transb, m, n, k;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
} gemm_call;

/* Names by precision: sgemm_/dgemm_, cblas_sgemm/cblas_dgemm, XERBLA's. */
static const char *f77_name(bool dbl) { return dbl ? "dgemm_" : "sgemm_"; }
static const char *cblas_name(bool dbl) { return dbl ? "cblas_dgemm" : "cblas_sgemm"; }

/* Set while this thread is inside one of our calls: a nested call (the
 * core objects' own cblas_sgemm, base/cpublas.c's) goes straight to the
 * CPU route. */
static _Thread_local int inside;

static char tchar(int t) { return t == NOTRANS ? 'N' : t == TRANS ? 'T' : 'C'; }

/* ---- the log (GLGEMM_LOG) ---- */

static int log_fd = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_open(void)
{
    long kind = LIB_ENV_LOG_NONE;
    char err[200], q[110];
    lib_env_get(LIB_ENV_LOG, &kind, err, sizeof err); /* any value is a log */
    if (kind == LIB_ENV_LOG_STDERR)
        log_fd = 2;
    if (kind != LIB_ENV_LOG_FILE)
        return;
    const char *p = lib_env_text(LIB_ENV_LOG);
    log_fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0)
        fprintf(stderr, "glgemm_blas: GLGEMM_LOG=%s: %s: no log\n", lib_env_quote(p, q, sizeof q),
                strerror(errno));
}

/* One line, one write(): lines of several threads and processes sharing
 * the file (O_APPEND) never mix. */
static void log_call(const char *routine, int layout, int transa, int transb, int m, int n,
                     int k, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void log_call(const char *routine, int layout, int transa, int transb, int m, int n,
                     int k, const char *fmt, ...)
{
    pthread_once(&log_once, log_open);
    if (log_fd < 0)
        return;
    char line[1024];
    int len = snprintf(line, sizeof line, "glgemm_blas %ld: %s %s %c%c m=%d n=%d k=%d: ",
                       (long)getpid(), routine, layout == ROW ? "row" : "col", tchar(transa),
                       tchar(transb), m, n, k);
    if (len < 0)
        return;
    if ((size_t)len < sizeof line) {
        va_list ap;
        va_start(ap, fmt);
        int more = vsnprintf(line + len, sizeof line - (size_t)len, fmt, ap);
        va_end(ap);
        if (more > 0)
            len += more;
    }
    if ((size_t)len > sizeof line - 2)
        len = (int)sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(log_fd, line, (size_t)len);
    (void)w;
}

/* "Said once on stderr" for each kind of hand-over. */
static atomic_int told_open, told_call, told_cpu;

static void tell_once(atomic_int *told, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tell_once(atomic_int *told, const char *fmt, ...)
{
    if (atomic_exchange(told, 1))
        return;
    char line[700];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if ((size_t)len > sizeof line - 2)
        len = (int)sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(2, line, (size_t)len);
    (void)w;
}

/* The CPU route of every call glgemm does not serve (lib/cpu.h: the CPU
 * BLAS bound through its own handle, never a name the program or another
 * preloaded library can define), cblas arguments. */
static _Thread_local int in_route; /* inside cpu_route on this thread */

static void cpu_gemm(const lib_cpu *cpu, const gemm_call *x)
{
    if (x->dbl)
        lib_cpu_dgemm(cpu, x->layout, x->transa, x->transb, x->m, x->n, x->k, x->alpha, x->a,
                      x->lda, x->b, x->ldb, x->beta, x->c, x->ldc);
    else
        lib_cpu_sgemm(cpu, x->layout, x->transa, x->transb, x->m, x->n, x->k, (float)x->alpha,
                      x->a, x->lda, x->b, x->ldb, (float)x->beta, x->c, x->ldc);
}

static void cpu_route(const gemm_call *x)
{
    /* Called back from inside the route (a CPU BLAS whose routines call
     * sgemm_ or dgemm_ through the global scope, which is ours): the
     * reference loop computes it, never the route again. */
    static const lib_cpu none;
    if (in_route) {
        cpu_gemm(&none, x);
        return;
    }
    char err[400];
    const lib_cpu *cpu = lib_cpu_process(err, sizeof err);
    if (err[0])
        tell_once(&told_cpu, "glgemm_blas: %s: the CPU route uses %s instead", err, cpu->path);
    in_route = 1;
    cpu_gemm(cpu, x);
    in_route = 0;
}

/* ---- one glgemm context a thread ---- */

static _Thread_local glgemm_context *tl_ctx;
static _Thread_local int tl_state; /* 0 not tried, 1 open, 2 failed */
static _Thread_local pid_t tl_pid;
static _Thread_local char tl_why[400];
static pthread_key_t ctx_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

static void close_ctx(void *p)
{
    glgemm_close(p);
    tl_ctx = NULL;
    tl_state = 0;
}

static void make_key(void) { key_ok = pthread_key_create(&ctx_key, close_ctx) == 0; }

/* The calling thread's context, opened on its first call; NULL when it
 * cannot be (tl_why says why).  A forked child does not use its parent's
 * GL context (it is left, not closed: it belongs to the parent's driver
 * threads) and opens its own. */
static glgemm_context *thread_ctx(void)
{
    pid_t pid = getpid();
    if (tl_state && tl_pid != pid) {
        tl_ctx = NULL;
        tl_state = 0;
        pthread_once(&key_once, make_key);
        if (key_ok)
            pthread_setspecific(ctx_key, NULL);
    }
    if (tl_state == 1)
        return tl_ctx;
    if (tl_state == 2)
        return NULL;
    tl_pid = pid;
    tl_state = 2;
    long backend, device;
    if (lib_env_get(LIB_ENV_BACKEND, &backend, tl_why, sizeof tl_why) ||
        lib_env_get(LIB_ENV_DEVICE, &device, tl_why, sizeof tl_why))
        return NULL;
    char bname[16];
    glgemm_context *ctx =
        glgemm_open(backend < 0 ? NULL : lib_env_format(LIB_ENV_BACKEND, backend, bname, sizeof bname),
                    (int)device);
    if (!ctx) {
        snprintf(tl_why, sizeof tl_why, "%s", glgemm_last_error());
        return NULL;
    }
    pthread_once(&key_once, make_key);
    if (key_ok)
        pthread_setspecific(ctx_key, ctx);
    tl_ctx = ctx;
    tl_state = 1;
    return ctx;
}

/* ---- argument checks as the reference ---- */

static int lsame(char c, char up) { return c == up || c == up + ('a' - 'A'); }
static int max1(int x) { return x > 1 ? x : 1; }

/* sgemm.f's (and dgemm.f's) checks: INFO, 0 when every argument is legal. */
static int f77_info(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    int nota = lsame(ta, 'N'), notb = lsame(tb, 'N');
    int nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (!nota && !lsame(ta, 'C') && !lsame(ta, 'T'))
        return 1;
    if (!notb && !lsame(tb, 'C') && !lsame(tb, 'T'))
        return 2;
    if (m < 0)
        return 3;
    if (n < 0)
        return 4;
    if (k < 0)
        return 5;
    if (lda < max1(nrowa))
        return 8;
    if (ldb < max1(nrowb))
        return 10;
    if (ldc < max1(m))
        return 13;
    return 0;
}

/* XERBLA('SGEMM ', INFO) or XERBLA('DGEMM ', INFO): the definition the
 * normal lookup finds (the program's own first, as a test program's; else
 * its BLAS's). */
static void call_xerbla(bool dbl, int info)
{
    const char *name = dbl ? "DGEMM " : "SGEMM ";
    xerbla_fn x = (xerbla_fn)dlsym(RTLD_DEFAULT, "xerbla_");
    if (x)
        x(name, &info, 6);
    else
        fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n", name,
                info);
}

/* cblas_xerbla(info, "cblas_sgemm" or "cblas_dgemm", ...) likewise;
 * without one, the reference's message (and the call returns, where the
 * reference exits). */
static void call_cblas_xerbla(bool dbl, int info, const char *what, int value)
{
    char form[64];
    snprintf(form, sizeof form, "Illegal %s setting, %%d\n", what);
    cblas_xerbla_fn x = (cblas_xerbla_fn)dlsym(RTLD_DEFAULT, "cblas_xerbla");
    if (x) {
        x(info, cblas_name(dbl), form, value);
    } else {
        fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, cblas_name(dbl));
        fprintf(stderr, form, value);
    }
}

/* The reference CBLAS's globals (cblas_globals.c) that its cblas_xerbla,
 * its xerbla_ and the CBLAS test program's own cblas_xerbla read: set as
 * the reference cblas_sgemm and cblas_dgemm set them, where the program
 * has them. */
static int *row_major_strg, *call_from_c;
static pthread_once_t globals_once = PTHREAD_ONCE_INIT;

static void find_globals(void)
{
    row_major_strg = dlsym(RTLD_DEFAULT, "RowMajorStrg");
    call_from_c = dlsym(RTLD_DEFAULT, "CBLAS_CallFromC");
}

static void set_globals(int row, int from_c)
{
    if (row_major_strg)
        *row_major_strg = row;
    if (call_from_c)
        *call_from_c = from_c;
}

/* ---- serving a legal call ---- */

/* cblas terms, arguments legal and not a quick return.  glgemm_sgemm or
 * glgemm_dgemm computes it, or the CPU route does when it cannot. */
static void serve(const char *routine, const gemm_call *x)
{
    /* glgemm_open, glgemm_sgemm and glgemm_dgemm leave the caller's
     * floating-point flags as found (lib/fpenv.c, the x86 denormal flag
     * included); a CPU route keeps what its own arithmetic raised. */
    const char *kind = x->dbl ? "dgemm" : "sgemm";
    glgemm_context *ctx = thread_ctx();
    if (!ctx) {
        tell_once(&told_open, "glgemm_blas: no GL context (%s): %s calls go to the "
                  "CPU BLAS", tl_why, kind);
        log_call(routine, x->layout, x->transa, x->transb, x->m, x->n, x->k,
                 "passed on: no GL context: %s", tl_why);
        cpu_route(x);
        return;
    }
    /* The crossover's CPU route is the library's own (the same binding). */
    /* Transposes as glgemm's: 'C' of a real matrix is 'T'. */
    glgemm_op ta = x->transa == NOTRANS ? GLGEMM_NOTRANS : GLGEMM_TRANS;
    glgemm_op tb = x->transb == NOTRANS ? GLGEMM_NOTRANS : GLGEMM_TRANS;
    int rc = x->dbl ? glgemm_dgemm(ctx, (glgemm_layout)x->layout, ta, tb, x->m, x->n, x->k,
                                   x->alpha, x->a, x->lda, x->b, x->ldb, x->beta, x->c, x->ldc)
                    : glgemm_sgemm(ctx, (glgemm_layout)x->layout, ta, tb, x->m, x->n, x->k,
                                   (float)x->alpha, x->a, x->lda, x->b, x->ldb, (float)x->beta,
                                   x->c, x->ldc);
    if (rc == GLGEMM_OK) {
        log_call(routine, x->layout, x->transa, x->transb, x->m, x->n, x->k, "%s",
                 glgemm_last_route(ctx));
        return;
    }
    /* The arguments passed the reference's checks, so an illegal one here
     * is glgemm's own (a NULL pointer it would read): the program's BLAS
     * does with it what it does.  C is untouched on every error. */
    char why[600];
    snprintf(why, sizeof why, "%s: %s", glgemm_strerror(rc), glgemm_last_error());
    tell_once(&told_call, "glgemm_blas: an %s call failed on the GPU (%s): such calls go "
              "to the CPU BLAS", kind, why);
    log_call(routine, x->layout, x->transa, x->transb, x->m, x->n, x->k, "passed on: %s", why);
    cpu_route(x);
}

/* ---- the exported routines ---- */

static bool quick(const gemm_call *x)
{
    return x->m == 0 || x->n == 0 || ((x->alpha == 0.0 || x->k == 0) && x->beta == 1.0);
}

/* sgemm_ and dgemm_: x in cblas terms (column-major), ta and tb the
 * caller's characters. */
static void f77_gemm(const gemm_call *x, char ta, char tb)
{
    const char *routine = f77_name(x->dbl);
    if (inside) {
        cpu_route(x);
        return;
    }
    int saved_errno = errno;
    inside = 1;
    int info = f77_info(ta, tb, x->m, x->n, x->k, x->lda, x->ldb, x->ldc);
    if (info) {
        log_call(routine, COL, x->transa, x->transb, x->m, x->n, x->k,
                 "illegal argument %d: xerbla", info);
        inside = 0; /* xerbla may not return (the reference's STOPs) */
        call_xerbla(x->dbl, info);
        errno = saved_errno;
        return;
    }
    if (quick(x))
        log_call(routine, COL, x->transa, x->transb, x->m, x->n, x->k, "quick return");
    else
        serve(routine, x);
    inside = 0;
    errno = saved_errno;
}

static int op_of(char t) { return lsame(t, 'N') ? NOTRANS : lsame(t, 'T') ? TRANS : CONJTRANS; }

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc)
{
    gemm_call x = {false, COL, op_of(*transa), op_of(*transb), *m, *n, *k, *alpha, *beta,
                   a, b, c, *lda, *ldb, *ldc};
    f77_gemm(&x, *transa, *transb);
}

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc)
{
    gemm_call x = {true, COL, op_of(*transa), op_of(*transb), *m, *n, *k, *alpha, *beta,
                   a, b, c, *lda, *ldb, *ldc};
    f77_gemm(&x, *transa, *transb);
}

/* Called from this library's own core objects (base/cpublas.c): the CPU
 * BLAS they mean. */
static int from_self(const void *ret)
{
    Dl_info self, caller;
    return dladdr((void *)from_self, &self) && dladdr(ret, &caller) &&
           self.dli_fbase == caller.dli_fbase;
}

/* cblas_sgemm and cblas_dgemm; ret: the caller's return address. */
static void cblas_gemm(const gemm_call *x, const void *ret)
{
    const char *routine = cblas_name(x->dbl);
    if (inside || from_self(ret)) {
        cpu_route(x);
        return;
    }
    int saved_errno = errno;
    inside = 1;
    pthread_once(&globals_once, find_globals);
    /* As netlib's cblas_sgemm.c and cblas_dgemm.c: the transposes here
     * (cblas_xerbla 2, 3), the rest as its call of sgemm_ / dgemm_
     * (row-major: A and B, m and n swapped) reports them, through xerbla_
     * with CBLAS_CallFromC and RowMajorStrg set, so that the reference's
     * xerbla_ / cblas_xerbla (or a test program's) renumber them as cblas
     * positions. */
    set_globals(0, 1);
    int info = 0, cinfo = 0;
    int transa = x->transa, transb = x->transb, layout = x->layout;
    int valid_t[2] = {transa == NOTRANS || transa == TRANS || transa == CONJTRANS,
                      transb == NOTRANS || transb == TRANS || transb == CONJTRANS};
    if (layout == COL || layout == ROW) {
        if (layout == ROW)
            set_globals(1, 1);
        if (!valid_t[0])
            cinfo = 2;
        else if (!valid_t[1])
            cinfo = 3;
        else if (layout == COL)
            info = f77_info(tchar(transa), tchar(transb), x->m, x->n, x->k, x->lda, x->ldb,
                            x->ldc);
        else
            info = f77_info(tchar(transb), tchar(transa), x->n, x->m, x->k, x->ldb, x->lda,
                            x->ldc);
    } else {
        cinfo = 1;
    }
    if (cinfo || info) {
        log_call(routine, layout, valid_t[0] ? transa : NOTRANS, valid_t[1] ? transb : NOTRANS,
                 x->m, x->n, x->k, "illegal argument %d: %s", cinfo ? cinfo : info,
                 cinfo ? "cblas_xerbla" : "xerbla");
        inside = 0;
        if (cinfo == 1)
            call_cblas_xerbla(x->dbl, 1, "layout", layout);
        else if (cinfo)
            call_cblas_xerbla(x->dbl, cinfo, cinfo == 2 ? "TransA" : "TransB",
                              cinfo == 2 ? transa : transb);
        else
            call_xerbla(x->dbl, info);
        set_globals(0, 0);
        errno = saved_errno;
        return;
    }
    if (quick(x))
        log_call(routine, layout, transa, transb, x->m, x->n, x->k, "quick return");
    else
        serve(routine, x);
    set_globals(0, 0);
    inside = 0;
    errno = saved_errno;
}

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc)
{
    gemm_call x = {false, layout, transa, transb, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc};
    cblas_gemm(&x, __builtin_return_address(0));
}

void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc)
{
    gemm_call x = {true, layout, transa, transb, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc};
    cblas_gemm(&x, __builtin_return_address(0));
}
