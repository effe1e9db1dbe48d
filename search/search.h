/* search/: the tuner's strategies, and nothing of GL.
 *
 * Contract of this layer:
 *  - A search walks a finite space of variants for one problem (m, n, k) on
 *    one card and calls an evaluate function pointer (gg_eval_fn) for every
 *    point it wants measured.  A point's score is its GFLOP/s when its status
 *    is ok and 0 otherwise (the paper's rule): a failed point never stops
 *    the search.
 *  - Points are normalised first: np >= ksteps (ksteps depends on mc) is
 *    np=all, so two spellings of one layout are one point.
 *  - A memo holds every point measured or preloaded (from the tuning
 *    records, search_preload): no point is ever evaluated twice.
 *  - What --fix holds and what the card cannot run (gen_variant_check_card)
 *    is never enumerated; what the card prunes is said in the notes.
 *  - Strategies (search_run):
 *      phase       screening of the outer keys (compiler, profile, unroll,
 *                  acc), then the paper's Algorithm 2 for each kept outer
 *                  combination: np over powers of two (and all) x every mc
 *                  of gen_pruned_mc x every mrt of gen_pruned_mrt (gen/gen.h:
 *                  {1x1,1x2,1x4,2x2,4x1} and {1x1,1x2,1x4,2x2,1x8,2x4,4x2};
 *                  the last three where the card has 8 draw buffers), in
 *                  two stages (phase.c: the first kept combination every
 *                  shape at np 2, 8, 32, ... and all until the rate falls,
 *                  then every power of two on its 5 best shapes; the
 *                  others every power of two on those 5 shapes, until the
 *                  rate falls), then Algorithm 1 for np around the best, mc
 *                  and mrt fixed.
 *      exhaustive  every point the card and --fix allow: every mrt R x C
 *                  with R*C <= min(8, draw buffers), every mc r x c with
 *                  r*c <= 4, every np from 1 to ksteps (ksteps is all),
 *                  every unroll, profile, compiler, acc.
 *      random      `budget` distinct points of the exhaustive space, drawn
 *                  uniformly with a seeded generator (same seed, same
 *                  sequence: a resumed random tune completes the same set).
 *  - `budget` (> 0) caps the distinct points any strategy looks at, records
 *    included; random needs it.
 *  - Bound pruning (cfg.bound set): a point a strategy looks at that the
 *    card can run, and that is not in the memo, is not evaluated when
 *    bound_margin x bound(v) is below the best score so far among the
 *    memo's points of the searched store (--fix's store, f32 by default;
 *    preloaded records count).  It gets status pruned_bound (score 0, a
 *    detail naming the bound and the best), goes to the hook as fresh (the
 *    tune records it, so a resumed tune does not look at it again) and
 *    counts in the stats (bound_pruned) and the budget like any point
 *    looked at; the notes say how many.  search_visit() (the presets:
 *    a point asked for by name) is never pruned.  A pruned point cannot be
 *    the best (its bound is below the best), so exhaustive and random find
 *    the same best with or without it; phase can take another path where a
 *    pruned point's 0 ends an Algorithm 1 stride or a screening that the
 *    point's real (lower than best/margin) score would have continued.
 * No GL header is included anywhere in search/.
 */
#ifndef GLGEMM_SEARCH_H
#define GLGEMM_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "base/measure.h"

/* Measures one variant on the problem.  Fills out (any status; a failure of
 * the variant is a status) and returns 0, or returns nonzero to stop the
 * whole search (the tool itself failed: no fork, a full disk). */
typedef int (*gg_eval_fn)(void *user, const gg_variant *v, gg_measurement *out);

typedef enum { GG_SEARCH_PHASE, GG_SEARCH_EXHAUSTIVE, GG_SEARCH_RANDOM } gg_strategy;

/* The most points one hint names: enough to keep 8 devices busy. */
#define GG_SEARCH_HINTS 8

/* "phase" / "exhaustive" / "random" -> strategy; -1 if unknown. */
int search_strategy_parse(const char *name);
const char *search_strategy_name(gg_strategy s);

typedef struct {
    unsigned mask; /* GG_KEY_* held (gen/gen.h) */
    gg_variant v;  /* their values (the other fields are defaults) */
} gg_fix;

/* Parses "profile=300es,acc=blend": the keys and values of SPEC.md's table
 * (values checked by gen_variant_parse's rules), each key at most once, no
 * presets.  NULL or "" holds nothing.  0, or -1 with one line in err. */
int search_fix_parse(const char *text, gg_fix *fix, char *err, size_t errlen);

/* "profile=300es,acc=blend" of what fix holds ("" if nothing). */
char *search_fix_format(const gg_fix *fix, char *buf, size_t len);

/* One point's outcome, as the memo keeps it. */
typedef struct {
    gg_status status;
    int passes;
    double seconds, gflops, rel_err;
} gg_outcome;

typedef struct gg_search gg_search;

/* Called after every point the search looks at, measured now (fresh) or
 * found in the memo for the first time in this search (!fresh).  m is NULL
 * for a memo hit.  Return nonzero to stop the search. */
typedef int (*gg_search_hook)(void *hook_user, gg_search *s, const gg_variant *v,
                              const gg_outcome *o, const gg_measurement *m, bool fresh);

typedef struct {
    int m, n, k;                /* the problem (np is resolved against it) */
    gg_card_limits lim[GG_PROFILE_COUNT]; /* per profile (indexed by gg_profile) */
    bool profile_ok[GG_PROFILE_COUNT]; /* a context of that profile's kind exists */
    gg_fix fix;
    gg_strategy strategy;
    long budget;                /* > 0: at most this many distinct points */
    unsigned long seed;         /* random */
    int np_threshold;           /* Algorithm 1 stops at intervals this short (>= 1; default 1) */
    double screen_within;       /* screening keeps outer combinations within this
                                   fraction of the best (default 0.10) */
    int screen_keep;            /* ... and at most this many (default 3; 0: no cap) */
    gg_eval_fn eval;
    void *user;
    gg_search_hook hook;        /* may be NULL */
    void *hook_user;
    /* May be NULL: told the points a strategy will look at next (not yet
     * in the memo, at most GG_SEARCH_HINTS, likeliest first), so that an
     * evaluator can build them ahead, or measure them on idle devices
     * (eval/pool.h). */
    void (*hint)(void *user, const gg_variant *next, int n);
    void *hint_user;
    /* Optional upper bound on a variant's GFLOP/s (search/bound.h's
     * search_bound_search_fn; <= 0: no bound for that variant).  NULL: no
     * pruning.  See "Bound pruning" above. */
    double (*bound)(void *user, const gg_variant *v);
    void *bound_user;
    double bound_margin;        /* >= 1; default GG_BOUND_MARGIN */
} gg_search_config;

/* Defaults: phase, no budget, seed 1, threshold 1, screening 10% / 3, no
 * bound (margin GG_BOUND_MARGIN);
 * every profile available with 8 draw buffers, float blending and SPIR-V
 * (callers overwrite lim and profile_ok with the card's). */
void search_config_default(gg_search_config *c, int m, int n, int k);

typedef struct {
    long visited;                   /* distinct points looked at in this search */
    long measured;                  /* ... of them new now (evaluated, or ruled out by
                                       the card or the bound: a new records row) */
    long from_memo;                 /* ... of them found in the memo (records) */
    long by_status[GG_STATUS_COUNT];/* visited points by status */
    long bound_pruned;              /* ... of the measured, pruned by the bound (not evaluated) */
    long planned;                   /* estimate of the points the search will visit */
    bool have_best;                 /* a visited point scored > 0 */
    gg_variant best;
    gg_outcome best_outcome;
    bool stopped;                   /* the evaluator or the hook asked to stop */
    bool budget_spent;              /* the search ended on its budget */
} gg_search_stats;

/* NULL only when out of memory or the config is unusable (err says why). */
gg_search *search_new(const gg_search_config *cfg, char *err, size_t errlen);
void search_free(gg_search *s);

/* Puts a known outcome in the memo (resume): it is not measured again.
 * Points of another problem cannot be told apart here: the caller passes
 * only this problem's.  Returns 1 when new, 0 when already known. */
int search_preload(gg_search *s, const gg_variant *v, const gg_outcome *o);

/* Runs the configured strategy.  0, or -1 when stopped by the evaluator or
 * the hook (the stats say so). */
int search_run(gg_search *s);

/* Looks at one point through the memo (evaluating it when new), outside any
 * strategy (presets).  The budget does not apply.  Fills *o when o is not
 * NULL.  0, or -1 when the evaluator or the hook asked to stop. */
int search_visit(gg_search *s, const gg_variant *v, gg_outcome *o);

const gg_search_stats *search_get_stats(const gg_search *s);

/* After a stop the caller chose (a time limit), lets search_visit look
 * at points again. */
void search_clear_stop(gg_search *s);

/* The best scoring point in the whole memo (this search's and the
 * preloaded ones).  false when nothing scored > 0. */
bool search_memo_best(const gg_search *s, gg_variant *v, gg_outcome *o);
/* The same among the points of that store (gen/gen.h's gg_store; -1 any). */
bool search_memo_best_store(const gg_search *s, int store, gg_variant *v, gg_outcome *o);

/* Whether v has every value fix holds (np compared as given). */
bool search_fix_matches(const gg_fix *fix, const gg_variant *v);

/* The n best scoring points of that store (-1 any) in the whole memo that
 * fix allows (NULL: all), best first, into v[] and their GFLOP/s into
 * gflops[].  Returns how many (<= n), -1 when out of memory. */
int search_memo_top_store(const gg_search *s, int store, const gg_fix *fix, int n,
                             gg_variant *v, double *gflops);
/* The memo's outcome of v (normalised here): false when not in the memo. */
bool search_memo_get(const gg_search *s, const gg_variant *v, gg_outcome *o);

/* Notes for the summary, one line each: what screening pruned and why,
 * what the card ruled out, how many points the bound pruned. */
int search_nnotes(const gg_search *s);
const char *search_note(const gg_search *s, int i);

/* v with np normalised against the problem: the layout's np (store=f16x8
 * rounds np up to a multiple of its ku), and all where that is >= the
 * k-steps of v's mc.  -1 when the layout cannot be computed. */
int search_variant_normalize(gg_variant *v, int m, int n, int k);

/* ksteps of a packing on this problem: ceil(k / lcm(r, c)). */
int search_ksteps(gg_shape mc, int k);

/* Score of an outcome: GFLOP/s when ok, else 0. */
double search_outcome_score(const gg_outcome *o);

void search_outcome_from_measurement(gg_outcome *o, const gg_measurement *m);

#endif
