/* A search bound to its tuning records: see tune.h. */
#include "search/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

struct gg_tune {
    gg_tune_config cfg;
    gg_records *rec;
    gg_search *search;
    double best_score[GG_STORE_COUNT]; /* of each store's best file as last written
                                        * (or preloaded) */
    char err[512];
};

static void preload(void *user, const gg_variant *v, const gg_measurement *m)
{
    gg_tune *t = user;
    gg_outcome o;
    search_outcome_from_measurement(&o, m);
    search_preload(t->search, v, &o);
}

static void outcome_measurement(const gg_outcome *o, gg_measurement *m)
{
    base_measurement_init(m);
    m->status = o->status;
    m->passes = o->passes;
    m->seconds = o->seconds;
    m->gflops = o->gflops;
    m->rel_err = o->rel_err;
}

static int write_best(gg_tune *t, const gg_variant *v, const gg_outcome *o)
{
    gg_measurement m;
    outcome_measurement(o, &m);
    const gg_search_config *c = &t->cfg.search;
    if (store_best_write(t->cfg.results_dir, t->cfg.card, c->m, c->n, c->k, v, &m, t->err,
                      sizeof t->err))
        return -1;
    t->best_score[v->store] = search_outcome_score(o);
    return 0;
}

static int hook(void *user, gg_search *s, const gg_variant *v, const gg_outcome *o,
                const gg_measurement *m, bool fresh)
{
    gg_tune *t = user;
    if (fresh) {
        if (store_records_append(t->rec, v, m, t->err, sizeof t->err))
            return 1;
        if (search_outcome_score(o) > t->best_score[v->store] && write_best(t, v, o))
            return 1;
    }
    if (t->cfg.progress)
        t->cfg.progress(t->cfg.progress_user, s, v, o, m, fresh);
    return 0;
}

gg_tune *search_tune_open(const gg_tune_config *cfg, gg_records_info *info, char *err, size_t errlen)
{
    gg_tune *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->cfg = *cfg;
    t->cfg.search.hook = hook;
    t->cfg.search.hook_user = t;
    t->search = search_new(&t->cfg.search, err, errlen);
    if (!t->search) {
        free(t);
        return NULL;
    }
    const gg_search_config *c = &cfg->search;
    t->rec = store_records_open(cfg->results_dir, cfg->card, c->m, c->n, c->k, cfg->fresh, preload, t,
                             info, err, errlen);
    if (!t->rec) {
        search_free(t->search);
        free(t);
        return NULL;
    }
    /* Each store's recorded best is the one to beat; its best file follows
     * the records (rewritten by search_tune_finish). */
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        gg_outcome o;
        t->best_score[st] = search_memo_best_store(t->search, st, NULL, &o) ? search_outcome_score(&o) : 0;
    }
    return t;
}

int search_tune_run(gg_tune *t)
{
    return search_run(t->search);
}

int search_tune_visit(gg_tune *t, const gg_variant *v, gg_outcome *o)
{
    return search_visit(t->search, v, o);
}

/* Each store's best file follows its records' best variant.  A file that
 * already names that variant stays as it is: it may hold the finalists'
 * median of an earlier tune (search_tune_finalists), which the best single
 * recorded measurement would undo (a tune of one store rewrote the other
 * stores' files so). */
int search_tune_finish(gg_tune *t)
{
    const gg_search_config *c = &t->cfg.search;
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        gg_variant v, filed;
        gg_outcome o;
        double gf;
        char err[256];
        if (!search_memo_best_store(t->search, st, &v, &o))
            continue;
        if (store_best_read_store(t->cfg.results_dir, t->cfg.card, c->m, c->n, c->k, (gg_store)st,
                                  &filed, &gf, err, sizeof err) == 0 &&
            gen_variant_equal(&filed, &v))
            continue;
        if (write_best(t, &v, &o))
            return -1;
    }
    return 0;
}

static int by_rate(const void *a, const void *b)
{
    const gg_finalist *x = a, *y = b;
    double sx = x->status == GG_OK ? x->gflops : -1, sy = y->status == GG_OK ? y->gflops : -1;
    return sx > sy ? -1 : sx < sy ? 1 : 0;
}

int search_tune_finalists(gg_tune *t, gg_store store, int n, int rounds, gg_eval_fn eval,
                      void *eval_user, gg_finalist out[GG_FINALISTS_MAX])
{
    if (n > GG_FINALISTS_MAX)
        n = GG_FINALISTS_MAX;
    if (rounds < 1)
        rounds = 1;
    /* The search's space: what --fix allows (presets outside it are not
     * finalists). */
    gg_variant v[GG_FINALISTS_MAX];
    double rec[GG_FINALISTS_MAX];
    int nf = search_memo_top_store(t->search, (int)store, &t->cfg.search.fix, n, v, rec);
    if (nf < 0) {
        snprintf(t->err, sizeof t->err, "out of memory");
        return -1;
    }
    if (nf == 0)
        return 0;
    double *times = calloc((size_t)nf * (size_t)rounds, sizeof *times);
    if (!times) {
        snprintf(t->err, sizeof t->err, "out of memory");
        return -1;
    }
    for (int i = 0; i < nf; i++)
        out[i] = (gg_finalist){.v = v[i], .recorded = rec[i], .status = GG_OK};
    const gg_search_config *c = &t->cfg.search;
    double flop = 2.0 * c->m * (double)c->n * c->k;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nf; i++) {
            if (out[i].status != GG_OK)
                continue;
            gg_measurement m;
            base_measurement_init(&m);
            if (eval(eval_user, &out[i].v, &m)) {
                snprintf(t->err, sizeof t->err, "re-measuring the finalists stopped: %.400s", m.detail);
                free(times);
                return -1;
            }
            if (m.status != GG_OK || !(m.seconds > 0)) {
                out[i].status = m.status == GG_OK ? GG_GL_ERROR : m.status;
                continue;
            }
            times[(size_t)i * rounds + (size_t)out[i].rounds++] = m.seconds;
        }
    for (int i = 0; i < nf; i++)
        if (out[i].status == GG_OK) {
            double *ti = &times[(size_t)i * rounds];
            out[i].seconds = base_median(ti, out[i].rounds);
            out[i].spread = base_spread(ti, out[i].rounds);
            out[i].gflops = flop / out[i].seconds / 1e9;
        }
    free(times);
    qsort(out, (size_t)nf, sizeof *out, by_rate);
    /* A recorded point outside --fix that beats the winner keeps the best
     * file search_tune_finish wrote (the best for the card and problem). */
    gg_outcome all;
    gg_variant allv;
    bool outside = search_memo_best_store(t->search, (int)store, &allv, &all) &&
                   !search_fix_matches(&t->cfg.search.fix, &allv) && all.gflops > out[0].gflops;
    if (out[0].status == GG_OK && !outside) {
        gg_measurement m;
        base_measurement_init(&m);
        m.seconds = out[0].seconds;
        m.gflops = out[0].gflops;
        m.spread = out[0].spread;
        m.reps = out[0].rounds;
        gg_outcome o;
        m.rel_err = search_memo_get(t->search, &out[0].v, &o) ? o.rel_err : -1;
        if (store_best_write(t->cfg.results_dir, t->cfg.card, c->m, c->n, c->k, &out[0].v, &m, t->err,
                          sizeof t->err))
            return -1;
        t->best_score[store] = out[0].gflops;
    }
    return nf;
}

gg_search *search_tune_search(gg_tune *t) { return t->search; }
const char *search_tune_records_path(const gg_tune *t) { return store_records_path(t->rec); }
const char *search_tune_error(const gg_tune *t) { return t->err; }

void search_tune_close(gg_tune *t)
{
    if (!t)
        return;
    store_records_close(t->rec);
    search_free(t->search);
    free(t);
}
