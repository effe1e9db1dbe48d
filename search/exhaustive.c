/* The exhaustive and random strategies: both walk the full space of
 * search.h (every mrt R x C with R*C <= min(8, draw buffers), every mc r x c
 * with r*c <= 4, np 1..ksteps, every outer value --fix and the card allow). */
#include "search/search_int.h"

#include <stdlib.h>

#include "gen/util.h"

/* When nothing at all is left, what --fix asked for is looked at once, so
 * that the records say why (unsupported, invalid) instead of saying
 * nothing. */
static int nothing_left(gg_search *s, const gg_variant *pruned)
{
    double sc;
    gs_note(s, "nothing to search: the card rules out every variant --fix allows");
    return gs_look(s, pruned, &sc) < 0 ? -1 : 0;
}

/* The cells of the space: their count (> 0) with *cells to free; 0 when
 * there is nothing to walk (nothing_left has been done); -1 on failure. */
static int open_cells(gg_search *s, gs_cell **cells)
{
    gg_variant pruned;
    int n = gs_cells(s, true, cells, &pruned);
    if (n != 0)
        return n;
    free(*cells);
    return nothing_left(s, &pruned);
}

int gs_exhaustive(gg_search *s)
{
    gs_cell *cells;
    int n = open_cells(s, &cells);
    if (n <= 0)
        return n;
    int rc = 0;
    long total = 0;
    for (int i = 0; i < n; i++)
        total += cells[i].nnp;
    gs_plan(s, s->st.visited + total);
    for (int i = 0; i < n && rc == 0; i++)
        for (int j = 0; j < cells[i].nnp; j++) {
            gg_variant v = cells[i].v;
            v.np = gs_cell_np(s, &cells[i], j);
            gg_variant next[4];
            int nn = 0;
            for (int d = 1; d <= 4 && j + d < cells[i].nnp; d++) {
                next[nn] = cells[i].v;
                next[nn++].np = gs_cell_np(s, &cells[i], j + d);
            }
            gs_hint(s, next, nn);
            double sc;
            int r = gs_look(s, &v, &sc);
            if (r) {
                rc = r < 0 ? -1 : 0;
                break;
            }
        }
    free(cells);
    return rc;
}

int gs_random(gg_search *s)
{
    gs_cell *cells;
    int n = open_cells(s, &cells);
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
