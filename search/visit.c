/* search/visit: the one way a strategy looks at a point (gs_look; the
 * presets' search_visit): the memo first, then the budget, the card's
 * verdict (gs_card_status), the bound, and last the evaluator; the stats
 * and the hook.  Below the strategies and space.c; calls memo.c only. */
#include "search/search_int.h"

#include <math.h>
#include <stdio.h>

gg_status gs_card_status(const gg_search *s, const gg_variant *v, char *why, size_t len)
{
    if ((unsigned)v->profile >= GG_PROFILE_COUNT) {
        snprintf(why, len, "unknown profile");
        return GG_INVALID;
    }
    if (!s->cfg.profile_ok[v->profile]) {
        snprintf(why, len, "profile=%s: this device has no %s context", gen_profile_name(v->profile),
                 v->profile == GG_PROFILE_120   ? "compatibility"
                 : v->profile == GG_PROFILE_330 || v->profile == GG_PROFILE_430 ? "core"
                                                : "OpenGL ES 3");
        return GG_UNSUPPORTED;
    }
    switch (gen_variant_check_card(v, &s->cfg.lim[v->profile], why, len)) {
    case GG_CARD_OK: return GG_OK;
    case GG_CARD_INVALID: return GG_INVALID;
    default: return GG_UNSUPPORTED;
    }
}

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
    gg_variant h[GG_SEARCH_HINTS];
    int nh = 0;
    for (int i = 0; i < n && nh < GG_SEARCH_HINTS; i++) {
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

void gs_plan(gg_search *s, long planned)
{
    if (s->cfg.budget > 0 && planned > s->cfg.budget)
        planned = s->cfg.budget;
    s->st.planned = planned < s->st.visited ? s->st.visited : planned;
}
