/* One tune (cli/tune.h): the session of eval/session.h (the search, the
 * presets, the finalists, over the pool) called once, its progress shown
 * on stderr as it goes and its summary printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tune.h"
#include "base/clock.h"
#include "eval/session.h"

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

static void trace(void *user, const gg_variant *v, const gg_measurement *m, double wall)
{
    const progress *p = user;
    const char *name = p->j->several ? p->j->name : NULL;
    char vt[GG_VARIANT_TEXT];
    double in = m->compile_s + m->ahead_s + m->upload_s + m->run_s + m->readback_s + m->verify_s;
    /* measured (partly) on another device before it was asked: the wait instead */
    bool ahead = wall < in;
    fprintf(stderr, "eval%s%s: %s %s %.4g GFLOP/s, %d rep%s%s: compile %.3f%s upload %.3f run %.3f "
                    "read-back+verify %.3f, building ahead %.3f, %s %.3f s\n",
            name ? " " : "", name ? name : "", gen_variant_format(v, vt, sizeof vt),
            base_status_name(m->status), m->gflops, m->reps, m->reps == 1 ? "" : "s",
            m->screened ? " (screened)" : "", m->compile_s,
            m->program_cached ? " (built ahead)" : "", m->upload_s, m->run_s,
            m->readback_s + m->verify_s, m->ahead_s, ahead ? "measured ahead, waited" : "rest",
            ahead ? wall : wall - in);
}

/* ---- the session's messages ---- */

/* The pool made no worker at all. */
static void failed(void *user, const char *detail)
{
    (void)user;
    fprintf(stderr, "\nglgemm tune: %s\n", detail);
}

static void stage(void *user, gg_session_stage st, const gg_session_result *r)
{
    progress *p = user;
    const tune_job *j = p->j;
    const char *nm = j->several ? " " : "", *name = j->several ? j->name : "";
    if (st == GG_SESSION_SEARCHED || st == GG_SESSION_PRESETS) {
        if (p->drawn)
            fputc('\n', stderr);
        p->drawn = false;
    }
    if (st == GG_SESSION_SEARCHED && r->out_of_time)
        fprintf(stderr, "tune%s%s: --max-time %.0f s reached: the search stopped here (run the "
                        "same tune again to resume from the records)\n", nm, name, j->o->max_time);
    if (st == GG_SESSION_FINALISTS)
        fprintf(stderr, "tune%s%s: re-measuring the %ld best, %d interleaved rounds\n", nm, name,
                j->o->finalists, GG_SESSION_ROUNDS);
}

/* ---- the summary ---- */

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

static void summary(tune_job *j, gg_tune_session *t, const gg_tune_session_result *tr)
{
    const tune_opts *o = j->o;
    FILE *out = j->out;
    const gg_session_result *r = &tr->s;
    const gg_search_stats *st = &r->st;
    const gg_finalist *fin = r->fin;
    int nfin = r->nfin;
    const gg_search *s = eval_session_search(t);
    char vt[GG_VARIANT_TEXT], el[32], fixt[256];
    search_fix_format(&o->fix, fixt, sizeof fixt);
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
            search_strategy_name(o->strategy), fixt[0] ? ", --fix " : "", fixt, st->visited,
            st->measured, st->from_memo);
    if (r->out_of_time)
        fprintf(out, "stopped: --max-time %.0f s reached after %ld of ~%ld variants; run again to "
                     "resume\n", o->max_time, st->visited, st->planned);
    fprintf(out, "status:");
    for (int i = 0; i < GG_STATUS_COUNT; i++)
        if (st->by_status[i])
            fprintf(out, " %s %ld", base_status_name((gg_status)i), st->by_status[i]);
    fprintf(out, "\n");
    if (r->screened)
        fprintf(out, "screened: %ld variants stopped after two timed runs (slower than %.0fx the "
                     "best so far's time)\n", r->screened, GG_SESSION_SCREEN_FACTOR);
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
    if (r->have_best) {
        print_preset(out, "nv-single", &r->nvs, &r->os, r->best_gflops);
        print_preset(out, "nv-multi", &r->nvm, &r->om, r->best_gflops);
    }
    if (tr->outside_best)
        fprintf(out, "best of all records: %s, %.3f GFLOP/s (outside this search; written as "
                     "best)\n", gen_variant_format(&tr->all_best, vt, sizeof vt), tr->all_gflops);
    for (int i = 0; i < search_nnotes(s); i++)
        fprintf(out, "note: %s\n", search_note(s, i));
    fprintf(out, "records: %s\n", eval_session_records_path(t));
    /* The best files also went to the per-user records folder, where the
     * library (glgemm.h) finds them from any folder; a failure there is a
     * warning. */
    if (tr->published < 0)
        fprintf(stderr, "tune: warning: the best file was not copied to the user records "
                        "folder %s: %s\n", tr->user_dir, tr->publish_err);
    else if (tr->published > 0)
        fprintf(out, "user records: %s/%s (the library reads them from any folder)\n", tr->user_dir,
                j->slug);
    const gg_evaluator_stats *es = &tr->es;
    double wall = base_now_s() - j->t0;
    double inside = es->compile_s + es->upload_s + es->run_s + es->readback_s + es->verify_s;
    long in_search = st->measured - st->bound_pruned;
    bool pooled = eval_pool_nslots(j->pool) > 1;
    if (!pooled)
        fprintf(out, "time: %s wall for %ld evaluations (%ld in the search, %ld presets and "
                     "finalists): compile %.1f s, upload %.1f s, run %.1f s, read-back %.1f s, "
                     "verify %.1f s, other %.1f s (workers, reference, records)\n",
                tune_duration(wall, el, sizeof el), es->evaluations, in_search,
                es->evaluations - in_search, es->compile_s, es->upload_s, es->run_s, es->readback_s,
                es->verify_s, wall - inside);
    else /* the measurements overlap: their sums are device time */
        fprintf(out, "time: %s wall for %ld evaluations on %d devices (%ld in the search, %ld "
                     "presets and finalists, %ld measured ahead and never asked): device time "
                     "compile %.1f s, upload %.1f s, run %.1f s, read-back %.1f s, verify %.1f s, "
                     "%.1f s in all\n",
                tune_duration(wall, el, sizeof el), es->evaluations, j->ndevices, r->search_asks,
                r->asks - r->search_asks, es->evaluations - r->asks, es->compile_s,
                es->upload_s, es->run_s, es->readback_s, es->verify_s, inside);
    if (!pooled) {
        fprintf(out, "evaluator: %ld worker%s started, %ld lost, %ld timeouts, %ld compile timeouts "
                     "(%ld of them not built: larger than one that timed out); %ld programs built "
                     "ahead or reused; warm worker %s\n",
                es->workers, es->workers == 1 ? "" : "s", es->lost, es->timeouts, es->compile_timeouts,
                es->predicted, es->programs_cached, tr->warm ? "on" : "off");
        if (tr->warm)
            fprintf(out, "warm worker: %ld variants handed to it, %ld built and run ahead, %ld "
                         "warm worker%s lost\n", es->warmed, es->warm_done, es->warm_lost,
                    es->warm_lost == 1 ? "" : "s");
    } else {
        fprintf(out, "evaluator: %d devices (see the device lines), %ld lost, %ld timeouts, %ld "
                     "compile timeouts\n", eval_pool_nslots(j->pool), es->lost, es->timeouts,
                es->compile_timeouts);
    }
    fprintf(out, "wall time: %s\n", tune_duration(wall, el, sizeof el));
}

int tune_one(tune_job *j)
{
    const tune_opts *o = j->o;
    const gg_problem *prob = j->prob;
    char err[512];
    j->status = EXIT_GPU;
    gg_tune_session_result *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "glgemm tune: out of memory\n");
        eval_pool_client_end(j->pool, j->client);
        fflush(j->out);
        return j->status;
    }
    progress pg = {.tty = isatty(2) && !j->several, .t0 = j->t0, .last_print = base_now_s(),
                   .last_fresh = base_now_s(), .j = j};
    gg_tune_session_config cfg = {
        .pool = j->pool, .client = j->client, .prob = prob, .results = o->results,
        .card = j->slug, .dev = j->dev, .card_info = j->card_info,
        .webgl = o->c->backend == GG_BACKEND_BROWSER, .fresh = o->fresh, .strategy = o->strategy,
        .fix = o->fix, .budget = o->budget, .keep = (int)o->keep, .finalists = (int)o->finalists,
        .stop_at = o->max_time > 0 ? j->t0 + o->max_time : 0,
        .progress = on_point, .stage = stage, .evaluated = o->verbose ? trace : NULL,
        .failed = failed, .user = &pg,
    };
    gg_tune_session *t = eval_session_open(&cfg, r, err, sizeof err);
    if (!t) {
        j->status = cli_error(o->c, "%s", err);
        goto out;
    }
    char fixt[256];
    search_fix_format(&o->fix, fixt, sizeof fixt);
    const char *nm = j->several ? " " : "", *name = j->several ? j->name : "";
    char devs[64] = "";
    if (eval_pool_nslots(j->pool) > 1)
        snprintf(devs, sizeof devs, ", %d device%s", j->ndevices, j->ndevices == 1 ? "" : "s");
    fprintf(stderr, "tune%s%s: %s search on %s (%s%s), %dx%dx%d, up to %d reps, timeout %.0f s "
                    "per evaluation%s%s\n", nm, name,
            search_strategy_name(o->strategy), j->slug, j->card_info->renderer, devs, prob->m, prob->n,
            prob->k, prob->reps, j->timeout_s, fixt[0] ? ", --fix " : "", fixt);
    if (!r->have_probe)
        fprintf(stderr, "tune%s%s: no bound pruning: %s (glgemm probe writes it)\n", nm, name,
                r->probe_err);
    if (r->records.moved_aside)
        fprintf(stderr, "tune%s%s: --fresh: the old records went to %s\n", nm, name,
                r->records.old_path);
    else if (r->records.rows)
        fprintf(stderr, "tune%s%s: resuming: %ld variants already in %s are not measured again\n",
                nm, name, r->records.rows, eval_session_records_path(t));

    if (eval_session_run(t, r)) {
        fprintf(stderr, "glgemm tune: stopped: %s\n", r->s.err);
        goto out;
    }
    summary(j, t, r);
    j->status = r->s.have_best ? 0 : EXIT_GPU;
out:
    fflush(j->out);
    eval_session_close(t);
    free(r);
    return j->status;
}
