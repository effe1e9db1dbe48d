/* glgemm probe: the fragment path's own ceilings on this card (multiply-add,
 * texel fetch by each fetch path, render-target write, imageStore,
 * read-back), as a table on stdout (or CSV rows with --csv) and in
 * results/<card>/probe.csv, written atomically. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "eval/gpu.h"
#include "glhost/probe.h"
#include "base/fileio.h"
#include "store/draw.h"
#include "store/paths.h"

enum { OPT_QUICK = 1, OPT_CSV, OPT_RESULTS, OPT_PREPS };

static const cli_opt probe_opts[] = {
    {"quick", 0, OPT_QUICK}, {"csv", 0, OPT_CSV}, {"results", 1, OPT_RESULTS},
    {"reps", 1, OPT_PREPS},  {"max-draw-ms", 1, OPT_MAX_DRAW}, {NULL, 0, 0},
};

static const char *usage =
    "usage: glgemm probe [--backend egl|glfw] [--device N] [--quick] [--csv] [--reps R]\n"
    "                    [--results DIR] [--max-draw-ms MS]\n"
    "Microbenchmarks of the fragment path on this card: vec4 multiply-add rate (and\n"
    "dvec4's, fp64, where the context has doubles: rows mad64),\n"
    "texel fetch rate (R32F, RGBA32F, RGBA16F; cache-friendly, cache-hostile, and the\n"
    "GEMM's own pattern, the fetch ceiling of the fastest shaders; the GEMM pattern also\n"
    "by texelFetch, imageLoad, buffer textures and, RGBA32F, a storage buffer),\n"
    "render-target write rate for 1 to 8\n"
    "RGBA32F targets, imageStore rate into an RGBA32F image (1 to 64 texels a\n"
    "fragment), glReadPixels read-back rate.  Each point:\n"
    "a warm-up, then the median of R repetitions (default 5; 3 with --quick) on a wall\n"
    "clock from the first draw to glFinish; every kernel's output is checked.\n"
    "  --quick        tiny sizes (a test of the machinery, not a measurement)\n"
    "  --csv          print metric,variant,value,unit rows instead of the table\n"
    "  --results DIR  where <card>/probe.csv goes (default results)\n"
    "  --max-draw-ms MS  record MS as the longest one draw may run on this card\n"
    "                 (<card>/draw.txt; 0: no bound); without it a card with no draw.txt\n"
    "                 gets the default, 250, and one that has it keeps it\n"
    "  --backend egl|glfw|browser, --browser PATH, --headful, --angle A: browser measures the\n"
    "                 page's WebGL2 (the same kernels as GLSL ES 3.00; each repetition timed to\n"
    "                 a 1-pixel readPixels; no imageLoad, imageStore or buffer textures there)\n";

typedef struct {
    cli_common c;
    bool quick, csv;
    const char *results;
    int reps;
} probe_args;

static int handle(void *self, int id, const char *v)
{
    probe_args *a = self;
    long x;
    switch (id) {
    case OPT_QUICK: a->quick = true; return 0;
    case OPT_CSV: a->csv = true; return 0;
    case OPT_RESULTS:
        if (!*v)
            return cli_error(&a->c, "--results needs a folder name");
        a->results = v;
        return 0;
    case OPT_PREPS:
        if (cli_int(v, 1, 1000, &x))
            return cli_error(&a->c, "--reps must be an integer from 1 to 1000, got '%s'", v);
        a->reps = (int)x;
        return 0;
    }
    return cli_error(&a->c, "internal: unhandled option %d", id);
}

static void on_progress(const char *line, void *user)
{
    (void)user;
    fprintf(stderr, "probe: %s\n", line);
}

static void print_table(const gg_probe_result *r, const gg_ctx_info *info, const char *slug,
                        bool quick)
{
    static const char *fmt_names[] = {"R32F", "RGBA32F", "RGBA16F"};
    static const char *pat_names[] = {"cache-friendly", "cache-hostile", "GEMM 2x4-4x1",
                                      "GEMM 4x2-1x4"};
    printf("card: %s   renderer: %s\nGL: %s   backend: %s\n", slug, info->renderer, info->version,
           info->backend);
    if (quick)
        printf("(--quick: tiny sizes, not a measurement of the card)\n");
    printf("\n%-34s %12s\n", "vec4 multiply-add", "GFLOP/s");
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].metric, "mad") && strcmp(r->rows[i].variant, "max"))
            printf("  %-32s %12.2f\n", r->rows[i].variant, r->rows[i].value);
    printf("  %-32s %12.2f   (%s)\n", "max", r->mad_gflops, r->mad_best);
    if (r->mad64_gflops > 0) {
        printf("\n%-34s %12s\n", "dvec4 multiply-add (fp64)", "GFLOP/s");
        for (int i = 0; i < r->nrows; i++)
            if (!strcmp(r->rows[i].metric, "mad64") && strcmp(r->rows[i].variant, "max"))
                printf("  %-32s %12.2f\n", r->rows[i].variant, r->rows[i].value);
        printf("  %-32s %12.2f   (%s; %.2fx fp32)\n", "max", r->mad64_gflops, r->mad64_best,
               r->mad_gflops > 0 ? r->mad64_gflops / r->mad_gflops : 0);
    } else {
        printf("\n%-34s %12s\n", "dvec4 multiply-add (fp64)", "unsupported: no double in this context");
    }
    printf("\n%-34s %12s %12s\n", "texel fetch", "Gtexel/s", "GB/s");
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int p = 0; p < GG_FETCH_NPAT; p++)
            if (r->fetch_gtexels[f][p] > 0)
                printf("  %-8s %-23s %12.3f %12.2f\n", fmt_names[f], pat_names[p],
                   r->fetch_gtexels[f][p], r->fetch_gbs[f][p]);
    for (int p = GG_FETCH_TEXTURE + 1; p < GG_FETCH_COUNT; p++)
        for (int f = 0; f < GG_FETCH_NFMT; f++)
            for (int q = 0; q < GG_FETCH_NPAT; q++)
                if (r->path_gtexels[f][p][q] > 0) {
                    char label[32];
                    snprintf(label, sizeof label, "%s %s", gen_fetch_name((gg_fetch)p), pat_names[q]);
                    printf("  %-8s %-23s %12.3f %12.2f\n", fmt_names[f], label,
                           r->path_gtexels[f][p][q], r->path_gbs[f][p][q]);
                }
    printf("\n%-34s %12s %12s\n", "render-target write (RGBA32F)", "Gtexel/s", "GB/s");
    for (int n = 1; n <= r->write_max_targets; n++)
        printf("  %d target%-24s %12.3f %12.2f\n", n, n == 1 ? "" : "s", r->write_gtexels[n],
               r->write_gbs[n]);
    if (base_probe_store_rate(r) > 0) {
        printf("\n%-34s %12s %12s\n", "imageStore (RGBA32F image)", "Gtexel/s", "GB/s");
        for (int i = 0; i < GG_PROBE_NSTORE; i++)
            if (r->store_gtexels[i] > 0)
                printf("  %2d texel%s a fragment%-14s %12.3f %12.2f\n", base_probe_store_texels[i],
                       base_probe_store_texels[i] == 1 ? " " : "s", "", r->store_gtexels[i],
                       r->store_gbs[i]);
    }
    printf("\n%-34s %12s %12s\n", "read-back (readPixels RGBA32F)", "", "GB/s");
    printf("  %-32s %12s %12.2f\n", "whole target", "", r->readback_gbs);
}

int cmd_probe(int argc, char **argv)
{
    probe_args a = {.c = {.cmd = "probe"}, .results = "results"};
    int rc = cli_parse(argc, argv, &a.c, probe_opts, handle, &a, false, usage);
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    if (a.c.npositional)
        return cli_error(&a.c, "takes no arguments, got '%s'", a.c.positional[0]);

    char err[512];
    gg_probe_opts o;
    host_probe_opts_default(&o, a.quick);
    if (a.reps)
        o.reps = a.reps;
    o.progress = on_progress;
    static gg_probe_result r; /* large: keep it off the stack */
    gg_ctx_info info;
    gg_status st;
    if (a.c.backend == GG_BACKEND_BROWSER) {
        /* The page's WebGL2, from a child under a watchdog (a hung page
         * ends it, Node and Chromium with it). */
        if (eval_gpu_probe_card(a.c.backend, a.c.device, &o, a.quick ? 120 : 1800, &r, &info, err,
                                sizeof err)) {
            fprintf(stderr, "glgemm %s\n", err);
            return EXIT_NOCTX;
        }
        st = r.status;
    } else {
        bool no_device = false;
        gg_ctx *ctx = host_ctx_create(a.c.backend, a.c.device, GG_CTX_CORE, err, sizeof err,
                                      &no_device);
        if (!ctx) {
            fprintf(stderr, "glgemm probe: %s\n", err);
            return no_device ? EXIT_USAGE : EXIT_NOCTX;
        }
        host_ctx_query(ctx, &info);
        st = host_probe_run(&o, &r);
        host_ctx_destroy(ctx);
    }
    char slug[GG_CARD_MAX];
    base_slug(info.renderer, slug, sizeof slug);
    if (st != GG_OK) {
        /* The detail names the probe already ("probe: mad c8 512x512: ..."). */
        fprintf(stderr, "glgemm %s%s [%s]\n", strncmp(r.detail, "probe: ", 7) ? "probe: " : "",
                r.detail, base_status_name(st));
        return EXIT_GPU;
    }

    char dir[4096], path[4200];
    if (store_path_cut(store_card_dir(dir, sizeof dir, a.results, slug), sizeof dir))
        return cli_error(&a.c, "--results path too long");
    if (base_mkdirs(dir, err, sizeof err) != 0) {
        fprintf(stderr, "glgemm probe: %s\n", err);
        return EXIT_USAGE;
    }
    store_probe_path(path, sizeof path, a.results, slug);
    if (base_probe_write_csv(&r, path, err, sizeof err) != 0) {
        fprintf(stderr, "glgemm probe: %s\n", err);
        return EXIT_USAGE;
    }
    if (a.csv) {
        printf("metric,variant,value,unit\n");
        for (int i = 0; i < r.nrows; i++)
            printf("%s,%s,%.6g,%s\n", r.rows[i].metric, r.rows[i].variant, r.rows[i].value,
                   r.rows[i].unit);
    } else {
        print_table(&r, &info, slug, a.quick);
    }
    fprintf(stderr, "probe: wrote %s\n", path);

    /* The card's bound on one draw: the given one, else the default where
     * the card has none (a set one is kept). */
    double ms = 0;
    int have = store_draw_read(a.results, slug, &ms, err, sizeof err);
    store_draw_path(path, sizeof path, a.results, slug);
    if (a.c.max_draw_set || have == 0) {
        ms = a.c.max_draw_set ? a.c.max_draw_ms : GG_MAX_DRAW_MS_DEFAULT;
        if (store_draw_write(a.results, slug, ms,
                             a.c.max_draw_set ? "set by glgemm probe --max-draw-ms"
                                              : "glgemm probe's default for every card",
                             err, sizeof err)) {
            fprintf(stderr, "glgemm probe: %s\n", err);
            return EXIT_USAGE;
        }
        fprintf(stderr, "probe: wrote %s (one draw at most %.6g ms)\n", path, ms);
    } else if (have < 0) {
        fprintf(stderr, "probe: %s; not replaced (runs take the default, %.0f ms, until it is "
                "fixed)\n", err, GG_MAX_DRAW_MS_DEFAULT);
    } else {
        fprintf(stderr, "probe: kept %s (one draw at most %.6g ms)\n", path, ms);
    }
    return 0;
}
