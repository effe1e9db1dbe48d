/* search/bench and glhost/cpublas: the rows run in order with ratios to the
 * CPU row; failures keep their status at 0 GFLOP/s; a missing best is a
 * note, not a row; best-image is the fastest ok out=image row of the tuning
 * records, absent (with a line in the table) when they hold none; the CSV
 * (name first, ratio_to_cpu last) round-trips and bad files are refused
 * naming the line; the CPU BLAS timing is verified (a wrong reference makes
 * it wrong_result); `glgemm bench` writes every row, the best row when a
 * best file exists, best-image when the records hold one, and refuses bad
 * usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/cpublas.h"
#include "base/inputs.h"
#include "base/reference.h"
#include "eval/bench.h"
#include "eval/evaluator.h"
#include "eval/gpu.h"
#include "store/records.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

/* ---- synthetic evaluators ---------------------------------------------- */

typedef struct {
    int calls;
    char seen[GG_BENCH_NROWS][GG_VARIANT_TEXT + 64];
    bool fail_nv_single; /* nv-single comes back wrong_result */
} fake_gpu;

/* GFLOP/s = 1 + channels*targets + np/100 (np=all: 0.5), a formula the
 * test recomputes. */
static double fake_rate(const gg_variant *v)
{
    return 1.0 + v->mc.rows * v->mc.cols * v->mrt.rows * v->mrt.cols +
           (v->np == GG_NP_ALL ? 0.5 : v->np / 100.0);
}

static int fake_eval(void *user, const gg_variant *v, gg_measurement *out)
{
    fake_gpu *g = user;
    gen_variant_format(v, g->seen[g->calls++], GG_VARIANT_TEXT + 64);
    base_measurement_init(out);
    out->passes = 3;
    out->gflops = fake_rate(v);
    out->seconds = 2.0 * 64 * 64 * 64 / (out->gflops * 1e9);
    out->rel_err = 1e-7;
    if (g->fail_nv_single && v->np == 128) {
        out->status = GG_WRONG_RESULT;
        out->gflops = 7; /* the runner must zero it */
        snprintf(out->detail, sizeof out->detail, "element (1, 2) off");
    }
    return 0;
}

static int fake_cpu(void *user, gg_measurement *out)
{
    (void)user;
    base_measurement_init(out);
    out->gflops = 40;
    out->seconds = 2.0 * 64 * 64 * 64 / 40e9;
    out->rel_err = 2e-7;
    return 0;
}

static int fake_dgemm(void *user, gg_measurement *out)
{
    (void)user;
    base_measurement_init(out);
    out->gflops = 20;
    out->seconds = 2.0 * 64 * 64 * 64 / 20e9;
    out->rel_err = 1e-16;
    return 0;
}

static int stop_cpu(void *user, gg_measurement *out)
{
    (void)user;
    base_measurement_init(out);
    return 1;
}

START_TEST(rows_in_order_with_ratios)
{
    fake_gpu g = {0};
    gg_variant best;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=1x4,np=16", NULL, &best, err, sizeof err), 0);
    gg_variant best16, best16x8, image;
    ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=4x1,store=f16", NULL, &best16, err, sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mrt=1x2,mc=1x2,np=4,store=f16x8", NULL, &best16x8, err,
                                      sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mc=2x2,profile=430,out=image,blk=8x8", NULL, &image, err,
                                      sizeof err), 0);
    static gg_bench b;
    gg_bench_recorded rec = {&best, &image, &best16, &best16x8, NULL, NULL};
    ck_assert_int_eq(eval_bench_run(&b, "synth", 64, 64, 64, &rec, fake_eval, &g, fake_cpu, NULL,
                                    NULL, NULL),
                     0);
    /* The presets in SPEC's order, then best, best-image, best-f16,
     * best-f16x8. */
    const char *want[8] = {
        "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32",
        "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32",
        "mrt=1x1,mc=2x2,np=128,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32",
        "mrt=1x1,mc=2x2,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32",
        "mrt=2x2,mc=1x4,np=16,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32",
        "mrt=1x1,mc=2x2,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,"
        "out=image,blk=8x8",
        "mrt=2x4,mc=4x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16",
        "mrt=1x2,mc=1x2,np=4,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16x8",
    };
    ck_assert_int_eq(g.calls, 8);
    ck_assert_str_eq(eval_bench_names[GG_BENCH_BEST_IMAGE], "best-image");
    ck_assert_str_eq(eval_bench_names[GG_BENCH_BEST_F16], "best-f16");
    ck_assert_str_eq(eval_bench_names[GG_BENCH_BEST_F16X8], "best-f16x8");
    for (int i = 0; i < 8; i++)
        ck_assert_str_eq(g.seen[i], want[i]);
    for (int i = 0; i < GG_BENCH_NROWS; i++) {
        bool wide = i == GG_BENCH_BEST_F64 || i == GG_BENCH_BEST_DF || i == GG_BENCH_CPU_DGEMM;
        ck_assert(b.rows[i].present == !wide); /* no dgemm function: no wide rows */
        if (wide)
            continue;
        ck_assert_int_eq(b.rows[i].has_variant, i != GG_BENCH_CPU);
        double expect = i == GG_BENCH_CPU ? 40 : fake_rate(&b.rows[i].v);
        ck_assert_double_eq_tol(b.rows[i].m.gflops, expect, 1e-12);
        ck_assert_double_eq_tol(b.rows[i].ratio, expect / 40, 1e-12);
    }
    ck_assert_double_eq(b.rows[GG_BENCH_CPU].ratio, 1);
}
END_TEST

/* The wide rows (gg_bench_extra's dgemm): cpu-dgemm after cpu-blas, then
 * the presets, the tuned rows, best-f64 and best-df (the defaults where
 * there is no record; df as profile=300es with the presets'); best-f64 and
 * cpu-dgemm against dgemm, best-df against sgemm. */
START_TEST(wide_rows_and_their_ratios)
{
    ck_assert_str_eq(eval_bench_names[GG_BENCH_BEST_F64], "best-f64");
    ck_assert_str_eq(eval_bench_names[GG_BENCH_BEST_DF], "best-df");
    ck_assert_str_eq(eval_bench_names[GG_BENCH_CPU_DGEMM], "cpu-dgemm");
    for (int es = 0; es < 2; es++) {
        fake_gpu g = {0};
        static gg_bench b;
        gg_bench_extra x = {.es_presets = es, .dgemm = fake_dgemm};
        ck_assert_int_eq(eval_bench_run_ex(&b, "synth", 64, 64, 64, NULL, fake_eval, &g, fake_cpu,
                                           NULL, &x, NULL, NULL),
                         0);
        ck_assert_int_eq(g.calls, 6); /* the presets, best-f64, best-df */
        char want64[GG_VARIANT_TEXT], wantdf[GG_VARIANT_TEXT], err[256];
        gg_variant v;
        ck_assert_int_eq(gen_variant_parse(GG_BENCH_DEFAULT_F64, NULL, &v, err, sizeof err), 0);
        gen_variant_format(&v, want64, sizeof want64);
        ck_assert_int_eq(gen_variant_parse(GG_BENCH_DEFAULT_DF, NULL, &v, err, sizeof err), 0);
        if (es)
            v.profile = GG_PROFILE_300ES;
        gen_variant_format(&v, wantdf, sizeof wantdf);
        ck_assert_str_eq(g.seen[4], want64);
        ck_assert_str_eq(g.seen[5], wantdf);
        ck_assert(strstr(g.seen[4], "store=f64") && strstr(g.seen[5], "store=df"));
        const gg_bench_row *f64 = &b.rows[GG_BENCH_BEST_F64], *df = &b.rows[GG_BENCH_BEST_DF],
                           *dg = &b.rows[GG_BENCH_CPU_DGEMM];
        ck_assert(f64->present && df->present && dg->present && !dg->has_variant);
        ck_assert_double_eq_tol(f64->ratio, fake_rate(&f64->v) / 20, 1e-12);
        ck_assert_double_eq_tol(df->ratio, fake_rate(&df->v) / 40, 1e-12);
        ck_assert_double_eq(dg->ratio, 1);
        ck_assert_double_eq(b.rows[GG_BENCH_CPU].ratio, 1);
        ck_assert_int_eq(eval_bench_ratio_base(GG_BENCH_BEST_F64), GG_BENCH_CPU_DGEMM);
        ck_assert_int_eq(eval_bench_ratio_base(GG_BENCH_BEST_DF), GG_BENCH_CPU);
        ck_assert(!b.rows[GG_BENCH_BEST].present); /* no record: no best row */
        /* The table: best-df against the fastest fp32 preset. */
        char *table = NULL;
        size_t tlen = 0;
        FILE *mf = open_memstream(&table, &tlen);
        eval_bench_print(mf, &b, NULL);
        fclose(mf);
        char line[160];
        double top = 0;
        for (int i = 0; i < GG_BENCH_BEST; i++)
            top = fmax(top, b.rows[i].m.gflops);
        snprintf(line, sizeof line, "%.3gx this card's fp32 ", df->m.gflops / top);
        ck_assert_msg(strstr(table, line) != NULL, "no '%s' in\n%s", line, table);
        ck_assert_ptr_nonnull(strstr(table, "(vs CPU: best-f64 and cpu-dgemm against cblas_dgemm"));
        free(table);
    }
    /* A dgemm that asks to stop stops the bench. */
    fake_gpu g = {0};
    static gg_bench b;
    gg_bench_extra x = {.dgemm = stop_cpu};
    ck_assert_int_eq(eval_bench_run_ex(&b, "synth", 64, 64, 64, NULL, fake_eval, &g, fake_cpu, NULL,
                                       &x, NULL, NULL),
                     -1);
    ck_assert_int_eq(g.calls, 0);
}
END_TEST

START_TEST(failed_row_and_missing_best)
{
    fake_gpu g = {.fail_nv_single = true};
    static gg_bench b;
    ck_assert_int_eq(eval_bench_run(&b, "synth", 64, 64, 64, NULL, fake_eval, &g, fake_cpu, NULL,
                                    NULL, NULL),
                     0);
    ck_assert_int_eq(g.calls, 4); /* no best evaluated */
    ck_assert(!b.rows[GG_BENCH_BEST].present);
    ck_assert(!b.rows[GG_BENCH_BEST_IMAGE].present);
    ck_assert(!b.rows[GG_BENCH_BEST_F16].present);
    ck_assert(!b.rows[GG_BENCH_BEST_F16X8].present);
    ck_assert_int_eq(b.rows[2].m.status, GG_WRONG_RESULT);
    ck_assert_double_eq(b.rows[2].m.gflops, 0);
    ck_assert_double_eq(b.rows[2].ratio, 0);
    char *csv = eval_bench_csv(&b);
    ck_assert_ptr_nonnull(csv);
    ck_assert_int_eq(tu_count_lines(csv), 1 + 5);
    ck_assert_ptr_null(strstr(csv, "\nbest,"));
    ck_assert_ptr_nonnull(strstr(csv, "\nnv-single,synth,64,64,64,1x1,2x2,128,1,330,glsl,pingpong,f32,rt,"
                                      "-,texture,-,1,plain,3,wrong_result,"));
    /* The CPU row: eleven empty variant columns, passes 0, ratio 1. */
    ck_assert_ptr_nonnull(strstr(csv, "\ncpu-blas,synth,64,64,64,,,,,,,,,,,,,,,0,ok,"));
    ck_assert_ptr_nonnull(strstr(csv, ",2e-07,1\n"));
    free(csv);

    /* The table says why best and best-image are not there. */
    char *table = NULL;
    size_t tlen = 0;
    FILE *mf = open_memstream(&table, &tlen);
    eval_bench_print(mf, &b, "glgemm tune --size 64");
    fclose(mf);
    ck_assert_ptr_nonnull(strstr(table, "\nbest: no tuning record (run glgemm tune --size 64)\n"));
    ck_assert_ptr_nonnull(strstr(table, "\nbest-image: no out=image variant ran ok in the tuning "
                                        "records\n"));
    ck_assert_ptr_null(strstr(table, "best-f16"));
    ck_assert_ptr_null(strstr(table, "cblas_dgemm")); /* no wide rows asked for */
    free(table);
    /* The CPU asking to stop stops the bench. */
    ck_assert_int_eq(eval_bench_run(&b, "synth", 64, 64, 64, NULL, fake_eval, &g, stop_cpu,
                                  NULL, NULL, NULL),
                     -1);
}
END_TEST

START_TEST(csv_round_trip)
{
    char dir[64], path[128], err[512];
    tu_mkdtemp(dir, sizeof dir, "bench");
    fake_gpu g = {0};
    gg_variant best;
    ck_assert_int_eq(gen_variant_parse("mrt=1x2,mc=2x2,np=3,acc=blend", NULL, &best, err, sizeof err),
                     0);
    gg_variant best16, best16x8, image;
    ck_assert_int_eq(gen_variant_parse("mrt=1x8,mc=1x4,np=2,store=f16", NULL, &best16, err,
                                      sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mc=2x2,np=2,profile=430,out=image,blk=8x8,store=f16x8", NULL,
                                      &best16x8, err, sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mc=1x4,np=4,profile=310es,out=image,blk=16x8,fetch=image",
                                      NULL, &image, err, sizeof err), 0);
    static gg_bench b, back;
    gg_variant best64;
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=1x1,np=8,store=f64", NULL, &best64, err,
                                      sizeof err), 0);
    gg_bench_recorded rec = {&best, &image, &best16, &best16x8, &best64, NULL};
    gg_bench_extra x = {.dgemm = fake_dgemm};
    ck_assert_int_eq(eval_bench_run_ex(&b, "synth", 64, 64, 64, &rec, fake_eval, &g, fake_cpu, NULL,
                                       &x, NULL, NULL),
                     0);
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    ck_assert_int_eq(eval_bench_write(&b, path, err, sizeof err), 0);
    ck_assert_msg(eval_bench_read(path, &back, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(back.card, "synth");
    ck_assert_int_eq(back.m, 64);
    ck_assert(back.rows[GG_BENCH_BEST_F64].present && back.rows[GG_BENCH_CPU_DGEMM].present);
    ck_assert_int_eq(back.rows[GG_BENCH_BEST_F64].v.store, GG_STORE_F64);
    ck_assert_str_eq(eval_bench_row_precision(&back, GG_BENCH_CPU_DGEMM), "f64");
    ck_assert_str_eq(eval_bench_row_precision(&back, GG_BENCH_BEST_DF), "df");
    ck_assert_str_eq(eval_bench_row_precision(&back, GG_BENCH_CPU), "f32");
    ck_assert_str_eq(eval_bench_row_precision(&back, GG_BENCH_BEST_F16X8), "f16x8");
    for (int i = 0; i < GG_BENCH_NROWS; i++) {
        ck_assert(back.rows[i].present == b.rows[i].present);
        if (!b.rows[i].present)
            continue;
        ck_assert_int_eq(back.rows[i].has_variant, b.rows[i].has_variant);
        char x[GG_VARIANT_TEXT], y[GG_VARIANT_TEXT];
        if (b.rows[i].has_variant)
            ck_assert_str_eq(gen_variant_format(&back.rows[i].v, x, sizeof x),
                             gen_variant_format(&b.rows[i].v, y, sizeof y));
        ck_assert_double_eq(back.rows[i].m.gflops, b.rows[i].m.gflops); /* shortest exact form */
        ck_assert_double_eq(back.rows[i].m.seconds, b.rows[i].m.seconds);
        ck_assert_double_eq_tol(back.rows[i].ratio, b.rows[i].ratio, 1e-5 * b.rows[i].ratio);
    }
    tu_rm_rf(dir);
}
END_TEST

/* A bench file from before the store column (as results/ holds them) reads,
 * every row store=f32, the CPU row's seven empty variant columns too; one
 * with a store=f16 best reads that. */
START_TEST(old_and_f16_files_read)
{
    char dir[64], path[128], err[512];
    tu_mkdtemp(dir, sizeof dir, "bench-old");
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    tu_write(path, GG_BENCH_CSV_HEADER_V1 "\n"
                   "larsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,0.5,2,2e-07,0.5\n"
                   "best,synth,8,8,8,1x8,2x2,all,1,330,glsl,blend,1,ok,0.25,4,2e-07,1\n"
                   "cpu-blas,synth,8,8,8,,,,,,,,0,ok,0.25,4,2e-07,1\n");
    static gg_bench b;
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    char x[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&b.rows[GG_BENCH_BEST].v, x, sizeof x),
                     "mrt=1x8,mc=2x2,np=all,unroll=1,profile=330,compiler=glsl,acc=blend,store=f32");
    ck_assert(b.rows[GG_BENCH_CPU].present && !b.rows[GG_BENCH_CPU].has_variant);
    ck_assert_double_eq(b.rows[GG_BENCH_CPU].m.gflops, 4);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best,synth,8,8,8,1x8,2x2,all,1,330,glsl,blend,f16,1,ok,0.25,4,2e-07,1\n"
                   "cpu-blas,synth,8,8,8,,,,,,,,,0,ok,0.25,4,2e-07,1\n");
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST].v.store, GG_STORE_F16);
    ck_assert(b.rows[GG_BENCH_CPU].present);
    ck_assert(!b.rows[GG_BENCH_BEST_F16].present);
    /* best-f16 reads when its store is f16, and is refused otherwise. */
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f16,synth,8,8,8,2x4,4x1,all,0,300es,glsl,pingpong,f16,1,ok,0.125,8,3e-07,2\n"
                   "cpu-blas,synth,8,8,8,,,,,,,,,0,ok,0.25,4,2e-07,1\n");
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert(b.rows[GG_BENCH_BEST_F16].present && !b.rows[GG_BENCH_BEST].present);
    ck_assert_double_eq(b.rows[GG_BENCH_BEST_F16].m.gflops, 8);
    ck_assert_double_eq(b.rows[GG_BENCH_BEST_F16].ratio, 2);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f16,synth,8,8,8,2x4,4x1,all,0,300es,glsl,pingpong,f32,1,ok,0.125,8,3e-07,2\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "line 2: the best-f16 row's store is f32, not f16"), "%s", err);
    /* best-f16x8 likewise, beside best-f16; a best-f16 row of store=f16x8
     * is refused (each half row holds its own store). */
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f16,synth,8,8,8,2x4,4x1,all,0,300es,glsl,pingpong,f16,1,ok,0.125,8,3e-07,2\n"
                   "best-f16x8,synth,8,8,8,1x1,1x4,all,0,430,glsl,pingpong,f16x8,image,16x8,buffer,1,"
                   "ok,0.0625,16,3e-07,4\n");
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert(b.rows[GG_BENCH_BEST_F16].present && b.rows[GG_BENCH_BEST_F16X8].present);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_F16X8].v.store, GG_STORE_F16X8);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_F16X8].v.fetch, GG_FETCH_BUFFER);
    ck_assert_double_eq(b.rows[GG_BENCH_BEST_F16X8].m.gflops, 16);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f16,synth,8,8,8,2x4,4x1,all,0,300es,glsl,pingpong,f16x8,1,ok,0.125,8,3e-07,2\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "line 2: the best-f16 row's store is f16x8, not f16"), "%s", err);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f16x8,synth,8,8,8,2x4,4x1,all,0,300es,glsl,pingpong,f16,1,ok,0.125,8,3e-07,2\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "line 2: the best-f16x8 row's store is f16, not f16x8"), "%s", err);
    /* best-image reads when its out is image, and is refused otherwise. */
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-image,synth,8,8,8,1x1,2x2,all,0,430,glsl,pingpong,f32,image,4x4,texture,1,"
                   "ok,0.125,8,3e-07,2\n");
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert(b.rows[GG_BENCH_BEST_IMAGE].present && !b.rows[GG_BENCH_BEST].present);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_IMAGE].v.blk.rows, 4);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-image,synth,8,8,8,1x1,2x2,all,0,430,glsl,pingpong,f32,rt,-,texture,1,"
                   "ok,0.125,8,3e-07,2\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "line 2: the best-image row's out is rt, not image"), "%s", err);
    /* best-f64, best-df and cpu-dgemm read; a best-f64 row of another store
     * is refused. */
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f64,synth,8,8,8,4x2,1x2,32,1,330,glsl,pingpong,f64,rt,-,texture,-,1,plain,1,"
                   "ok,0.125,8,1e-16,2\n"
                   "best-df,synth,8,8,8,4x2,1x2,all,0,330,glsl,pingpong,df,rt,-,texelfetch,-,1,plain,"
                   "1,ok,0.25,4,1e-15,0.5\n"
                   "cpu-dgemm,synth,8,8,8,,,,,,,,,,,,,,,0,ok,0.25,4,1e-16,1\n");
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    ck_assert(b.rows[GG_BENCH_BEST_F64].present && b.rows[GG_BENCH_BEST_DF].present);
    ck_assert(b.rows[GG_BENCH_CPU_DGEMM].present && !b.rows[GG_BENCH_CPU_DGEMM].has_variant);
    ck_assert_double_eq(b.rows[GG_BENCH_CPU_DGEMM].m.gflops, 4);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_DF].v.store, GG_STORE_DF);
    tu_write(path, GG_BENCH_CSV_HEADER "\n"
                   "best-f64,synth,8,8,8,4x2,1x2,32,1,330,glsl,pingpong,df,rt,-,texture,-,1,plain,1,"
                   "ok,0.125,8,1e-16,2\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "line 2: the best-f64 row's store is df, not f64"), "%s", err);
    /* The CPU row of today's file with only seven empty columns is refused. */
    tu_write(path, GG_BENCH_CSV_HEADER "\ncpu-blas,synth,8,8,8,,,,,,,,f32,0,ok,0.25,4,2e-07,1\n");
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "variant columns empty"));
    tu_rm_rf(dir);
}
END_TEST

/* best-image from fake tuning records: the fastest row that ran ok with
 * out=image and store=f32, whatever is faster with out=rt, with store=f16,
 * failed, or of another card or problem; bench then runs it as its row. */
#define REC_HEAD GG_CSV_HEADER "\n"
#define REC(mid, tail) "synth,64,64,64," mid "," tail "\n"
static const char image_records[] =
    REC_HEAD
    REC("2x4,2x2,all,0,330,glsl,pingpong,f32,rt,-,texture", "1,ok,0.001,90,1e-07")
    REC("1x1,2x2,all,0,430,glsl,pingpong,f32,image,8x8,texture", "1,ok,0.002,30,1e-07")
    REC("1x1,1x4,8,0,430,glsl,pingpong,f32,image,16x8,texelfetch", "2,ok,0.001,55.5,1e-07")
    REC("1x1,1x4,4,0,430,glsl,pingpong,f32,image,16x8,buffer", "4,ok,0.002,41,1e-07")
    REC("1x1,2x2,all,0,430,glsl,pingpong,f32,image,16x16,texture", "1,wrong_result,0.001,0,0.5")
    REC("1x1,2x2,all,0,430,glsl,pingpong,f16,image,8x8,texture", "1,ok,0.001,70,1e-07")
    "synth,64,64,32,1x1,2x2,all,0,430,glsl,pingpong,f32,image,4x4,texture,1,ok,0.001,80,1e-07\n"
    "other,64,64,64,1x1,2x2,all,0,430,glsl,pingpong,f32,image,4x4,texture,1,ok,0.001,80,1e-07\n"
    "a line that is no row\n"
    REC("1x1,2x2,all,0,430,glsl,pingpong,f32,image,4x8,fetch", "1,ok,0.001,99,1e-07");

START_TEST(best_image_from_records)
{
    char dir[64], path[256], err[512];
    tu_mkdtemp(dir, sizeof dir, "bench-image");
    snprintf(path, sizeof path, "%s/synth", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    char rec[300];
    store_records_file(rec, sizeof rec, dir, "synth", 64, 64, 64);
    ck_assert_str_eq(strrchr(rec, '/'), "/tune-64x64x64.csv");
    gg_variant v;
    gg_measurement m;
    /* No records file: none. */
    ck_assert_int_eq(store_records_fastest(dir, "synth", 64, 64, 64, store_record_is_image_f32, NULL, &v,
                                        &m, err, sizeof err), 0);
    tu_write(rec, image_records);
    ck_assert_msg(store_records_fastest(dir, "synth", 64, 64, 64, store_record_is_image_f32, NULL, &v, &m,
                                     err, sizeof err) == 1, "%s", err);
    char vt[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&v, vt, sizeof vt),
                     "mrt=1x1,mc=1x4,np=8,unroll=0,profile=430,compiler=glsl,acc=pingpong,"
                     "store=f32,out=image,blk=16x8,fetch=texelfetch");
    ck_assert_double_eq(m.gflops, 55.5);
    ck_assert_int_eq(m.passes, 2);
    /* Any out: the rt row is the fastest. */
    gg_variant any;
    ck_assert_int_eq(store_records_fastest(dir, "synth", 64, 64, 64, NULL, NULL, &any, NULL, err,
                                        sizeof err), 1);
    ck_assert_int_eq(any.out, GG_OUT_RT);
    long rows = 0;
    ck_assert_int_eq(store_records_scan(dir, "synth", 64, 64, 64, NULL, NULL, &rows, err, sizeof err),
                     0);
    ck_assert_int_eq(rows, 6);

    /* bench runs it as the best-image row, after best, before best-f16. */
    fake_gpu g = {0};
    gg_variant best;
    ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=2x2", NULL, &best, err, sizeof err), 0);
    static gg_bench b;
    gg_bench_recorded rec_image = {.best = &best, .best_image = &v};
    ck_assert_int_eq(eval_bench_run(&b, "synth", 64, 64, 64, &rec_image, fake_eval, &g, fake_cpu,
                                    NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(g.calls, 6);
    ck_assert_str_eq(g.seen[5], vt);
    ck_assert(b.rows[GG_BENCH_BEST_IMAGE].present && b.rows[GG_BENCH_BEST_IMAGE].has_variant);
    ck_assert(!b.rows[GG_BENCH_BEST_F16].present);
    ck_assert_double_eq_tol(b.rows[GG_BENCH_BEST_IMAGE].m.gflops, fake_rate(&v), 1e-12);
    char *csv = eval_bench_csv(&b);
    ck_assert_ptr_nonnull(csv);
    ck_assert_ptr_nonnull(strstr(csv, "\nbest,synth,64,64,64,2x4,2x2,all,"));
    ck_assert_ptr_nonnull(strstr(csv, "\nbest-image,synth,64,64,64,1x1,1x4,8,0,430,glsl,pingpong,f32,"
                                      "image,16x8,texelfetch,"));
    ck_assert(strstr(csv, "\nbest,") < strstr(csv, "\nbest-image,"));
    ck_assert_ptr_null(strstr(csv, "best-f16"));
    free(csv);

    /* Records of out=rt only (a file from before the out column among
     * them): no best-image, no row. */
    tu_write(rec, GG_CSV_HEADER_V2 "\n"
                  "synth,64,64,64,2x4,2x2,all,0,330,glsl,pingpong,f32,1,ok,0.001,90,1e-07\n"
                  "synth,64,64,64,1x1,2x2,4,0,330,glsl,pingpong,f32,2,ok,0.001,20,1e-07\n");
    ck_assert_int_eq(store_records_fastest(dir, "synth", 64, 64, 64, store_record_is_image_f32, NULL, &v,
                                        &m, err, sizeof err), 0);
    ck_assert_int_eq(store_records_fastest(dir, "synth", 64, 64, 64, NULL, NULL, &v, &m, err,
                                        sizeof err), 1);
    ck_assert_double_eq(m.gflops, 90);
    g.calls = 0;
    ck_assert_int_eq(eval_bench_run(&b, "synth", 64, 64, 64, &(gg_bench_recorded){.best = &best},
                                    fake_eval, &g, fake_cpu, NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(g.calls, 5);
    ck_assert(!b.rows[GG_BENCH_BEST_IMAGE].present);
    csv = eval_bench_csv(&b);
    ck_assert_ptr_null(strstr(csv, "best-image"));
    free(csv);
    /* Someone else's file is an error, named. */
    tu_write(rec, "time,gflops\n1,2\n");
    ck_assert_int_eq(store_records_fastest(dir, "synth", 64, 64, 64, store_record_is_image_f32, NULL, &v,
                                        &m, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "tune-64x64x64.csv: the first line is not the records header"), "%s",
                  err);
    /* Reading never changed it (no lock, no rewrite). */
    char *text = tu_read(rec);
    ck_assert_str_eq(text, "time,gflops\n1,2\n");
    free(text);
    tu_rm_rf(dir);
}
END_TEST

static const struct {
    const char *text;
    const char *msg;
} bad_csv[] = {
    {"card,m\n", "not the bench header"},
    {GG_BENCH_CSV_HEADER "\n", "has no rows"},
    {GG_BENCH_CSV_HEADER "\nfoo,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,1,1,,1\n",
     "line 2: unknown name 'foo'"},
    {GG_BENCH_CSV_HEADER "\nlarsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,1,1,,1\n"
                         "larsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,1,1,,1\n",
     "line 3: a second larsen row"},
    {GG_BENCH_CSV_HEADER "\ncpu-blas,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,0,ok,1,1,,1\n",
     "must leave the variant columns empty"},
    {GG_BENCH_CSV_HEADER "\nlarsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,1,1,,-2\n",
     "ratio_to_cpu '-2'"},
    {GG_BENCH_CSV_HEADER "\nlarsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,fine,1,1,,1\n",
     "unknown status 'fine'"},
    {GG_BENCH_CSV_HEADER "\nlarsen,synth,8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,1,1,,1\n"
                         "tfjs,synth,8,8,9,1x1,2x2,all,0,330,glsl,pingpong,1,ok,1,1,,1\n",
     "card or problem differs"},
};

START_TEST(bad_csv_refused)
{
    char dir[64], path[128], err[512] = "";
    tu_mkdtemp(dir, sizeof dir, "bench");
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    ck_assert_int_eq(base_write_atomic(path, bad_csv[_i].text, strlen(bad_csv[_i].text), err,
                                     sizeof err),
                     0);
    static gg_bench b;
    ck_assert_int_eq(eval_bench_read(path, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad_csv[_i].msg) != NULL, "'%s' lacks '%s'", err, bad_csv[_i].msg);
    ck_assert_ptr_null(strchr(err, '\n'));
    tu_rm_rf(dir);
}
END_TEST

/* ---- the CPU BLAS --------------------------------------------------------- */

static const struct {
    int m, n, k;
    bool transa, transb;
    float alpha, beta;
} cpu_cases[] = {
    {37, 29, 41, false, false, 1, 0},
    {16, 24, 8, true, false, 2, 0.5f},
    {9, 7, 13, false, true, -1, 1},
};

/* cpu_cases[i] as a problem of 3 reps. */
static gg_problem cpu_problem(int i)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = cpu_cases[i].m;
    p.n = cpu_cases[i].n;
    p.k = cpu_cases[i].k;
    p.transa = cpu_cases[i].transa;
    p.transb = cpu_cases[i].transb;
    p.alpha = cpu_cases[i].alpha;
    p.beta = cpu_cases[i].beta;
    p.reps = 3;
    return p;
}

START_TEST(cpu_sgemm_verified)
{
    gg_problem p = cpu_problem(_i);
    char err[256];
    gg_inputs in;
    gg_reference ref, other;
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), 0);
    ck_assert_int_eq(base_reference_compute(&in, p.alpha, p.beta, &ref, err, sizeof err), 0);
    gg_measurement m;
    ck_assert_int_eq(base_cpu_sgemm(&p, &in, &ref, &m, err, sizeof err), 0);
    ck_assert_msg(m.status == GG_OK, "%s", m.detail);
    ck_assert(m.seconds > 0 && m.gflops > 0);
    ck_assert_double_eq_tol(m.gflops, 2.0 * p.m * p.n * p.k / m.seconds / 1e9, 1e-9 * m.gflops);
    ck_assert(m.rel_err >= 0 && m.rel_err <= base_verify_bound(p.k));
    ck_assert_int_eq(m.passes, 0);
    ck_assert_int_ge(base_cpu_threads(), 1);
    /* Judged against the reference of another alpha, the same result is wrong. */
    ck_assert_int_eq(base_reference_compute(&in, p.alpha * 3, p.beta, &other, err, sizeof err), 0);
    ck_assert_int_eq(base_cpu_sgemm(&p, &in, &other, &m, err, sizeof err), 0);
    ck_assert_int_eq(m.status, GG_WRONG_RESULT);
    ck_assert_double_eq(m.gflops, 0);
    ck_assert_ptr_nonnull(strstr(m.detail, "CPU BLAS"));
    base_reference_free(&other);
    base_reference_free(&ref);
    base_inputs_free(&in);
}
END_TEST

/* cpu-dgemm's helper: dgemm on the inputs as doubles (transposes, alpha,
 * beta with C0 as doubles), within store=f64's bound of its reference;
 * judged against another alpha's reference, wrong_result.  And the same
 * result in float precision would not pass: the bound is a double's. */
START_TEST(cpu_dgemm_verified)
{
    gg_problem p = cpu_problem(_i);
    char err[256];
    gg_inputs in;
    gg_reference ref, other;
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), 0);
    ck_assert_msg(base_reference_compute_store(&in, p.alpha, p.beta, GG_STORE_F64, &ref, err,
                                               sizeof err) == 0, "%s", err);
    gg_measurement m;
    ck_assert_msg(base_cpu_dgemm(&p, &in, &ref, &m, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(m.status == GG_OK, "%s", m.detail);
    ck_assert(m.seconds > 0 && m.gflops > 0 && m.passes == 0);
    ck_assert_msg(m.rel_err <= p.k * 0x1p-52, "rel_err %g", m.rel_err);
    /* sgemm on the same problem errs like a float, far past that bound */
    gg_measurement ms;
    ck_assert_int_eq(base_reference_compute(&in, p.alpha, p.beta, &other, err, sizeof err), 0);
    ck_assert_int_eq(base_cpu_sgemm(&p, &in, &other, &ms, err, sizeof err), 0);
    base_reference_free(&other);
    ck_assert_msg(ms.rel_err > p.k * 0x1p-52, "sgemm %g", ms.rel_err);
    ck_assert_int_eq(base_reference_compute_store(&in, p.alpha * 3, p.beta, GG_STORE_F64, &other,
                                                  err, sizeof err), 0);
    ck_assert_int_eq(base_cpu_dgemm(&p, &in, &other, &m, err, sizeof err), 0);
    ck_assert_int_eq(m.status, GG_WRONG_RESULT);
    ck_assert_double_eq(m.gflops, 0);
    ck_assert_ptr_nonnull(strstr(m.detail, "CPU BLAS dgemm"));
    base_reference_free(&other);
    base_reference_free(&ref);
    base_inputs_free(&in);
}
END_TEST

/* ---- the CLI ------------------------------------------------------------- */

/* The value of column `col` (0-based) of a CSV line, as a double. */
static double csv_num(const char *line, int col)
{
    const char *p = line;
    for (int i = 0; i < col; i++) {
        p = strchr(p, ',');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    return strtod(p, NULL);
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static const char *find_row(const char *csv, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, "\n%s,", name);
    const char *p = strstr(csv, key);
    return p ? p + 1 : NULL;
}

START_TEST(cli_bench_rows_and_ratios)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "bench");
    char *out, *err;
    int rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --csv --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(err, "best: no tuning record (run glgemm tune --m 24 --n 24 --k 24)"));
    ck_assert(!strncmp(out, GG_BENCH_CSV_HEADER "\n", strlen(GG_BENCH_CSV_HEADER) + 1));
    /* The file is what stdout showed, and parses. */
    char path[256];
    snprintf(path, sizeof path, "%s/res/llvmpipe/bench-24x24x24.csv", dir);
    char *file = tu_read(path);
    ck_assert_ptr_nonnull(file);
    ck_assert_str_eq(file, out);
    static gg_bench b;
    char perr[512];
    ck_assert_msg(eval_bench_read(path, &b, perr, sizeof perr) == 0, "%s", perr);
    ck_assert(!b.rows[GG_BENCH_BEST].present);
    ck_assert_int_eq(tu_count_lines(out), 1 + 5 + 3); /* and best-f64, best-df, cpu-dgemm */
    const char *cpu = find_row(out, "cpu-blas");
    ck_assert_ptr_nonnull(cpu);
    double cpu_gf = csv_num(cpu, 22);
    ck_assert(cpu_gf > 0);
    const char *names[] = {"larsen", "nv-multi", "nv-single", "tfjs", "cpu-blas"};
    for (int i = 0; i < 5; i++) {
        const char *row = find_row(out, names[i]);
        ck_assert_msg(row != NULL, "no %s row", names[i]);
        ck_assert_msg(!strncmp(row + strlen(names[i]) + 1, "llvmpipe,24,24,24,", 18), "%s", row);
        ck_assert_msg(strstr(row, ",ok,") != NULL, "%s not ok: %.200s", names[i], row);
        double gf = csv_num(row, 22), ratio = csv_num(row, 24);
        ck_assert(gf > 0);
        ck_assert_msg(fabs(ratio - gf / cpu_gf) <= 1e-5 * (gf / cpu_gf), "%s: ratio %g, %g/%g",
                      names[i], ratio, gf, cpu_gf);
    }
    /* The wide rows: no record, so the defaults; best-f64 (fp64: llvmpipe's
     * 4.5 context has doubles) against OpenBLAS dgemm in the same run,
     * best-df against sgemm; cpu-dgemm leaves the variant columns empty. */
    const char *dg = find_row(out, "cpu-dgemm"), *f64 = find_row(out, "best-f64"),
               *df = find_row(out, "best-df");
    ck_assert_msg(dg && f64 && df, "%s", out);
    ck_assert_msg(starts(dg, "cpu-dgemm,llvmpipe,24,24,24,,,,,,,,,,,,,,,0,ok,"), "%s", dg);
    double dgemm_gf = csv_num(dg, 22);
    ck_assert(dgemm_gf > 0);
    ck_assert(fabs(csv_num(dg, 24) - 1) <= 1e-6);
    ck_assert_msg(starts(f64, "best-f64,llvmpipe,24,24,24,4x2,1x2,32,1,330,glsl,pingpong,f64,"), "%s",
                  f64);
    ck_assert_msg(strstr(f64, ",ok,") != NULL, "%.300s", f64);
    ck_assert(csv_num(f64, 23) <= 24 * 0x1p-52); /* rel_err: a double's, not a float's */
    double f64_gf = csv_num(f64, 22);
    ck_assert(f64_gf > 0 && fabs(csv_num(f64, 24) - f64_gf / dgemm_gf) <= 1e-5 * f64_gf / dgemm_gf);
    ck_assert_msg(strstr(df, ",4x2,1x2,all,0,330,glsl,pingpong,df,rt,-,texelfetch,") &&
                      strstr(df, ",ok,"), "%.300s", df);
    double df_gf = csv_num(df, 22);
    ck_assert(df_gf > 0 && fabs(csv_num(df, 24) - df_gf / cpu_gf) <= 1e-5 * df_gf / cpu_gf);
    ck_assert(find_row(out, "tfjs") < f64 && f64 < df && df < cpu && cpu < dg);
    ck_assert(b.rows[GG_BENCH_BEST_F64].present && b.rows[GG_BENCH_CPU_DGEMM].present &&
              !b.rows[GG_BENCH_CPU_DGEMM].has_variant);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_DF].v.store, GG_STORE_DF);
    free(out);
    free(err);
    free(file);

    /* The table: best-df against the card's fp32 (no best: the fastest
     * preset). */
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "x this card's fp32 ") != NULL, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "cblas_dgemm (OpenBLAS, the inputs as doubles)"));
    free(out);
    free(err);

    /* A best-f64 file: its row runs that variant. */
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-f64-24x24x24.txt", dir);
    const char *b64 = "mrt=2x1,mc=1x1,np=4,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                      "store=f64\ngflops: 1\n";
    ck_assert_int_eq(base_write_atomic(path, b64, strlen(b64), perr, sizeof perr), 0);
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --csv --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    f64 = find_row(out, "best-f64");
    ck_assert_msg(f64 && starts(f64, "best-f64,llvmpipe,24,24,24,2x1,1x1,4,0,330,") &&
                      strstr(f64, ",ok,"), "%s", out);
    free(out);
    free(err);
    ck_assert_int_eq(unlink(path), 0);

    /* A context without doubles (Mesa told to hide them): best-f64 says
     * unsupported, and bench still succeeds; df runs on fp32. */
    rc = tu_run(dir, "MESA_GL_VERSION_OVERRIDE=3.3 MESA_GLSL_VERSION_OVERRIDE=330 "
                     "MESA_EXTENSION_OVERRIDE=-GL_ARB_gpu_shader_fp64",
                "bench --size 24 --reps 2 --csv --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    f64 = find_row(out, "best-f64");
    df = find_row(out, "best-df");
    ck_assert_msg(f64 && strstr(f64, ",unsupported,"), "%s", out);
    ck_assert(csv_num(f64, 22) == 0 && csv_num(f64, 24) == 0);
    ck_assert_msg(df && strstr(df, ",ok,"), "%s", out);
    ck_assert_msg(strstr(find_row(out, "cpu-dgemm"), ",ok,") != NULL, "%s", out);
    free(out);
    free(err);

    /* With a best file, the best row runs that variant. */
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-24x24x24.txt", dir);
    const char *best = "mrt=1x2,mc=1x4,np=2,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32\n"
                       "gflops: 1\n";
    ck_assert_int_eq(base_write_atomic(path, best, strlen(best), perr, sizeof perr), 0);
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_ptr_nonnull(strstr(out, "best       mrt=1x2,mc=1x4,np=2,unroll=0"));
    ck_assert_ptr_null(strstr(out, "no tuning record"));
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/res/llvmpipe/bench-24x24x24.csv", dir);
    ck_assert_int_eq(eval_bench_read(path, &b, perr, sizeof perr), 0);
    ck_assert(b.rows[GG_BENCH_BEST].present);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST].m.status, GG_OK);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST].v.mrt.cols, 2);
    ck_assert(!b.rows[GG_BENCH_BEST_F16].present);

    /* With a half-storage best too, best-f16 runs it, verified against the
     * half-rounded inputs' reference (ok, not wrong_result), after best;
     * with tuning records that hold out=image variants, best-image runs the
     * fastest that ran ok, between the two. */
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-f16-24x24x24.txt", dir);
    const char *b16 = "mrt=2x1,mc=2x2,np=3,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16\n"
                      "gflops: 1\n";
    ck_assert_int_eq(base_write_atomic(path, b16, strlen(b16), perr, sizeof perr), 0);
    snprintf(path, sizeof path, "%s/res/llvmpipe/tune-24x24x24.csv", dir);
    tu_write(path, GG_CSV_HEADER "\n"
                   "llvmpipe,24,24,24,1x2,1x4,2,0,330,glsl,pingpong,f32,rt,-,texture,3,ok,0.001,9,"
                   "1e-07\n"
                   "llvmpipe,24,24,24,1x1,2x2,all,0,430,glsl,pingpong,f32,image,4x4,texelfetch,1,ok,"
                   "0.001,2,1e-07\n"
                   "llvmpipe,24,24,24,1x1,1x4,all,0,430,glsl,pingpong,f32,image,4x8,texture,1,ok,"
                   "0.001,1,1e-07\n");
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --csv --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(out), 1 + 8 + 3);
    const char *r16 = find_row(out, "best-f16"), *rimg = find_row(out, "best-image");
    ck_assert_msg(r16 && strstr(r16, ",2x1,2x2,3,0,330,glsl,pingpong,f16,") &&
                      strstr(r16, ",ok,"), "%s", out);
    ck_assert_msg(rimg && !strncmp(rimg, "best-image,llvmpipe,24,24,24,1x1,2x2,all,0,430,glsl,"
                                         "pingpong,f32,image,4x4,texelfetch,1,ok,", 77),
                  "%s", out);
    ck_assert(find_row(out, "best") < rimg && rimg < r16 && r16 < find_row(out, "cpu-blas"));
    ck_assert(r16 < find_row(out, "best-f64"));
    ck_assert_ptr_null(find_row(out, "best-f16x8"));
    free(out);
    free(err);
    /* A store=f16x8 best too: its own row best-f16x8, after best-f16,
     * verified against the same rounded inputs' reference. */
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-f16x8-24x24x24.txt", dir);
    const char *b8 = "mrt=1x2,mc=1x4,np=2,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                     "store=f16x8,fetch=texelfetch\ngflops: 1\n";
    ck_assert_int_eq(base_write_atomic(path, b8, strlen(b8), perr, sizeof perr), 0);
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --csv --results res", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(out), 1 + 9 + 3);
    const char *r8 = find_row(out, "best-f16x8");
    r16 = find_row(out, "best-f16");
    ck_assert_msg(r8 && strstr(r8, ",1x2,1x4,2,0,330,glsl,pingpong,f16x8,rt,-,texelfetch,") &&
                      strstr(r8, ",ok,"), "%s", out);
    ck_assert(r16 && r16 < r8 && r8 < find_row(out, "cpu-blas"));
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/res/llvmpipe/bench-24x24x24.csv", dir);
    ck_assert_msg(eval_bench_read(path, &b, perr, sizeof perr) == 0, "%s", perr);
    ck_assert(b.rows[GG_BENCH_BEST_F16X8].present);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_F16X8].m.status, GG_OK);
    ck_assert_int_eq(b.rows[GG_BENCH_BEST_F16X8].v.store, GG_STORE_F16X8);
    /* A best-f16x8 file holding store=f16 is bad input, named. */
    b8 = "mrt=1x2,mc=1x4,np=2,store=f16\n";
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-f16x8-24x24x24.txt", dir);
    ck_assert_int_eq(base_write_atomic(path, b8, strlen(b8), perr, sizeof perr), 0);
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --results res", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "best-f16x8-24x24x24.txt: holds a store=f16 variant, not store=f16x8"),
                  "%s", err);
    free(out);
    free(err);
    ck_assert_int_eq(unlink(path), 0);
    /* One holding another store is bad input, named. */
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-f16-24x24x24.txt", dir);
    b16 = "mrt=2x1,mc=2x2,np=3,store=f32\n";
    ck_assert_int_eq(base_write_atomic(path, b16, strlen(b16), perr, sizeof perr), 0);
    rc = tu_run(dir, NULL, "bench --size 24 --reps 2 --results res", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "best-f16-24x24x24.txt: holds a store=f32 variant, not store=f16"),
                  "%s", err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST

static const struct {
    const char *args;
    const char *msg;
} bad_cli[] = {
    {"bench extra", "takes no arguments"},
    {"bench --results ''", "--results needs a folder name"},
    {"bench --size 0", "--size must be an integer"},
    {"bench --size 8 --out c.npy", "--out is not an option of bench"},
    {"bench --size 8 --device 99", "device"},
    {"bench --frob", "unknown option"},
};

START_TEST(cli_bench_bad_usage)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "bench");
    char *out, *err;
    int rc = tu_run(dir, NULL, bad_cli[_i].args, &out, &err);
    ck_assert_msg(rc == 2, "%s: exit %d", bad_cli[_i].args, rc);
    ck_assert_msg(strstr(err, bad_cli[_i].msg) != NULL, "'%s' lacks '%s'", err, bad_cli[_i].msg);
    ck_assert_int_eq(tu_count_lines(err), 1);
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST

/* bench's pool path (--devices, glgemm-mpi): the rows go to the pool
 * (g.eval), the browser's tfjs rows to an evaluator of g's own, made for
 * them: eval_gpu_bench closes it again.  No browser here (GLGEMM_WEB names
 * no folder): the tfjs rows come back context_lost, from an evaluator all
 * the same. */
START_TEST(pool_bench_closes_tfjs_evaluator)
{
    setenv("GLGEMM_WEB", "/nonexistent/glgemm-web", 1);
    char dir[128], err[512];
    tu_mkdtemp(dir, sizeof dir, "benchleak");
    gg_problem p;
    base_problem_default(&p);
    p.m = p.n = p.k = 16;
    p.reps = 1;
    gg_inputs in;
    gg_reference ref = {0};
    ck_assert_msg(base_inputs_make(&p, &in, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(base_reference_compute(&in, p.alpha, p.beta, &ref, err, sizeof err) == 0, "%s",
                  err);
    fake_gpu f = {0};
    gg_gpu g = {.backend = GG_BACKEND_BROWSER, .prob = &p, .in = &in, .ref = &ref, .results = dir,
                .eval = fake_eval, .eval_user = &f};
    int live = eval_evaluator_live();
    static gg_bench b;
    ck_assert_msg(eval_gpu_bench(&g, dir, "fake-card", &b, NULL, NULL, err, sizeof err) == 0, "%s",
                  err);
    ck_assert(b.rows[GG_BENCH_TFJS_WEBGL].present);
    ck_assert_int_eq(b.rows[GG_BENCH_TFJS_WEBGL].m.status, GG_CONTEXT_LOST);
    ck_assert_int_eq(f.calls, 6); /* the presets and the wide rows' defaults, through the pool's
                                     function */
    ck_assert(b.rows[GG_BENCH_CPU_DGEMM].present);
    ck_assert_int_eq(b.rows[GG_BENCH_CPU_DGEMM].m.status, GG_OK);
    ck_assert_ptr_null(g.ev);
    ck_assert_int_eq(eval_evaluator_live(), live);
    base_reference_free(&ref);
    base_inputs_free(&in);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_bench_suite(void)
{
    Suite *s = suite_create("bench");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, rows_in_order_with_ratios);
    tcase_add_test(tc, failed_row_and_missing_best);
    tcase_add_test(tc, wide_rows_and_their_ratios);
    tcase_add_test(tc, csv_round_trip);
    tcase_add_test(tc, old_and_f16_files_read);
    tcase_add_test(tc, best_image_from_records);
    tcase_add_loop_test(tc, bad_csv_refused, 0, sizeof bad_csv / sizeof *bad_csv);
    tcase_add_test(tc, pool_bench_closes_tfjs_evaluator);
    suite_add_tcase(s, tc);

    TCase *cpu = tcase_create("cpublas");
    tcase_add_loop_test(cpu, cpu_sgemm_verified, 0, sizeof cpu_cases / sizeof *cpu_cases);
    tcase_add_loop_test(cpu, cpu_dgemm_verified, 0, sizeof cpu_cases / sizeof *cpu_cases);
    suite_add_tcase(s, cpu);

    TCase *cli = tcase_create("cli");
    tcase_set_tags(cli, "gl slow");
    tcase_set_timeout(cli, 300);
    tcase_add_test(cli, cli_bench_rows_and_ratios);
    tcase_add_loop_test(cli, cli_bench_bad_usage, 0, sizeof bad_cli / sizeof *bad_cli);
    suite_add_tcase(s, cli);
    return s;
}
