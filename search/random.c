/* search/random: the random strategy (a gs_strategy, search_int.h, run by
 * search.c): `budget` distinct points of the exhaustive space (space.c's
 * cells, as exhaustive.c walks them), drawn uniformly with a seeded
 * generator.  Below search.c; calls space.c, visit.c and memo.c, never
 * another strategy. */
#include "search/search_int.h"

#include <stdlib.h>

#include "gen/util.h"

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
        gg_variant nv = v;
        search_variant_normalize(&nv, s->cfg.m, s->cfg.n, s->cfg.k);
        gs_entry *e = gs_memo_find(s, gs_key(&nv));
        if (e && e->visited) {
            misses++;
            continue;
        }
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
