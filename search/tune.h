/* search/tune: a search bound to its tuning records.  No GL here: the
 * evaluation is the config's gg_eval_fn (the CLI's runs a GEMM in a child
 * process; the tests' are formulas).
 *
 * Contract:
 *  - search_tune_open() opens the records (records.h: resume, torn rows,
 *    --fresh, the lock) and preloads every recorded row into the search's
 *    memo: what is recorded is never measured again.
 *  - Every point measured now is appended to the records as it is
 *    measured, before the search goes on; points found in the memo are not
 *    written again, so the records hold each variant once.
 *  - Each store's best file (records.h) follows the best scoring point of
 *    that store in the whole memo (records included): rewritten
 *    (atomically) whenever it improves, and by search_tune_finish().  A
 *    store=f16 point never becomes best-MxNxK.txt: the halves are a
 *    precision of their own.
 *  - A failure to write the records stops the search (search_tune_error says
 *    why); failures of variants never do.
 */
#ifndef GLGEMM_TUNE_H
#define GLGEMM_TUNE_H

#include "store/records.h"
#include "search/search.h"

/* Progress: after every point the search looks at (fresh: measured now). */
typedef void (*gg_tune_progress)(void *user, const gg_search *s, const gg_variant *v,
                                 const gg_outcome *o, const gg_measurement *m, bool fresh);

typedef struct {
    const char *results_dir;    /* "results" */
    const char *card;           /* the card's slug */
    bool fresh;
    gg_search_config search;    /* problem, card limits, fix, strategy, eval (hook: the tune's) */
    gg_tune_progress progress;  /* may be NULL */
    void *progress_user;
} gg_tune_config;

typedef struct gg_tune gg_tune;

/* NULL with one line in err on failure (records unusable, out of memory). */
gg_tune *search_tune_open(const gg_tune_config *cfg, gg_records_info *info, char *err, size_t errlen);

/* Runs the configured strategy.  0, or -1 when stopped (search_tune_error). */
int search_tune_run(gg_tune *t);

/* Looks at one variant outside the strategy (the presets), recorded like
 * any other.  0, or -1 when stopped. */
int search_tune_visit(gg_tune *t, const gg_variant *v, gg_outcome *o);

/* Writes each store's best file from the memo's best of that store.  0
 * (also when there is none: nothing written), or -1 with search_tune_error. */
int search_tune_finish(gg_tune *t);

/* Finalists: the n best points of that store in the memo (records
 * included), measured again in `rounds` interleaved rounds (round r runs
 * each finalist once, in turn, through eval), so that drift and noise fall
 * on all of them alike.  Finalists are points --fix allows (presets outside
 * it are not).  A finalist's figure is the median of its rounds'
 * times, its spread (slowest - fastest) / median; one that fails a round
 * (wrong_result, timeout, ...) is out.  The fastest by median becomes the
 * store's best file, with that median and spread, unless a recorded point
 * outside --fix scores higher (then the best file stays that one's).  The records are not
 * touched.  Returns the finalists measured (out[0..), best first; those out
 * last, with their status), 0 when there is none, -1 when eval asked to
 * stop or the best file cannot be written (search_tune_error). */
#define GG_FINALISTS_MAX 16
typedef struct {
    gg_variant v;
    double recorded;    /* GFLOP/s in the memo */
    gg_status status;   /* GG_OK, or why it is out */
    int rounds;         /* rounds it ran */
    double seconds, gflops, spread;
} gg_finalist;

int search_tune_finalists(gg_tune *t, gg_store store, int n, int rounds, gg_eval_fn eval,
                      void *eval_user, gg_finalist out[GG_FINALISTS_MAX]);

gg_search *search_tune_search(gg_tune *t);
const char *search_tune_records_path(const gg_tune *t);
const char *search_tune_error(const gg_tune *t); /* "" when none */
void search_tune_close(gg_tune *t);

#endif
