/* glgemm report [problem] [--results DIR] [--card SLUG] [--no-sweep]
 *               [--sweep-np N]: results/<card>/report.md and its figures.
 *
 * On this machine's card (no --card) report first measures what the files
 * lack (report/report.h's report_measure; every GL step in a child
 * process, eval/gpu.h):
 *  - the dense np sweep of Figure 7b: np = 1 .. min(N, k-steps) (N 64 by
 *    default) for two (mc, mrt) pairs (report_sweep_pairs), visited
 *    through the tuner (search/tune.h), so the points land in the tuning
 *    records and are never measured twice (--no-sweep skips it);
 *  - bench, when bench-MxNxK.csv is missing or its best, best-f16 or
 *    best-f16x8 row is not the recorded best (best-MxNxK.txt,
 *    best-f16-MxNxK.txt, best-f16x8-MxNxK.txt);
 *  - the dips of the sweep's curves a second time (dips-MxNxK.csv);
 *  - probe, when probe.csv is missing;
 *  - environment.txt: the context's strings and limits, the CPU.
 * With --card SLUG it measures nothing and writes the report of that card
 * from its files alone (any machine, no GL needed); --measure-only does the
 * measuring and stops (no gnuplot needed: a GPU machine without it).
 * gnuplot is checked before anything is measured: without it, one line and
 * exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/cpublas.h"
#include "eval/gpu.h"
#include "store/records.h"
#include "report/report.h"

enum { OPT_RESULTS = 1, OPT_CARD, OPT_NOSWEEP, OPT_SWEEPNP, OPT_MEASURE, OPT_MD };

typedef struct {
    cli_common c;
    const char *results;
    const char *card;
    bool no_sweep, measure_only;
    const char *md;
    int sweep_np;
} report_args;

static const cli_opt own_opts[] = {
    {"results", 1, OPT_RESULTS}, {"card", 1, OPT_CARD}, {"no-sweep", 0, OPT_NOSWEEP},
    {"sweep-np", 1, OPT_SWEEPNP}, {"measure-only", 0, OPT_MEASURE}, {"md", 1, OPT_MD},
    {NULL, 0, 0},
};

static const char usage[] =
    "usage: glgemm report [--m M --n N --k K | --size S] [--results DIR] [--card SLUG]\n"
    "                     [--no-sweep] [--sweep-np N] [--measure-only] [--md NAME] [--reps R]\n"
    "  Writes DIR/<card>/report.md and the paper's Figures 5, 7 and 8 for this card\n"
    "  (SVG, drawn with gnuplot) from the tuning records, bench-MxNxK.csv and probe.csv.\n"
    "  On this machine's card it first measures what is missing: a dense np sweep\n"
    "  (np 1..N for two (mc, mrt) pairs, appended to the tuning records), bench (when\n"
    "  missing or not running the recorded best, best-f16 and best-f16x8), probe (when\n"
    "  missing).\n"
    "  --results DIR  the results folder (default results)\n"
    "  --card SLUG    report on that card's files only, measuring nothing (no GL)\n"
    "  --no-sweep     do not run the dense np sweep\n"
    "  --md NAME      the report's file name in DIR/<card>/ (default report.md), e.g.\n"
    "                 report-4096x4096x4096.md for a card's second problem size\n"
    "  --measure-only measure what is missing and stop: no report.md, no figures, no\n"
    "                 gnuplot needed (a GPU machine without gnuplot; then run\n"
    "                 glgemm report --card SLUG where gnuplot is)\n"
    "  --sweep-np N   the sweep's largest np (default 64)\n"
    "  --reps R       timed repetitions of each measured GEMM (default 10)\n"
    "  --m M --n N --k K | --size S  the problem (default 1024 each); the other\n"
    "                 problem options (--transa, --transb, --alpha, --beta, --seed,\n"
    "                 --a, --b, --c, --out) are accepted as by run\n"
    "  --backend egl|glfw, --device N, --browser PATH, --headful, --angle A  the common\n"
    "                 options (glgemm --help)\n"
    "exit status: 0 ok, 1 a measurement failed, 2 bad input (no records, no gnuplot),\n"
    "             3 no GL context\n";

static int handler(void *self, int id, const char *value)
{
    report_args *a = self;
    long x;
    switch (id) {
    case OPT_RESULTS:
        if (!*value)
            return cli_error(&a->c, "--results needs a folder name");
        a->results = value;
        return 0;
    case OPT_CARD: return cli_card_option(&a->c, value, &a->card);
    case OPT_NOSWEEP:
        a->no_sweep = true;
        return 0;
    case OPT_MEASURE:
        a->measure_only = true;
        return 0;
    case OPT_MD: {
        size_t n = strlen(value);
        if (n < 4 || n > 80 || strcmp(value + n - 3, ".md") || strspn(value,
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != n)
            return cli_error(&a->c, "--md must be a file name ending in .md (letters, digits, '-', "
                                    "'_', '.'), got '%s'", value);
        a->md = value;
        return 0;
    }
    case OPT_SWEEPNP:
        if (cli_int(value, 1, 4096, &x))
            return cli_error(&a->c, "--sweep-np must be an integer from 1 to 4096, got '%s'",
                             value);
        a->sweep_np = (int)x;
        return 0;
    }
    return cli_error(&a->c, "internal: unhandled option %d", id);
}

static void fill_env(gg_report_env *e, const report_args *a, const gg_ctx_info *info)
{
    memset(e, 0, sizeof *e);
    e->have = true;
    snprintf(e->renderer, sizeof e->renderer, "%s", info->renderer);
    snprintf(e->vendor, sizeof e->vendor, "%s", info->vendor);
    snprintf(e->version, sizeof e->version, "%s", info->version);
    snprintf(e->glsl, sizeof e->glsl, "%s", info->glsl);
    snprintf(e->backend, sizeof e->backend, "%s", host_backend_name(a->c.backend));
    e->device = a->c.device;
    e->max_draw_buffers = info->max_draw_buffers;
    e->max_texture_size = info->max_texture_size;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    e->nproc = cpus > 0 ? (int)cpus : 1;
    e->blas_threads = e->nproc; /* cpublas runs OpenBLAS on every online CPU */
    base_cpu_model(e->cpu, sizeof e->cpu);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->written, sizeof e->written, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cmd_report(int argc, char **argv)
{
    report_args a = {.c = {.cmd = "report"}, .results = "results"};
    int rc = cli_parse(argc, argv, &a.c, own_opts, handler, &a, true, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.c.npositional)
        return cli_error(&a.c, "takes no arguments, got '%s' (the problem is --m/--n/--k or "
                               "--size)", a.c.positional[0]);
    if (a.c.prob.a_path || a.c.prob.b_path || a.c.prob.c_path || a.c.prob.out_path)
        return cli_error(&a.c, "reports are per problem size: use --m/--n/--k or --size, not "
                               "--a/--b/--c/--out");
    if ((rc = cli_check_problem(&a.c)))
        return rc;
    char err[1024];
    if (a.measure_only && a.card)
        return cli_error(&a.c, "--measure-only measures this machine's card: it takes no --card");
    if (!a.measure_only && report_gnuplot_check(NULL, err, sizeof err))
        return cli_error(&a.c, "%s", err);

    char slug[GG_CARD_MAX], measured[512] = "";
    if (a.card) {
        snprintf(slug, sizeof slug, "%s", a.card);
    } else {
        gg_ctx_info info[3];
        bool ok[3], no_device = false;
        if (eval_gpu_info_all(a.c.backend, a.c.device, info, ok, err, sizeof err, &no_device)) {
            fprintf(stderr, "glgemm report: %s\n", err);
            return no_device ? EXIT_USAGE : EXIT_NOCTX;
        }
        const gg_ctx_info *any = ok[GG_CTX_CORE] ? &info[GG_CTX_CORE]
                                 : ok[GG_CTX_COMPAT] ? &info[GG_CTX_COMPAT]
                                                     : &info[GG_CTX_ES3];
        base_slug(any->renderer, slug, sizeof slug);
        char path[1100];
        store_records_file(path, sizeof path, a.results, slug, a.c.prob.m, a.c.prob.n, a.c.prob.k);
        if (access(path, F_OK) != 0)
            return cli_error(&a.c, "no tuning records for %s at %dx%dx%d (%s): run glgemm tune "
                                   "--m %d --n %d --k %d first", slug, a.c.prob.m, a.c.prob.n,
                             a.c.prob.k, path, a.c.prob.m, a.c.prob.n, a.c.prob.k);
        gg_report_measure_opts mo = {a.results, slug, a.c.backend, a.c.device, &a.c.prob,
                                     a.no_sweep, a.sweep_np};
        rc = report_measure(&mo, info, ok, measured, sizeof measured, err, sizeof err);
        if (rc == -1)
            return cli_error(&a.c, "%s", err);
        if (rc) {
            fprintf(stderr, "glgemm report: %s\n", err);
            return EXIT_GPU;
        }
        gg_report_env env;
        fill_env(&env, &a, any);
        store_environment_path(path, sizeof path, a.results, slug);
        if (report_env_write(path, &env, err, sizeof err))
            return cli_error(&a.c, "%s", err);
        if (a.measure_only) {
            printf("report: measured %s; write the report with glgemm report --card %s --m %d "
                   "--n %d --k %d\n",
                   measured[0] ? measured : "nothing (nothing was missing)", slug, a.c.prob.m,
                   a.c.prob.n, a.c.prob.k);
            return 0;
        }
    }

    static gg_report_data d;
    if (report_load(a.results, slug, a.c.prob.m, a.c.prob.n, a.c.prob.k, &d, err, sizeof err))
        return cli_error(&a.c, "%s", err);
    gg_findings f;
    if (report_analyse(&d, &f)) {
        report_data_free(&d);
        return cli_error(&a.c, "out of memory");
    }
    /* The command line, as the report quotes it. */
    char command[1024] = "glgemm";
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(command);
        snprintf(command + l, sizeof command - l, " %s", argv[i]);
    }
    gg_report_opts o = {a.results, command, NULL, measured, a.md};
    rc = report_write(&d, &f, &o, err, sizeof err);
    report_findings_free(&f);
    report_data_free(&d);
    if (rc)
        return cli_error(&a.c, "%s", err);
    char path[1200];
    printf("report: wrote %s\n", store_card_file(path, sizeof path, a.results, slug,
                                              a.md ? a.md : GG_REPORT_MD));
    return 0;
}
