/* CSV rows of evaluations: format, parse back, reject malformed rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/csv.h"
#include "tests/suites.h"

/* SPEC.md's column list, written out here on purpose. */
START_TEST(csv_header)
{
    ck_assert_str_eq(GG_CSV_HEADER, "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,"
                                    "out,blk,fetch,tile,ku,order,passes,status,seconds,gflops,rel_err");
    /* SPEC.md's list from before tile, ku and order: an old header. */
    ck_assert_str_eq(GG_CSV_HEADER_V3, "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,"
                                       "out,blk,fetch,passes,status,seconds,gflops,rel_err");
    ck_assert(store_csv_is_old_header(GG_CSV_HEADER_V3));
    /* SPEC.md's list from before out, blk and fetch: still a header, an old one. */
    ck_assert_str_eq(GG_CSV_HEADER_V2, "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,"
                                       "passes,status,seconds,gflops,rel_err");
    ck_assert(store_csv_is_header(GG_CSV_HEADER_V2));
    ck_assert(store_csv_is_old_header(GG_CSV_HEADER_V2));
    ck_assert(!store_csv_is_old_header(GG_CSV_HEADER));
    /* SPEC.md's list from before the store column: still a header. */
    ck_assert_str_eq(GG_CSV_HEADER_V1, "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,"
                                       "passes,status,seconds,gflops,rel_err");
    ck_assert(store_csv_is_header(GG_CSV_HEADER_V1 "\n"));
    ck_assert(store_csv_is_old_header(GG_CSV_HEADER_V1 "\n"));
    ck_assert(!store_csv_is_old_header(GG_CSV_HEADER));
    ck_assert(store_csv_is_header(GG_CSV_HEADER));
    ck_assert(store_csv_is_header(GG_CSV_HEADER "\n"));
    ck_assert(store_csv_is_header(GG_CSV_HEADER "\r\n"));
    ck_assert(!store_csv_is_header(GG_CSV_HEADER ","));
    ck_assert(!store_csv_is_header("card,m,n,k"));
}
END_TEST

static const struct {
    const char *card;
    int m, n, k;
    const char *variant;
    int passes;
    gg_status status;
    double seconds, gflops, rel_err;
    const char *row; /* the exact text expected, or NULL */
} rows[] = {
    {"llvmpipe", 7, 13, 5, "mrt=2x2,mc=1x4,np=16,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32",
     1, GG_OK, 0.25, 0.00364, 1.5e-7,
     "llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,1,ok,0.25,0.00364,1.5e-07"},
    {"nvidia-h100-80gb-hbm3", 1024, 1024, 1024, "nv-single", 8, GG_OK, 0.0123456789012345,
     174.12345678901234, 3.0517578125e-05, NULL},
    {"llvmpipe", 1, 1, 1, "larsen,profile=120,acc=copy", 1, GG_WRONG_RESULT, 1e-7, 0, 0.5,
     "llvmpipe,1,1,1,1x1,1x1,all,0,120,glsl,copy,f32,rt,-,texture,-,1,plain,1,wrong_result,1e-07,0,0.5"},
    {"mesa-intel-uhd-620", 67, 45, 83, "mrt=1x8,mc=2x2,np=3,unroll=1,profile=300es,acc=blend", 7,
     GG_COMPILE_ERROR, 0, 0, -1,
     "mesa-intel-uhd-620,67,45,83,1x8,2x2,3,1,300es,glsl,blend,f32,rt,-,texture,-,1,plain,7,compile_error,0,0,"},
    {"a", 2147483647, 3, 4, "compiler=spirv", 0, GG_UNSUPPORTED, 0, 0, -1, NULL},
    {"x-1", 5, 5, 5, "tfjs", 1, GG_WRONG_RESULT, 2.5, 0, INFINITY,
     "x-1,5,5,5,1x1,2x2,all,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,1,wrong_result,2.5,0,inf"},
    {"llvmpipe", 67, 45, 83, "mrt=2x4,mc=4x1,np=32,unroll=1,acc=blend,store=f16", 3, GG_OK, 0.5,
     0.125, 1e-7, "llvmpipe,67,45,83,2x4,4x1,32,1,330,glsl,blend,f16,rt,-,texture,-,1,plain,3,ok,0.5,0.125,1e-07"},
    {"llvmpipe", 9, 9, 9, "nv-multi", 2, GG_OK, 1.0 / 3.0, 2.0 / 3.0, 1.0 / 7.0, NULL},
    {"nvidia-h200", 4096, 4096, 4096, "mc=4x1,np=512,profile=430,out=image,blk=16x8", 8, GG_OK,
     0.147, 933.5, 9.1e-8,
     "nvidia-h200,4096,4096,4096,1x1,4x1,512,0,430,glsl,pingpong,f32,image,16x8,texture,-,1,plain,8,ok,0.147,"
     "933.5,9.1e-08"},
    {"llvmpipe", 37, 53, 71, "mc=1x4,profile=310es,out=image,blk=4x8,fetch=texelfetch", 3, GG_OK,
     0.001, 1.5, 1e-7,
     "llvmpipe,37,53,71,1x1,1x4,all,0,310es,glsl,pingpong,f32,image,4x8,texelfetch,-,1,plain,3,ok,0.001,1.5,"
     "1e-07"},
    {"llvmpipe", 37, 53, 71, "mrt=2x1,mc=1x4,profile=430,fetch=buffer", 1, GG_OK, 0.001, 1.5, 1e-7,
     "llvmpipe,37,53,71,2x1,1x4,all,0,430,glsl,pingpong,f32,rt,-,buffer,-,1,plain,1,ok,0.001,1.5,1e-07"},
    {"llvmpipe", 64, 64, 64, "mc=1x4,out=image,blk=12x8,fetch=texelfetch,tile=64x32z,ku=4", 1, GG_OK,
     0.001, 1.5, 1e-7,
     "llvmpipe,64,64,64,1x1,1x4,all,0,430,glsl,pingpong,f32,image,12x8,texelfetch,64x32z,4,plain,1,"
     "ok,0.001,1.5,1e-07"},
    {"llvmpipe", 64, 64, 64, "mrt=2x2,mc=2x2,np=8,tile=128x8c,ku=2", 2, GG_OK, 0.001, 1.5, 1e-7,
     "llvmpipe,64,64,64,2x2,2x2,8,0,330,glsl,pingpong,f32,rt,-,texture,128x8c,2,plain,2,ok,0.001,"
     "1.5,1e-07"},
};

START_TEST(csv_round_trip)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = rows[_i].m;
    p.n = rows[_i].n;
    p.k = rows[_i].k;
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(rows[_i].variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    gg_measurement m;
    base_measurement_init(&m);
    m.status = rows[_i].status;
    m.passes = rows[_i].passes;
    m.seconds = rows[_i].seconds;
    m.gflops = rows[_i].gflops;
    m.rel_err = rows[_i].rel_err;
    m.compile_s = 3; /* not a column: not written */
    char row[GG_CSV_ROW_MAX];
    ck_assert_int_eq(store_csv_format(row, sizeof row, rows[_i].card, &p, &v, &m), 0);
    if (rows[_i].row)
        ck_assert_str_eq(row, rows[_i].row);
    ck_assert_ptr_null(strchr(row, '\n'));

    char card[GG_CARD_MAX];
    gg_problem q;
    base_problem_default(&q);
    q.reps = 77;
    gg_variant w;
    gg_measurement n;
    ck_assert_msg(store_csv_parse(row, card, sizeof card, &q, &w, &n, err, sizeof err) == 0, "%s: %s",
                  row, err);
    ck_assert_str_eq(card, rows[_i].card);
    ck_assert_int_eq(q.m, p.m);
    ck_assert_int_eq(q.n, p.n);
    ck_assert_int_eq(q.k, p.k);
    ck_assert_int_eq(q.reps, 77); /* untouched */
    char a[GG_VARIANT_TEXT], b[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&w, a, sizeof a), gen_variant_format(&v, b, sizeof b));
    ck_assert_int_eq(n.status, m.status);
    ck_assert_int_eq(n.passes, m.passes);
    ck_assert(n.seconds == m.seconds); /* exact: the text round-trips */
    ck_assert(n.gflops == m.gflops);
    ck_assert(n.rel_err == m.rel_err);
    ck_assert_double_eq(n.compile_s, 0);
    /* With a newline, as read from a file. */
    char line[GG_CSV_ROW_MAX + 2];
    snprintf(line, sizeof line, "%s\n", row);
    ck_assert_int_eq(store_csv_parse(line, card, sizeof card, &q, &w, &n, err, sizeof err), 0);
    ck_assert(n.seconds == m.seconds);
    /* Formatting what was parsed gives the same text. */
    char again[GG_CSV_ROW_MAX];
    ck_assert_int_eq(store_csv_format(again, sizeof again, card, &q, &w, &n), 0);
    ck_assert_str_eq(again, row);
}
END_TEST

START_TEST(csv_format_rejects)
{
    gg_problem p;
    base_problem_default(&p);
    gg_variant v;
    gen_variant_default(&v);
    gg_measurement m;
    base_measurement_init(&m);
    char row[GG_CSV_ROW_MAX];
    ck_assert_int_eq(store_csv_format(row, sizeof row, "llvmpipe", &p, &v, &m), 0);
    ck_assert_str_eq(row, "llvmpipe,1024,1024,1024,1x1,1x1,all,0,330,glsl,pingpong,f32,rt,-,texture,"
                          "-,1,plain,0,ok,0,0,");
    /* No variant: the CPU BLAS row of bench. */
    ck_assert_int_eq(store_csv_format(row, sizeof row, "llvmpipe", &p, NULL, &m), 0);
    ck_assert_str_eq(row, "llvmpipe,1024,1024,1024,,,,,,,,,,,,,,,0,ok,0,0,");
    const char *bad_cards[] = {"", "LLVMpipe", "a b", "a,b", "x_y",
                               "0123456789012345678901234567890123456789012345678901234567890123"};
    for (size_t i = 0; i < sizeof bad_cards / sizeof *bad_cards; i++) {
        ck_assert_int_eq(store_csv_format(row, sizeof row, bad_cards[i], &p, &v, &m), -1);
        ck_assert_str_eq(row, "");
    }
    m.seconds = NAN;
    ck_assert_int_eq(store_csv_format(row, sizeof row, "llvmpipe", &p, &v, &m), -1);
    m.seconds = -1;
    ck_assert_int_eq(store_csv_format(row, sizeof row, "llvmpipe", &p, &v, &m), -1);
    m.seconds = 1;
    m.gflops = INFINITY;
    ck_assert_int_eq(store_csv_format(row, sizeof row, "llvmpipe", &p, &v, &m), -1);
    m.gflops = 1;
    ck_assert_int_eq(store_csv_format(row, 20, "llvmpipe", &p, &v, &m), -1); /* too small */
    ck_assert_str_eq(row, "");
}
END_TEST

/* GOOD: a row from before the store column (16 columns, still read, as
 * store=f32); most rejects below are of that form.  GOOD17: today's. */
#define GOOD "llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07"
#define GOOD17 "llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,f16,1,ok,0.25,0.00364,1.5e-07"

static const struct {
    const char *row, *expect;
} bad_rows[] = {
    {"", "1 columns"},
    {"\n", "1 columns"},
    {GG_CSV_HEADER, "header"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364", "15 columns"},
    {GOOD17 ",", "18 columns"},
    {GOOD17 ",x", "18 columns"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,image,-,texture,1,ok,0.25,0.00364,1.5e-07",
     "must be RxC with out=image"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,rt,8x8,texture,1,ok,0.25,0.00364,1.5e-07",
     "must be - with out=rt"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,img,8x8,texture,1,ok,0.25,0.00364,1.5e-07",
     "column out"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,image,8x6,texture,1,ok,0.25,0.00364,1.5e-07",
     "not whole texels"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,430,glsl,pingpong,f32,image,8x8,texture,1,ok,0.25,0.00364,1.5e-07",
     "mrt"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,rt,-,ssbo+ssbo,1,ok,0.25,0.00364,1.5e-07",
     "fetch"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,430,glsl,pingpong,f32,rt,-,,1,ok,0.25,0.00364,1.5e-07",
     "fetch"},
    {GOOD ",", "store"}, /* 17 columns: the passes column read as store */
    {"llvmpipe,7,13,5,1x1,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,-,3,plain,1,ok,0.25,0.00364,1e-07",
     "ku"},
    {"llvmpipe,7,13,5,1x1,1x4,16,1,330,glsl,pingpong,f32,rt,-,texture,-,2,plain,1,ok,0.25,0.00364,1e-07",
     "unroll=0"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,-,1,zig,1,ok,0.25,0.00364,1e-07",
     "order"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,4x4,1,plain,1,ok,0.25,0.00364,1e-07",
     "at least 64"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,,1,plain,1,ok,0.25,0.00364,1e-07",
     "column tile"},
    {"llvmpipe,7,13,5,1x1,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,64x64q,1,plain,1,ok,0.25,0.00364,1e-07",
     "tile"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,f63,1,ok,0.25,0.00364,1.5e-07", "store"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,,1,ok,0.25,0.00364,1.5e-07", "column store"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,F16,1,ok,0.25,0.00364,1.5e-07", "store"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07\nx", "line break"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07\r", "line break"},
    {"LLVM,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column card"},
    {",7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column card"},
    {"\"llvmpipe\",7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column card"},
    {"llvmpipe,0,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column m"},
    {"llvmpipe,-7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column m"},
    {"llvmpipe,7, 13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column n"},
    {"llvmpipe,7,013,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column n"},
    {"llvmpipe,7,13,5.0,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column k"},
    {"llvmpipe,7,13,2147483648,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07",
     "column k"},
    {"llvmpipe,7,13,5,,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column mrt"},
    {"llvmpipe,7,13,5,2x2,1x4=,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "column mc"},
    {"llvmpipe,7,13,5,2x2,3x3,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "mc"},
    {"llvmpipe,7,13,5,2x2,1x4,0,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "np"},
    {"llvmpipe,7,13,5,2x2,1x4,016,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "np"},
    {"llvmpipe,7,13,5,2x2,1x4,ALL,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "np"},
    {"llvmpipe,7,13,5,2x2,1x4,16,2,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "unroll"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,400,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "profile"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,hlsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "compiler"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,add,1,ok,0.25,0.00364,1.5e-07", "acc"},
    {"llvmpipe,7,13,5,02x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,1.5e-07", "mrt"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,-1,ok,0.25,0.00364,1.5e-07", "column passes"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,fast,0.25,0.00364,1.5e-07",
     "unknown status 'fast'"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,OK,0.25,0.00364,1.5e-07", "status"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,-0.25,0.00364,1.5e-07", "column seconds"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,,0.00364,1.5e-07", "column seconds"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,nan,0.00364,1.5e-07", "column seconds"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0x10,0.00364,1.5e-07", "column seconds"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,1e999,0.00364,1.5e-07", "column seconds"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,inf,1.5e-07", "column gflops"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,1e,1.5e-07", "column gflops"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,-1", "column rel_err"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364,nan", "column rel_err"},
    {"llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,1,ok,0.25,0.00364, 1", "column rel_err"},
};

START_TEST(csv_rejects)
{
    char card[GG_CARD_MAX], err[256] = "";
    gg_problem p;
    gg_variant v;
    gg_measurement m;
    ck_assert_msg(store_csv_parse(bad_rows[_i].row, card, sizeof card, &p, &v, &m, err,
                               sizeof err) == -1,
                  "accepted '%s'", bad_rows[_i].row);
    ck_assert_msg(strstr(err, bad_rows[_i].expect) != NULL, "'%s': message '%s' lacks '%s'",
                  bad_rows[_i].row, err, bad_rows[_i].expect);
    ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(csv_rejects_long_rows)
{
    char line[2000];
    memset(line, 'a', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    char card[GG_CARD_MAX], err[256];
    gg_problem p;
    gg_variant v;
    gg_measurement m;
    ck_assert_int_eq(store_csv_parse(line, card, sizeof card, &p, &v, &m, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "too long"));
    /* A card longer than the caller's buffer. */
    ck_assert_int_eq(store_csv_parse(GOOD, card, 4, &p, &v, &m, err, sizeof err), -1);
    ck_assert_int_eq(store_csv_parse(GOOD, card, sizeof card, &p, &v, &m, err, sizeof err), 0);
}
END_TEST

/* A row without the store column reads as store=f32 and formats back with
 * it; a row with it reads its store. */
START_TEST(csv_old_rows_read_as_f32)
{
    char card[GG_CARD_MAX], err[256], row[GG_CSV_ROW_MAX], a[GG_VARIANT_TEXT];
    gg_problem p;
    base_problem_default(&p);
    gg_variant v;
    gg_measurement m;
    ck_assert_msg(store_csv_parse(GOOD, card, sizeof card, &p, &v, &m, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(v.store, GG_STORE_F32);
    ck_assert_int_eq(m.passes, 1);
    ck_assert(m.rel_err == 1.5e-07);
    ck_assert_str_eq(gen_variant_format(&v, a, sizeof a),
                     "mrt=2x2,mc=1x4,np=16,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32");
    ck_assert_int_eq(store_csv_format(row, sizeof row, card, &p, &v, &m), 0);
    ck_assert_str_eq(row, "llvmpipe,7,13,5,2x2,1x4,16,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,"
                          "1,ok,0.25,0.00364,1.5e-07");
    ck_assert_int_eq(store_csv_parse(GOOD17, card, sizeof card, &p, &v, &m, err, sizeof err), 0);
    ck_assert_int_eq(v.store, GG_STORE_F16);
    ck_assert_int_eq(m.passes, 1);
}
END_TEST

Suite *make_csv_suite(void)
{
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, csv_header);
    tcase_add_loop_test(tc, csv_round_trip, 0, (int)(sizeof rows / sizeof *rows));
    tcase_add_test(tc, csv_format_rejects);
    tcase_add_loop_test(tc, csv_rejects, 0, (int)(sizeof bad_rows / sizeof *bad_rows));
    tcase_add_test(tc, csv_rejects_long_rows);
    tcase_add_test(tc, csv_old_rows_read_as_f32);
    suite_add_tcase(s, tc);
    return s;
}
