/* lib/internal: the library's private header, shared by the files of lib/
 * that make glgemm.h (never installed, never included outside lib/).
 *
 * Contract: the files are a stack, each calling only the files below it
 * (`make cycles` checks it on the objects): no forward call, and no
 * callback upward but lib/split.h's ops, which lib/devices.c hands down.
 * Top first:
 *
 *   lib/api.c       the entry points: glgemm_open, glgemm_sgemm and its kin
 *   lib/dgemm.c     glgemm_dgemm: its checks, quick returns and routes
 *   lib/devices.c   a context of several devices (glgemm's side of lib/split.h)
 *   lib/context.c   a context's life: its settings, open, close, the setters
 *   lib/inspect.c   lib/inspect.h: what the tests read of a context
 *   lib/drun.c      glgemm_dgemm's GPU run (store=f64) and why it cannot be
 *   lib/dverify.c   glgemm_dgemm's checks of the GPU's C (checksums, full)
 *   lib/run.c       the GPU run of one variant with its band check; the warm-up
 *   lib/reserve.c   the GL context of a kind and the reserves made with it
 *   lib/records.c   where the tuning records are, and the variant chosen
 *   lib/cpuroute.c  the CPU route (the caller's CPU sgemm or the bound BLAS;
 *                   dgemm's: the bound BLAS)
 *   lib/args.c      cblas_sgemm's and cblas_dgemm's argument rules, C scaled
 *                   by beta
 *   lib/fpenv.c     the caller's floating-point flags kept across a call
 *   lib/error.c     this thread's error text, glgemm_strerror, the route text
 *
 * (lib/cpu.c, lib/env.c and lib/split.c lie below them all and know nothing
 * of glgemm_context.)  A function here that fails sets this thread's error
 * text through lib_set_error, which returns its code: a caller returns
 * lib_set_error(...), and the program reads it with glgemm_last_error. */
#ifndef GLGEMM_LIB_INTERNAL_H
#define GLGEMM_LIB_INTERNAL_H

#include <fenv.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "glgemm.h"
#include "base/inputs.h"
#include "base/pool.h"
#include "gen/gen.h"
#include "glhost/context.h"
#include "glhost/run.h"
#include "lib/cpu.h"
#include "lib/split.h"
#include "store/nearest.h"

#define MAX_FAILED 16   /* chosen variants remembered as failed, a context */
#define ROUTE_LEN 4096  /* glgemm_last_route's text, a split's included */
#define LIB_ERR_LEN 512 /* this thread's error text (glgemm_last_error) */

/* What lib/inspect.h reads of the last GPU run: its draw calls, the
 * estimate of its draws it was given (glhost/run.h expect_s), the rows of
 * its C put in before the verdict (band_check). */
typedef struct {
    long draws;
    double expect_s;
    long early_rows;
} last_run;

struct glgemm_context {
    gg_backend backend;
    int device;
    gg_ctx *gl;         /* one GL context at a time, of kind `kind` */
    gg_ctx_kind kind;
    gg_ctx_info info;
    char card[64];
    int verify;
    uint64_t calls;     /* seeds the checksums */
    gg_variant failed[MAX_FAILED]; /* chosen variants that failed here */
    int nfailed;
    bool lost;           /* the last run lost the GL context (not the variant's doing) */
    gg_run_cache *cache; /* programs kept between calls (of ctx->gl; NULL: uncached) */
    long crossover;      /* in force: m*n*k below crossover^3 goes to the CPU */
    long crossover_env;  /* from GLGEMM_CROSSOVER / the card's record (-1: none) */
    double max_draw_s;   /* the bound on one draw (store/draw.h), seconds; 0 none */
    glgemm_cpu_sgemm_fn cpu;   /* glgemm_set_cpu_sgemm's, NULL: cpu_blas */
    lib_cpu cpu_blas;          /* the CPU BLAS bound by the library (lib/cpu.h) */
    char route[ROUTE_LEN];
    bool cpu_arith;      /* the last call computed on this CPU (crossover, C scaled) */
    glgemm_timing timing; /* of the last GPU call */
    float *scratch;       /* the GPU's C before it is judged, kept between calls */
    base_pool *prep_pool; /* the checks' inputs side runs on these threads */
    size_t scratch_n;
    long reserve_mib;     /* GLGEMM_STAGING: the transfers' reserve, MiB (reserve_staging) */
    last_run last;        /* of the last GPU run (lib/inspect.h) */
    /* The last few choices of lib_choose(), by problem (records are read once). */
    struct {
        int m, n, k;
        bool have;
        gg_nearest rec;
    } memo[8];
    int memo_next;
    uint64_t memo_stamp; /* of the records folders the memo was read from */
    /* Several devices (glgemm_open_devices): NULL for one.  The devices'
     * contexts (one a device, each current on its thread) serve the tiles;
     * this one has no GL context of its own. */
    lib_split *split;
    long split_min;       /* calls with m n k below split_min^3 are one tile */
    int split_tiles;      /* tiles a device */
    atomic_bool busy;     /* a call is in progress (one at a time) */
    pid_t pid;            /* the process whose threads serve the devices */
    char (*slot_variant)[GG_VARIANT_TEXT]; /* each device's last tile's variant */
    bool fault_device;    /* GLGEMM_FAULT=device_lost fires here (base/fault.h) */
};

/* One GEMM in row-major terms (a column-major call swaps the operands). */
typedef struct {
    bool transa, transb;
    int m, n, k;
    float alpha, beta;
    const float *a, *b;
    int lda, ldb;
    float *c;
    int ldc;
} rm_gemm;

/* The same of glgemm_dgemm. */
typedef struct {
    bool transa, transb;
    int m, n, k;
    double alpha, beta;
    const double *a, *b;
    int lda, ldb;
    double *c;
    int ldc;
} rm_dgemm;

/* ---- lib/error.c ---- */

/* Sets this thread's error text (printf's fmt); returns code. */
int lib_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This thread's error text (what glgemm_last_error gives); its clearing. */
const char *lib_error_text(void);
void lib_error_clear(void);
/* How this call is being served: the text glgemm_last_route gives, and
 * whether its arithmetic runs on this CPU (then the flags it raises stay);
 * nothing for a NULL ctx. */
void lib_set_route(glgemm_context *ctx, bool cpu_arith, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- lib/fpenv.c ---- */

/* The caller's floating-point flags, kept across a call: <fenv.h>'s, and on x86 the
 * denormal-operand flag too (DE: bit 1 of MXCSR and of the x87 status word,
 * outside FE_ALL_EXCEPT; Mesa left it raised, and gfortran's runtime
 * reports it at STOP). */
typedef struct {
    fexcept_t flags;
    unsigned denorm; /* bit 0: MXCSR's DE, bit 1: the x87 status word's */
} lib_fp_state;

/* The driver's work (context creation, compiling, JIT code) may leave
 * floating-point exception flags raised in this thread that the caller's
 * arithmetic did not raise: the public entry points save them first and
 * put them back as they found them. */
void lib_fp_save(lib_fp_state *f);
void lib_fp_restore(const lib_fp_state *f);

/* ---- lib/args.c ---- */

/* cblas_sgemm's checks, in argument order (fn names the entry point);
 * fills g on success, else returns -(the argument's position) with the
 * error set. */
int lib_check_args(const char *fn, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                   int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc, rm_gemm *g);
/* alpha == 0 or k == 0: C = beta*C (zeros for beta == 0), as sgemm.f. */
void lib_scale_c(const rm_gemm *g);
/* The same of cblas_dgemm and dgemm.f. */
int lib_check_dargs(const char *fn, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                    int m, int n, int k, double alpha, const double *a, int lda,
                    const double *b, int ldb, double beta, double *c, int ldc, rm_dgemm *g);
void lib_scale_dc(const rm_dgemm *g);

/* ---- lib/cpuroute.c ---- */

/* The CPU route, row-major (g is already in those terms): the caller's
 * glgemm_set_cpu_sgemm, else the CPU BLAS the library bound (ctx NULL: the
 * process's binding). */
void lib_cpu_route(const glgemm_context *ctx, const rm_gemm *g);
/* Whether this thread is inside lib_cpu_route (where a CPU sgemm that
 * calls glgemm_sgemm back would loop). */
bool lib_in_cpu_route(void);
/* glgemm_dgemm's CPU route, row-major: the CPU BLAS the library bound
 * (glgemm_set_cpu_sgemm's function is an sgemm: not used here). */
void lib_cpu_droute(const glgemm_context *ctx, const rm_dgemm *g);

/* ---- lib/records.c ---- */

/* The recorded fp32 variant nearest m x n x k for ctx's card, if any;
 * remembered for the context's last few problems. */
bool lib_recorded(glgemm_context *ctx, int m, int n, int k, gg_nearest *rec);
/* The card's crossover record; -1 when none says. */
long lib_recorded_crossover(const char *card);
/* The bound on one draw, ms: GLGEMM_MAX_DRAW_MS, else the card's draw.txt,
 * else the default. */
double lib_recorded_draw_ms(const char *card);
/* GLGEMM_DEFAULT_VARIANT, parsed. */
void lib_default_variant(gg_variant *v);
/* What glgemm_sgemm runs for a row-major m x n x k problem. */
void lib_choose(glgemm_context *ctx, int m, int n, int k, gg_variant *v);
/* What glgemm_dgemm runs: the card's store=f64 best nearest m x n x k
 * (its own best files), else GLGEMM_DEFAULT_DVARIANT; *recorded says which. */
void lib_choose_f64(glgemm_context *ctx, int m, int n, int k, gg_variant *v, bool *recorded);
void lib_default_dvariant(gg_variant *v);

/* ---- lib/reserve.c ---- */

/* Deletes the GL context and what was kept in it. */
void lib_drop_gl(glgemm_context *ctx);
/* ctx->scratch of at least n floats, its pages written now when touch;
 * NULL (scratch_n 0) out of memory. */
float *lib_grow_scratch(glgemm_context *ctx, size_t n, bool touch);
/* Makes (or keeps) a GL context of kind, current on this thread, with its
 * staging reserve. */
int lib_use_kind(glgemm_context *ctx, gg_ctx_kind kind);
/* The scratch C's reserve, made at open. */
void lib_reserve_scratch(glgemm_context *ctx);

/* ---- lib/run.c ---- */

/* The glhost inputs of g, C0 in c0 (n a row; NULL: not read); its glhost
 * problem, repeated reps times. */
gg_inputs lib_inputs_of(const rm_gemm *g, float *c0);
gg_problem lib_problem_of(const rm_gemm *g, int reps);
/* After a GPU call (sgemm's lib/run.c, dgemm's lib/drun.c) and its
 * check: the call's timing from meas (verify_s since v0), then GLGEMM_OK
 * when bad is 0, else the error set: ENOMEM (bad < 0) or EWRONG with why. */
int lib_call_checked(glgemm_context *ctx, const char *fn, const char *vt,
                     const gg_measurement *meas, double v0, int bad, const char *why, int m,
                     int n, int k);
/* One run of variant v on ctx's own GL context; C as it was unless
 * everything passed. */
int lib_run_variant(glgemm_context *ctx, const char *fn, const gg_variant *v,
                    const rm_gemm *g);
/* glgemm_sgemm's GPU route on ctx's own GL context: the variant chosen for
 * g, the default as its one fallback. */
int lib_gpu_chosen(glgemm_context *ctx, const char *fn, const rm_gemm *g);
/* A small GEMM at open (not with GLGEMM_WARMUP=0, nor under GLGEMM_FAULT). */
void lib_warm_up(glgemm_context *ctx);

/* ---- lib/dverify.c ---- */

/* glgemm_dgemm's judgement of the GPU's C (out, m x n, n a row) against
 * g's operands and C0 (c0, m x n, NULL when beta is 0), at ctx->verify's
 * level: 0 passed, 1 failed (why says where), -1 out of memory.
 * GLGEMM_VERIFY_CHECK: C x for a few random vectors x against
 * alpha op(A) (op(B) x) + beta C0 x, in long double, within the f64 bound
 * (k + 2) 2^-52 of |alpha| |op(A)| (|op(B)| |x|) + |beta| |C0| |x|: a C
 * computed in fp32 anywhere fails it.  GLGEMM_VERIFY_FULL: every element
 * against a long double reference, within (k + 2) 2^-52 of its S. */
int lib_dverify(int level, const rm_dgemm *g, const double *c0, const double *out,
                uint64_t seed, char *why, size_t len);

/* ---- lib/drun.c ---- */

/* Why glgemm_dgemm cannot run g on ctx's GPU (no fp64 in the context of
 * v's profile, A or B past the texture limit, several devices): true with
 * the reason in why; false when it can. */
bool lib_dgemm_cpu_reason(glgemm_context *ctx, const gg_variant *v, const rm_dgemm *g,
                          char *why, size_t len);
/* One run of v (a store=f64 variant) on ctx's own GL context, judged by
 * lib_dverify; C as it was unless everything passed. */
int lib_drun_variant(glgemm_context *ctx, const char *fn, const gg_variant *v,
                     const rm_dgemm *g);

/* ---- lib/context.c ---- */

/* A context's settings, before any GL; NULL with the error set. */
glgemm_context *lib_new_ctx(const char *fn, const char *backend, int device, long *cross);
/* The crossover in force from GLGEMM_CROSSOVER (cross, -1 unset), else the
 * card's record. */
void lib_set_crossover_env(glgemm_context *ctx, long cross);
/* A context of one device, open and warmed up; NULL with the error set. */
glgemm_context *lib_open_ctx(const char *backend, int device);
/* What ctx holds but its GL context, and ctx. */
void lib_free_ctx(glgemm_context *ctx);

/* ---- lib/devices.c ---- */

/* A context of the n devices listed (one: lib_open_ctx's); fn names the
 * entry point.  NULL with the error set. */
glgemm_context *lib_devices_open(const char *fn, const char *backend, const int *devices,
                                 int n);
/* The tiles of an m x n x k call on ctx's devices. */
lib_grid lib_devices_grid(const glgemm_context *ctx, int m, int n, int k);
/* A call over ctx's devices (v NULL: glgemm_sgemm's, never an error; v:
 * glgemm_sgemm_variant's, strict). */
int lib_devices_call(glgemm_context *ctx, const char *fn, const gg_variant *v,
                     const rm_gemm *g);

#endif
