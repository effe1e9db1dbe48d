/* eval/bench: `glgemm bench`'s rows, their table and their CSV.  No GL:
 * the GPU rows come from a gg_eval_fn (the CLI's runs a GEMM in a child
 * process; tests pass formulas), the CPU row from a gg_cpu_fn.
 *
 * Contract:
 *  - Rows, in this order: larsen, nv-multi, nv-single, tfjs, best,
 *    best-image, best-f16, best-f16x8, cpu-blas, tfjs-webgl (eval_bench_names).  best is the card's
 *    recorded store=f32 best for this problem; when there is none the row
 *    is absent (present false): the table says "best: no tuning record (run
 *    glgemm tune ...)" and the CSV has no row.  best-image is the fastest
 *    ok out=image, store=f32 variant in the card's tuning records for this
 *    problem (records.h's store_records_fastest: past the render targets'
 *    32-output cap, beside best, which may be one itself); absent when the
 *    records hold none, the table saying so in a line.  best-f16 is the
 *    recorded store=f16 best (its own precision class, verified against
 *    the reference of the half-rounded inputs); absent without a word when
 *    none was tuned.  best-f16x8 likewise for store=f16x8 (the same
 *    halves, eight a texel: the same reference).
 *  - model-dense-tfjs, model-dense-glgemm, model-encoder-tfjs,
 *    model-encoder-glgemm (the browser backend, gg_bench_extra's models):
 *    a TensorFlow.js model's predict and read-back, alone and with
 *    glgemm-tfjs.js registered; gflops from the model's matrix products;
 *    the tfjs rows without a variant, the glgemm rows with the registered
 *    one; rel_err the glgemm row's outputs against tfjs's own.
 *  - tfjs-webgl (the browser backend only, eval_bench_run_ex): TensorFlow.js's
 *    own tf.matMul on its WebGL backend in the worker's page, read-back
 *    included, verified like every row; like cpu-blas it has no variant
 *    (the variant columns empty), passes 1.  With the browser backend the
 *    presets run as profile=300es (WebGL2 runs GLSL ES 3.00 only).
 *  - ratio = gflops / cpu-blas gflops (the CPU row's is 1); 0 when the CPU
 *    row did not run ok.  best-f64's and cpu-dgemm's are to cpu-dgemm
 *    (cpu-dgemm's 1): double against double; best-df's to cpu-blas like
 *    every fp32-arithmetic row.  A GPU row that fails keeps its status, gflops 0.
 *  - CSV (SPEC.md "bench --csv"): header GG_BENCH_CSV_HEADER = `name`, then
 *    SPEC's columns (store/csv.h), then `ratio_to_cpu`.  The CPU row leaves the seven
 *    variant columns empty and has passes 0.  ratio is printed with 6
 *    significant digits.
 *  - eval_bench_read() parses such a file back strictly (the header, every row
 *    a known name at most once, the CSV columns by store_csv_parse, the ratio a
 *    number >= 0, best-image an out=image variant, best-f16 a store=f16
 *    one, best-f16x8 a store=f16x8 one, best-f64 and best-df theirs): 0, or -1 with one line naming the
 *    line and the problem.  Files from before the best-f16x8 row read
 *    the same (rows are named, not numbered).
 */
#ifndef GLGEMM_BENCH_H
#define GLGEMM_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "store/csv.h"
#include "store/paths.h" /* store_bench_path */
#include "search/search.h"

/* GG_BENCH_NROWS: the rows of every backend; GG_BENCH_ALL_ROWS adds the
 * browser's tfjs-webgl and tfjs-webgpu (rows GG_BENCH_TFJS_WEBGL and
 * GG_BENCH_TFJS_WEBGPU), so that loops over the former (the report's) see
 * the rows they know. */
#define GG_BENCH_NROWS 12
#define GG_BENCH_ALL_ROWS 18
enum { GG_BENCH_TFJS = 3, GG_BENCH_BEST = 4, GG_BENCH_BEST_IMAGE = 5, GG_BENCH_BEST_F16 = 6, GG_BENCH_BEST_F16X8 = 7,
       GG_BENCH_BEST_F64 = 8, GG_BENCH_BEST_DF = 9,
       GG_BENCH_CPU = 10, GG_BENCH_CPU_DGEMM = 11, GG_BENCH_TFJS_WEBGL = 12, GG_BENCH_TFJS_WEBGPU = 13,
       /* the model rows (browser backend): per model, tfjs alone then with glgemm */
       GG_BENCH_MODEL_DENSE_TFJS = 14, GG_BENCH_MODEL_DENSE_GLGEMM = 15,
       GG_BENCH_MODEL_ENCODER_TFJS = 16, GG_BENCH_MODEL_ENCODER_GLGEMM = 17 };
/* Whether row i is a model row (eval_bench_extra's models). */
bool eval_bench_row_model(int i);
extern const char *const eval_bench_names[GG_BENCH_ALL_ROWS];
/* The tuned rows: best, best-image, best-f16, best-f16x8, best-f64, best-df. */
bool eval_bench_row_tuned(int i);
/* The rows present only where there is one (best-image, best-f16,
 * best-f16x8, best-f64, best-df, cpu-dgemm, tfjs-webgl, tfjs-webgpu): a
 * file or a report has no line for them otherwise. */
bool eval_bench_row_optional(int i);
/* What a row without a variant ran (cpu-blas, cpu-dgemm, tfjs-webgl,
 * tfjs-webgpu), as bench and the report print it; NULL for the others. */
const char *eval_bench_row_what(int i);

#define GG_BENCH_CSV_HEADER "name," GG_CSV_HEADER ",ratio_to_cpu"
/* Bench files from before the store column still read (store=f32). */
#define GG_BENCH_CSV_HEADER_V1 "name," GG_CSV_HEADER_V1 ",ratio_to_cpu"
#define GG_BENCH_CSV_HEADER_V2 "name," GG_CSV_HEADER_V2 ",ratio_to_cpu"
#define GG_BENCH_CSV_HEADER_V3 "name," GG_CSV_HEADER_V3 ",ratio_to_cpu"

typedef struct {
    bool present;      /* false: best, best-image, best-f16 or best-f16x8 with no record (no
                          row) */
    bool has_variant;  /* false for cpu-blas and tfjs-webgl */
    gg_variant v;
    gg_measurement m;
    double ratio;      /* gflops / cpu-blas gflops */
    char from[320];    /* best, best-f16(x8): "MxNxK (path)" of the nearest recorded problem the
                          variant was taken from, "" for the problem's own (not in the CSV) */
} gg_bench_row;

typedef struct {
    char card[GG_CARD_MAX];
    int m, n, k;
    gg_bench_row rows[GG_BENCH_ALL_ROWS]; /* indexed as eval_bench_names */
} gg_bench;

/* The precision row i carries, as the store key names it: its variant's
 * store (f32, f16, f16x8, f64, dd, df), "f64" for cpu-dgemm, "f32" for the
 * other rows without a variant (sgemm, TensorFlow.js). */
const char *eval_bench_row_precision(const gg_bench *b, int i);
/* The CPU row row i's ratio is taken against: cpu-dgemm for best-f64 and
 * cpu-dgemm, else cpu-blas. */
int eval_bench_ratio_base(int i);

/* The CPU BLAS on the same problem: fills out, returns 0, or nonzero to stop. */
typedef int (*gg_cpu_fn)(void *user, gg_measurement *out);

/* Called after each row is measured (index into rows), may be NULL. */
typedef void (*gg_bench_progress)(void *user, const gg_bench *b, int row);

/* The recorded variants bench runs beside the presets, each NULL where
 * there is no record (no row). */
typedef struct {
    const gg_variant *best, *best_image, *best_f16, *best_f16x8;
    /* With gg_bench_extra's dgemm (the wide rows): the card's recorded
     * store=f64 and store=df bests; NULL: GG_BENCH_DEFAULT_F64 and _DF. */
    const gg_variant *best_f64, *best_df;
} gg_bench_recorded;

/* The wide rows' variants where the card has no record: the H200's tuned
 * store=f64 best at 1024^3 (results/nvidia-h200/best-f64-1024x1024x1024.txt)
 * and the same shape as double-floats (texelFetch: df's best there). */
#define GG_BENCH_DEFAULT_F64 "mrt=4x2,mc=1x2,np=32,unroll=1,profile=330,store=f64"
#define GG_BENCH_DEFAULT_DF "mrt=4x2,mc=1x2,np=all,profile=330,fetch=texelfetch,store=df"

/* Runs the CPU row first, then the presets, best, best-image, best-f16 and
 * best-f16x8 (rec NULL: none of them).  0, or -1 when eval or cpu asked to
 * stop (rows measured so far kept). */
int eval_bench_run(gg_bench *b, const char *card, int m, int n, int k, const gg_bench_recorded *rec,
                 gg_eval_fn eval, void *eval_user, gg_cpu_fn cpu, void *cpu_user,
                 gg_bench_progress progress, void *progress_user);

/* One model row: model GG_MODEL_DENSE or GG_MODEL_ENCODER (eval/browser.h),
 * TensorFlow.js alone (v NULL) or with glgemm registered with v.  0, or
 * nonzero to stop. */
typedef int (*gg_model_fn)(void *user, int model, const gg_variant *v, gg_measurement *out);

/* The browser backend's extras (eval_bench_run_ex). */
typedef struct {
    bool es_presets;   /* the presets as profile=300es */
    gg_cpu_fn tfjs;    /* the tfjs-webgl row, after the others; NULL: no row */
    gg_cpu_fn tfjs_webgpu; /* the tfjs-webgpu row, last; NULL: no row */
    void *tfjs_user;   /* both's */
    /* The wide rows, best-f64 and best-df (rec's, else the defaults; with
     * es_presets as profile=300es, where f64 is invalid), and cpu-dgemm, the
     * CPU BLAS's dgemm on the inputs as doubles (run after cpu-blas, before
     * the GPU rows; best-f64's ratio is to it); NULL: none of the three. */
    gg_cpu_fn dgemm;
    void *dgemm_user;
    /* The model rows, after them; NULL: none.  glgemm's rows register
     * model_variant (the card's best nearest the models' products), else
     * the best row's variant, else the tfjs preset's (as profile=300es). */
    gg_model_fn models;
    void *models_user;
    const gg_variant *model_variant;
} gg_bench_extra;

/* eval_bench_run with x (NULL: as eval_bench_run). */
int eval_bench_run_ex(gg_bench *b, const char *card, int m, int n, int k,
                      const gg_bench_recorded *rec, gg_eval_fn eval, void *eval_user, gg_cpu_fn cpu,
                      void *cpu_user, const gg_bench_extra *x, gg_bench_progress progress,
                      void *progress_user);

/* Recomputes every ratio from the rows' gflops. */
void eval_bench_ratios(gg_bench *b);

/* One CSV row (no newline) of rows[i]; -1 when absent or unformattable. */
int eval_bench_format_row(char *buf, size_t len, const gg_bench *b, int i);

/* The whole CSV text (header and present rows, each ending in '\n'),
 * malloc'd; NULL when a row cannot be formatted (a card that is no slug). */
char *eval_bench_csv(const gg_bench *b);

/* Writes eval_bench_csv() to path atomically.  0, or -1 with one line in err. */
int eval_bench_write(const gg_bench *b, const char *path, char *err, size_t errlen);

/* Reads a bench CSV back (see the top).  0, or -1 with one line in err. */
int eval_bench_read(const char *path, gg_bench *b, char *err, size_t errlen);

/* The readable table: name, canonical variant, status, seconds, GFLOP/s,
 * ratio to CPU BLAS; a failed row adds its detail on the next line; an
 * absent best or best-image row a line saying why. */
void eval_bench_print(FILE *f, const gg_bench *b, const char *tune_hint);

#endif
