/* glgemm tune: the search (search/) over real evaluations, through the
 * device pool (eval/pool.h: one evaluator in place for one device; with
 * --devices one a device, hinted points measured on idle ones).
 *
 * Order: options, --fix and the inputs are checked before any GL (bad input
 * is exit 2 with no context).  The parent then prepares each problem's
 * inputs and double-precision reference once (--sizes: several) and holds
 * no GL context: the pool's workers tell their devices' slugs and limits
 * (each context kind) and then run every evaluation.  Devices of one card
 * share a tune of each problem; the tunes run at once, one thread each
 * (cli/tune_one.c: the session of eval/session.h, its progress and its
 * summary), then a line per device.  In glgemm-mpi, ranks other than 0
 * serve their devices instead (cli/devices.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tune.h"
#include "base/clock.h"
#include "eval/session.h"
#include "search/tune.h"

enum {
    OPT_SEARCH = 1, OPT_FIX, OPT_BUDGET, OPT_FRESH, OPT_TIMEOUT, OPT_RESULTS, OPT_KEEP,
    OPT_FINALISTS, OPT_COMPILE_TIMEOUT, OPT_MAX_TIME, OPT_VERBOSE, OPT_SIZES
};

static const cli_opt own_opts[] = {
    {"search", 1, OPT_SEARCH}, {"fix", 1, OPT_FIX},         {"budget", 1, OPT_BUDGET},
    {"fresh", 0, OPT_FRESH},   {"timeout", 1, OPT_TIMEOUT}, {"results", 1, OPT_RESULTS},
    {"keep", 1, OPT_KEEP},     {"finalists", 1, OPT_FINALISTS},
    {"compile-timeout", 1, OPT_COMPILE_TIMEOUT}, {"max-time", 1, OPT_MAX_TIME},
    {"verbose", 0, OPT_VERBOSE}, {"max-draw-ms", 1, OPT_MAX_DRAW}, {"devices", 1, OPT_DEVICES},
    {"sizes", 1, OPT_SIZES}, {NULL, 0, 0},
};

static const char usage[] =
    "usage: glgemm tune [problem options] [--search phase|exhaustive|random] [--fix PAIRS]\n"
    "                   [--budget N] [--fresh] [--timeout S] [--compile-timeout S] [--keep N]\n"
    "                   [--finalists N] [--max-time S] [--verbose] [--results DIR]\n"
    "                   [--max-draw-ms MS] [--devices LIST|all|local] [--sizes S1,S2,...]\n"
    "  Searches the variants for the fastest verified one on this device and problem.\n"
    "  --search phase       (default) the paper's: screening of the outer keys (compiler,\n"
    "                       profile, unroll, acc: one representative each, the best kept),\n"
    "                       then for each kept: np over powers of two x mc {1x1,1x2,1x4,2x2,4x1}\n"
    "                       x mrt {1x1,1x2,1x4,2x2,1x8,2x4,4x2}, then Algorithm 1 for np;\n"
    "                       then the other fetch paths on the best point, and out=image\n"
    "                       blocks (mc {1x4,2x2,4x1} x blk 4x8 .. 16x16 x the two fastest\n"
    "                       paths x np {all, the best}) with Algorithm 1 on the best block;\n"
    "                       store=f64, dd, df: mc {2x1,1x2,1x1} x blk 4x8 .. 16x8 and 10x8\n"
    "           exhaustive  every variant the card and --fix allow: every mrt RxC (R*C <=\n"
    "                       draw buffers), every mc (R*C <= 4), every np 1..k-steps\n"
    "           random      --budget N variants of the exhaustive space, seeded by --seed\n"
    "  --fix PAIRS          hold keys, e.g. --fix profile=300es,acc=blend or out=image; store is\n"
    "                       always held: f32 unless --fix store=f16, f16x8, f64, dd or df\n"
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
    "  as pruned_bound, not run.  One worker process a device keeps the context, the inputs\n"
    "  and the programs; it is replaced when it crashes or hangs.\n"
    "  --devices LIST|all   one worker per EGL device listed (0,1 or all; a device listed\n"
    "                       twice gets two workers; local: the device numbered as this\n"
    "                       rank on its host, for glgemm-mpi): the points the search will\n"
    "                       look at next are measured on idle devices; devices of one card\n"
    "                       share one tune, other cards tune side by side into their own\n"
    "                       DIR/<card>/; a line per device at the end\n"
    "  --sizes S1,S2,...    tune these square sizes (instead of --size): with several devices\n"
    "                       all at once, spread over them; on one, one after another\n"
    "  --results DIR        where results/<card>/ goes (default results)\n"
    "  problem: --m M --n N --k K | --size S (default 1024), --transa, --transb, --alpha A,\n"
    "           --beta B, --seed S, --reps R (default 10), or --a FILE --b FILE [--c FILE],\n"
    "           --out FILE (accepted; tune writes no C)\n"
    "  --backend egl|glfw|browser, --device N\n"
    "  --browser PATH, --headful  with --backend browser: the Chromium or Chrome to run\n"
    "                 (default /usr/bin/chromium), shown; only profile=300es variants\n"
    "                 are searched (the page's WebGL2), records under\n"
    "                 results/chromium-<gpu>-<backend>/ (chromium-swiftshader without a GPU)\n"
    "  --angle A      with --backend browser: ANGLE's backend, default, vulkan, gl-egl\n"
    "                 or swiftshader (each its own card)\n"
    "Progress on stderr; the best variant and a summary on stdout.  Records:\n"
    "DIR/<card>/tune-MxNxK.csv (one row per evaluation, kept across runs), best:\n"
    "DIR/<card>/best-MxNxK.txt (store=f32), best-f16-MxNxK.txt (store=f16),\n"
    "best-f16x8-MxNxK.txt (store=f16x8).\n"
    "exit status: 0 a best was found, 1 every variant failed, 2 bad input, 3 no GL context\n";


/* A number of seconds in (0, max] for option name, or the usual error. */
static int seconds(tune_opts *o, const char *name, const char *value, double max, double *out)
{
    if (cli_float(value, out) || *out <= 0 || *out > max)
        return cli_error(o->c, "%s must be seconds, more than 0 and at most %.0f, got '%s'", name,
                         max, value);
    return 0;
}

/* --sizes 256,512,...: square sizes, at most 16. */
static int sizes(tune_opts *o, const char *value)
{
    int max = (int)(sizeof o->sizes / sizeof *o->sizes);
    o->nsizes = cli_int_list(value, 1, 1L << 20, o->sizes, max);
    if (o->nsizes == -2)
        return cli_error(o->c, "--sizes names more than %d sizes", max);
    if (o->nsizes < 0)
        return cli_error(o->c, "--sizes must be sizes from 1 to %ld separated by commas "
                               "(256,512,...), got '%s'", 1L << 20, value);
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
    case OPT_FIX: o->fix_text = value; return 0;
    case OPT_SIZES: return sizes(o, value);
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

/* ---- the tunes ---- */

/* Several tunes at once: each in a thread, its summary printed whole when
 * it ends. */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *tune_thread(void *arg)
{
    tune_job *j = arg;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    j->out = mem ? mem : stdout;
    (void)tune_one(j); /* its status is j->status */
    if (mem) {
        fclose(mem);
        pthread_mutex_lock(&out_lock);
        printf("== %s\n%s", j->name, text ? text : "");
        fflush(stdout);
        pthread_mutex_unlock(&out_lock);
        free(text);
    }
    return NULL;
}

/* The line of each device: what it measured for whom, and where the time went. */
static void device_lines(gg_pool *pool, double wall)
{
    for (int i = 0; i < eval_pool_nslots(pool); i++) {
        gg_pool_slot_stats st;
        eval_pool_slot_stats(pool, i, &st);
        const gg_pool_slot *s = eval_pool_slot(pool, i);
        char label[64], slug[GG_CARD_MAX] = "?";
        if (s->ok)
            base_slug(s->info.info[host_ctx_kind_for(GG_PROFILE_330)].renderer, slug, sizeof slug);
        printf("device: %s (%s): %ld evaluations (%ld asked, %ld ahead of the search: %ld of them "
               "used), busy %.1f s of %.1f s",
               eval_pool_slot_label(pool, i, label, sizeof label), slug, st.evaluations, st.asked,
               st.speculative, st.used, st.busy_s, wall);
        if (s->rank == 0)
            printf("; %ld worker%s started, %ld lost, %ld timeouts", st.workers,
                   st.workers == 1 ? "" : "s", st.worker_lost, st.timeouts);
        else
            printf("; %ld messages, %.0f bytes sent, %.0f received, %.2f ms added an evaluation%s",
                   st.messages, st.sent_bytes, st.recv_bytes,
                   st.evaluations ? 1e3 * st.overhead_s / (double)st.evaluations : 0.0,
                   st.lost ? "; dropped: it did not answer" : "");
        printf("\n");
    }
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
    if (o.nsizes && c.problem_given)
        return cli_error(&c, "--sizes takes the place of --size, --m, --n, --k, --a and --b");
    if ((rc = cli_check_problem(&c)))
        return rc;
    if (o.strategy == GG_SEARCH_RANDOM && o.budget < 1)
        return cli_error(&c, "--search random needs --budget N");
    char err[512];
    if (search_fix_parse(o.fix_text, &o.fix, err, sizeof err))
        return cli_error(&c, "%s", err);

    double t0 = base_now_s();
    int np = o.nsizes ? o.nsizes : 1;
    gg_tune_problem *pr = calloc((size_t)np, sizeof *pr);
    gg_evaluator_config *ecfg = calloc((size_t)np, sizeof *ecfg);
    tune_job *jobs = NULL;
    pthread_t *th = NULL;
    gg_pool *pool = NULL;
    cli_cards *cards = NULL;
    int status = EXIT_GPU, njobs = 0;
    if (!pr || !ecfg) {
        fprintf(stderr, "glgemm tune: out of memory\n");
        goto out;
    }
    /* Each problem's inputs and reference (eval/session.h), made before
     * the workers fork. */
    for (int q = 0; q < np; q++) {
        gg_problem asked = c.prob;
        if (o.nsizes)
            asked.m = asked.n = asked.k = o.sizes[q];
        if (eval_session_problem(&pr[q], &asked, o.fix.v.store, err, sizeof err)) {
            status = cli_error(&c, "%s", err);
            goto out;
        }
        ecfg[q] = (gg_evaluator_config){
            .backend = c.backend, .device = c.device, .prob = &pr[q].prob, .in = &pr[q].in,
            .ref = &pr[q].ref,
            .timeout_s = eval_session_timeout(&pr[q].prob, o.timeout),
            .compile_timeout_s = o.compile_timeout,
            .max_draw_set = c.max_draw_set, .max_draw_ms = c.max_draw_ms, .results = o.results,
        };
    }
    rc = cli_pool_open(&c, ecfg, np, &pool);
    if (rc) {
        status = rc == CLI_SERVED ? 0 : rc;
        goto out;
    }

    /* The cards: slots of one slug share the tunes of each problem. */
    int ns = eval_pool_nslots(pool);
    cards = malloc(sizeof *cards);
    if (!cards) {
        fprintf(stderr, "glgemm tune: out of memory\n");
        goto out;
    }
    if ((rc = cli_pool_cards(&c, pool, -1, "asking the device for its limits failed: ", cards))) {
        status = rc;
        goto out;
    }
    int ncards = cards->n;
    jobs = calloc((size_t)(ncards * np), sizeof *jobs);
    th = calloc((size_t)(ncards * np), sizeof *th);
    if (!jobs || !th) {
        fprintf(stderr, "glgemm tune: out of memory\n");
        goto out;
    }
    for (int g = 0; g < ncards; g++)
        for (int q = 0; q < np; q++) {
            tune_job *j = &jobs[njobs++];
            j->o = &o;
            j->prob = &pr[q].prob;
            j->timeout_s = ecfg[q].timeout_s;
            j->pool = pool;
            j->client = eval_pool_client(pool, q, ns > 1 ? cards->mask[g] : 0);
            j->ndevices = cards->count[g];
            j->slug = cards->slug[g];
            j->dev = &eval_pool_slot(pool, cards->first[g])->info;
            j->card_info = &j->dev->info[cards->kind[g]];
            j->t0 = t0;
            j->out = stdout;
            snprintf(j->name, sizeof j->name, "%.60s %dx%dx%d", cards->slug[g], pr[q].prob.m, pr[q].prob.n,
                     pr[q].prob.k);
            if (j->client < 0) {
                fprintf(stderr, "glgemm tune: out of memory\n");
                goto out;
            }
        }
    /* One tune in this thread, as ever, and so are several on one device
     * (one after another: no thread); several devices: the tunes at once,
     * a thread each (a device may serve several: asked points go first). */
    status = 0;
    if (njobs == 1 || ns == 1) {
        for (int i = 0; i < njobs; i++) {
            jobs[i].several = njobs > 1;
            if (njobs > 1)
                printf("== %s\n", jobs[i].name);
            status = cli_status_merge(status, tune_one(&jobs[i]));
        }
    } else {
        int made = 0;
        for (; made < njobs; made++) {
            jobs[made].several = true;
            if (pthread_create(&th[made], NULL, tune_thread, &jobs[made])) {
                fprintf(stderr, "glgemm tune: cannot make a thread for %s\n", jobs[made].name);
                jobs[made].status = EXIT_GPU;
                break;
            }
        }
        for (int i = 0; i < made; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < njobs; i++)
            status = cli_status_merge(status, jobs[i].status);
    }
    if (ns > 1)
        device_lines(pool, base_now_s() - t0);
out:
    fflush(stdout);
    eval_pool_free(pool);
    for (int q = 0; pr && q < np; q++)
        eval_session_problem_free(&pr[q]);
    free(cards);
    free(jobs);
    free(th);
    free(ecfg);
    free(pr);
    return status;
}
