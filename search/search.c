/* search/search: the public driver of a search: the config's defaults,
 * search_new / search_free, and search_run, which runs the configured
 * strategy from the table below and adds the run's notes.
 *
 * The files of search/, each calling only those below it:
 *   tune.c             a tune: the records around a search (tune.h)
 *   search.c           the driver
 *   phase.c, exhaustive.c, random.c
 *                      the strategies, one gs_strategy each (search_int.h)
 *   space.c            the space they walk: outer combinations, mc and mrt
 *                      sets, cells, what the card allows
 *   visit.c            the one way a point is looked at (gs_look), the
 *                      card's verdict, the bound, the stats
 *   memo.c             the memo, a point's key, normal form and score
 *   notes.c, fix.c     the notes; --fix (parse, format, match)
 * bound.c (the performance bound, bound.h) calls none of them. */
#include "search/search_int.h"

#include "search/bound.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By gg_strategy: what search_run runs, and the names the CLI parses. */
static const gs_strategy *const strategies[] = {
    [GG_SEARCH_PHASE] = &gs_strategy_phase,
    [GG_SEARCH_EXHAUSTIVE] = &gs_strategy_exhaustive,
    [GG_SEARCH_RANDOM] = &gs_strategy_random,
};
#define NSTRATEGIES (sizeof strategies / sizeof *strategies)

int search_strategy_parse(const char *name)
{
    for (size_t i = 0; i < NSTRATEGIES; i++)
        if (!strcmp(name, strategies[i]->name))
            return (int)i;
    return -1;
}

const char *search_strategy_name(gg_strategy s)
{
    return (unsigned)s < NSTRATEGIES ? strategies[s]->name : "?";
}

void search_config_default(gg_search_config *c, int m, int n, int k)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->n = n;
    c->k = k;
    for (int p = 0; p < GG_PROFILE_COUNT; p++) {
        c->lim[p].max_draw_buffers = 8;
        /* the newest contexts, as on llvmpipe and NVIDIA */
        c->lim[p].es = p == GG_PROFILE_300ES || p == GG_PROFILE_310ES;
        c->lim[p].gl_version = c->lim[p].es ? 32 : 46;
        c->lim[p].max_fragment_images = 8;
        c->lim[p].max_texture_buffer = 1L << 27;
        c->lim[p].max_fragment_ssbos = 8;
        c->lim[p].max_texture_size = 16384;
        c->lim[p].float_blend = true;
        c->lim[p].spirv = true;
        c->lim[p].packing_ext = !c->lim[p].es; /* ARB_shading_language_packing */
        c->profile_ok[p] = true;
    }
    gen_variant_default(&c->fix.v);
    c->strategy = GG_SEARCH_PHASE;
    c->seed = 1;
    c->np_threshold = 1;
    c->screen_within = 0.10;
    c->screen_keep = 3;
    c->bound_margin = GG_BOUND_MARGIN;
}

gg_search *search_new(const gg_search_config *cfg, char *err, size_t errlen)
{
    if (cfg->m < 1 || cfg->n < 1 || cfg->k < 1 || !cfg->eval) {
        snprintf(err, errlen, "search needs a problem and an evaluator");
        return NULL;
    }
    if (cfg->strategy == GG_SEARCH_RANDOM && cfg->budget < 1) {
        snprintf(err, errlen, "random search needs a budget (--budget N)");
        return NULL;
    }
    if (cfg->np_threshold < 1 || !(cfg->screen_within >= 0 && cfg->screen_within <= 1) ||
        cfg->screen_keep < 0) {
        snprintf(err, errlen, "search: np threshold must be >= 1, screening fraction in [0, 1]");
        return NULL;
    }
    if (cfg->bound && !(cfg->bound_margin >= 1 && isfinite(cfg->bound_margin))) {
        snprintf(err, errlen, "search: the bound's margin must be a number >= 1");
        return NULL;
    }
    gg_search *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->cap = 1024;
    s->tab = calloc(s->cap, sizeof *s->tab);
    if (!s->tab) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return s;
}

void search_free(gg_search *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nnotes; i++)
        free(s->notes[i]);
    for (int i = 0; i < s->ncard; i++)
        free(s->card[i].why);
    free(s->notes);
    free(s->card);
    free(s->tab);
    free(s);
}

int search_run(gg_search *s)
{
    unsigned st = (unsigned)s->cfg.strategy;
    int rc = st < NSTRATEGIES ? strategies[st]->run(s) : -1;
    gs_card_notes(s);
    if (s->st.bound_pruned)
        gs_note(s, "bound: %ld variant%s not run (upper bound below best/margin, margin %.3g)",
                s->st.bound_pruned, s->st.bound_pruned == 1 ? "" : "s", s->cfg.bound_margin);
    if (s->st.budget_spent)
        gs_note(s, "budget: stopped after %ld distinct variants (--budget %ld)", s->st.visited,
                s->cfg.budget);
    return s->st.stopped ? -1 : rc < 0 ? -1 : 0;
}

const gg_search_stats *search_get_stats(const gg_search *s) { return &s->st; }

void search_clear_stop(gg_search *s) { s->st.stopped = false; }
