/* One tune (cli/tune.h): a search bound to its records (search/tune.h)
 * over the pool's evaluations (eval/pool.h: one evaluator in place for one
 * device, else the card's devices, hinted points measured on idle ones),
 * then the presets, the finalists re-measured, and the summary. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tune.h"
#include "base/clock.h"
#include "search/bound.h"
#include "search/tune.h"

/* Interleaved rounds of the finalists' re-measurement. */
#define FINALIST_ROUNDS 5

/* ---- the evaluation: the pool's (eval/pool.h) ---- */

/* Screening: a variant whose first timed run is this many times slower
 * than the best so far stops there (measured, verified, recorded). */
#define SCREEN_FACTOR 2.0
/* Repetitions stop early once the reps so far are within this spread. */
#define MIN_REPS 3
#define TIGHT 0.03

typedef struct {
    gg_pool *pool;
    int client;
    gg_search *s;              /* set once the tune is open: its best so far */
    const gg_problem *prob;
    gg_store store;
    double stop_at;            /* --max-time: no evaluation starts after this (0: none) */
    bool out_of_time;
    bool verbose;
    bool finals;               /* the finalists: the full reps, no screening, no early stop */
    const char *name;          /* NULL, or the tune's name (several at once) */
    long asks;                 /* measurements asked for and answered */
} tune_eval;

static void trace(const tune_eval *te, const gg_variant *v, const gg_measurement *m, double wall)
{
    char vt[GG_VARIANT_TEXT];
    double in = m->compile_s + m->ahead_s + m->upload_s + m->run_s + m->readback_s + m->verify_s;
    /* measured (partly) on another device before it was asked: the wait instead */
    bool ahead = wall < in;
    fprintf(stderr, "eval%s%s: %s %s %.4g GFLOP/s, %d rep%s%s: compile %.3f%s upload %.3f run %.3f "
                    "read-back+verify %.3f, building ahead %.3f, %s %.3f s\n",
            te->name ? " " : "", te->name ? te->name : "", gen_variant_format(v, vt, sizeof vt),
            base_status_name(m->status), m->gflops, m->reps, m->reps == 1 ? "" : "s",
            m->screened ? " (screened)" : "", m->compile_s,
            m->program_cached ? " (built ahead)" : "", m->upload_s, m->run_s,
            m->readback_s + m->verify_s, m->ahead_s, ahead ? "measured ahead, waited" : "rest",
            ahead ? wall : wall - in);
}

static void eval_opts(const tune_eval *te, bool finals, gg_eval_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reps = te->prob->reps;
    if (finals)
        return;
    if (o->reps > MIN_REPS) {
        o->min_reps = MIN_REPS;
        o->tight = TIGHT;
    }
    gg_outcome best;
    if (te->s && search_memo_best_store(te->s, (int)te->store, NULL, &best) && best.seconds > 0)
        o->screen_s = SCREEN_FACTOR * best.seconds;
}

static int evaluate(void *user, const gg_variant *v, gg_measurement *out)
{
    tune_eval *te = user;
    if (!te->finals && te->stop_at > 0 && base_now_s() > te->stop_at) {
        te->out_of_time = true;
        return -1; /* stops the search; the tune finishes as usual */
    }
    gg_eval_opts o;
    eval_opts(te, te->finals, &o);
    double t0 = base_now_s();
    if (eval_pool_eval(te->pool, te->client, v, &o, out)) {
        fprintf(stderr, "\nglgemm tune: %s\n", out->detail);
        return -1; /* no worker at all: the tool, not the variant */
    }
    te->asks++;
    if (te->verbose)
        trace(te, v, out, base_now_s() - t0);
    return 0;
}

/* The points the search looks at next: built ahead by the one evaluator,
 * or measured on idle devices, with the options they would get now. */
static void hint(void *user, const gg_variant *next, int n)
{
    tune_eval *te = user;
    gg_eval_opts o;
    eval_opts(te, te->finals, &o);
    eval_pool_hint(te->pool, te->client, next, n, &o);
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

typedef struct {
    gg_search_stats st;        /* the search's own, before the presets */
    gg_variant nvs, nvm;
    gg_outcome os, om;
    gg_finalist fin[GG_FINALISTS_MAX];
    int nfin;
    long screened;
    bool warm;
    char fixt[256];
} tune_result;

/* With several devices, what will surely be asked is queued at once
 * (eval_pool_prefetch): the presets the records do not hold, and the
 * finalists' rounds in search_tune_finalists' order (round by round, the
 * best first), each round's measurements spread over the devices. */
static void prefetch_presets(const tune_eval *te, const tune_result *r)
{
    gg_variant v[2] = {r->nvs, r->nvm}, want[2];
    int n = 0;
    gg_outcome o;
    for (int i = 0; i < 2; i++)
        if (search_variant_normalize(&v[i], te->prob->m, te->prob->n, te->prob->k) == 0 &&
            !search_memo_get(te->s, &v[i], &o))
            want[n++] = v[i];
    gg_eval_opts eo;
    eval_opts(te, te->finals, &eo);
    eval_pool_prefetch(te->pool, te->client, want, n, &eo);
}

static void prefetch_finalists(const tune_eval *te, const tune_opts *o, int rounds)
{
    gg_variant top[GG_FINALISTS_MAX], all[GG_FINALISTS_MAX * FINALIST_ROUNDS];
    double rec[GG_FINALISTS_MAX];
    int nf = search_memo_top_store(te->s, (int)o->fix.v.store, &o->fix, (int)o->finalists, top, rec);
    int n = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nf; i++)
            all[n++] = top[i];
    gg_eval_opts eo;
    eval_opts(te, true, &eo); /* the finalists' options: the full reps, no screening */
    eval_pool_prefetch(te->pool, te->client, all, n, &eo);
}

/* ---- progress ---- */

/* "1m05s" */
static char *tune_duration(double s, char *buf, size_t len)
{
    if (s < 0 || !isfinite(s))
        snprintf(buf, len, "?");
    else if (s < 60)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}

typedef struct {
    bool tty;
    double t0, last_print;
    double eval_time;  /* seconds spent in fresh evaluations */
    double last_fresh;
    long fresh;
    long screened;     /* fresh evaluations stopped by screening */
    bool drawn;        /* a bar is on the terminal line */
    const tune_job *j;
} progress;

/* " devices [12 11]": evaluations per device so far, with several. */
static void per_device(const tune_job *j, char *buf, size_t len)
{
    int n = eval_pool_nslots(j->pool);
    buf[0] = '\0';
    if (n < 2)
        return;
    size_t o = (size_t)snprintf(buf, len, ", devices [");
    for (int i = 0; i < n && o < len; i++) {
        gg_pool_slot_stats st;
        eval_pool_slot_stats(j->pool, i, &st);
        o += (size_t)snprintf(buf + o, len - o, "%s%ld", i ? " " : "", st.evaluations);
    }
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

static void show(progress *p, const gg_search *s, bool force)
{
    const gg_search_stats *st = search_get_stats(s);
    double t = base_now_s();
    if (!p->tty && !force && t - p->last_print < 5)
        return;
    p->last_print = t;
    long todo = st->planned > st->visited ? st->planned - st->visited : 0;
    double per = p->fresh ? p->eval_time / (double)p->fresh : -1;
    char eta[32], el[32], best[96] = "none yet", devs[400];
    tune_duration(per >= 0 ? per * (double)todo : -1, eta, sizeof eta);
    tune_duration(t - p->t0, el, sizeof el);
    if (st->have_best)
        snprintf(best, sizeof best, "%.3g GFLOP/s", st->best_outcome.gflops);
    per_device(p->j, devs, sizeof devs);
    if (p->tty) {
        int width = 24, fill = st->planned ? (int)(width * st->visited / st->planned) : 0;
        char bar[32];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, "\r[%s] %ld/%ld  best %s  %s elapsed  ETA %s%s   ", bar, st->visited,
                st->planned, best, el, eta, devs);
        p->drawn = true;
    } else {
        fprintf(stderr, "tune%s%s: %ld of ~%ld variants (%ld measured, %ld from records), best %s, "
                        "%s elapsed, about %s left%s\n",
                p->j->several ? " " : "", p->j->several ? p->j->name : "", st->visited, st->planned,
                st->measured, st->from_memo, best, el, eta, devs);
    }
    fflush(stderr);
}

static void on_point(void *user, const gg_search *s, const gg_variant *v, const gg_outcome *o,
                     const gg_measurement *m, bool fresh)
{
    progress *p = user;
    if (fresh) {
        double t = base_now_s();
        p->eval_time += t - p->last_fresh;
        p->last_fresh = t;
        p->fresh++;
        if (m && m->screened)
            p->screened++;
        if (m && m->status != GG_OK && m->status != GG_UNSUPPORTED && m->status != GG_INVALID &&
            m->status != GG_PRUNED_BOUND) {
            char vt[GG_VARIANT_TEXT];
            if (p->drawn)
                fputc('\n', stderr);
            p->drawn = false;
            fprintf(stderr, "tune%s%s: %s: %s: %s\n", p->j->several ? " " : "",
                    p->j->several ? p->j->name : "", gen_variant_format(v, vt, sizeof vt),
                    base_status_name(o->status), m->detail);
        }
    } else {
        p->last_fresh = base_now_s();
    }
    show(p, s, false);
}

/* ---- the summary ---- */

/* The best files also go to the per-user records folder, where the library
 * (glgemm.h) finds them from any folder; a failure there is a warning. */
static void publish_best(FILE *out, const char *results, const char *card, int m, int n, int k)
{
    char user[1024], a[PATH_MAX], b[PATH_MAX], err[300];
    if (!store_user_results(user, sizeof user))
        return;
    if (realpath(results, a) && realpath(user, b) && !strcmp(a, b))
        return; /* --results is the user's folder already */
    int nb = store_best_publish(results, user, card, m, n, k, err, sizeof err);
    if (nb < 0)
        fprintf(stderr, "tune: warning: the best file was not copied to the user records "
                        "folder %s: %s\n", user, err);
    else if (nb > 0)
        fprintf(out, "user records: %s/%s (the library reads them from any folder)\n", user, card);
}

static void print_preset(FILE *out, const char *name, const gg_variant *v, const gg_outcome *o,
                         double best)
{
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    double g = search_outcome_score(o);
    if (g > 0)
        fprintf(out, "vs %-9s  %.2fx  (%s: %.3f GFLOP/s)\n", name, best / g, vt, g);
    else
        fprintf(out, "vs %-9s  -      (%s: %s)\n", name, vt, base_status_name(o->status));
}


static void summary(tune_job *j, gg_tune *t, const tune_eval *te, const tune_result *r)
{
    const tune_opts *o = j->o;
    FILE *out = j->out;
    const gg_search_stats *st = &r->st;
    const gg_finalist *fin = r->fin;
    int nfin = r->nfin;
    gg_search *s = search_tune_search(t);
    char vt[GG_VARIANT_TEXT], el[32];
    if (nfin > 0 && fin[0].status == GG_OK) {
        fprintf(out, "best: %s\n", gen_variant_format(&fin[0].v, vt, sizeof vt));
        fprintf(out, "gflops: %.3f  (median of %d interleaved re-measurements, %.6f s, spread "
                     "%.1f%%; first measured at %.3f)\n",
                fin[0].gflops, fin[0].rounds, fin[0].seconds, 100 * fin[0].spread, fin[0].recorded);
    } else if (st->have_best) {
        fprintf(out, "best: %s\n", gen_variant_format(&st->best, vt, sizeof vt));
        fprintf(out, "gflops: %.3f  (%.6f s, %d pass%s, rel_err %.3g)\n", st->best_outcome.gflops,
                st->best_outcome.seconds, st->best_outcome.passes,
                st->best_outcome.passes == 1 ? "" : "es", st->best_outcome.rel_err);
    } else {
        fprintf(out, "best: none: every variant failed\n");
    }
    const gg_problem *p = j->prob;
    fprintf(out, "problem: %dx%dx%d on %s, up to %d reps per evaluation\n", p->m, p->n, p->k,
            j->slug, p->reps);
    fprintf(out, "search: %s%s%s: %ld variants: %ld measured now, %ld from the records\n",
            search_strategy_name(o->strategy), r->fixt[0] ? ", --fix " : "", r->fixt, st->visited,
            st->measured, st->from_memo);
    if (te->out_of_time)
        fprintf(out, "stopped: --max-time %.0f s reached after %ld of ~%ld variants; run again to "
                     "resume\n", o->max_time, st->visited, st->planned);
    fprintf(out, "status:");
    for (int i = 0; i < GG_STATUS_COUNT; i++)
        if (st->by_status[i])
            fprintf(out, " %s %ld", base_status_name((gg_status)i), st->by_status[i]);
    fprintf(out, "\n");
    if (r->screened)
        fprintf(out, "screened: %ld variants stopped after two timed runs (slower than %.0fx the "
                     "best so far's time)\n", r->screened, SCREEN_FACTOR);
    for (int i = 0; i < nfin; i++) {
        gen_variant_format(&fin[i].v, vt, sizeof vt);
        if (fin[i].status == GG_OK)
            fprintf(out, "finalist %d: %s  %.3f GFLOP/s (median of %d, spread %.1f%%; recorded "
                         "%.3f)\n", i + 1, vt, fin[i].gflops, fin[i].rounds, 100 * fin[i].spread,
                    fin[i].recorded);
        else
            fprintf(out, "finalist %d: %s  out: %s on re-measuring (recorded %.3f)\n", i + 1, vt,
                    base_status_name(fin[i].status), fin[i].recorded);
    }
    bool have_best = nfin > 0 ? fin[0].status == GG_OK : st->have_best;
    double best_g = nfin > 0 && fin[0].status == GG_OK ? fin[0].gflops : st->best_outcome.gflops;
    if (have_best) {
        print_preset(out, "nv-single", &r->nvs, &r->os, best_g);
        print_preset(out, "nv-multi", &r->nvm, &r->om, best_g);
    }
    gg_variant all_best;
    gg_outcome all_o;
    if (search_memo_best_store(s, (int)o->fix.v.store, &all_best, &all_o) &&
        !search_fix_matches(&o->fix, &all_best) && search_outcome_score(&all_o) > best_g) {
        fprintf(out, "best of all records: %s, %.3f GFLOP/s (outside this search; written as "
                     "best)\n", gen_variant_format(&all_best, vt, sizeof vt), all_o.gflops);
    }
    for (int i = 0; i < search_nnotes(s); i++)
        fprintf(out, "note: %s\n", search_note(s, i));
    fprintf(out, "records: %s\n", search_tune_records_path(t));
    publish_best(out, o->results, j->slug, p->m, p->n, p->k);
    gg_evaluator_stats es;
    eval_pool_client_stats(j->pool, j->client, &es);
    double wall = base_now_s() - j->t0;
    double inside = es.compile_s + es.upload_s + es.run_s + es.readback_s + es.verify_s;
    long in_search = st->measured - st->bound_pruned;
    bool pooled = eval_pool_nslots(j->pool) > 1;
    if (!pooled)
        fprintf(out, "time: %s wall for %ld evaluations (%ld in the search, %ld presets and "
                     "finalists): compile %.1f s, upload %.1f s, run %.1f s, read-back %.1f s, "
                     "verify %.1f s, other %.1f s (workers, reference, records)\n",
                tune_duration(wall, el, sizeof el), es.evaluations, in_search,
                es.evaluations - in_search, es.compile_s, es.upload_s, es.run_s, es.readback_s,
                es.verify_s, wall - inside);
    else /* the measurements overlap: their sums are device time */
        fprintf(out, "time: %s wall for %ld evaluations on %d devices (%ld in the search, %ld "
                     "presets and finalists, %ld measured ahead and never asked): device time "
                     "compile %.1f s, upload %.1f s, run %.1f s, read-back %.1f s, verify %.1f s, "
                     "%.1f s in all\n",
                tune_duration(wall, el, sizeof el), es.evaluations, j->ndevices, j->search_evals,
                te->asks - j->search_evals, es.evaluations - te->asks, es.compile_s,
                es.upload_s, es.run_s, es.readback_s, es.verify_s, inside);
    if (!pooled) {
        fprintf(out, "evaluator: %ld worker%s started, %ld lost, %ld timeouts, %ld compile timeouts "
                     "(%ld of them not built: larger than one that timed out); %ld programs built "
                     "ahead or reused; warm worker %s\n",
                es.workers, es.workers == 1 ? "" : "s", es.lost, es.timeouts, es.compile_timeouts,
                es.predicted, es.programs_cached, r->warm ? "on" : "off");
        if (r->warm)
            fprintf(out, "warm worker: %ld variants handed to it, %ld built and run ahead, %ld "
                         "warm worker%s lost\n", es.warmed, es.warm_done, es.warm_lost,
                    es.warm_lost == 1 ? "" : "s");
    } else {
        fprintf(out, "evaluator: %d devices (see the device lines), %ld lost, %ld timeouts, %ld "
                     "compile timeouts\n", eval_pool_nslots(j->pool), es.lost, es.timeouts,
                es.compile_timeouts);
    }
    fprintf(out, "wall time: %s\n", tune_duration(wall, el, sizeof el));
}

int tune_one(tune_job *j)
{
    const tune_opts *o = j->o;
    const gg_problem *prob = j->prob;
    char err[512];
    gg_tune *t = NULL;
    gg_probe_result *probe = calloc(1, sizeof *probe);
    tune_result *r = calloc(1, sizeof *r);
    j->status = EXIT_GPU;
    if (!probe || !r) {
        fprintf(stderr, "glgemm tune: out of memory\n");
        goto out;
    }
    gg_tune_config tc;
    memset(&tc, 0, sizeof tc);
    tc.results_dir = o->results;
    tc.card = j->slug;
    tc.fresh = o->fresh;
    search_config_default(&tc.search, prob->m, prob->n, prob->k);
    for (int p = 0; p < GG_PROFILE_COUNT; p++) {
        gg_ctx_kind kind = host_ctx_kind_for((gg_profile)p);
        tc.search.profile_ok[p] = j->dev->ok[kind];
        if (j->dev->ok[kind])
            host_ctx_limits(&j->dev->info[kind], &tc.search.lim[p]);
    }
    tc.search.fix = o->fix;
    tc.search.strategy = o->strategy;
    tc.search.budget = o->budget;
    tc.search.seed = prob->seed;
    tc.search.screen_keep = (int)o->keep;
    tune_eval te = {.pool = j->pool, .client = j->client, .prob = prob, .store = o->fix.v.store,
                    .verbose = o->verbose, .stop_at = o->max_time > 0 ? j->t0 + o->max_time : 0,
                    .name = j->several ? j->name : NULL};
    tc.search.eval = evaluate;
    tc.search.user = &te;
    tc.search.hint = hint;
    tc.search.hint_user = &te;
    r->warm = eval_pool_warm(j->pool, warm_worker(j->card_info));
    /* The bound: the card's probe, when there is one. */
    gg_bound_user bu = {probe, prob->m, prob->n, prob->k};
    char perr[512];
    bool have_probe = search_bound_load(o->results, j->slug, probe, perr, sizeof perr) == 0;
    if (have_probe) {
        tc.search.bound = search_bound_search_fn;
        tc.search.bound_user = &bu;
    }
    progress pg = {.tty = isatty(2) && !j->several, .t0 = j->t0, .last_print = base_now_s(),
                   .last_fresh = base_now_s(), .j = j};
    tc.progress = on_point;
    tc.progress_user = &pg;

    gg_records_info info;
    t = search_tune_open(&tc, &info, err, sizeof err);
    if (!t) {
        j->status = cli_error(o->c, "%s", err);
        goto out;
    }
    gg_search *s = search_tune_search(t);
    te.s = s;
    search_fix_format(&o->fix, r->fixt, sizeof r->fixt);
    const char *nm = j->several ? " " : "", *name = j->several ? j->name : "";
    char devs[64] = "";
    if (eval_pool_nslots(j->pool) > 1)
        snprintf(devs, sizeof devs, ", %d device%s", j->ndevices, j->ndevices == 1 ? "" : "s");
    fprintf(stderr, "tune%s%s: %s search on %s (%s%s), %dx%dx%d, up to %d reps, timeout %.0f s "
                    "per evaluation%s%s\n", nm, name,
            search_strategy_name(o->strategy), j->slug, j->card_info->renderer, devs, prob->m, prob->n,
            prob->k, prob->reps, j->timeout_s, r->fixt[0] ? ", --fix " : "", r->fixt);
    if (!have_probe)
        fprintf(stderr, "tune%s%s: no bound pruning: %s (glgemm probe writes it)\n", nm, name, perr);
    if (info.moved_aside)
        fprintf(stderr, "tune%s%s: --fresh: the old records went to %s\n", nm, name, info.old_path);
    else if (info.rows)
        fprintf(stderr, "tune%s%s: resuming: %ld variants already in %s are not measured again\n",
                nm, name, info.rows, search_tune_records_path(t));

    int run = search_tune_run(t);
    if (pg.drawn)
        fputc('\n', stderr);
    pg.drawn = false;
    r->st = *search_get_stats(s);
    if (run && te.out_of_time) {
        fprintf(stderr, "tune%s%s: --max-time %.0f s reached: the search stopped here (run the "
                        "same tune again to resume from the records)\n", nm, name, o->max_time);
        te.stop_at = 0; /* the presets and finalists still run */
        search_clear_stop(s);
        run = 0;
    }
    if (run) {
        fprintf(stderr, "glgemm tune: stopped: %s\n",
                search_tune_error(t)[0] ? search_tune_error(t) : "no evaluation worker could be made");
        goto out;
    }
    j->search_evals = te.asks;
    eval_pool_client_end(j->pool, j->client); /* what was measured ahead and never asked */

    /* The presets on the same problem, recorded like the rest (with several
     * devices, both at once). */
    gen_variant_parse("nv-single", NULL, &r->nvs, err, sizeof err);
    gen_variant_parse("nv-multi", NULL, &r->nvm, err, sizeof err);
    if (o->c->backend == GG_BACKEND_BROWSER) /* WebGL2 runs GLSL ES 3.00 only, as bench's rows */
        r->nvs.profile = r->nvm.profile = GG_PROFILE_300ES;
    prefetch_presets(&te, r);
    /* The finalists' rounds queued behind them, so that the devices the two
     * presets leave idle start on them (issue 41: on four H200s the presets
     * and then the finalists took 15 of a 44 s tune).  A preset among the
     * best would make the top differ from this one: its rounds are measured
     * when asked, and those of the one it displaced are dropped unasked. */
    if (o->finalists > 0)
        prefetch_finalists(&te, o, FINALIST_ROUNDS);
    if (search_tune_visit(t, &r->nvs, &r->os) || search_tune_visit(t, &r->nvm, &r->om) ||
        search_tune_finish(t)) {
        fprintf(stderr, "glgemm tune: stopped: %s\n", search_tune_error(t));
        goto out;
    }
    if (pg.drawn)
        fputc('\n', stderr);
    pg.drawn = false;

    /* The finalists, measured again side by side: the best file gets their
     * median, not the luckiest single measurement. */
    if (o->finalists > 0) {
        fprintf(stderr, "tune%s%s: re-measuring the %ld best, %d interleaved rounds\n", nm, name,
                o->finalists, FINALIST_ROUNDS);
        te.finals = true;
        r->nfin = search_tune_finalists(t, o->fix.v.store, (int)o->finalists, FINALIST_ROUNDS,
                                        evaluate, &te, r->fin);
        if (r->nfin < 0) {
            fprintf(stderr, "glgemm tune: stopped: %s\n", search_tune_error(t));
            goto out;
        }
    }
    r->screened = pg.screened;
    summary(j, t, &te, r);
    bool have_best = r->nfin > 0 ? r->fin[0].status == GG_OK : r->st.have_best;
    j->status = have_best ? 0 : EXIT_GPU;
out:
    fflush(j->out);
    eval_pool_client_end(j->pool, j->client);
    search_tune_close(t);
    free(probe);
    free(r);
    return j->status;
}
