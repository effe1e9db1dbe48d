/* glgemm.h: the glgemm library, a BLAS-shaped single-precision GEMM that runs
 * as graphics-era fragment shaders (textures in, render-to-texture out) on a
 * headless OpenGL context.  Link with `pkg-config --cflags --libs glgemm`.
 *
 *   glgemm_context *g = glgemm_open(NULL, 0);            // EGL, device 0
 *   if (!g) { fprintf(stderr, "%s\n", glgemm_last_error()); ... }
 *   int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS,
 *                         m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
 *   if (rc) fprintf(stderr, "%s: %s\n", glgemm_strerror(rc), glgemm_last_error());
 *   glgemm_close(g);
 *
 * Semantics are cblas_sgemm's (same argument order, layout and transpose
 * values, leading dimensions): C = alpha*op(A)*op(B) + beta*C, C m x n.
 *  - Only the m x n block of C is written; the leading-dimension padding is
 *    never touched.  On any error C is as it was (rows a streamed call put
 *    in while the card drew later bands are put back before it returns;
 *    so while a call runs, C may hold some of its rows already: another
 *    thread reading C, or a MAP_SHARED file under it, can see them).
 *  - Quick returns as the reference BLAS: m == 0 or n == 0, or (alpha == 0
 *    or k == 0) with beta == 1: nothing.  alpha == 0 or k == 0: C = beta*C
 *    on the CPU, zeros when beta == 0 (A and B are then not read).
 *  - beta == 0: C is not read (NaN or Inf in C do not propagate).
 *  - Arguments are checked as the reference BLAS does (transposes, sizes,
 *    leading dimensions), and pointers where they would be read or written
 *    must not be NULL.  An illegal argument returns -(its position in
 *    cblas_sgemm's argument list), as xerbla and LAPACK's INFO number it:
 *    GLGEMM_EARG_LDA == -9.
 *
 * Which shader: glgemm_sgemm takes the card's tuned variant for the problem
 * size nearest to m x n x k among the tuning records of the card (files
 * <card>/best-MxNxK.txt written by `glgemm tune`), searched in $GLGEMM_RESULTS,
 * then the per-user records folder that `glgemm tune` also writes
 * ($XDG_DATA_HOME/glgemm/results, else ~/.local/share/glgemm/results), then
 * PREFIX/share/glgemm/results of the installation (found from where
 * libglgemm.so, or the program linked with libglgemm.a, lies: PREFIX/lib or
 * PREFIX/bin; other programs linked statically set GLGEMM_RESULTS), then
 * ./results; the first folder with a record for the card counts.  A
 * context reads the folders once per problem size and again only when a
 * card folder changes (a new best file).  Else the
 * default variant GLGEMM_DEFAULT_VARIANT (measured best of a few sound
 * shapes on llvmpipe; 4 render targets, GLSL 3.30, no float blending).
 * If the chosen variant fails on the card, glgemm_sgemm retries once with
 * the default (and stops choosing that variant in this context).
 * glgemm_sgemm_variant runs exactly the variant given (SPEC.md's variant
 * syntax: key=value pairs or a preset with overrides), without fallback.
 *
 * Results are checked, never returned silently wrong (glgemm_set_verify):
 *  - GLGEMM_VERIFY_CHECK (the default): checksums in double precision
 *    (Freivalds: C x against alpha*A(B x) + beta*C0 x, and the same on the
 *    row side, for random x), a sample of elements computed exactly, and
 *    finiteness: where the inputs bound every element finitely, every
 *    element must be finite and within the bound.  Cost O(mk + kn + mn).
 *    Tolerances are the error bound of the tool, |C - R| <= k 2^-23 S with
 *    S = |alpha| sum_p |A_ip B_pj| + |beta C0_ij|, so a result within the
 *    bound always passes.
 *  - GLGEMM_VERIFY_FULL: every element against a double-precision
 *    reference (an O(mnk) CPU GEMM: for testing).
 *  - GLGEMM_VERIFY_NONE: no check.
 *  The environment variable GLGEMM_VERIFY=none|check|full sets the default
 *  of new contexts.  A failed check is GLGEMM_EWRONG and C is left as it
 *  was.
 *
 * Costs: a context keeps the programs it built (least recently used out
 * past 48) and, through the on-disk program cache (glhost/progcache.h:
 * $GLGEMM_CACHE_DIR, else $XDG_CACHE_HOME/glgemm/programs, else
 * ~/.cache/glgemm/programs; GLGEMM_CACHE=off), so does the next process;
 * small problems go to the CPU BLAS below the crossover
 * (glgemm_set_crossover).
 *
 * Floating point: the caller's exception flags come back as they were
 * (the GL driver's own code may raise some); only a call served on the CPU
 * (crossover, C scaled by beta) keeps what its arithmetic raised.
 *
 * Threads: glgemm_open and each call leave the context's GL context
 * current on the calling thread, so a context stays with the thread that
 * opened it (a call from another thread fails with GLGEMM_ENOCONTEXT:
 * EGL_BAD_ACCESS).  Threads that call at once each
 * open their own context (tests/check_concurrency.c runs four; what they
 * share is under locks: docs/library.md, history in docs/notes/library.md).
 * glgemm_last_error() is per thread.
 *
 * Several devices: glgemm_open_devices (or GLGEMM_DEVICES, read by
 * glgemm_open) gives a context over several devices of the host, whose
 * large calls are split: see glgemm_open_devices. */
#ifndef GLGEMM_H
#define GLGEMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GLGEMM_API __attribute__((visibility("default")))
#else
#define GLGEMM_API
#endif

#define GLGEMM_VERSION_STRING "0.1.0"

/* The variant glgemm_sgemm runs where the card has no tuning record. */
#define GLGEMM_DEFAULT_VARIANT \
    "mrt=2x2,mc=1x4,np=64,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"

/* The variant glgemm_dgemm runs where the card has no store=f64 record
 * (double arithmetic in the shader: GLSL 3.30 with GL_ARB_gpu_shader_fp64,
 * or GL 4.0 and later). */
#define GLGEMM_DEFAULT_DVARIANT \
    "mrt=2x2,mc=1x2,np=64,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f64"

typedef struct glgemm_context glgemm_context;

/* The most devices one context spreads its calls over. */
#define GLGEMM_MAX_DEVICES 16

/* cblas's values, so CBLAS_ORDER / CBLAS_TRANSPOSE values convert as they are. */
typedef enum { GLGEMM_ROW_MAJOR = 101, GLGEMM_COL_MAJOR = 102 } glgemm_layout;
typedef enum { GLGEMM_NOTRANS = 111, GLGEMM_TRANS = 112, GLGEMM_CONJTRANS = 113 } glgemm_op;

/* Return codes.  Negative: an illegal argument, numbered as in cblas_sgemm. */
enum {
    GLGEMM_OK = 0,
    GLGEMM_ENOCONTEXT = 1, /* no context: ctx NULL, or its GL context lost or not made */
    GLGEMM_EVARIANT = 2,   /* the variant text does not parse */
    GLGEMM_EGPU = 3,       /* the variant failed on the card (unsupported, compile or
                              link error, GL error, incomplete framebuffer, ...) */
    GLGEMM_EWRONG = 4,     /* the result failed verification; C left as it was */
    GLGEMM_ENOMEM = 5,     /* out of host memory */
    GLGEMM_EINVAL = 6,     /* a bad argument to glgemm_set_verify or glgemm_variant_for */
    GLGEMM_EREENTER = 7,   /* glgemm_sgemm was called back from inside its own CPU route
                              (a CPU sgemm that calls glgemm_sgemm): C left as it was */

    GLGEMM_EARG_LAYOUT = -1,
    GLGEMM_EARG_TRANSA = -2,
    GLGEMM_EARG_TRANSB = -3,
    GLGEMM_EARG_M = -4,
    GLGEMM_EARG_N = -5,
    GLGEMM_EARG_K = -6,
    GLGEMM_EARG_A = -8,    /* NULL while A is read */
    GLGEMM_EARG_LDA = -9,
    GLGEMM_EARG_B = -10,   /* NULL while B is read */
    GLGEMM_EARG_LDB = -11,
    GLGEMM_EARG_C = -13,   /* NULL while C is read or written */
    GLGEMM_EARG_LDC = -14
};

/* rc is an illegal-argument code (any GLGEMM_EARG_*). */
#define GLGEMM_EINVAL_ARG(rc) ((rc) < 0)

enum { GLGEMM_VERIFY_NONE = 0, GLGEMM_VERIFY_CHECK = 1, GLGEMM_VERIFY_FULL = 2 };

/* backend: "egl" (NULL means "egl") or "glfw" (a hidden window; needs a
 * display); device: the EGL device index as `glgemm devices` lists them.
 * Makes the GL context now, and the transfers' buffers: GLGEMM_STAGING MiB
 * (default 16; read by glgemm_open, a bad value fails it) of upload staging
 * and half that of read-back staging with each GL context the context makes
 * (again when a variant needs another kind of GL context, or after a lost
 * one), half that of scratch C, grown by calls that need more: about 1.5x
 * GLGEMM_STAGING MiB of host memory a context (pinned, on a discrete card),
 * so a program with a context on each of many threads may want less.  A
 * checked call streamed in several bands into a C already in memory holds
 * its C twice in the scratch (what it computed, and what the caller's C
 * held): up to 8 m n bytes.
 * GLGEMM_STAGING=0: no staging, calls run unstreamed (also read at each
 * call).  Then runs one small
 * GEMM (64^3, its result discarded, its failure ignored) so the driver
 * builds its per-process pipeline here rather than in the first call;
 * GLGEMM_WARMUP=0 skips it.
 * NULL on failure, glgemm_last_error() says why.
 * The environment variable GLGEMM_DEVICES=LIST|all (a list of device
 * indices joined by commas, e.g. 0,1; or all: every hardware device EGL
 * lists, else device 0), when set, makes glgemm_open
 * glgemm_open_devices(backend, LIST) instead, its device argument unused;
 * a bad value fails it. */
GLGEMM_API glgemm_context *glgemm_open(const char *backend, int device);

/* A context over n devices of this host (1 .. GLGEMM_MAX_DEVICES indices
 * as `glgemm devices` lists them; a device may be named twice: two GL
 * contexts on it), used as any other with glgemm_sgemm,
 * glgemm_sgemm_variant, ..., glgemm_close.  n == 1 is
 * glgemm_open(backend, devices[0]) without GLGEMM_DEVICES.  backend: NULL
 * or "egl" (glfw makes one context, on one thread).
 *  - Each device has a thread of its own that opens the device's context
 *    on itself (as glgemm_open does: its own staging, programs, warm-up
 *    and tuned variants, from the records of its own card), then serves
 *    tiles.  A call's C is cut into tiles, about GLGEMM_SPLIT_TILES (1 ..
 *    64, default 2) a device, as square as the grid allows; the first
 *    tile is each device's, the others go to whichever device is free
 *    first, so a slower device computes fewer.  A tile is a GEMM of its
 *    own: the variant of that device's card nearest the tile's size (a
 *    record of the tile's size, not of the call's), checked as a
 *    one-device call checks it (glgemm_set_verify), into its part of C.
 *    The result and its error bound are a one-device call's.
 *  - Calls with m*n*k below GLGEMM_SPLIT_MIN^3 (0 .. 2^20, default 2048)
 *    run on one device (the first in service) as one tile; below the
 *    crossover (glgemm_set_crossover) on the CPU as before.
 *  - A device whose tile fails in glgemm_sgemm (the chosen variant and
 *    then the default failed: a GPU error, a wrong result, a lost context)
 *    is retired: it gets no tile again from this context, and its tile is
 *    computed again by another device, or on the CPU route (the caller's
 *    thread; glgemm_set_cpu_sgemm) when none is left.  So the call
 *    returns GLGEMM_OK, right; glgemm_last_route names the device and why.
 *    glgemm_sgemm_variant runs exactly its variant on every tile, without
 *    fallback or retiring: a tile that fails fails the call (its code and
 *    line), C as it was (the tiles written are put back).
 *  - glgemm_last_route: "split T tiles of HxW: device D: N gpu VARIANT,
 *    ..." (", cpu: N" when tiles went to the CPU; "; device D retired:
 *    WHY" when one failed); "gpu VARIANT on device D" for a call on one
 *    device; glgemm_last_timing: total_s only.  glgemm_card: the first
 *    device's card, whose records give the crossover.
 *  - Threads: the context may be called from any thread, one call at a
 *    time (a call while another runs returns GLGEMM_ENOCONTEXT); the
 *    caller's thread waits, and computes CPU tiles.  A forked child has
 *    none of its threads: a call there returns GLGEMM_ENOCONTEXT (the
 *    child opens its own context), glgemm_close there frees what it can.
 * GLGEMM_SPLIT_MIN and GLGEMM_SPLIT_TILES are read when the context is
 * opened (a bad value fails the open).  NULL on failure (bad arguments, a
 * device that does not open: glgemm_last_error names it). */
GLGEMM_API glgemm_context *glgemm_open_devices(const char *backend, const int *devices, int n);
GLGEMM_API void glgemm_close(glgemm_context *ctx); /* NULL is fine */

GLGEMM_API int glgemm_sgemm(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa,
                            glgemm_op transb, int m, int n, int k, float alpha, const float *a,
                            int lda, const float *b, int ldb, float beta, float *c, int ldc);

/* The same in double precision, with cblas_dgemm's arguments and meaning:
 * the same checks and codes (GLGEMM_EARG_*), quick returns, crossover
 * (GLGEMM_CROSSOVER, glgemm_set_crossover: below it the CPU BLAS's dgemm,
 * bound as for sgemm; glgemm_set_cpu_sgemm's function is not used here)
 * and verification levels (checksums: C x for random vectors x against
 * alpha op(A) (op(B) x) + beta C0 x in long double, within (k + 2) 2^-52 of
 * the sums of magnitudes; full: every element).  On the GPU it runs a
 * store=f64 variant (double arithmetic in the shader): the card's recorded
 * store=f64 best nearest the problem (best-f64-MxNxK.txt in the records
 * folders), else GLGEMM_DEFAULT_DVARIANT, the default as the one fallback.
 * Where the GPU cannot run it the CPU BLAS's dgemm computes it and
 * glgemm_last_route says why ("cpu: " and the reason): a context without
 * double in GLSL (GL 4.0 or GL_ARB_gpu_shader_fp64), a problem whose A or
 * B pass one texture (store=f64 is not cut into blocks yet), a context of
 * several devices (glgemm_open_devices). */
GLGEMM_API int glgemm_dgemm(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa,
                            glgemm_op transb, int m, int n, int k, double alpha,
                            const double *a, int lda, const double *b, int ldb, double beta,
                            double *c, int ldc);

/* The same with an explicit variant (a NULL or unparsable text: GLGEMM_EVARIANT,
 * checked after the arguments).  The library is fp32 only: store=f16 (A and B
 * rounded to half floats) is GLGEMM_EVARIANT here, and glgemm_sgemm passes
 * over recorded bests with store=f16. */
GLGEMM_API int glgemm_sgemm_variant(glgemm_context *ctx, const char *variant,
                                    glgemm_layout layout, glgemm_op transa, glgemm_op transb,
                                    int m, int n, int k, float alpha, const float *a, int lda,
                                    const float *b, int ldb, float beta, float *c, int ldc);

/* The same product on the CPU, through the CPU route glgemm_sgemm's
 * crossover takes (see glgemm_set_cpu_sgemm: the CPU BLAS the library
 * binds itself): what a program's own cblas_sgemm or sgemm_ that forwards
 * to glgemm_sgemm calls when glgemm_sgemm fails (GLGEMM_EWRONG, GLGEMM_EGPU,
 * ...) or glgemm_open failed (ctx may be NULL: the CPU BLAS bound for the
 * process), since calling the CPU BLAS by that name would call itself.
 * Same arguments, checks and quick returns; route "cpu". */
GLGEMM_API int glgemm_sgemm_cpu(glgemm_context *ctx, glgemm_layout layout, glgemm_op transa,
                                glgemm_op transb, int m, int n, int k, float alpha,
                                const float *a, int lda, const float *b, int ldb, float beta,
                                float *c, int ldc);

/* The canonical variant glgemm_sgemm would run now for a row-major
 * m x n x k problem (m, n, k >= 1) on this context, into buf.  GLGEMM_OK,
 * GLGEMM_ENOCONTEXT, or GLGEMM_EINVAL (bad size, buffer NULL or too small). */
GLGEMM_API int glgemm_variant_for(glgemm_context *ctx, int m, int n, int k, char *buf,
                                  size_t len);

/* GLGEMM_VERIFY_*; returns GLGEMM_OK, GLGEMM_ENOCONTEXT or GLGEMM_EINVAL. */
GLGEMM_API int glgemm_set_verify(glgemm_context *ctx, int level);

/* The CPU crossover.  A call whose m*n*k is below size^3 (after the quick
 * returns) goes to the CPU BLAS instead of the GPU: small problems cost
 * less there than the GPU's transfers.  size 0: every call on the GPU.
 * Where the size comes from, first that holds: glgemm_set_crossover on
 * this context; the environment variable GLGEMM_CROSSOVER (a whole number
 * >= 0, read by glgemm_open; a bad value fails glgemm_open); the card's
 * record <card>/crossover.txt in the records folders (see "Which shader"),
 * a line "crossover: N" written by `glgemm bench --crossover` (a bad record
 * is passed over for the next folder's, said once on stderr); else 0.
 * glgemm_set_crossover: size >= 0 sets it, -1 goes back to the
 * environment / record; GLGEMM_OK, GLGEMM_ENOCONTEXT or GLGEMM_EINVAL.
 * glgemm_crossover: the size in force (0 for a NULL ctx). */
GLGEMM_API int glgemm_set_crossover(glgemm_context *ctx, long size);
GLGEMM_API long glgemm_crossover(const glgemm_context *ctx);

/* Long draws: no single draw of a call is meant to run longer than a bound
 * (milliseconds; 0: none); a pass that would is drawn as several draws over
 * bands of its fragments (the first call of a variant times its draws to
 * size them).  The bound, first that holds: the environment variable
 * GLGEMM_MAX_DRAW_MS (read by glgemm_open; a bad value fails glgemm_open);
 * the card's <card>/draw.txt in the records folders (a line
 * "max_draw_ms: V", written by `glgemm probe`); else 250. */

/* The CPU sgemm the crossover calls, with cblas_sgemm's arguments (the
 * layout and transpose values are cblas's).  NULL (the default): the CPU
 * BLAS the library binds itself, through its own handle, so that a
 * program's own cblas_sgemm or sgemm_ (one that wraps glgemm_sgemm, say)
 * is never called back: the library named by the environment variable
 * GLGEMM_CPU_BLAS (a path or soname, as NVBLAS_CPU_BLAS_LIB; its sgemm_,
 * else its cblas_sgemm; read by glgemm_open, which fails when it cannot be
 * opened), else the OpenBLAS this library was linked with (a reference loop
 * where that OpenBLAS is linked statically into the program).
 * Whatever the route, glgemm_sgemm never recurses: called again on the
 * same thread while it is inside a call, it serves the inner call on the
 * CPU, and one made from inside its CPU route returns GLGEMM_EREENTER. */
typedef void (*glgemm_cpu_sgemm_fn)(int layout, int transa, int transb, int m, int n, int k,
                                    float alpha, const float *a, int lda, const float *b,
                                    int ldb, float beta, float *c, int ldc);
GLGEMM_API int glgemm_set_cpu_sgemm(glgemm_context *ctx, glgemm_cpu_sgemm_fn fn);

/* How the last glgemm_sgemm / glgemm_sgemm_variant call on ctx was served,
 * one line for logs: "gpu VARIANT" (the canonical variant that wrote C),
 * "cpu crossover N" (m*n*k below N^3), "quick return" (nothing to compute
 * or only C scaled), or "error" (it did not return GLGEMM_OK); "" before
 * the first call or for a NULL ctx; on a context of several devices
 * (glgemm_open_devices) also "split ...", "gpu VARIANT on device D" and
 * "cpu: no device left".  Valid until the next call on ctx. */
GLGEMM_API const char *glgemm_last_route(const glgemm_context *ctx);

/* Where the last GPU call on ctx spent its time, in seconds: packing and
 * uploading A and B (and the running sums), the draws, reading C back and
 * unpacking it, verifying it (GLGEMM_VERIFY), and the whole call.  All 0
 * when the last call did not run on the GPU.  A streamed call (docs/library.md,
 * "The library") overlaps them: upload_s is the time before the first
 * draw, run_s from there until the card has finished the last band (the
 * later bands' uploads and the earlier bands' read-back and checks inside
 * it), readback_s the last band's unpacking and checks after that, and
 * verify_s the column checks and what is left of the verdict. */
typedef struct {
    double upload_s, run_s, readback_s, verify_s, total_s;
} glgemm_timing;
GLGEMM_API void glgemm_last_timing(const glgemm_context *ctx, glgemm_timing *t);

/* The card's slug (its folder under results/), e.g. "llvmpipe". */
GLGEMM_API const char *glgemm_card(const glgemm_context *ctx);

/* A fixed text for a code ("illegal value of argument 9 (lda)" for -9). */
GLGEMM_API const char *glgemm_strerror(int code);

/* One line on the last failure in this thread (open, or a call that did
 * not return GLGEMM_OK): "" if none yet. */
GLGEMM_API const char *glgemm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
