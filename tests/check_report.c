/* search/report and `glgemm report`: the analysis on synthetic records
 * whose optimum, ratios and dips are known by construction; the curve
 * tests (unimodal, dips) and the verdict thresholds; report.md and its SVG
 * figures from a synthetic results folder (offline, --card), with every
 * number parsed back from report.md and compared with the CSV files it came
 * from; no partial files when gnuplot is missing or records are absent; and
 * a small real tune on llvmpipe followed by an online report (dense sweep
 * into the records, bench, figures). */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "store/csv.h"
#include "eval/bench.h"
#include "eval/gpu.h"
#include "store/records.h"
#include "report/report.h"
#include "report/report_int.h"
#include "search/tune.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

/* ---- a minimal XML well-formedness check ---------------------------------- */

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '-' || c == '.';
}

/* NULL when s is well-formed XML with one root element named root; else
 * what is wrong. */
static const char *xml_check(const char *s, const char *root)
{
    char stack[256][64];
    int depth = 0;
    bool seen_root = false;
    const char *p = s;
    while (*p) {
        if (*p != '<') {
            if (depth == 0 && !isspace((unsigned char)*p))
                return "text outside the root element";
            if (*p == '&' && !strchr(p, ';'))
                return "an unterminated entity";
            p++;
            continue;
        }
        if (!strncmp(p, "<?", 2)) {
            const char *e = strstr(p, "?>");
            if (!e)
                return "an unterminated processing instruction";
            p = e + 2;
        } else if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p + 4, "-->");
            if (!e)
                return "an unterminated comment";
            p = e + 3;
        } else if (!strncmp(p, "<![CDATA[", 9)) {
            const char *e = strstr(p, "]]>");
            if (!e || depth == 0)
                return "a bad CDATA section";
            p = e + 3;
        } else if (!strncmp(p, "<!", 2)) {
            if (seen_root || depth)
                return "a declaration inside the document";
            int br = 0;
            for (p += 2; *p && (*p != '>' || br); p++)
                br += *p == '[' ? 1 : *p == ']' ? -1 : 0;
            if (!*p)
                return "an unterminated declaration";
            p++;
        } else if (p[1] == '/') {
            p += 2;
            const char *n = p;
            while (name_char(*p))
                p++;
            size_t len = (size_t)(p - n);
            while (isspace((unsigned char)*p))
                p++;
            if (*p != '>' || depth == 0 || strlen(stack[depth - 1]) != len ||
                strncmp(stack[depth - 1], n, len))
                return "a closing tag that does not match";
            depth--;
            p++;
        } else {
            p++;
            const char *n = p;
            while (name_char(*p))
                p++;
            size_t len = (size_t)(p - n);
            if (!len || len >= 64)
                return "a bad element name";
            if (depth == 0) {
                if (seen_root)
                    return "a second root element";
                if (strlen(root) != len || strncmp(n, root, len))
                    return "the root element is not the expected one";
                seen_root = true;
            }
            bool empty = false;
            for (;;) {
                while (isspace((unsigned char)*p))
                    p++;
                if (*p == '>') {
                    p++;
                    break;
                }
                if (p[0] == '/' && p[1] == '>') {
                    p += 2;
                    empty = true;
                    break;
                }
                const char *a = p;
                while (name_char(*p))
                    p++;
                if (p == a)
                    return "a bad attribute";
                while (isspace((unsigned char)*p))
                    p++;
                if (*p++ != '=')
                    return "an attribute without a value";
                while (isspace((unsigned char)*p))
                    p++;
                char q = *p++;
                if (q != '"' && q != '\'')
                    return "an unquoted attribute value";
                while (*p && *p != q) {
                    if (*p == '<')
                        return "'<' in an attribute value";
                    p++;
                }
                if (!*p)
                    return "an unterminated attribute value";
                p++;
            }
            if (!empty) {
                if (depth == 256)
                    return "too deep";
                memcpy(stack[depth], n, len);
                stack[depth][len] = '\0';
                depth++;
            }
        }
    }
    if (!seen_root)
        return "no root element";
    return depth ? "unclosed elements" : NULL;
}

START_TEST(xml_checker_catches_errors)
{
    ck_assert_ptr_null(xml_check("<?xml version='1.0'?>\n<!DOCTYPE svg [<!x>]><svg a='1'><g/>"
                                 "<!-- c --><t>x &amp; y</t></svg>\n", "svg"));
    const char *bad[] = {"<svg><g></svg>", "<svg></svg><svg></svg>", "<svg a=1></svg>",
                         "<html></html>", "<svg>", "x<svg/>", "<svg><g></h></svg>"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(xml_check(bad[i], "svg") != NULL, "accepted %s", bad[i]);
}
END_TEST

/* ---- curves and verdicts --------------------------------------------------- */

static const struct {
    double g[8];
    int n;
    bool unimodal;
} uni_cases[] = {
    {{1, 2, 3, 2, 1}, 5, true},   {{1, 3, 2, 3, 1}, 5, false},  {{1, 1, 1}, 3, true},
    {{3, 2, 1}, 3, true},         {{1, 2, 1.95, 3}, 4, true},   {{1, 2, 1.5, 3}, 4, false},
    {{5, 1, 2, 0.5}, 4, false},   {{2}, 1, true},
};

START_TEST(curve_unimodal)
{
    ck_assert_int_eq(report_curve_unimodal(uni_cases[_i].g, uni_cases[_i].n, 0.05),
                     uni_cases[_i].unimodal);
}
END_TEST

START_TEST(curve_dips)
{
    int idx[8];
    const double a[] = {1, 2, 3, 1, 3, 3, 3};
    ck_assert_int_eq(report_curve_dips(a, 7, 2, 0.10, idx, 8), 1);
    ck_assert_int_eq(idx[0], 3);
    const double b[] = {1, 2, 3, 4, 5};
    ck_assert_int_eq(report_curve_dips(b, 5, 2, 0.10, idx, 8), 0);
    const double c[] = {0.5, 4, 4, 3.7, 4, 4, 0.5}; /* 7.5% below: no dip; ends never dip */
    ck_assert_int_eq(report_curve_dips(c, 7, 2, 0.10, idx, 8), 0);
    const double d[] = {4, 1, 4, 1, 4, 1, 4};
    ck_assert_int_eq(report_curve_dips(d, 7, 1, 0.10, idx, 2), 2); /* capped at max */
}
END_TEST

START_TEST(curve_scatter)
{
    const double flat[] = {2, 2, 2, 2};
    ck_assert_double_eq(report_curve_scatter(flat, NULL, 4), 0);
    const double line[] = {1, 2, 3, 4, 5};
    ck_assert_double_eq_tol(report_curve_scatter(line, NULL, 5), 0, 1e-15);
    /* |2 - 1| / 2 = 0.5, |1 - 2| / 1 = 1, |2 - 1| / 2 = 0.5: median 0.5. */
    const double zig[] = {1, 2, 1, 2, 1};
    ck_assert_double_eq_tol(report_curve_scatter(zig, NULL, 5), 0.5, 1e-15);
    ck_assert_double_eq(report_curve_scatter(zig, NULL, 2), 0);
    /* Skipping the dip at 2 leaves no interior point with clean neighbours
     * but 4 (a 6-point curve): |2 - 2| / 2 = 0. */
    const double dip[] = {2, 2, 1, 2, 2, 2};
    const bool skip[] = {false, false, true, false, false, false};
    ck_assert_double_eq(report_curve_scatter(dip, skip, 6), 0);
    ck_assert_double_gt(report_curve_scatter(dip, NULL, 6), 0.2);
    ck_assert(report_dips_sparse(7, 41));
    ck_assert(!report_dips_sparse(23, 64));
}
END_TEST

START_TEST(verdicts)
{
    ck_assert_str_eq(report_verdict_mc(2.2), "agrees");
    ck_assert_str_eq(report_verdict_mc(3.5), "agrees in direction, with a larger gain");
    ck_assert_str_eq(report_verdict_mc(1.3), "agrees in direction, with a smaller gain");
    ck_assert_str_eq(report_verdict_mc(1.0), "disagrees: no gain");
    ck_assert_str_eq(report_verdict_mc(0.5), "disagrees: mc=2x2 is slower");
    ck_assert_str_eq(report_verdict_mrt(1.1), "agrees");
    ck_assert_str_eq(report_verdict_mrt(1.5), "agrees in direction, with a larger gain");
    ck_assert_str_eq(report_verdict_mrt(1.0), "disagrees: no measurable gain");
    ck_assert_str_eq(report_verdict_mrt(0.8), "disagrees: mrt=2x2 is slower");
    ck_assert_str_eq(report_verdict_unroll(4, 4, 0.9), "agrees");
    ck_assert(!strncmp(report_verdict_unroll(4, 2, 1.03), "agrees on the whole", 19));
    ck_assert_str_eq(report_verdict_unroll(4, 1, 1.15), "disagrees: unrolling helps on this card");
    ck_assert_str_eq(report_verdict_unroll(4, 4, 1.06), "disagrees: unrolling helps on this card");
    ck_assert(!strncmp(report_verdict_unroll(0, 0, 0), "not measured", 12));
    ck_assert_str_eq(report_verdict_unimodal(3, 3), "agrees");
    ck_assert_str_eq(report_verdict_unimodal(3, 2), "mostly agrees");
    ck_assert_str_eq(report_verdict_unimodal(3, 1), "disagrees: most curves have several maxima");
    ck_assert(!strncmp(report_verdict_search(1.2), "search at or above", 18));
    ck_assert(!strncmp(report_verdict_search(0.7), "search below", 12));
}
END_TEST

/* ---- synthetic records ------------------------------------------------------ */

/* The synthetic card: 256^3 (every np in {2..32} is below the k-steps of
 * every packing), GFLOP/s = mcf(mc) * mrtf(mrt) * npf(np) * (unroll ? 0.9 :
 * 1), npf peaking at np 8; the dense sweeps (np 1..40 of two pairs) drop
 * by 30% at the multiples of 5 below 40 that are not powers of two. */
#define SYN 256
static const gg_shape shapes4[4] = {{1, 1}, {1, 2}, {1, 4}, {2, 2}};
static const double mcf[4] = {1.0, 1.6, 2.0, 2.2};
static const double mrtf[4] = {1.0, 1.05, 1.08, 1.1};

static int shape_index(gg_shape s)
{
    for (int i = 0; i < 4; i++)
        if (shapes4[i].rows == s.rows && shapes4[i].cols == s.cols)
            return i;
    return -1;
}

static double syn_rate(const gg_variant *v, bool dense)
{
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(v, SYN, SYN, SYN, &L), 0);
    double x = log2(L.np) - 3;
    double f = 1 / (1 + x * x / 8);
    if (dense && L.np % 5 == 0 && L.np < 40 && (L.np & (L.np - 1)))
        f *= 0.7;
    return mcf[shape_index(v->mc)] * mrtf[shape_index(v->mrt)] * f * (v->unroll ? 0.9 : 1.0);
}

typedef struct {
    gg_variant v[600];
    double g[600];
    int n;
} syn_set;

static void syn_add(syn_set *s, gg_variant v, bool dense)
{
    search_variant_normalize(&v, SYN, SYN, SYN);
    for (int i = 0; i < s->n; i++)
        if (!memcmp(&s->v[i], &v, sizeof v))
            return;
    ck_assert_int_lt(s->n, 600);
    s->v[s->n] = v;
    s->g[s->n] = syn_rate(&v, dense);
    s->n++;
}

static void syn_build(syn_set *s)
{
    s->n = 0;
    static const int nps[] = {1, 2, 4, 8, 16, 32, GG_NP_ALL};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int i = 0; i < 7; i++)
                for (int u = 0; u < 2; u++) {
                    gg_variant v;
                    gen_variant_default(&v);
                    v.mc = shapes4[a];
                    v.mrt = shapes4[b];
                    v.np = nps[i];
                    v.unroll = u;
                    syn_add(s, v, false);
                }
    for (int np = 1; np <= 40; np++)
        for (int pair = 0; pair < 2; pair++) {
            gg_variant v;
            gen_variant_default(&v);
            v.mc = shapes4[pair ? 2 : 3];
            v.mrt = shapes4[3];
            v.np = np;
            syn_add(s, v, true);
        }
}

static void syn_data(gg_report_data *d, const syn_set *s)
{
    memset(d, 0, sizeof *d);
    snprintf(d->card, sizeof d->card, "synth");
    d->m = d->n = d->k = SYN;
    d->recs = calloc((size_t)s->n, sizeof *d->recs);
    ck_assert_ptr_nonnull(d->recs);
    for (int i = 0; i < s->n; i++) {
        d->recs[i].v = s->v[i];
        base_measurement_init(&d->recs[i].m);
        d->recs[i].m.gflops = s->g[i];
        d->recs[i].m.seconds = 2.0 * SYN * SYN * SYN / (s->g[i] * 1e9);
    }
    d->nrecs = s->n;
}

/* Second measurements of two dips of the first dense curve (mc=2x2,
 * mrt=2x2): np 5 at its undipped rate (gone), np 10 at the dipped (stayed). */
static void syn_again(gg_report_data *d)
{
    d->again = calloc(2, sizeof *d->again);
    ck_assert_ptr_nonnull(d->again);
    for (int i = 0; i < 2; i++) {
        gg_variant v;
        gen_variant_default(&v);
        v.mc = shapes4[3];
        v.mrt = shapes4[3];
        v.np = i ? 10 : 5;
        d->again[i].v = v;
        base_measurement_init(&d->again[i].m);
        d->again[i].m.gflops = syn_rate(&v, i == 1);
        d->again[i].m.seconds = 2.0 * SYN * SYN * SYN / (d->again[i].m.gflops * 1e9);
        d->again[i].m.rel_err = 1e-7;
        d->again[i].m.passes = 1;
    }
    d->nagain = 2;
}

/* Records with the keys past the render targets (the outputs figure): the
 * legacy set, then out=rt again with fetch=texelfetch (mc 2x2 at every mrt
 * of the set, np 8, at 1.02x the texture rate), and out=image blocks of mc
 * 2x2 (blk 4x4 .. 16x16) at np 8 on every fetch path: GFLOP/s = 2.42 *
 * img_q(outputs) * img_f(fetch), img_q peaking at 64 outputs (1.3x), so the
 * best out=image is fetch=texelfetch, blk 8x8; a faster store=f16 one and
 * a failed one that must not count. */
static const double img_f[GG_FETCH_COUNT] = {1.0, 1.05, 0.8, 0.9, 0.7, 0.85, 0.95, 0.75};

static double img_q(int q)
{
    switch (q) {
    case 16: return 1.0;
    case 32: return 1.15;
    case 64: return 1.3;
    case 128: return 1.1;
    default: return 0.7; /* 256 */
    }
}

static void syn_put(syn_set *s, const char *text, double g)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s: %s", text, err);
    search_variant_normalize(&v, SYN, SYN, SYN);
    ck_assert_int_lt(s->n, 600);
    s->v[s->n] = v;
    s->g[s->n] = g;
    s->n++;
}

static const char *const blks[5] = {"4x4", "4x8", "8x8", "8x16", "16x16"};
static const int blk_q[5] = {16, 32, 64, 128, 256};

static void syn_build_outputs(syn_set *s, bool half)
{
    syn_build(s);
    for (int b = 0; b < 4; b++) {
        char text[160];
        snprintf(text, sizeof text, "mc=2x2,mrt=%dx%d,np=8,fetch=texelfetch", shapes4[b].rows,
                 shapes4[b].cols);
        gg_variant v;
        char err[256];
        ck_assert_int_eq(gen_variant_parse(text, NULL, &v, err, sizeof err), 0);
        syn_put(s, text, 1.02 * syn_rate(&v, false));
    }
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int b = 0; b < 5; b++) {
            char text[160];
            snprintf(text, sizeof text, "mc=2x2,np=8,profile=430,out=image,blk=%s,fetch=%s",
                     blks[b], gen_fetch_name((gg_fetch)fe));
            syn_put(s, text, 2.42 * img_q(blk_q[b]) * img_f[fe]);
        }
    if (half)
        syn_put(s, "mc=2x2,np=8,profile=430,out=image,blk=8x4,store=f16", 50);
}

/* The record that is s's failed one: written with status wrong_result. */
static const char failed_image[] = "mc=2x2,np=4,profile=430,out=image,blk=4x4,fetch=buffer";

START_TEST(outputs_of_synthetic_records)
{
    static syn_set s;
    static gg_report_data d;
    gg_findings f;
    /* Records from before the out and fetch keys: one series, texture and
     * out=rt, its points the best of each mc x mrt product. */
    syn_build(&s);
    syn_data(&d, &s);
    ck_assert_int_eq(report_analyse(&d, &f), 0);
    const gg_outputs_finding *o = f.outs;
    ck_assert_ptr_nonnull(o);
    ck_assert(o->have);
    ck_assert_int_eq(o->cap, 32);
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int out = 0; out < GG_OUT_COUNT; out++)
            if (fe != GG_FETCH_TEXTURE || out != GG_OUT_RT) {
                ck_assert_int_eq(o->s[fe][out].n, 0);
                ck_assert_int_eq(o->s[fe][out].total, 0);
                ck_assert_int_eq(o->s[fe][out].best, -1);
            }
    const gg_outputs_series *t = &o->s[GG_FETCH_TEXTURE][GG_OUT_RT];
    ck_assert_int_eq(t->total, s.n);
    ck_assert_int_eq(t->ok, s.n);
    const int qs[5] = {1, 2, 4, 8, 16};
    ck_assert_int_eq(t->n, 5);
    for (int j = 0; j < 5; j++) {
        ck_assert_int_eq(t->outputs[j], qs[j]);
        double top = 0;
        for (int i = 0; i < s.n; i++)
            if (s.v[i].mc.rows * s.v[i].mc.cols * s.v[i].mrt.rows * s.v[i].mrt.cols == qs[j])
                top = fmax(top, s.g[i]);
        ck_assert_double_eq_tol(t->gflops[j], top, 1e-12);
        ck_assert_double_eq_tol(d.recs[t->rec[j]].m.gflops, top, 1e-12);
    }
    ck_assert_int_eq(t->best, 4);
    ck_assert_int_eq(o->best[GG_OUT_RT], t->rec[4]);
    ck_assert_int_eq(o->best[GG_OUT_IMAGE], -1);
    ck_assert_int_eq(o->rt_at_cap, -1);
    ck_assert_int_eq(o->image_past_cap, -1);
    ck_assert_int_eq(o->common, 0);
    ck_assert_str_eq(report_verdict_outputs(0, 2.42, 0, 32), "not measured: no out=image variant ran ok");
    char *script = report_script_outputs(&d, &f);
    ck_assert_ptr_nonnull(script);
    ck_assert_ptr_nonnull(strstr(script, "title 'fetch=texture, out=rt'"));
    ck_assert_ptr_null(strstr(script, "out=image'"));
    free(script);
    report_findings_free(&f);
    report_data_free(&d);

    /* With the new keys, and a card of 4 draw buffers (the cap: 16). */
    syn_build_outputs(&s, true);
    syn_data(&d, &s);
    d.env.have = true;
    d.env.max_draw_buffers = 4;
    /* The failed record: in the totals, not in the points. */
    gg_report_rec *nr = realloc(d.recs, (size_t)(d.nrecs + 1) * sizeof *nr);
    ck_assert_ptr_nonnull(nr);
    d.recs = nr;
    char err[256];
    ck_assert_int_eq(gen_variant_parse(failed_image, NULL, &d.recs[d.nrecs].v, err, sizeof err), 0);
    base_measurement_init(&d.recs[d.nrecs].m);
    d.recs[d.nrecs].m.status = GG_WRONG_RESULT;
    d.recs[d.nrecs].m.gflops = 99;
    d.nrecs++;
    ck_assert_int_eq(report_analyse(&d, &f), 0);
    o = f.outs;
    ck_assert_int_eq(o->cap, 16);
    /* Figures 7 and 8 still hold the texture out=rt records. */
    ck_assert(f.have_base);
    ck_assert_int_eq(f.base.fetch, GG_FETCH_TEXTURE);
    ck_assert_int_eq(f.base.out, GG_OUT_RT);
    ck_assert_double_eq_tol(f.mrt_ratio, 1.1, 1e-12);
    ck_assert_double_eq_tol(f.f8[3][3], 2.2 * 1.1, 1e-12);
    /* texelfetch, out=rt: mc 2x2 at mrt 1x1, 1x2, 1x4, 2x2: 4, 8, 16 outputs. */
    const gg_outputs_series *x = &o->s[GG_FETCH_TEXELFETCH][GG_OUT_RT];
    ck_assert_int_eq(x->total, 4);
    ck_assert_int_eq(x->n, 3);
    ck_assert_int_eq(x->outputs[2], 16);
    ck_assert_double_eq_tol(x->gflops[2], 1.02 * 2.2 * 1.1, 1e-12);
    ck_assert_int_eq(o->s[GG_FETCH_BUFFER][GG_OUT_RT].total, 0);
    /* out=image: five points on every path, the failed one counted apart. */
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
        const gg_outputs_series *m = &o->s[fe][GG_OUT_IMAGE];
        ck_assert_int_eq(m->n, 5);
        ck_assert_int_eq(m->ok, 5);
        ck_assert_int_eq(m->total, fe == GG_FETCH_BUFFER ? 6 : 5);
        for (int b = 0; b < 5; b++) {
            ck_assert_int_eq(m->outputs[b], blk_q[b]);
            ck_assert_double_eq_tol(m->gflops[b], 2.42 * img_q(blk_q[b]) * img_f[fe], 1e-12);
        }
        ck_assert_int_eq(m->best, 2);
    }
    /* The bests: out=image texelfetch 8x8 (64 outputs, past the cap);
     * out=rt texelfetch mrt=2x2 (16, the cap); at 16 outputs both. */
    const gg_report_rec *bi = &d.recs[o->best[GG_OUT_IMAGE]];
    ck_assert_int_eq(bi->v.fetch, GG_FETCH_TEXELFETCH);
    ck_assert_int_eq(bi->v.blk.rows * bi->v.blk.cols, 64);
    ck_assert_int_eq(bi->v.store, GG_STORE_F32);
    ck_assert_int_eq(o->image_past_cap, o->best[GG_OUT_IMAGE]);
    const gg_report_rec *br = &d.recs[o->best[GG_OUT_RT]];
    ck_assert_int_eq(br->v.fetch, GG_FETCH_TEXELFETCH);
    ck_assert_double_eq_tol(br->m.gflops, 1.02 * 2.42, 1e-12);
    ck_assert_int_eq(o->rt_at_cap, o->best[GG_OUT_RT]);
    ck_assert_int_eq(o->common, 16);
    ck_assert_double_eq_tol(d.recs[o->common_rec[GG_OUT_IMAGE]].m.gflops, 2.42 * 1.05, 1e-12);
    ck_assert_double_eq_tol(d.recs[o->common_rec[GG_OUT_RT]].m.gflops, 1.02 * 2.42, 1e-12);
    ck_assert(!strncmp(report_verdict_outputs(bi->m.gflops, br->m.gflops, 64, 16),
                       "more outputs than render targets hold pay off", 45));
    script = report_script_outputs(&d, &f);
    ck_assert_ptr_nonnull(script);
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
        char title[80];
        snprintf(title, sizeof title, "title 'fetch=%s, out=image'", gen_fetch_name((gg_fetch)fe));
        ck_assert_msg(strstr(script, title) != NULL, "no %s", title);
    }
    ck_assert_ptr_nonnull(strstr(script, "title 'fetch=texelfetch, out=rt'"));
    ck_assert_ptr_null(strstr(script, "title 'fetch=buffer, out=rt'"));
    ck_assert_ptr_nonnull(strstr(script, "set arrow 1 from 16,"));
    free(script);
    report_findings_free(&f);
    report_data_free(&d);
}
END_TEST

/* The thresholds of the outputs verdict. */
START_TEST(outputs_verdicts)
{
    ck_assert(!strncmp(report_verdict_outputs(0, 1, 0, 32), "not measured: no out=image", 26));
    ck_assert(!strncmp(report_verdict_outputs(1, 0, 64, 32), "not measured: no out=rt", 23));
    ck_assert(!strncmp(report_verdict_outputs(1.1, 1, 64, 32), "more outputs than render targets", 32));
    ck_assert(!strncmp(report_verdict_outputs(1.1, 1, 32, 32), "out=image is faster, but not by", 31));
    ck_assert(!strncmp(report_verdict_outputs(0.9, 1, 64, 32), "more outputs per fragment do not", 32));
    ck_assert(!strncmp(report_verdict_outputs(1.01, 1, 64, 32), "about even", 10));
}
END_TEST

START_TEST(analysis_of_synthetic_records)
{
    static syn_set s;
    syn_build(&s);
    static gg_report_data d;
    syn_data(&d, &s);
    syn_again(&d);
    gg_findings f;
    ck_assert_int_eq(report_analyse(&d, &f), 0);
    /* No best file: the base is the best ok row, mc=2x2, mrt=2x2, np=8, unroll 0. */
    ck_assert(f.have_base);
    ck_assert_int_eq(f.base.mc.rows, 2);
    ck_assert_int_eq(f.base.mrt.rows, 2);
    ck_assert_int_eq(f.base.np, 8);
    ck_assert_int_eq(f.base.unroll, 0);
    /* Figure 8: the formula at np 8 in every cell. */
    ck_assert_int_eq(f.n_mrt, 4);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            ck_assert_double_eq_tol(f.f8[r][c], mcf[c] * mrtf[r], 1e-12);
            ck_assert_int_eq(f.f8_np[r][c], 8);
        }
    ck_assert(f.mc_have && f.mrt_have);
    ck_assert_double_eq_tol(f.mc_ratio, 2.2, 1e-12);
    ck_assert_double_eq_tol(f.mc_lo, 2.2, 1e-12);
    ck_assert_double_eq_tol(f.mrt_ratio, 1.1, 1e-12);
    /* Unroll: every one of the 16*7 pairs (np=all shared by some) favours 0. */
    ck_assert_int_gt(f.unroll_pairs, 60);
    ck_assert_int_eq(f.unroll0_wins, f.unroll_pairs);
    ck_assert_double_eq_tol(f.unroll_geomean, 0.9, 1e-9);
    /* Figure 7a: every pair has 7 points, 6 shown, the base's first, all unimodal. */
    ck_assert_int_eq(f.n7a, 6);
    ck_assert_int_eq(f.c7a[0].base.mc.rows, 2);
    ck_assert_int_eq(f.c7a[0].base.mrt.rows, 2);
    ck_assert_int_eq(f.c7a[0].n, 7);
    ck_assert(f.c7a[0].all[6]);
    ck_assert_int_eq(f.pow2_unimodal, f.pow2_curves);
    /* Figure 7b: the two dense pairs, dips exactly at 5, 10, .., 35. */
    ck_assert_int_eq(f.n7b, 2);
    const int want[] = {5, 10, 15, 20, 25, 30, 35};
    for (int c = 0; c < 2; c++) {
        ck_assert_int_eq(f.ndips[c], 7);
        for (int j = 0; j < 7; j++)
            ck_assert_int_eq(f.dip_np[c][j], want[j]);
        ck_assert_int_eq(f.dense_argmax[c], 8);
        /* Measured again: the first curve's np 5 came back undipped, np 10 still low. */
        ck_assert_int_eq(f.dips_checked[c], c == 0 ? 2 : 0);
        ck_assert_int_eq(f.dips_repro[c], c == 0 ? 1 : 0);
        if (c == 0) {
            ck_assert(!f.dip_stayed[0][0]);
            ck_assert(f.dip_stayed[0][1]);
            ck_assert(f.dip_again[0][2] < 0);
        }
        ck_assert(f.dense_scatter[c] < 0.05); /* smooth between the dips */
        ck_assert_int_eq(f.dense_pow2_argmax[c], 8);
    }
    gg_variant todo[32];
    ck_assert_int_eq(report_dips_to_check(&f, &d, todo, 32), 12);
    ck_assert_int_eq(todo[0].np, 15); /* the first curve's unchecked dips first */
    /* The sweep: the base's pair and the best other pair with a curve. */
    gg_variant pairs[2];
    ck_assert_int_eq(report_sweep_pairs(&f, &d, pairs), 2);
    ck_assert_int_eq(pairs[0].mc.rows, 2);
    ck_assert_int_eq(pairs[1].mc.rows * pairs[1].mc.cols, 4); /* 2x2 with mrt 1x4 */
    ck_assert_int_eq(pairs[1].mrt.cols, 4);
    ck_assert_int_eq(report_sweep_npmax(&pairs[0], SYN, 64), 64);
    ck_assert_int_eq(report_sweep_npmax(&pairs[0], 40, 64), 20);
    /* No bench, no probe: those findings are absent. */
    ck_assert(!f.bench_have && !f.ceil_have);
    report_findings_free(&f);
    report_data_free(&d);
}
END_TEST

/* ---- the synthetic folder on disk, and report.md parsed back ---------------- */

static void write_text(const char *path, const char *text)
{
    char err[512];
    ck_assert_msg(base_write_atomic(path, text, strlen(text), err, sizeof err) == 0, "%s", err);
}

static const char probe_csv[] =
    "metric,variant,value,unit\n"
    "mad,c8,40,GFLOP/s\nmad,max,40,GFLOP/s\n"
    "fetch,r32f-friendly,2,Gtexel/s\nfetch,r32f-friendly,8,GB/s\n"
    "fetch,r32f-hostile,0.5,Gtexel/s\nfetch,r32f-hostile,2,GB/s\n"
    "fetch,rgba32f-friendly,1,Gtexel/s\nfetch,rgba32f-friendly,16,GB/s\n"
    "fetch,rgba32f-hostile,0.25,Gtexel/s\nfetch,rgba32f-hostile,4,GB/s\n"
    "fetch,rgba16f-friendly,1.5,Gtexel/s\nfetch,rgba16f-friendly,12,GB/s\n"
    "fetch,rgba16f-gemm-2x4-4x1,1.25,Gtexel/s\nfetch,rgba16f-gemm-2x4-4x1,10,GB/s\n"
    "write,targets-1,0.5,Gtexel/s\nwrite,targets-1,8,GB/s\n"
    "write,targets-2,0.5,Gtexel/s\nwrite,targets-2,8,GB/s\n"
    "write,targets-3,0.5,Gtexel/s\nwrite,targets-3,8,GB/s\n"
    "write,targets-4,0.25,Gtexel/s\nwrite,targets-4,4,GB/s\n"
    "readback,rgba32f,3,GB/s\n";

/* Writes dir/synth/: records, best, bench, probe.  Returns the best's
 * GFLOP/s; *bench gets the bench rows written. */
static double write_synth_folder(const char *dir, const syn_set *s, gg_bench *bench)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/synth", dir);
    ck_assert_int_eq(base_mkdirs(path, err, sizeof err), 0);
    size_t cap = 64 + (size_t)s->n * GG_CSV_ROW_MAX;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    size_t o = (size_t)snprintf(text, cap, "%s\n", GG_CSV_HEADER);
    gg_problem p;
    base_problem_default(&p);
    p.m = p.n = p.k = SYN;
    int best = 0;
    for (int i = 0; i < s->n; i++) {
        gg_measurement m;
        base_measurement_init(&m);
        gg_layout L;
        gen_layout_compute(&s->v[i], SYN, SYN, SYN, &L);
        m.passes = L.passes;
        m.gflops = s->g[i];
        m.seconds = 2.0 * SYN * SYN * SYN / (s->g[i] * 1e9);
        m.rel_err = 1e-7;
        char row[GG_CSV_ROW_MAX];
        ck_assert_int_eq(store_csv_format(row, sizeof row, "synth", &p, &s->v[i], &m), 0);
        o += (size_t)snprintf(text + o, cap - o, "%s\n", row);
        if (s->g[i] > s->g[best])
            best = i;
    }
    /* A line that is not a record: counted and skipped, not fatal. */
    o += (size_t)snprintf(text + o, cap - o, "synth,oops\n");
    snprintf(path, sizeof path, "%s/synth/tune-%dx%dx%d.csv", dir, SYN, SYN, SYN);
    write_text(path, text);
    free(text);
    gg_measurement bm;
    base_measurement_init(&bm);
    bm.gflops = s->g[best];
    bm.seconds = 2.0 * SYN * SYN * SYN / (s->g[best] * 1e9);
    ck_assert_int_eq(store_best_write(dir, "synth", SYN, SYN, SYN, &s->v[best], &bm, err, sizeof err), 0);

    /* bench: the presets at made-up rates, nv-single failed, best, CPU, and
     * the browser's tf.matMul row. */
    memset(bench, 0, sizeof *bench);
    snprintf(bench->card, sizeof bench->card, "synth");
    bench->m = bench->n = bench->k = SYN;
    double rates[GG_BENCH_ALL_ROWS] = {0.25, 0.8, 0, 1.9, s->g[best], 0.75 * s->g[best],
                                       1.5 * s->g[best], 1.75 * s->g[best]};
    rates[GG_BENCH_BEST_F64] = 0.5 * s->g[best];
    rates[GG_BENCH_BEST_DF] = 0.125 * s->g[best];
    rates[GG_BENCH_CPU] = 40.5;
    rates[GG_BENCH_CPU_DGEMM] = 20.25;
    rates[GG_BENCH_TFJS_WEBGL] = 0.5;
    rates[GG_BENCH_TFJS_WEBGPU] = 0.75;
    rates[GG_BENCH_MODEL_DENSE_TFJS] = 0.4;
    rates[GG_BENCH_MODEL_DENSE_GLGEMM] = 1.2;
    rates[GG_BENCH_MODEL_ENCODER_TFJS] = 0.3;
    rates[GG_BENCH_MODEL_ENCODER_GLGEMM] = 0.9;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        gg_bench_row *r = &bench->rows[i];
        base_measurement_init(&r->m);
        r->present = true;
        r->has_variant = i != GG_BENCH_CPU && i != GG_BENCH_CPU_DGEMM && i != GG_BENCH_TFJS_WEBGL &&
                         i != GG_BENCH_TFJS_WEBGPU && i != GG_BENCH_MODEL_DENSE_TFJS &&
                         i != GG_BENCH_MODEL_ENCODER_TFJS;
        if (i == GG_BENCH_BEST)
            r->v = s->v[best];
        else if (i == GG_BENCH_BEST_F16)
            ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=4x1,store=f16", NULL, &r->v, err,
                                              sizeof err), 0);
        else if (i == GG_BENCH_BEST_F16X8)
            ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=4x1,store=f16x8", NULL, &r->v, err,
                                              sizeof err), 0);
        else if (i == GG_BENCH_BEST_F64)
            ck_assert_int_eq(gen_variant_parse("mrt=4x2,mc=1x2,np=32,unroll=1,store=f64", NULL, &r->v,
                                              err, sizeof err), 0);
        else if (i == GG_BENCH_BEST_DF)
            ck_assert_int_eq(gen_variant_parse("mrt=4x2,mc=1x2,fetch=texelfetch,store=df", NULL,
                                              &r->v, err, sizeof err), 0);
        else if (i == GG_BENCH_BEST_IMAGE)
            ck_assert_int_eq(gen_variant_parse("mc=2x2,profile=430,out=image,blk=8x8", NULL, &r->v,
                                              err, sizeof err), 0);
        else if (eval_bench_row_model(i) && r->has_variant)
            ck_assert_int_eq(gen_variant_parse("tfjs,profile=300es", NULL, &r->v, err, sizeof err), 0);
        else if (r->has_variant)
            ck_assert_int_eq(gen_variant_parse(eval_bench_names[i], NULL, &r->v, err, sizeof err), 0);
        r->m.gflops = rates[i];
        r->m.seconds = rates[i] > 0 ? 2.0 * SYN * SYN * SYN / (rates[i] * 1e9) : 0.5;
        r->m.passes = 1;
        if (i == 2)
            r->m.status = GG_COMPILE_ERROR;
    }
    eval_bench_ratios(bench);
    ck_assert_int_eq(eval_bench_write(bench, store_bench_path(path, sizeof path, dir, "synth", SYN, SYN,
                                                         SYN),
                                    err, sizeof err),
                     0);
    snprintf(path, sizeof path, "%s/synth/probe.csv", dir);
    write_text(path, probe_csv);
    static gg_report_data ad;
    memset(&ad, 0, sizeof ad);
    snprintf(ad.card, sizeof ad.card, "synth");
    ad.m = ad.n = ad.k = SYN;
    syn_again(&ad);
    store_report_again_path(path, sizeof path, dir, "synth", SYN, SYN, SYN);
    ck_assert_int_eq(report_again_write(path, &ad, err, sizeof err), 0);
    report_data_free(&ad);
    snprintf(path, sizeof path, "%s/synth/tune-%dx%dx%d-summary.txt", dir, SYN, SYN, SYN);
    write_text(path, "best: synthetic\nwall time: 4h02m\n");
    return s->g[best];
}

/* The cells of the markdown table row that starts with "| first |". */
static int md_row(const char *md, const char *first, char cells[12][256])
{
    char key[128];
    snprintf(key, sizeof key, "\n| %s |", first);
    const char *p = strstr(md, key);
    if (!p)
        return -1;
    p += 2;
    int n = 0;
    while (*p && *p != '\n' && n < 12) {
        const char *e = p;
        while (*e && *e != '|' && *e != '\n')
            e++;
        if (*e != '|')
            break;
        if (e > p) {
            const char *a = p, *b = e;
            while (a < b && isspace((unsigned char)*a))
                a++;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
            snprintf(cells[n], 256, "%.*s", (int)(b - a), a);
            n++;
        }
        p = e + 1;
        if (*p == '\n' || !*p)
            break;
        if (*p == '|') { /* an empty cell: || */
            cells[n++][0] = '\0';
        }
    }
    return n;
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 6e-4 * fmax(fabs(a), fabs(b)) + 1e-12;
}

static void check_svg(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *svg = tu_read(path);
    ck_assert_msg(svg != NULL, "%s missing", path);
    const char *why = xml_check(svg, "svg");
    ck_assert_msg(why == NULL, "%s: %s", path, why);
    free(svg);
}

/* A tune that held mc outside Figure 8's set (e.g. --fix mc=4x1) leaves no
 * bar to draw; the figure is still written, as an empty frame saying so. */
START_TEST(fig8_without_data)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "fig8");
    static gg_report_data d;
    static gg_findings f;
    memset(&d, 0, sizeof d);
    memset(&f, 0, sizeof f);
    snprintf(d.card, sizeof d.card, "synth");
    d.m = d.n = d.k = 64;
    gen_variant_default(&f.base);
    f.n_mrt = 2;
    for (int r = 0; r < GG_F8_MRT; r++)
        for (int c = 0; c < GG_F8_MC; c++)
            f.f8[r][c] = -1;
    char *script = report_script_fig8(&d, &f);
    ck_assert_ptr_nonnull(script);
    ck_assert_ptr_nonnull(strstr(script, "no records for mc"));
    char path[128], err[512] = "";
    snprintf(path, sizeof path, "%s/fig8.svg", dir);
    ck_assert_msg(report_plot_svg(NULL, script, path, err, sizeof err) == 0, "%s", err);
    check_svg(dir, "fig8.svg");
    free(script);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(report_from_synthetic_folder)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "report");
    static syn_set s;
    syn_build(&s);
    static gg_bench bench;
    double best = write_synth_folder(dir, &s, &bench);
    char args[256], *out, *err;
    snprintf(args, sizeof args, "report --results '%s' --card synth --size %d", dir, SYN);
    int rc = tu_run(dir, NULL, args, &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(out, "report: wrote"));
    free(out);
    free(err);

    char card[128], path[256];
    snprintf(card, sizeof card, "%s/synth", dir);
    const char *figs[] = {"fig5", "fig7a", "fig7b", "fig8"};
    for (int i = 0; i < 4; i++) {
        char name[64];
        store_report_figure_name(name, sizeof name, figs[i], SYN, SYN, SYN);
        check_svg(card, name);
    }
    snprintf(path, sizeof path, "%s/report.md", card);
    char *md = tu_read(path);
    ck_assert_ptr_nonnull(md);

    /* Figure 5's table against the bench CSV, read back from disk. */
    static gg_bench b;
    char perr[512];
    ck_assert_int_eq(eval_bench_read(store_bench_path(path, sizeof path, dir, "synth", SYN, SYN, SYN),
                                   &b, perr, sizeof perr),
                     0);
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        char cells[12][256];
        ck_assert_int_eq(md_row(md, eval_bench_names[i], cells), 8);
        ck_assert_str_eq(cells[2], base_status_name(b.rows[i].m.status));
        ck_assert_str_eq(cells[7], eval_bench_row_precision(&b, i)); /* the precision column */
        ck_assert_msg(near(strtod(cells[3], NULL), b.rows[i].m.seconds), "%s seconds %s",
                      eval_bench_names[i], cells[3]);
        ck_assert_msg(near(strtod(cells[4], NULL), b.rows[i].m.gflops), "%s GFLOP/s %s vs %g",
                      eval_bench_names[i], cells[4], b.rows[i].m.gflops);
        ck_assert_msg(near(strtod(cells[6], NULL), b.rows[i].ratio), "%s ratio", eval_bench_names[i]);
        if (eval_bench_row_model(i)) /* another problem's rate: no "best / this" */
            ck_assert_str_eq(cells[5], "");
        else if (b.rows[i].m.status == GG_OK)
            ck_assert(near(strtod(cells[5], NULL), best / b.rows[i].m.gflops));
        else
            ck_assert_str_eq(cells[5], "");
    }
    /* Another size's best files, each store's, with their precision: an
     * f64 record says f64 (written after the report above: run it again). */
    ck_assert_ptr_null(strstr(md, "## Other problem sizes tuned on this card"));
    {
        gg_variant o32, o64;
        gg_measurement om;
        base_measurement_init(&om);
        om.gflops = 3.5;
        char verr[256];
        ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=1x4,np=8", NULL, &o32, verr, sizeof verr), 0);
        ck_assert_int_eq(gen_variant_parse("mrt=4x2,mc=1x2,np=8,store=f64", NULL, &o64, verr,
                                          sizeof verr), 0);
        ck_assert_int_eq(store_best_write(dir, "synth", 32, 32, 32, &o32, &om, verr, sizeof verr), 0);
        om.gflops = 1.25;
        ck_assert_int_eq(store_best_write(dir, "synth", 32, 32, 32, &o64, &om, verr, sizeof verr), 0);
        rc = tu_run(dir, NULL, args, &out, &err);
        ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
        free(out);
        free(err);
        snprintf(path, sizeof path, "%s/report.md", card);
        char *md2 = tu_read(path);
        ck_assert_ptr_nonnull(md2);
        ck_assert_ptr_nonnull(strstr(md2, "## Other problem sizes tuned on this card"));
        ck_assert_ptr_nonnull(strstr(md2, "| 32x32x32 | `mrt=4x2,mc=1x2,np=8,unroll=0,profile=330,"
                                          "compiler=glsl,acc=pingpong,store=f64` | f64 | 1.25 |"));
        ck_assert_ptr_nonnull(strstr(md2, "| 32x32x32 | `mrt=2x2,mc=1x4,np=8,unroll=0,profile=330,"
                                          "compiler=glsl,acc=pingpong,store=f32` | f32 | 3.5 |"));
        free(md2);
    }
    /* Each row says its precision: the f64 rows f64 (best-f64's ratio is
     * to the CPU's dgemm), the half rows theirs, the CPU BLAS f32. */
    static const struct {
        int row;
        const char *precision;
    } prec[] = {{GG_BENCH_BEST, "f32"},           {GG_BENCH_BEST_F16, "f16"},
                {GG_BENCH_BEST_F16X8, "f16x8"},   {GG_BENCH_BEST_F64, "f64"},
                {GG_BENCH_BEST_DF, "df"},         {GG_BENCH_CPU, "f32"},
                {GG_BENCH_CPU_DGEMM, "f64"},      {GG_BENCH_TFJS_WEBGL, "f32"}};
    for (size_t i = 0; i < sizeof prec / sizeof *prec; i++) {
        char cells[12][256];
        ck_assert_int_eq(md_row(md, eval_bench_names[prec[i].row], cells), 8);
        ck_assert_msg(!strcmp(cells[7], prec[i].precision), "%s: precision '%s', want %s",
                      eval_bench_names[prec[i].row], cells[7], prec[i].precision);
    }
    char f64cells[12][256];
    ck_assert_int_eq(md_row(md, "best-f64", f64cells), 8);
    ck_assert(near(strtod(f64cells[6], NULL), 0.5 * best / 20.25));
    ck_assert_ptr_nonnull(strstr(md, "`best-f64` and `cpu-dgemm` are compared with the CPU's dgemm"));
    /* Figure 8's table against the maxima of the records, recomputed here. */
    const char *rows[] = {"mrt=1x1", "mrt=1x2", "mrt=1x4", "mrt=2x2"};
    for (int r = 0; r < 4; r++) {
        char cells[12][256];
        ck_assert_int_eq(md_row(md, rows[r], cells), 5);
        for (int c = 0; c < 4; c++) {
            double top = -1;
            for (int i = 0; i < s.n; i++) {
                const gg_variant *v = &s.v[i];
                if (shape_index(v->mrt) == r && shape_index(v->mc) == c && v->unroll == 0 &&
                    (v->np == 2 || v->np == 4 || v->np == 8 || v->np == 16 || v->np == 32))
                    top = fmax(top, s.g[i]);
            }
            ck_assert_msg(near(strtod(cells[c + 1], NULL), top), "%s mc %d: %s vs %g", rows[r], c,
                          cells[c + 1], top);
        }
    }
    /* The findings: mc and mrt ratios, the best, the ceiling fraction. */
    char cells[12][256];
    ck_assert_int_eq(md_row(md, "mc=2x2 over mc=1x1", cells), 4);
    ck_assert(near(strtod(cells[2], NULL), 2.2));
    ck_assert_str_eq(cells[3], "agrees");
    ck_assert_int_eq(md_row(md, "mrt=2x2 over mrt=1x1", cells), 4);
    ck_assert(near(strtod(cells[2], NULL), 1.1));
    ck_assert_int_eq(md_row(md, "multiply-add", cells), 4);
    ck_assert(near(strtod(cells[1], NULL), best));
    ck_assert(fabs(strtod(cells[3], NULL) - 100 * best / 40) < 0.051);
    ck_assert_ptr_nonnull(strstr(md, "search against hand-tuned"));
    char tf[128]; /* the browser's own library, in words */
    snprintf(tf, sizeof tf, "the best runs at %.3gx `tf.matMul`", best / 0.5);
    ck_assert_msg(strstr(md, tf) != NULL, "no '%s'", tf);
    ck_assert_ptr_nonnull(strstr(md, "tf.matMul (TensorFlow.js, webgl backend"));
    ck_assert_ptr_nonnull(strstr(md, "1 lines of the records did not parse"));
    ck_assert_ptr_null(strstr(md, "Measured again")); /* bench's best agrees with the records */
    ck_assert_ptr_nonnull(strstr(md, "```\nbest: synthetic\nwall time: 4h02m\n```"));
    ck_assert_int_eq(md_row(md, "np over 1..N, mc=2x2, mrt=2x2", cells), 4);
    ck_assert_str_eq(cells[3], "agrees: dips that stay when measured again");
    ck_assert_ptr_nonnull(strstr(cells[2], "7 dips"));
    ck_assert_ptr_nonnull(strstr(cells[2], "at np 5 (gone), 10 (stayed), 15, 20"));
    ck_assert_ptr_nonnull(strstr(cells[2], "measured again, 1 of 2 stayed dips"));
    ck_assert_int_eq(md_row(md, "np over 1..N, mc=1x4, mrt=2x2", cells), 4);
    ck_assert_str_eq(cells[3], "agrees: dips exist (not measured again)");
    char want[64];
    snprintf(want, sizeof want, "at %.4g GFLOP/s", best);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    /* The half-storage best against the probe's RGBA16F GEMM-pattern rate
     * (1.25 Gtexel/s, not the friendly 1.5): its fetch bound and any
     * variant's (4 targets: at most 2 sqrt(16) = 8 multiply-adds a texel). */
    gg_variant v16;
    char verr[256];
    ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=4x1,store=f16", NULL, &v16, verr, sizeof verr), 0);
    gg_layout L16;
    ck_assert_int_eq(gen_layout_compute(&v16, SYN, SYN, SYN, &L16), 0);
    double mpf = (double)L16.mads_per_frag_pass / (double)L16.fetches_per_frag_pass;
    char half[600];
    snprintf(half, sizeof half,
             "`mrt=2x4,mc=4x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16`, "
             "verified against the reference of the inputs rounded to halves): %.4g GFLOP/s, "
             "%.1f%% of the multiply-add ceiling.",
             1.5 * best, 100 * 1.5 * best / 40);
    ck_assert_msg(strstr(md, half) != NULL, "no '%s'", half);
    snprintf(half, sizeof half, "against the probe's 1.25 (");
    ck_assert_msg(strstr(md, half) != NULL, "no '%s'", half);
    snprintf(half, sizeof half, "with %.2f multiply-adds a texel that ceiling allows it %.4g GFLOP/s "
             "(%.1f%%), and any variant 20 (50.0%%).", mpf, 1.25 * mpf * 2, 100 * 1.25 * mpf * 2 / 40);
    ck_assert_msg(strstr(md, half) != NULL, "no '%s'", half);
    /* The f16x8 best: its own paragraph, its RGBA32UI texels against the
     * probe's RGBA32F GEMM-pattern rate (1 Gtexel/s here), near twice f16's
     * multiply-adds a texel, and any variant's twice the render targets'
     * 8 a texel: 1 x 16 x 2 = 32 GFLOP/s. */
    ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=4x1,store=f16x8", NULL, &v16, verr, sizeof verr), 0);
    gg_layout L8;
    ck_assert_int_eq(gen_layout_compute(&v16, SYN, SYN, SYN, &L8), 0);
    double mpf8 = (double)L8.mads_per_frag_pass / (double)L8.fetches_per_frag_pass;
    ck_assert(mpf8 > 1.5 * mpf); /* the running sums' fetch keeps it under 2x */
    snprintf(half, sizeof half,
             "(bench's `best-f16x8`, `mrt=2x4,mc=4x1,np=all,unroll=0,profile=330,compiler=glsl,"
             "acc=pingpong,store=f16x8`, verified against the reference of the inputs rounded to "
             "halves): %.4g GFLOP/s", 1.75 * best);
    ck_assert_msg(strstr(md, half) != NULL, "no '%s'", half);
    ck_assert_ptr_nonnull(strstr(md, "Its RGBA32UI (eight halves a texel) textures are fetched at "));
    ck_assert_ptr_nonnull(strstr(md, "against the probe's 1 for RGBA32F (as wide; RGBA32UI is not "
                                     "probed) ("));
    snprintf(half, sizeof half, "with %.2f multiply-adds a texel that ceiling allows it", mpf8);
    ck_assert_msg(strstr(md, half) != NULL, "no '%s'", half);
    ck_assert_ptr_nonnull(strstr(md, "and any variant 32 (80.0%)."));
    /* The outputs figure of records from before the keys: one series
     * (texture, out=rt), nothing past the cap measured. */
    char oname[64];
    store_report_figure_name(oname, sizeof oname, "fig-outputs", SYN, SYN, SYN);
    check_svg(card, oname);
    ck_assert_int_eq(md_row(md, "texture", cells), 4);
    char owant[400];
    snprintf(owant, sizeof owant, "%.4g GFLOP/s at 16 outputs (`mrt=2x2,mc=2x2,np=8,unroll=0,"
             "profile=330,compiler=glsl,acc=pingpong,store=f32`)", 2.2 * 1.1);
    ck_assert_msg(!strncmp(cells[1], owant, strlen(owant)), "'%s' vs '%s'", cells[1], owant);
    ck_assert_str_eq(cells[2], "not measured");
    ck_assert_int_eq(md_row(md, "texelfetch", cells), -1);
    ck_assert_ptr_nonnull(strstr(md, "Only `fetch=texture` ran ok"));
    ck_assert_ptr_nonnull(strstr(md, "- No `out=image` variant ran ok on this card"));
    ck_assert_ptr_nonnull(strstr(md, "- Verdict: not measured: no out=image variant ran ok."));
    ck_assert_ptr_null(strstr(md, "measured both ways"));
    /* Temporary files are gone. */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q 'tmp\\|\\.gp'", card);
    ck_assert_int_ne(system(cmd), 0);
    free(md);
    tu_rm_rf(dir);
}
END_TEST

/* The outputs figure and its section from a folder whose records hold the
 * new keys (syn_build_outputs): every number of the section's table and
 * sentences is the records', as the analysis test recomputes them. */
START_TEST(report_outputs_from_synthetic_folder)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "report");
    static syn_set s;
    syn_build_outputs(&s, false);
    static gg_bench bench;
    double best = write_synth_folder(dir, &s, &bench);
    ck_assert_double_eq_tol(best, 2.42 * 1.3 * 1.05, 1e-12); /* the best file: out=image */
    char args[256], *out, *err;
    snprintf(args, sizeof args, "report --results '%s' --card synth --size %d", dir, SYN);
    int rc = tu_run(dir, NULL, args, &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    free(out);
    free(err);
    char card[128], path[256], name[64];
    snprintf(card, sizeof card, "%s/synth", dir);
    store_report_figure_name(name, sizeof name, "fig-outputs", SYN, SYN, SYN);
    check_svg(card, name);
    snprintf(path, sizeof path, "%s/report.md", card);
    char *md = tu_read(path);
    ck_assert_ptr_nonnull(md);
    char want[600];
    snprintf(want, sizeof want, "![Outputs per fragment](%s)", name);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    /* The table: a row per fetch path, the best of each out. */
    char cells[12][256];
    ck_assert_int_eq(md_row(md, "texelfetch", cells), 4);
    snprintf(want, sizeof want, "%.4g GFLOP/s at 16 outputs (`mrt=2x2,mc=2x2,np=8,unroll=0,"
             "profile=330,compiler=glsl,acc=pingpong,store=f32,fetch=texelfetch`)",
             1.02 * 2.2 * 1.1);
    ck_assert_msg(!strncmp(cells[1], want, strlen(want)), "'%s' vs '%s'", cells[1], want);
    snprintf(want, sizeof want, "%.4g GFLOP/s at 64 outputs (`mrt=1x1,mc=2x2,np=8,unroll=0,"
             "profile=430,compiler=glsl,acc=pingpong,store=f32,out=image,blk=8x8,"
             "fetch=texelfetch`)", 2.42 * 1.3 * 1.05);
    ck_assert_msg(!strncmp(cells[2], want, strlen(want)), "'%s' vs '%s'", cells[2], want);
    ck_assert_str_eq(cells[3], "4 / 4; 5 / 5");
    ck_assert_int_eq(md_row(md, "buffer", cells), 4);
    ck_assert_str_eq(cells[1], "not measured");
    snprintf(want, sizeof want, "%.4g GFLOP/s at 64 outputs", 2.42 * 1.3 * 0.9);
    ck_assert_msg(!strncmp(cells[2], want, strlen(want)), "'%s' vs '%s'", cells[2], want);
    ck_assert_int_eq(md_row(md, "texture", cells), 4);
    snprintf(want, sizeof want, "%.4g GFLOP/s at 16 outputs", 2.2 * 1.1);
    ck_assert_msg(!strncmp(cells[1], want, strlen(want)), "'%s' vs '%s'", cells[1], want);
    ck_assert_int_eq(md_row(md, "any", cells), 4);
    ck_assert_int_eq(md_row(md, "image", cells), 4);
    snprintf(want, sizeof want, "The fastest fetch path is `fetch=texelfetch` (%.4g GFLOP/s).",
             2.42 * 1.3 * 1.05);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    /* The MRT finding, revisited: Figure 8's ratio, the bests, the cap (32:
     * no environment.txt, 8 targets), the common 16 outputs, the verdict. */
    ck_assert_ptr_nonnull(strstr(md, "### The paper's MRT finding, revisited"));
    ck_assert_ptr_nonnull(strstr(md, "Here mrt=2x2 over mrt=1x1 is 1.1x (Figure 8)."));
    snprintf(want, sizeof want, "- The best `out=rt` variant computes 16 outputs a fragment and "
             "runs at %.4g GFLOP/s (`mrt=2x2,mc=2x2,np=8,unroll=0,profile=330,compiler=glsl,"
             "acc=pingpong,store=f32,fetch=texelfetch`).  No `out=rt` variant with the cap's 32 "
             "outputs ran ok.", 1.02 * 2.2 * 1.1);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    snprintf(want, sizeof want, "- The best `out=image` variant computes 64 outputs a fragment and "
             "runs at %.4g GFLOP/s (`mrt=1x1,mc=2x2,np=8,unroll=0,profile=430,compiler=glsl,"
             "acc=pingpong,store=f32,out=image,blk=8x8,fetch=texelfetch`), %.3gx the best "
             "`out=rt`.  That is past the cap.", 2.42 * 1.3 * 1.05, 1.3 * 1.05 / 1.02);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    snprintf(want, sizeof want, "  The best `out=image` by outputs per fragment (GFLOP/s, any "
             "fetch path): 16: %.4g, 32: %.4g, 64: %.4g, 128: %.4g, 256: %.4g; highest at 64.",
             2.42 * 1.05, 2.42 * 1.15 * 1.05, 2.42 * 1.3 * 1.05, 2.42 * 1.1 * 1.05,
             2.42 * 0.7 * 1.05);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    snprintf(want, sizeof want, "- At 16 outputs, measured both ways, `out=image` runs at %.4g and "
             "`out=rt` at %.4g GFLOP/s (%.3gx)", 2.42 * 1.05, 1.02 * 2.42, 1.05 / 1.02);
    ck_assert_msg(strstr(md, want) != NULL, "no '%s'", want);
    ck_assert_ptr_nonnull(strstr(md, "- Verdict: more outputs than render targets hold pay off"));
    /* Figures 7 and 8 still the texture out=rt records'. */
    ck_assert_ptr_nonnull(strstr(md, "acc=pingpong, out=rt (the outer keys with the most records"));
    /* The ceilings of an out=image best: its block by imageStore, no
     * render-target rate against it (this probe.csv has no imageStore
     * rows), the render targets' bound stated as out=rt's. */
    ck_assert_ptr_nonnull(strstr(md, "writes its 8x8 block with imageStore (16 texels; no render "
                                     "target)."));
    ck_assert_int_eq(md_row(md, "imageStore (16 texels a fragment)", cells), 4);
    ck_assert_str_eq(cells[2], "not probed");
    ck_assert_ptr_nonnull(strstr(md, "No `out=rt` variant can do more than"));
    ck_assert_ptr_nonnull(strstr(md, "the best, an `out=image` block past the render targets, is "
                                     "not bound by it."));
    free(md);
    /* With the probe's imageStore rows, the fastest is the ceiling. */
    snprintf(path, sizeof path, "%s/probe.csv", card);
    char *probe = tu_read(path);
    ck_assert_ptr_nonnull(probe);
    size_t pl = strlen(probe) + 200;
    char *more = malloc(pl);
    snprintf(more, pl, "%simagestore,rgba32f-4-per-fragment,0.2,Gtexel/s\n"
             "imagestore,rgba32f-4-per-fragment,3.2,GB/s\n"
             "imagestore,rgba32f-16-per-fragment,0.4,Gtexel/s\n"
             "imagestore,rgba32f-16-per-fragment,6.4,GB/s\n", probe);
    write_text(path, more);
    free(more);
    free(probe);
    rc = tu_run(dir, NULL, args, &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/report.md", card);
    md = tu_read(path);
    ck_assert_int_eq(md_row(md, "imageStore (16 texels a fragment)", cells), 4);
    ck_assert_str_eq(cells[2], "0.4 Gtexel/s");
    free(md);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(report_refuses_without_gnuplot_or_records)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "report");
    static syn_set s;
    syn_build(&s);
    static gg_bench bench;
    write_synth_folder(dir, &s, &bench);
    char args[256], *out, *err;
    snprintf(args, sizeof args, "report --results '%s' --card synth --size %d", dir, SYN);
    int rc = tu_run(dir, "PATH=/nonexistent", args, &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "gnuplot not found") != NULL, "%s", err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    char path[256];
    snprintf(path, sizeof path, "%s/synth/report.md", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    free(out);
    free(err);
    /* Another size: no records. */
    snprintf(args, sizeof args, "report --results '%s' --card synth --size 99", dir);
    rc = tu_run(dir, NULL, args, &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "no tuning records") != NULL, "%s", err);
    ck_assert_int_ne(access(path, F_OK), 0);
    free(out);
    free(err);
    rc = tu_run(dir, NULL, "report --card Not_A_Slug", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(err, "--card must be a card slug"));
    free(out);
    free(err);
    rc = tu_run(dir, NULL, "report --card synth --measure-only", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(err, "it takes no --card"));
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST

/* ---- a real small tune, then the report on this card ------------------------- */

START_TEST(report_after_real_tune)
{
    char dir[64], err[512];
    tu_mkdtemp(dir, sizeof dir, "report");
    const int S = 16;
    gg_problem p;
    base_problem_default(&p);
    p.m = p.n = p.k = S;
    p.reps = 2;
    gg_inputs in;
    gg_reference ref;
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), 0);
    ck_assert_int_eq(base_reference_compute(&in, 1, 0, &ref, err, sizeof err), 0);
    gg_ctx_info info[3];
    bool ok[3];
    ck_assert_msg(eval_gpu_info_all(GG_BACKEND_EGL, 0, info, ok, err, sizeof err, NULL) == 0, "%s",
                  err);
    char slug[GG_CARD_MAX];
    base_slug(info[GG_CTX_CORE].renderer, slug, sizeof slug);

    /* The tune: phase search with the outer keys held, at most 40 points. */
    gg_gpu g = {.backend = GG_BACKEND_EGL, .prob = &p, .in = &in, .ref = &ref, .timeout_s = 60};
    gg_tune_config tc;
    memset(&tc, 0, sizeof tc);
    tc.results_dir = dir;
    tc.card = slug;
    search_config_default(&tc.search, S, S, S);
    for (int q = 0; q < 3; q++) {
        gg_ctx_kind kind = host_ctx_kind_for((gg_profile)q);
        tc.search.profile_ok[q] = ok[kind];
        if (ok[kind])
            host_ctx_limits(&info[kind], &tc.search.lim[q]);
    }
    ck_assert_int_eq(search_fix_parse("unroll=0,profile=330,compiler=glsl,acc=pingpong", &tc.search.fix,
                                  err, sizeof err),
                     0);
    tc.search.budget = 40;
    tc.search.eval = eval_gpu_eval;
    tc.search.user = &g;
    gg_records_info ri;
    gg_tune *t = search_tune_open(&tc, &ri, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    search_tune_run(t);
    ck_assert_int_eq(search_tune_finish(t), 0);
    search_tune_close(t);
    eval_gpu_close(&g);
    /* A quick probe, so the report need not run the full one. */
    gg_probe_opts po;
    host_probe_opts_default(&po, true);
    static gg_probe_result pr;
    ck_assert_msg(eval_gpu_probe(GG_BACKEND_EGL, 0, &po, 120, &pr, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(pr.status, GG_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/%s/probe.csv", dir, slug);
    ck_assert_int_eq(base_probe_write_csv(&pr, path, err, sizeof err), 0);

    /* The report on this card: sweeps np 1..4 of two pairs into the records
     * and runs bench (no bench file yet). */
    /* First --measure-only, with no gnuplot on the PATH: it measures and
     * stops; then the report, which finds nothing left to measure. */
    char args[256], *out, *errtext;
    snprintf(args, sizeof args, "report --results '%s' --size %d --sweep-np 4 --reps 2 --measure-only",
             dir, S);
    int rc = tu_run(dir, "PATH=/nonexistent", args, &out, &errtext);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, errtext);
    ck_assert_ptr_nonnull(strstr(errtext, "report: running bench (no bench file)"));
    ck_assert_ptr_nonnull(strstr(out, "write the report with glgemm report --card"));
    snprintf(path, sizeof path, "%s/%s/report.md", dir, slug);
    ck_assert_int_ne(access(path, F_OK), 0);
    free(out);
    free(errtext);
    snprintf(args, sizeof args, "report --results '%s' --size %d --sweep-np 4 --reps 2", dir, S);
    rc = tu_run(dir, NULL, args, &out, &errtext);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, errtext);
    ck_assert_ptr_null(strstr(errtext, "running bench"));
    ck_assert_ptr_null(strstr(errtext, "report: sweep"));
    free(out);
    free(errtext);

    static gg_report_data d;
    ck_assert_msg(report_load(dir, slug, S, S, S, &d, err, sizeof err) == 0, "%s", err);
    ck_assert(d.have_best && d.have_bench && d.have_probe && d.env.have);
    ck_assert_int_eq(d.bad_lines, 0);
    gg_findings f;
    ck_assert_int_eq(report_analyse(&d, &f), 0);
    gg_variant pairs[2];
    ck_assert_int_eq(report_sweep_pairs(&f, &d, pairs), 2);
    /* The sweep's points are in the records now (np past the k-steps is all). */
    for (int i = 0; i < 2; i++)
        for (int np = 1; np <= 4; np++) {
            gg_variant v = pairs[i];
            v.np = np;
            ck_assert_msg(report_find(&d, &v) != NULL, "pair %d np %d not recorded", i, np);
        }
    /* Every bench row ran ok and report.md shows the bench CSV's numbers. */
    snprintf(path, sizeof path, "%s/%s/report.md", dir, slug);
    char *md = tu_read(path);
    ck_assert_ptr_nonnull(md);
    for (int i = 0; i < GG_BENCH_NROWS; i++) {
        const gg_bench_row *r = &d.bench.rows[i];
        if ((i == GG_BENCH_BEST_F16 || i == GG_BENCH_BEST_F16X8) && !r->present) {
            /* no half-storage tune: no row */
            ck_assert_ptr_null(strstr(md, i == GG_BENCH_BEST_F16 ? "| best-f16 |" : "| best-f16x8 |"));
            continue;
        }
        if (i == GG_BENCH_BEST_IMAGE && !r->present) { /* no out=image record: no row */
            ck_assert_ptr_null(strstr(md, "| best-image |"));
            continue;
        }
        ck_assert_msg(r->present && r->m.status == GG_OK, "%s: %s", eval_bench_names[i],
                      r->m.detail);
        char cells[12][256];
        ck_assert_int_eq(md_row(md, eval_bench_names[i], cells), 8);
        ck_assert(near(strtod(cells[4], NULL), r->m.gflops));
        ck_assert(near(strtod(cells[6], NULL),
                       r->m.gflops / d.bench.rows[eval_bench_ratio_base(i)].m.gflops));
        ck_assert_str_eq(cells[7], eval_bench_row_precision(&d.bench, i));
    }
    ck_assert_ptr_nonnull(strstr(md, d.env.renderer));
    ck_assert_ptr_nonnull(strstr(md, "## The paper's findings on this card"));
    char card[128];
    snprintf(card, sizeof card, "%s/%s", dir, slug);
    const char *figs[] = {"fig5", "fig8"};
    for (int i = 0; i < 2; i++) {
        char name[64];
        store_report_figure_name(name, sizeof name, figs[i], S, S, S);
        check_svg(card, name);
    }
    free(md);
    /* A half-storage best appears: the bench no longer runs the recorded
     * bests, so the report runs it again, with a best-f16 row (ok against
     * its own reference) and the half paragraph. */
    gg_variant half = d.best;
    half.store = GG_STORE_F16;
    gg_measurement hm;
    base_measurement_init(&hm);
    hm.status = GG_OK;
    hm.gflops = 1;
    ck_assert_int_eq(store_best_write(dir, slug, S, S, S, &half, &hm, err, sizeof err), 0);
    snprintf(args, sizeof args, "report --results '%s' --size %d --sweep-np 4 --reps 2", dir, S);
    rc = tu_run(dir, NULL, args, &out, &errtext);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, errtext);
    ck_assert_msg(strstr(errtext, "report: running bench (its best rows are not the recorded bests)"),
                  "%s", errtext);
    free(out);
    free(errtext);
    static gg_bench hb;
    ck_assert_int_eq(eval_bench_read(store_bench_path(path, sizeof path, dir, slug, S, S, S), &hb, err,
                                   sizeof err), 0);
    ck_assert(hb.rows[GG_BENCH_BEST_F16].present);
    ck_assert_int_eq(hb.rows[GG_BENCH_BEST_F16].m.status, GG_OK);
    ck_assert_int_eq(hb.rows[GG_BENCH_BEST_F16].v.store, GG_STORE_F16);
    snprintf(path, sizeof path, "%s/%s/report.md", dir, slug);
    md = tu_read(path);
    ck_assert_ptr_nonnull(md);
    char cells16[12][256];
    ck_assert_int_eq(md_row(md, "best-f16", cells16), 8);
    ck_assert_str_eq(cells16[7], "f16");
    ck_assert_ptr_nonnull(strstr(md, "Half storage, a precision class of its own"));
    free(md);
    report_findings_free(&f);
    report_data_free(&d);
    base_reference_free(&ref);
    base_inputs_free(&in);
    tu_rm_rf(dir);
}
END_TEST

/* ---- the committed results ------------------------------------------------- */

/* For every results/<card>/report.md in the repository (the suite runs from
 * its root): the figures it shows exist and are SVG, its Figure 5 table is
 * the bench CSV beside it, and `glgemm gen best --card` writes, for each
 * best file, exactly the shader committed in shaders/.  The repository
 * holds results: no results/ folder, no report, no bench row or no best
 * file fails the case rather than passing it with nothing looked at. */
START_TEST(committed_results_are_whole)
{
    DIR *top = opendir("results");
    ck_assert_msg(top != NULL, "no results/ folder: run the suite from the repository root");
    struct dirent *e;
    int reports = 0, bench_rows = 0, bests = 0;
    while ((e = readdir(top))) {
        if (e->d_name[0] == '.')
            continue;
        char card[300], path[700];
        snprintf(card, sizeof card, "results/%s", e->d_name);
        snprintf(path, sizeof path, "%s/report.md", card);
        char *md = tu_read(path);
        if (md) {
            reports++;
            for (const char *p = md; (p = strstr(p, "](fig")); p++) {
                char name[128];
                ck_assert_int_eq(sscanf(p + 2, "%127[^)]", name), 1);
                check_svg(card, name);
            }
            int m, n, k;
            const char *t = strstr(md, "M x N x K = ");
            ck_assert_ptr_nonnull(t);
            ck_assert_int_eq(sscanf(t, "M x N x K = %d x %d x %d", &m, &n, &k), 3);
            static gg_bench b;
            char err[512];
            store_bench_path(path, sizeof path, "results", e->d_name, m, n, k);
            ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0,
                          "%s/report.md: its bench CSV: %s", card, err);
            for (int i = 0; i < GG_BENCH_NROWS; i++) {
                if (!b.rows[i].present)
                    continue;
                bench_rows++;
                char cells[12][256];
                int ncells = md_row(md, eval_bench_names[i], cells);
                /* 8: with the precision column; 7: reports from before it */
                ck_assert_msg(ncells == 8 || ncells == 7, "%s: %s: %d cells", card,
                              eval_bench_names[i], ncells);
                ck_assert_msg(near(strtod(cells[4], NULL), b.rows[i].m.gflops),
                              "%s: %s GFLOP/s %s vs %g", card, eval_bench_names[i], cells[4],
                              b.rows[i].m.gflops);
            }
            free(md);
        }
        DIR *d = opendir(card);
        ck_assert_msg(d != NULL, "cannot list %s", card);
        struct dirent *f;
        while ((f = readdir(d))) {
            int m, n, k, used = 0;
            if (sscanf(f->d_name, "best-%dx%dx%d.txt%n", &m, &n, &k, &used) != 3 ||
                f->d_name[used])
                continue;
            bests++;
            char args[512], *out, *err;
            snprintf(args, sizeof args, "gen best --card %s --m %d --n %d --k %d", e->d_name, m, n,
                     k);
            ck_assert_int_eq(tu_run(".", NULL, args, &out, &err), 0);
            snprintf(path, sizeof path, "shaders/best-%s-%dx%dx%d.frag", e->d_name, m, n, k);
            char *committed = tu_read(path);
            ck_assert_msg(committed != NULL, "%s missing: run make shaders", path);
            ck_assert_msg(!strcmp(out, committed), "%s is not what gen best writes", path);
            free(committed);
            free(out);
            free(err);
        }
        closedir(d);
    }
    closedir(top);
    ck_assert_msg(reports > 0, "no results/<card>/report.md to check");
    ck_assert_msg(bench_rows > 0, "no bench row in the reports' bench CSVs");
    ck_assert_msg(bests > 0, "no results/<card>/best-MxNxK.txt to check");
}
END_TEST

Suite *make_report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("analysis");
    tcase_add_test(tc, xml_checker_catches_errors);
    tcase_add_loop_test(tc, curve_unimodal, 0, sizeof uni_cases / sizeof *uni_cases);
    tcase_add_test(tc, curve_dips);
    tcase_add_test(tc, curve_scatter);
    tcase_add_test(tc, verdicts);
    tcase_add_test(tc, fig8_without_data);
    tcase_add_test(tc, analysis_of_synthetic_records);
    tcase_add_test(tc, outputs_of_synthetic_records);
    tcase_add_test(tc, outputs_verdicts);
    suite_add_tcase(s, tc);

    TCase *files = tcase_create("files");
    tcase_set_timeout(files, 120);
    tcase_add_test(files, report_from_synthetic_folder);
    tcase_add_test(files, report_outputs_from_synthetic_folder);
    tcase_add_test(files, report_refuses_without_gnuplot_or_records);
    tcase_add_test(files, committed_results_are_whole);
    suite_add_tcase(s, files);

    TCase *real = tcase_create("real");
    tcase_set_tags(real, "gl slow");
    tcase_set_timeout(real, 600);
    tcase_add_test(real, report_after_real_tune);
    suite_add_tcase(s, real);
    return s;
}
