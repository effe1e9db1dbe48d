/* eval/gpu: the GL work bench and report hand to other processes, so the
 * parent never holds a GL context (a context does not survive fork()) and a
 * hung or crashing driver costs one row.  No GL header here.
 *
 *  - eval_gpu_eval() is a gg_eval_fn over the problem's one evaluator
 *    (eval/evaluator.h: a worker process that keeps its contexts, made
 *    on the first call; eval_gpu_close() ends it); timeout and crash are
 *    statuses.
 *  - eval_gpu_device() and eval_gpu_info_all() ask an evaluator's worker for
 *    each context kind's info (renderer, limits: the slug and the search's
 *    card limits).
 *  - eval_gpu_probe() runs glhost/probe in a child on a core context.
 * Inputs and the reference are prepared once in the parent; the children
 * read them copy-on-write. */
#ifndef GLGEMM_GPU_H
#define GLGEMM_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "glhost/context.h"
#include "base/inputs.h"
#include "glhost/probe.h"
#include "base/reference.h"
#include "eval/bench.h"
#include "eval/evaluator.h"
#include "search/search.h"

typedef struct {
    gg_backend backend;
    int device;
    const gg_problem *prob;
    const gg_inputs *in;
    const gg_reference *ref;
    double timeout_s; /* 0: eval_evaluator_default_timeout(prob) */
    gg_evaluator *ev; /* made by the first eval_gpu_eval; NULL before */
    /* The bound on one draw (eval/evaluator.h's config): max_draw_ms when
     * max_draw_set, else the card's from results (NULL: "results"). */
    bool max_draw_set;
    double max_draw_ms;
    const char *results;
    /* NULL: the GPU rows of eval_gpu_bench run on g's evaluator
     * (eval_gpu_eval); else through this (bench --devices: a device pool). */
    gg_eval_fn eval;
    void *eval_user;
    /* bench's model rows with the browser backend: none, the tests' sizes,
     * or the full models (eval/browser.h's eval_browser_model) */
    enum { GG_MODELS_OFF, GG_MODELS_SMALL, GG_MODELS_FULL } models;
} gg_gpu;

/* The configuration of g's evaluator (the one eval_gpu_eval makes), for a
 * caller that makes its own (a pool of them). */
void eval_gpu_config(const gg_gpu *g, gg_evaluator_config *c);

/* The gg_eval_fn: user is a gg_gpu.  Returns 0 with out filled (any
 * status), or -1 when no child could be made (out->detail says why). */
int eval_gpu_eval(void *user, const gg_variant *v, gg_measurement *out);

/* Ends the evaluator's worker (nothing when none was made). */
void eval_gpu_close(gg_gpu *g);

/* The info of each context kind from g's evaluator (made now if not yet;
 * its contexts then serve the evaluations).  0, or -1 with one line in err
 * (no worker, or it died or hung making the contexts). */
int eval_gpu_device(gg_gpu *g, gg_device_info *d, char *err, size_t errlen);

/* The same without a problem, from a worker of its own: ok[kind] false
 * where that kind cannot be made; at least one must be, and the device
 * must exist (*no_device otherwise): 0, else -1 with err. */
int eval_gpu_info_all(gg_backend backend, int device, gg_ctx_info info[3], bool ok[3],
                    char *err, size_t errlen, bool *no_device);

/* glhost/probe's host_probe_run on a core context, in a child under a
 * watchdog of timeout_s.  0 with *r filled (r->status says whether it
 * measured), or -1 with one line in err (no child, no context, a timeout). */
int eval_gpu_probe(gg_backend backend, int device, const gg_probe_opts *o, double timeout_s,
                 gg_probe_result *r, char *err, size_t errlen);
/* The same with the card's context info into *info (may be NULL) and o's
 * progress lines kept (the child writes them); with the browser backend
 * the child starts the browser worker and probes the page's WebGL2
 * (eval_browser_probe; the kind is ES3). */
int eval_gpu_probe_card(gg_backend backend, int device, const gg_probe_opts *o, double timeout_s,
                        gg_probe_result *r, gg_ctx_info *info, char *err, size_t errlen);

/* `bench` on the GPU and CPU: the CPU BLAS (base/cpublas) in this
 * process, the presets and the card's recorded bests (results_dir/<card>/
 * best-MxNxK.txt, best-f16-MxNxK.txt and best-f16x8-MxNxK.txt, each if
 * any, and the fastest ok out=image store=f32 row of tune-MxNxK.csv as
 * best-image) through eval_gpu_eval (a half row verified against its own
 * reference,
 * glhost/run.h).  A row without a record is absent (present false).  With
 * the browser backend the presets run as profile=300es and the tfjs-webgl
 * row (TensorFlow.js's tf.matMul in the worker's page) comes last; with
 * g->eval set (the rows on a pool's devices) the evaluator those rows make
 * is closed before it returns (g->ev NULL again).  0, or
 * -1 with one line in err (a best file that does not parse, records that
 * cannot be read, no child, no memory). */
int eval_gpu_bench(gg_gpu *g, const char *results_dir, const char *card, gg_bench *b,
                 gg_bench_progress progress, void *progress_user, char *err, size_t errlen);

#endif
