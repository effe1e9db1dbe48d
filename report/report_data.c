/* Loading what report.md is made from: see report.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "store/records.h"
#include "report/report.h"

void report_data_free(gg_report_data *d)
{
    free(d->recs);
    free(d->again);
    d->again = NULL;
    d->nagain = 0;
    free(d->tune_summary);
    d->tune_summary = NULL;
    d->recs = NULL;
    d->nrecs = 0;
}

typedef struct {
    const gg_report_data *d;
    gg_report_rec *recs;
    long n, cap;
    bool nomem;
} rows_state;

static void add_row(void *user, const gg_variant *v, const gg_measurement *m)
{
    rows_state *s = user;
    if (s->nomem)
        return;
    if (s->n == s->cap) {
        long cap = s->cap ? 2 * s->cap : 256;
        gg_report_rec *nr = realloc(s->recs, (size_t)cap * sizeof *nr);
        if (!nr) {
            s->nomem = true;
            return;
        }
        s->recs = nr;
        s->cap = cap;
    }
    /* The tuner records each variant once (its memo); rows are kept as
     * they are, np normalised as report_find looks them up. */
    gg_report_rec *r = &s->recs[s->n++];
    r->v = *v;
    r->m = *m;
    search_variant_normalize(&r->v, s->d->m, s->d->n, s->d->k);
}

/* Reads a file of SPEC's rows (the records, or the dips measured again)
 * into *out / *count: rows of this card and problem; other lines counted in
 * *bad.  missing_ok: a missing file is no rows. */
static int load_rows(const char *path, const gg_report_data *d, bool missing_ok,
                     gg_report_rec **out, long *count, long *bad, char *err, size_t errlen)
{
    *out = NULL;
    *count = 0;
    if (missing_ok && access(path, F_OK) != 0)
        return 0;
    rows_state s = {.d = d};
    char rerr[1200];
    int rc = store_records_scan_path(path, d->card, d->m, d->n, d->k, add_row, &s, NULL, bad, rerr,
                                  sizeof rerr);
    if (rc == 0 && s.nomem) {
        snprintf(rerr, sizeof rerr, "out of memory reading %s", path);
        rc = -1;
    }
    if (rc) {
        if (rc == 1)
            snprintf(err, errlen, "no tuning records: %s (run glgemm tune --m %d --n %d --k %d)",
                     rerr, d->m, d->n, d->k);
        else
            snprintf(err, errlen, "%s", rerr);
        free(s.recs);
        return -1;
    }
    *out = s.recs;
    *count = s.n;
    return 0;
}

static void load_best(const char *dir, gg_report_data *d)
{
    char path[1024], err[512];
    store_best_path(path, sizeof path, dir, d->card, d->m, d->n, d->k);
    size_t len;
    char *text = base_read_text(path, 1 << 16, &len, err, sizeof err);
    if (!text)
        return;
    snprintf(d->best_text, sizeof d->best_text, "%s", text);
    free(text);
    if (store_best_read(dir, d->card, d->m, d->n, d->k, &d->best, &d->best_gflops, err, sizeof err))
        return;
    search_variant_normalize(&d->best, d->m, d->n, d->k);
    d->have_best = true;
}

int report_load(const char *results_dir, const char *card, int m, int n, int k,
                   gg_report_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    snprintf(d->card, sizeof d->card, "%s", card);
    d->m = m;
    d->n = n;
    d->k = k;
    char path[1024];
    store_records_file(path, sizeof path, results_dir, card, m, n, k);
    long again_bad = 0;
    if (load_rows(path, d, false, &d->recs, &d->nrecs, &d->bad_lines, err, errlen)) {
        report_data_free(d);
        return -1;
    }
    store_report_again_path(path, sizeof path, results_dir, card, m, n, k);
    if (load_rows(path, d, true, &d->again, &d->nagain, &again_bad, err, errlen)) {
        report_data_free(d);
        return -1;
    }
    load_best(results_dir, d);
    if (!d->have_best && d->best_text[0]) {
        snprintf(err, errlen, "the best file of %s %dx%dx%d does not start with a variant", card,
                 m, n, k);
        report_data_free(d);
        return -1;
    }
    store_bench_path(path, sizeof path, results_dir, card, m, n, k);
    if (access(path, F_OK) == 0) {
        if (eval_bench_read(path, &d->bench, err, errlen)) {
            report_data_free(d);
            return -1;
        }
        if (strcmp(d->bench.card, card) || d->bench.m != m || d->bench.n != n || d->bench.k != k) {
            snprintf(err, errlen, "%s is for another card or problem", path);
            report_data_free(d);
            return -1;
        }
        d->have_bench = true;
    }
    store_probe_path(path, sizeof path, results_dir, card);
    if (access(path, F_OK) == 0) {
        if (base_probe_read_csv(path, &d->probe, err, errlen)) {
            report_data_free(d);
            return -1;
        }
        d->have_probe = true;
    }
    store_summary_path(path, sizeof path, results_dir, card, m, n, k);
    if (access(path, F_OK) == 0 &&
        !(d->tune_summary = base_read_text(path, 1 << 20, NULL, err, errlen))) {
        report_data_free(d);
        return -1;
    }
    store_environment_path(path, sizeof path, results_dir, card);
    if (access(path, F_OK) == 0 && report_env_read(path, &d->env, err, errlen)) {
        report_data_free(d);
        return -1;
    }
    return 0;
}

static const gg_report_rec *find_in(const gg_report_rec *recs, long n, const gg_report_data *d,
                                    const gg_variant *v)
{
    gg_variant w = *v;
    search_variant_normalize(&w, d->m, d->n, d->k);
    for (long i = 0; i < n; i++)
        if (gen_variant_equal(&recs[i].v, &w))
            return &recs[i];
    return NULL;
}

const gg_report_rec *report_find(const gg_report_data *d, const gg_variant *v)
{
    return find_in(d->recs, d->nrecs, d, v);
}

const gg_report_rec *report_find_again(const gg_report_data *d, const gg_variant *v)
{
    return find_in(d->again, d->nagain, d, v);
}

int report_again_write(const char *path, const gg_report_data *d, char *err, size_t errlen)
{
    size_t cap = 64 + (size_t)(d->nagain + 1) * GG_CSV_ROW_MAX;
    char *text = malloc(cap);
    if (!text) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    size_t o = (size_t)snprintf(text, cap, "%s\n", GG_CSV_HEADER);
    gg_problem p;
    base_problem_default(&p);
    p.m = d->m;
    p.n = d->n;
    p.k = d->k;
    for (long i = 0; i < d->nagain; i++) {
        char row[GG_CSV_ROW_MAX];
        if (store_csv_format(row, sizeof row, d->card, &p, &d->again[i].v, &d->again[i].m)) {
            free(text);
            snprintf(err, errlen, "cannot format a row of %s", path);
            return -1;
        }
        o += (size_t)snprintf(text + o, cap - o, "%s\n", row);
    }
    int rc = base_write_atomic(path, text, o, err, errlen);
    free(text);
    return rc;
}

int report_env_write(const char *path, const gg_report_env *e, char *err, size_t errlen)
{
    char text[4096];
    int w = snprintf(text, sizeof text,
                     "renderer: %s\nvendor: %s\nversion: %s\nglsl: %s\nbackend: %s\ndevice: %d\n"
                     "max draw buffers: %d\nmax texture size: %d\ncpu: %s\ncpus: %d\n"
                     "blas threads: %d\nwritten: %s\n",
                     e->renderer, e->vendor, e->version, e->glsl, e->backend, e->device,
                     e->max_draw_buffers, e->max_texture_size, e->cpu, e->nproc, e->blas_threads,
                     e->written);
    if (w < 0 || (size_t)w >= sizeof text) {
        snprintf(err, errlen, "environment too long for %s", path);
        return -1;
    }
    return base_write_atomic(path, text, (size_t)w, err, errlen);
}

int report_env_read(const char *path, gg_report_env *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    char *text = base_read_text(path, 1 << 16, NULL, err, errlen);
    if (!text)
        return -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strstr(line, ": ");
        if (!colon)
            continue;
        *colon = '\0';
        const char *v = colon + 2;
        struct {
            const char *key;
            char *s;
            size_t len;
            int *i;
        } keys[] = {
            {"renderer", e->renderer, sizeof e->renderer, NULL},
            {"vendor", e->vendor, sizeof e->vendor, NULL},
            {"version", e->version, sizeof e->version, NULL},
            {"glsl", e->glsl, sizeof e->glsl, NULL},
            {"backend", e->backend, sizeof e->backend, NULL},
            {"cpu", e->cpu, sizeof e->cpu, NULL},
            {"written", e->written, sizeof e->written, NULL},
            {"device", NULL, 0, &e->device},
            {"max draw buffers", NULL, 0, &e->max_draw_buffers},
            {"max texture size", NULL, 0, &e->max_texture_size},
            {"cpus", NULL, 0, &e->nproc},
            {"blas threads", NULL, 0, &e->blas_threads},
        };
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
            if (strcmp(line, keys[i].key))
                continue;
            if (keys[i].s)
                snprintf(keys[i].s, keys[i].len, "%s", v);
            else
                *keys[i].i = atoi(v);
        }
    }
    free(text);
    e->have = e->renderer[0] != '\0';
    return 0;
}
