/* One tuning session's stages in order: see session.h. */
#include "search/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

struct gg_session {
    gg_session_config cfg;
    gg_tune *t;
    double stop_at;            /* cleared once it stopped the search */
    bool out_of_time;
    bool finals;               /* the finalists: the full reps, no screening, no early stop */
    long asks;
    long screened;
};

static double now(const gg_session *s)
{
    return s->cfg.fns.now ? s->cfg.fns.now(s->cfg.fns.user) : base_now_s();
}

void search_session_ask(const gg_session *s, bool finals, gg_session_ask *a)
{
    memset(a, 0, sizeof *a);
    a->reps = s->cfg.reps;
    if (finals)
        return;
    if (a->reps > GG_SESSION_MIN_REPS) {
        a->min_reps = GG_SESSION_MIN_REPS;
        a->tight = GG_SESSION_TIGHT;
    }
    gg_outcome best;
    if (s->t && search_memo_best_store(search_tune_search(s->t), (int)s->cfg.tune.search.fix.v.store,
                                       NULL, &best) && best.seconds > 0)
        a->screen_s = GG_SESSION_SCREEN_FACTOR * best.seconds;
}

static int evaluate(void *user, const gg_variant *v, gg_measurement *out)
{
    gg_session *s = user;
    if (!s->finals && s->stop_at > 0 && now(s) > s->stop_at) {
        s->out_of_time = true;
        return -1; /* stops the search; the session goes on */
    }
    gg_session_ask a;
    search_session_ask(s, s->finals, &a);
    if (s->cfg.fns.eval(s->cfg.fns.user, v, &a, out))
        return -1; /* the tool, not the variant */
    s->asks++;
    return 0;
}

static void hint(void *user, const gg_variant *next, int n)
{
    gg_session *s = user;
    gg_session_ask a;
    search_session_ask(s, s->finals, &a);
    s->cfg.fns.hint(s->cfg.fns.user, next, n, &a);
}

static void progress(void *user, const gg_search *srch, const gg_variant *v, const gg_outcome *o,
                     const gg_measurement *m, bool fresh)
{
    gg_session *s = user;
    if (fresh && m && m->screened)
        s->screened++;
    if (s->cfg.tune.progress)
        s->cfg.tune.progress(s->cfg.tune.progress_user, srch, v, o, m, fresh);
}

gg_session *search_session_open(const gg_session_config *cfg, gg_records_info *info, char *err,
                                size_t errlen)
{
    gg_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->stop_at = cfg->stop_at;
    gg_tune_config tc = cfg->tune;
    tc.search.eval = evaluate;
    tc.search.user = s;
    tc.search.hint = cfg->fns.hint ? hint : NULL;
    tc.search.hint_user = s;
    tc.progress = progress;
    tc.progress_user = s;
    s->t = search_tune_open(&tc, info, err, errlen);
    if (!s->t) {
        free(s);
        return NULL;
    }
    return s;
}

static void stage(gg_session *s, gg_session_stage st, const gg_session_result *r)
{
    if (s->cfg.fns.stage)
        s->cfg.fns.stage(s->cfg.fns.user, st, r);
}

static void prefetch(gg_session *s, const gg_variant *v, int n, bool finals)
{
    if (!s->cfg.fns.prefetch)
        return;
    gg_session_ask a;
    search_session_ask(s, finals, &a);
    s->cfg.fns.prefetch(s->cfg.fns.user, v, n, &a);
}

/* What will surely be asked is queued at once: the presets the records do
 * not hold, then the finalists' rounds in search_tune_finalists' order
 * (round by round, the best first).  A preset among the best would make the
 * top differ from this one: its rounds are measured when asked, and those
 * of the one it displaced are dropped unasked (issue 41: on four H200s the
 * presets and then the finalists took 15 of a 44 s tune). */
static void prefetch_presets(gg_session *s, const gg_session_result *r)
{
    const gg_search_config *c = &s->cfg.tune.search;
    gg_variant v[2] = {r->nvs, r->nvm}, want[2];
    int n = 0;
    gg_outcome o;
    for (int i = 0; i < 2; i++)
        if (search_variant_normalize(&v[i], c->m, c->n, c->k) == 0 &&
            !search_memo_get(search_tune_search(s->t), &v[i], &o))
            want[n++] = v[i];
    prefetch(s, want, n, false);
}

static void prefetch_finalists(gg_session *s)
{
    const gg_search_config *c = &s->cfg.tune.search;
    gg_variant top[GG_FINALISTS_MAX], all[GG_FINALISTS_MAX * GG_SESSION_ROUNDS];
    double rec[GG_FINALISTS_MAX];
    int nf = search_memo_top_store(search_tune_search(s->t), (int)c->fix.v.store, &c->fix,
                                   s->cfg.finalists, top, rec);
    int n = 0;
    for (int r = 0; r < GG_SESSION_ROUNDS; r++)
        for (int i = 0; i < nf; i++)
            all[n++] = top[i];
    prefetch(s, all, n, true);
}

static int stopped(gg_session_result *r, const char *why)
{
    snprintf(r->err, sizeof r->err, "%s", why);
    return -1;
}

int search_session_run(gg_session *s, gg_session_result *r)
{
    memset(r, 0, sizeof *r);
    gg_search *srch = search_tune_search(s->t);
    gg_store store = s->cfg.tune.search.fix.v.store;

    /* The search; a stop of stop_at's ends the search only. */
    int run = search_tune_run(s->t);
    r->st = *search_get_stats(srch);
    r->out_of_time = s->out_of_time;
    if (run && s->out_of_time) {
        s->stop_at = 0;
        search_clear_stop(srch);
        run = 0;
    }
    r->search_asks = s->asks;
    stage(s, GG_SESSION_SEARCHED, r);
    if (run)
        return stopped(r, search_tune_error(s->t)[0] ? search_tune_error(s->t)
                                                     : "no evaluation worker could be made");

    /* The presets on the same problem, recorded like the rest, then the
     * best files. */
    char err[256];
    if (gen_variant_parse("nv-single", NULL, &r->nvs, err, sizeof err) ||
        gen_variant_parse("nv-multi", NULL, &r->nvm, err, sizeof err))
        return stopped(r, err);
    if (s->cfg.webgl) /* WebGL2 runs GLSL ES 3.00 only, as bench's rows */
        r->nvs.profile = r->nvm.profile = GG_PROFILE_300ES;
    prefetch_presets(s, r);
    if (s->cfg.finalists > 0)
        prefetch_finalists(s);
    if (search_tune_visit(s->t, &r->nvs, &r->os) || search_tune_visit(s->t, &r->nvm, &r->om) ||
        search_tune_finish(s->t))
        return stopped(r, search_tune_error(s->t));
    r->screened = s->screened;
    r->asks = s->asks;
    stage(s, GG_SESSION_PRESETS, r);

    /* The finalists, measured again side by side: the best file gets their
     * median, not the luckiest single measurement. */
    if (s->cfg.finalists > 0) {
        stage(s, GG_SESSION_FINALISTS, r);
        s->finals = true;
        r->nfin = search_tune_finalists(s->t, store, s->cfg.finalists, GG_SESSION_ROUNDS, evaluate,
                                        s, r->fin);
        s->finals = false;
        r->asks = s->asks;
        if (r->nfin < 0) {
            r->nfin = 0;
            return stopped(r, search_tune_error(s->t));
        }
    }
    bool fin_ok = r->nfin > 0 && r->fin[0].status == GG_OK;
    r->have_best = r->nfin > 0 ? fin_ok : r->st.have_best;
    r->best_gflops = fin_ok ? r->fin[0].gflops : r->st.best_outcome.gflops;
    return 0;
}

gg_tune *search_session_tune(gg_session *s) { return s->t; }

void search_session_close(gg_session *s)
{
    if (!s)
        return;
    search_tune_close(s->t);
    free(s);
}
