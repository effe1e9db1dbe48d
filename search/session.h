/* search/session: one tuning session, its stages in order, over an
 * evaluation function.  No GL and no devices here: eval/session.h binds it
 * to the pool; the tests' evaluators are formulas.
 *
 * Contract:
 *  - The stages, in this order: the search (search/tune.h: the records,
 *    the strategy); the two presets, nv-single and nv-multi (profile=300es
 *    on a WebGL2 card), recorded like any point; each store's best file
 *    written (search_tune_finish); then, with finalists > 0, the n best
 *    measured again in GG_SESSION_ROUNDS interleaved rounds
 *    (search_tune_finalists).
 *  - What an evaluation is asked (gg_session_ask): the problem's reps.
 *    Outside the finalists also an early stop (once GG_SESSION_MIN_REPS
 *    timed runs agree within GG_SESSION_TIGHT) and screening (a variant
 *    whose first timed runs take over GG_SESSION_SCREEN_FACTOR x the best
 *    time so far of the held store stops there).  The finalists run the
 *    full reps.
 *  - stop_at (--max-time): no evaluation of the search starts after it;
 *    the search stops there, and the presets, the best files and the
 *    finalists still run (the next session resumes from the records).
 *  - The session stops (search_session_run -1, why in the result's err)
 *    when the evaluation function asks to (the tool failed) or the records
 *    cannot be written; a variant's failure is a status, never a stop.
 */
#ifndef GLGEMM_SEARCH_SESSION_H
#define GLGEMM_SEARCH_SESSION_H

#include "search/tune.h"

/* Interleaved rounds of the finalists' re-measurement. */
#define GG_SESSION_ROUNDS 5
/* Screening: a first timed run this many times slower than the best so
 * far stops the variant there (measured, verified, recorded). */
#define GG_SESSION_SCREEN_FACTOR 2.0
/* Repetitions stop early once this many agree within this spread. */
#define GG_SESSION_MIN_REPS 3
#define GG_SESSION_TIGHT 0.03

/* How one evaluation is to time (eval/evaluator.h's gg_eval_opts): reps;
 * min_reps > 0: stop once their spread is <= tight; screen_s > 0: stop
 * after the first timed runs when they took longer. */
typedef struct {
    int reps;
    int min_reps;
    double tight;
    double screen_s;
} gg_session_ask;

/* Where the session is, told to the stage function. */
typedef enum {
    GG_SESSION_SEARCHED,   /* the search ended (r->st, r->out_of_time, r->search_asks) */
    GG_SESSION_PRESETS,    /* the presets recorded and the best files written */
    GG_SESSION_FINALISTS,  /* the finalists are about to be measured again */
} gg_session_stage;

typedef struct {
    gg_search_stats st;         /* the search's own, before the presets */
    bool out_of_time;           /* stop_at ended the search */
    long search_asks;           /* evaluations answered during the search */
    long asks;                  /* ... in the whole session */
    long screened;              /* fresh points of the search and presets stopped by screening */
    gg_variant nvs, nvm;        /* the presets, as measured */
    gg_outcome os, om;
    gg_finalist fin[GG_FINALISTS_MAX];
    int nfin;
    bool have_best;             /* the finalists' winner is ok, else the search found one */
    double best_gflops;         /* its GFLOP/s (the finalists' median, else the search's best) */
    char err[600];              /* why the session stopped */
} gg_session_result;

typedef struct {
    /* Measures v as asked.  0, or nonzero to stop the session. */
    int (*eval)(void *user, const gg_variant *v, const gg_session_ask *a, gg_measurement *out);
    /* May be NULL: the points the search looks at next (search.h's hint). */
    void (*hint)(void *user, const gg_variant *next, int n, const gg_session_ask *a);
    /* May be NULL: what will surely be asked next, in order (the presets
     * the records lack; the finalists' rounds), to measure ahead. */
    void (*prefetch)(void *user, const gg_variant *v, int n, const gg_session_ask *a);
    /* May be NULL: told each stage as it comes (progress, pool upkeep). */
    void (*stage)(void *user, gg_session_stage st, const gg_session_result *r);
    /* May be NULL (base_now_s): the clock stop_at is on. */
    double (*now)(void *user);
    void *user;
} gg_session_fns;

typedef struct {
    /* The records and the search: its eval, user, hint and hint_user are
     * the session's; progress is called after every point. */
    gg_tune_config tune;
    int reps;                   /* the problem's */
    int finalists;              /* how many to measure again; 0: none */
    bool webgl;                 /* the card runs GLSL ES 3.00 only: presets in profile=300es */
    double stop_at;             /* on now's clock; 0: no limit */
    gg_session_fns fns;
} gg_session_config;

typedef struct gg_session gg_session;

/* Opens the records (search_tune_open).  NULL with one line in err. */
gg_session *search_session_open(const gg_session_config *cfg, gg_records_info *info, char *err,
                                size_t errlen);

/* Runs the stages; r filled as they go.  0, or -1 with r->err. */
int search_session_run(gg_session *s, gg_session_result *r);

/* The tune under it: its search (the memo, notes), its records' path. */
gg_tune *search_session_tune(gg_session *s);

/* The ask of an evaluation now (finals: the finalists'). */
void search_session_ask(const gg_session *s, bool finals, gg_session_ask *a);

void search_session_close(gg_session *s);

#endif
