/* glgemm tune: the search (search/) over real evaluations, all through one
 * evaluator (eval/evaluator.h: a worker process under deadlines).
 *
 * Order: options, --fix and the inputs are checked before any GL (bad input
 * is exit 2 with no context).  The parent then prepares the inputs and the
 * double-precision reference once and holds no GL context: the evaluator's
 * worker tells the device's slug and limits (each context kind) and then
 * runs every evaluation.  Records, best files, the finalists re-measured,
 * the summary (where the time went). */
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/clock.h"
#include "store/csv.h"
#include "base/inputs.h"
#include "base/reference.h"
#include "search/bound.h"
#include "eval/evaluator.h"
#include "search/tune.h"

enum {
    OPT_SEARCH = 1, OPT_FIX, OPT_BUDGET, OPT_FRESH, OPT_TIMEOUT, OPT_RESULTS, OPT_KEEP,
    OPT_FINALISTS, OPT_COMPILE_TIMEOUT, OPT_MAX_TIME, OPT_VERBOSE
};

/* Interleaved rounds of the finalists' re-measurement. */
#define FINALIST_ROUNDS 5

static const cli_opt own_opts[] = {
    {"search", 1, OPT_SEARCH}, {"fix", 1, OPT_FIX},         {"budget", 1, OPT_BUDGET},
    {"fresh", 0, OPT_FRESH},   {"timeout", 1, OPT_TIMEOUT}, {"results", 1, OPT_RESULTS},
    {"keep", 1, OPT_KEEP},     {"finalists", 1, OPT_FINALISTS},
    {"compile-timeout", 1, OPT_COMPILE_TIMEOUT}, {"max-time", 1, OPT_MAX_TIME},
    {"verbose", 0, OPT_VERBOSE}, {"max-draw-ms", 1, OPT_MAX_DRAW}, {NULL, 0, 0},
};

static const char usage[] =
    "usage: glgemm tune [problem options] [--search phase|exhaustive|random] [--fix PAIRS]\n"
    "                   [--budget N] [--fresh] [--timeout S] [--compile-timeout S] [--keep N]\n"
    "                   [--finalists N] [--max-time S] [--verbose] [--results DIR]\n"
    "                   [--max-draw-ms MS]\n"
    "  Searches the variants for the fastest verified one on this device and problem.\n"
    "  --search phase       (default) the paper's: screening of the outer keys (compiler,\n"
    "                       profile, unroll, acc: one representative each, the best kept),\n"
    "                       then for each kept: np over powers of two x mc {1x1,1x2,1x4,2x2,4x1}\n"
    "                       x mrt {1x1,1x2,1x4,2x2,1x8,2x4,4x2}, then Algorithm 1 for np;\n"
    "                       then the other fetch paths on the best point, and out=image\n"
    "                       blocks (mc {1x4,2x2,4x1} x blk 4x8 .. 16x16 x the two fastest\n"
    "                       paths x np {all, the best}) with Algorithm 1 on the best block\n"
    "           exhaustive  every variant the card and --fix allow: every mrt RxC (R*C <=\n"
    "                       draw buffers), every mc (R*C <= 4), every np 1..k-steps\n"
    "           random      --budget N variants of the exhaustive space, seeded by --seed\n"
    "  --fix PAIRS          hold keys, e.g. --fix profile=300es,acc=blend or out=image; store is\n"
    "                       always held: f32 unless --fix store=f16\n"
    "  --budget N           look at most at N variants (needed by random)\n"
    "  --fresh              start over: the old records and best files are moved aside\n"
    "                       (renamed *.<date-time>.old); default: resume from the records\n"
    "  --timeout S          seconds one evaluation may take before it is killed (status\n"
    "                       timeout); default 10 + 60 x (m*n*k / 1024^3) x (reps / 10), at most 600\n"
    "  --compile-timeout S  seconds building one program may take (status compile_timeout;\n"
    "                       default 15)\n"
    "  --max-time S         stop starting evaluations after S seconds of wall time, then\n"
    "                       finish as usual (presets, finalists, summary); the next tune\n"
    "                       resumes from the records\n"
    "  --verbose            one line per evaluation on stderr: its status and where its\n"
    "                       time went (compile, upload, run, verify, the rest)\n"
    "  --keep N             phase: outer combinations kept by screening (default 3, 0 all)\n"
    "  --max-draw-ms MS     the longest one draw may run (0: no bound); longer passes are\n"
    "                       drawn in bands (default: GLGEMM_MAX_DRAW_MS, else\n"
    "                       DIR/<card>/draw.txt, else 250)\n"
    "  --finalists N        the N best are measured again, 5 interleaved rounds each, and the\n"
    "                       best file gets the fastest one's median and spread (default 5, 0 off)\n"
    "  Each evaluation: a warm-up, then up to --reps timed runs, stopping after 3 once they\n"
    "  agree within 3%; one whose first two timed runs are over 2x the best time so far stops\n"
    "  there\n"
    "  (screened: still verified and recorded).  Variants whose upper bound from probe.csv\n"
    "  (results/<card>/probe.csv, if there is one) is below the best so far are recorded\n"
    "  as pruned_bound, not run.  One worker process keeps the context, the inputs and the\n"
    "  programs; it is replaced when it crashes or hangs.\n"
    "  --results DIR        where results/<card>/ goes (default results)\n"
    "  problem: --m M --n N --k K | --size S (default 1024), --transa, --transb, --alpha A,\n"
    "           --beta B, --seed S, --reps R (default 10), or --a FILE --b FILE [--c FILE],\n"
    "           --out FILE (accepted; tune writes no C)\n"
    "  --backend egl|glfw|browser, --device N\n"
    "  --browser PATH, --headful  with --backend browser: the Chromium or Chrome to run\n"
    "                 (default /usr/bin/chromium), shown; only profile=300es variants\n"
    "                 are searched (the page's WebGL2), records under\n"
    "                 results/chromium-<gpu>/ (chromium-swiftshader without a GPU)\n"
    "Progress on stderr; the best variant and a summary on stdout.  Records:\n"
    "DIR/<card>/tune-MxNxK.csv (one row per evaluation, kept across runs), best:\n"
    "DIR/<card>/best-MxNxK.txt (store=f32), best-f16-MxNxK.txt (store=f16),\n"
    "best-f16x8-MxNxK.txt (store=f16x8).\n"
    "exit status: 0 a best was found, 1 every variant failed, 2 bad input, 3 no GL context\n";

typedef struct {
    cli_common *c;
    gg_strategy strategy;
    const char *fix;
    long budget;
    bool fresh;
    double timeout;
    const char *results;
    long keep;
    long finalists;
    double compile_timeout;
    double max_time;
    bool verbose;
} tune_opts;

/* A number of seconds in (0, max] for option name, or the usual error. */
static int seconds(tune_opts *o, const char *name, const char *value, double max, double *out)
{
    if (cli_float(value, out) || *out <= 0 || *out > max)
        return cli_error(o->c, "%s must be seconds, more than 0 and at most %.0f, got '%s'", name,
                         max, value);
    return 0;
}

static int handler(void *self, int id, const char *value)
{
    tune_opts *o = self;
    switch (id) {
    case OPT_SEARCH: {
        int s = search_strategy_parse(value);
        if (s < 0)
            return cli_error(o->c, "--search must be phase, exhaustive or random, got '%s'", value);
        o->strategy = (gg_strategy)s;
        return 0;
    }
    case OPT_FIX: o->fix = value; return 0;
    case OPT_BUDGET:
        if (cli_int(value, 1, 100000000, &o->budget))
            return cli_error(o->c, "--budget must be an integer from 1 to 100000000, got '%s'", value);
        return 0;
    case OPT_FRESH: o->fresh = true; return 0;
    case OPT_TIMEOUT: return seconds(o, "--timeout", value, 86400, &o->timeout);
    case OPT_RESULTS:
        if (!*value)
            return cli_error(o->c, "--results needs a folder");
        o->results = value;
        return 0;
    case OPT_FINALISTS:
        if (cli_int(value, 0, GG_FINALISTS_MAX, &o->finalists))
            return cli_error(o->c, "--finalists must be an integer from 0 to %d, got '%s'",
                             GG_FINALISTS_MAX, value);
        return 0;
    case OPT_COMPILE_TIMEOUT: return seconds(o, "--compile-timeout", value, 86400, &o->compile_timeout);
    case OPT_MAX_TIME: return seconds(o, "--max-time", value, 86400 * 30, &o->max_time);
    case OPT_VERBOSE: o->verbose = true; return 0;
    case OPT_KEEP:
        if (cli_int(value, 0, 36, &o->keep))
            return cli_error(o->c, "--keep must be an integer from 0 to 36, got '%s'", value);
        return 0;
    }
    return cli_error(o->c, "internal: unhandled option");
}

/* ---- the evaluation: one worker (eval/evaluator.h) ---- */

/* Screening: a variant whose first timed run is this many times slower
 * than the best so far stops there (measured, verified, recorded). */
#define SCREEN_FACTOR 2.0
/* Repetitions stop early once the reps so far are within this spread. */
#define MIN_REPS 3
#define TIGHT 0.03

typedef struct {
    gg_evaluator *ev;
    gg_search *s;              /* set once the tune is open: its best so far */
    const gg_problem *prob;
    gg_store store;
    double stop_at;            /* --max-time: no evaluation starts after this (0: none) */
    bool out_of_time;
    bool verbose;
    bool finals;               /* the finalists: the full reps, no screening, no early stop */
} tune_eval;

static void trace(const gg_variant *v, const gg_measurement *m, double wall)
{
    char vt[GG_VARIANT_TEXT];
    double in = m->compile_s + m->ahead_s + m->upload_s + m->run_s + m->readback_s + m->verify_s;
    fprintf(stderr, "eval: %s %s %.4g GFLOP/s, %d rep%s%s: compile %.3f%s upload %.3f run %.3f "
                    "read-back+verify %.3f, building ahead %.3f, rest %.3f s\n",
            gen_variant_format(v, vt, sizeof vt), base_status_name(m->status), m->gflops, m->reps,
            m->reps == 1 ? "" : "s", m->screened ? " (screened)" : "", m->compile_s,
            m->program_cached ? " (built ahead)" : "", m->upload_s, m->run_s,
            m->readback_s + m->verify_s, m->ahead_s, wall - in);
}

static void eval_opts(const tune_eval *te, gg_eval_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reps = te->prob->reps;
    if (te->finals)
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
    eval_opts(te, &o);
    double t0 = base_now_s();
    if (eval_evaluator_eval(te->ev, v, &o, out)) {
        fprintf(stderr, "\nglgemm tune: %s\n", out->detail);
        return -1; /* no worker at all: the tool, not the variant */
    }
    if (te->verbose)
        trace(v, out, base_now_s() - t0);
    return 0;
}

/* The warm worker (eval/evaluator.h) where the first draw of a variant is
 * compiled on the CPU, one thread, and a second CPU is there: a software
 * rasteriser (llvmpipe).
 * GLGEMM_WARM_WORKER=1 or 0 decides instead. */
static bool warm_worker(const gg_ctx_info *info)
{
    const char *e = getenv("GLGEMM_WARM_WORKER");
    if (e && (!strcmp(e, "0") || !strcmp(e, "1")))
        return e[0] == '1';
    return info->software && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

static void hint(void *user, const gg_variant *next, int n)
{
    eval_evaluator_hint(user, next, n);
}

/* ---- progress ---- */

static char *duration(double s, char *buf, size_t len)
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
} progress;

static void show(progress *p, const gg_search *s, bool force)
{
    const gg_search_stats *st = search_get_stats(s);
    double t = base_now_s();
    if (!p->tty && !force && t - p->last_print < 5)
        return;
    p->last_print = t;
    long todo = st->planned > st->visited ? st->planned - st->visited : 0;
    double per = p->fresh ? p->eval_time / (double)p->fresh : -1;
    char eta[32], el[32], best[96] = "none yet";
    duration(per >= 0 ? per * (double)todo : -1, eta, sizeof eta);
    duration(t - p->t0, el, sizeof el);
    if (st->have_best)
        snprintf(best, sizeof best, "%.3g GFLOP/s", st->best_outcome.gflops);
    if (p->tty) {
        int width = 24, fill = st->planned ? (int)(width * st->visited / st->planned) : 0;
        char bar[32];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, "\r[%s] %ld/%ld  best %s  %s elapsed  ETA %s   ", bar, st->visited,
                st->planned, best, el, eta);
        p->drawn = true;
    } else {
        fprintf(stderr, "tune: %ld of ~%ld variants (%ld measured, %ld from records), best %s, "
                        "%s elapsed, about %s left\n",
                st->visited, st->planned, st->measured, st->from_memo, best, el, eta);
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
            fprintf(stderr, "tune: %s: %s: %s\n", gen_variant_format(v, vt, sizeof vt),
                    base_status_name(o->status), m->detail);
        }
    } else {
        p->last_fresh = base_now_s();
    }
    show(p, s, false);
}

/* ---- the summary ---- */

static double default_timeout(const gg_problem *p)
{
    double work = (double)p->m * p->n * p->k / (1024.0 * 1024.0 * 1024.0);
    double t = 10 + 60 * work * p->reps / 10.0;
    return t > 600 ? 600 : t;
}

/* The best files also go to the per-user records folder, where the library
 * (glgemm.h) finds them from any folder; a failure there is a warning. */
static void publish_best(const char *results, const char *card, int m, int n, int k)
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
        printf("user records: %s/%s (the library reads them from any folder)\n", user, card);
}

static void print_preset(const char *name, const gg_variant *v, const gg_outcome *o, double best)
{
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    double g = search_outcome_score(o);
    if (g > 0)
        printf("vs %-9s  %.2fx  (%s: %.3f GFLOP/s)\n", name, best / g, vt, g);
    else
        printf("vs %-9s  -      (%s: %s)\n", name, vt, base_status_name(o->status));
}

int cmd_tune(int argc, char **argv)
{
    cli_common c = {.cmd = "tune"};
    tune_opts o = {.c = &c, .strategy = GG_SEARCH_PHASE, .results = "results", .keep = 3,
                   .finalists = 5};
    int rc = cli_parse(argc, argv, &c, own_opts, handler, &o, true, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (c.npositional)
        return cli_error(&c, "unexpected argument '%s' (try glgemm tune --help)", c.positional[0]);
    if (c.prob.out_path)
        return cli_error(&c, "--out is not an option of tune (use glgemm run)");
    if ((rc = cli_check_problem(&c)))
        return rc;
    if (o.strategy == GG_SEARCH_RANDOM && o.budget < 1)
        return cli_error(&c, "--search random needs --budget N");
    char err[512];
    gg_fix fix;
    if (search_fix_parse(o.fix, &fix, err, sizeof err))
        return cli_error(&c, "%s", err);

    double t0 = base_now_s();
    gg_inputs in;
    if (base_inputs_make(&c.prob, &in, err, sizeof err))
        return cli_error(&c, "%s", err);
    c.prob.m = in.m; /* files decide the shape */
    c.prob.n = in.n;
    c.prob.k = in.k;
    gg_reference ref = {0};
    int status = EXIT_GPU;
    gg_tune *t = NULL;
    gg_evaluator *ev = NULL;
    /* The store is held (f32 unless --fix store=f16): one reference, of the
     * inputs as that store's textures hold them, made before the worker
     * forks (it reads it copy-on-write). */
    if (base_reference_compute_store(&in, c.prob.alpha, c.prob.beta, fix.v.store, &ref, err,
                                   sizeof err)) {
        status = cli_error(&c, "%s", err);
        goto out;
    }
    gg_evaluator_config ecfg = {
        .backend = c.backend, .device = c.device, .prob = &c.prob, .in = &in, .ref = &ref,
        .timeout_s = o.timeout > 0 ? o.timeout : default_timeout(&c.prob),
        .compile_timeout_s = o.compile_timeout,
        .max_draw_set = c.max_draw_set, .max_draw_ms = c.max_draw_ms, .results = o.results,
    };
    if (!(ev = eval_evaluator_new(&ecfg, err, sizeof err))) {
        fprintf(stderr, "glgemm tune: %s\n", err);
        goto out;
    }

    /* The device: slug and limits, from the worker's contexts (kept for
     * the evaluations). */
    gg_device_info dev;
    if (eval_evaluator_device(ev, &dev, err, sizeof err)) {
        fprintf(stderr, "glgemm tune: asking the device for its limits failed: %s\n", err);
        status = EXIT_NOCTX;
        goto out;
    }
    int first = -1;
    for (int p = 2; p >= 0; p--)
        if (dev.ok[host_ctx_kind_for((gg_profile)p)])
            first = p;
    if (first < 0) {
        fprintf(stderr, "glgemm tune: %s\n", dev.err[host_ctx_kind_for(GG_PROFILE_330)]);
        status = dev.no_device ? EXIT_USAGE : EXIT_NOCTX;
        goto out;
    }
    char slug[GG_CARD_MAX];
    const gg_ctx_info *card_info = &dev.info[host_ctx_kind_for((gg_profile)first)];
    base_slug(card_info->renderer, slug, sizeof slug);

    gg_tune_config tc;
    memset(&tc, 0, sizeof tc);
    tc.results_dir = o.results;
    tc.card = slug;
    tc.fresh = o.fresh;
    search_config_default(&tc.search, in.m, in.n, in.k);
    for (int p = 0; p < GG_PROFILE_COUNT; p++) {
        gg_ctx_kind kind = host_ctx_kind_for((gg_profile)p);
        tc.search.profile_ok[p] = dev.ok[kind];
        if (dev.ok[kind])
            host_ctx_limits(&dev.info[kind], &tc.search.lim[p]);
    }
    tc.search.fix = fix;
    tc.search.strategy = o.strategy;
    tc.search.budget = o.budget;
    tc.search.seed = c.prob.seed;
    tc.search.screen_keep = (int)o.keep;
    tune_eval te = {.ev = ev, .prob = &c.prob, .store = fix.v.store, .verbose = o.verbose,
                    .stop_at = o.max_time > 0 ? t0 + o.max_time : 0};
    tc.search.eval = evaluate;
    tc.search.user = &te;
    tc.search.hint = hint;
    tc.search.hint_user = ev;
    bool warm = warm_worker(card_info);
    eval_evaluator_warm(ev, warm);
    /* The bound: the card's probe, when there is one. */
    static gg_probe_result probe;
    gg_bound_user bu = {&probe, in.m, in.n, in.k};
    char perr[512];
    bool have_probe = search_bound_load(o.results, slug, &probe, perr, sizeof perr) == 0;
    if (have_probe) {
        tc.search.bound = search_bound_search_fn;
        tc.search.bound_user = &bu;
    }
    progress pg = {.tty = isatty(2), .t0 = t0, .last_print = base_now_s(), .last_fresh = base_now_s()};
    tc.progress = on_point;
    tc.progress_user = &pg;

    gg_records_info info;
    t = search_tune_open(&tc, &info, err, sizeof err);
    if (!t) {
        status = cli_error(&c, "%s", err);
        goto out;
    }
    gg_search *s = search_tune_search(t);
    te.s = s;
    char fixt[256];
    search_fix_format(&fix, fixt, sizeof fixt);
    fprintf(stderr, "tune: %s search on %s (%s), %dx%dx%d, up to %d reps, timeout %.0f s per "
                    "evaluation%s%s\n",
            search_strategy_name(o.strategy), slug, card_info->renderer, in.m, in.n, in.k, c.prob.reps,
            ecfg.timeout_s, fixt[0] ? ", --fix " : "", fixt);
    if (!have_probe)
        fprintf(stderr, "tune: no bound pruning: %s (glgemm probe writes it)\n", perr);
    if (info.moved_aside)
        fprintf(stderr, "tune: --fresh: the old records went to %s\n", info.old_path);
    else if (info.rows)
        fprintf(stderr, "tune: resuming: %ld variants already in %s are not measured again\n",
                info.rows, search_tune_records_path(t));

    int run = search_tune_run(t);
    if (pg.drawn)
        fputc('\n', stderr);
    pg.drawn = false;
    gg_search_stats st = *search_get_stats(s); /* the search's own, before the presets */
    if (run && te.out_of_time) {
        fprintf(stderr, "tune: --max-time %.0f s reached: the search stopped here (run the same "
                        "tune again to resume from the records)\n", o.max_time);
        te.stop_at = 0; /* the presets and finalists still run */
        search_clear_stop(s);
        run = 0;
    }
    if (run) {
        fprintf(stderr, "glgemm tune: stopped: %s\n",
                search_tune_error(t)[0] ? search_tune_error(t) : "no evaluation worker could be made");
        status = EXIT_GPU;
        goto out;
    }

    /* The presets on the same problem, recorded like the rest. */
    gg_variant nvs, nvm;
    gg_outcome os, om;
    gen_variant_parse("nv-single", NULL, &nvs, err, sizeof err);
    gen_variant_parse("nv-multi", NULL, &nvm, err, sizeof err);
    if (c.backend == GG_BACKEND_BROWSER) /* WebGL2 runs GLSL ES 3.00 only, as bench's rows */
        nvs.profile = nvm.profile = GG_PROFILE_300ES;
    if (search_tune_visit(t, &nvs, &os) || search_tune_visit(t, &nvm, &om) || search_tune_finish(t)) {
        fprintf(stderr, "glgemm tune: stopped: %s\n", search_tune_error(t));
        status = EXIT_GPU;
        goto out;
    }
    if (pg.drawn)
        fputc('\n', stderr);
    pg.drawn = false;

    /* The finalists, measured again side by side: the best file gets their
     * median, not the luckiest single measurement. */
    gg_finalist fin[GG_FINALISTS_MAX];
    int nfin = 0;
    if (o.finalists > 0) {
        fprintf(stderr, "tune: re-measuring the %ld best, %d interleaved rounds\n", o.finalists,
                FINALIST_ROUNDS);
        te.finals = true;
        nfin = search_tune_finalists(t, fix.v.store, (int)o.finalists, FINALIST_ROUNDS, evaluate, &te,
                                 fin);
        if (nfin < 0) {
            fprintf(stderr, "glgemm tune: stopped: %s\n", search_tune_error(t));
            status = EXIT_GPU;
            goto out;
        }
    }
    bool have_best = nfin > 0 ? fin[0].status == GG_OK : st.have_best;

    char vt[GG_VARIANT_TEXT], el[32];
    if (nfin > 0 && fin[0].status == GG_OK) {
        printf("best: %s\n", gen_variant_format(&fin[0].v, vt, sizeof vt));
        printf("gflops: %.3f  (median of %d interleaved re-measurements, %.6f s, spread %.1f%%; "
               "first measured at %.3f)\n",
               fin[0].gflops, fin[0].rounds, fin[0].seconds, 100 * fin[0].spread, fin[0].recorded);
    } else if (st.have_best) {
        printf("best: %s\n", gen_variant_format(&st.best, vt, sizeof vt));
        printf("gflops: %.3f  (%.6f s, %d pass%s, rel_err %.3g)\n", st.best_outcome.gflops,
               st.best_outcome.seconds, st.best_outcome.passes, st.best_outcome.passes == 1 ? "" : "es",
               st.best_outcome.rel_err);
    } else {
        printf("best: none: every variant failed\n");
    }
    printf("problem: %dx%dx%d on %s, up to %d reps per evaluation\n", in.m, in.n, in.k, slug,
           c.prob.reps);
    printf("search: %s%s%s: %ld variants: %ld measured now, %ld from the records\n",
           search_strategy_name(o.strategy), fixt[0] ? ", --fix " : "", fixt, st.visited, st.measured,
           st.from_memo);
    if (te.out_of_time)
        printf("stopped: --max-time %.0f s reached after %ld of ~%ld variants; run again to "
               "resume\n", o.max_time, st.visited, st.planned);
    printf("status:");
    for (int i = 0; i < GG_STATUS_COUNT; i++)
        if (st.by_status[i])
            printf(" %s %ld", base_status_name((gg_status)i), st.by_status[i]);
    printf("\n");
    if (pg.screened)
        printf("screened: %ld variants stopped after two timed runs (slower than %.0fx the best so "
               "far's time)\n", pg.screened, SCREEN_FACTOR);
    for (int i = 0; i < nfin; i++) {
        gen_variant_format(&fin[i].v, vt, sizeof vt);
        if (fin[i].status == GG_OK)
            printf("finalist %d: %s  %.3f GFLOP/s (median of %d, spread %.1f%%; recorded %.3f)\n",
                   i + 1, vt, fin[i].gflops, fin[i].rounds, 100 * fin[i].spread, fin[i].recorded);
        else
            printf("finalist %d: %s  out: %s on re-measuring (recorded %.3f)\n", i + 1, vt,
                   base_status_name(fin[i].status), fin[i].recorded);
    }
    double best_g = nfin > 0 && fin[0].status == GG_OK ? fin[0].gflops : st.best_outcome.gflops;
    if (have_best) {
        print_preset("nv-single", &nvs, &os, best_g);
        print_preset("nv-multi", &nvm, &om, best_g);
    }
    gg_variant all_best;
    gg_outcome all_o;
    if (search_memo_best_store(s, (int)fix.v.store, &all_best, &all_o) &&
        !search_fix_matches(&fix, &all_best) && search_outcome_score(&all_o) > best_g) {
        printf("best of all records: %s, %.3f GFLOP/s (outside this search; written as best)\n",
               gen_variant_format(&all_best, vt, sizeof vt), all_o.gflops);
    }
    for (int i = 0; i < search_nnotes(s); i++)
        printf("note: %s\n", search_note(s, i));
    printf("records: %s\n", search_tune_records_path(t));
    publish_best(o.results, slug, in.m, in.n, in.k);
    const gg_evaluator_stats *es = eval_evaluator_get_stats(ev);
    double wall = base_now_s() - t0;
    double inside = es->compile_s + es->upload_s + es->run_s + es->readback_s + es->verify_s;
    printf("time: %s wall for %ld evaluations (%ld in the search, %ld presets and finalists): "
           "compile %.1f s, upload %.1f s, run %.1f s, read-back %.1f s, verify %.1f s, "
           "other %.1f s (workers, reference, records)\n",
           duration(wall, el, sizeof el), es->evaluations, st.measured - st.bound_pruned,
           es->evaluations - (st.measured - st.bound_pruned), es->compile_s,
           es->upload_s, es->run_s, es->readback_s, es->verify_s, wall - inside);
    printf("evaluator: %ld worker%s started, %ld lost, %ld timeouts, %ld compile timeouts (%ld of "
           "them not built: larger than one that timed out); %ld programs built ahead or reused; "
           "warm worker %s\n",
           es->workers, es->workers == 1 ? "" : "s", es->lost, es->timeouts, es->compile_timeouts,
           es->predicted, es->programs_cached, warm ? "on" : "off");
    if (warm)
        printf("warm worker: %ld variants handed to it, %ld built and run ahead, %ld warm "
               "worker%s lost\n", es->warmed, es->warm_done, es->warm_lost,
               es->warm_lost == 1 ? "" : "s");
    printf("wall time: %s\n", duration(wall, el, sizeof el));
    status = have_best ? 0 : EXIT_GPU;
out:
    fflush(stdout);
    search_tune_close(t);
    eval_evaluator_free(ev);
    base_reference_free(&ref);
    base_inputs_free(&in);
    return status;
}
