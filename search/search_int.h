/* Inside search/: the search state, the strategy interface, the memo and
 * the enumerations shared by the strategies.  Not for use outside search/.
 * Each function is declared with the file that defines it; the files
 * stand in this order, each calling only those below it (search.c's
 * header): search.c; phase.c, exhaustive.c, random.c; space.c; visit.c;
 * memo.c; notes.c, fix.c. */
#ifndef GLGEMM_SEARCH_INT_H
#define GLGEMM_SEARCH_INT_H

#include <stdint.h>

#include "search/search.h"

typedef struct {
    uint64_t key;     /* gs_key of the normalised variant; 0 marks a free slot */
    gg_variant v;
    gg_outcome o;
    bool visited;     /* looked at by this search */
} gs_entry;

typedef struct {
    char *why;
    long count;
} gs_reason;

struct gg_search {
    gg_search_config cfg;
    gs_entry *tab;    /* open addressing, capacity a power of two */
    size_t cap, count;
    gg_search_stats st;
    char **notes;
    int nnotes, capnotes;
    gs_reason *card;  /* what the card ruled out, by reason */
    int ncard, capcard;
    double store_best; /* best score in the memo among points of the searched
                          store (cfg.fix.v.store): what the bound must reach */
    /* phase.c: the fetch paths the blocks went on with (the fastest at the
     * representative block), which the paper's best point then tries;
     * none: every path. */
    int block_paths[2];
    int nblock_paths;
};

/* ---- memo.c ---- */

/* A unique nonzero key of a normalised variant. */
uint64_t gs_key(const gg_variant *v);
gs_entry *gs_memo_find(const gg_search *s, uint64_t key);
/* Inserts (key not present); NULL when out of memory. */
gs_entry *gs_memo_insert(gg_search *s, const gg_variant *v, const gg_outcome *o);

/* ---- visit.c ---- */

/* The strategies' way to look at a point (np normalised here).  Counts
 * against the budget.  Returns 0 with *score set, 1 when the budget is
 * spent (nothing looked at), -1 when the search must stop. */
int gs_look(gg_search *s, const gg_variant *v, double *score);

/* Tells the config's hint the first (at most GG_SEARCH_HINTS) of
 * next[0..n) that are not in the memo yet, the card can run and the bound
 * does not prune now. */
void gs_hint(gg_search *s, const gg_variant *next, int n);

/* Whether the card (and the contexts there are) can run v: GG_OK, or
 * GG_INVALID / GG_UNSUPPORTED with why. */
gg_status gs_card_status(const gg_search *s, const gg_variant *v, char *why, size_t len);
/* Sets the estimate of points the search will look at (the budget caps it). */
void gs_plan(gg_search *s, long planned);

/* ---- notes.c ---- */

/* Counts n variants the card ruled out, by reason (said in the notes). */
void gs_card_pruned(gg_search *s, const char *why, long n);
/* Turns the counted reasons into notes (end of a run). */
void gs_card_notes(gg_search *s);

void gs_note(gg_search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- space.c ---- */

/* Outer combinations (compiler, profile, unroll, acc) that --fix allows, in
 * Algorithm 2's loop order; mrt, mc and np of each are --fix's or defaults.
 * Returns the count (at most 36). */
int gs_outer(const gg_search *s, gg_variant out[36]);

/* The mc and mrt shapes to try: the paper's pruned sets (full = false) or
 * every shape (full = true); --fix's value alone when held.  mrt shapes
 * above 8 targets never appear; the card filters them later. */
int gs_mc_set(const gg_search *s, bool full, gg_shape out[8]);
int gs_mrt_set(const gg_search *s, bool full, gg_shape out[20]);

/* Whether the card allows v; when not, n variants are counted as pruned
 * under the card's reason. */
bool gs_allowed(gg_search *s, const gg_variant *v, long n);

/* A cell of the space: outer keys, mc and mrt fixed; nnp np values
 * (1..ksteps, or --fix's np alone). */
typedef struct {
    gg_variant v;
    int nnp;
} gs_cell;

/* The cells of the space with the given mc/mrt sets (full or pruned) that
 * the card allows, malloc'd into *out.  Returns the count (-1 out of
 * memory).  *first_pruned (may be NULL) gets a ruled-out point when there
 * are no cells, to be looked at (and recorded) as what --fix asked for. */
int gs_cells(gg_search *s, bool full, gs_cell **out, gg_variant *first_pruned);
/* The np of a cell's i-th point. */
int gs_cell_np(const gg_search *s, const gs_cell *c, int i);

/* The full space's cells (gs_cells, full): their count (> 0) with *cells
 * to free; 0 when nothing is left to walk (what --fix asked for has then
 * been looked at once, so that the records say why); -1 on failure. */
int gs_open_cells(gg_search *s, gs_cell **cells);

/* ---- feed.c ---- */

/* The phase strategy's last stage: order, ku and tile on the best point
 * (feed.c's header).  0, or -1 when the search must stop. */
int gs_feed(gg_search *s);

/* blocks.c: the phase strategy's steps past the 32-output cap, and after
 * the paper's search its best out=rt point by the other fetch paths: 0,
 * 1 budget spent, -1 stop. */
int gs_blocks_phase(gg_search *s);
int gs_rt_fetch_paths(gg_search *s);

/* phase.c's Algorithm 1 around best's np (blocks.c uses it too): as
 * find_np's rc. */
int gs_refine_np(gg_search *s, const gg_variant *best, long *evals);

/* phase.c: the paper's search (out=rt): 0, 1 budget spent, -1 stop. */
int gs_rt_phase(gg_search *s);

/* phase.c's step 4 machinery, which the blocks use too: what
 * gs_run_marked does with each point of pts (run[j]), and the points
 * Algorithm 1 is likely to look at (for progress estimates). */
enum { GS_SKIP = 0, GS_TODO = 1, GS_DONE = 2 };
int gs_run_marked(gg_search *s, const gg_variant *pts, int n, unsigned char *run, double *sc,
                  gg_variant *best, double *bs, int *looked, bool falling, double gate,
                  int *stopped);
long gs_alg1_estimate(const gg_search *s);

/* ---- the strategies: one each in phase.c, exhaustive.c, random.c ---- */

/* What search_run drives (search.c's table, by gg_strategy): name is what
 * search_strategy_parse takes; run walks the space through gs_look and
 * returns a negative value when the search must stop. */
typedef struct {
    const char *name;
    int (*run)(gg_search *s);
} gs_strategy;

extern const gs_strategy gs_strategy_phase;
extern const gs_strategy gs_strategy_exhaustive;
extern const gs_strategy gs_strategy_random;

#endif
