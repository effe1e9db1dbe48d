/* report.md: the text around the figures, every number from the loaded
 * files or the analysis (report.h).  Written through a memory stream, then
 * atomically. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "store/records.h"
#include "report/report_int.h"

static const char *shape(gg_shape s, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%d", s.rows, s.cols);
    return buf;
}

static int outputs_of_md(const gg_report_data *d, const gg_variant *v)
{
    gg_layout L;
    return gen_layout_compute(v, d->m, d->n, d->k, &L) ? 0 : gen_layout_outputs(&L);
}

static const char *np_text(int np, char *buf, size_t len)
{
    if (np == GG_NP_ALL)
        snprintf(buf, len, "all");
    else
        snprintf(buf, len, "%d", np);
    return buf;
}

static void setup(FILE *f, const gg_report_data *d, const gg_report_opts *o)
{
    const gg_report_env *e = &d->env;
    fprintf(f, "## Set-up\n\n| | |\n|---|---|\n");
    fprintf(f, "| card (results folder) | `%s` |\n", d->card);
    if (e->have) {
        fprintf(f, "| renderer | %s |\n| vendor | %s |\n| driver (GL version) | %s |\n", e->renderer,
                e->vendor, e->version);
        fprintf(f, "| GLSL | %s |\n| limits | %d draw buffers, textures up to %d |\n", e->glsl,
                e->max_draw_buffers, e->max_texture_size);
        fprintf(f, "| context | %s backend, device %d |\n", e->backend, e->device);
        fprintf(f, "| machine | %s, %d CPUs; OpenBLAS on %d threads |\n", e->cpu, e->nproc,
                e->blas_threads);
        fprintf(f, "| environment recorded | %s |\n", e->written);
    } else {
        fprintf(f, "| driver, machine | not recorded (no environment.txt: this report was made "
                   "with --card, away from the card) |\n");
    }
    fprintf(f, "| problem | C = A B, M x N x K = %d x %d x %d, float32, inputs uniform in "
               "[-1, 1) (seed 1) |\n\n",
            d->m, d->n, d->k);
    fprintf(f, "Commands that made these files (from the repository root):\n\n```\n");
    fprintf(f, "glgemm tune --m %d --n %d --k %d    # tune-%dx%dx%d.csv, best-%dx%dx%d.txt\n", d->m,
            d->n, d->k, d->m, d->n, d->k, d->m, d->n, d->k);
    if (d->have_bench)
        fprintf(f, "glgemm bench --m %d --n %d --k %d   # bench-%dx%dx%d.csv\n", d->m, d->n, d->k,
                d->m, d->n, d->k);
    if (d->have_probe)
        fprintf(f, "glgemm probe                        # probe.csv\n");
    fprintf(f, "%s    # this file, environment.txt, the figures\n```\n\n",
            o->command ? o->command : "glgemm report");
    if (o->measured && *o->measured)
        fprintf(f, "This run of `report` measured: %s.\n\n", o->measured);
    if (d->best_text[0]) {
        fprintf(f, "The tuner's best file, as written:\n\n```\n%s%s```\n\n", d->best_text,
                d->best_text[strlen(d->best_text) - 1] == '\n' ? "" : "\n");
    }
}

static void cost(FILE *f, const gg_report_data *d)
{
    long by[GG_STATUS_COUNT] = {0};
    double gemm_s = 0;
    for (long i = 0; i < d->nrecs; i++) {
        by[d->recs[i].m.status]++;
        gemm_s += d->recs[i].m.seconds;
    }
    fprintf(f, "## Search cost\n\n%ld variants in the tuning records (the tune's, and the dense "
               "np sweep `report` adds; ", d->nrecs);
    bool first = true;
    for (int s = 0; s < GG_STATUS_COUNT; s++)
        if (by[s]) {
            fprintf(f, "%s%s %ld", first ? "" : ", ", base_status_name(s), by[s]);
            first = false;
        }
    fprintf(f, ")%s.  ", d->nrecs ? "" : "none");
    fprintf(f, "The median GEMM times in the records add up to %.3f s; with the warm-up and the "
               "default 10 timed repetitions the GEMMs alone took about %.1f s (compilation, "
               "upload, verification and process start are not recorded, and come on top).",
            gemm_s, 11 * gemm_s);
    if (d->bad_lines)
        fprintf(f, "  %ld lines of the records did not parse and were skipped.", d->bad_lines);
    fprintf(f, "  The paper's search took about four hours per card.\n\n");
    if (d->tune_summary && d->tune_summary[0]) {
        size_t n = strlen(d->tune_summary);
        fprintf(f, "The tuner's own summary (tune-%dx%dx%d-summary.txt; its wall time includes "
                   "compilation and process start):\n\n```\n%s%s```\n\n",
                d->m, d->n, d->k, d->tune_summary, d->tune_summary[n - 1] == '\n' ? "" : "\n");
    }
}

static void fig5(FILE *f, const gg_report_data *d, const gg_findings *fd, const char *img)
{
    fprintf(f, "## Figure 5: automatic against manual\n\n");
    if (!d->have_bench) {
        fprintf(f, "No bench-%dx%dx%d.csv: run `glgemm bench --m %d --n %d --k %d`.\n\n", d->m, d->n,
                d->k, d->m, d->n, d->k);
        return;
    }
    fprintf(f, "![Figure 5](%s)\n\n", img);
    fprintf(f, "All rows from one run of `bench` on the same inputs, each verified; the model "
               "rows (with `--backend browser`) run TensorFlow.js models on their own inputs, "
               "their GFLOP/s from the models' matrix products, the glgemm rows checked against "
               "TensorFlow.js's own outputs.  The precision column names what a row's "
               "arithmetic and storage carry (the variant's `store`: f32, f16, f16x8, f64, dd, df; "
               "the CPU BLAS rows sgemm's f32 and dgemm's f64)%s.\n\n",
            d->bench.rows[GG_BENCH_CPU_DGEMM].present
                ? "; `best-f64` and `cpu-dgemm` are compared with the CPU's dgemm, the other rows "
                  "with its sgemm"
                : "");
    fprintf(f, "| name | variant | status | seconds | GFLOP/s | best / this | this / CPU BLAS | "
               "precision |\n|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++) {
        const gg_bench_row *r = &d->bench.rows[i];
        if (!r->present && eval_bench_row_optional(i))
            continue; /* half storage not tuned, no out=image record, not the browser: no
                         row, as in the CSV */
        if (!r->present) {
            fprintf(f, "| %s | no tuning record | | | | | | |\n", eval_bench_names[i]);
            continue;
        }
        char vt[GG_VARIANT_TEXT];
        if (r->has_variant)
            gen_variant_format(&r->v, vt, sizeof vt);
        else
            snprintf(vt, sizeof vt, "%s", eval_bench_row_what(i));
        char vs[32] = "";
        if (fd->vs[i] > 0)
            snprintf(vs, sizeof vs, "%.4g", fd->vs[i]);
        fprintf(f, "| %s | `%s` | %s | %.6g | %.4g | %s | %.4g | %s |\n", eval_bench_names[i], vt,
                base_status_name(r->m.status), r->m.seconds, r->m.gflops, vs, r->ratio,
                eval_bench_row_precision(&d->bench, i));
    }
    fprintf(f, "\n");
    const gg_bench_row *b = &d->bench.rows[GG_BENCH_BEST];
    if (b->present && b->m.status == GG_OK && d->have_best && d->best_gflops > 0 &&
        fabs(b->m.gflops - d->best_gflops) > 0.1 * d->best_gflops)
        fprintf(f, "Measured again here, the best ran at %.4g GFLOP/s against %.4g in the tuning "
                   "records (%+.0f%%): the timings of this machine vary that much between runs, "
                   "and a search keeps the luckiest measurement of every point.\n\n",
                b->m.gflops, d->best_gflops, 100 * (b->m.gflops / d->best_gflops - 1));
}

static void curve_table(FILE *f, const gg_np_curve *c, int n)
{
    /* The union of the curves' np, as columns. */
    int cols[GG_CURVE_MAX];
    bool colall[GG_CURVE_MAX];
    int nc = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c[i].n; j++) {
            bool seen = false;
            for (int x = 0; x < nc && !seen; x++)
                seen = cols[x] == c[i].np[j] && colall[x] == c[i].all[j];
            if (!seen && nc < GG_CURVE_MAX) {
                int at = nc++;
                while (at > 0 && (cols[at - 1] > c[i].np[j] ||
                                  (cols[at - 1] == c[i].np[j] && colall[at - 1] && !c[i].all[j]))) {
                    cols[at] = cols[at - 1];
                    colall[at] = colall[at - 1];
                    at--;
                }
                cols[at] = c[i].np[j];
                colall[at] = c[i].all[j];
            }
        }
    fprintf(f, "| np |");
    for (int i = 0; i < n; i++) {
        char label[64];
        report_curve_label(label, sizeof label, &c[i]);
        fprintf(f, " %s |", label);
    }
    fprintf(f, "\n|---|");
    for (int i = 0; i < n; i++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int x = 0; x < nc; x++) {
        if (colall[x])
            fprintf(f, "| all (%d) |", cols[x]);
        else
            fprintf(f, "| %d |", cols[x]);
        for (int i = 0; i < n; i++) {
            int j = 0;
            while (j < c[i].n && !(c[i].np[j] == cols[x] && c[i].all[j] == colall[x]))
                j++;
            if (j < c[i].n)
                fprintf(f, " %.4g |", c[i].gflops[j]);
            else
                fprintf(f, " |");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

static void fig7(FILE *f, const gg_report_data *d, const gg_findings *fd, const char *img_a,
                 const char *img_b)
{
    fprintf(f, "## Figure 7: sensitivity to np\n\n");
    if (!fd->have_base) {
        fprintf(f, "No out=rt variant ran ok: nothing to plot.\n\n");
        return;
    }
    fprintf(f, "Every curve holds unroll=%d, profile=%s, compiler=%s, acc=%s%s%s, out=rt (the "
               "outer keys with the most records%s); GFLOP/s, 0 where the variant failed.  np=all "
               "is plotted at the number of k-steps.\n\n",
            fd->base.unroll, gen_profile_name(fd->base.profile), gen_compiler_name(fd->base.compiler),
            gen_acc_name(fd->base.acc), fd->base.fetch != GG_FETCH_TEXTURE ? ", fetch=" : "",
            fd->base.fetch != GG_FETCH_TEXTURE ? gen_fetch_name(fd->base.fetch) : "",
            !d->have_best || (d->best.unroll == fd->base.unroll &&
                              d->best.profile == fd->base.profile &&
                              d->best.compiler == fd->base.compiler && d->best.acc == fd->base.acc &&
                              d->best.store == fd->base.store && d->best.out == fd->base.out &&
                              d->best.fetch == fd->base.fetch)
                ? ", the best's"
                : "; the best's differ");
    fprintf(f, "### (a) np over powers of two\n\n");
    if (fd->n7a) {
        fprintf(f, "![Figure 7a](%s)\n\n", img_a);
        curve_table(f, fd->c7a, fd->n7a);
    } else {
        fprintf(f, "No (mc, mrt) pair has three or more power-of-two np recorded.\n\n");
    }
    fprintf(f, "### (b) np over 1..N\n\n");
    if (fd->n7b) {
        fprintf(f, "![Figure 7b](%s)\n\n<details><summary>the data of Figure 7b</summary>\n\n",
                img_b);
        curve_table(f, fd->c7b, fd->n7b);
        fprintf(f, "</details>\n\n");
    } else {
        fprintf(f, "No dense np sweep recorded (run `glgemm report` on this card without "
                   "--no-sweep).\n\n");
    }
}

static void fig8(FILE *f, const gg_findings *fd, const char *img)
{
    fprintf(f, "## Figure 8: sensitivity to mrt and mc\n\n");
    if (!fd->have_base) {
        fprintf(f, "No out=rt variant ran ok: nothing to plot.\n\n");
        return;
    }
    fprintf(f, "![Figure 8](%s)\n\n", img);
    fprintf(f, "Best GFLOP/s over np in {2, 4, 8, 16, 32} (np at or past the k-steps is np=all) "
               "and the np that gave it; empty where none was measured.\n\n| mrt \\ mc |");
    char b1[16], b2[16];
    for (int c = 0; c < GG_F8_MC; c++)
        fprintf(f, " mc=%s |", shape(fd->f8_mc[c], b1, sizeof b1));
    fprintf(f, "\n|---|");
    for (int c = 0; c < GG_F8_MC; c++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int r = 0; r < fd->n_mrt; r++) {
        fprintf(f, "| mrt=%s |", shape(fd->f8_mrt[r], b1, sizeof b1));
        for (int c = 0; c < GG_F8_MC; c++) {
            if (fd->f8[r][c] < 0)
                fprintf(f, " |");
            else
                fprintf(f, " %.4g (np=%s) |", fd->f8[r][c], np_text(fd->f8_np[r][c], b2, sizeof b2));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* "25.9 GFLOP/s at 16 outputs (`variant`)" for record i, or "not measured". */
static void rec_cell(FILE *f, const gg_report_data *d, long i, bool mads)
{
    if (i < 0) {
        fprintf(f, "not measured");
        return;
    }
    const gg_report_rec *r = &d->recs[i];
    gg_layout L;
    char vt[GG_VARIANT_TEXT];
    if (gen_layout_compute(&r->v, d->m, d->n, d->k, &L)) {
        fprintf(f, "%.4g GFLOP/s", r->m.gflops);
        return;
    }
    fprintf(f, "%.4g GFLOP/s at %d outputs (`%s`)", r->m.gflops, gen_layout_outputs(&L),
            gen_variant_format(&r->v, vt, sizeof vt));
    if (mads)
        fprintf(f, ", %.3g multiply-adds a texel of A and B", gen_layout_mads_per_fetch(&L));
}

/* "  By outputs, the best (any fetch path): 4: 1.2, 8: 3.4, ..." for one
 * out, and where it peaks. */
static void envelope(FILE *f, const gg_report_data *d, const gg_outputs_finding *o, int out)
{
    (void)d;
    int q[GG_OUTS_MAX], n = 0;
    double g[GG_OUTS_MAX];
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
        const gg_outputs_series *s = &o->s[fe][out];
        for (int j = 0; j < s->n; j++) {
            int x = 0;
            while (x < n && q[x] < s->outputs[j])
                x++;
            if (x < n && q[x] == s->outputs[j]) {
                g[x] = s->gflops[j] > g[x] ? s->gflops[j] : g[x];
            } else if (n < GG_OUTS_MAX) {
                memmove(q + x + 1, q + x, (size_t)(n - x) * sizeof *q);
                memmove(g + x + 1, g + x, (size_t)(n - x) * sizeof *g);
                q[x] = s->outputs[j];
                g[x] = s->gflops[j];
                n++;
            }
        }
    }
    if (n < 2)
        return;
    fprintf(f, "  The best `out=%s` by outputs per fragment (GFLOP/s, any fetch path):",
            gen_out_name((gg_out)out));
    int top = 0;
    for (int x = 0; x < n; x++) {
        fprintf(f, "%s %d: %.4g", x ? "," : "", q[x], g[x]);
        if (g[x] > g[top])
            top = x;
    }
    fprintf(f, "; %s at %d.\n", top == n - 1 ? "rising to its highest" : "highest", q[top]);
}

static void outputs_section(FILE *f, const gg_report_data *d, const gg_findings *fd,
                            const char *img)
{
    const gg_outputs_finding *o = fd->outs;
    fprintf(f, "## Outputs per fragment and the fetch paths: past the render targets' cap\n\n");
    if (!o || !o->have) {
        fprintf(f, "No store=f32 variant ran ok: nothing to plot.\n\n");
        return;
    }
    fprintf(f, "![Outputs per fragment](%s)\n\n", img);
    fprintf(f, "A fragment of an `out=rt` variant computes render targets x channels scalars of "
               "C (mrt x mc), at most %d here (%d targets of 4 channels); an `out=image` variant "
               "computes a `blk` block and writes it with imageStore, past that cap.  Each point "
               "is the fastest store=f32 record that ran ok with that many outputs, for its fetch "
               "path (how A and B are read) and out; records from before the `out` and `fetch` "
               "keys count as `fetch=texture`, `out=rt`.\n\n",
            o->cap, o->cap / 4);
    fprintf(f, "| fetch path | best out=rt | best out=image | records ok / all (rt; image) |\n"
               "|---|---|---|---|\n");
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++) {
        const gg_outputs_series *r = &o->s[fe][GG_OUT_RT], *m = &o->s[fe][GG_OUT_IMAGE];
        if (!r->total && !m->total)
            continue;
        fprintf(f, "| %s | ", gen_fetch_name((gg_fetch)fe));
        rec_cell(f, d, r->best >= 0 ? r->rec[r->best] : -1, true);
        fprintf(f, " | ");
        rec_cell(f, d, m->best >= 0 ? m->rec[m->best] : -1, true);
        fprintf(f, " | %ld / %ld; %ld / %ld |\n", r->ok, r->total, m->ok, m->total);
    }
    fprintf(f, "| any | ");
    rec_cell(f, d, o->best[GG_OUT_RT], true);
    fprintf(f, " | ");
    rec_cell(f, d, o->best[GG_OUT_IMAGE], true);
    fprintf(f, " | |\n\n");
    /* The fastest fetch path (its best of either out). */
    int top = -1;
    double gtop = 0;
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        for (int out = 0; out < GG_OUT_COUNT; out++) {
            const gg_outputs_series *s = &o->s[fe][out];
            if (s->best >= 0 && s->gflops[s->best] > gtop) {
                gtop = s->gflops[s->best];
                top = fe;
            }
        }
    int paths = 0;
    for (int fe = 0; fe < GG_FETCH_COUNT; fe++)
        paths += o->s[fe][GG_OUT_RT].ok + o->s[fe][GG_OUT_IMAGE].ok > 0;
    if (paths > 1)
        fprintf(f, "The fastest fetch path is `fetch=%s` (%.4g GFLOP/s).", gen_fetch_name((gg_fetch)top),
                gtop);
    else
        fprintf(f, "Only `fetch=%s` ran ok: the fetch paths are not compared on this card.",
                gen_fetch_name((gg_fetch)top));
    fprintf(f, "\n\n");

    fprintf(f, "### The paper's MRT finding, revisited\n\n");
    fprintf(f, "The paper saw mrt=2x2 run about 1.1x faster than mrt=1x1 (Figure 8, with four "
               "targets at most) and put the small gain down to the copy of the auxiliary buffers "
               "into textures between passes and to the registers more targets take.  Render "
               "targets are one way to more outputs per fragment, that is to more reuse of each "
               "texel fetched: with mc=2x2, mrt=2x2 computes 16 outputs against mrt=1x1's 4.");
    if (fd->mrt_have)
        fprintf(f, "  Here mrt=2x2 over mrt=1x1 is %.3gx (Figure 8).", fd->mrt_ratio);
    fprintf(f, "\n\n");
    const gg_report_rec *rt = o->best[GG_OUT_RT] >= 0 ? &d->recs[o->best[GG_OUT_RT]] : NULL;
    const gg_report_rec *im = o->best[GG_OUT_IMAGE] >= 0 ? &d->recs[o->best[GG_OUT_IMAGE]] : NULL;
    char vt[GG_VARIANT_TEXT];
    if (rt) {
        fprintf(f, "- The best `out=rt` variant computes %d outputs a fragment and runs at %.4g "
                   "GFLOP/s (`%s`).",
                outputs_of_md(d, &rt->v), rt->m.gflops, gen_variant_format(&rt->v, vt, sizeof vt));
        if (o->rt_at_cap == o->best[GG_OUT_RT])
            fprintf(f, "  That is the cap: as many outputs as render targets hold.");
        else if (o->rt_at_cap >= 0)
            fprintf(f, "  At the cap, %d outputs, the best `out=rt` runs at %.4g GFLOP/s.",
                    o->cap, d->recs[o->rt_at_cap].m.gflops);
        else
            fprintf(f, "  No `out=rt` variant with the cap's %d outputs ran ok.", o->cap);
        fprintf(f, "\n");
        envelope(f, d, o, GG_OUT_RT);
    } else {
        fprintf(f, "- No `out=rt` variant ran ok.\n");
    }
    if (im) {
        fprintf(f, "- The best `out=image` variant computes %d outputs a fragment and runs at %.4g "
                   "GFLOP/s (`%s`)",
                outputs_of_md(d, &im->v), im->m.gflops, gen_variant_format(&im->v, vt, sizeof vt));
        if (rt)
            fprintf(f, ", %.3gx the best `out=rt`", im->m.gflops / rt->m.gflops);
        fprintf(f, ".");
        if (o->image_past_cap == o->best[GG_OUT_IMAGE])
            fprintf(f, "  That is past the cap.");
        else if (o->image_past_cap >= 0)
            fprintf(f, "  Past the cap, the best runs at %.4g GFLOP/s with %d outputs.",
                    d->recs[o->image_past_cap].m.gflops,
                    outputs_of_md(d, &d->recs[o->image_past_cap].v));
        else
            fprintf(f, "  No `out=image` variant with more than %d outputs ran ok.", o->cap);
        fprintf(f, "\n");
        envelope(f, d, o, GG_OUT_IMAGE);
    } else {
        fprintf(f, "- No `out=image` variant ran ok on this card (records from before the key, "
                   "or a tune that did not try it): whether more outputs than render targets "
                   "would help is not measured here.\n");
    }
    if (o->common > 0) {
        double a = d->recs[o->common_rec[GG_OUT_IMAGE]].m.gflops;
        double b = d->recs[o->common_rec[GG_OUT_RT]].m.gflops;
        fprintf(f, "- At %d outputs, measured both ways, `out=image` runs at %.4g and `out=rt` at "
                   "%.4g GFLOP/s (%.3gx): at the same outputs a fragment, imageStore of one "
                   "block against render-target writes.\n",
                o->common, a, b, a / b);
    }
    fprintf(f, "- Verdict: %s.\n\n",
            report_verdict_outputs(im ? im->m.gflops : 0, rt ? rt->m.gflops : 0,
                               im ? outputs_of_md(d, &im->v) : 0, o->cap));
}

static void ceilings(FILE *f, const gg_report_data *d, const gg_findings *fd)
{
    fprintf(f, "## The card's ceilings (probe)\n\n");
    if (!d->have_probe) {
        fprintf(f, "No probe.csv: run `glgemm probe`.\n\n");
        return;
    }
    fprintf(f, "`glgemm probe` measured: vec4 multiply-add %.4g GFLOP/s; texel fetch (cache-"
               "friendly) R32F %.4g, RGBA32F %.4g Gtexel/s; render-target write %.4g Gtexel/s "
               "(1 target); read-back %.4g GB/s.",
            d->probe.mad_gflops, d->probe.fetch_gtexels[GG_FETCH_R32F][GG_FETCH_FRIENDLY],
            d->probe.fetch_gtexels[GG_FETCH_RGBA32F][GG_FETCH_FRIENDLY], d->probe.write_gtexels[1],
            d->probe.readback_gbs);
    bool any = false;
    for (int fm = GG_FETCH_RGBA32F; fm <= GG_FETCH_RGBA16F; fm++)
        for (int pt = GG_FETCH_GEMM24; pt <= GG_FETCH_GEMM42; pt++)
            if (d->probe.fetch_gtexels[fm][pt] > 0) {
                fprintf(f, "%s %s %s %.4g Gtexel/s (%.4g GB/s)",
                        any ? ";" : "  With the GEMM's own fetch patterns:",
                        fm == GG_FETCH_RGBA16F ? "RGBA16F" : "RGBA32F", base_fetch_pat_names[pt],
                        d->probe.fetch_gtexels[fm][pt], d->probe.fetch_gbs[fm][pt]);
                any = true;
            }
    if (any)
        fprintf(f, ".");
    fprintf(f, "\n\n");
    if (!fd->ceil_have) {
        fprintf(f, "No best variant to compare with the ceilings.\n\n");
        return;
    }
    gg_layout L;
    gen_layout_compute(&d->best, d->m, d->n, d->k, &L);
    if (L.image)
        fprintf(f, "The best variant runs %d pass%s over %d x %d fragments; each fragment fetches "
                   "%ld texels and does %ld scalar multiply-adds per pass and writes its %dx%d "
                   "block with imageStore (%d texels; no render target).\n\n",
                L.passes, L.passes == 1 ? "" : "es", L.tgt_w, L.tgt_h, L.fetches_per_frag_pass,
                L.mads_per_frag_pass, d->best.blk.rows, d->best.blk.cols, L.targets);
    else
        fprintf(f, "The best variant runs %d pass%s over %d x %d fragments; each fragment fetches "
                   "%ld texels and does %ld scalar multiply-adds per pass and writes %d "
                   "target%s.\n\n",
                L.passes, L.passes == 1 ? "" : "es", L.tgt_w, L.tgt_h, L.fetches_per_frag_pass,
                L.mads_per_frag_pass, L.targets, L.targets == 1 ? "" : "s");
    fprintf(f, "| resource | the best's rate | the card's ceiling | fraction |\n|---|---|---|---|\n");
    fprintf(f, "| multiply-add | %.4g GFLOP/s | %.4g GFLOP/s | %.1f%% |\n", fd->best_gflops,
            d->probe.mad_gflops, 100 * fd->mad_frac);
    fprintf(f, "| texel fetch (%s) | %.4g Gtexel/s | %.4g Gtexel/s | %.1f%% |\n", fd->fetch_format,
            fd->fetch_gtexels, fd->fetch_ceiling, 100 * fd->fetch_frac);
    if (L.image && fd->write_ceiling > 0)
        fprintf(f, "| imageStore (%d texels a fragment) | %.4g Gtexel/s | %.4g Gtexel/s | "
                   "%.1f%% |\n\n",
                L.targets, fd->write_gtexels, fd->write_ceiling, 100 * fd->write_frac);
    else if (L.image)
        fprintf(f, "| imageStore (%d texels a fragment) | %.4g Gtexel/s | not probed | |\n\n",
                L.targets, fd->write_gtexels);
    else
        fprintf(f, "| render-target write (%d target%s) | %.4g Gtexel/s | %.4g Gtexel/s | "
                   "%.1f%% |\n\n",
                L.targets, L.targets == 1 ? "" : "s", fd->write_gtexels, fd->write_ceiling,
                100 * fd->write_frac);
    bool own_path = fd->fetch_own_path;
    fprintf(f, "The texel-fetch ceiling is the probe's %s%s rate of %s texels.  The best does "
               "%.2f multiply-adds a texel fetched, so fetching alone caps it at %.4g GFLOP/s "
               "(%.1f%% of the multiply-add ceiling).",
            own_path ? gen_fetch_name(d->best.fetch) : "",
            own_path ? " GEMM-pattern" : fd->fetch_gemm_pattern ? "GEMM-pattern" : "cache-friendly",
            fd->fetch_format,
            fd->mads_per_fetch, fd->fetch_bound_gflops,
            d->probe.mad_gflops > 0 ? 100 * fd->fetch_bound_gflops / d->probe.mad_gflops : 0);
    if (fd->mads_per_fetch_max > 0)
        fprintf(f, "  No %svariant can do more than %.2f a 4-channel texel (%d targets of 4 "
                   "channels hold %d outputs per fragment, an r x c block; a k-step fetches r + c "
                   "texels for 4rc multiply-adds, at most 2 sqrt(%d)), so no %svariant with these "
                   "textures passes %.4g GFLOP/s (%.1f%% of the multiply-add ceiling)%s.",
                L.image ? "`out=rt` " : "", fd->mads_per_fetch_max, d->probe.write_max_targets,
                4 * d->probe.write_max_targets, 4 * d->probe.write_max_targets,
                L.image ? "`out=rt` " : "", fd->fetch_bound_any_gflops,
                d->probe.mad_gflops > 0 ? 100 * fd->fetch_bound_any_gflops / d->probe.mad_gflops
                                        : 0,
                L.image ? "; the best, an `out=image` block past the render targets, is not "
                          "bound by it"
                        : "");
    fprintf(f, "\n\n");
    fprintf(f, "The best runs at %.1f%% of the multiply-add ceiling.  The resource it is "
               "closest to is **%s**: the limiting resource of this card's best.\n\n",
            100 * fd->mad_frac, fd->limit);
    for (int i = 0; i < GG_HALF_ROWS; i++) {
        const gg_half_finding *h = &fd->half[i];
        if (!h->have)
            continue;
        bool x8 = h->v.store == GG_STORE_F16X8;
        char vt[GG_VARIANT_TEXT];
        fprintf(f, "Half storage, a precision class of its own (bench's `%s`, `%s`, verified "
                   "against the reference of the inputs rounded to halves): %.4g GFLOP/s, %.1f%% "
                   "of the multiply-add ceiling.  Its %s textures are fetched at %.4g "
                   "Gtexel/s against the probe's %.4g%s (%.1f%%); with %.2f multiply-adds a texel "
                   "that ceiling allows it %.4g GFLOP/s (%.1f%%), and any %svariant %.4g "
                   "(%.1f%%).\n\n",
                eval_bench_names[h->row], gen_variant_format(&h->v, vt, sizeof vt), h->gflops,
                100 * h->mad_frac, x8 ? "RGBA32UI (eight halves a texel)" : "RGBA16F",
                h->fetch_gtexels, h->fetch_ceiling,
                x8 ? " for RGBA32F (as wide; RGBA32UI is not probed)" : "",
                h->fetch_ceiling > 0 ? 100 * h->fetch_gtexels / h->fetch_ceiling : 0,
                h->mads_per_fetch, h->fetch_bound_gflops,
                d->probe.mad_gflops > 0 ? 100 * h->fetch_bound_gflops / d->probe.mad_gflops : 0,
                h->v.out == GG_OUT_IMAGE ? "`out=rt` " : "", h->fetch_bound_any_gflops,
                d->probe.mad_gflops > 0 ? 100 * h->fetch_bound_any_gflops / d->probe.mad_gflops
                                        : 0);
    }
    if (fd->mad_frac > 1 || fd->fetch_frac > 1 || fd->write_frac > 1)
        fprintf(f, "A fraction above 100%% means the probe's kernel for that resource ran slower "
                   "than the GEMM itself, so the probe's number is no ceiling for the GEMM: the "
                   "two ran at different times (a shared machine's load changes), or the GEMM's "
                   "access pattern beats the probe's (caches, fewer bytes per useful texel).  "
                   "Read the fractions as ratios, not as headroom.\n\n");
}

static const char *dip_verdict(const gg_findings *fd, int i)
{
    if (!fd->ndips[i])
        return "disagrees: no dips";
    if (fd->dips_checked[i]) {
        if (!fd->dips_repro[i])
            return "disagrees: every dip went away when measured again (timing noise)";
        if (!report_dips_sparse(fd->dips_repro[i], fd->c7b[i].n))
            return "partly agrees: dips that stay, but more than a quarter of the points";
        return "agrees: dips that stay when measured again";
    }
    if (!report_dips_sparse(fd->ndips[i], fd->c7b[i].n))
        return "inconclusive: dips too many to tell from timing noise";
    return "agrees: dips exist (not measured again)";
}

static void findings(FILE *f, const gg_report_data *d, const gg_findings *fd)
{
    fprintf(f, "## The paper's findings on this card\n\n"
               "| finding | paper (GeForce 6800 Ultra, 2005) | this card | verdict |\n"
               "|---|---|---|---|\n");
    if (fd->mc_have)
        fprintf(f, "| mc=2x2 over mc=1x1 | 2x to 2.5x | %.3gx (per mrt: %.3gx to %.3gx) | %s |\n",
                fd->mc_ratio, fd->mc_lo, fd->mc_hi, report_verdict_mc(fd->mc_ratio));
    else
        fprintf(f, "| mc=2x2 over mc=1x1 | 2x to 2.5x | not measured | not measured |\n");
    if (fd->mrt_have)
        fprintf(f, "| mrt=2x2 over mrt=1x1 | about 1.1x | %.3gx (per mc: %.3gx to %.3gx) | %s |\n",
                fd->mrt_ratio, fd->mrt_lo, fd->mrt_hi, report_verdict_mrt(fd->mrt_ratio));
    else
        fprintf(f, "| mrt=2x2 over mrt=1x1 | about 1.1x | not measured | not measured |\n");
    if (fd->unroll_pairs)
        fprintf(f, "| unroll=0 against unroll=1 | unroll=0 almost always better | unroll=0 as fast "
                   "or faster in %d of %d pairs; unroll=1 / unroll=0 geometric mean %.3g; best "
                   "%.4g (unroll=0) vs %.4g (unroll=1) GFLOP/s | %s |\n",
                fd->unroll0_wins, fd->unroll_pairs, fd->unroll_geomean, fd->best_u0, fd->best_u1,
                report_verdict_unroll(fd->unroll_pairs, fd->unroll0_wins, fd->unroll_geomean));
    else
        fprintf(f, "| unroll=0 against unroll=1 | unroll=0 almost always better | %s | %s |\n",
                "no pair differing only in unroll", report_verdict_unroll(0, 0, 0));
    fprintf(f, "| np over powers of two | a single maximum | %d of %d curves have one maximum "
               "(within 5%%) | %s |\n",
            fd->pow2_unimodal, fd->pow2_curves,
            report_verdict_unimodal(fd->pow2_curves, fd->pow2_unimodal));
    for (int i = 0; i < fd->n7b; i++) {
        char label[64];
        report_curve_label(label, sizeof label, &fd->c7b[i]);
        fprintf(f, "| np over 1..N, %s | drops off the curve at some np, recovering gradually; "
                   "algorithm 1 still finds the optimum | %d dips (10%% below both "
                   "neighbourhoods)",
                label, fd->ndips[i]);
        if (fd->ndips[i]) {
            fprintf(f, " at np");
            for (int j = 0; j < fd->ndips[i]; j++)
                fprintf(f, "%s %d%s", j ? "," : "", fd->dip_np[i][j],
                        fd->dip_again[i][j] < 0 ? "" : fd->dip_stayed[i][j] ? " (stayed)" : " (gone)");
        }
        if (fd->dips_checked[i])
            fprintf(f, "; measured again, %d of %d stayed dips", fd->dips_repro[i],
                    fd->dips_checked[i]);
        char a1[16], a2[16];
        fprintf(f, "; point-to-point scatter %.1f%%; dense maximum %.4g at np=%s, best power of "
                   "two %.4g at np=%s | %s |\n",
                100 * fd->dense_scatter[i], fd->dense_max[i],
                np_text(fd->dense_argmax[i], a1, sizeof a1), fd->dense_pow2_max[i],
                np_text(fd->dense_pow2_argmax[i], a2, sizeof a2),
                dip_verdict(fd, i));
    }
    if (fd->bench_have) {
        const char *names[] = {"larsen", "nv-multi", "nv-single", "tfjs"};
        fprintf(f, "| search against hand-tuned | search 0.56x to 1.15x nv-single; nv-multi the "
                   "worst | best / nv-single %.3g, best / nv-multi %.3g; nv-multi %s | %s |\n",
                fd->vs[2], fd->vs[1], fd->multi_worst ? "the worst of the three" : "not the worst",
                report_verdict_search(fd->vs[2]));
        (void)names;
    } else {
        fprintf(f, "| search against hand-tuned | search 0.56x to 1.15x nv-single | no bench | "
                   "not measured |\n");
    }
    fprintf(f, "\n");

    /* The same, in words, with what differs from the paper's setting. */
    fprintf(f, "Notes.\n\n");
    if (fd->mc_have)
        fprintf(f, "- Packing (mc): the best mc=2x2 variant runs at %.3gx the best mc=1x1 one "
                   "(over np in {2..32} and every mrt); the paper saw 2x to 2.5x on the 6800 "
                   "Ultra, whose fragment units were 4-wide vector ALUs fed by one fetch per "
                   "texel: packing four values in a texel cut fetches by up to 4x.  Here: %s.\n",
                fd->mc_ratio, report_verdict_mc(fd->mc_ratio));
    if (fd->mrt_have)
        fprintf(f, "- Render targets (mrt): mrt=2x2 over mrt=1x1 is %.3gx (paper: about 1.1x).  "
                   "Here: %s.\n",
                fd->mrt_ratio, report_verdict_mrt(fd->mrt_ratio));
    fprintf(f, "- Unrolling: %s.  The paper's reason (the Cg and fxc compilers unrolled loops "
               "themselves) has a modern counterpart: the driver's GLSL compiler decides.\n",
            report_verdict_unroll(fd->unroll_pairs, fd->unroll0_wins, fd->unroll_geomean));
    for (int i = 0; i < fd->n7b; i++) {
        if (!fd->ndips[i])
            continue;
        char label[64];
        report_curve_label(label, sizeof label, &fd->c7b[i]);
        double pad = 0;
        for (int j = 0; j < fd->ndips[i]; j++)
            pad += fd->dip_pad[i][j];
        pad /= fd->ndips[i];
        bool padded = pad > 1.05 * fd->dense_mean_pad[i];
        if (fd->dips_checked[i])
            fprintf(f, "- Dips (%s): %d of the %d dips measured a second time were still dips "
                       "(away from the dips the curve scatters by %.1f%% from point to point).  "
                       "At the dips the padded k is on average %.3gx K, against %.3gx K "
                       "elsewhere: %s\n",
                    label, fd->dips_repro[i], fd->dips_checked[i], 100 * fd->dense_scatter[i], pad,
                    fd->dense_mean_pad[i],
                    padded ? "when np does not divide the k-steps the last pass computes zero "
                             "padding; that wasted work explains part of it."
                           : "padding does not explain them.");
        else if (!report_dips_sparse(fd->ndips[i], fd->c7b[i].n))
            fprintf(f, "- Dips (%s): %d dips in %d points (more than a quarter) look like timing "
                       "noise rather than the paper's isolated drops (away from them the curve "
                       "scatters by %.1f%% from point to point; padded k %.3gx K at the dips, "
                       "%.3gx elsewhere); more --reps would tell.\n",
                    label, fd->ndips[i], fd->c7b[i].n, 100 * fd->dense_scatter[i], pad,
                    fd->dense_mean_pad[i]);
        else
            fprintf(f, "- Dips (%s): away from the dips the curve scatters by %.1f%% from point "
                       "to point, so the dips stand out of the noise.  At the dips the padded k "
                       "is on average %.3gx K, against %.3gx K elsewhere: %s\n",
                    label, 100 * fd->dense_scatter[i], pad, fd->dense_mean_pad[i],
                    padded ? "when np does not divide the k-steps the last pass computes zero "
                             "padding; that wasted work explains these dips, and may explain "
                             "the paper's unexplained ones."
                           : "padding does not explain them.");
    }
    if (fd->bench_have)
        fprintf(f, "- Search against hand-tuned: the tuned best runs at %.3gx nv-single, %.3gx "
                   "nv-multi, %.3gx larsen, %.3gx tfjs.  The paper's search lost to NV_Single on "
                   "two cards because BrookGPU added overhead to every generated shader; here the "
                   "generator and the presets share one host, and the presets are in the search "
                   "space, so the search can only match or beat them (up to timing noise).\n",
                fd->vs[2], fd->vs[1], fd->vs[0], fd->vs[3]);
    if (d->have_bench && d->bench.rows[GG_BENCH_CPU].present && fd->best_gflops > 0 &&
        d->bench.rows[GG_BENCH_CPU].m.gflops > 0)
        fprintf(f, "- Against the CPU: the best runs at %.3gx the CPU's BLAS (%.4g GFLOP/s) on "
                   "the same inputs.\n",
                fd->best_gflops / d->bench.rows[GG_BENCH_CPU].m.gflops,
                d->bench.rows[GG_BENCH_CPU].m.gflops);
    if (fd->bench_have && fd->vs[GG_BENCH_TFJS_WEBGL] > 0)
        fprintf(f, "- Against TensorFlow.js: the best runs at %.3gx `tf.matMul` on its WebGL "
                   "backend (%.4g GFLOP/s), in the same page on the same inputs; tf.matMul's "
                   "time includes its read-back of C, the rows' a 1-pixel read that waits for "
                   "the draws.\n",
                fd->vs[GG_BENCH_TFJS_WEBGL], d->bench.rows[GG_BENCH_TFJS_WEBGL].m.gflops);
    fprintf(f, "\n");
}

static void other_sizes(FILE *f, const gg_report_data *d, const char *results_dir)
{
    char dir[1024];
    DIR *dp = opendir(store_card_dir(dir, sizeof dir, results_dir, d->card));
    if (!dp)
        return;
    char names[64][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 64) {
        int m, nn, k;
        gg_store st;
        if (store_best_name_parse(e->d_name, &m, &nn, &k, &st) &&
            !(m == d->m && nn == d->n && k == d->k))
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(dp);
    if (!n)
        return;
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    fprintf(f, "## Other problem sizes tuned on this card\n\nEach store's best file (the "
               "precision a best carries: f32, and f16, f16x8, f64, dd, df where tuned).\n\n"
               "| problem | best variant | precision | GFLOP/s |\n|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        int m, nn, k;
        gg_store st;
        store_best_name_parse(names[i], &m, &nn, &k, &st);
        gg_variant v;
        double g = 0;
        char err[256], vt[GG_VARIANT_TEXT];
        if (store_best_read_store(results_dir, d->card, m, nn, k, st, &v, &g, err, sizeof err))
            continue;
        char other[96], opath[1200];
        store_report_md_name(other, sizeof other, m, nn, k);
        FILE *of = fopen(store_card_file(opath, sizeof opath, results_dir, d->card, other), "r");
        if (of)
            fclose(of);
        fprintf(f, "| %dx%dx%d%s%s%s | `%s` | %s | %.4g |\n", m, nn, k, of ? " ([report](" : "",
                of ? other : "", of ? "))" : "", gen_variant_format(&v, vt, sizeof vt),
                gen_store_name(v.store), g);
    }
    fprintf(f, "\nRun `glgemm report --m M --n N --k K` for the report of another size.\n\n");
}

static void summary(FILE *f, const gg_report_data *d, const gg_findings *fd)
{
    fprintf(f, "# glgemm on %s: %d x %d x %d\n\n", d->card, d->m, d->n, d->k);
    fprintf(f, "Graphics-era GEMM (fragment shaders, textures, render-to-texture), tuned on this "
               "card as in Jiang & Snir, \"Automatic Tuning Matrix Multiplication Performance on "
               "Graphics Hardware\" (2005); this page compares the card with that paper's "
               "Figures 5, 7 and 8 and findings.  Written by `glgemm report`; every number "
               "below is computed from the files beside it.\n\n");
    if (d->have_best) {
        char vt[GG_VARIANT_TEXT];
        fprintf(f, "**Best:** `%s` at %.4g GFLOP/s", gen_variant_format(&d->best, vt, sizeof vt),
                fd->best_gflops > 0 ? fd->best_gflops : d->best_gflops);
        if (d->have_bench && d->bench.rows[GG_BENCH_CPU].m.gflops > 0 && fd->best_gflops > 0)
            fprintf(f, ", %.3gx the CPU BLAS", fd->best_gflops / d->bench.rows[GG_BENCH_CPU].m.gflops);
        if (fd->bench_have && fd->vs[2] > 0)
            fprintf(f, ", %.3gx nv-single", fd->vs[2]);
        if (fd->ceil_have)
            fprintf(f, ", %.1f%% of the card's multiply-add ceiling (limited by %s)",
                    100 * fd->mad_frac, fd->limit);
        fprintf(f, ".\n\n");
    } else {
        fprintf(f, "**Best:** no best file for this problem yet (run `glgemm tune`).\n\n");
    }
}

int report_write(const gg_report_data *d, const gg_findings *fd, const gg_report_opts *o,
                    char *err, size_t errlen)
{
    char names[5][128], paths[5][1700];
    const char *figs[5] = {"fig5", "fig7a", "fig7b", "fig8", "fig-outputs"};
    for (int i = 0; i < 5; i++) {
        store_report_figure_name(names[i], sizeof names[i], figs[i], d->m, d->n, d->k);
        store_card_file(paths[i], sizeof paths[i], o->results_dir, d->card, names[i]);
    }
    /* Figures first: report.md is written only when every figure it shows
     * was drawn. */
    bool want[5] = {d->have_bench, fd->have_base && fd->n7a > 0, fd->have_base && fd->n7b > 0,
                    fd->have_base, fd->outs && fd->outs->have};
    for (int i = 0; i < 5; i++) {
        if (!want[i])
            continue;
        char *script = i == 0   ? report_script_fig5(d)
                       : i == 3 ? report_script_fig8(d, fd)
                       : i == 4 ? report_script_outputs(d, fd)
                                : report_script_fig7(d, fd, i == 2);
        if (!script) {
            snprintf(err, errlen, "out of memory for the script of %s", names[i]);
            return -1;
        }
        int rc = report_plot_svg(o->gnuplot, script, paths[i], err, errlen);
        free(script);
        if (rc)
            return -1;
    }

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory for report.md");
        return -1;
    }
    summary(f, d, fd);
    setup(f, d, o);
    cost(f, d);
    fig5(f, d, fd, names[0]);
    fig7(f, d, fd, names[1], names[2]);
    fig8(f, fd, names[3]);
    outputs_section(f, d, fd, names[4]);
    ceilings(f, d, fd);
    findings(f, d, fd);
    other_sizes(f, d, o->results_dir);
    if (fclose(f) != 0 || !text) {
        free(text);
        snprintf(err, errlen, "out of memory for report.md");
        return -1;
    }
    char path[1200];
    store_card_file(path, sizeof path, o->results_dir, d->card, o->md_name ? o->md_name : GG_REPORT_MD);
    int rc = base_write_atomic(path, text, len, err, errlen);
    free(text);
    return rc;
}
