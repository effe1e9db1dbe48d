/* search/space: the space a search walks: the outer combinations, the mc
 * and mrt sets, the cells, and what the card allows.  Below the strategies
 * (phase.c, exhaustive.c, random.c), above the core: calls visit.c
 * (gs_card_status, gs_look), memo.c (search_ksteps) and notes.c. */
#include "search/search_int.h"

#include "gen/wide.h"

#include <stdlib.h>



/* ---- the card ---- */

bool gs_allowed(gg_search *s, const gg_variant *v, long n)
{
    char why[256];
    if (gs_card_status(s, v, why, sizeof why) == GG_OK)
        return true;
    gs_card_pruned(s, why, n);
    return false;
}

/* ---- enumerations ---- */

int gs_outer(const gg_search *s, gg_variant out[36])
{
    const gg_fix *f = &s->cfg.fix;
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 3; p++)
            for (int u = 0; u < 2; u++)
                for (int a = 0; a < 3; a++) {
                    gg_variant v = f->v; /* mrt, mc, np: fixed values or defaults */
                    v.compiler = (gg_compiler)c;
                    v.profile = (gg_profile)p;
                    v.unroll = u;
                    v.acc = (gg_acc)a;
                    if (((f->mask & GG_KEY_COMPILER) && f->v.compiler != v.compiler) ||
                        ((f->mask & GG_KEY_PROFILE) && f->v.profile != v.profile) ||
                        ((f->mask & GG_KEY_UNROLL) && f->v.unroll != v.unroll) ||
                        ((f->mask & GG_KEY_ACC) && f->v.acc != v.acc))
                        continue;
                    out[n++] = v;
                }
    return n;
}

int gs_mc_set(const gg_search *s, bool full, gg_shape out[8])
{
    if (s->cfg.fix.mask & GG_KEY_MC) {
        out[0] = s->cfg.fix.v.mc;
        return 1;
    }
    int n = 0;
    /* A wide store (--fix store=f64, dd, df) holds 4 / words values a
     * texel: its shapes are those that fit, the paper's pruned set of four
     * elements a texel fits none of them. */
    gg_store st = (s->cfg.fix.mask & GG_KEY_STORE) ? s->cfg.fix.v.store : GG_STORE_F32;
    if (gen_store_wide(st)) {
        int fit = 4 / gen_wide_words(st);
        for (int r = 1; r <= fit; r++)
            for (int c = 1; r * c <= fit; c++)
                out[n++] = (gg_shape){r, c};
        return n;
    }
    if (!full) {
        for (int i = 0; i < GG_PRUNED_MC; i++)
            out[n++] = gen_pruned_mc[i];
        return n;
    }
    for (int r = 1; r <= 4; r++)
        for (int c = 1; r * c <= 4; c++)
            out[n++] = (gg_shape){r, c};
    return n;
}

int gs_mrt_set(const gg_search *s, bool full, gg_shape out[20])
{
    if (s->cfg.fix.mask & GG_KEY_MRT) {
        out[0] = s->cfg.fix.v.mrt;
        return 1;
    }
    int n = 0;
    if (!full) {
        for (int i = 0; i < GG_PRUNED_MRT; i++)
            out[n++] = gen_pruned_mrt[i];
        return n;
    }
    for (int r = 1; r <= GG_MAX_TARGETS; r++)
        for (int c = 1; r * c <= GG_MAX_TARGETS; c++)
            out[n++] = (gg_shape){r, c};
    return n;
}

int gs_cells(gg_search *s, bool full, gs_cell **out, gg_variant *first_pruned)
{
    gg_variant outer[36];
    gg_shape mcs[8], mrts[20];
    int no = gs_outer(s, outer);
    int nmc = gs_mc_set(s, full, mcs), nmrt = gs_mrt_set(s, full, mrts);
    gs_cell *cells = malloc((size_t)(no * nmc * nmrt + 1) * sizeof *cells);
    if (!cells)
        return -1;
    int n = 0;
    bool have_pruned = false;
    for (int o = 0; o < no; o++)
        for (int i = 0; i < nmc; i++)
            for (int j = 0; j < nmrt; j++) {
                gs_cell c = {outer[o], 1};
                c.v.mc = mcs[i];
                c.v.mrt = mrts[j];
                if (!(s->cfg.fix.mask & GG_KEY_NP))
                    c.nnp = search_ksteps(c.v.mc, s->cfg.k);
                if (!gs_allowed(s, &c.v, c.nnp)) {
                    if (!have_pruned && first_pruned)
                        *first_pruned = c.v;
                    have_pruned = true;
                    continue;
                }
                cells[n++] = c;
            }
    *out = cells;
    return n;
}

int gs_cell_np(const gg_search *s, const gs_cell *c, int i)
{
    (void)c; /* every cell has np 1..its nnp, or --fix's */
    return (s->cfg.fix.mask & GG_KEY_NP) ? s->cfg.fix.v.np : i + 1;
}

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
 * there is nothing to walk (nothing_left has been done); -1 on failure.
 * The exhaustive and random strategies walk these. */
int gs_open_cells(gg_search *s, gs_cell **cells)
{
    gg_variant pruned;
    int n = gs_cells(s, true, cells, &pruned);
    if (n != 0)
        return n;
    free(*cells);
    return nothing_left(s, &pruned);
}
