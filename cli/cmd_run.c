/* glgemm run VARIANT [problem] [--reps R] [--csv]: one verified, timed GEMM.
 *
 * Order: options, the variant's syntax and the inputs are checked before any
 * GL (bad input is exit 2 without a context); `best` needs the card's slug,
 * so it resolves after the first context, from results/<card>/best-MxNxK.txt
 * (read by store/records). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/nearest.h"
#include "store/csv.h"
#include "base/inputs.h"
#include "base/npy.h"
#include "base/reference.h"
#include "base/wide.h"
#include "eval/pool.h"
#include "store/records.h"

enum { OPT_CSV = 1 };

typedef struct {
    bool csv;
    bool header_done; /* --csv: the header is printed once */
} run_opts;

static const cli_opt own_opts[] = {
    {"csv", 0, OPT_CSV}, {"max-draw-ms", 1, OPT_MAX_DRAW}, {"devices", 1, OPT_DEVICES},
    {NULL, 0, 0}};

static const char usage[] =
    "usage: glgemm run VARIANT [problem options] [--reps R] [--csv] [--max-draw-ms MS]\n"
    "                  [--devices LIST|all|local]\n"
    "  One GEMM with VARIANT (key=value,... or a preset: larsen, nv-single, nv-multi,\n"
    "  tfjs, best), verified against a double-precision CPU reference.\n"
    "  problem: --m M --n N --k K | --size S (default 1024), --transa, --transb,\n"
    "           --alpha A, --beta B, --seed S, or --a FILE --b FILE [--c FILE] (.npy),\n"
    "           --out FILE (writes C as .npy, only when the run is ok)\n"
    "  --reps R   timed repetitions after a warm-up (default 10); the median counts\n"
    "  --csv      print the CSV header and one row instead of the readable line\n"
    "  --max-draw-ms MS  the longest one draw may run (0: no bound); a longer pass is\n"
    "             drawn in bands (default: GLGEMM_MAX_DRAW_MS, else results/<card>/draw.txt,\n"
    "             else 250)\n"
    "  --devices LIST|all  the variant on each EGL device listed, one after another, a line\n"
    "             each (a device listed twice runs it twice)\n"
    "  --backend egl|glfw|browser, --device N\n"
    "  --browser PATH, --headful  with --backend browser (profile=300es variants only):\n"
    "                 the Chromium or Chrome to run (default /usr/bin/chromium), shown\n"
    "  --angle A      with --backend browser: ANGLE's backend, default, vulkan, gl-egl\n"
    "                 or swiftshader (each its own card)\n"
    "exit status: 0 ok, 1 the variant failed (status printed), 2 bad input, 3 no GL context\n";

static int handler(void *self, int id, const char *value)
{
    (void)value;
    run_opts *o = self;
    if (id == OPT_CSV)
        o->csv = true;
    return 0;
}

/* The card's best for this problem (store/nearest.h: its own record, else the
 * nearest recorded problem's, said on stderr) -> *best.  0, or EXIT_USAGE
 * after one line. */
static int load_best(const cli_common *c, const char *slug, int m, int n, int k,
                     gg_variant *best)
{
    char err[900], from[900];
    if (store_best_for("results", slug, m, n, k, GG_STORE_F32, best, from, sizeof from, err,
                       sizeof err))
        return cli_error(c, "best: no variant recorded for card '%s' (%s; run glgemm tune --m %d "
                            "--n %d --k %d first)", slug, err, m, n, k);
    if (from[0])
        fprintf(stderr, "glgemm %s: best: no record for %dx%dx%d; the nearest recorded problem's, "
                        "%s\n", c->cmd, m, n, k, from);
    return 0;
}

static void print_line(const gg_variant *v, const gg_inputs *in, const gg_measurement *m)
{
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(v, vt, sizeof vt);
    printf("%s %dx%dx%d: ", vt, in->m, in->n, in->k);
    if (m->status != GG_OK && m->seconds <= 0) {
        printf("%s: %s\n", base_status_name(m->status), m->detail);
        return;
    }
    printf("%s, %d pass%s, %.6f s, %.3f GFLOP/s, rel_err %.3g (bound %.3g); compile %.3f s, "
           "upload %.3f s, read-back %.3f s",
           base_status_name(m->status), m->passes, m->passes == 1 ? "" : "es", m->seconds,
           m->gflops, m->rel_err,
           gen_store_wide(v->store) ? base_wide_bound(v->store, in->k) : base_verify_bound(in->k),
           m->compile_s, m->upload_s,
           m->readback_s);
    if (m->draw_cap > 0)
        printf(", %ld draws of at most %ld fragments (bound %.6g ms a draw)", m->draws,
               m->draw_cap, m->max_draw_s * 1000);
    if (m->gpu_s >= 0)
        printf(", gpu timer %.6f s (beside, not instead)", m->gpu_s);
    if (m->status != GG_OK)
        printf(": %s", m->detail);
    putchar('\n');
}

/* The variant on slot i (best: that card's); its line.  The status. */
static int run_on(cli_common *c, run_opts *ro, gg_pool *pool, int i, const char *text,
                  bool want_best, const gg_variant *given, const gg_inputs *in)
{
    gg_ctx_kind best_kind = c->backend == GG_BACKEND_BROWSER ? GG_CTX_ES3 : GG_CTX_CORE;
    gg_ctx_kind kind = want_best ? best_kind : host_ctx_kind_for(given->profile);
    int rc = cli_slot_failed(c, pool, i, (int)kind, "");
    if (rc)
        return rc;
    const gg_device_info *dev = &eval_pool_slot(pool, i)->info;
    bool several = eval_pool_nslots(pool) > 1;
    char label[64] = "", err[512];
    if (several)
        snprintf(label, sizeof label, "%s: ", eval_pool_slot_label(pool, i, (char[48]){0}, 48));
    char slug[GG_CARD_MAX];
    base_slug(dev->info[kind].renderer, slug, sizeof slug);
    gg_variant v = *given;
    if (want_best) {
        gg_variant best;
        if ((rc = load_best(c, slug, in->m, in->n, in->k, &best)))
            return rc;
        if (gen_variant_parse(text, &best, &v, err, sizeof err))
            return cli_error(c, "%s", err);
        if ((rc = cli_slot_failed(c, pool, i, (int)host_ctx_kind_for(v.profile), "")))
            return rc;
    }
    /* The reference: the worker makes the one of the variant's store (of
     * the inputs rounded to halves for store=f16, base/reference.h). */
    gg_measurement m;
    if (eval_pool_eval_on(pool, i, 0, &v, NULL, &m)) {
        fprintf(stderr, "glgemm run: %s%s\n", label, m.detail);
        return EXIT_NOCTX;
    }
    gg_evaluator *ev = eval_pool_evaluator(pool, i, 0);
    if (ro->csv) {
        gg_problem shape = c->prob; /* m, n, k as the inputs have them (files) */
        shape.m = in->m;
        shape.n = in->n;
        shape.k = in->k;
        char row[GG_CSV_ROW_MAX];
        if (store_csv_format(row, sizeof row, slug, &shape, &v, &m)) {
            fprintf(stderr, "glgemm run: cannot format the CSV row (card '%s')\n", slug);
            return EXIT_GPU;
        }
        if (!ro->header_done)
            printf("%s\n", GG_CSV_HEADER);
        ro->header_done = true;
        printf("%s\n", row);
    } else {
        fputs(label, stdout);
        print_line(&v, in, &m);
    }
    fflush(stdout);
    if (m.status != GG_OK) {
        if (ev && eval_evaluator_log(ev))
            fputs(eval_evaluator_log(ev), stderr);
        else
            fprintf(stderr, "glgemm run: %sstatus %s: %s\n", label, base_status_name(m.status),
                    m.detail);
        return EXIT_GPU;
    }
    const float *cbuf = ev ? eval_evaluator_c(ev) : NULL;
    if (c->prob.out_path &&
        (!cbuf || base_npy_write(c->prob.out_path, cbuf, in->m, in->n, err, sizeof err))) {
        if (!cbuf)
            snprintf(err, sizeof err, "no result came back for %s", c->prob.out_path);
        return cli_error(c, "%s", err);
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    cli_common c = {.cmd = "run"};
    run_opts ro = {false, false};
    int rc = cli_parse(argc, argv, &c, own_opts, handler, &ro, true, usage);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (c.npositional == 0)
        return cli_error(&c, "a VARIANT is needed (try glgemm run --help)");
    if (c.npositional > 1)
        return cli_error(&c, "one VARIANT only, got '%s' after '%s'", c.positional[1],
                         c.positional[0]);
    if ((rc = cli_check_problem(&c)))
        return rc;
    if (c.prob.out_path && c.devices_set && (c.devices_all || c.ndevices != 1))
        return cli_error(&c, "--out writes one C: give one device, not --devices %s",
                         c.devices_all ? "all" : c.devices_local ? "local" : "with several");
    const char *text = c.positional[0];
    char err[512];
    gg_variant v;
    bool want_best = cli_names_best(text);
    if (!want_best && gen_variant_parse(text, NULL, &v, err, sizeof err))
        return cli_error(&c, "%s", err);

    gg_inputs in;
    if (base_inputs_make(&c.prob, &in, err, sizeof err))
        return cli_error(&c, "%s", err);
    int status = EXIT_GPU;
    gg_pool *pool = NULL;

    /* The variant runs in each device's evaluator worker (a hang is a
     * status, a crashed driver too), the devices one after another; the
     * slug (CSV, best) comes from its core context's renderer, the same in
     * every kind. */
    gg_evaluator_config ecfg = {.backend = c.backend, .device = c.device, .prob = &c.prob,
                                .in = &in, .want_c = c.prob.out_path != NULL, .want_log = true,
                                .max_draw_set = c.max_draw_set, .max_draw_ms = c.max_draw_ms};
    rc = cli_pool_open(&c, &ecfg, 1, &pool);
    if (rc) {
        status = rc == CLI_SERVED ? 0 : rc;
        goto out;
    }
    status = 0;
    for (int i = 0; i < eval_pool_nslots(pool); i++) {
        rc = run_on(&c, &ro, pool, i, text, want_best, &v, &in);
        status = cli_status_merge(status, rc);
    }
out:
    eval_pool_free(pool);
    base_inputs_free(&in);
    return status;
}
