/* eval/session: the tuning session (search/session.h) bound to the device
 * pool (eval/pool.h): one call the front ends make (`glgemm tune`, and so
 * glgemm-mpi's rank 0) for one card's slots and one problem.
 *
 * Contract:
 *  - The binding: each evaluation the session asks goes to the pool as
 *    asked (reps, early stop, screening: gg_eval_opts); the search's hints
 *    and the session's prefetches go to the pool; the warm worker is on
 *    where a software rasteriser compiles a variant's first draw on one
 *    thread and a second CPU is there (GLGEMM_WARM_WORKER=1 or 0 decides
 *    instead; one device only); the bound is the card's probe when the
 *    results hold one; what was measured ahead and never asked is dropped
 *    once the search ends (eval_pool_client_end).
 *  - A tune's problem (eval_session_problem): its inputs and the reference
 *    of the held store; the default timeout of its evaluations is
 *    eval_session_timeout's.
 *  - After the stages, the best files go to the user's records folder
 *    (store/publish.h); the result holds what the summary prints.  Nothing
 *    here prints: the front end's functions are told (all may be NULL).
 */
#ifndef GLGEMM_EVAL_SESSION_H
#define GLGEMM_EVAL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/inputs.h"
#include "base/reference.h"
#include "eval/pool.h"
#include "search/session.h"

typedef struct {
    gg_pool *pool;
    int client;                     /* the pool's client: the card's slots, this problem */
    const gg_problem *prob;         /* m, n, k as the inputs have them */
    const char *results;            /* results/ */
    const char *card;               /* the card's slug */
    const gg_device_info *dev;      /* the card's first slot's: its limits */
    const gg_ctx_info *card_info;   /* the context the slug is of */
    bool webgl;                     /* --backend browser: presets in profile=300es */
    /* the search */
    bool fresh;
    gg_strategy strategy;
    gg_fix fix;
    long budget;
    int keep;                       /* phase: outer combinations kept by screening */
    int finalists;                  /* 0: none */
    double stop_at;                 /* --max-time: base_now_s() after which no evaluation starts; 0: none */
    /* the front end's (all may be NULL) */
    gg_tune_progress progress;      /* after every point */
    void (*stage)(void *user, gg_session_stage st, const gg_session_result *r);
    /* each evaluation answered, with its wall time as the session waited */
    void (*evaluated)(void *user, const gg_variant *v, const gg_measurement *m, double wall_s);
    /* the pool could make no worker: its detail (the session then stops) */
    void (*failed)(void *user, const char *detail);
    void *user;
} gg_tune_session_config;

typedef struct {
    /* when opened */
    bool warm;                      /* the warm worker is on */
    bool have_probe;                /* a bound from the card's probe */
    char probe_err[512];            /* else why not */
    gg_records_info records;
    /* after the run */
    gg_session_result s;            /* the stages' */
    bool outside_best;              /* a recorded point outside --fix beats the best */
    gg_variant all_best;
    double all_gflops;
    int published;                  /* store_best_publish_user's answer */
    char user_dir[1024];            /* the user's records folder */
    char publish_err[300];
    gg_evaluator_stats es;          /* the client's, at the end */
} gg_tune_session_result;

typedef struct gg_tune_session gg_tune_session;

/* Binds and opens (the warm worker, the bound, the records): r's "when
 * opened" part filled.  NULL with one line in err. */
gg_tune_session *eval_session_open(const gg_tune_session_config *cfg, gg_tune_session_result *r,
                                   char *err, size_t errlen);

/* Runs the stages, publishes the best files.  0, or -1 with r->s.err (the
 * session stopped: no summary). */
int eval_session_run(gg_tune_session *t, gg_tune_session_result *r);

/* The search under it (the memo, its notes) and its records' path. */
const gg_search *eval_session_search(gg_tune_session *t);
const char *eval_session_records_path(gg_tune_session *t);

/* Drops what was measured ahead and never asked; frees. */
void eval_session_close(gg_tune_session *t);

/* A tune's problem: its inputs, made before the workers fork (they read
 * them copy-on-write), the shape as they have it (files decide it), and
 * the reference of the inputs as the held store's textures hold them. */
typedef struct {
    gg_problem prob;
    gg_inputs in;
    gg_reference ref;
    bool have_in;
} gg_tune_problem;

/* tp from prob (its size as asked) for the held store.  0, or -1 with one
 * line in err; eval_session_problem_free() either way. */
int eval_session_problem(gg_tune_problem *tp, const gg_problem *prob, gg_store store, char *err,
                         size_t errlen);
void eval_session_problem_free(gg_tune_problem *tp);

/* An evaluation's timeout in a tune: given when > 0, else the evaluator's
 * formula by GG_TIMEOUT_TUNE (10 + 60 x (m*n*k / 1024^3) x (reps / 10)
 * seconds, at most 600). */
double eval_session_timeout(const gg_problem *p, double given);

#endif
