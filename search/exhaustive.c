/* search/exhaustive: the exhaustive strategy (a gs_strategy, search_int.h,
 * run by search.c): every point of the full space of search.h (every mrt
 * R x C with R*C <= min(8, draw buffers), every mc r x c with r*c <= 4, np
 * 1..ksteps, every outer value --fix and the card allow), cell by cell.
 * Below search.c; calls space.c and visit.c, never another strategy. */
#include "search/search_int.h"

#include <stdlib.h>

static int exhaustive_run(gg_search *s)
{
    gs_cell *cells;
    int n = gs_open_cells(s, &cells);
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
            /* the next points in walking order, into the next cells */
            gg_variant next[GG_SEARCH_HINTS];
            int nn = 0;
            for (int ci = i, cj = j + 1; ci < n && nn < GG_SEARCH_HINTS; cj++) {
                if (cj >= cells[ci].nnp) {
                    ci++;
                    cj = -1;
                    continue;
                }
                next[nn] = cells[ci].v;
                next[nn++].np = gs_cell_np(s, &cells[ci], cj);
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

const gs_strategy gs_strategy_exhaustive = {"exhaustive", exhaustive_run};
