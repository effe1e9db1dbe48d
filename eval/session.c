/* The tuning session bound to the pool: see session.h. */
#include "eval/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "search/bound.h"
#include "search/card.h"
#include "store/publish.h"

struct gg_tune_session {
    gg_tune_session_config cfg;
    gg_session *s;
    gg_probe_result *probe;
    gg_bound_user bound;
};

double eval_session_timeout(const gg_problem *p, double given)
{
    return given > 0 ? given : eval_evaluator_timeout(p, &GG_TIMEOUT_TUNE);
}

int eval_session_problem(gg_tune_problem *tp, const gg_problem *prob, gg_store store, char *err,
                         size_t errlen)
{
    memset(tp, 0, sizeof *tp);
    tp->prob = *prob;
    if (base_inputs_make(&tp->prob, &tp->in, err, errlen))
        return -1;
    tp->have_in = true;
    tp->prob.m = tp->in.m; /* files decide the shape */
    tp->prob.n = tp->in.n;
    tp->prob.k = tp->in.k;
    return base_reference_compute_store(&tp->in, prob->alpha, prob->beta, store, &tp->ref, err,
                                        errlen);
}

void eval_session_problem_free(gg_tune_problem *tp)
{
    base_reference_free(&tp->ref);
    if (tp->have_in)
        base_inputs_free(&tp->in);
    tp->have_in = false;
}

static void eval_opts(const gg_session_ask *a, gg_eval_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reps = a->reps;
    o->min_reps = a->min_reps;
    o->tight = a->tight;
    o->screen_s = a->screen_s;
}

static int evaluate(void *user, const gg_variant *v, const gg_session_ask *a, gg_measurement *out)
{
    gg_tune_session *t = user;
    gg_eval_opts o;
    eval_opts(a, &o);
    double t0 = base_now_s();
    if (eval_pool_eval(t->cfg.pool, t->cfg.client, v, &o, out)) {
        if (t->cfg.failed)
            t->cfg.failed(t->cfg.user, out->detail);
        return -1; /* no worker at all: the tool, not the variant */
    }
    if (t->cfg.evaluated)
        t->cfg.evaluated(t->cfg.user, v, out, base_now_s() - t0);
    return 0;
}

/* The points the search looks at next: built ahead by the one evaluator,
 * or measured on idle devices, with the options they would get now. */
static void hint(void *user, const gg_variant *next, int n, const gg_session_ask *a)
{
    gg_tune_session *t = user;
    gg_eval_opts o;
    eval_opts(a, &o);
    eval_pool_hint(t->cfg.pool, t->cfg.client, next, n, &o);
}

/* With several devices, what will surely be asked is queued at once, each
 * round's measurements spread over the devices. */
static void prefetch(void *user, const gg_variant *v, int n, const gg_session_ask *a)
{
    gg_tune_session *t = user;
    gg_eval_opts o;
    eval_opts(a, &o);
    eval_pool_prefetch(t->cfg.pool, t->cfg.client, v, n, &o);
}

static void stage(void *user, gg_session_stage st, const gg_session_result *r)
{
    gg_tune_session *t = user;
    if (t->cfg.stage)
        t->cfg.stage(t->cfg.user, st, r);
    if (st == GG_SESSION_SEARCHED)
        eval_pool_client_end(t->cfg.pool, t->cfg.client); /* what was measured ahead and never asked */
}

/* The warm worker (eval/evaluator.h) where the first draw of a variant is
 * compiled on the CPU, one thread, and a second CPU is there: a software
 * rasteriser (llvmpipe).  GLGEMM_WARM_WORKER=1 or 0 decides instead.
 * With one device only (eval_pool_warm). */
static bool warm_worker(const gg_ctx_info *info)
{
    const char *e = getenv("GLGEMM_WARM_WORKER");
    if (e && (!strcmp(e, "0") || !strcmp(e, "1")))
        return e[0] == '1';
    return info->software && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

gg_tune_session *eval_session_open(const gg_tune_session_config *cfg, gg_tune_session_result *r,
                                   char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    gg_tune_session *t = calloc(1, sizeof *t);
    gg_probe_result *probe = calloc(1, sizeof *probe);
    if (!t || !probe) {
        eval_pool_client_end(cfg->pool, cfg->client);
        free(t);
        free(probe);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->cfg = *cfg;
    t->probe = probe;
    const gg_problem *prob = cfg->prob;
    gg_session_config sc;
    memset(&sc, 0, sizeof sc);
    sc.tune.results_dir = cfg->results;
    sc.tune.card = cfg->card;
    sc.tune.fresh = cfg->fresh;
    sc.tune.progress = cfg->progress;
    sc.tune.progress_user = cfg->user;
    gg_search_config *c = &sc.tune.search;
    search_config_default(c, prob->m, prob->n, prob->k);
    search_config_card(c, cfg->dev->ok, cfg->dev->info);
    c->fix = cfg->fix;
    c->strategy = cfg->strategy;
    c->budget = cfg->budget;
    c->seed = prob->seed;
    c->screen_keep = cfg->keep;
    sc.reps = prob->reps;
    sc.finalists = cfg->finalists;
    sc.webgl = cfg->webgl;
    sc.stop_at = cfg->stop_at;
    sc.fns = (gg_session_fns){.eval = evaluate, .hint = hint, .prefetch = prefetch,
                              .stage = stage, .user = t};
    r->warm = eval_pool_warm(cfg->pool, warm_worker(cfg->card_info));
    /* The bound: the card's probe, when there is one. */
    t->bound = (gg_bound_user){probe, prob->m, prob->n, prob->k};
    r->have_probe = search_bound_load(cfg->results, cfg->card, probe, r->probe_err,
                                      sizeof r->probe_err) == 0;
    if (r->have_probe) {
        c->bound = search_bound_search_fn;
        c->bound_user = &t->bound;
    }
    t->s = search_session_open(&sc, &r->records, err, errlen);
    if (!t->s) {
        eval_pool_client_end(cfg->pool, cfg->client);
        free(probe);
        free(t);
        return NULL;
    }
    return t;
}

int eval_session_run(gg_tune_session *t, gg_tune_session_result *r)
{
    if (search_session_run(t->s, &r->s))
        return -1;
    const gg_problem *p = t->cfg.prob;
    gg_outcome all;
    memset(&all, 0, sizeof all);
    r->outside_best = search_memo_best_store(eval_session_search(t), (int)t->cfg.fix.v.store,
                                             &r->all_best, &all) &&
                      !search_fix_matches(&t->cfg.fix, &r->all_best) &&
                      search_outcome_score(&all) > r->s.best_gflops;
    r->all_gflops = all.gflops;
    r->published = store_best_publish_user(t->cfg.results, t->cfg.card, p->m, p->n, p->k,
                                           r->user_dir, sizeof r->user_dir, r->publish_err,
                                           sizeof r->publish_err);
    eval_pool_client_stats(t->cfg.pool, t->cfg.client, &r->es);
    return 0;
}

const gg_search *eval_session_search(gg_tune_session *t)
{
    return search_tune_search(search_session_tune(t->s));
}

const char *eval_session_records_path(gg_tune_session *t)
{
    return search_tune_records_path(search_session_tune(t->s));
}

void eval_session_close(gg_tune_session *t)
{
    if (!t)
        return;
    eval_pool_client_end(t->cfg.pool, t->cfg.client);
    search_session_close(t->s);
    free(t->probe);
    free(t);
}
