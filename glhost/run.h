/* glhost/run: one variant on one GEMM, on a GL context: the render-to-texture
 * host of the paper.  What it measures is base/measure.h's gg_measurement.
 *
 * Contract:
 *  - Card limits first (gen_variant_check_card on the context's limits):
 *    invalid / unsupported, nothing compiled.  Then the program (program.h),
 *    compile_error / link_error with the info log.
 *  - A and B go into float textures (GL_R32F .. GL_RGBA32F by the packing's
 *    channels, NEAREST, clamped), packed by gen/pack.h; store=f16: half
 *    textures (GL_R16F .. GL_RGBA16F), the halves made on the host by
 *    gen/half.h and uploaded as GL_HALF_FLOAT.  C is rendered into
 *    one float texture per target (RGBA32F for 3 channels) on an FBO, one
 *    full-screen triangle per pass, accumulating by the variant's acc
 *    (pingpong: two texture sets; copy: glCopyTexSubImage2D from each
 *    attachment into the prev textures after each pass but the last; blend:
 *    GL_ONE/GL_ONE into targets that start as beta*C0).
 *  - Matrices whose textures would pass the texture size limit are cut into
 *    equal blocks (gen_split_plan): C blocks x K blocks, one shader for all;
 *    the K blocks after the first go on accumulating into the same targets.
 *    The limit is GL_MAX_TEXTURE_SIZE, or gg_run_opts.max_texture_size when
 *    that is smaller and not 0 (the tests force the split with it; the CLI
 *    never sets it).
 *  - Time: a warm-up run, then p->reps runs; before each the running sums are
 *    re-initialised (outside the timed region, then glFinish); the timed
 *    region is CLOCK_MONOTONIC from the first draw to glFinish after the last
 *    pass of every block.  seconds is the median.  gpu_s is the median of
 *    GL_TIME_ELAPSED around the same region where the context has timer
 *    queries (desktop contexts), else -1: reported beside, never instead.
 *    compile_s (emit, compile, link), upload_s (packing and uploading A and
 *    B, making and first filling the targets, the FBOs checked) and
 *    readback_s (glReadPixels of every attachment of every block) apart.
 *  - The last timed rep's C is read back, unpacked and judged with base_verify
 *    against ref: a failure is wrong_result with gflops 0.  A ref whose
 *    store is not the variant's is not used: the right one (store=f16: of
 *    the inputs rounded to halves) is computed here instead.  GL errors after
 *    each stage are gl_error naming the stage and the error; an incomplete
 *    FBO is fbo_incomplete naming the status; a reset reported by
 *    glGetGraphicsResetStatus (contexts with robustness) is context_lost.
 *  - Long draws: with gg_run_opts.max_draw_s > 0 no single draw is meant
 *    to run longer than that, and no more than that much work is drawn
 *    without a glFinish (an H100 returned partly zero C after seconds of
 *    unfinished work, split into draws or not).  A pass whose fragments
 *    would take longer is drawn as several draws over scissored
 *    sub-rectangles of its viewport (host_draw_next: bands of whole
 *    fragment rows, or pieces of one row), every fragment exactly once a
 *    pass, a glFinish once the bound's worth of work is drawn; the
 *    barrier of out=image stays once after the pass; fetch=ubo cuts each
 *    strip's draw the same way.  How many fragments a draw holds comes
 *    from the variant's measured rate: the first run (the warm-up, or the
 *    once run) times its draws with glFinish, starting from one row of
 *    fragments and growing to half the bound at the fastest rate seen, and
 *    settles once two draws after the first (which may carry the driver's
 *    compile) each took an eighth of the bound or showed that the whole
 *    pass fits twice; the timed reps then draw max_draw_s / (seconds a
 *    fragment) fragments at most, untimed.  The rate is kept in the
 *    options' cache by program, so a later run of it does not time again.
 *    A run with no kept rate whose caller expects all its draws together to
 *    take at most expect_s, where GG_EXPECT_SAFETY times that, scaled up by
 *    the padded work the run draws over the problem's m n k, still fits
 *    the bound, times nothing: each pass is one draw (a strip for
 *    fetch=ubo), with no glFinish, since even work that many times slower
 *    than expected stays inside the bound.  (Timing from one row cost an
 *    H100's first 1024^3 library call about 2.5 ms of draws apart.)
 *    max_draw_fragments > 0 (tests) fixes the fragments a draw instead,
 *    with no timing.  The measurement counts the draws of one run (draws)
 *    and the fragments a draw held at most when a pass was split
 *    (draw_cap), with the bound (max_draw_s).
 *  - gg_run_opts.once (glgemm.h's calls): the GEMM runs once, no warm-up
 *    and no reps; seconds is that run's time.  ref NULL: C is not judged
 *    (rel_err -1; the caller judges it).
 *  - Failures of the variant are statuses in the measurement, never aborts;
 *    the GL objects made are deleted whatever happens.
 * The problem's m, n, k, transa, transb come from the inputs; alpha, beta
 * and reps from the problem. */
#ifndef GLGEMM_RUN_H
#define GLGEMM_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "glhost/context.h"
#include "base/inputs.h"
#include "base/measure.h"
#include "glhost/program.h"
#include "base/reference.h"

/* Programs and input textures kept between runs on one context (a
 * session keeps one per context kind): a program by the text that
 * determines it (canonical variant and block size), at most
 * GG_RUN_CACHE_PROGRAMS, least recently used out first; A and B textures by
 * their packing and geometry, at most GG_RUN_CACHE_INPUTS, and only when
 * the caller says the inputs stay the same (gg_run_opts.same_inputs).  Made
 * and freed with its context current. */
typedef struct gg_run_cache gg_run_cache;
#define GG_RUN_CACHE_PROGRAMS 48
#define GG_RUN_CACHE_INPUTS 3
/* Long draws: how many times slower than gg_run_opts.expect_s a run may be
 * and still fit the bound, for it to go untimed. */
#define GG_EXPECT_SAFETY 8.0

typedef struct {
    int max_texture_size; /* 0: the context's limit; else the smaller of the two */
    long max_ssbo_bytes;  /* the storage-buffer fetches: 0 GL_MAX_SHADER_STORAGE_BLOCK_SIZE;
                             else the smaller of the two (tests force the split with it) */
    bool once;            /* the library's call: one untimed run, no warm-up, no reps */
    /* With once, a cache and inputs that change (the library's calls):
     * transfers through the cache's staging buffers, packing and unpacking
     * on its threads, C drawn in row bands (bands 0: by the problem's size;
     * GLGEMM_BANDS overrides) so that the next band's A goes up and the
     * last band's C comes back while the card draws.  rows_done (may be
     * NULL) is called, on any of the cache's threads and several at once,
     * with each span [r0, r1) of C's rows as soon as c_out holds them.
     * Variants the staging cannot serve (store=f16, fetch=ubo or buffer,
     * no glBufferStorage, GLGEMM_STAGING=0) run the unstreamed way. */
    bool stream;
    int bands;
    /* Called once A and B are sent and the draws are next (the streamed
     * run: B and the first band's A), so that host work meant to overlap
     * the card's does not compete with the packing; may be NULL. */
    void (*sent)(void *user);
    void *sent_user;
    void (*rows_done)(void *user, int r0, int r1);
    void *rows_user;
    /* Where not NULL: set, before sent is called, to the first of C's
     * rows in the last band (0 with one band), so that the caller knows
     * which spans the card is still drawing after, and which come last. */
    int *last_band_row;
    /* Repetitions (not with once): p->reps at most; with min_reps > 0 the
     * timing stops after at least min_reps once (slowest - fastest) /
     * median of the reps so far is <= tight.  screen_s > 0: when the first
     * two timed reps take longer than screen_s, the timing stops there
     * (measurement.screened; seconds is their median, still verified). */
    int min_reps;
    double tight;
    double screen_s;
    /* Long draws (see the top): the longest one draw is meant to run, in
     * seconds; 0: one draw a pass (a strip for fetch=ubo), as before. */
    double max_draw_s;
    /* The caller's upper estimate of all the run's draws together for the
     * problem's m n k, seconds (the library's, from the variant's record;
     * see the top: the run adds its padding); 0 none. */
    double expect_s;
    long max_draw_fragments; /* tests: at most this many fragments a draw, no timing; 0 none */
    gg_run_cache *cache;  /* NULL: nothing kept (programs and textures deleted after the run) */
    bool same_inputs;     /* the cache may keep A and B textures: every run of this cache
                             has the very same inputs (one evaluation worker, one problem) */
    /* Called once the program is built or has failed to build (the
     * evaluator's compile deadline ends there); may be NULL. */
    void (*built)(void *user, const gg_measurement *m);
    void *built_user;
    /* Called with true just before the first timed rep (after the warm-up
     * run) and with false once the reps end, the run failing among them
     * included, so the caller can keep other work off the machine while it
     * times (the evaluator pauses its warm worker); may be NULL. */
    void (*timing)(void *user, bool timed);
    void *timing_user;
    /* The wide stores (store=f64, dd, df; the library's dgemm): with
     * wide_ab, alpha64 and beta64 in place of the problem's float alpha and
     * beta (the run then makes no reference of its own: ref, where given,
     * is the caller's); c64_out (may be NULL), m x n doubles, row-major,
     * gets C (hi + lo) of the last rep whatever the verdict. */
    bool wide_ab;
    double alpha64, beta64;
    double *c64_out;
} gg_run_opts;

gg_run_cache *host_run_cache_new(void);       /* NULL: out of memory */
void host_run_cache_free(gg_run_cache *c);    /* its context current: deletes what it holds */
/* The cache's thread team (base/pool.h), made on first use; NULL when none
 * could be made.  For the caller's own data-parallel host work between
 * runs (not during one: a pool runs one job at a time). */
struct base_pool *host_run_cache_pool(gg_run_cache *c);
/* The streamed calls' staging buffers (uploads, read-backs) made now, its
 * context current, of at least these sizes, the upload's pages written and
 * the read-back's read (which maps them where the driver maps lazily; host
 * memory never written stays unfaulted), so that the calls that fit them
 * pay for neither (glgemm_open's reserve: an H100's
 * first 1024^3 call spent 5.3-5.7 ms making its 12 MiB).  false: not made (no
 * glBufferStorage, GLGEMM_STAGING=0, or the driver refused); the calls
 * make their own as before. */
bool host_rc_staging_reserve(gg_run_cache *c, size_t up_bytes, size_t down_bytes);
/* Staging buffers c has made so far (a reserve's two, then one a growth);
 * 0 for NULL. */
long host_rc_staging_made(const gg_run_cache *c);
/* Frees a cache whose context cannot be made current (its GL objects go
 * with the context): no GL call. */
void host_run_cache_forget(gg_run_cache *c);
/* Builds v's program for the problem into the cache ahead of its run (a
 * hint: errors are kept for the run to report). */
void host_run_cache_prepare(gg_run_cache *c, const gg_ctx_info *info, const gg_variant *v,
                          int m, int n, int k, const gg_run_opts *o);

void host_run_opts_default(gg_run_opts *o);

/* What a failed build leaves for the user and the tuner's records: the
 * failed program (GL name 0; status, detail, info log and sources kept) for
 * host_program_print_failure.  failed is false when no build failed.
 * host_run_log_free frees the texts (no GL call). */
typedef struct {
    bool failed;
    gg_program program;
} gg_run_log;

void host_run_log_free(gg_run_log *log);

/* Runs on the current context (info: its host_ctx_query).  c_out (may be
 * NULL): m x n floats, row-major, gets C of the last timed rep whatever the
 * verdict (left untouched when no GEMM ran).  log (may be NULL) gets the
 * info log and source of a compile or link error. */
void host_run_current(const gg_ctx_info *info, const gg_variant *v, const gg_problem *p,
                    const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                    gg_measurement *out, float *c_out, gg_run_log *log);

/* The row bands of C a run of v with these options would stream in (the
 * stream option above): 0 when it would not stream; needs no context. */
int host_run_stream_bands(const gg_ctx_info *info, const gg_variant *v, const gg_run_opts *o,
                          const gg_inputs *in);

/* Long draws: the next sub-rectangle (fragments, origin at the region's
 * corner) of a w x h region drawn in order from the cursor (*cx, *cy),
 * which starts at (0, 0), holding at most cap fragments (cap >= 1): at the
 * start of a row with cap >= w, whole rows, in bands as even as cap allows
 * (the rows left over ceil(rows left / (cap / w)) bands, rounded up); else
 * the rest of the row, cap fragments at most.  Advances the cursor; returns
 * the fragments of *r, 0 (r untouched) once the region is done.  No GL. */
typedef struct {
    int x, y, w, h;
} gg_draw_rect;
long host_draw_next(int w, int h, long cap, int *cx, int *cy, gg_draw_rect *r);

/* A session keeps one context per kind, made on first use and made current
 * again when a variant of its profile comes back (host_ctx_make_current), so
 * bench or an evaluation worker makes each kind once, and one gg_run_cache
 * per kind, used by host_session_run when the options name none.  One thread
 * only. */
typedef struct gg_session gg_session;

gg_session *host_session_new(gg_backend backend, int device); /* NULL: out of memory */
void host_session_free(gg_session *s);

/* Makes (or keeps) a context of that kind, current, and gives its info.
 * Returns 0, or -1 with one line in err (*no_device as host_ctx_create). */
int host_session_context(gg_session *s, gg_ctx_kind kind, gg_ctx_info *info, char *err,
                       size_t errlen, bool *no_device);
/* The cache of that kind's context (NULL before the context exists). */
gg_run_cache *host_session_cache(gg_session *s, gg_ctx_kind kind);

/* host_session_context for the variant's profile, then host_run_current.
 * Returns 0 when a measurement was made (whatever its status), -1 when no
 * context could be made (err, *no_device as above; out then untouched). */
int host_session_run(gg_session *s, const gg_variant *v, const gg_problem *p,
                   const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                   gg_measurement *out, float *c_out, gg_run_log *log, char *err,
                   size_t errlen, bool *no_device);

#endif
