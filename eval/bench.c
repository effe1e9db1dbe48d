/* bench rows, table and CSV: see bench.h. */
#include "eval/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "gen/util.h"

const char *const eval_bench_names[GG_BENCH_ALL_ROWS] = {
    "larsen", "nv-multi", "nv-single", "tfjs", "best", "best-image", "best-f16", "best-f16x8",
    "best-f64", "best-df", "cpu-blas", "cpu-dgemm", "tfjs-webgl", "tfjs-webgpu", "model-dense-tfjs", "model-dense-glgemm",
    "model-encoder-tfjs", "model-encoder-glgemm",
};

bool eval_bench_row_model(int i) { return i >= GG_BENCH_MODEL_DENSE_TFJS && i <= GG_BENCH_MODEL_ENCODER_GLGEMM; }

/* Rows without a variant: their variant columns are empty. */
static bool variantless(int i)
{
    return i == GG_BENCH_CPU || i == GG_BENCH_CPU_DGEMM || i == GG_BENCH_TFJS_WEBGL ||
           i == GG_BENCH_TFJS_WEBGPU ||
           i == GG_BENCH_MODEL_DENSE_TFJS || i == GG_BENCH_MODEL_ENCODER_TFJS;
}

const char *eval_bench_row_what(int i)
{
    switch (i) {
    case GG_BENCH_CPU: return "cblas_sgemm (OpenBLAS)";
    case GG_BENCH_CPU_DGEMM: return "cblas_dgemm (OpenBLAS, the inputs as doubles)";
    case GG_BENCH_TFJS_WEBGL: return "tf.matMul (TensorFlow.js, webgl backend, read-back included)";
    case GG_BENCH_TFJS_WEBGPU: return "tf.matMul (TensorFlow.js, webgpu backend, read-back included)";
    case GG_BENCH_MODEL_DENSE_TFJS: return "dense model, TensorFlow.js alone (predict, read-back)";
    case GG_BENCH_MODEL_ENCODER_TFJS: return "encoder block, TensorFlow.js alone (run, read-back)";
    }
    return NULL;
}

bool eval_bench_row_tuned(int i) { return i >= GG_BENCH_BEST && i <= GG_BENCH_BEST_DF; }

bool eval_bench_row_optional(int i)
{
    return (eval_bench_row_tuned(i) && i != GG_BENCH_BEST) || i == GG_BENCH_CPU_DGEMM ||
           i == GG_BENCH_TFJS_WEBGL || i == GG_BENCH_TFJS_WEBGPU || eval_bench_row_model(i);
}

const char *eval_bench_row_precision(const gg_bench *b, int i)
{
    if (i < 0 || i >= GG_BENCH_ALL_ROWS)
        return "";
    if (b->rows[i].has_variant)
        return gen_store_name(b->rows[i].v.store);
    return gen_store_name(i == GG_BENCH_CPU_DGEMM ? GG_STORE_F64 : GG_STORE_F32);
}

int eval_bench_ratio_base(int i)
{
    return i == GG_BENCH_BEST_F64 || i == GG_BENCH_CPU_DGEMM ? GG_BENCH_CPU_DGEMM : GG_BENCH_CPU;
}

void eval_bench_ratios(gg_bench *b)
{
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        const gg_bench_row *cpu = &b->rows[eval_bench_ratio_base(i)];
        double base = cpu->present && cpu->m.status == GG_OK ? cpu->m.gflops : 0;
        b->rows[i].ratio = base > 0 && b->rows[i].present ? b->rows[i].m.gflops / base : 0;
    }
}

int eval_bench_run(gg_bench *b, const char *card, int m, int n, int k, const gg_bench_recorded *rec,
                 gg_eval_fn eval, void *eval_user, gg_cpu_fn cpu, void *cpu_user,
                 gg_bench_progress progress, void *progress_user)
{
    return eval_bench_run_ex(b, card, m, n, k, rec, eval, eval_user, cpu, cpu_user, NULL, progress,
                             progress_user);
}

int eval_bench_run_ex(gg_bench *b, const char *card, int m, int n, int k,
                      const gg_bench_recorded *rec, gg_eval_fn eval, void *eval_user, gg_cpu_fn cpu,
                      void *cpu_user, const gg_bench_extra *x, gg_bench_progress progress,
                      void *progress_user)
{
    static const gg_bench_recorded none = {0};
    rec = rec ? rec : &none;
    memset(b, 0, sizeof *b);
    snprintf(b->card, sizeof b->card, "%s", card);
    b->m = m;
    b->n = n;
    b->k = k;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        base_measurement_init(&b->rows[i].m);

    gg_bench_row *c = &b->rows[GG_BENCH_CPU];
    c->present = true;
    if (cpu(cpu_user, &c->m))
        return -1;
    eval_bench_ratios(b);
    if (progress)
        progress(progress_user, b, GG_BENCH_CPU);
    bool wide = x && x->dgemm;
    if (wide) {
        gg_bench_row *d = &b->rows[GG_BENCH_CPU_DGEMM];
        d->present = true;
        if (x->dgemm(x->dgemm_user, &d->m))
            return -1;
        eval_bench_ratios(b);
        if (progress)
            progress(progress_user, b, GG_BENCH_CPU_DGEMM);
    }

    for (int i = 0; i < GG_BENCH_CPU; i++) {
        gg_bench_row *r = &b->rows[i];
        if (eval_bench_row_tuned(i)) {
            const gg_variant *recs[] = {rec->best, rec->best_image, rec->best_f16,
                                        rec->best_f16x8, rec->best_f64,
                                        rec->best_df}; /* in the rows' order */
            const gg_variant *rv = recs[i - GG_BENCH_BEST];
            bool wide_row = i == GG_BENCH_BEST_F64 || i == GG_BENCH_BEST_DF;
            if (wide_row && !wide)
                continue;
            if (rv) {
                r->v = *rv;
            } else if (wide_row) { /* no record: the default (bench.h) */
                char err[256];
                if (gen_variant_parse(i == GG_BENCH_BEST_F64 ? GG_BENCH_DEFAULT_F64
                                                             : GG_BENCH_DEFAULT_DF,
                                      NULL, &r->v, err, sizeof err))
                    return -1; /* cannot happen: tests parse them */
                if (i == GG_BENCH_BEST_DF && x->es_presets)
                    r->v.profile = GG_PROFILE_300ES; /* df runs on fp32: WebGL2 too */
            } else {
                continue;
            }
        } else {
            char err[256];
            if (gen_variant_parse(eval_bench_names[i], NULL, &r->v, err, sizeof err))
                return -1; /* a preset that does not parse: cannot happen */
            if (x && x->es_presets)
                r->v.profile = GG_PROFILE_300ES;
        }
        r->present = r->has_variant = true;
        if (eval(eval_user, &r->v, &r->m))
            return -1;
        if (r->m.status != GG_OK)
            r->m.gflops = 0;
        eval_bench_ratios(b);
        if (progress)
            progress(progress_user, b, i);
    }
    const struct {
        gg_cpu_fn fn;
        int row;
    } tf[2] = {{x ? x->tfjs : NULL, GG_BENCH_TFJS_WEBGL},
               {x ? x->tfjs_webgpu : NULL, GG_BENCH_TFJS_WEBGPU}};
    for (int t = 0; t < 2; t++) {
        if (!tf[t].fn)
            continue;
        gg_bench_row *r = &b->rows[tf[t].row];
        r->present = true;
        if (tf[t].fn(x->tfjs_user, &r->m))
            return -1;
        if (r->m.status != GG_OK)
            r->m.gflops = 0;
        eval_bench_ratios(b);
        if (progress)
            progress(progress_user, b, tf[t].row);
    }
    if (x && x->models) {
        /* glgemm's variant: the card's best for the models' products, else
         * this problem's best, else the tfjs preset's */
        const gg_variant *gv = x->model_variant                ? x->model_variant
                               : b->rows[GG_BENCH_BEST].present ? &b->rows[GG_BENCH_BEST].v
                                                                : &b->rows[GG_BENCH_TFJS].v;
        for (int row = GG_BENCH_MODEL_DENSE_TFJS; row <= GG_BENCH_MODEL_ENCODER_GLGEMM; row++) {
            gg_bench_row *r = &b->rows[row];
            bool with = (row - GG_BENCH_MODEL_DENSE_TFJS) % 2;
            r->present = true;
            if (with) {
                r->v = *gv;
                r->has_variant = true;
            }
            if (x->models(x->models_user, (row - GG_BENCH_MODEL_DENSE_TFJS) / 2, with ? gv : NULL, &r->m))
                return -1;
            if (r->m.status != GG_OK)
                r->m.gflops = 0;
            eval_bench_ratios(b);
            if (progress)
                progress(progress_user, b, row);
        }
    }
    return 0;
}

int eval_bench_format_row(char *buf, size_t len, const gg_bench *b, int i)
{
    if (len)
        buf[0] = '\0';
    if (i < 0 || i >= GG_BENCH_ALL_ROWS || !b->rows[i].present)
        return -1;
    const gg_bench_row *r = &b->rows[i];
    gg_problem p;
    base_problem_default(&p);
    p.m = b->m;
    p.n = b->n;
    p.k = b->k;
    char mid[GG_CSV_ROW_MAX];
    if (store_csv_format(mid, sizeof mid, b->card, &p, r->has_variant ? &r->v : NULL, &r->m))
        return -1;
    int w = snprintf(buf, len, "%s,%s,%.6g", eval_bench_names[i], mid, r->ratio);
    if (w < 0 || (size_t)w >= len) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}

char *eval_bench_csv(const gg_bench *b)
{
    size_t cap = sizeof GG_BENCH_CSV_HEADER + 1 + GG_BENCH_ALL_ROWS * (GG_CSV_ROW_MAX + 64);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t o = (size_t)snprintf(out, cap, "%s\n", GG_BENCH_CSV_HEADER);
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        if (!b->rows[i].present)
            continue;
        char row[GG_CSV_ROW_MAX + 64];
        if (eval_bench_format_row(row, sizeof row, b, i)) {
            free(out);
            return NULL;
        }
        o += (size_t)snprintf(out + o, cap - o, "%s\n", row);
    }
    return out;
}

int eval_bench_write(const gg_bench *b, const char *path, char *err, size_t errlen)
{
    char *text = eval_bench_csv(b);
    if (!text)
        return gen_fail(err, errlen, "cannot format the bench rows of card '%s'", b->card);
    int rc = base_write_atomic(path, text, strlen(text), err, errlen);
    free(text);
    return rc;
}

static int name_index(const char *s, size_t len)
{
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        if (strlen(eval_bench_names[i]) == len && !strncmp(eval_bench_names[i], s, len))
            return i;
    return -1;
}

/* One data line of a bench CSV into b. */
static int parse_line(char *line, int lineno, const char *path, gg_bench *b, bool *first,
                      char *err, size_t errlen)
{
    line[strcspn(line, "\r\n")] = '\0';
    char *comma = strchr(line, ',');
    char *last = strrchr(line, ',');
    if (!comma || comma == last)
        return gen_fail(err, errlen, "%s line %d: not a bench row", path, lineno);
    int idx = name_index(line, (size_t)(comma - line));
    if (idx < 0)
        return gen_fail(err, errlen, "%s line %d: unknown name '%.*s' (want larsen, nv-multi, "
                                 "nv-single, tfjs, best, best-image, best-f16, best-f16x8, best-f64, "
                                 "best-df, cpu-blas, cpu-dgemm, tfjs-webgl, tfjs-webgpu or a model "
                                 "row)",
                       path, lineno, (int)(comma - line) > 40 ? 40 : (int)(comma - line), line);
    gg_bench_row *r = &b->rows[idx];
    if (r->present)
        return gen_fail(err, errlen, "%s line %d: a second %s row", path, lineno, eval_bench_names[idx]);
    char *end;
    const char *rs = last + 1;
    double ratio = strtod(rs, &end);
    if (!*rs || *end || !isfinite(ratio) || ratio < 0)
        return gen_fail(err, errlen, "%s line %d: ratio_to_cpu '%.40s' is not a number >= 0", path,
                       lineno, rs);
    *last = '\0';
    char *mid = comma + 1;
    /* The CPU row's fourteen variant columns (seven, eight or eleven in
     * files from before the store, the out, blk, fetch and the tile, ku,
     * order columns) are empty: give the
     * parser the defaults' values and forget them after. */
    char fixed[GG_CSV_ROW_MAX + 64];
    bool cpu = variantless(idx);
    if (cpu) {
        char *f = mid;
        int commas = 0;
        for (const char *q = mid; *q; q++)
            commas += *q == ',';
        int nv = commas + 1 - (GG_CSV_COLUMNS - GG_CSV_VARIANT_COLUMNS);
        for (int col = 0; col < 4 && f; col++)
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        if (!f || (nv != 7 && nv != 8 && nv != 11 && nv != GG_CSV_VARIANT_COLUMNS) ||
            strncmp(f, ",,,,,,,,,,,,,,", (size_t)nv))
            return gen_fail(err, errlen, "%s line %d: the %s row must leave the variant "
                                     "columns empty", path, lineno, eval_bench_names[idx]);
        snprintf(fixed, sizeof fixed, "%.*s1x1,1x1,all,0,330,glsl,pingpong%s%s", (int)(f - mid),
                 mid, nv == 7 ? "" : nv == 8 ? ",f32" : nv == 11 ? ",f32,rt,-,texture"
                 : ",f32,rt,-,texture,-,1,plain", f + nv - 1);
        mid = fixed;
    }
    char card[GG_CARD_MAX], perr[300];
    gg_problem p;
    base_problem_default(&p);
    if (store_csv_parse(mid, card, sizeof card, &p, &r->v, &r->m, perr, sizeof perr))
        return gen_fail(err, errlen, "%s line %d: %s", path, lineno, perr);
    gg_store want = idx == GG_BENCH_BEST_F16   ? GG_STORE_F16
                    : idx == GG_BENCH_BEST_F64 ? GG_STORE_F64
                    : idx == GG_BENCH_BEST_DF  ? GG_STORE_DF
                                               : GG_STORE_F16X8;
    if ((idx == GG_BENCH_BEST_F16 || idx == GG_BENCH_BEST_F16X8 || idx == GG_BENCH_BEST_F64 ||
         idx == GG_BENCH_BEST_DF) && r->v.store != want)
        return gen_fail(err, errlen, "%s line %d: the %s row's store is %s, not %s", path, lineno,
                       eval_bench_names[idx], gen_store_name(r->v.store), gen_store_name(want));
    if (idx == GG_BENCH_BEST_IMAGE && r->v.out != GG_OUT_IMAGE)
        return gen_fail(err, errlen, "%s line %d: the best-image row's out is %s, not image", path,
                       lineno, gen_out_name(r->v.out));
    if (*first) {
        snprintf(b->card, sizeof b->card, "%s", card);
        b->m = p.m;
        b->n = p.n;
        b->k = p.k;
        *first = false;
    } else if (strcmp(card, b->card) || p.m != b->m || p.n != b->n || p.k != b->k) {
        return gen_fail(err, errlen, "%s line %d: card or problem differs from the first row", path,
                       lineno);
    }
    r->present = true;
    r->has_variant = !cpu;
    r->ratio = ratio;
    return 0;
}

int eval_bench_read(const char *path, gg_bench *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        base_measurement_init(&b->rows[i].m);
    char rerr[300];
    char *text = base_read_text(path, 1 << 20, NULL, rerr, sizeof rerr);
    if (!text)
        return gen_fail(err, errlen, "%s", rerr);
    int rc = 0, lineno = 0;
    bool first = true;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (lineno == 1) {
            line[strcspn(line, "\r")] = '\0';
            if (strcmp(line, GG_BENCH_CSV_HEADER) && strcmp(line, GG_BENCH_CSV_HEADER_V1) &&
                strcmp(line, GG_BENCH_CSV_HEADER_V2) && strcmp(line, GG_BENCH_CSV_HEADER_V3)) {
                rc = gen_fail(err, errlen, "%s: the first line is not the bench header (%s)", path,
                             GG_BENCH_CSV_HEADER);
                break;
            }
            continue;
        }
        if ((rc = parse_line(line, lineno, path, b, &first, err, errlen)))
            break;
    }
    if (!rc && lineno == 0)
        rc = gen_fail(err, errlen, "%s is empty", path);
    else if (!rc && first)
        rc = gen_fail(err, errlen, "%s has no rows", path);
    free(text);
    return rc;
}

/* The card's fp32 row to compare best-df with: best where it ran ok, else
 * the fastest preset that did; -1 when none did. */
static int fp32_best_row(const gg_bench *b)
{
    const gg_bench_row *best = &b->rows[GG_BENCH_BEST];
    if (best->present && best->m.status == GG_OK && best->v.store == GG_STORE_F32 &&
        best->m.gflops > 0)
        return GG_BENCH_BEST;
    int top = -1;
    for (int i = 0; i < GG_BENCH_BEST; i++)
        if (b->rows[i].present && b->rows[i].m.status == GG_OK && b->rows[i].m.gflops > 0 &&
            (top < 0 || b->rows[i].m.gflops > b->rows[top].m.gflops))
            top = i;
    return top;
}

void eval_bench_print(FILE *f, const gg_bench *b, const char *tune_hint)
{
    fprintf(f, "bench on %s, %dx%dx%d\n", b->card, b->m, b->n, b->k);
    /* The variant column as wide as the longest (out=image ones are longer). */
    int vw = 82;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        if (b->rows[i].present && b->rows[i].has_variant) {
            char vt[GG_VARIANT_TEXT];
            int l = (int)strlen(gen_variant_format(&b->rows[i].v, vt, sizeof vt));
            vw = l > vw ? l : vw;
        }
    int nw = 10; /* the name column as wide as the longest present name */
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        if (b->rows[i].present && (int)strlen(eval_bench_names[i]) > nw)
            nw = (int)strlen(eval_bench_names[i]);
    fprintf(f, "%-*s %-*s %-14s %12s %12s %10s\n", nw, "name", vw, "variant", "status", "seconds",
            "GFLOP/s", "vs CPU");
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        const gg_bench_row *r = &b->rows[i];
        if (!r->present) {
            if (i == GG_BENCH_BEST)
                fprintf(f, "best: no tuning record (run %s)\n", tune_hint ? tune_hint : "glgemm tune");
            else if (i == GG_BENCH_BEST_IMAGE)
                fprintf(f, "best-image: no out=image variant ran ok in the tuning records\n");
            continue;
        }
        char vt[GG_VARIANT_TEXT] = "-";
        if (r->has_variant)
            gen_variant_format(&r->v, vt, sizeof vt);
        else
            snprintf(vt, sizeof vt, "%s", eval_bench_row_what(i));
        fprintf(f, "%-*s %-*s %-14s %12.6f %12.3f %10.4f\n", nw, eval_bench_names[i], vw, vt,
                base_status_name(r->m.status), r->m.seconds, r->m.gflops, r->ratio);
        if ((r->m.status != GG_OK || !r->has_variant || eval_bench_row_model(i)) && r->m.detail[0])
            fprintf(f, "%*s   %s\n", nw, "", r->m.detail);
        if (r->from[0])
            fprintf(f, "%*s   no record of this problem: the nearest recorded one's, %s\n", nw, "",
                    r->from);
        if (i == GG_BENCH_BEST_DF && r->m.status == GG_OK) { /* against fp32 on this card */
            int top = fp32_best_row(b);
            if (top >= 0)
                fprintf(f, "%*s   %.3gx this card's fp32 %s (%.4g GFLOP/s): double-float's cost\n",
                        nw, "", r->m.gflops / b->rows[top].m.gflops, eval_bench_names[top],
                        b->rows[top].m.gflops);
        }
        if (i == GG_BENCH_MODEL_DENSE_GLGEMM || i == GG_BENCH_MODEL_ENCODER_GLGEMM) {
            const gg_bench_row *t = &b->rows[i - 1];
            if (r->m.status == GG_OK && t->present && t->m.status == GG_OK && r->m.seconds > 0)
                fprintf(f, "%*s   %.2fx TensorFlow.js alone, outputs within %.3g of its own\n", nw, "",
                        t->m.seconds / r->m.seconds, r->m.rel_err);
        }
    }
    if (b->rows[GG_BENCH_CPU_DGEMM].present)
        fprintf(f, "(vs CPU: best-f64 and cpu-dgemm against cblas_dgemm, the other rows against "
                   "cblas_sgemm)\n");
}
