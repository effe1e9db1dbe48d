/* The search object: config, memo, the one way points are looked at
 * (gs_look), stats and notes.  The strategies are in phase.c and
 * exhaustive.c, the enumerations in space.c. */
#include "search/search_int.h"

#include "search/bound.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const strategy_names[] = {"phase", "exhaustive", "random"};

int search_strategy_parse(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, strategy_names[i]))
            return i;
    return -1;
}

const char *search_strategy_name(gg_strategy s)
{
    return (unsigned)s < 3 ? strategy_names[s] : "?";
}

double search_outcome_score(const gg_outcome *o)
{
    if (o->status != GG_OK || !isfinite(o->gflops) || o->gflops <= 0)
        return 0;
    return o->gflops;
}

void search_outcome_from_measurement(gg_outcome *o, const gg_measurement *m)
{
    o->status = m->status;
    o->passes = m->passes;
    o->seconds = m->seconds;
    o->gflops = m->status == GG_OK ? m->gflops : 0;
    o->rel_err = m->rel_err;
}

int search_ksteps(gg_shape mc, int k)
{
    int step = gen_mc_step(mc);
    return (int)(((long)k + step - 1) / step);
}

int search_variant_normalize(gg_variant *v, int m, int n, int k)
{
    gg_layout L;
    if (gen_layout_compute(v, m, n, k, &L))
        return -1;
    if (v->np != GG_NP_ALL && v->np >= L.ksteps)
        v->np = GG_NP_ALL;
    return 0;
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
        c->lim[p].max_texture_size = 16384;
        c->lim[p].float_blend = true;
        c->lim[p].spirv = true;
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

/* ---- memo: open addressing on a 64-bit key ---- */

/* FNV-1a of the canonical form: one key per variant (the keys no longer
 * fit 64 bits as packed fields), never 0. */
uint64_t gs_key(const gg_variant *v)
{
    char t[GG_VARIANT_TEXT];
    gen_variant_format(v, t, sizeof t);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = t; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ULL;
    }
    return h ? h : 1;
}

static size_t slot(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

gs_entry *gs_memo_find(const gg_search *s, uint64_t key)
{
    for (size_t i = slot(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->tab[i].key == key)
            return &s->tab[i];
        if (s->tab[i].key == 0)
            return NULL;
    }
}

gs_entry *gs_memo_insert(gg_search *s, const gg_variant *v, const gg_outcome *o)
{
    if (2 * (s->count + 1) > s->cap) {
        size_t ncap = s->cap * 2;
        gs_entry *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->tab[i].key)
                continue;
            size_t j = slot(s->tab[i].key, ncap);
            while (nt[j].key)
                j = (j + 1) & (ncap - 1);
            nt[j] = s->tab[i];
        }
        free(s->tab);
        s->tab = nt;
        s->cap = ncap;
    }
    uint64_t key = gs_key(v);
    size_t i = slot(key, s->cap);
    while (s->tab[i].key)
        i = (i + 1) & (s->cap - 1);
    s->tab[i].key = key;
    s->tab[i].v = *v;
    s->tab[i].o = *o;
    s->tab[i].visited = false;
    s->count++;
    if (v->store == s->cfg.fix.v.store && search_outcome_score(o) > s->store_best)
        s->store_best = search_outcome_score(o);
    return &s->tab[i];
}

int search_preload(gg_search *s, const gg_variant *v0, const gg_outcome *o)
{
    gg_variant v = *v0;
    if (search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k))
        return 0;
    if (gs_memo_find(s, gs_key(&v)))
        return 0;
    return gs_memo_insert(s, &v, o) ? 1 : 0;
}

/* ---- looking at a point ---- */

static void count_visit(gg_search *s, gs_entry *e, bool fresh)
{
    e->visited = true;
    s->st.visited++;
    if (fresh)
        s->st.measured++;
    else
        s->st.from_memo++;
    if ((unsigned)e->o.status < GG_STATUS_COUNT)
        s->st.by_status[e->o.status]++;
    double sc = search_outcome_score(&e->o);
    if (sc > 0 && (!s->st.have_best || sc > search_outcome_score(&s->st.best_outcome))) {
        s->st.have_best = true;
        s->st.best = e->v;
        s->st.best_outcome = e->o;
    }
    if (s->st.planned < s->st.visited)
        s->st.planned = s->st.visited;
}

/* Whether the bound says v cannot reach the best so far (see search.h);
 * when so, m gets status pruned_bound and the detail. */
static bool bound_prunes(gg_search *s, const gg_variant *v, gg_measurement *m)
{
    if (!s->cfg.bound || !(s->store_best > 0))
        return false;
    double b = s->cfg.bound(s->cfg.bound_user, v);
    if (!(b > 0) || !isfinite(b) || !(s->cfg.bound_margin * b < s->store_best))
        return false;
    m->status = GG_PRUNED_BOUND;
    snprintf(m->detail, sizeof m->detail,
             "upper bound %.4g GFLOP/s x margin %.3g = %.4g, below the best so far %.4g GFLOP/s",
             b, s->cfg.bound_margin, s->cfg.bound_margin * b, s->store_best);
    return true;
}

/* budgeted: a strategy's look (the budget applies, the bound may prune);
 * else a point asked for by name (search_visit). */
static int visit(gg_search *s, const gg_variant *v0, bool budgeted, gg_outcome *out)
{
    gg_variant v = *v0;
    gg_measurement m;
    base_measurement_init(&m);
    bool layout_ok = search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k) == 0;
    gs_entry *e = gs_memo_find(s, gs_key(&v));
    if (e && e->visited) {
        if (out)
            *out = e->o;
        return 0;
    }
    if (budgeted && s->cfg.budget > 0 && s->st.visited >= s->cfg.budget) {
        s->st.budget_spent = true;
        return 1;
    }
    if (e) {
        count_visit(s, e, false);
        if (out)
            *out = e->o;
        if (s->cfg.hook && s->cfg.hook(s->cfg.hook_user, s, &e->v, &e->o, NULL, false)) {
            s->st.stopped = true;
            return -1;
        }
        return 0;
    }
    char why[256];
    if (!layout_ok) {
        m.status = GG_INVALID;
        snprintf(m.detail, sizeof m.detail, "the layout of this variant overflows on %dx%dx%d",
                 s->cfg.m, s->cfg.n, s->cfg.k);
    } else if ((m.status = gs_card_status(s, &v, why, sizeof why)) != GG_OK) {
        /* Never compiled: the card cannot run it. */
        snprintf(m.detail, sizeof m.detail, "%s", why);
    } else if (budgeted && bound_prunes(s, &v, &m)) {
        s->st.bound_pruned++;
    } else if (s->cfg.eval(s->cfg.user, &v, &m)) {
        s->st.stopped = true;
        return -1;
    }
    gg_outcome o;
    search_outcome_from_measurement(&o, &m);
    e = gs_memo_insert(s, &v, &o);
    if (!e) {
        s->st.stopped = true;
        return -1;
    }
    count_visit(s, e, true);
    if (out)
        *out = o;
    if (s->cfg.hook && s->cfg.hook(s->cfg.hook_user, s, &v, &o, &m, true)) {
        s->st.stopped = true;
        return -1;
    }
    return 0;
}

int gs_look(gg_search *s, const gg_variant *v, double *score)
{
    if (s->st.stopped)
        return -1;
    gg_outcome o;
    int rc = visit(s, v, true, &o);
    if (rc == 0 && score)
        *score = search_outcome_score(&o);
    return rc;
}

void gs_hint(gg_search *s, const gg_variant *next, int n)
{
    if (!s->cfg.hint)
        return;
    gg_variant h[4];
    int nh = 0;
    for (int i = 0; i < n && nh < 4; i++) {
        gg_variant v = next[i];
        if (search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k) || gs_memo_find(s, gs_key(&v)))
            continue;
        char why[256];
        gg_measurement m;
        if (gs_card_status(s, &v, why, sizeof why) == GG_OK && !bound_prunes(s, &v, &m))
            h[nh++] = v; /* one the bound would skip now is not worth building */
    }
    if (nh)
        s->cfg.hint(s->cfg.hint_user, h, nh);
}

int search_visit(gg_search *s, const gg_variant *v, gg_outcome *o)
{
    if (s->st.stopped)
        return -1;
    return visit(s, v, false, o) < 0 ? -1 : 0;
}

int search_run(gg_search *s)
{
    int rc;
    switch (s->cfg.strategy) {
    case GG_SEARCH_PHASE: rc = gs_phase(s); break;
    case GG_SEARCH_EXHAUSTIVE: rc = gs_exhaustive(s); break;
    case GG_SEARCH_RANDOM: rc = gs_random(s); break;
    default: rc = -1;
    }
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

bool search_memo_best(const gg_search *s, gg_variant *v, gg_outcome *o)
{
    return search_memo_best_store(s, -1, v, o);
}

bool search_memo_best_store(const gg_search *s, int store, gg_variant *v, gg_outcome *o)
{
    const gs_entry *best = NULL;
    for (size_t i = 0; i < s->cap; i++) {
        const gs_entry *e = &s->tab[i];
        if (e->key && search_outcome_score(&e->o) > 0 && (store < 0 || (int)e->v.store == store) &&
            (!best || search_outcome_score(&e->o) > search_outcome_score(&best->o)))
            best = e;
    }
    if (!best)
        return false;
    if (v)
        *v = best->v;
    if (o)
        *o = best->o;
    return true;
}

bool search_fix_matches(const gg_fix *fix, const gg_variant *v)
{
    const gg_variant *f = &fix->v;
    unsigned m = fix->mask;
    return (!(m & GG_KEY_MRT) || (f->mrt.rows == v->mrt.rows && f->mrt.cols == v->mrt.cols)) &&
           (!(m & GG_KEY_MC) || (f->mc.rows == v->mc.rows && f->mc.cols == v->mc.cols)) &&
           (!(m & GG_KEY_NP) || f->np == v->np) && (!(m & GG_KEY_UNROLL) || f->unroll == v->unroll) &&
           (!(m & GG_KEY_PROFILE) || f->profile == v->profile) &&
           (!(m & GG_KEY_COMPILER) || f->compiler == v->compiler) &&
           (!(m & GG_KEY_ACC) || f->acc == v->acc) && (!(m & GG_KEY_STORE) || f->store == v->store) &&
           (!(m & GG_KEY_OUT) || f->out == v->out) &&
           (!(m & GG_KEY_BLK) || (f->blk.rows == v->blk.rows && f->blk.cols == v->blk.cols)) &&
           (!(m & GG_KEY_FETCH) || f->fetch == v->fetch);
}

static int by_score_desc(const void *a, const void *b)
{
    double x = search_outcome_score(&(*(const gs_entry *const *)a)->o);
    double y = search_outcome_score(&(*(const gs_entry *const *)b)->o);
    return x > y ? -1 : x < y ? 1 : 0;
}

int search_memo_top_store(const gg_search *s, int store, const gg_fix *fix, int n,
                             gg_variant *v, double *gflops)
{
    const gs_entry **all = malloc((s->count ? s->count : 1) * sizeof *all);
    if (!all)
        return -1;
    size_t na = 0;
    for (size_t i = 0; i < s->cap; i++) {
        const gs_entry *e = &s->tab[i];
        if (e->key && search_outcome_score(&e->o) > 0 && (store < 0 || (int)e->v.store == store) &&
            (!fix || search_fix_matches(fix, &e->v)))
            all[na++] = e;
    }
    qsort(all, na, sizeof *all, by_score_desc);
    int got = 0;
    for (; got < n && (size_t)got < na; got++) {
        v[got] = all[got]->v;
        gflops[got] = search_outcome_score(&all[got]->o);
    }
    free(all);
    return got;
}

bool search_memo_get(const gg_search *s, const gg_variant *v, gg_outcome *o)
{
    gg_variant nv = *v;
    if (search_variant_normalize(&nv, s->cfg.m, s->cfg.n, s->cfg.k))
        return false;
    const gs_entry *e = gs_memo_find(s, gs_key(&nv));
    if (e && o)
        *o = e->o;
    return e != NULL;
}

void gs_plan(gg_search *s, long planned)
{
    if (s->cfg.budget > 0 && planned > s->cfg.budget)
        planned = s->cfg.budget;
    s->st.planned = planned < s->st.visited ? s->st.visited : planned;
}

/* ---- notes ---- */

void gs_note(gg_search *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->nnotes == s->capnotes) {
        int nc = s->capnotes ? 2 * s->capnotes : 16;
        char **nn = realloc(s->notes, (size_t)nc * sizeof *nn);
        if (!nn)
            return;
        s->notes = nn;
        s->capnotes = nc;
    }
    char *d = strdup(buf);
    if (d)
        s->notes[s->nnotes++] = d;
}

int search_nnotes(const gg_search *s) { return s->nnotes; }

const char *search_note(const gg_search *s, int i)
{
    return i >= 0 && i < s->nnotes ? s->notes[i] : NULL;
}

void gs_card_pruned(gg_search *s, const char *why, long n)
{
    for (int i = 0; i < s->ncard; i++)
        if (!strcmp(s->card[i].why, why)) {
            s->card[i].count += n;
            return;
        }
    if (s->ncard == s->capcard) {
        int nc = s->capcard ? 2 * s->capcard : 8;
        gs_reason *nr = realloc(s->card, (size_t)nc * sizeof *nr);
        if (!nr)
            return;
        s->card = nr;
        s->capcard = nc;
    }
    char *d = strdup(why);
    if (d)
        s->card[s->ncard++] = (gs_reason){d, n};
}

void gs_card_notes(gg_search *s)
{
    for (int i = 0; i < s->ncard; i++) {
        gs_note(s, "card: %ld variant%s not searched: %s", s->card[i].count,
                s->card[i].count == 1 ? "" : "s", s->card[i].why);
        free(s->card[i].why);
    }
    s->ncard = 0;
}
