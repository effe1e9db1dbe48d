/* search/feed: the phase strategy's last stage (issue 31's keys): on the
 * best point found (and on the best of another fetch path near it), the
 * keys that change how its multiply-adds are fed and not what it
 * computes, one at a time, each kept where it is faster:
 *  - order=frag (out=image): the fragments' rows paired in A's and B's
 *    textures;
 *  - ku=2, 4 (unroll=0): k-steps a loop iteration;
 *  - tile: C drawn in tiles, row and Z order, a quarter and an eighth of
 *    the viewport's width (a tile at least GG_TILE_MIN fragments, and more
 *    than one a pass).
 * A key --fix holds is left as it holds it.  Each gives a few percent or
 * loses (docs/notes/feed.md), so the stage is a few points, not a grid.
 * Calls visit.c
 * (gs_look), memo.c and notes.c, never another strategy. */
#include "search/search_int.h"

#include <stdio.h>

/* Looks at the candidates c[0..n) (normalised, allowed, not the best
 * itself); the best of them replaces *best where it scores higher.  Returns
 * 0, or the stop of gs_look (1 budget, -1 error). */
static int try_all(gg_search *s, gg_variant *c, int n, gg_variant *best, double *bs, int *looked)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (search_variant_normalize(&c[i], s->cfg.m, s->cfg.n, s->cfg.k) ||
            gen_variant_equal(&c[i], best) || !gs_allowed(s, &c[i], 1))
            continue;
        c[k++] = c[i];
    }
    int rc = 0;
    gg_variant win = *best;
    double ws = *bs;
    for (int i = 0; i < k && !rc; i++) {
        gs_hint(s, c + i + 1, k - i - 1);
        double sc = 0;
        rc = gs_look(s, &c[i], &sc);
        if (!rc)
            (*looked)++;
        if (!rc && sc > ws) {
            ws = sc;
            win = c[i];
        }
    }
    *best = win;
    *bs = ws;
    return rc;
}

/* The keys one at a time on one starting point (memoised, normalised):
 * the note says what they gave.  0, or the stop of gs_look. */
static int feed_one(gg_search *s, gg_variant best, double bs, const char *which)
{
    const gg_fix *f = &s->cfg.fix;
    char t0[GG_VARIANT_TEXT], t1[GG_VARIANT_TEXT];
    gen_variant_format(&best, t0, sizeof t0);
    double s0 = bs;
    int looked = 0, rc = 0;
    gg_variant c[8];
    if (!(f->mask & GG_KEY_ORDER) && best.out == GG_OUT_IMAGE && best.order == GG_ORDER_PLAIN) {
        c[0] = best;
        c[0].order = GG_ORDER_FRAG;
        rc = try_all(s, c, 1, &best, &bs, &looked);
    }
    if (!rc && !(f->mask & GG_KEY_KU) && !best.unroll) {
        int n = 0;
        for (int ku = 2; ku <= 4; ku *= 2)
            if (ku != best.ku) {
                c[n] = best;
                c[n++].ku = ku;
            }
        rc = try_all(s, c, n, &best, &bs, &looked);
    }
    gg_layout L;
    if (!rc && !(f->mask & GG_KEY_TILE) && !best.tile.rows &&
        !gen_layout_compute(&best, s->cfg.m, s->cfg.n, s->cfg.k, &L)) {
        int n = 0;
        for (int div = 4; div <= 8; div *= 2)
            for (int z = 0; z < 2; z++) {
                int w = L.tgt_w / div, h = L.tgt_h / div;
                if (w < 1 || h < 1 || (long)w * h < GG_TILE_MIN)
                    continue;
                c[n] = best;
                c[n].tile.cols = w;
                c[n].tile.rows = h;
                c[n++].tile_order = z ? GG_TILE_Z : GG_TILE_ROWS;
            }
        rc = try_all(s, c, n, &best, &bs, &looked);
    }
    if (rc < 0)
        return -1;
    gs_note(s, "feed: %d point(s) on the %s %s (%.4g GFLOP/s): order, ku, tile -> %s, %.4g GFLOP/s",
            looked, which, t0, s0, gen_variant_format(&best, t1, sizeof t1), bs);
    return rc;
}

/* The stage starts from the best point, and from the best point of another
 * fetch path within FEED_REACH of it: the keys move a point by several
 * percent, and not the same way on every path, so the runner-up path can
 * finish first (docs/notes/feed.md, "Issue 37, second round"). */
#define FEED_REACH 1.10
#define FEED_LOOK 64 /* memo's top points searched for the other path */

int gs_feed(gg_search *s)
{
    const gg_fix *f = &s->cfg.fix;
    gg_variant top[FEED_LOOK];
    double ts[FEED_LOOK];
    int got = search_memo_top_store(s, (int)f->v.store, f, FEED_LOOK, top, ts);
    if (got <= 0)
        return got;
    int other = -1;
    for (int i = 1; i < got && other < 0; i++)
        if (top[i].fetch != top[0].fetch && ts[i] * FEED_REACH >= ts[0])
            other = i;
    int rc = feed_one(s, top[0], ts[0], "best");
    if (!rc && other >= 0)
        rc = feed_one(s, top[other], ts[other], "best of another fetch path,");
    return rc < 0 ? -1 : 0;
}
