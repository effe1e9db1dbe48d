/* The library's face (glgemm.h at the repository root): BLAS argument
 * rules, quick returns and layouts here, on the CPU; the GEMM itself is
 * glhost/run.h's host with the variant the card's tuning records name
 * (store/nearest.h); the result is judged by base/checksum.h (or the
 * full reference) before C is written.  No GL header: contexts come from
 * glhost/context.h. */
#define _GNU_SOURCE /* dladdr */
#include "glgemm.h"

#include <dlfcn.h>
#include <errno.h>
#include <fenv.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "base/checksum.h"
#include "base/fault.h"
#include "base/pool.h"
#include "base/clock.h"
#include "glhost/context.h"
#include "base/inputs.h"
#include "base/reference.h"
#include "glhost/run.h"
#include "lib/cpu.h"
#include "lib/env.h"
#include "lib/inspect.h"
#include "lib/split.h"
#include "store/draw.h"
#include "store/nearest.h"
#include "store/records.h"

#define MAX_FAILED 16
#define SAMPLES 64
#define STAGING_MIB 16 /* the transfers' reserve (reserve_staging, reserve_scratch) */
#define SPLIT_MIN 2048 /* GLGEMM_SPLIT_MIN's default: smaller calls run on one device */
#define SPLIT_TILES 2  /* GLGEMM_SPLIT_TILES's default: tiles a device */
#define ROUTE_LEN 4096 /* glgemm_last_route's text, a split's included */

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
    /* The last few choices of choose(), by problem (records are read once). */
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

static _Thread_local char last_err[512];

static int set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    return code;
}

const char *glgemm_last_error(void) { return last_err; }

static const char *const arg_names[15] = {
    NULL, "layout", "transa", "transb", "m", "n", "k", "alpha", "a", "lda", "b", "ldb",
    "beta", "c", "ldc",
};

const char *glgemm_strerror(int code)
{
    static const char *const illegal[15] = {
        NULL,
        "illegal value of argument 1 (layout)",
        "illegal value of argument 2 (transa)",
        "illegal value of argument 3 (transb)",
        "illegal value of argument 4 (m)",
        "illegal value of argument 5 (n)",
        "illegal value of argument 6 (k)",
        "illegal value of argument 7 (alpha)",
        "illegal value of argument 8 (a)",
        "illegal value of argument 9 (lda)",
        "illegal value of argument 10 (b)",
        "illegal value of argument 11 (ldb)",
        "illegal value of argument 12 (beta)",
        "illegal value of argument 13 (c)",
        "illegal value of argument 14 (ldc)",
    };
    switch (code) {
    case GLGEMM_OK: return "success";
    case GLGEMM_ENOCONTEXT: return "no GL context";
    case GLGEMM_EVARIANT: return "bad variant";
    case GLGEMM_EGPU: return "the variant failed on the GPU";
    case GLGEMM_EWRONG: return "the GPU result failed verification";
    case GLGEMM_ENOMEM: return "out of memory";
    case GLGEMM_EINVAL: return "invalid argument";
    case GLGEMM_EREENTER: return "called back from its own CPU route";
    default: break;
    }
    if (code < 0 && code >= -14)
        return illegal[-code];
    return "unknown glgemm error code";
}

/* ---- contexts ---- */

/* Deletes the GL context and what was kept in it. */
static void drop_gl(glgemm_context *ctx)
{
    char err[200];
    if (ctx->cache) {
        if (ctx->gl && host_ctx_make_current(ctx->gl, err, sizeof err) == 0)
            host_run_cache_free(ctx->cache);
        else
            host_run_cache_forget(ctx->cache); /* no context to delete its objects in: the
                                                  context's end does */
        ctx->cache = NULL;
    }
    if (ctx->gl)
        host_ctx_destroy(ctx->gl);
    ctx->gl = NULL;
}

static void reserve_staging(glgemm_context *ctx);
static void reserve_scratch(glgemm_context *ctx);

/* ctx->scratch of at least n floats, kept between calls (a new buffer's
 * pages would fault in every call), its pages written now when touch;
 * NULL (scratch_n 0) out of memory. */
static float *grow_scratch(glgemm_context *ctx, size_t n, bool touch)
{
    if (ctx->scratch_n < n) {
        free(ctx->scratch);
        ctx->scratch = malloc(n * sizeof *ctx->scratch);
        ctx->scratch_n = ctx->scratch ? n : 0;
        if (ctx->scratch && touch)
            memset(ctx->scratch, 0, n * sizeof *ctx->scratch);
    }
    return ctx->scratch;
}

/* Makes (or keeps) a GL context of kind, current on this thread. */
static int use_kind(glgemm_context *ctx, gg_ctx_kind kind)
{
    char err[400] = "";
    if (ctx->gl && ctx->kind == kind) {
        if (host_ctx_make_current(ctx->gl, err, sizeof err) == 0)
            return GLGEMM_OK;
        return set_error(GLGEMM_ENOCONTEXT, "%s", err);
    }
    drop_gl(ctx);
    ctx->gl = host_ctx_create(ctx->backend, ctx->device, kind, err, sizeof err, NULL);
    if (!ctx->gl)
        return set_error(GLGEMM_ENOCONTEXT, "%s", err);
    ctx->kind = kind;
    host_ctx_query(ctx->gl, &ctx->info);
    ctx->cache = host_run_cache_new(); /* NULL: calls go uncached */
    reserve_staging(ctx);
    return GLGEMM_OK;
}

static long recorded_crossover(const char *card);
static double recorded_draw_ms(const char *card);
static void warm_up(glgemm_context *ctx);

/* A context's settings, before any GL: the backend and device checked,
 * the environment read (a bad value fails), the CPU BLAS bound; *cross is
 * GLGEMM_CROSSOVER (-1 unset).  NULL with the error set (fn names the
 * entry point). */
static glgemm_context *new_ctx(const char *fn, const char *backend, int device, long *cross)
{
    int b = host_backend_parse(backend ? backend : "egl");
    if (b < 0) {
        set_error(0, "%s: unknown backend '%.100s' (egl or glfw)", fn, backend);
        return NULL;
    }
    if (device < 0) {
        set_error(0, "%s: device %d: the index must be >= 0", fn, device);
        return NULL;
    }
    long verify, staging;
    char eerr[200];
    if (lib_env_get(LIB_ENV_VERIFY, &verify, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_CROSSOVER, cross, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_STAGING, &staging, eerr, sizeof eerr)) {
        set_error(0, "%s: %s", fn, eerr);
        return NULL;
    }
    double draw_ms;
    char draw_err[200];
    if (store_draw_env(&draw_ms, draw_err, sizeof draw_err) < 0) {
        set_error(0, "%s: %s", fn, draw_err);
        return NULL;
    }
    glgemm_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        set_error(0, "%s: out of memory", fn);
        return NULL;
    }
    if (lib_cpu_bind(&ctx->cpu_blas, NULL, eerr, sizeof eerr)) {
        set_error(0, "%s: %s", fn, eerr);
        free(ctx);
        return NULL;
    }
    ctx->backend = (gg_backend)b;
    ctx->device = device;
    ctx->verify = (int)verify;
    ctx->reserve_mib = staging >= 0 ? staging : STAGING_MIB;
    return ctx;
}

/* The crossover in force from GLGEMM_CROSSOVER (cross, -1 unset), else the
 * card's record. */
static void set_crossover_env(glgemm_context *ctx, long cross)
{
    ctx->crossover_env = cross >= 0 ? cross : recorded_crossover(ctx->card);
    ctx->crossover = ctx->crossover_env > 0 ? ctx->crossover_env : 0;
}

static glgemm_context *open_ctx(const char *backend, int device)
{
    last_err[0] = '\0';
    long cross;
    glgemm_context *ctx = new_ctx("glgemm_open", backend, device, &cross);
    if (!ctx)
        return NULL;
    gg_variant dv;
    char err[160];
    if (gen_variant_parse(GLGEMM_DEFAULT_VARIANT, NULL, &dv, err, sizeof err) ||
        use_kind(ctx, host_ctx_kind_for(dv.profile)) != GLGEMM_OK) {
        if (!ctx->gl && !last_err[0])
            set_error(0, "glgemm_open: default variant: %s", err);
        lib_cpu_unbind(&ctx->cpu_blas);
        free(ctx);
        return NULL;
    }
    base_slug(ctx->info.renderer, ctx->card, sizeof ctx->card);
    set_crossover_env(ctx, cross);
    ctx->max_draw_s = recorded_draw_ms(ctx->card) / 1000.0;
    reserve_scratch(ctx);
    warm_up(ctx);
    last_err[0] = '\0';
    return ctx;
}

/* ---- several devices (lib/split.h) ---- */

static void split_ops(lib_split_ops *ops);
static lib_grid split_grid(const glgemm_context *ctx, int m, int n, int k);

/* What the devices' threads open: a one-device context each. */
typedef struct {
    const char *backend;
    int n;
} member_args;

static void *member_open(void *user, int slot, int device, char *err, size_t errlen)
{
    const member_args *a = user;
    glgemm_context *m = open_ctx(a->backend, device);
    if (!m)
        snprintf(err, errlen, "%s", last_err); /* this thread's */
    else
        m->fault_device = slot == a->n - 1;
    return m;
}

static void member_close(void *dev) { glgemm_close(dev); }

static void free_ctx(glgemm_context *ctx);

static glgemm_context *open_split(const char *fn, const char *backend, const int *devices,
                                  int n)
{
    last_err[0] = '\0';
    if (!devices || n < 1 || n > GLGEMM_MAX_DEVICES) {
        set_error(0, "%s: %s%d devices: from 1 to %d", fn, devices ? "" : "no list, ", n,
                  GLGEMM_MAX_DEVICES);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (devices[i] < 0) {
            set_error(0, "%s: device %d (number %d of the list): the index must be >= 0", fn,
                      devices[i], i + 1);
            return NULL;
        }
    if (n == 1)
        return open_ctx(backend, devices[0]);
    long cross, split_min, split_tiles;
    glgemm_context *ctx = new_ctx(fn, backend, devices[0], &cross);
    if (!ctx)
        return NULL;
    char eerr[200];
    if (ctx->backend != GG_BACKEND_EGL) {
        set_error(0, "%s: the %s backend makes one context, on one thread: several devices "
                  "need egl", fn, host_backend_name(ctx->backend));
        free_ctx(ctx);
        return NULL;
    }
    if (lib_env_get(LIB_ENV_SPLIT_MIN, &split_min, eerr, sizeof eerr) ||
        lib_env_get(LIB_ENV_SPLIT_TILES, &split_tiles, eerr, sizeof eerr)) {
        set_error(0, "%s: %s", fn, eerr);
        free_ctx(ctx);
        return NULL;
    }
    ctx->split_min = split_min >= 0 ? split_min : SPLIT_MIN;
    ctx->split_tiles = split_tiles >= 0 ? (int)split_tiles : SPLIT_TILES;
    ctx->slot_variant = calloc((size_t)n, sizeof *ctx->slot_variant);
    lib_split_ops ops;
    split_ops(&ops);
    member_args args = {backend, n};
    char err[sizeof last_err - 100];
    ctx->split = ctx->slot_variant ? lib_split_open(devices, n, &ops, &args, err, sizeof err)
                                   : NULL;
    if (!ctx->split) {
        set_error(0, "%s: %s", fn, ctx->slot_variant ? err : "out of memory");
        free_ctx(ctx);
        return NULL;
    }
    ctx->pid = getpid();
    const glgemm_context *first = lib_split_dev(ctx->split, 0);
    memcpy(ctx->card, first->card, sizeof ctx->card);
    set_crossover_env(ctx, cross);
    last_err[0] = '\0';
    return ctx;
}

/* The caller's floating-point exception flags: <fenv.h>'s, and on x86 the
 * denormal-operand flag too (DE: bit 1 of MXCSR and of the x87 status word,
 * outside FE_ALL_EXCEPT; Mesa left it raised, and gfortran's runtime
 * reports it at STOP). */
typedef struct {
    fexcept_t flags;
    unsigned denorm; /* bit 0: MXCSR's DE, bit 1: the x87 status word's */
} fp_state;

#if defined(__x86_64__)
typedef struct {
    unsigned short cw, r1, sw, r2, tw, r3;
    unsigned ip;
    unsigned short cs, op;
    unsigned dp;
    unsigned short ds, r4;
} x87_env;

static unsigned denorm_get(void)
{
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=am"(sw));
    return (__builtin_ia32_stmxcsr() & 2u ? 1u : 0u) | (sw & 2u ? 2u : 0u);
}

static void denorm_put(unsigned want)
{
    unsigned now = denorm_get();
    if ((now ^ want) & 1u)
        __builtin_ia32_ldmxcsr((__builtin_ia32_stmxcsr() & ~2u) | (want & 1u ? 2u : 0u));
    if ((now ^ want) & 2u) {
        x87_env env;
        __asm__ volatile("fnstenv %0" : "=m"(env));
        env.sw = (unsigned short)((env.sw & ~2u) | (want & 2u));
        __asm__ volatile("fldenv %0" : : "m"(env));
    }
}
#else
static unsigned denorm_get(void) { return 0; }
static void denorm_put(unsigned want) { (void)want; }
#endif

static void fp_save(fp_state *f)
{
    fegetexceptflag(&f->flags, FE_ALL_EXCEPT);
    f->denorm = denorm_get();
}

static void fp_restore(const fp_state *f)
{
    fesetexceptflag(&f->flags, FE_ALL_EXCEPT);
    denorm_put(f->denorm);
}

/* The driver's work (context creation, compiling, JIT code) may leave
 * floating-point exception flags raised in this thread that the caller's
 * arithmetic did not raise: the public entry points put the flags back as
 * they found them. */
/* GLGEMM_DEVICES=all: every hardware device EGL lists (they come first),
 * else the one asked for. */
static int all_devices(gg_backend b, int device, int *list)
{
    int n = b == GG_BACKEND_EGL ? host_egl_hardware_devices() : 0;
    if (n > GLGEMM_MAX_DEVICES)
        n = GLGEMM_MAX_DEVICES;
    for (int i = 0; i < n; i++)
        list[i] = i;
    if (n < 1)
        list[n++] = device;
    return n;
}

glgemm_context *glgemm_open(const char *backend, int device)
{
    fp_state fp;
    fp_save(&fp);
    int list[GLGEMM_MAX_DEVICES], n;
    char err[300];
    glgemm_context *ctx = NULL;
    if (lib_env_devices(getenv("GLGEMM_DEVICES"), list, &n, err, sizeof err)) {
        set_error(0, "glgemm_open: %s", err);
    } else if (n == 0) {
        ctx = open_ctx(backend, device);
    } else {
        int b = host_backend_parse(backend ? backend : "egl");
        if (n < 0)
            n = all_devices(b < 0 ? GG_BACKEND_EGL : (gg_backend)b, device, list);
        ctx = open_split("glgemm_open", backend, list, n);
    }
    fp_restore(&fp);
    return ctx;
}

glgemm_context *glgemm_open_devices(const char *backend, const int *devices, int n)
{
    fp_state fp;
    fp_save(&fp);
    glgemm_context *ctx = open_split("glgemm_open_devices", backend, devices, n);
    fp_restore(&fp);
    return ctx;
}

/* What ctx holds but its GL context, and ctx. */
static void free_ctx(glgemm_context *ctx)
{
    /* The devices' contexts, each closed on its thread; in a forked child
     * (no such threads) left to the parent. */
    if (ctx->pid == getpid())
        lib_split_close(ctx->split);
    free(ctx->slot_variant);
    free(ctx->scratch);
    base_pool_free(ctx->prep_pool);
    lib_cpu_unbind(&ctx->cpu_blas);
    free(ctx);
}

void glgemm_close(glgemm_context *ctx)
{
    if (!ctx)
        return;
    fp_state fp;
    fp_save(&fp);
    drop_gl(ctx);
    free_ctx(ctx);
    fp_restore(&fp);
}

int glgemm_set_crossover(glgemm_context *ctx, long size)
{
    if (!ctx)
        return set_error(GLGEMM_ENOCONTEXT, "glgemm_set_crossover: ctx is NULL");
    if (size < -1 || size > 1L << 20)
        return set_error(GLGEMM_EINVAL, "glgemm_set_crossover: size %ld is not -1 or 0 .. %ld",
                         size, 1L << 20);
    ctx->crossover = size >= 0 ? size : ctx->crossover_env > 0 ? ctx->crossover_env : 0;
    return GLGEMM_OK;
}

long glgemm_crossover(const glgemm_context *ctx) { return ctx ? ctx->crossover : 0; }

int glgemm_set_cpu_sgemm(glgemm_context *ctx, glgemm_cpu_sgemm_fn fn)
{
    if (!ctx)
        return set_error(GLGEMM_ENOCONTEXT, "glgemm_set_cpu_sgemm: ctx is NULL");
    ctx->cpu = fn;
    return GLGEMM_OK;
}

const char *glgemm_last_route(const glgemm_context *ctx) { return ctx ? ctx->route : ""; }

/* How this call is being served: the text glgemm_last_route gives, and
 * whether its arithmetic runs on this CPU (then the flags it raises stay). */
static void set_route(glgemm_context *ctx, bool cpu_arith, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_route(glgemm_context *ctx, bool cpu_arith, const char *fmt, ...)
{
    if (!ctx) /* glgemm_sgemm_cpu without a context */
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->route, sizeof ctx->route, fmt, ap);
    va_end(ap);
    ctx->cpu_arith = cpu_arith;
}

void glgemm_last_timing(const glgemm_context *ctx, glgemm_timing *t)
{
    if (t)
        *t = ctx ? ctx->timing : (glgemm_timing){0};
}

const char *glgemm_card(const glgemm_context *ctx) { return ctx ? ctx->card : ""; }

int glgemm_set_verify(glgemm_context *ctx, int level)
{
    if (!ctx)
        return set_error(GLGEMM_ENOCONTEXT, "glgemm_set_verify: ctx is NULL");
    if (level < GLGEMM_VERIFY_NONE || level > GLGEMM_VERIFY_FULL)
        return set_error(GLGEMM_EINVAL, "glgemm_set_verify: level %d is not "
                         "GLGEMM_VERIFY_NONE, _CHECK or _FULL", level);
    ctx->verify = level;
    for (int i = 0; i < lib_split_count(ctx->split); i++) /* idle between calls */
        ((glgemm_context *)lib_split_dev(ctx->split, i))->verify = level;
    return GLGEMM_OK;
}

/* ---- where the tuning records are ---- */

/* PREFIX/share/glgemm/results for the file this code was loaded from
 * (PREFIX/lib/libglgemm.so or PREFIX/bin/glgemm). */
static bool installed_results(char *buf, size_t len)
{
    Dl_info di;
    char self[PATH_MAX], real[PATH_MAX];
    const char *file = NULL;
    if (dladdr((void *)glgemm_open, &di) && di.dli_fname && strchr(di.dli_fname, '/'))
        file = di.dli_fname;
    else {
        ssize_t r = readlink("/proc/self/exe", self, sizeof self - 1);
        if (r <= 0)
            return false;
        self[r] = '\0';
        file = self;
    }
    if (!realpath(file, real))
        return false;
    char *slash = strrchr(real, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return (size_t)snprintf(buf, len, "%s/../share/glgemm/results", real) < len;
}

/* The records folders in the order they count: $GLGEMM_RESULTS, the user's,
 * the installation's, ./results.  Returns how many (at most 4). */
typedef struct {
    char user[PATH_MAX], inst[PATH_MAX + 32];
    const char *dir[4];
} records_dirs;

static int find_records_dirs(records_dirs *d)
{
    int nd = 0;
    const char *env = getenv("GLGEMM_RESULTS");
    if (env && *env)
        d->dir[nd++] = env;
    if (store_user_results(d->user, sizeof d->user))
        d->dir[nd++] = d->user;
    if (installed_results(d->inst, sizeof d->inst))
        d->dir[nd++] = d->inst;
    d->dir[nd++] = "results";
    return nd;
}

/* The recorded variant nearest m x n x k for this card, if any: from the
 * first folder with a record for the card. */
static bool recorded_uncached(const glgemm_context *ctx, int m, int n, int k, gg_nearest *rec)
{
    records_dirs d;
    int nd = find_records_dirs(&d);
    for (int i = 0; i < nd; i++) {
        gg_nearest near;
        /* fp32 records only: a caller of sgemm asked for fp32 inputs, and a
         * store=f16 best rounds them to halves (a precision of its own, not
         * what the library promises), so it is passed over, never used
         * silently; the nearest fp32 best (or the default) serves. */
        if (store_best_nearest_store(d.dir[i], ctx->card, m, n, k, GG_STORE_F32, &near) == 0) {
            *rec = near;
            return true;
        }
    }
    return false;
}

/* The same, remembered for the context's last few problems (a program
 * calling sgemm in a loop reads the folders once). */
static bool recorded(glgemm_context *ctx, int m, int n, int k, gg_nearest *rec)
{
    size_t nm = sizeof ctx->memo / sizeof *ctx->memo;
    /* A best file written (atomically: a rename) changes its folder's
     * modification time: then the memo is read again. */
    records_dirs d;
    int nd = find_records_dirs(&d);
    uint64_t stamp = 1469598103934665603ULL;
    for (int i = 0; i < nd; i++) {
        char path[PATH_MAX + 200];
        struct stat st;
        store_card_dir(path, sizeof path, d.dir[i], ctx->card);
        uint64_t t = stat(path, &st) ? 0
                                     : (uint64_t)st.st_mtim.tv_sec * 1000000000ULL +
                                           (uint64_t)st.st_mtim.tv_nsec + (uint64_t)st.st_ino;
        stamp = (stamp ^ t) * 1099511628211ULL;
    }
    if (stamp != ctx->memo_stamp) {
        memset(ctx->memo, 0, sizeof ctx->memo);
        ctx->memo_next = 0;
        ctx->memo_stamp = stamp;
    }
    for (size_t i = 0; i < nm; i++)
        if (ctx->memo[i].m == m && ctx->memo[i].n == n && ctx->memo[i].k == k) {
            *rec = ctx->memo[i].rec;
            return ctx->memo[i].have;
        }
    bool have = recorded_uncached(ctx, m, n, k, rec);
    int i = ctx->memo_next;
    ctx->memo_next = (int)((size_t)(i + 1) % nm);
    ctx->memo[i].m = m;
    ctx->memo[i].n = n;
    ctx->memo[i].k = k;
    ctx->memo[i].have = have;
    if (have)
        ctx->memo[i].rec = *rec;
    return have;
}

/* The card's crossover record: "crossover: N" in <card>/crossover.txt of
 * the first records folder with a good one; -1 when none says.  A bad
 * record (store_crossover_parse) is passed over, said once a process on
 * stderr (one line). */
static long recorded_crossover(const char *card)
{
    static atomic_int told;
    records_dirs d;
    int nd = find_records_dirs(&d);
    long x = -1;
    for (int i = 0; i < nd; i++) {
        char path[PATH_MAX + 64], why[PATH_MAX + 300];
        store_crossover_path(path, sizeof path, d.dir[i], card);
        int rc = store_crossover_read_path(path, &x, why, sizeof why);
        if (rc == 0)
            return x;
        if (rc < 0 && !atomic_exchange(&told, 1))
            fprintf(stderr, "glgemm: crossover record %s; not used\n", why);
    }
    return -1;
}

/* The bound on one draw: GLGEMM_MAX_DRAW_MS, else the card's draw.txt in
 * the first records folder that has one, else the default. */
static double recorded_draw_ms(const char *card)
{
    records_dirs d;
    int nd = find_records_dirs(&d);
    return store_draw_bound_ms(d.dir, nd, card, NULL, 0);
}

static void default_variant(gg_variant *v)
{
    char err[160];
    if (gen_variant_parse(GLGEMM_DEFAULT_VARIANT, NULL, v, err, sizeof err))
        gen_variant_default(v); /* not reached: the suite parses the default */
}

/* What glgemm_sgemm runs for a row-major m x n x k problem. */
static void choose(glgemm_context *ctx, int m, int n, int k, gg_variant *v)
{
    gg_nearest rec;
    if (recorded(ctx, m, n, k, &rec)) {
        *v = rec.v;
        bool bad = false;
        for (int i = 0; i < ctx->nfailed; i++)
            bad = bad || gen_variant_equal(&ctx->failed[i], v);
        if (!bad)
            return;
    }
    default_variant(v);
}

int glgemm_variant_for(glgemm_context *ctx, int m, int n, int k, char *buf, size_t len)
{
    if (!ctx)
        return set_error(GLGEMM_ENOCONTEXT, "glgemm_variant_for: ctx is NULL");
    if (m < 1 || n < 1 || k < 1)
        return set_error(GLGEMM_EINVAL, "glgemm_variant_for: sizes %d x %d x %d must be >= 1", m, n, k);
    if (!buf || len == 0)
        return set_error(GLGEMM_EINVAL, "glgemm_variant_for: no buffer");
    gg_variant v;
    if (ctx->split) { /* the first tile's, on the first device in service */
        int i = 0;
        while (i < lib_split_count(ctx->split) && lib_split_state(ctx->split, i) != LIB_SPLIT_LIVE)
            i++;
        if (i == lib_split_count(ctx->split))
            return set_error(GLGEMM_ENOCONTEXT, "glgemm_variant_for: every device of this "
                             "context was retired");
        lib_grid grid = split_grid(ctx, m, n, k);
        choose(lib_split_dev(ctx->split, i), grid.h, grid.w, k, &v);
    } else {
        choose(ctx, m, n, k, &v);
    }
    char text[GG_VARIANT_TEXT];
    gen_variant_format(&v, text, sizeof text);
    if (strlen(text) >= len)
        return set_error(GLGEMM_EINVAL, "glgemm_variant_for: buffer of %zu too small", len);
    memcpy(buf, text, strlen(text) + 1);
    return GLGEMM_OK;
}

/* ---- arguments ---- */

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
    return set_error(-pos, "%s: argument %d (%s) %s", fn, pos, arg_names[pos], what);
}

static int max1(int x) { return x > 1 ? x : 1; }

/* cblas_sgemm's checks, in argument order; fills g on success. */
static int check_args(const char *fn, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                      int m, int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc, rm_gemm *g)
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
    bool writes = m > 0 && n > 0 && !(beta == 1.0f && (alpha == 0.0f || k == 0));
    bool reads_ab = writes && k > 0 && alpha != 0.0f;
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
    /* C^T = op(B)^T op(A)^T: a column-major C is the row-major C^T. */
    if (row)
        *g = (rm_gemm){ta, tb, m, n, k, alpha, beta, a, b, lda, ldb, c, ldc};
    else
        *g = (rm_gemm){tb, ta, n, m, k, alpha, beta, b, a, ldb, lda, c, ldc};
    return GLGEMM_OK;
}

/* alpha == 0 or k == 0: C = beta*C (zeros for beta == 0), as sgemm.f. */
static void scale_c(const rm_gemm *g)
{
    for (int i = 0; i < g->m; i++) {
        float *row = g->c + (size_t)i * g->ldc;
        for (int j = 0; j < g->n; j++)
            row[j] = g->beta == 0.0f ? 0.0f : g->beta * row[j];
    }
}

/* ---- the GPU run ---- */

static float *compact(const float *src, int rows, int cols, int ld)
{
    float *d = malloc((size_t)rows * (size_t)cols * sizeof *d);
    if (d)
        for (int i = 0; i < rows; i++)
            memcpy(d + (size_t)i * cols, src + (size_t)i * ld, (size_t)cols * sizeof *d);
    return d;
}

/* Every element against the double reference (GLGEMM_VERIFY_FULL). */
static int verify_full(const rm_gemm *g, const float *c0, const float *out, char *why,
                       size_t len)
{
    int ar = g->transa ? g->k : g->m, ac = g->transa ? g->m : g->k;
    int br = g->transb ? g->n : g->k, bc = g->transb ? g->k : g->n;
    gg_inputs in = {g->m, g->n, g->k, g->transa, g->transb, compact(g->a, ar, ac, g->lda),
                    compact(g->b, br, bc, g->ldb), NULL, ac, bc};
    int rc = -1;
    gg_reference ref = {0};
    in.c0 = (float *)c0; /* contiguous m x n, not freed here */
    if (in.a && in.b && !base_reference_compute(&in, g->alpha, g->beta, &ref, why, len)) {
        gg_verdict vd;
        base_verify(&ref, out, &vd);
        rc = vd.pass ? 0 : 1;
        if (!vd.pass)
            snprintf(why, len, "%s", vd.detail);
    }
    base_reference_free(&ref);
    free(in.a);
    free(in.b);
    return rc;
}

/* The checks' inputs side (base_checksum_prepare), on a thread of its own
 * while the GPU runs where the problem is large enough to pay for one,
 * started once the inputs are sent (run.h's sent): started before, its
 * threads slowed the packing (H100, 1024^3: the upload took 1.3-1.7 ms
 * with the checks, 0.9 ms without). */
typedef struct band_check band_check;

typedef struct {
    gg_gemm_operands ops;
    uint64_t seed;
    gg_checksum_plan *plan;
    int rc;
    base_pool *pool;  /* prepare's threads (the context's; NULL: its own thread alone) */
    pthread_t thread;
    bool threaded;
    /* After the plan, where keep is set (and has an undo): the caller's C
     * from keep's last band on kept in its undo, so the last band's rows
     * can go into C as they pass (band_check) */
    const band_check *keep;
    int per; /* rows a copy task */
} prep_job;

#define PREP_THREAD_MIN (128.0 * 128.0 * 128.0)

static void keep_last_band(prep_job *j);

static void *prep_main(void *arg)
{
    prep_job *j = arg;
    j->rc = base_checksum_prepare_pool(&j->ops, j->seed, SAMPLES, j->pool, &j->plan);
    if (j->keep)
        keep_last_band(j);
    return NULL;
}

/* run.h's sent hook: started once A and B are up. */
static void prep_start(void *arg)
{
    prep_job *j = arg;
    double work = (double)j->ops.m * j->ops.n * j->ops.k;
    j->threaded = work >= PREP_THREAD_MIN && pthread_create(&j->thread, NULL, prep_main, j) == 0;
}

static void prep_finish(prep_job *j)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    else
        prep_main(j);
}

/* The check's C side band by band, as the streamed run hands over rows
 * (run.h rows_done, on its threads): the first band to arrive waits for
 * the inputs' side; each band adds its column sums into one total.  Rows
 * that pass go into the caller's C at once, what C held kept in undo and
 * the rows marked in copied: those before the last band (last_row on)
 * while the card still draws, their undo taken here; the last band's as
 * their checks pass, their undo taken by the inputs' side (prep_main)
 * while the card drew.  A call that then fails puts them back (put_back),
 * so C is as it was on any error; one that passes has nothing left to
 * copy.  (At 4096^3 on an H100 the copy into C after the last band took
 * 2.4 ms; at 1024^3 the last band's 0.08-0.13 ms of a 3 ms call.
 * On a software rasteriser this work shares the cores with the draws; it
 * is there only with several bands, at 512^3 and more, whose draws take
 * far longer.)  Only where every page of C is in memory already
 * (in_memory): reading a new array's pages to keep them maps the zero
 * page, and writing them then copies it on every thread's behalf, 5.7-7.4
 * ms for the first band of an H100 1024^3 call against 0.5 for the
 * copy; a program whose C is new memory at each call (numpy's matmul)
 * would pay that every time. */
struct band_check {
    prep_job *prep;
    pthread_mutex_t mu;
    bool joined;
    const float *c;
    int n;
    float *dst;     /* the caller's C (ldc), undo and copied: see above */
    int ldc;
    float *undo;
    unsigned char *copied;
    int last_row;
    double *colacc; /* the column sums (colacc_len), made once the plan is */
    long rows;      /* judged so far */
    int bad;        /* 0, 1 (why, from the band at bad_row), -1 out of memory */
    int bad_row;
    char why[400];
};

static void keep_rows(void *arg, int t)
{
    const prep_job *j = arg;
    const band_check *b = j->keep;
    int r0 = b->last_row + t * j->per, r1 = r0 + j->per < j->ops.m ? r0 + j->per : j->ops.m;
    for (int i = r0; i < r1; i++)
        memcpy(b->undo + (size_t)i * b->n, b->dst + (size_t)i * b->ldc,
               (size_t)b->n * sizeof *b->undo);
}

/* prep_main's: the last band's rows of C (ldc) into the undo (n a row), on
 * prepare's threads. */
static void keep_last_band(prep_job *j)
{
    int rows = j->ops.m - j->keep->last_row, tasks = 2 * base_pool_threads(j->pool);
    if (rows <= 0)
        return;
    j->per = (rows + tasks - 1) / tasks;
    base_pool_run(j->pool, (rows + j->per - 1) / j->per, keep_rows, j);
}

static void rows_check(void *user, int r0, int r1)
{
    band_check *b = user;
    pthread_mutex_lock(&b->mu);
    if (!b->joined) {
        prep_finish(b->prep);
        b->joined = true;
        if (!b->prep->rc)
            b->colacc = calloc(base_checksum_colacc_len(b->prep->plan), sizeof *b->colacc);
    }
    pthread_mutex_unlock(&b->mu);
    const gg_checksum_plan *plan = b->prep->plan;
    double *acc = b->colacc ? calloc(base_checksum_colacc_len(plan), sizeof *acc) : NULL;
    char why[sizeof b->why] = "";
    int r = acc ? base_checksum_check_rows(plan, b->c, b->n, r0, r1, acc, why, sizeof why) : -1;
    pthread_mutex_lock(&b->mu);
    /* passed and none failed so far */
    bool early = r == 0 && b->bad == 0 && b->undo;
    bool kept = r0 >= b->last_row; /* the last band's: undo taken by prep_main */
    if (r == 0)
        base_checksum_colacc_add(plan, b->colacc, acc);
    b->rows += r1 - r0;
    if (r != 0 && (b->bad == 0 || (r > 0 && (b->bad < 0 || r0 < b->bad_row)))) {
        b->bad = r;
        b->bad_row = r0;
        memcpy(b->why, why, sizeof why);
    }
    pthread_mutex_unlock(&b->mu);
    for (int i = r0; early && i < r1; i++) {
        size_t row = (size_t)i * b->n, at = (size_t)i * b->ldc, bytes = (size_t)b->n * sizeof *b->c;
        if (!kept)
            memcpy(b->undo + row, b->dst + at, bytes);
        memcpy(b->dst + at, b->c + row, bytes);
        b->copied[i] = 1;
    }
    free(acc);
}

/* The judged result into the caller's C, in row slices on the context's
 * threads (64 MiB took 4 ms on one). */
typedef struct {
    const rm_gemm *g;
    const float *out;
    const unsigned char *skip; /* rows not to copy (NULL none) */
    int per;
} copy_job;

static void copy_rows(void *arg, int t)
{
    const copy_job *j = arg;
    const rm_gemm *g = j->g;
    int r1 = (t + 1) * j->per < g->m ? (t + 1) * j->per : g->m;
    for (int i = t * j->per; i < r1; i++)
        if (!j->skip || !j->skip[i])
            memcpy(g->c + (size_t)i * g->ldc, j->out + (size_t)i * g->n,
                   (size_t)g->n * sizeof *j->out);
}

/* out's rows into the caller's C, but those in skip. */
static void copy_out(glgemm_context *ctx, const rm_gemm *g, const float *out,
                     const unsigned char *skip)
{
    size_t bytes = (size_t)g->m * g->n * sizeof *out;
    base_pool *pool = bytes >= ((size_t)1 << 20) ? host_run_cache_pool(ctx->cache) : NULL;
    int tasks = 2 * base_pool_threads(pool);
    copy_job j = {g, out, skip, (g->m + tasks - 1) / tasks};
    base_pool_run(pool, (g->m + j.per - 1) / j.per, copy_rows, &j);
}

/* Whether every page of the caller's C (m rows of ldc) is in memory
 * (mincore); false when that cannot be told. */
static bool in_memory(const rm_gemm *g)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || g->m <= 0 || g->n <= 0)
        return false;
    uintptr_t lo = (uintptr_t)g->c & ~(uintptr_t)(page - 1);
    uintptr_t hi = (uintptr_t)(g->c + (size_t)(g->m - 1) * g->ldc + g->n);
    size_t pages = (hi - lo + (size_t)page - 1) / (size_t)page;
    unsigned char *vec = malloc(pages);
    bool all = vec && mincore((void *)lo, hi - lo, vec) == 0;
    for (size_t i = 0; all && i < pages; i++)
        all = vec[i] & 1;
    free(vec);
    return all;
}

/* A failed call: the rows already copied into C as they were. */
static void put_back(const band_check *b, const rm_gemm *g)
{
    for (int i = 0; b->copied && i < g->m; i++)
        if (b->copied[i])
            memcpy(g->c + (size_t)i * g->ldc, b->undo + (size_t)i * g->n,
                   (size_t)g->n * sizeof *b->undo);
}

/* An upper estimate of v's draws for g (glhost/run.h expect_s), when v is
 * the variant the card's record nearest g names and the record gives its
 * rate: the record's time, times k / K and (m n) / (M N) where each is
 * above 1.  A fragment's work grows with k, and fewer fragments than the
 * record's take no longer than its, so neither ratio is let below 1: the
 * estimate errs long (a 64^3 call is given a 1024^3 record's whole time).
 * 0 otherwise. */
static double expected_s(glgemm_context *ctx, const gg_variant *v, const rm_gemm *g)
{
    gg_nearest rec;
    if (!recorded(ctx, g->m, g->n, g->k, &rec) || !gen_variant_equal(&rec.v, v) ||
        !(rec.gflops > 0))
        return 0;
    double rec_s = 2.0 * rec.m * (double)rec.n * rec.k / (rec.gflops * 1e9);
    double kr = (double)g->k / rec.k, fr = (double)g->m * g->n / ((double)rec.m * rec.n);
    return rec_s * (kr > 1 ? kr : 1) * (fr > 1 ? fr : 1);
}

/* The glhost inputs of g, C0 in c0 (n a row; NULL: not read). */
static gg_inputs inputs_of(const rm_gemm *g, float *c0)
{
    /* The host reads the operands only (gg_inputs is shared with owners). */
    return (gg_inputs){g->m, g->n, g->k, g->transa, g->transb, (float *)g->a, (float *)g->b,
                       c0, g->lda, g->ldb};
}

/* The glhost problem of g, repeated reps times. */
static gg_problem problem_of(const rm_gemm *g, int reps)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = g->m;
    p.n = g->n;
    p.k = g->k;
    p.transa = g->transa;
    p.transb = g->transb;
    p.alpha = g->alpha;
    p.beta = g->beta;
    p.reps = reps;
    return p;
}

/* One run of variant v; C as it was unless everything passed. */
static int run_variant(glgemm_context *ctx, const char *fn, const gg_variant *v,
                       const rm_gemm *g)
{
    double t_start = base_now_s();
    ctx->last = (last_run){0};
    prep_job prep = {.plan = NULL, .threaded = false};
    bool check = ctx->verify == GLGEMM_VERIFY_CHECK;
    /* last_row: m until a streamed run says where its last band starts (an
     * unstreamed one, with no staging, never does: nothing to keep) */
    band_check bc = {.prep = &prep, .mu = PTHREAD_MUTEX_INITIALIZER, .n = g->n, .last_row = g->m};
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    int rc = use_kind(ctx, host_ctx_kind_for(v->profile));
    if (rc) {
        char why[sizeof last_err];
        memcpy(why, last_err, sizeof why);
        return set_error(rc, "%s: %s: no GL context: %.300s", fn, vt, why);
    }
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = true;
    o.stream = true;
    o.cache = ctx->cache;
    o.max_draw_s = ctx->max_draw_s;
    o.expect_s = o.max_draw_s > 0 ? expected_s(ctx, v, g) : 0;
    size_t mn = (size_t)g->m * (size_t)g->n;
    /* Into C band by band (band_check) where the call streams in several
     * bands: the scratch holds the undo after C (and where that much memory
     * is not to be had, C alone, copied after the verdict). */
    bool early = check &&
                 host_run_stream_bands(&ctx->info, v, &o,
                                       &(gg_inputs){.m = g->m, .n = g->n, .k = g->k}) > 1 &&
                 in_memory(g);
    float *out = grow_scratch(ctx, early ? 2 * mn : mn, false);
    if (!out && early) {
        early = false;
        out = grow_scratch(ctx, mn, false);
    }
    float *c0 = NULL;
    bool own_c0 = false;
    if (g->beta != 0.0f) {
        own_c0 = g->ldc != g->n;
        c0 = own_c0 ? compact(g->c, g->m, g->n, g->ldc) : g->c;
    }
    if (!out || (g->beta != 0.0f && !c0)) {
        rc = set_error(GLGEMM_ENOMEM, "%s: out of memory for %dx%d", fn, g->m, g->n);
        goto done;
    }
    gg_inputs in = inputs_of(g, c0);
    gg_problem p = problem_of(g, 1);
    prep.ops = (gg_gemm_operands){g->m, g->n, g->k, g->alpha, g->beta,
                                  {g->a, g->lda, g->transa}, {g->b, g->ldb, g->transb}, c0, g->n};
    prep.seed = ++ctx->calls;
    if (check && !ctx->prep_pool)
        ctx->prep_pool = base_pool_new(0); /* NULL: prepare on its one thread */
    prep.pool = ctx->prep_pool;
    bc.c = out;
    if (early && out) {
        bc.copied = calloc((size_t)g->m, 1);
        bc.undo = bc.copied ? out + mn : NULL;
        bc.dst = g->c;
        bc.ldc = g->ldc;
        o.last_band_row = &bc.last_row;
        prep.keep = bc.undo ? &bc : NULL;
    }
    if (check) {
        o.sent = prep_start;
        o.sent_user = &prep;
        o.rows_done = rows_check;
        o.rows_user = &bc;
    }
    gg_measurement meas;
    host_run_current(&ctx->info, v, &p, &in, NULL, &o, &meas, out, NULL);
    if (ctx->fault_device && meas.status == GG_OK && base_fault("device_lost")) {
        meas.status = GG_CONTEXT_LOST; /* tests only (base/fault.h) */
        snprintf(meas.detail, sizeof meas.detail, "the device's context was lost after its "
                 "run (fault device_lost)");
    }
    ctx->last.draws = meas.draws;
    ctx->last.expect_s = o.expect_s;
    for (int i = 0; bc.copied && i < g->m; i++)
        ctx->last.early_rows += bc.copied[i];
    double v0 = base_now_s();
    if (check && !bc.joined && (prep.threaded || meas.status == GG_OK))
        prep_finish(&prep);
    ctx->lost = meas.status == GG_CONTEXT_LOST;
    if (meas.status != GG_OK) {
        if (ctx->lost)
            drop_gl(ctx); /* made again on the next call */
        rc = set_error(GLGEMM_EGPU, "%s: %s: %s: %s", fn, vt, base_status_name(meas.status),
                       meas.detail);
        goto done;
    }
    char why[400] = "";
    int bad = 0;
    if (check && bc.rows == g->m) { /* streamed: every band judged, the columns left */
        bad = bc.colacc ? bc.bad : -1;
        if (bad > 0)
            memcpy(why, bc.why, sizeof why < sizeof bc.why ? sizeof why : sizeof bc.why);
        else if (!bad)
            bad = base_checksum_check_cols(prep.plan, bc.colacc, why, sizeof why);
    } else if (check) {
        bad = prep.rc ? -1 : base_checksum_check(prep.plan, out, g->n, why, sizeof why);
    } else if (ctx->verify == GLGEMM_VERIFY_FULL) {
        bad = verify_full(g, c0, out, why, sizeof why);
    }
    ctx->timing.upload_s = meas.upload_s;
    ctx->timing.run_s = meas.run_s;
    ctx->timing.readback_s = meas.readback_s;
    ctx->timing.verify_s = base_now_s() - v0;
    if (bad < 0) {
        rc = set_error(GLGEMM_ENOMEM, "%s: out of memory verifying %dx%dx%d", fn, g->m, g->n,
                       g->k);
        goto done;
    }
    if (bad) {
        rc = set_error(GLGEMM_EWRONG, "%s: %s: wrong result: %s", fn, vt, why);
        goto done;
    }
    if (ctx->last.early_rows < g->m) /* else every row went in as it passed */
        copy_out(ctx, g, out, bc.copied);
    set_route(ctx, false, "gpu %s", vt);
    ctx->timing.total_s = base_now_s() - t_start;
    rc = GLGEMM_OK;
done:
    if (rc != GLGEMM_OK)
        put_back(&bc, g);
    free(bc.copied);
    free(bc.colacc);
    pthread_mutex_destroy(&bc.mu);
    base_checksum_free(prep.plan);
    if (own_c0)
        free(c0);
    return rc;
}

/* The transfers' buffers, made ahead of the calls (GLGEMM_STAGING MiB,
 * default STAGING_MIB; 0 none): each GL context's upload staging of that
 * size and its read-back staging of half, made with the context (at open,
 * and again when a call's variant needs another kind of context or a lost
 * one is made again), and the scratch C of half, made at open; their pages
 * touched, so that a first call that fits them makes none (an H100's first
 * 1024^3 call spent 5.3-5.7 ms making its 12 MiB of staging).  Calls that
 * need more grow them. */
static void reserve_staging(glgemm_context *ctx)
{
    size_t up = (size_t)ctx->reserve_mib << 20;
    if (up && ctx->cache)
        (void)host_rc_staging_reserve(ctx->cache, up, up / 2);
}

static void reserve_scratch(glgemm_context *ctx)
{
    size_t floats = ((size_t)ctx->reserve_mib << 20) / 2 / sizeof *ctx->scratch;
    if (floats)
        (void)grow_scratch(ctx, floats, true);
}

long lib_inspect_staging_made(const glgemm_context *ctx)
{
    return ctx ? host_rc_staging_made(ctx->cache) : 0;
}

long lib_inspect_last_draws(const glgemm_context *ctx) { return ctx ? ctx->last.draws : 0; }

double lib_inspect_last_expect_s(const glgemm_context *ctx)
{
    return ctx ? ctx->last.expect_s : 0;
}

long lib_inspect_last_early_rows(const glgemm_context *ctx)
{
    return ctx ? ctx->last.early_rows : 0;
}

long lib_inspect_split_tiles(const glgemm_context *ctx, int slot)
{
    return ctx ? lib_split_served(ctx->split, slot) : 0;
}

int lib_inspect_split_live(const glgemm_context *ctx)
{
    return ctx ? lib_split_live(ctx->split) : 0;
}

double lib_inspect_kernel_s(glgemm_context *ctx, int m, int n, int k, const float *a,
                            const float *b, int reps)
{
    if (!ctx || !a || !b || m < 1 || n < 1 || k < 1 || reps < 1 || ctx->split) {
        set_error(GLGEMM_EINVAL, "lib_inspect_kernel_s: no context, a context of several "
                  "devices, no operand or a size < 1");
        return -1;
    }
    gg_variant v;
    choose(ctx, m, n, k, &v);
    if (use_kind(ctx, host_ctx_kind_for(v.profile)))
        return -1;
    rm_gemm g = {.m = m, .n = n, .k = k, .alpha = 1.0f, .a = a, .b = b, .lda = k, .ldb = n,
                 .ldc = n};
    gg_inputs in = inputs_of(&g, NULL);
    gg_problem p = problem_of(&g, reps);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.same_inputs = true; /* as bench: the inputs stay, the draws are timed */
    /* no cache: its own program, textures and targets, made and freed
     * outside the timing, so the calls' kept ones stay as they were */
    o.max_draw_s = ctx->max_draw_s;
    gg_measurement meas;
    fp_state flags; /* as glgemm_sgemm: the caller's flags as found */
    fp_save(&flags);
    host_run_current(&ctx->info, &v, &p, &in, NULL, &o, &meas, NULL, NULL);
    fp_restore(&flags);
    if (meas.status == GG_CONTEXT_LOST)
        drop_gl(ctx); /* made again on the next call, as after a call's */
    if (meas.status != GG_OK) {
        set_error(GLGEMM_EGPU, "lib_inspect_kernel_s: %s: %s", base_status_name(meas.status),
                  meas.detail);
        return -1;
    }
    return meas.seconds;
}

/* A small GEMM at open, on the GPU whatever the crossover, with the variant
 * chosen for it: the driver builds its per-process pieces of the pipeline
 * (llvmpipe JIT-compiles the vertex and set-up code, which Mesa's disk cache
 * does not keep, ~12 ms), and the context its thread team and buffers, so
 * that the first call pays for its own program only.  Its result is
 * discarded and its failure ignored (the calls meet it again, with their
 * fallback).  Not with GLGEMM_WARMUP=0, nor under GLGEMM_FAULT (a test's
 * fault is for its calls). */
static void warm_up(glgemm_context *ctx)
{
    const char *e = getenv("GLGEMM_WARMUP");
    if ((e && !strcmp(e, "0")) || base_fault_any())
        return;
    enum { W = 64 };
    float *buf = malloc(3 * W * W * sizeof *buf);
    if (!buf)
        return;
    for (int i = 0; i < 2 * W * W; i++)
        buf[i] = (float)(i % 7 - 3);
    rm_gemm g = {.m = W, .n = W, .k = W, .alpha = 1.0f, .beta = 0.0f, .a = buf, .lda = W,
                 .b = buf + W * W, .ldb = W, .c = buf + 2 * W * W, .ldc = W};
    gg_variant v;
    choose(ctx, W, W, W, &v);
    (void)run_variant(ctx, "glgemm_open", &v, &g);
    free(buf);
    ctx->lost = false;
    ctx->timing = (glgemm_timing){0};
    ctx->last = (last_run){0};
    ctx->route[0] = '\0'; /* no call yet */
    ctx->cpu_arith = false;
}

/* This thread's calls: depth > 0 inside glgemm_sgemm, in_cpu inside its
 * CPU route (where a CPU sgemm that calls glgemm_sgemm back would loop). */
static _Thread_local int depth;
static _Thread_local bool in_cpu;

/* The CPU route, row-major (g is already in those terms): the caller's
 * glgemm_set_cpu_sgemm, else the CPU BLAS the library bound (the process's
 * binding without a context). */
static void cpu_sgemm(const glgemm_context *ctx, const rm_gemm *g)
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

/* glgemm_sgemm's GPU route on ctx's own GL context: the variant chosen for
 * g, the default as its one fallback. */
static int gpu_chosen(glgemm_context *ctx, const char *fn, const rm_gemm *g)
{
    gg_variant v;
    choose(ctx, g->m, g->n, g->k, &v);
    ctx->lost = false;
    int rc = run_variant(ctx, fn, &v, g);
    gg_variant dv;
    default_variant(&dv);
    if ((rc == GLGEMM_EGPU || rc == GLGEMM_EWRONG) && !gen_variant_equal(&v, &dv)) {
        char first[sizeof last_err];
        memcpy(first, last_err, sizeof first);
        /* A lost context (a reset) is no fault of the variant: it stays
         * the one chosen for the next call. */
        if (ctx->nfailed < MAX_FAILED && !ctx->lost)
            ctx->failed[ctx->nfailed++] = v;
        rc = run_variant(ctx, fn, &dv, g);
        if (rc) {
            char second[sizeof last_err];
            memcpy(second, last_err, sizeof second);
            set_error(rc, "%.250s; then the default: %.250s", first, second);
        }
    }
    return rc;
}

/* ---- a call over several devices (lib/split.h) ---- */

/* One split call, as the devices' threads see it. */
typedef struct {
    glgemm_context *ctx;  /* the context of several devices */
    const char *fn;
    const rm_gemm *g;
    const gg_variant *v;  /* glgemm_sgemm_variant's; NULL: each device's choice */
    float *undo;          /* a strict call of several tiles: C as it was, n a row */
    unsigned char *saved; /* by tile: its block is in undo */
} tile_job;

/* The part of g a tile computes: its rows of op(A), its columns of op(B),
 * its block of C (the same leading dimensions). */
static rm_gemm tile_gemm(const rm_gemm *g, const lib_tile *t)
{
    rm_gemm s = *g;
    s.m = t->r1 - t->r0;
    s.n = t->c1 - t->c0;
    s.a = g->transa ? g->a + t->r0 : g->a + (size_t)t->r0 * g->lda;
    s.b = g->transb ? g->b + (size_t)t->c0 * g->ldb : g->b + t->c0;
    s.c = g->c + (size_t)t->r0 * g->ldc + t->c0;
    return s;
}

/* rows x cols floats from src (ld ls) to dst (ld ld). */
static void copy_block(float *dst, size_t ld, const float *src, size_t ls, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        memcpy(dst + (size_t)i * ld, src + (size_t)i * ls, (size_t)cols * sizeof *dst);
}

/* lib_split's run, on the device's thread: the tile on its context, as a
 * call of its own (the member's checks; C untouched if it fails). */
static int tile_run(void *dev, int slot, void *job, const lib_tile *t, char *why, size_t len)
{
    glgemm_context *d = dev;
    tile_job *j = job;
    rm_gemm sub = tile_gemm(j->g, t);
    if (j->undo) {
        copy_block(j->undo + (size_t)t->r0 * j->g->n + t->c0, (size_t)j->g->n, sub.c,
                   (size_t)sub.ldc, sub.m, sub.n);
        j->saved[t->index] = 1;
    }
    int rc = j->v ? run_variant(d, j->fn, j->v, &sub) : gpu_chosen(d, j->fn, &sub);
    if (rc)
        snprintf(why, len, "%s (device %d, tile of %dx%d at row %d, column %d)", last_err,
                 d->device, sub.m, sub.n, t->r0, t->c0);
    if (rc)
        return rc;
    const char *vt = strncmp(d->route, "gpu ", 4) ? d->route : d->route + 4;
    size_t vl = strnlen(vt, sizeof *j->ctx->slot_variant - 1);
    memcpy(j->ctx->slot_variant[slot], vt, vl);
    j->ctx->slot_variant[slot][vl] = '\0';
    return 0;
}

/* lib_split's cpu, on the caller's thread: no device left. */
static void tile_cpu(void *job, const lib_tile *t)
{
    tile_job *j = job;
    rm_gemm sub = tile_gemm(j->g, t);
    cpu_sgemm(j->ctx, &sub);
}

static void split_ops(lib_split_ops *ops)
{
    *ops = (lib_split_ops){member_open, tile_run, tile_cpu, member_close};
}

/* The tiles of an m x n x k call: one below GLGEMM_SPLIT_MIN, else
 * GLGEMM_SPLIT_TILES a device in service. */
static lib_grid split_grid(const glgemm_context *ctx, int m, int n, int k)
{
    double lim = (double)ctx->split_min * (double)ctx->split_min * (double)ctx->split_min;
    bool one = (double)m * (double)n * (double)k < lim;
    return lib_split_grid(m, n, one ? 1 : lib_split_live(ctx->split) * ctx->split_tiles);
}

/* glgemm_last_route of a split call. */
static void split_route(glgemm_context *ctx, const lib_grid *grid)
{
    const lib_split *s = ctx->split;
    int nt = lib_grid_count(grid);
    long cpu = lib_split_served(s, -1);
    char *r = ctx->route;
    size_t len = sizeof ctx->route, o = 0;
#define ROUTE_ADD(...) \
    (o += o < len ? (size_t)snprintf(r + o, len - o, __VA_ARGS__) : 0)
    if (nt > 1)
        ROUTE_ADD("split %d tiles of %dx%d:", nt, grid->h, grid->w);
    const char *sep = " ";
    for (int i = 0; i < lib_split_count(s); i++) {
        long served = lib_split_served(s, i);
        if (served && nt > 1)
            ROUTE_ADD("%sdevice %d: %ld gpu %s", sep, lib_split_device(s, i), served,
                      ctx->slot_variant[i]);
        else if (served)
            ROUTE_ADD("gpu %s on device %d", ctx->slot_variant[i], lib_split_device(s, i));
        sep = served ? ", " : sep;
    }
    if (cpu)
        ROUTE_ADD(nt > 1 ? "%scpu: %ld" : "cpu: no device left", sep, cpu);
    for (int i = 0; i < lib_split_count(s); i++)
        if (lib_split_state(s, i) == LIB_SPLIT_RETIRED_NOW)
            ROUTE_ADD("; device %d retired: %s", lib_split_device(s, i), lib_split_why(s, i));
#undef ROUTE_ADD
    ctx->cpu_arith = cpu == nt;
}

/* A call over ctx's devices: tiles of C handed out to them (lib/split.h).
 * glgemm_sgemm's (v NULL): a device whose tile fails is retired and the
 * tile done again, on the CPU when no device is left: never an error.
 * glgemm_sgemm_variant's (v): every tile with v; one that fails fails the
 * call, and the tiles written are put back. */
static int split_call(glgemm_context *ctx, const char *fn, const gg_variant *v,
                      const rm_gemm *g)
{
    double t0 = base_now_s();
    if (!lib_split_live(ctx->split)) {
        if (v)
            return set_error(GLGEMM_ENOCONTEXT, "%s: every device of this context was retired "
                             "(its tiles failed)", fn);
        cpu_sgemm(ctx, g);
        set_route(ctx, true, "cpu: no device left");
        return GLGEMM_OK;
    }
    lib_grid grid = split_grid(ctx, g->m, g->n, g->k);
    int nt = lib_grid_count(&grid);
    tile_job j = {ctx, fn, g, v, NULL, NULL};
    if (v && nt > 1) {
        j.undo = malloc((size_t)g->m * (size_t)g->n * sizeof *j.undo);
        j.saved = calloc((size_t)nt, 1);
        if (!j.undo || !j.saved) {
            free(j.undo);
            free(j.saved);
            return set_error(GLGEMM_ENOMEM, "%s: out of memory for C's %dx%d as it was", fn,
                             g->m, g->n);
        }
    }
    char why[sizeof last_err];
    int rc = lib_split_run(ctx->split, v ? LIB_SPLIT_STRICT : LIB_SPLIT_RETIRE, &j, g->m, g->n,
                           &grid, why, sizeof why);
    for (int i = 0; rc && j.saved && i < nt; i++)
        if (j.saved[i]) {
            lib_tile t = lib_grid_tile(&grid, g->m, g->n, i);
            copy_block(g->c + (size_t)t.r0 * g->ldc + t.c0, (size_t)g->ldc,
                       j.undo + (size_t)t.r0 * g->n + t.c0, (size_t)g->n, t.r1 - t.r0,
                       t.c1 - t.c0);
        }
    free(j.undo);
    free(j.saved);
    if (rc < 0)
        return set_error(GLGEMM_ENOMEM, "%s: %s", fn, why);
    if (rc)
        return set_error(rc, "%s", why);
    split_route(ctx, &grid);
    ctx->timing.total_s = base_now_s() - t0;
    return GLGEMM_OK;
}

/* Checks, quick returns; then GPU: explicit variant, or the chosen one with
 * the default as the one fallback. */
enum { SERVE_CHOSEN, SERVE_VARIANT, SERVE_CPU }; /* glgemm_sgemm, _variant, _cpu */

static int serve_call(glgemm_context *ctx, const char *fn, int serve, const char *variant,
                 glgemm_layout layout, glgemm_op transa, glgemm_op transb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc)
{
    if (!ctx && serve != SERVE_CPU) /* the CPU route needs none (lib_cpu_process) */
        return set_error(GLGEMM_ENOCONTEXT, "%s: ctx is NULL (glgemm_open failed?)", fn);
    set_route(ctx, false, "error");
    if (ctx)
        ctx->timing = (glgemm_timing){0};
    rm_gemm g;
    int rc = check_args(fn, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, &g);
    if (rc)
        return rc;
    gg_variant v;
    gg_nearest rec;
    bool explicit_variant = serve == SERVE_VARIANT;
    if (explicit_variant) {
        char err[200];
        if (!variant)
            return set_error(GLGEMM_EVARIANT, "%s: variant is NULL", fn);
        /* `best` names the card's record nearest this problem. */
        bool have_rec = g.m > 0 && g.n > 0 && g.k > 0 && recorded(ctx, g.m, g.n, g.k, &rec);
        if (gen_variant_parse(variant, have_rec ? &rec.v : NULL, &v, err, sizeof err))
            return set_error(GLGEMM_EVARIANT, "%s: variant '%.100s': %s", fn, variant, err);
        if (v.store != GG_STORE_F32) /* the library's contract is fp32 inputs */
            return set_error(GLGEMM_EVARIANT, "%s: variant '%.100s': store=%s rounds A and B "
                             "to half floats; the library computes with fp32 inputs only "
                             "(store=f32)", fn, variant, gen_store_name(v.store));
    }
    set_route(ctx, true, "quick return");
    if (g.m == 0 || g.n == 0 || ((g.alpha == 0.0f || g.k == 0) && g.beta == 1.0f))
        return GLGEMM_OK;
    if (g.alpha == 0.0f || g.k == 0) {
        scale_c(&g);
        return GLGEMM_OK;
    }
    set_route(ctx, false, "error");
    if (in_cpu) /* its CPU route called it back: that route cannot serve this call */
        return set_error(GLGEMM_EREENTER, "%s: called back from inside its own CPU route "
                         "(the CPU sgemm %s calls glgemm_sgemm): not computed, C untouched",
                         fn, ctx && ctx->cpu ? "set by glgemm_set_cpu_sgemm"
                             : ctx ? ctx->cpu_blas.path : lib_cpu_process(NULL, 0)->path);
    if (serve == SERVE_CPU || depth > 1) { /* depth: re-entered, not from the CPU route */
        cpu_sgemm(ctx, &g);
        set_route(ctx, true, serve == SERVE_CPU ? "cpu" : "cpu re-entered");
        return GLGEMM_OK;
    }
    if (explicit_variant)
        return ctx->split ? split_call(ctx, fn, &v, &g) : run_variant(ctx, fn, &v, &g);
    double c3 = (double)ctx->crossover * (double)ctx->crossover * (double)ctx->crossover;
    if ((double)g.m * (double)g.n * (double)g.k < c3) {
        cpu_sgemm(ctx, &g);
        set_route(ctx, true, "cpu crossover %ld", ctx->crossover);
        return GLGEMM_OK;
    }
    return ctx->split ? split_call(ctx, fn, NULL, &g) : gpu_chosen(ctx, fn, &g);
}

/* A public call: serve_call inside this thread's depth count, the caller's
 * floating-point flags as found after it, unless the arithmetic ran on this
 * CPU (the crossover's CPU BLAS, C scaled by beta, glgemm_sgemm_cpu without a
 * context): then what it raised stays. */
static int sgemm(glgemm_context *ctx, const char *fn, int serve, const char *variant,
                 glgemm_layout layout, glgemm_op transa, glgemm_op transb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc)
{
    /* One call at a time on a context of several devices (a call made
     * from inside one on this thread is served on the CPU, or refused) */
    bool hold = ctx && ctx->split && depth == 0;
    if (ctx && ctx->split && ctx->pid != getpid())
        return set_error(GLGEMM_ENOCONTEXT, "%s: this context of several devices was opened by "
                         "another process (a forked child has none of its threads): open one "
                         "here", fn);
    if (hold && atomic_exchange(&ctx->busy, true))
        return set_error(GLGEMM_ENOCONTEXT, "%s: this context of several devices is serving "
                         "another call (one call at a time)", fn);
    fp_state flags;
    fp_save(&flags);
    depth++;
    int rc = serve_call(ctx, fn, serve, variant, layout, transa, transb, m, n, k, alpha, a, lda,
                        b, ldb, beta, c, ldc);
    depth--;
    if (hold)
        atomic_store(&ctx->busy, false);
    bool cpu_arith = ctx ? ctx->cpu_arith : serve == SERVE_CPU && rc == GLGEMM_OK;
    if (!cpu_arith)
        fp_restore(&flags);
    return rc;
}

int glgemm_sgemm(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                 int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc)
{
    return sgemm(ctx, "glgemm_sgemm", SERVE_CHOSEN, NULL, layout, transa, transb, m, n, k, alpha,
                 a, lda, b, ldb, beta, c, ldc);
}

int glgemm_sgemm_variant(glgemm_context *ctx, const char *variant, glgemm_layout layout,
                         glgemm_op transa, glgemm_op transb, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc)
{
    return sgemm(ctx, "glgemm_sgemm_variant", SERVE_VARIANT, variant, layout, transa, transb, m,
                 n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int glgemm_sgemm_cpu(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa,
                     glgemm_op transb, int m, int n, int k, float alpha, const float *a, int lda,
                     const float *b, int ldb, float beta, float *c, int ldc)
{
    return sgemm(ctx, "glgemm_sgemm_cpu", SERVE_CPU, NULL, layout, transa, transb, m, n, k, alpha,
                 a, lda, b, ldb, beta, c, ldc);
}
