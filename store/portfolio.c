/* A few variants that run well on many browser cards: see portfolio.h. */
#include "store/portfolio.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/paths.h"

/* Index of s in names[0..n), or -1. */
static long find(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return (long)i;
    return -1;
}

void store_portfolio_free(gg_portfolio *p)
{
    if (!p)
        return;
    free(p->cells);
    p->cells = NULL;
    p->ncells = 0;
    p->nchosen = 0;
}

int store_portfolio_select(const gg_portfolio_rate *rates, size_t n, int max, gg_portfolio *out,
                           char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (max < 1 || max > GG_PORTFOLIO_MAX) {
        snprintf(err, errlen, "a portfolio holds 1 to %d variants, not %d", GG_PORTFOLIO_MAX, max);
        return -1;
    }
    /* The distinct variants and cells (pointers into rates), and the rate
     * of each variant in each cell (its fastest; 0: not measured there). */
    const char **vars = malloc((n ? n : 1) * sizeof *vars), **cells = malloc((n ? n : 1) * sizeof *cells);
    size_t nv = 0, nc = 0;
    double *rate = NULL, *best = NULL, *cover = NULL;
    bool *taken = NULL;
    int rc = -1;
    if (!vars || !cells)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (!(rates[i].gflops > 0))
            continue;
        if (find(vars, nv, rates[i].variant) < 0)
            vars[nv++] = rates[i].variant;
        if (find(cells, nc, rates[i].cell) < 0)
            cells[nc++] = rates[i].cell;
    }
    rate = calloc(nv * nc + 1, sizeof *rate);
    best = calloc(nc + 1, sizeof *best);
    cover = calloc(nc + 1, sizeof *cover);
    taken = calloc(nv + 1, sizeof *taken);
    out->cells = calloc(nc + 1, sizeof *out->cells);
    if (!rate || !best || !cover || !taken || !out->cells)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (!(rates[i].gflops > 0))
            continue;
        size_t v = (size_t)find(vars, nv, rates[i].variant), c = (size_t)find(cells, nc, rates[i].cell);
        if (rates[i].gflops > rate[v * nc + c])
            rate[v * nc + c] = rates[i].gflops;
        if (rates[i].gflops > best[c])
            best[c] = rates[i].gflops;
    }
    out->ncells = nc;
    for (size_t c = 0; c < nc; c++) {
        snprintf(out->cells[c].cell, sizeof out->cells[c].cell, "%s", cells[c]);
        out->cells[c].best = best[c];
        out->cells[c].by = -1;
    }
    double sum = 0;
    while (out->nchosen < max) {
        long pick = -1;
        double gain_best = 0;
        for (size_t v = 0; v < nv; v++) {
            if (taken[v])
                continue;
            double gain = 0;
            for (size_t c = 0; c < nc; c++) {
                double r = rate[v * nc + c] / best[c];
                if (r > cover[c])
                    gain += r - cover[c];
            }
            if (gain <= GG_PORTFOLIO_EPS)
                continue;
            /* A clear gain wins; a tie (within EPS) goes to the text that sorts first. */
            if (pick < 0 || gain > gain_best + GG_PORTFOLIO_EPS ||
                (gain >= gain_best - GG_PORTFOLIO_EPS && strcmp(vars[v], vars[pick]) < 0)) {
                pick = (long)v;
                gain_best = gain;
            }
        }
        if (pick < 0)
            break;
        taken[pick] = true;
        for (size_t c = 0; c < nc; c++) {
            double r = rate[(size_t)pick * nc + c] / best[c];
            if (r > cover[c]) {
                cover[c] = r;
                out->cells[c].coverage = r;
                out->cells[c].by = out->nchosen;
            }
        }
        sum += gain_best;
        snprintf(out->chosen[out->nchosen], sizeof out->chosen[0], "%s", vars[pick]);
        out->sum[out->nchosen] = sum;
        out->nchosen++;
    }
    rc = 0;
done:
    if (rc)
        snprintf(err, errlen, "out of memory choosing a portfolio from %zu rates", n);
    free(vars);
    free(cells);
    free(rate);
    free(best);
    free(cover);
    free(taken);
    if (rc)
        store_portfolio_free(out);
    return rc;
}

/* ---- reading the records ---- */

typedef struct {
    gg_record_want want;
    void *user;
    const char *cell;
    gg_portfolio_rate *rates;
    size_t n, cap;
    bool oom;
} reader;

static void take_row(void *user, const gg_variant *v, const gg_measurement *m)
{
    reader *r = user;
    if (r->oom || m->status != GG_OK || !(m->gflops > 0) || (r->want && !r->want(r->user, v)))
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        gg_portfolio_rate *p = realloc(r->rates, cap * sizeof *p);
        if (!p) {
            r->oom = true;
            return;
        }
        r->rates = p;
        r->cap = cap;
    }
    gg_portfolio_rate *x = &r->rates[r->n++];
    snprintf(x->cell, sizeof x->cell, "%s", r->cell);
    gen_variant_format(v, x->variant, sizeof x->variant);
    x->gflops = m->gflops;
}

typedef struct {
    int m, n, k;
} size3;

static int by_size(const void *pa, const void *pb)
{
    const size3 *a = pa, *b = pb;
    if (a->m != b->m)
        return a->m < b->m ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static int by_name(const void *pa, const void *pb)
{
    return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* The names in folder path that keep(name) accepts, sorted (malloc'd). */
static int list_dir(const char *path, bool (*keep)(const char *), char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!keep(e->d_name))
            continue;
        if (*count == cap) {
            char **p = realloc(*names, (cap ? 2 * cap : 16) * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            *names = p;
            cap = cap ? 2 * cap : 16;
        }
        if (!((*names)[*count] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        (*count)++;
    }
    closedir(d);
    if (*count)
        qsort(*names, *count, sizeof **names, by_name);
    return rc;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

static bool browser_card(const char *name)
{
    return !strncmp(name, GG_BROWSER_CARD_PREFIX, strlen(GG_BROWSER_CARD_PREFIX)) &&
           strlen(name) < GG_CARD_MAX;
}

static bool records_name(const char *name)
{
    int m, n, k;
    return store_records_name_parse(name, &m, &n, &k);
}

int store_portfolio_read(const char *dir, gg_record_want want, void *user, gg_portfolio_rate **rates,
                         size_t *n, int *cards, char *err, size_t errlen)
{
    reader r = {.want = want, .user = user};
    char **card = NULL;
    size_t ncard = 0;
    int rc = list_dir(dir, browser_card, &card, &ncard);
    *cards = 0;
    for (size_t i = 0; !rc && i < ncard; i++) {
        char path[1024];
        store_card_dir(path, sizeof path, dir, card[i]);
        char **files = NULL;
        size_t nfiles = 0;
        size3 *sizes = NULL;
        if (list_dir(path, records_name, &files, &nfiles) ||
            !(sizes = malloc((nfiles ? nfiles : 1) * sizeof *sizes))) {
            rc = -1;
        } else {
            (*cards)++;
            for (size_t f = 0; f < nfiles; f++)
                store_records_name_parse(files[f], &sizes[f].m, &sizes[f].n, &sizes[f].k);
            if (nfiles)
                qsort(sizes, nfiles, sizeof *sizes, by_size);
            for (size_t f = 0; !rc && f < nfiles; f++) {
                char cell[GG_PORTFOLIO_CELL];
                snprintf(cell, sizeof cell, "%s %dx%dx%d", card[i], sizes[f].m, sizes[f].n, sizes[f].k);
                r.cell = cell;
                if (store_records_scan(dir, card[i], sizes[f].m, sizes[f].n, sizes[f].k, take_row, &r,
                                       NULL, err, errlen) < 0)
                    rc = -2;
                else if (r.oom)
                    rc = -1;
            }
        }
        free(sizes);
        free_names(files, nfiles);
    }
    free_names(card, ncard);
    if (rc == -1)
        snprintf(err, errlen, "out of memory reading the browser cards' records in %s/", dir);
    if (rc) {
        free(r.rates);
        *rates = NULL;
        *n = 0;
        return -1;
    }
    *rates = r.rates;
    *n = r.n;
    return 0;
}
