/* glgemm export: an ES module folder for web pages (SPEC.md "Commands";
 * issue 29): DIR/glgemm.js, the WebGL2 runtime (web/src/, joined into web/dist/glgemm.js) with its
 * DEFAULT_VARIANT set to the exported variant, and DIR/glgemm-gen.wasm,
 * gen/ compiled to WebAssembly (`make web`), which the runtime loads from
 * beside itself.  Any shape runs, not only the exported one: the shader is
 * generated per shape in the page.
 *
 *  - VARIANT is a variant or `best`: the fastest WebGL2-capable record of
 *    the card (profile=300es, compiler=glsl, out=rt, fetch texture,
 *    texelfetch or ubo, store=f32, status ok) in results/<card>/
 *    tune-MxNxK.csv for the problem, else in the records of the recorded
 *    size nearest to it (store/nearest.h's distance).  None: exit 2 naming
 *    what to run.  The card: --card SLUG, else this device's (as gen).
 *  - A variant WebGL2 cannot run (another profile, SPIR-V, image or buffer
 *    fetches, out=image) is bad input: exit 2 naming why.
 *  - The two files come from the first folder holding both of:
 *    $GLGEMM_WEB_DIR, <the binary's folder>/web/dist (`make web` writes
 *    it), <the binary's folder>/../share/glgemm/web (`make install`).
 *    They are read at run time rather than linked into the binary, so
 *    that building glgemm needs no WebAssembly toolchain.
 *  - Beside them, copied as they are from the same folder (issue 39): the
 *    npm package's other files, glgemm-tfjs.js (TensorFlow.js's matrix
 *    kernels through glgemm), glgemm.d.ts, glgemm-tfjs.d.ts, package.json.
 *  - Written as a pair: both to temporary files in DIR first, then renamed;
 *    a failure removes the temporary files (and DIR when export made it),
 *    leaving DIR as it was. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/slug.h"
#include "cli/cli.h"
#include "store/paths.h"
#include "store/portfolio.h"
#include "store/records.h"

enum { OPT_JS = 1, OPT_CARD, OPT_PORTFOLIO, OPT_MAX };

#define RESULTS_DIR "results"
#define RUNTIME_JS "glgemm.js"
#define RUNTIME_WASM "glgemm-gen.wasm"
/* The rest of the npm package (issue 39), copied as they are from the
 * runtime's folder: the TensorFlow.js module, both modules' declarations
 * and package.json. */
static const char *const COMPANIONS[] = {"glgemm-tfjs.js", "glgemm.d.ts", "glgemm-tfjs.d.ts", "package.json"};
#define NCOMPANIONS (sizeof COMPANIONS / sizeof COMPANIONS[0])
#define DEFAULT_LINE "export const DEFAULT_VARIANT = \""
#define DEFAULT_DF_LINE "export const DEFAULT_DF_VARIANT = \""
#define PORTFOLIO_LINE "export const PORTFOLIO = ["
#define MAX_RUNTIME (64u << 20)

static const char usage[] =
    "usage: glgemm export VARIANT [--m M --n N --k K | --size S] --js DIR [--card SLUG]\n"
    "       glgemm export --portfolio [--max N] [VARIANT] --js DIR\n"
    "\n"
    "Writes an ES module folder for web pages: DIR/glgemm.js (the WebGL2 runtime,\n"
    "exporting init, matmul(gl, a, b, m, n, k, {alpha, beta, c, transa, transb}),\n"
    "createRunner and DEFAULT_VARIANT = the exported variant) and DIR/glgemm-gen.wasm\n"
    "(glgemm's shader generator, which glgemm.js loads from beside itself), with\n"
    "DIR/glgemm-tfjs.js (TensorFlow.js's matrix kernels through glgemm), both\n"
    "modules' .d.ts and a package.json: DIR is an npm package (npm install DIR).\n"
    "Any shape works in the page, not only the problem's.\n"
    "VARIANT: a variant with profile=300es (WebGL2 runs GLSL ES 3.00 only), or\n"
    "`best`: the card's fastest WebGL2-capable record for the problem (else for\n"
    "the nearest recorded size).  A store=df VARIANT sets DEFAULT_DF_VARIANT\n"
    "instead, what matmul runs on Float64Arrays (double-float).\n"
    "\n"
    "  --js DIR      the folder to write (made if missing; its parent must exist)\n"
    "  --card SLUG   card whose results/SLUG/ records `best` reads\n"
    "                (default: this device's, if a GL context can be made)\n"
    "  --portfolio   the module carries a few variants (PORTFOLIO) chosen by greedy\n"
    "                coverage over every browser card's records (results/chromium-*/,\n"
    "                all sizes); matmul without a variant races them once per GPU and\n"
    "                shape class, verified, and remembers the winner.  Prints the\n"
    "                chosen set and each card and size's coverage.  DEFAULT_VARIANT:\n"
    "                VARIANT if given, else the portfolio's first\n"
    "  --max N       with --portfolio: at most N variants, 1 to 8 (default 8)\n"
    "  --m M --n N --k K, --size S   the problem `best` is for (default 1024 each)\n"
    "  the other problem options (--transa, --transb, --alpha, --beta, --seed,\n"
    "  --a, --b, --c, --out, --reps) are accepted and change nothing\n"
    "environment: GLGEMM_WEB_DIR  a folder holding glgemm.js and glgemm-gen.wasm\n"
    "             (default: <binary's folder>/web/dist, then\n"
    "             <binary's folder>/../share/glgemm/web)\n"
    "exit status: 0 ok, 2 bad usage or input (a variant WebGL2 cannot run, no record,\n"
    "             no browser records for --portfolio, a bad --max)\n";

typedef struct {
    cli_common *common;
    const char *js;
    const char *card;
    bool portfolio;
    const char *max; /* --max's text (checked once the options are read) */
} export_opts;

static int handle(void *self, int id, const char *value)
{
    export_opts *o = self;
    switch (id) {
    case OPT_JS: o->js = value; return 0;
    case OPT_CARD: return cli_card_option(o->common, value, &o->card);
    case OPT_PORTFOLIO: o->portfolio = true; return 0;
    case OPT_MAX: o->max = value; return 0;
    }
    return cli_error(o->common, "internal: unhandled option");
}

/* Why WebGL2 cannot run v, or NULL when it can (the runtime's own rules,
 * web/src/runner.js Runner.verdict; the card's limits are the page's). */
static const char *webgl_why(const gg_variant *v)
{
    if (v->profile != GG_PROFILE_300ES)
        return "WebGL2 runs GLSL ES 3.00 only (profile=300es)";
    if (v->compiler != GG_COMPILER_GLSL)
        return "compiler=spirv: WebGL2 compiles GLSL source only";
    if (v->out != GG_OUT_RT)
        return "out=image: WebGL2 has no image load/store";
    if (v->fetch == GG_FETCH_IMAGE)
        return "fetch=image: WebGL2 has no image load/store";
    if (v->fetch == GG_FETCH_BUFFER)
        return "fetch=buffer: WebGL2 has no buffer textures";
    if (v->store == GG_STORE_F64 || v->store == GG_STORE_DD)
        return v->store == GG_STORE_F64 ? "store=f64 needs double arithmetic, which GLSL ES 3.00 lacks "
                                          "(store=df runs in a page)"
                                        : "store=dd needs double arithmetic, which GLSL ES 3.00 lacks "
                                          "(store=df runs in a page)";
    return NULL;
}

/* A gg_record_want: what `best` may pick (fp32 storage: the page's caller
 * expects fp32 results). */
static bool want_webgl(void *user, const gg_variant *v)
{
    (void)user;
    return !webgl_why(v) && v->store == GG_STORE_F32;
}

typedef struct {
    int m, n, k;
    double dist;
} sized;

static int by_distance(const void *pa, const void *pb)
{
    const sized *a = pa, *b = pb;
    if (a->dist != b->dist)
        return a->dist < b->dist ? -1 : 1;
    double va = (double)a->m * a->n * a->k, vb = (double)b->m * b->n * b->k;
    if (va != vb)
        return va > vb ? -1 : 1; /* ties: the larger problem, as store/nearest.h */
    if (a->m != b->m)
        return a->m < b->m ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* `best`: the fastest WebGL2-capable ok record of the problem, else of the
 * nearest recorded size that has one.  0 with *v and from[] the size it
 * came from, or -1 with one line in why. */
static int find_best(const char *card, int m, int n, int k, gg_variant *v, int from[3], char *why,
                     size_t len)
{
    char err[300];
    int rc = store_records_fastest(RESULTS_DIR, card, m, n, k, want_webgl, NULL, v, NULL, err, sizeof err);
    if (rc < 0) {
        snprintf(why, len, "best: %s", err);
        return -1;
    }
    from[0] = m, from[1] = n, from[2] = k;
    if (rc == 1)
        return 0;
    /* The card's other records files, nearest size first. */
    char dir[600];
    store_card_dir(dir, sizeof dir, RESULTS_DIR, card);
    sized *sizes = NULL;
    size_t count = 0, cap = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        sized s;
        if (!store_records_name_parse(e->d_name, &s.m, &s.n, &s.k) || (s.m == m && s.n == n && s.k == k))
            continue;
        if (count == cap) {
            sized *p = realloc(sizes, (cap ? 2 * cap : 16) * sizeof *p);
            if (!p)
                break;
            sizes = p;
            cap = cap ? 2 * cap : 16;
        }
        s.dist = fabs(log((double)m / s.m)) + fabs(log((double)n / s.n)) + fabs(log((double)k / s.k));
        sizes[count++] = s;
    }
    if (d)
        closedir(d);
    if (count)
        qsort(sizes, count, sizeof *sizes, by_distance);
    int found = -1;
    for (size_t i = 0; i < count && found < 0; i++)
        if (store_records_fastest(RESULTS_DIR, card, sizes[i].m, sizes[i].n, sizes[i].k, want_webgl,
                                  NULL, v, NULL, err, sizeof err) == 1) {
            from[0] = sizes[i].m, from[1] = sizes[i].n, from[2] = sizes[i].k;
            found = 0;
        }
    free(sizes);
    if (found)
        snprintf(why, len, "best: no WebGL2-capable ok record (profile=300es, out=rt, store=f32) for "
                 "card %s in %s/: run glgemm tune --backend browser --m %d --n %d --k %d (or glgemm "
                 "tune --fix profile=300es on that card) first, or export a variant", card, dir, m, n, k);
    return found;
}

/* The folder holding both runtime files, into buf; -1 with why if none. */
static int runtime_dir(char *buf, size_t len, char *why, size_t whylen)
{
    char exe[PATH_MAX], cand[3][PATH_MAX];
    int nc = 0;
    const char *env = getenv("GLGEMM_WEB_DIR");
    if (env && *env)
        if (snprintf(cand[nc], sizeof cand[0], "%s", env) < (int)sizeof cand[0])
            nc++;
    ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (got > 0) {
        exe[got] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        if (snprintf(cand[nc], sizeof cand[0], "%.3000s/web/dist", exe) < (int)sizeof cand[0])
            nc++;
        if (snprintf(cand[nc], sizeof cand[0], "%.3000s/../share/glgemm/web", exe) < (int)sizeof cand[0])
            nc++;
    }
    for (int i = 0; i < nc; i++) {
        char js[PATH_MAX + 96], wasm[PATH_MAX + 96];
        snprintf(js, sizeof js, "%s/" RUNTIME_JS, cand[i]);
        snprintf(wasm, sizeof wasm, "%s/" RUNTIME_WASM, cand[i]);
        if (access(js, R_OK) == 0 && access(wasm, R_OK) == 0 &&
            snprintf(buf, len, "%s", cand[i]) < (int)len)
            return 0;
    }
    snprintf(why, whylen, "the WebGL2 runtime (" RUNTIME_JS " and " RUNTIME_WASM ") is not in %.300s%s%.300s: "
             "run make web (or make install), or set GLGEMM_WEB_DIR", nc ? cand[0] : "?",
             nc > 1 ? ", " : "", nc > 1 ? cand[1] : "");
    return -1;
}

/* js (len bytes) with its one line starting with prefix replaced by
 * line (malloc'd, *outlen bytes), or NULL with why. */
static char *with_line(const char *js, size_t len, const char *prefix, const char *line, size_t *outlen,
                       char *why, size_t whylen)
{
    const char *at = NULL;
    size_t pl = strlen(prefix);
    for (const char *p = js; p && p < js + len; p = memchr(p, '\n', (size_t)(js + len - p)), p = p ? p + 1 : NULL)
        if ((size_t)(js + len - p) >= pl && !memcmp(p, prefix, pl)) {
            if (at) {
                snprintf(why, whylen, RUNTIME_JS ": two lines starting '%s'", prefix);
                return NULL;
            }
            at = p;
        }
    if (!at) {
        snprintf(why, whylen, RUNTIME_JS ": no line starting '%s'", prefix);
        return NULL;
    }
    const char *end = memchr(at, '\n', (size_t)(js + len - at));
    end = end ? end : js + len;
    size_t before = (size_t)(at - js), mid = strlen(line), after = (size_t)(js + len - end);
    char *out = malloc(before + mid + after + 1);
    if (!out) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    memcpy(out, js, before);
    memcpy(out + before, line, mid);
    memcpy(out + before + mid, end, after);
    out[before + mid + after] = '\0';
    *outlen = before + mid + after;
    return out;
}

/* The runtime with its DEFAULT_VARIANT line (df: DEFAULT_DF_VARIANT, for
 * Float64Arrays) set to canon and, for a portfolio (count > 0), its
 * PORTFOLIO line listing list[0..count) (and, with df, DEFAULT_VARIANT
 * the first of them) (malloc'd), or NULL with why.  Canonical variants
 * hold no quote or backslash: they go into the JavaScript strings as they
 * are. */
static char *with_variants(const char *js, size_t len, const char *canon, bool df,
                           const char (*list)[GG_VARIANT_TEXT], int count, size_t *outlen, char *why,
                           size_t whylen)
{
    char def[GG_VARIANT_TEXT + 64];
    snprintf(def, sizeof def, "%s%s\";", df ? DEFAULT_DF_LINE : DEFAULT_LINE, canon);
    char *out = with_line(js, len, df ? DEFAULT_DF_LINE : DEFAULT_LINE, def, outlen, why, whylen);
    if (out && df && count > 0) {
        snprintf(def, sizeof def, DEFAULT_LINE "%s\";", list[0]);
        size_t len1 = *outlen;
        char *out1 = with_line(out, len1, DEFAULT_LINE, def, outlen, why, whylen);
        free(out);
        out = out1;
    }
    if (!out || count == 0)
        return out;
    char line[GG_PORTFOLIO_MAX * (GG_VARIANT_TEXT + 4) + 64];
    size_t used = (size_t)snprintf(line, sizeof line, PORTFOLIO_LINE);
    for (int i = 0; i < count; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s\"%s\"", i ? ", " : "", list[i]);
    snprintf(line + used, sizeof line - used, "];");
    size_t len2 = *outlen;
    char *out2 = with_line(out, len2, PORTFOLIO_LINE, line, outlen, why, whylen);
    free(out);
    return out2;
}

/* One file's contents into a new temporary file in dir: its path in tmp.
 * 0, or -1 with why (the file removed). */
static int write_temp(const char *dir, const char *name, const char *data, size_t len, char *tmp,
                      size_t tmplen, char *why, size_t whylen)
{
    snprintf(tmp, tmplen, "%s/.%s.tmp-XXXXXX", dir, name);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a file in %s: %s", dir, strerror(errno));
        tmp[0] = '\0';
        return -1;
    }
    if (base_write_full(fd, data, len) || fchmod(fd, 0644) || fsync(fd)) {
        snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        tmp[0] = '\0';
        return -1;
    }
    if (close(fd)) {
        snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        tmp[0] = '\0';
        return -1;
    }
    return 0;
}

/* DIR/glgemm.js and DIR/glgemm-gen.wasm, both or neither.  0, or -1 with why. */
static int write_pair(const char *dir, const char *js, size_t jslen, const char *wasm, size_t wlen,
                      char *why, size_t whylen)
{
    bool made = false;
    if (mkdir(dir, 0777) == 0) {
        made = true;
    } else if (errno != EEXIST) {
        snprintf(why, whylen, "cannot make %s: %s", dir, strerror(errno));
        return -1;
    } else {
        struct stat st;
        if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "%s exists and is not a folder", dir);
            return -1;
        }
    }
    char tjs[PATH_MAX + 64] = "", twasm[PATH_MAX + 64] = "";
    char pjs[PATH_MAX + 64], pwasm[PATH_MAX + 64];
    snprintf(pjs, sizeof pjs, "%s/" RUNTIME_JS, dir);
    snprintf(pwasm, sizeof pwasm, "%s/" RUNTIME_WASM, dir);
    int rc = write_temp(dir, RUNTIME_WASM, wasm, wlen, twasm, sizeof twasm, why, whylen);
    if (!rc)
        rc = write_temp(dir, RUNTIME_JS, js, jslen, tjs, sizeof tjs, why, whylen);
    if (!rc && rename(twasm, pwasm)) {
        snprintf(why, whylen, "cannot rename %.300s to %.300s: %s", twasm, pwasm, strerror(errno));
        rc = -1;
    } else if (!rc) {
        twasm[0] = '\0';
    }
    if (!rc && rename(tjs, pjs)) {
        snprintf(why, whylen, "cannot rename %.300s to %.300s: %s", tjs, pjs, strerror(errno));
        unlink(pwasm); /* not half a pair */
        rc = -1;
    } else if (!rc) {
        tjs[0] = '\0';
    }
    if (tjs[0])
        unlink(tjs);
    if (twasm[0])
        unlink(twasm);
    if (rc && made)
        rmdir(dir);
    return rc;
}

/* The companions from src into dir, each written to a temporary file and
 * renamed.  0, or -1 with why (one missing: make web). */
static int write_companions(const char *src, const char *dir, char *why, size_t whylen)
{
    for (size_t i = 0; i < NCOMPANIONS; i++) {
        char from[PATH_MAX + 96], to[PATH_MAX + 96], tmp[PATH_MAX + 64];
        snprintf(from, sizeof from, "%s/%s", src, COMPANIONS[i]);
        snprintf(to, sizeof to, "%s/%s", dir, COMPANIONS[i]);
        size_t len = 0;
        char err[600];
        char *data = base_read_text(from, MAX_RUNTIME, &len, err, sizeof err);
        if (!data) {
            snprintf(why, whylen, "%s (the npm package's files come from make web)", err);
            return -1;
        }
        int rc = write_temp(dir, COMPANIONS[i], data, len, tmp, sizeof tmp, why, whylen);
        free(data);
        if (!rc && rename(tmp, to)) {
            snprintf(why, whylen, "cannot rename %.300s to %.300s: %s", tmp, to, strerror(errno));
            unlink(tmp);
            rc = -1;
        }
        if (rc)
            return -1;
    }
    return 0;
}

/* --portfolio: the selection over every browser card's WebGL2-capable
 * records into *pf.  0, or EXIT_USAGE after one line (no browser
 * records: what to run). */
static int choose_portfolio(const cli_common *c, int max, gg_portfolio *pf)
{
    gg_portfolio_rate *rates = NULL;
    size_t n = 0;
    int cards = 0;
    char err[900];
    if (store_portfolio_read(RESULTS_DIR, want_webgl, NULL, &rates, &n, &cards, err, sizeof err))
        return cli_error(c, "--portfolio: %s", err);
    if (n == 0) {
        free(rates);
        return cli_error(c, "--portfolio: no WebGL2-capable ok record (profile=300es, out=rt, store=f32) in "
                         "%d browser card folder%s (" RESULTS_DIR "/" GG_BROWSER_CARD_PREFIX "*/tune-MxNxK.csv): "
                         "run glgemm tune --backend browser first", cards, cards == 1 ? "" : "s");
    }
    int rc = store_portfolio_select(rates, n, max, pf, err, sizeof err);
    free(rates);
    if (rc)
        return cli_error(c, "--portfolio: %s", err);
    return 0;
}

static void print_portfolio(const gg_portfolio *pf, int max)
{
    printf("portfolio: %d variant%s over %zu (card, size) pair%s (greedy coverage, at most %d)\n", pf->nchosen,
           pf->nchosen == 1 ? "" : "s", pf->ncells, pf->ncells == 1 ? "" : "s", max);
    for (int i = 0; i < pf->nchosen; i++)
        printf("  %d  %s  (summed coverage %.3f of %zu)\n", i + 1, pf->chosen[i], pf->sum[i], pf->ncells);
    printf("coverage (the best chosen variant's GFLOP/s over the card's best at that size):\n");
    for (size_t i = 0; i < pf->ncells; i++) {
        const gg_portfolio_cell *x = &pf->cells[i];
        if (x->by >= 0)
            printf("  %-44s %6.3f  (variant %d; best %.4g GFLOP/s)\n", x->cell, x->coverage, x->by + 1, x->best);
        else
            printf("  %-44s %6.3f  (none; best %.4g GFLOP/s)\n", x->cell, x->coverage, x->best);
    }
}

/* Writes the module with DEFAULT_VARIANT text (a variant or best) and,
 * where pf holds some, its PORTFOLIO; prints what it wrote.  0, or
 * EXIT_USAGE after one line. */
static int export_module(cli_common *c, const export_opts *o, const char *text, const gg_portfolio *pf,
                         int max)
{
    int m = c->prob.m, n = c->prob.n, k = c->prob.k;
    gg_variant best, v;
    const gg_variant *bestp = NULL;
    char err[900];
    int from[3] = {m, n, k};
    const char *card = o->card;
    char slug[GG_CARD_MAX];
    if (cli_names_best(text)) {
        if (cli_best_card(c, o->card, slug, sizeof slug, &card))
            return EXIT_USAGE;
        if (find_best(card, m, n, k, &best, from, err, sizeof err))
            return cli_error(c, "%s", err);
        bestp = &best;
    }
    if (gen_variant_parse(text, bestp, &v, err, sizeof err))
        return cli_error(c, "%s", err);
    char canon[GG_VARIANT_TEXT];
    gen_variant_format(&v, canon, sizeof canon);
    const char *no = webgl_why(&v);
    if (no)
        return cli_error(c, "%s cannot run in WebGL2: %s", canon, no);
    gg_card_limits lim = {.max_draw_buffers = GG_MAX_TARGETS, .max_texture_size = 1 << 14,
                          .float_blend = true, .es = true, .gl_version = 30};
    if (gen_variant_check_card(&v, &lim, err, sizeof err) != GG_CARD_OK)
        return cli_error(c, "%s cannot run in WebGL2: %s", canon, err);

    char dir[PATH_MAX];
    if (runtime_dir(dir, sizeof dir, err, sizeof err))
        return cli_error(c, "%s", err);
    char pjs[PATH_MAX + 64], pwasm[PATH_MAX + 64];
    snprintf(pjs, sizeof pjs, "%s/" RUNTIME_JS, dir);
    snprintf(pwasm, sizeof pwasm, "%s/" RUNTIME_WASM, dir);
    size_t jslen = 0, wlen = 0, outlen = 0;
    char *js = base_read_text(pjs, MAX_RUNTIME, &jslen, err, sizeof err);
    if (!js)
        return cli_error(c, "%s", err);
    char *wasm = base_read_text(pwasm, MAX_RUNTIME, &wlen, err, sizeof err);
    char *out = wasm ? with_variants(js, jslen, canon, v.store == GG_STORE_DF,
                                     (const char(*)[GG_VARIANT_TEXT])pf->chosen,
                                     pf->nchosen, &outlen, err, sizeof err)
                     : NULL;
    int rc = out ? write_pair(o->js, out, outlen, wasm, wlen, err, sizeof err) : -1;
    if (!rc)
        rc = write_companions(dir, o->js, err, sizeof err);
    free(js);
    free(wasm);
    free(out);
    if (rc)
        return cli_error(c, "%s", err);
    if (bestp && (from[0] != m || from[1] != n || from[2] != k))
        printf("%s (best of %s at %dx%dx%d, the nearest recorded size to %dx%dx%d)\n", canon, card,
               from[0], from[1], from[2], m, n, k);
    else if (bestp)
        printf("%s (best of %s at %dx%dx%d)\n", canon, card, m, n, k);
    else
        printf("%s\n", canon);
    if (pf->nchosen)
        print_portfolio(pf, max);
    printf("wrote %s/" RUNTIME_JS " and %s/" RUNTIME_WASM, o->js, o->js);
    for (size_t i = 0; i < NCOMPANIONS; i++)
        printf(", %s", COMPANIONS[i]);
    printf(" (an npm package: npm install %s)\n", o->js);
    return 0;
}

int cmd_export(int argc, char **argv)
{
    static const cli_opt own[] = {
        {"js", 1, OPT_JS},
        {"card", 1, OPT_CARD},
        {"portfolio", 0, OPT_PORTFOLIO},
        {"max", 1, OPT_MAX},
        {NULL, 0, 0},
    };
    cli_common c = {.cmd = "export"};
    export_opts o = {.common = &c};
    int rc = cli_parse(argc, argv, &c, own, handle, &o, true, usage);
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    int max = GG_PORTFOLIO_MAX;
    if (o.max && !o.portfolio)
        return cli_error(&c, "--max goes with --portfolio (the most variants the portfolio holds)");
    if (o.max) {
        char *end = NULL;
        long x = strtol(o.max, &end, 10);
        if (!*o.max || *end || o.max[0] == '+' || o.max[0] == ' ' || x < 1 || x > GG_PORTFOLIO_MAX)
            return cli_error(&c, "--max must be an integer from 1 to %d, got '%s'", GG_PORTFOLIO_MAX, o.max);
        max = (int)x;
    }
    if (c.npositional > 1 || (c.npositional == 0 && !o.portfolio))
        return cli_error(&c, c.npositional ? "one variant only, got '%s' and '%s'"
                                           : "give a variant (profile=300es,...) or best%s%s",
                         c.npositional ? c.positional[0] : "", c.npositional > 1 ? c.positional[1] : "");
    if (!o.js)
        return cli_error(&c, "--js DIR is required: the folder to write");
    gg_portfolio pf = {0};
    if (o.portfolio && choose_portfolio(&c, max, &pf))
        return EXIT_USAGE;
    rc = export_module(&c, &o, c.npositional ? c.positional[0] : pf.chosen[0], &pf, max);
    store_portfolio_free(&pf);
    return rc;
}
