/* report's measuring on this machine's card (report/report.h's
 * report_measure): what the report needs and the files lack, every GL
 * step in a child process (eval/gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/probe_data.h"
#include "eval/gpu.h"
#include "report/report.h"
#include "search/card.h"
#include "search/tune.h"
#include "store/paths.h"
#include "store/records.h"

typedef struct {
    long done, total, fresh;
    double last;
} sweep_progress;

static void on_point(void *user, const gg_search *s, const gg_variant *v, const gg_outcome *o,
                     const gg_measurement *m, bool fresh)
{
    (void)s;
    (void)m;
    sweep_progress *p = user;
    p->done++;
    p->fresh += fresh;
    double t = base_now_s();
    if (fresh && (t - p->last > 3 || p->done == p->total)) {
        char vt[GG_VARIANT_TEXT];
        fprintf(stderr, "report: sweep %ld/%ld %s %s %.3f GFLOP/s\n", p->done, p->total,
                gen_variant_format(v, vt, sizeof vt), base_status_name(o->status), o->gflops);
        p->last = t;
    }
}

/* The dense np sweep through the tuner.  0, or -1 with err; *measured:
 * the points measured now (the others were in the records). */
static int sweep(const gg_report_measure_opts *a, const char *slug, gg_gpu *g, const gg_ctx_info info[3],
                 const bool ok[3], const gg_variant pairs[2], int npairs, long *measured,
                 char *err, size_t errlen)
{
    gg_tune_config tc;
    memset(&tc, 0, sizeof tc);
    tc.results_dir = a->results;
    tc.card = slug;
    search_config_default(&tc.search, g->prob->m, g->prob->n, g->prob->k);
    search_config_card(&tc.search, ok, info);
    tc.search.eval = eval_gpu_eval;
    tc.search.user = g;
    sweep_progress prog = {0, 0, 0, 0};
    int npmax = a->sweep_np ? a->sweep_np : 64;
    for (int i = 0; i < npairs; i++)
        prog.total += report_sweep_npmax(&pairs[i], g->prob->k, npmax);
    tc.progress = on_point;
    tc.progress_user = &prog;
    gg_records_info ri;
    gg_tune *t = search_tune_open(&tc, &ri, err, errlen);
    if (!t)
        return -1;
    int rc = 0;
    for (int i = 0; i < npairs && !rc; i++) {
        int top = report_sweep_npmax(&pairs[i], g->prob->k, npmax);
        for (int np = 1; np <= top && !rc; np++) {
            gg_variant v = pairs[i];
            v.np = np;
            gg_outcome o;
            rc = search_tune_visit(t, &v, &o);
        }
    }
    /* No search_tune_finish: the tuner's hook rewrites the best file when a
     * point beats it, and a sweep that found nothing better leaves it be. */
    if (rc)
        snprintf(err, errlen, "sweep stopped: %s", search_tune_error(t));
    search_tune_close(t);
    *measured = prog.fresh;
    return rc;
}

/* A bench row that does not run this recorded best (have: a best file). */
static bool row_stale(const gg_report_data *d, const gg_bench_row *r, bool have,
                      const gg_variant *best)
{
    if (have != r->present)
        return true;
    if (!have)
        return false;
    gg_variant bv = r->v;
    (void)search_variant_normalize(&bv, d->m, d->n, d->k); /* as it is where np cannot be */
    return !gen_variant_equal(best, &bv);
}

/* Whether a store's row does not run its best file's.  A half store's (f16,
 * f16x8) row is stale without a file too; a wide store's (f64, df,
 * file_only) runs a default then (eval/bench.h), so only a file makes it
 * stale (files from before the rows lack them: stale where a file exists). */
static bool store_stale(const gg_report_data *d, const char *results, gg_store store, int row,
                        bool file_only)
{
    gg_variant best;
    char err[600];
    bool have = store_best_read_store(results, d->card, d->m, d->n, d->k, store, &best, NULL, err,
                                      sizeof err) == 0;
    if (!have && file_only)
        return false;
    if (have)
        (void)search_variant_normalize(&best, d->m, d->n, d->k);
    return row_stale(d, &d->bench.rows[row], have, &best);
}

/* No bench file, or its best, best-image, best-f16, best-f16x8, best-f64 or
 * best-df row is not the recorded one. */
static bool bench_stale(const gg_report_data *d, const char *results)
{
    if (!d->have_bench)
        return true;
    gg_variant image;
    char err[600];
    bool have_image = store_records_fastest(results, d->card, d->m, d->n, d->k,
                                         store_record_is_image_f32, NULL, &image, NULL, err,
                                         sizeof err) == 1;
    if (have_image)
        (void)search_variant_normalize(&image, d->m, d->n, d->k);
    return row_stale(d, &d->bench.rows[GG_BENCH_BEST], d->have_best, &d->best) ||
           row_stale(d, &d->bench.rows[GG_BENCH_BEST_IMAGE], have_image, &image) ||
           store_stale(d, results, GG_STORE_F16, GG_BENCH_BEST_F16, false) ||
           store_stale(d, results, GG_STORE_F16X8, GG_BENCH_BEST_F16X8, false) ||
           store_stale(d, results, GG_STORE_F64, GG_BENCH_BEST_F64, true) ||
           store_stale(d, results, GG_STORE_DF, GG_BENCH_BEST_DF, true);
}

/* The report's findings of d, or -1 with err. */
static int analysed(const gg_report_data *d, gg_findings *f, char *err, size_t errlen)
{
    if (!report_analyse(d, f))
        return 0;
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The dense np sweep of the two (mc, mrt) pairs, then d loaded again with
 * its points.  0, or -1 with err. */
static int sweep_step(const gg_report_measure_opts *a, gg_report_data *d, gg_gpu *g,
                      const gg_ctx_info info[3], const bool ok[3], char *measured, size_t mlen,
                      char *err, size_t errlen)
{
    gg_findings f;
    if (analysed(d, &f, err, errlen))
        return -1;
    gg_variant pairs[2];
    int np = report_sweep_pairs(&f, d, pairs);
    report_findings_free(&f);
    long fresh = 0;
    if (np && sweep(a, a->card, g, info, ok, pairs, np, &fresh, err, errlen))
        return -1;
    if (np && fresh) {
        char p0[GG_VARIANT_TEXT], p1[GG_VARIANT_TEXT];
        snprintf(measured, mlen, "%ld points of the dense np sweep (np 1..%d of %s and %s)",
                 fresh, a->sweep_np ? a->sweep_np : 64,
                 gen_variant_format(&pairs[0], p0, sizeof p0),
                 gen_variant_format(&pairs[1], p1, sizeof p1));
    }
    report_data_free(d);
    return report_load(a->results, a->card, a->prob->m, a->prob->n, a->prob->k, d, err, errlen)
               ? -1
               : 0;
}

/* The dips of the dense sweeps, measured a second time: a dip that stays
 * is the card's, one that goes was noise.  0; -1 with err (files, memory);
 * -2 with err (a measurement failed). */
static int dips_step(const gg_report_measure_opts *a, gg_report_data *d, gg_gpu *g,
                     char *measured, size_t mlen, char *err, size_t errlen)
{
    gg_findings f;
    if (analysed(d, &f, err, errlen))
        return -1;
    gg_variant todo[2 * GG_MAX_DIPS];
    int nt = report_dips_to_check(&f, d, todo, 2 * GG_MAX_DIPS);
    report_findings_free(&f);
    if (!nt)
        return 0;
    fprintf(stderr, "report: measuring %d dips of the np sweep again\n", nt);
    gg_report_rec *more = realloc(d->again, (size_t)(d->nagain + nt) * sizeof *more);
    if (!more) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->again = more;
    for (int i = 0; i < nt; i++) {
        gg_report_rec *r = &d->again[d->nagain];
        r->v = todo[i];
        if (eval_gpu_eval(g, &todo[i], &r->m)) {
            snprintf(err, errlen, "%s", r->m.detail);
            return -2;
        }
        d->nagain++;
    }
    char path[1200];
    store_report_again_path(path, sizeof path, a->results, a->card, d->m, d->n, d->k);
    if (report_again_write(path, d, err, errlen))
        return -1;
    size_t l = strlen(measured);
    snprintf(measured + l, mlen - l, "%s%d dips measured again", l ? ", " : "", nt);
    return 0;
}

int report_measure(const gg_report_measure_opts *a, const gg_ctx_info info[3], const bool ok[3],
                   char *measured, size_t mlen, char *err, size_t errlen)
{
    const char *slug = a->card;
    static gg_report_data d;
    if (report_load(a->results, slug, a->prob->m, a->prob->n, a->prob->k, &d, err, errlen))
        return -1;
    gg_inputs in = {0};
    gg_reference ref = {0};
    gg_gpu g = {.backend = a->backend, .device = a->device, .prob = a->prob, .in = &in,
                .ref = &ref, .results = a->results};
    int status = 0;
    if (base_inputs_make(a->prob, &in, err, errlen) ||
        base_reference_compute(&in, a->prob->alpha, a->prob->beta, &ref, err, errlen)) {
        status = -1;
        goto out;
    }
    measured[0] = '\0';
    if (!a->no_sweep && ((status = sweep_step(a, &d, &g, info, ok, measured, mlen, err, errlen)) ||
                         (status = dips_step(a, &d, &g, measured, mlen, err, errlen))))
        goto out;
    if (bench_stale(&d, a->results)) {
        fprintf(stderr, "report: running bench (%s)\n",
                d.have_bench ? "its best rows are not the recorded bests" : "no bench file");
        static gg_bench b;
        char path[1200];
        if (eval_gpu_bench(&g, a->results, slug, &b, NULL, NULL, err, errlen) ||
            eval_bench_write(&b, store_bench_path(path, sizeof path, a->results, slug, in.m, in.n, in.k),
                           err, errlen)) {
            status = -1;
            goto out;
        }
        size_t l = strlen(measured);
        snprintf(measured + l, mlen - l, "%sbench", l ? ", " : "");
    }
    if (!d.have_probe) {
        fprintf(stderr, "report: running probe (no probe.csv)\n");
        gg_probe_opts po;
        host_probe_opts_default(&po, false);
        static gg_probe_result pr;
        char path[1200];
        store_probe_path(path, sizeof path, a->results, slug);
        if (eval_gpu_probe(a->backend, a->device, &po, 1800, &pr, err, errlen)) {
            status = -2;
            goto out;
        }
        if (pr.status != GG_OK) {
            snprintf(err, errlen, "probe: %s [%s]", pr.detail, base_status_name(pr.status));
            status = -2;
            goto out;
        }
        if (base_probe_write_csv(&pr, path, err, errlen)) {
            status = -1;
            goto out;
        }
        size_t l = strlen(measured);
        snprintf(measured + l, mlen - l, "%sprobe", l ? ", " : "");
    }
out:
    eval_gpu_close(&g);
    report_data_free(&d);
    base_reference_free(&ref);
    base_inputs_free(&in);
    return status;
}

