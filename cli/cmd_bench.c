/* glgemm bench [problem] [--csv] [--results DIR]: in one run, on the same
 * inputs, the presets larsen, nv-multi, nv-single, tfjs, the card's recorded
 * best, best-image (the fastest out=image variant of the tuning records),
 * best-f16, best-f16x8, the wide stores' best-f64 and best-df (the card's
 * records, else eval/bench.h's defaults), the CPU's BLAS sgemm and dgemm
 * (OpenBLAS, all cores), each verified, with GFLOP/s and the ratio to the
 * CPU BLAS (best-f64's to dgemm).
 *
 * Every GPU row runs in a child process under a watchdog (eval/gpu.h);
 * this process never holds a GL context.  The rows are printed as a table
 * (or as CSV with --csv: SPEC's columns after `name`, then `ratio_to_cpu`)
 * and written atomically to DIR/<card>/bench-MxNxK.csv.
 * Exit: 0 when every row ran (a variant the card cannot run, invalid or
 * unsupported, is data); 1 when a row failed (wrong result, GL error,
 * timeout, lost context, the CPU's result wrong); 2 bad input; 3 no context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "base/cpublas.h"
#include "eval/crossover.h"
#include "eval/gpu.h"

enum { OPT_CSV = 1, OPT_RESULTS, OPT_CROSSOVER, OPT_MODELS };

typedef struct {
    cli_common c;
    bool csv, crossover;
    const char *results;
    const char *models; /* --models: full, small or off (NULL: full) */
} bench_args;

static const cli_opt own_opts[] = {
    {"csv", 0, OPT_CSV}, {"results", 1, OPT_RESULTS}, {"crossover", 0, OPT_CROSSOVER},
    {"max-draw-ms", 1, OPT_MAX_DRAW}, {"devices", 1, OPT_DEVICES},
    {"models", 1, OPT_MODELS}, {NULL, 0, 0},
};

static const char usage[] =
    "usage: glgemm bench [problem options] [--reps R] [--csv] [--results DIR]\n"
    "                    [--max-draw-ms MS] [--devices LIST|all|local]\n"
    "                    [--models full|small|off]\n"
    "  In one run, on the same inputs: the presets larsen, nv-multi, nv-single, tfjs,\n"
    "  the card's tuned best (results/<card>/best-MxNxK.txt), best-image (the fastest\n"
    "  out=image variant in tune-MxNxK.csv, where one ran ok), its half-storage bests\n"
    "  best-f16 and best-f16x8 (best-f16-MxNxK.txt, best-f16x8-MxNxK.txt, where\n"
    "  tuned), the wide stores' best-f64 and best-df (best-f64-MxNxK.txt,\n"
    "  best-df-MxNxK.txt, else a default variant of each; f64 unsupported on a card\n"
    "  without doubles) and the CPU BLAS (cblas_sgemm, and cblas_dgemm on the inputs\n"
    "  as doubles: cpu-dgemm, best-f64's baseline; OpenBLAS on all cores), each\n"
    "  verified against its reference and timed the same way (a warm-up, then the\n"
    "  median of R reps).\n"
    "  problem: --m M --n N --k K | --size S (default 1024), --transa, --transb,\n"
    "           --alpha A, --beta B, --seed S, or --a FILE --b FILE [--c FILE] (.npy),\n"
    "           --out FILE (accepted; bench writes no C)\n"
    "  --csv          CSV on stdout: name, then card,m,n,k,mrt,mc,np,unroll,profile,\n"
    "                 compiler,acc,passes,status,seconds,gflops,rel_err, then ratio_to_cpu\n"
    "  --results DIR  where <card>/bench-MxNxK.csv is written (default results)\n"
    "  --max-draw-ms MS  the longest one draw may run (0: no bound); longer passes are\n"
    "                 drawn in bands (default: GLGEMM_MAX_DRAW_MS, else\n"
    "                 DIR/<card>/draw.txt, else 250; --crossover: set as GLGEMM_MAX_DRAW_MS)\n"
    "  --crossover    instead: one glgemm_sgemm call through the library (transfers and\n"
    "                 verification included) against the CPU BLAS on square sizes 16,\n"
    "                 32, ... up to --size (default 1024), median of --reps (default 10)\n"
    "                 calls each; writes <card>/crossover.txt, the size below which the\n"
    "                 library and the drop-in BLAS hand calls to the CPU BLAS\n"
    "  --devices LIST|all  a bench for each card among the EGL devices listed, one after\n"
    "                 another, its rows on that card's devices\n"
    "  --backend egl|glfw|browser, --device N\n"
    "  --browser PATH, --headful, --angle A  with --backend browser: the Chromium or\n"
    "                 Chrome to run (default /usr/bin/chromium; ANGLE backend A: default,\n"
    "                 vulkan, gl-egl, swiftshader), shown rather than headless; the\n"
    "                 presets run as profile=300es and tfjs-webgl and tfjs-webgpu rows\n"
    "                 are added: TensorFlow.js's tf.matMul (webgl, webgpu backend) in the\n"
    "                 same page, read-back included, verified like every row;\n"
    "                 tfjs-webgpu is unsupported, with the reason, where the page has\n"
    "                 no WebGPU; then the model rows: a dense model (4 layers 2048\n"
    "                 wide, batch 512) and a transformer encoder block (sequence 256,\n"
    "                 width 512, 8 heads, feed-forward 2048, batch 8), predict and\n"
    "                 read-back, TensorFlow.js alone and with glgemm-tfjs.js (the\n"
    "                 card's best nearest 512x2048x2048), outputs compared with\n"
    "                 TensorFlow.js's own\n"
    "  --models M     with --backend browser: full (default), small (the tests'\n"
    "                 sizes) or off (no model rows)\n"
    "exit status: 0 ok, 1 a row failed, 2 bad input, 3 no GL context\n";

static int handler(void *self, int id, const char *value)
{
    bench_args *a = self;
    if (id == OPT_CSV) {
        a->csv = true;
        return 0;
    }
    if (id == OPT_CROSSOVER) {
        a->crossover = true;
        return 0;
    }
    if (id == OPT_MODELS) {
        if (strcmp(value, "full") && strcmp(value, "small") && strcmp(value, "off"))
            return cli_error(&a->c, "--models takes full, small or off, got '%s'", value);
        a->models = value;
        return 0;
    }
    if (!*value)
        return cli_error(&a->c, "--results needs a folder name");
    a->results = value;
    return 0;
}

static void on_row(void *user, const gg_bench *b, int i)
{
    (void)user;
    const gg_bench_row *r = &b->rows[i];
    fprintf(stderr, "bench: %-9s %s %.3f GFLOP/s\n", eval_bench_names[i],
            base_status_name(r->m.status), r->m.gflops);
}

static bool row_failed(const gg_bench_row *r)
{
    return r->present && r->m.status != GG_OK && r->m.status != GG_INVALID &&
           r->m.status != GG_UNSUPPORTED;
}

/* --crossover: the library against the CPU BLAS, written as the card's
 * crossover record. */
static int bench_crossover(bench_args *a)
{
    if (a->csv)
        return cli_error(&a->c, "--crossover writes its own table; --csv does not apply");
    if (a->c.prob.m != a->c.prob.n || a->c.prob.n != a->c.prob.k)
        return cli_error(&a->c, "--crossover measures square sizes up to --size S; got %dx%dx%d",
                         a->c.prob.m, a->c.prob.n, a->c.prob.k);
    if (a->c.prob.m < 16)
        return cli_error(&a->c, "--crossover needs --size of at least 16, got %d", a->c.prob.m);
    static gg_cross x;
    char err[1024], path[1200];
    if (a->c.max_draw_set) { /* the library takes its bound from the environment */
        snprintf(err, sizeof err, "%.9g", a->c.max_draw_ms);
        (void)setenv("GLGEMM_MAX_DRAW_MS", err, 1); /* fails only without memory */
    }
    int mrc = eval_crossover_measure(a->c.backend == GG_BACKEND_GLFW ? "glfw" : "egl",
                                   a->c.device, a->c.prob.m, a->c.prob.reps, &x, err, sizeof err);
    if (mrc) {
        fprintf(stderr, "glgemm bench: %s\n", err);
        return mrc == -3 ? EXIT_NOCTX : EXIT_GPU;
    }
    printf("crossover on %s: glgemm_sgemm (transfers, verification) vs the CPU BLAS\n", x.card);
    printf("%6s %12s %12s %8s\n", "size", "library s", "cpu s", "gpu/cpu");
    for (int i = 0; i < x.n; i++)
        printf("%6d %12.6f %12.6f %8.2f\n", x.pt[i].size, x.pt[i].gpu_s, x.pt[i].cpu_s,
               x.pt[i].gpu_s / x.pt[i].cpu_s);
    printf("crossover: %ld (calls below %ld^3 go to the CPU BLAS)\n", x.crossover, x.crossover);
    fflush(stdout);
    if (eval_crossover_write(a->results, &x, path, sizeof path, err, sizeof err))
        return cli_error(&a->c, "%s", err);
    fprintf(stderr, "bench: wrote %s\n", path);
    return 0;
}

/* The bench of one card: its rows through g (its evaluator, or the pool's
 * devices of that card), the table or CSV, the bench file.  The status. */
static int bench_card(bench_args *a, gg_gpu *g, const char *slug)
{
    static gg_bench b; /* large: off the stack */
    memset(&b, 0, sizeof b);
    char err[1024];
    const gg_inputs *in = g->in;
    if (eval_gpu_bench(g, a->results, slug, &b, on_row, NULL, err, sizeof err))
        return cli_error(&a->c, "%s", err);
    char hint[256];
    snprintf(hint, sizeof hint, "glgemm tune --m %d --n %d --k %d", in->m, in->n, in->k);
    if (a->csv) {
        char *text = eval_bench_csv(&b);
        if (text)
            fputs(text, stdout);
        free(text);
    } else {
        printf("cpu: %s, %d threads\n", base_cpu_model(err, sizeof err), base_cpu_threads());
        eval_bench_print(stdout, &b, hint);
    }
    fflush(stdout);
    if (a->csv && !b.rows[GG_BENCH_BEST].present)
        fprintf(stderr, "bench: best: no tuning record (run %s)\n", hint);

    char dir[1024], path[1200];
    if (base_mkdirs(store_card_dir(dir, sizeof dir, a->results, slug), err, sizeof err) ||
        eval_bench_write(&b, store_bench_path(path, sizeof path, a->results, slug, in->m, in->n, in->k),
                       err, sizeof err))
        return cli_error(&a->c, "%s", err);
    fprintf(stderr, "bench: wrote %s\n", path);
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        if (row_failed(&b.rows[i]))
            return EXIT_GPU;
    return 0;
}

typedef struct {
    gg_pool *pool;
    int client;
} pool_rows;

static int pool_eval(void *user, const gg_variant *v, gg_measurement *out)
{
    pool_rows *r = user;
    return eval_pool_eval(r->pool, r->client, v, NULL, out);
}

/* --devices (and glgemm-mpi): a bench for each card, one after another,
 * its rows on its devices. */
static int bench_pool(bench_args *a, gg_gpu *g)
{
    gg_evaluator_config ecfg;
    eval_gpu_config(g, &ecfg);
    gg_pool *pool;
    int rc = cli_pool_open(&a->c, &ecfg, 1, &pool);
    if (rc)
        return rc == CLI_SERVED ? 0 : rc;
    cli_cards *cards = malloc(sizeof *cards);
    int status = EXIT_GPU, n = 0;
    if (!cards)
        fprintf(stderr, "glgemm bench: out of memory\n");
    else if ((rc = cli_pool_cards(&a->c, pool, GG_CTX_CORE, "", cards)))
        status = rc;
    else
        status = 0, n = cards->n;
    for (int i = 0; i < n; i++) {
        pool_rows r = {pool, eval_pool_client(pool, 0, cards->mask[i])};
        if (r.client < 0) {
            status = EXIT_GPU;
            break;
        }
        if (cards->n > 1 && !a->csv)
            printf("== %s (%d device%s)\n", cards->slug[i], cards->count[i],
                   cards->count[i] == 1 ? "" : "s");
        g->eval = pool_eval;
        g->eval_user = &r;
        rc = bench_card(a, g, cards->slug[i]);
        status = cli_status_merge(status, rc);
    }
    free(cards);
    eval_pool_free(pool);
    return status;
}

int cmd_bench(int argc, char **argv)
{
    bench_args a = {.c = {.cmd = "bench"}, .results = "results"};
    int rc = cli_parse(argc, argv, &a.c, own_opts, handler, &a, true, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.c.npositional)
        return cli_error(&a.c, "takes no arguments, got '%s' (the problem is --m/--n/--k or "
                               "--size)", a.c.positional[0]);
    if (a.c.prob.out_path)
        return cli_error(&a.c, "--out is not an option of bench (use glgemm run)");
    if ((rc = cli_check_problem(&a.c)))
        return rc;
    if (a.crossover && a.c.backend == GG_BACKEND_BROWSER)
        return cli_error(&a.c, "--crossover measures the library (egl or glfw), not --backend browser");
    if (a.crossover)
        return bench_crossover(&a);
    if (a.models && a.c.backend != GG_BACKEND_BROWSER)
        return cli_error(&a.c, "--models is for --backend browser (the TensorFlow.js model rows)");

    char err[1024];
    gg_inputs in;
    if (base_inputs_make(&a.c.prob, &in, err, sizeof err))
        return cli_error(&a.c, "%s", err);
    gg_reference ref = {0};
    int status = EXIT_GPU;
    if (base_reference_compute(&in, a.c.prob.alpha, a.c.prob.beta, &ref, err, sizeof err)) {
        status = cli_error(&a.c, "%s", err);
        goto out;
    }
    gg_problem prob = a.c.prob;
    prob.m = in.m;
    prob.n = in.n;
    prob.k = in.k;
    gg_gpu g = {.backend = a.c.backend, .device = a.c.device, .prob = &prob, .in = &in,
                .ref = &ref, .max_draw_set = a.c.max_draw_set, .max_draw_ms = a.c.max_draw_ms,
                .results = a.results,
                .models = !a.models || !strcmp(a.models, "full") ? GG_MODELS_FULL
                          : !strcmp(a.models, "small")           ? GG_MODELS_SMALL
                                                                  : GG_MODELS_OFF};
    const gg_transport *t = eval_pool_transport;
    if (a.c.devices_set || (t && t->size > 1)) {
        status = bench_pool(&a, &g);
        goto out;
    }
    /* The slug from the worker that then runs every row (its core context;
     * the browser's page: its ES3). */
    static gg_device_info dev;
    gg_ctx_kind kind = a.c.backend == GG_BACKEND_BROWSER ? GG_CTX_ES3 : GG_CTX_CORE;
    int drc = eval_gpu_device(&g, &dev, err, sizeof err);
    if (drc || !dev.ok[kind]) {
        fprintf(stderr, "glgemm bench: %s\n", drc ? err : dev.err[kind]);
        status = dev.no_device ? EXIT_USAGE : EXIT_NOCTX;
        eval_gpu_close(&g);
        goto out;
    }
    char slug[GG_CARD_MAX];
    base_slug(dev.info[kind].renderer, slug, sizeof slug);
    status = bench_card(&a, &g, slug);
    eval_gpu_close(&g);
out:
    base_reference_free(&ref);
    base_inputs_free(&in);
    return status;
}
