/* eval/evaluator: the one way glgemm measures a variant (tune, bench,
 * report).  The problem and its inputs are set once; then a variant goes in
 * and a measurement comes out.
 *
 * Contract:
 *  - The work runs in a worker process that the evaluator forks (a GL
 *    context does not survive fork(), so the calling process holds none).
 *    The worker serves many evaluations over a socket: it keeps one
 *    context per kind (glhost/run.h's session), the programs it built and
 *    the A and B textures it uploaded (gg_run_cache), and one reference per
 *    store, made once (the caller's, or computed in the worker for a store
 *    the caller did not give).  It inherits the inputs copy-on-write: make
 *    them before the first call.
 *  - Two deadlines per evaluation, on the caller's monotonic clock: building
 *    the program (compile_timeout_s; past it: status `compile_timeout`), then
 *    the run, verification included (timeout_s; past it: `timeout`).  On
 *    either the worker's process group is killed (SIGKILL) and the next call
 *    forks a new worker.  An unrolled variant at least as large (its
 *    multiply-adds a fragment a pass) as one that ran past the compile
 *    deadline with the same compiler and profile is not built at all:
 *    `compile_timeout` saying so (each such build would cost the whole
 *    deadline and a new worker).  A worker that dies (a driver crash) is
 *    `context_lost` naming the signal, and is replaced; so is one whose
 *    context was lost.  Every failure is a status: the caller goes on.
 *  - eval_evaluator_hint() names the variants likely to come next: where the
 *    driver compiles in parallel (KHR/ARB_parallel_shader_compile, and
 *    starting a build really returns at once: NVIDIA's and llvmpipe's do
 *    not), the worker starts building the GLSL ones while the current
 *    variant runs.
 *  - eval_evaluator_device() asks the worker for each context kind's info
 *    (the contexts stay for the evaluations).
 *  - The worker dies with its parent (PR_SET_PDEATHSIG: with the thread
 *    that forked it) and leaves when the evaluator is freed.  One thread at
 *    a time an evaluator; evaluators are independent, so several serve at
 *    once from threads of their own (eval/pool.h, one a device).
 *  - With GG_BACKEND_BROWSER the worker makes no context: it runs Node and
 *    the page (eval/browser.h) and judges C itself.  The ES3 kind is the
 *    page's WebGL2, compat and core are never ok; the browser's start-up
 *    counts against the run's deadline; the page builds and runs in one go,
 *    so a shader that never compiles is `timeout`, not `compile_timeout`; a
 *    crashed page is `page_crash`, and its worker is replaced like one whose
 *    context was lost; no warm worker.
 * No GL header here. */
#ifndef GLGEMM_EVALUATOR_H
#define GLGEMM_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "glhost/context.h"
#include "base/inputs.h"
#include "base/measure.h"
#include "base/reference.h"

typedef struct {
    gg_backend backend;
    int device;
    const gg_problem *prob;   /* alpha, beta, reps (the inputs give m, n, k); prob and in
                                 may be NULL for a worker asked only eval_evaluator_device */
    const gg_inputs *in;
    const gg_reference *ref;  /* of one store; NULL: made in the worker when needed */
    double timeout_s;         /* the run, after the build; 0: eval_evaluator_default_timeout() */
    double compile_timeout_s; /* one program's build; 0: GG_COMPILE_TIMEOUT_S */
    bool want_c;              /* C of each evaluation comes back (eval_evaluator_c) */
    bool want_log;            /* a failed build's info log and numbered source come back
                                 (eval_evaluator_log) */
    int max_texture_size;     /* tests: a smaller texture limit (forces splits); 0 none */
    /* Long draws (glhost/run.h): with max_draw_set, max_draw_ms is the bound
     * on one draw (0: none; --max-draw-ms); else the worker takes the card's
     * from store/draw.h (GLGEMM_MAX_DRAW_MS, results/<card>/draw.txt, the
     * default), results naming the records folder (NULL: "results"). */
    bool max_draw_set;
    double max_draw_ms;
    const char *results;
} gg_evaluator_config;

/* A program that takes longer to build than this cannot pay for itself in a
 * tune (the fastest variants build in well under a second everywhere seen). */
#define GG_COMPILE_TIMEOUT_S 15.0

/* How one evaluation times (glhost/run.h's gg_run_opts): reps 0 is the
 * problem's; min_reps > 0 stops once the spread of the reps is <= tight;
 * screen_s > 0 stops after the first two timed reps when both took longer. */
typedef struct {
    int reps;
    int min_reps;
    double tight;
    double screen_s;
} gg_eval_opts;

/* What the device offers, per context kind (GG_CTX_COMPAT, CORE, ES3). */
typedef struct {
    bool ok[3];
    gg_ctx_info info[3];
    char err[3][256];
    bool no_device;           /* the device index does not exist */
} gg_device_info;

/* Where the time went, summed over the evaluations (seconds). */
typedef struct {
    long evaluations;
    long workers;             /* worker processes started */
    long lost, timeouts, compile_timeouts;
    long predicted;           /* of the compile timeouts: not built, a smaller one timed out */
    long programs_cached;     /* evaluations whose program was built before (a hint, a repeat) */
    long warmed;              /* variants handed to the warm worker */
    long warm_done;           /* of them, built and run (its answer came) */
    long warm_lost;           /* warm workers that died or hung, and were dropped */
    double compile_s, upload_s, run_s, readback_s, verify_s;
    double wall_s;            /* from sending the variant to its measurement */
} gg_evaluator_stats;

typedef struct gg_evaluator gg_evaluator;

/* NULL with one line in err (out of memory, no shared memory for C). */
gg_evaluator *eval_evaluator_new(const gg_evaluator_config *cfg, char *err, size_t errlen);
void eval_evaluator_free(gg_evaluator *e);
/* Evaluators made and not freed yet in this process, over every thread
 * (tests: an evaluator left open shows). */
int eval_evaluator_live(void);

/* Measures v (o may be NULL: the problem's reps, no screening).  Returns 0
 * with out filled (any status), or -1 when no worker can be made at all
 * (out->detail says why; the tool, not the variant). */
int eval_evaluator_eval(gg_evaluator *e, const gg_variant *v, const gg_eval_opts *o,
                      gg_measurement *out);

/* The browser backend's tfjs-webgl row (bench; webgpu: tfjs-webgpu):
 * TensorFlow.js's tf.matMul in the worker's page on the same inputs, reps
 * timed (0: the problem's), judged against the store=f32 reference like any
 * evaluation.  Another backend's answer, and a page without WebGPU for
 * webgpu, is status unsupported.  Returns as eval_evaluator_eval. */
int eval_evaluator_tfjs(gg_evaluator *e, bool webgpu, int reps, gg_measurement *out);

/* bench's model rows with the browser backend (eval_browser_model): the
 * TensorFlow.js model `model` (GG_MODEL_DENSE, GG_MODEL_ENCODER; small: the
 * tests' sizes), TensorFlow.js alone (v NULL) or with glgemm-tfjs.js
 * registered with v, reps timed runs (0: 3).  Its run may take up to
 * GG_MODEL_TIMEOUT_S (the full models take seconds a run on a software
 * renderer).  Another backend's answer is status unsupported.  Returns as
 * eval_evaluator_eval. */
#define GG_MODEL_TIMEOUT_S 900.0
int eval_evaluator_model(gg_evaluator *e, int model, bool small, const gg_variant *v, int reps,
                         gg_measurement *out);

/* The variants likely next (at most GG_EVAL_HINTS are kept; a new call
 * replaces the list).  Sent with the next evaluation. */
#define GG_EVAL_HINTS 4
void eval_evaluator_hint(gg_evaluator *e, const gg_variant *next, int n);

/* A second, warm worker (off by default): while an evaluation builds and
 * warms up its variant, the warm worker builds and runs once (untimed,
 * unjudged, at a lower priority) the first hinted variant it has not had,
 * so that the driver's work on it (the program cache's entry; llvmpipe's
 * JIT code, which Mesa's disk cache keeps) is done when the evaluation gets
 * there: two CPUs compile at once.  The evaluation worker stops its
 * process group (SIGSTOP) for its timed reps and lets it go on after
 * (SIGCONT; the evaluator too, after each evaluation); work it has handed
 * a GPU goes on regardless, so the tune turns it on by itself only for a
 * software rasteriser (gg_ctx_info.software).  A warm worker that dies or sits
 * on one variant past both deadlines is replaced, statuses untouched: it
 * only ever saves time.  GLGEMM_FAULT does not reach it, and it writes
 * nothing on stderr (the evaluation worker reports what fails). */
void eval_evaluator_warm(gg_evaluator *e, bool on);
/* The warm worker's process, 0 while there is none (tests). */
int eval_evaluator_warm_pid(const gg_evaluator *e);

/* 0 with *d filled, or -1 with one line in err (no worker, or it died or
 * hung making the contexts). */
int eval_evaluator_device(gg_evaluator *e, gg_device_info *d, char *err, size_t errlen);

/* C (m x n floats, row-major) of the last evaluation that ran a GEMM, when
 * want_c; NULL otherwise. */
const float *eval_evaluator_c(const gg_evaluator *e);

/* With want_log: the failed build of the last evaluation (its detail, info
 * log and numbered source, as glhost/program.h prints them); NULL when its
 * build did not fail. */
const char *eval_evaluator_log(const gg_evaluator *e);

const gg_evaluator_stats *eval_evaluator_get_stats(const gg_evaluator *e);
/* One evaluation into stats: the count, its wall time, where its time went
 * (compile with building ahead), a program from a cache. */
void eval_evaluator_stats_add(gg_evaluator_stats *s, const gg_measurement *m, double wall);

/* The default deadline of an evaluation's run, one formula for every use:
 * floor_s plus the work (2mnk a rep, over the problem's reps, and the
 * warm-up's when warmup) at flops_per_s, at most cap_s. */
typedef struct {
    double floor_s, flops_per_s, cap_s;
    bool warmup;
} gg_timeout_rule;
/* bench, run, report and the ranks' waits: 60 s plus the warm-up and reps
 * at 0.1 GFLOP/s, at most 1800 s: a deadline a working variant never meets. */
extern const gg_timeout_rule GG_TIMEOUT_MEASURE;
/* A tune's (tune --help, docs/tuning.md): 10 + 60 x (mnk / 1024^3) x (reps
 * / 10) s, at most 600 (a variant that slow is no candidate). */
extern const gg_timeout_rule GG_TIMEOUT_TUNE;
double eval_evaluator_timeout(const gg_problem *p, const gg_timeout_rule *r);
/* eval_evaluator_timeout(p, &GG_TIMEOUT_MEASURE). */
double eval_evaluator_default_timeout(const gg_problem *p);

#endif
