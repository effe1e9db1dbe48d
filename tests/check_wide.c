/* The wide stores, store=f64, dd and df (gen/wide.h, base/wide.h): their
 * variants and verdicts, their words (each value back as it went in), and
 * GEMMs on llvmpipe against the reference carried past double: odd
 * shapes, transposes, alpha and beta, several passes, every packing and
 * fetch they take, values that need all 53 bits, and the CLI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wide.h"
#include "gen/gen.h"
#include "gen/wide.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

static gg_variant parsed(const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s: %s", text, err);
    return v;
}

/* ---- variants ---- */

START_TEST(wide_parse_format)
{
    static const char *const names[] = {"f64", "dd", "df"};
    static const gg_store st[] = {GG_STORE_F64, GG_STORE_DD, GG_STORE_DF};
    for (int i = 0; i < 3; i++) {
        char text[64], buf[GG_VARIANT_TEXT], want[GG_VARIANT_TEXT];
        snprintf(text, sizeof text, "store=%s", names[i]);
        gg_variant v = parsed(text);
        ck_assert_int_eq(v.store, st[i]);
        ck_assert(gen_store_wide(v.store));
        ck_assert_str_eq(gen_store_name(st[i]), names[i]);
        snprintf(want, sizeof want, "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,"
                 "acc=pingpong,store=%s", names[i]);
        ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf), want);
    }
    ck_assert(!gen_store_wide(GG_STORE_F32) && !gen_store_wide(GG_STORE_F16X8));
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("store=f128", NULL, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "store: 'f128' is not allowed; use f32, f16, f16x8, f64, dd or df");
}
END_TEST

/* fuzz: mc's values past a texel's 4 words (store=f64,mc=2x2: 8) made the
 * emitter read words past "xyzw"; the text now says why in an #error after
 * its header, and names no word past w. */
START_TEST(wide_emit_unfit_mc)
{
    static const char *const bad[] = {"store=f64,out=image,mc=2x2,blk=8x30,tile=102x128",
                                      "store=df,mc=4x1", "store=dd,mc=1x2,profile=430"};
    for (int i = 0; i < 3; i++) {
        gg_variant v = parsed(bad[i]);
        char *frag = gen_emit_fragment(&v, 13, 7, 19);
        ck_assert_msg(frag != NULL, "%s", bad[i]);
        ck_assert_msg(!strncmp(frag, "#version ", 9), "%s: %.20s", bad[i], frag);
        ck_assert_msg(strstr(frag, "\n#error mc=") != NULL, "%s:\n%s", bad[i], frag);
        ck_assert_msg(strstr(frag, "main") == NULL, "%s:\n%s", bad[i], frag);
        free(frag);
    }
}
END_TEST

static const struct {
    const char *variant;
    bool es, fp64;
    int gl_version;
    gg_card_verdict verdict;
    const char *why; /* its start */
} cards[] = {
    {"store=f64", false, true, 45, GG_CARD_OK, ""},
    {"store=f64,profile=430,mc=1x2", false, true, 45, GG_CARD_OK, ""},
    {"store=f64", false, false, 33, GG_CARD_UNSUPPORTED, "store=f64 needs double arithmetic in GLSL"},
    {"store=dd", false, false, 33, GG_CARD_UNSUPPORTED, "store=dd needs double arithmetic in GLSL"},
    {"store=df", false, false, 33, GG_CARD_OK, ""},
    {"store=df,profile=300es,mc=2x1", true, false, 32, GG_CARD_OK, ""},
    {"store=f64,profile=300es", true, false, 32, GG_CARD_INVALID,
     "store=f64 needs double arithmetic, which GLSL ES 3.00 lacks"},
    {"store=dd,mc=1x2", false, true, 45, GG_CARD_INVALID, "store=dd holds 4 words a value"},
    {"store=f64,mc=2x2", false, true, 45, GG_CARD_INVALID, "store=f64 holds 2 words a value"},
    {"store=df,acc=blend", false, true, 45, GG_CARD_INVALID, "store=df accumulates with acc=pingpong"},
    {"store=f64,out=image,blk=4x4,profile=430,mc=1x2", false, true, 45, GG_CARD_OK, ""},
    {"store=df,out=image,blk=4x4,profile=310es,mc=2x1", true, false, 32, GG_CARD_OK, ""},
    {"store=df,out=image,blk=4x4,profile=310es", true, false, 32, GG_CARD_INVALID,
     "store=df,out=image in profile 310es: mc=1x1's texels are two words (rg32ui)"},
    {"store=f64,out=image,blk=16x8,profile=430,mc=1x2", false, true, 45, GG_CARD_OK, ""},
    {"store=f64,out=image,blk=16x16,profile=430,mc=1x2", false, true, 45, GG_CARD_INVALID,
     "store=f64: blk=16x16 holds 512 words a fragment; at most 256"},
    {"store=dd,out=image,blk=16x8,profile=430", false, true, 45, GG_CARD_INVALID,
     "store=dd: blk=16x8 holds 512 words"},
    {"store=f64,out=image,blk=4x4,profile=430,order=frag", false, true, 45, GG_CARD_INVALID,
     "store=f64: ku and order keep their defaults"},
    {"store=f64,fetch=image,profile=430", false, true, 45, GG_CARD_INVALID,
     "store=f64 reads A and B with fetch=texture, texelfetch, ssbo, texelfetch+ssbo or "
     "ssbo+texelfetch only"},
    {"store=f64,fetch=texelfetch+ssbo,profile=430,out=image,blk=8x8,mc=2x1", false, true, 45,
     GG_CARD_OK, ""},
    {"store=df,profile=120", false, true, 45, GG_CARD_INVALID, "store=df needs unsigned integer"},
};

START_TEST(wide_card_verdicts)
{
    gg_variant v = parsed(cards[_i].variant);
    gg_card_limits lim = {.max_draw_buffers = 8, .max_texture_size = 16384, .float_blend = true,
                          .es = cards[_i].es, .gl_version = cards[_i].gl_version,
                          .max_fragment_images = 8, .max_fragment_ssbos = 8,
                          .fp64 = cards[_i].fp64};
    char why[256];
    ck_assert_int_eq(gen_variant_check_card(&v, &lim, why, sizeof why), cards[_i].verdict);
    ck_assert_msg(strncmp(why, cards[_i].why, strlen(cards[_i].why)) == 0, "%s: %s",
                  cards[_i].variant, why);
}
END_TEST

/* ---- words ---- */

START_TEST(wide_words_round_trip)
{
    double x = 1.0 + 0x1.5555555555555p-1; /* 53 significant bits */
    uint32_t w[4];
    double hi, lo;
    gen_wide_value(GG_STORE_F64, x, 0.0, w);
    gen_wide_read(GG_STORE_F64, w, &hi, &lo);
    ck_assert(hi == x && lo == 0.0);
    gen_wide_value(GG_STORE_DD, x, 0x1p-60, w);
    gen_wide_read(GG_STORE_DD, w, &hi, &lo);
    ck_assert(hi == x && lo == 0x1p-60);
    gen_wide_value(GG_STORE_DF, x, 0.0, w);
    gen_wide_read(GG_STORE_DF, w, &hi, &lo);
    ck_assert(hi == (double)(float)x);                    /* hi: x rounded to fp32 */
    ck_assert(fabs(hi + lo - x) <= ldexp(fabs(x), -48));  /* 48 bits and more */
    ck_assert(hi + lo != x);                              /* but not 53 */
    ck_assert_int_eq(gen_wide_words(GG_STORE_DD), 4);
    ck_assert_int_eq(gen_wide_words(GG_STORE_DF), 2);
}
END_TEST

/* ---- GEMMs on llvmpipe ---- */

static const struct {
    gemm_case gc;
    double under; /* the measured error must also be under this (log2) */
} gemms[] = {
    {{"store=f64", 37, 53, 71, 0, 0, 1.0f, 0.0f}, -50},
    {{"store=f64,np=5", 37, 53, 71, 1, 0, 1.5f, 0.5f}, -50},
    {{"store=f64,mrt=2x2,mc=1x2,np=7", 37, 53, 71, 0, 1, -1.0f, 2.0f}, -50},
    {{"store=f64,mc=2x1,np=3,unroll=1,fetch=texelfetch,profile=430", 37, 53, 71, 1, 1, 1.0f, 0.0f}, -50},
    {{"store=df,profile=430", 37, 53, 71, 0, 0, 1.0f, 0.0f}, -44},
    {{"store=df,profile=430,mrt=1x2,mc=1x2,np=9", 37, 53, 71, 1, 0, 1.5f, 0.5f}, -44},
    {{"store=df,profile=430,mc=2x1,np=4,fetch=texelfetch", 37, 53, 71, 0, 1, 1.0f, 1.0f}, -44},
    {{"store=df", 37, 53, 71, 1, 0, 1.0f, 0.5f}, -44},  /* 330: precise by GL_ARB_gpu_shader5 */
    {{"store=df,profile=310es,np=8", 37, 53, 71, 0, 1, 1.0f, 0.0f}, -44}, /* GL_EXT_gpu_shader5 */
    /* ES 3.00, no `precise`: each intermediate through eft_opq (gen/eft.c);
     * multiplied by an opaque one instead, llvmpipe erred by about 2^-24 */
    {{"store=df,profile=300es,np=9", 37, 53, 71, 1, 0, 1.5f, 0.5f}, -44},
    {{"store=df,profile=300es,mrt=2x2,mc=1x2,np=7,fetch=texelfetch", 37, 53, 71, 0, 1, -1.0f, 2.0f}, -44},
    {{"store=dd,np=10", 37, 53, 71, 0, 0, 1.0f, 0.0f}, -100},
    {{"store=dd,profile=430", 37, 53, 71, 0, 0, 1.0f, 0.0f}, -100},
    {{"store=dd,profile=430,mrt=2x1,np=6", 37, 53, 71, 1, 1, 1.5f, 0.5f}, -100},
    /* out=image blocks (strided texels of one image a set) and tiles */
    {{"store=f64,profile=430,out=image,blk=4x4,mc=1x2,np=5", 37, 53, 71, 1, 0, 1.5f, 0.5f}, -50},
    {{"store=f64,profile=430,out=image,blk=8x8,mc=2x1,fetch=texelfetch,tile=8x8z", 37, 53, 71, 0,
      1, -1.0f, 2.0f}, -50},
    {{"store=f64,profile=430,mrt=2x2,mc=1x2,tile=8x8,np=4", 37, 53, 71, 1, 1, 1.0f, 0.0f}, -50},
    {{"store=df,profile=430,out=image,blk=4x2,mc=1x2,np=3", 37, 53, 71, 1, 1, 1.0f, 1.0f}, -44},
    {{"store=df,profile=310es,out=image,blk=2x4,mc=2x1,np=7", 37, 53, 71, 0, 0, 1.0f, 0.0f}, -44},
    {{"store=dd,profile=430,out=image,blk=2x4,np=6", 37, 53, 71, 1, 0, 1.5f, 0.5f}, -100},
    /* A, B or both from storage buffers (the texture's words, row by row) */
    {{"store=f64,profile=430,out=image,blk=8x8,mc=2x1,fetch=texelfetch+ssbo,np=5", 37, 53, 71, 1,
      1, 1.0f, 0.5f}, -50},
    {{"store=f64,profile=430,mrt=2x2,mc=1x1,fetch=ssbo+texelfetch,np=3", 37, 53, 71, 0, 1, -1.0f,
      0.0f}, -50},
    {{"store=df,profile=310es,out=image,blk=4x4,mc=1x2,fetch=ssbo,np=4", 37, 53, 71, 1, 0, 1.0f,
      1.0f}, -44},
};
#define NGEMMS ((int)(sizeof gemms / sizeof *gemms))

static void run_case(gemm_run *r)
{
    char err[256];
    ck_assert_msg(run_once(GG_BACKEND_EGL, &r->v, &r->p, &r->in, &r->ref, NULL, &r->m, r->c, err,
                           sizeof err) == 0, "%s", err);
}

START_TEST(wide_gemm)
{
    gemm_run r;
    setup_case(&r, &gemms[_i].gc, 40u + (unsigned)_i);
    ck_assert(r.ref.rlo != NULL);
    run_case(&r);
    double bound = base_wide_bound(r.v.store, r.p.k);
    ck_assert_msg(r.m.status == GG_OK, "%s: %s: %s", gemms[_i].gc.variant,
                  base_status_name(r.m.status), r.m.detail);
    ck_assert_msg(r.m.rel_err <= bound && r.m.rel_err < ldexp(1.0, (int)gemms[_i].under),
                  "%s: rel_err %g, bound %g", gemms[_i].gc.variant, r.m.rel_err, bound);
    fprintf(stderr, "wide: %-60s rel_err %.3g = 2^%.1f (bound 2^%.1f)\n", gemms[_i].gc.variant,
            r.m.rel_err, r.m.rel_err > 0 ? log2(r.m.rel_err) : -INFINITY, log2(bound));
    free_case(&r);
}
END_TEST

/* Inputs chosen by hand: op(A) m x k, B all ones, k terms: row i is
 * 1 + (alternating bits), then k - 1 terms of 2^-40.  C's exact values
 * need all 53 bits; f64 must return them exactly, df within its bound
 * and not exactly (it keeps about 48 of them). */
START_TEST(wide_53_bits)
{
    enum { M = 5, N = 3, K = 9 };
    static double a[M * K], b[K * N];
    for (int i = 0; i < M; i++)
        for (int kk = 0; kk < K; kk++)
            a[i * K + kk] = kk ? 0x1p-40 : 1.0 + 0x1.5555555555555p-1 * ldexp(1.0, -i);
    for (int i = 0; i < K * N; i++)
        b[i] = 1.0;
    static const char *const variants[] = {"store=f64", "store=df,profile=430", "store=dd,profile=430"};
    for (int t = 0; t < 3; t++) {
        gemm_case gc = {variants[t], M, N, K, 0, 0, 1.0f, 0.0f};
        gemm_run r;
        setup_case(&r, &gc, 7u);
        r.in.a64 = a;
        r.in.b64 = b;
        base_reference_free(&r.ref);
        char err[256];
        ck_assert_int_eq(base_reference_compute_store(&r.in, 1.0f, 0.0f, r.v.store, &r.ref, err,
                                                      sizeof err), 0);
        for (int i = 0; i < M; i++) { /* the reference is exact here */
            double x = a[i * K] + (K - 1) * 0x1p-40;
            ck_assert(r.ref.r[i * N] + r.ref.rlo[i * N] == x);
        }
        run_case(&r);
        ck_assert_msg(r.m.status == GG_OK, "%s: %s", variants[t], r.m.detail);
        if (r.v.store == GG_STORE_DF)
            ck_assert_msg(r.m.rel_err > 0 && r.m.rel_err <= ldexp(K, -44), "df: %g", r.m.rel_err);
        else
            ck_assert_msg(r.m.rel_err == 0, "%s: %g", variants[t], r.m.rel_err);
        free_case(&r);
    }
}
END_TEST

/* A result moved past the bound is wrong_result: C checked, not trusted. */
START_TEST(wide_wrong_result)
{
    gemm_case gc = {"store=f64", 9, 7, 5, 0, 0, 1.0f, 0.0f};
    gemm_run r;
    setup_case(&r, &gc, 3u);
    r.ref.r[4] += 1e-9; /* a reference off by 1e-9: far past 5 * 2^-52 */
    run_case(&r);
    ck_assert_int_eq(r.m.status, GG_WRONG_RESULT);
    ck_assert_msg(strstr(r.m.detail, "store=f64") != NULL, "%s", r.m.detail);
    free_case(&r);
}
END_TEST

START_TEST(wide_cli)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(".", NULL, "run store=f64,mrt=2x2,mc=1x2,np=3 --m 19 --n 23 --k 37 --reps 1", &out,
                    &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, "acc=pingpong,store=f64 19x23x37: ok,") != NULL, "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run store=f64,profile=300es --size 8", &out, &err);
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(out, "store=f64 8x8x8: invalid: store=f64 needs double arithmetic") != NULL,
                  "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run store=f6 --size 8", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "store: 'f6' is not allowed; use f32, f16, f16x8, f64, dd or df") != NULL,
                  "%s", err);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "gen store=df,profile=300es --size 8", &out, &err);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "#version 300 es\n") == out && strstr(out, "w_add(") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "float s = eft_opq(a + b);") && !strstr(out, "* eft_one"), "%s", out);
    free(out);
    free(err);
}
END_TEST

/* A tune at 24^3 with --fix FIX: every point it recorded ran (no
 * gl_error, no wrong_result), at least min_ok rows holding `rows` are ok,
 * and best-f64's variant holds `best`. */
static void tune_case(const char *fix, const char *rows, int min_ok, const char *best)
{
    char dir[256], args[512], path[400];
    tu_mkdtemp(dir, sizeof dir, "wide-tune");
    snprintf(args, sizeof args, "tune --size 24 --fix %s --max-time 60 --reps 2 --results %s", fix,
             dir);
    char *out = NULL, *err = NULL;
    int rc = tu_run(".", NULL, args, &out, &err);
    ck_assert_msg(rc == 0, "tune exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "store=f64") != NULL, "%s", out);
    free(out);
    free(err);
    snprintf(path, sizeof path, "%s/llvmpipe/tune-24x24x24.csv", dir);
    char *csv = tu_read(path);
    ck_assert_ptr_nonnull(csv);
    int ok = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        if (strstr(line, rows))
            ok += strstr(line, ",ok,") != NULL;
        ck_assert_msg(!strstr(line, ",gl_error,") && !strstr(line, ",wrong_result,"), "%.200s", line + 1);
    }
    ck_assert_msg(ok >= min_ok, "%s: %d rows with %s ok", fix, ok, rows);
    free(csv);
    snprintf(path, sizeof path, "%s/llvmpipe/best-f64-24x24x24.txt", dir);
    char *b = tu_read(path);
    ck_assert_msg(b && strstr(b, best), "%s", b ? b : "no best-f64 file");
    free(b);
    tu_rm_rf(dir);
}

/* A tune with --fix store=f64: the search walks the shapes a texel holds,
 * and every point it measured ran (the evaluator builds the hinted next
 * programs in the same context between a run's build and its draws: a
 * wide run that did not set its own program again drew with one of them,
 * GL_INVALID_OPERATION, for most points). */
START_TEST(wide_tune)
{
    tune_case("store=f64,profile=330", ",f64,", 10, "store=f64");
}
END_TEST

/* The blocks phase walks the wide stores' blocks (their own mc set: the
 * fp32 blocks' mc 1x4, 2x2, 4x1 hold no wide texel), every one verified. */
START_TEST(wide_tune_blocks)
{
    tune_case("store=f64,out=image", ",f64,image,", 6, "store=f64,out=image,blk=");
}
END_TEST

Suite *make_wide_suite(void)
{
    Suite *s = suite_create("wide");
    TCase *tc = tcase_create("gen");
    tcase_set_tags(tc, "pure");
    tcase_add_test(tc, wide_parse_format);
    tcase_add_test(tc, wide_emit_unfit_mc);
    tcase_add_loop_test(tc, wide_card_verdicts, 0, (int)(sizeof cards / sizeof *cards));
    tcase_add_test(tc, wide_words_round_trip);
    suite_add_tcase(s, tc);
    tc = tcase_create("wide-gemm");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, wide_gemm, 0, NGEMMS);
    tcase_add_test(tc, wide_53_bits);
    tcase_add_test(tc, wide_wrong_result);
    tcase_add_test(tc, wide_cli);
    suite_add_tcase(s, tc);
    tc = tcase_create("wide-tune");
    tcase_set_tags(tc, "gl slow");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, wide_tune);
    tcase_add_test(tc, wide_tune_blocks);
    suite_add_tcase(s, tc);
    return s;
}
