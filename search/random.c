/* search/random: the random strategy (a gs_strategy, search_int.h, run by
 * search.c): `budget` distinct points of the exhaustive space (space.c's
 * cells, as exhaustive.c walks them), drawn uniformly with a seeded
 * generator.  Below search.c; calls space.c, visit.c and memo.c, never
 * another strategy. */
#include "search/search_int.h"

#include <stdlib.h>

#include "gen/util.h"

/* The point of the space with index idx (pre: the cells' prefix sums). */
static gg_variant point_at(const gg_search *s, const gs_cell *cells, const long *pre, int n, long idx)
{
    int lo = 0, hi = n; /* the cell: pre[lo] <= idx < pre[lo + 1] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (pre[mid] <= idx)
            lo = mid;
        else
            hi = mid;
    }
    gg_variant v = cells[lo].v;
    v.np = gs_cell_np(s, &cells[lo], (int)(idx - pre[lo]));
    return v;
}

/* The generator's next draws from a copy of its state, hinted (gs_hint
 * leaves out those in the memo). */
static void hint_draws(gg_search *s, const gs_cell *cells, const long *pre, int n, uint64_t state,
                       long left)
{
    gg_variant next[GG_SEARCH_HINTS];
    int nn = 0;
    for (int d = 0; d < 4 * GG_SEARCH_HINTS && nn < GG_SEARCH_HINTS && nn < left; d++) {
        gg_variant v = point_at(s, cells, pre, n, (long)(gen_splitmix64(&state) % (uint64_t)pre[n]));
        bool dup = false;
        for (int i = 0; i < nn && !dup; i++)
            dup = gen_variant_equal(&next[i], &v);
        if (!dup)
            next[nn++] = v;
    }
    gs_hint(s, next, nn);
}

static int random_run(gg_search *s)
{
    gs_cell *cells;
    int n = gs_open_cells(s, &cells);
    if (n <= 0)
        return n;
    int rc = 0;
    /* Prefix sums: a uniform index over all points picks a cell and an np. */
    long *pre = malloc((size_t)(n + 1) * sizeof *pre);
    if (!pre) {
        rc = -1;
        goto out;
    }
    pre[0] = 0;
    for (int i = 0; i < n; i++)
        pre[i + 1] = pre[i] + cells[i].nnp;
    long total = pre[n];
    long want = s->cfg.budget < total ? s->cfg.budget : total;
    gs_plan(s, s->st.visited + want);
    uint64_t state = s->cfg.seed;
    long drawn = 0;          /* distinct points of this space looked at */
    long misses = 0;         /* draws of a point already looked at */
    while (drawn < want && misses < 64 * total + 1024) {
        long idx = (long)(gen_splitmix64(&state) % (uint64_t)total);
        gg_variant v = point_at(s, cells, pre, n, idx);
        gg_variant nv = v;
        search_variant_normalize(&nv, s->cfg.m, s->cfg.n, s->cfg.k);
        gs_entry *e = gs_memo_find(s, gs_key(&nv));
        if (e && e->visited) {
            misses++;
            continue;
        }
        hint_draws(s, cells, pre, n, state, want - drawn - 1);
        double sc;
        int r = gs_look(s, &v, &sc);
        if (r) {
            rc = r < 0 ? -1 : 0;
            break;
        }
        drawn++;
    }
    free(pre);
out:
    free(cells);
    return rc;
}

const gs_strategy gs_strategy_random = {"random", random_run};
