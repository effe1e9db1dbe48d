/* store/portfolio: a few variants that run well on many browser cards, for
 * `glgemm export --portfolio` (SPEC.md "Commands", export; issue 36).  No GL
 * here.
 *
 * Contract:
 *  - A cell is one card at one problem size; a rate is one measured
 *    (cell, variant, GFLOP/s).  Several rates of one variant in one cell:
 *    its fastest counts.
 *  - store_portfolio_select() is pure (no file, no global): a cell's best
 *    is its fastest rate; a set S covers a cell by max over v in S of
 *    rate(v, cell) / best (0 where v has no rate there).  Starting from the
 *    empty set it adds the variant that raises the sum over the cells of
 *    their coverage most (ties: the variant whose text sorts first), and
 *    stops after max variants or when none raises it by more than
 *    GG_PORTFOLIO_EPS.  The order of the choice is the order of adding:
 *    the first covers most on its own.
 *  - store_portfolio_read() gathers the rates of every browser card: each
 *    DIR/chromium-* folder's tune-MxNxK.csv (store/paths.h's names, every
 *    size), the rows with status ok, GFLOP/s > 0, of that folder's card and
 *    size, that want accepts (NULL: all).  Cells come card by card (names
 *    sorted), then by size (m, n, k ascending): the result does not depend
 *    on the order the folder lists its files. */
#ifndef GLGEMM_STORE_PORTFOLIO_H
#define GLGEMM_STORE_PORTFOLIO_H

#include <stddef.h>

#include "base/slug.h"
#include "gen/gen.h"
#include "store/records.h" /* gg_record_want */

#define GG_PORTFOLIO_MAX 8            /* variants a portfolio holds at most */
#define GG_PORTFOLIO_EPS 1e-9         /* a gain no larger is none */
#define GG_BROWSER_CARD_PREFIX "chromium-" /* the browser backend's card slugs */
#define GG_PORTFOLIO_CELL (GG_CARD_MAX + 40) /* "<card> MxNxK" */

typedef struct {
    char cell[GG_PORTFOLIO_CELL];  /* which card and size: any name, compared as text */
    char variant[GG_VARIANT_TEXT]; /* canonical form */
    double gflops;                 /* > 0 (others are passed over) */
} gg_portfolio_rate;

typedef struct {
    char cell[GG_PORTFOLIO_CELL];
    double best;     /* its fastest rate */
    double coverage; /* max over the chosen of rate / best, in [0, 1] */
    int by;          /* the chosen variant that gives it (index), -1: none */
} gg_portfolio_cell;

typedef struct {
    int nchosen;
    char chosen[GG_PORTFOLIO_MAX][GG_VARIANT_TEXT];
    double sum[GG_PORTFOLIO_MAX]; /* summed coverage once chosen[0..i] are in */
    size_t ncells;
    gg_portfolio_cell *cells;     /* malloc'd, in the order cells first appear in the rates */
} gg_portfolio;

/* Chooses at most max (1 to GG_PORTFOLIO_MAX) variants from n rates into
 * *out (free with store_portfolio_free).  No rates: none chosen, no cells.
 * 0, or -1 with one line in err (max out of range, out of memory). */
int store_portfolio_select(const gg_portfolio_rate *rates, size_t n, int max, gg_portfolio *out,
                           char *err, size_t errlen);
void store_portfolio_free(gg_portfolio *p);

/* The rates of every browser card under dir into *rates (malloc'd; free
 * it), *n of them, *cards the browser card folders seen (with or without
 * rates).  0 (no folder or no rate: *n = 0), or -1 with one line in err
 * (a records file that cannot be read, out of memory). */
int store_portfolio_read(const char *dir, gg_record_want want, void *user, gg_portfolio_rate **rates,
                         size_t *n, int *cards, char *err, size_t errlen);

#endif
