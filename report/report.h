/* report/report: results/<card>/report.md and the paper's Figures 5, 7
 * and 8 for one card and problem, and GFLOP/s over outputs per fragment
 * (fig-outputs: the fetch paths, and out=rt against out=image past the
 * render targets' cap), from the files the other commands write there.  No GL here: what needs the card (the dense np sweep, a missing
 * bench or probe) is measured by the caller (cli/cmd_report.c) before.
 *
 * Contract:
 *  - report_load() reads, from DIR/<card>/: tune-MxNxK.csv (every row of
 *    this card and problem; a bad line is counted and skipped),
 *    best-MxNxK.txt, bench-MxNxK.csv (eval/bench.h), probe.csv
 *    (glhost/probe.h), environment.txt (gg_report_env) and
 *    tune-MxNxK-summary.txt (the summary `glgemm tune` printed, saved by
 *    `make run`: the search's wall time) and dips-MxNxK.csv (the dips of the
 *    dense sweeps measured a second time, SPEC's rows: a dip that is still
 *    there is the card's, one that is gone was noise).  Only the records
 *    are required.
 *  - The analysis (report_analyse) is pure arithmetic on the loaded
 *    data, so tests check it against synthetic records:
 *      base      the variant whose outer keys (unroll, profile, compiler,
 *                acc) the figures hold: those with the most ok records
 *                (ties: the best's), the best ok row among them.
 *      Figure 7a GFLOP/s over np in powers of two (and all) for each
 *                (mc, mrt) of the base's outer keys with 3 points or more.
 *      Figure 7b GFLOP/s over every recorded np for the (mc, mrt) with a
 *                dense sweep (8 or more np that are not powers of two).
 *      Figure 8  for each mrt x mc of the phase search's pruned sets
 *                (gen/gen.h: mc the paper's four; mrt the paper's four,
 *                then 1x8, 2x4, 4x2 where recorded), the best GFLOP/s over
 *                np in {2, 4, 8, 16, 32} (np at or past the k-steps is
 *                np=all), the base's outer keys.
 *      outputs   GFLOP/s over outputs per fragment, a series per fetch
 *                path and out (the fastest ok store=f32 record at each
 *                outputs value), the best of each, and the paper's MRT
 *                finding revisited with them (gg_outputs_finding).  Records
 *                from before the out and fetch keys read as out=rt,
 *                fetch=texture: one series.
 *      findings  each of the paper's claims computed from those numbers
 *                (see gg_findings) and a verdict from fixed thresholds.
 *  - report_write() draws the figures with gnuplot (fork/exec of a
 *    generated script, SVG) and writes report.md; every file is written to
 *    a temporary name and renamed, so a failure leaves the old files.
 *    Failed points plot as 0, unmeasured ones are left out. */
#ifndef GLGEMM_REPORT_H
#define GLGEMM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "store/csv.h"
#include "store/paths.h" /* the files' names: store_report_again_path, store_report_figure_name */
#include "base/probe_data.h"
#include "eval/bench.h"
#include "glhost/context.h"

typedef struct {
    gg_variant v;
    gg_measurement m; /* status, passes, seconds, gflops, rel_err */
} gg_report_rec;

/* What made the numbers: the context and the machine (environment.txt). */
typedef struct {
    bool have;
    char renderer[256], vendor[128], version[256], glsl[128], backend[16];
    int device, max_draw_buffers, max_texture_size;
    int nproc, blas_threads;
    char cpu[256];
    char written[32]; /* UTC, ISO 8601 */
} gg_report_env;

typedef struct {
    char card[GG_CARD_MAX];
    int m, n, k;
    gg_report_rec *recs;
    long nrecs;
    long bad_lines;       /* lines of the records that did not parse (skipped) */
    bool have_best;
    gg_variant best;
    double best_gflops;
    char best_text[2048]; /* the best file as written (provenance) */
    bool have_bench;
    gg_bench bench;
    bool have_probe;
    gg_probe_result probe;
    gg_report_env env;
    char *tune_summary;   /* tune-MxNxK-summary.txt (what `glgemm tune` printed), or NULL */
    gg_report_rec *again; /* dips-MxNxK.csv: dips of Figure 7b measured a second time */
    long nagain;
} gg_report_data;

/* 0, or -1 with one line in err (no records file, unreadable files, a
 * bench or probe file that does not parse, a best file that does not). */
int report_load(const char *results_dir, const char *card, int m, int n, int k,
                   gg_report_data *d, char *err, size_t errlen);
void report_data_free(gg_report_data *d);

/* The second measurements of dips: looked up like report_find; written
 * atomically from d->again (the file: store_report_again_path, store/paths.h). */
const gg_report_rec *report_find_again(const gg_report_data *d, const gg_variant *v);
int report_again_write(const char *path, const gg_report_data *d, char *err, size_t errlen);

/* environment.txt: "key: value" lines.  0, or -1 with err. */
int report_env_write(const char *path, const gg_report_env *e, char *err, size_t errlen);
int report_env_read(const char *path, gg_report_env *e, char *err, size_t errlen);

/* The recorded outcome of v (np normalised against the problem): the
 * record, or NULL when v was not measured. */
const gg_report_rec *report_find(const gg_report_data *d, const gg_variant *v);

#define GG_CURVE_MAX 1024
typedef struct {
    gg_variant base; /* np unused */
    int n;
    int np[GG_CURVE_MAX];     /* sorted; np=all is plotted at ksteps */
    bool all[GG_CURVE_MAX];
    double gflops[GG_CURVE_MAX]; /* 0 for a failed point */
    int passes[GG_CURVE_MAX];
    int kpad[GG_CURVE_MAX];   /* padded k of that np (gg_layout) */
} gg_np_curve;

/* Outputs per fragment (gen_layout_outputs: render targets x channels for
 * out=rt, blk's rows x columns for out=image) against GFLOP/s, one series
 * per fetch path and out: at each outputs value the fastest ok store=f32
 * record. */
#define GG_OUTS_MAX 256
typedef struct {
    int n;                       /* points, outputs ascending */
    int outputs[GG_OUTS_MAX];
    double gflops[GG_OUTS_MAX];
    long rec[GG_OUTS_MAX];       /* the record (index into gg_report_data.recs) */
    long ok, total;              /* store=f32 records of this fetch path and out: ok, all */
    int best;                    /* the fastest point, -1 when none */
} gg_outputs_series;

/* Outputs per fragment, and the paper's MRT finding in their light: see
 * gg_outputs_series.  Record indexes are -1 where there is none. */
typedef struct {
    bool have;                 /* some ok store=f32 record */
    gg_outputs_series s[GG_FETCH_COUNT][GG_OUT_COUNT];
    int cap;                   /* out=rt's most outputs: 4 channels x the card's render
                                  targets (environment.txt's draw buffers, at most 8) */
    long best[GG_OUT_COUNT];   /* the fastest record of each out, any fetch path */
    long rt_at_cap;            /* the fastest out=rt record with cap outputs */
    long image_past_cap;       /* the fastest out=image record with more than cap */
    int common;                /* the most outputs measured with both outs (0: none) */
    long common_rec[GG_OUT_COUNT]; /* ... the fastest record of each there */
} gg_outputs_finding;

#define GG_MAX_CURVES 8
#define GG_F8_MRT GG_PRUNED_MRT /* 1x1 1x2 1x4 2x2 (+1x8 2x4 4x2 where recorded) */
#define GG_F8_MC GG_PAPER_MC     /* 1x1 1x2 1x4 2x2 */
#define GG_MAX_DIPS 32

/* A half-storage best (bench's best-f16 or best-f16x8 row) against the
 * probe's ceilings. */
#define GG_HALF_ROWS 2 /* f16, f16x8 */
typedef struct {
    bool have;
    int row;                /* GG_BENCH_BEST_F16 or GG_BENCH_BEST_F16X8 */
    gg_variant v;
    double gflops, mad_frac;
    double fetch_gtexels, fetch_ceiling; /* its texels a second; the probe's rate for them (GEMM
                                            pattern where measured) */
    double mads_per_fetch, fetch_bound_gflops, fetch_bound_any_gflops;
} gg_half_finding;

typedef struct {
    gg_variant base;
    bool have_base;
    /* Figure 7 */
    int n7a, n7b;
    gg_np_curve *c7a; /* n7a curves, the base's (mc, mrt) first, then by their max */
    gg_np_curve *c7b;
    /* Figure 8: -1 where no np of the set was measured */
    int n_mrt;
    gg_shape f8_mrt[GG_F8_MRT], f8_mc[GG_F8_MC];
    double f8[GG_F8_MRT][GG_F8_MC];
    int f8_np[GG_F8_MRT][GG_F8_MC]; /* np that gave it (0: all) */

    /* Finding 1: mc=2x2 over mc=1x1 (paper: 2x to 2.5x), from Figure 8:
     * overall = best of the 2x2 column over best of the 1x1 column;
     * lo..hi over the mrt rows with both measured. */
    bool mc_have;
    double mc_ratio, mc_lo, mc_hi;
    /* Finding 2: mrt=2x2 over mrt=1x1 (paper: about 1.10), the same way. */
    bool mrt_have;
    double mrt_ratio, mrt_lo, mrt_hi;
    /* Finding 3: unroll (paper: unroll=0 almost always better).  Pairs of
     * records that differ only in unroll, both ok. */
    int unroll_pairs, unroll0_wins;
    double unroll_geomean;   /* of gflops(unroll=1) / gflops(unroll=0) */
    double best_u0, best_u1; /* best ok GFLOP/s with each unroll (0: none) */
    /* Finding 4: np curves (paper: one maximum over powers of two; dips
     * off the curve at some np in 1..128, recovering gradually). */
    int pow2_curves, pow2_unimodal;
    int ndips[GG_MAX_CURVES];
    int dip_np[GG_MAX_CURVES][GG_MAX_DIPS];
    double dip_pad[GG_MAX_CURVES][GG_MAX_DIPS];  /* kpad/k at the dip */
    double dense_mean_pad[GG_MAX_CURVES];        /* mean kpad/k away from dips */
    int dense_argmax[GG_MAX_CURVES];             /* np of the dense maximum */
    double dense_max[GG_MAX_CURVES];
    int dense_pow2_argmax[GG_MAX_CURVES];        /* np of the best power of two */
    double dense_pow2_max[GG_MAX_CURVES];
    double dense_scatter[GG_MAX_CURVES];         /* report_curve_scatter away from the dips */
    double dip_again[GG_MAX_CURVES][GG_MAX_DIPS]; /* second measurement, -1 if none */
    int dips_checked[GG_MAX_CURVES];             /* dips measured a second time */
    int dips_repro[GG_MAX_CURVES];               /* ... and still a dip */
    bool dip_stayed[GG_MAX_CURVES][GG_MAX_DIPS]; /* that dip, measured again, still a dip */
    /* Finding 5: search against the presets (bench).  ratio of best's
     * GFLOP/s to each row's (0 where a row failed or is absent). */
    bool bench_have;
    double best_gflops;                 /* bench's best row, else the best file */
    double vs[GG_BENCH_ALL_ROWS];       /* best / row */
    bool multi_worst;                   /* nv-multi below nv-single and best */
    /* Ceilings (probe): the best as fractions of the card's own rates. */
    bool ceil_have;
    double mad_frac;        /* GFLOP/s / probe's multiply-add GFLOP/s */
    double fetch_gtexels;   /* texels fetched per second by the best */
    double fetch_ceiling;   /* probe's GEMM-pattern rate of the same format (else friendly) */
    bool fetch_gemm_pattern; /* ... measured with the GEMM's pattern */
    double mads_per_fetch;   /* the best's scalar multiply-adds per texel fetched */
    double mads_per_fetch_max; /* any variant's bound (4-channel texels), 0 for R32F */
    double fetch_bound_gflops; /* fetch ceiling x the best's multiply-adds a texel x 2 */
    double fetch_bound_any_gflops; /* ... x the bound over all variants x 2 */
    double fetch_frac;
    double write_gtexels, write_ceiling, write_frac; /* target texels per second */
    const char *fetch_format; /* "R32F", "RGBA32F" (or "RGBA16F": a store=f16 best file) */
    bool fetch_own_path;      /* the ceiling is the probe's rate of the best's fetch path (not
                                 texture()) */
    const char *limit;        /* "multiply-add", "texel fetch", "render-target write" or
                                 "imageStore" (an out=image best) */
    /* Half storage (bench's best-f16 and best-f16x8 rows, ok, and a
     * probe): the same numbers against the probe's RGBA16F rates (f16) or
     * RGBA32F's (f16x8's RGBA32UI texels are as wide; not probed). */
    gg_half_finding half[GG_HALF_ROWS];
    /* Outputs per fragment and fetch paths (malloc'd: the series are big;
     * NULL when out of memory). */
    gg_outputs_finding *outs;
} gg_findings;

/* Fills f from d.  0, or -1 when out of memory.  report_findings_free frees
 * the curves. */
int report_analyse(const gg_report_data *d, gg_findings *f);
void report_findings_free(gg_findings *f);

/* Verdicts against the paper, one short phrase each. */
const char *report_verdict_mc(double ratio);      /* paper: 2.0 .. 2.5 */
const char *report_verdict_mrt(double ratio);     /* paper: about 1.10 */
const char *report_verdict_unroll(int pairs, int unroll0_wins, double geomean);
const char *report_verdict_unimodal(int curves, int unimodal);
const char *report_verdict_search(double best_vs_single);
/* More outputs per fragment than the render targets hold (out=image)
 * against the best out=rt: g_image and g_rt the fastest of each (0: none),
 * q_image the outputs of that out=image one, cap out=rt's most. */
const char *report_verdict_outputs(double g_image, double g_rt, int q_image, int cap);

/* Single maximum within tol: left of the peak no point falls below
 * (1 - tol) x the running maximum from the left, right of it likewise
 * from the right. */
bool report_curve_unimodal(const double *g, int n, double tol);

/* Dips of a dense curve: interior points below (1 - drop) x the smaller of
 * the maxima of their w neighbours on each side.  Writes up to max indexes;
 * returns the count. */
int report_curve_dips(const double *g, int n, int w, double drop, int *idx, int max);

/* Point-to-point scatter of a curve: the median over interior points i
 * (skip[i-1..i+1] all false; skip may be NULL) of
 * |g[i] - (g[i-1] + g[i+1]) / 2| / g[i]; 0 when there is no such point.
 * A noise level, reported beside the dips. */
double report_curve_scatter(const double *g, const bool *skip, int n);

/* Dips are taken as the card's (the paper's Figure 7b) when they are
 * sparse: at most a quarter of the curve's points.  Denser ones are what
 * timing noise looks like. */
bool report_dips_sparse(int ndips, int npoints);

/* The dips of Figure 7b with no second measurement yet, as variants, up to
 * max.  Returns the count. */
int report_dips_to_check(const gg_findings *f, const gg_report_data *d, gg_variant *out,
                            int max);

/* The (mc, mrt) pairs `report` sweeps densely, as variants (np to vary):
 * the base's, and the best other pair recorded with the base's outer keys
 * (mc=1x1, mrt=1x1 when there is none, or mc=2x2 if the base is that).
 * Returns the count (0 without a base). */
int report_sweep_pairs(const gg_findings *f, const gg_report_data *d, gg_variant out[2]);

/* The np a dense sweep of base visits: 1 .. min(npmax, ksteps). */
int report_sweep_npmax(const gg_variant *base, int k, int npmax);

typedef struct {
    const char *results_dir;
    const char *command;  /* the report's own command line, quoted in it */
    const char *gnuplot;  /* program to run; NULL: "gnuplot" */
    const char *measured; /* what this run measured (sweep, bench, probe), or NULL */
    const char *md_name;  /* the report's file name in DIR/<card>/; NULL: report.md */
} gg_report_opts;

/* Figures and report.md into DIR/<card>/.  0, or -1 with one line in err. */
int report_write(const gg_report_data *d, const gg_findings *f, const gg_report_opts *o,
                    char *err, size_t errlen);


/* 0 when the program runs (`gnuplot --version`), else -1 with err. */
int report_gnuplot_check(const char *gnuplot, char *err, size_t errlen);

/* Measuring on this machine's card what the report needs and the files
 * lack (every GL step in a child process, eval/gpu.h): the dense np sweep
 * of Figure 7b through the tuner (unless no_sweep; np 1 .. sweep_np, 64
 * when 0), its dips a second time (dips-MxNxK.csv), bench when its best
 * rows are not the recorded bests, probe when probe.csv is missing.
 * measured gets what was measured, for the report ("" when nothing).
 * 0; -1 with one line in err (bad or unreadable files: the CLI's exit 2);
 * -2 with one line in err (a measurement failed on the card: exit 1). */
typedef struct {
    const char *results, *card;
    gg_backend backend;
    int device;
    const gg_problem *prob;
    bool no_sweep;
    int sweep_np;
} gg_report_measure_opts;

int report_measure(const gg_report_measure_opts *o, const gg_ctx_info info[3],
                      const bool ok[3], char *measured, size_t mlen, char *err, size_t errlen);

#endif
