/* store=f16: the host's float -> half conversion (gen/half.h) on its edge
 * cases, and GEMMs with A and B in half textures on a real context, judged
 * against the reference of the half-rounded inputs (base/reference.h) by
 * SPEC's unchanged rule.  One case proves the rounding really happened: its
 * result matches the rounded reference within the bound and misses the
 * unrounded one by far more, so a host that uploaded fp32 fails it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/half.h"
#include "base/inputs.h"
#include "base/reference.h"
#include "glhost/run.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

/* ---- conversion ---- */

static const struct {
    float in;
    uint16_t half;
    const char *what;
} conv[] = {
    {0.0f, 0x0000, "zero"},
    {-0.0f, 0x8000, "negative zero keeps its sign"},
    {1.0f, 0x3c00, "one"},
    {-2.0f, 0xc000, "minus two"},
    {1.0f + 0x1p-10f, 0x3c01, "1 + 2^-10: the next half after 1"},
    {1.0f + 0x1p-11f, 0x3c00, "1 + 2^-11: a tie, to even (1)"},
    {1.0f + 3 * 0x1p-11f, 0x3c02, "1 + 3*2^-11: a tie, to even (1 + 2^-9)"},
    {1.0f + 0x1p-11f + 0x1p-23f, 0x3c01, "just above the tie: up"},
    {1.0f + 0x1p-11f - 0x1p-23f, 0x3c00, "just below the tie: down"},
    {1.0f + 0x1p-12f, 0x3c00, "1 + 2^-12: down"},
    {65504.0f, 0x7bff, "65504: the largest half"},
    {65519.0f, 0x7bff, "65519: below the tie, stays finite"},
    {65520.0f, 0x7c00, "65520: the tie rounds to even, past the largest: inf"},
    {-65520.0f, 0xfc00, "-65520: -inf"},
    {1e10f, 0x7c00, "far beyond: inf"},
    {0x1p-14f, 0x0400, "2^-14: the smallest normal"},
    {0x1p-14f - 0x1p-24f, 0x03ff, "the largest subnormal"},
    {0x1p-24f, 0x0001, "2^-24: the smallest subnormal"},
    {-0x1p-24f, 0x8001, "-2^-24"},
    {0x1p-25f, 0x0000, "2^-25: a tie between 0 and 2^-24, to even (0)"},
    {-0x1p-25f, 0x8000, "-2^-25: to -0"},
    {0x1p-25f + 0x1p-40f, 0x0001, "just above 2^-25: up to 2^-24"},
    {3 * 0x1p-25f, 0x0002, "1.5 * 2^-24: a tie, to even (2 * 2^-24)"},
    {5 * 0x1p-25f, 0x0002, "2.5 * 2^-24: a tie, to even (2 * 2^-24)"},
    {0x1p-26f, 0x0000, "2^-26: zero"},
    {0x1p-14f - 0x1p-25f, 0x0400, "a tie at the top of the subnormals: up to the smallest normal"},
    {0x1p-149f, 0x0000, "a float subnormal: zero"},
    {INFINITY, 0x7c00, "inf"},
    {-INFINITY, 0xfc00, "-inf"},
    {0.333333343f, 0x3555, "1/3"},
};

START_TEST(half_conversion)
{
    uint16_t h = gen_float_to_half(conv[_i].in);
    ck_assert_msg(h == conv[_i].half, "%s: %a -> 0x%04x, want 0x%04x", conv[_i].what,
                  (double)conv[_i].in, h, conv[_i].half);
    /* Back: exact, and rounding twice changes nothing. */
    float back = gen_half_to_float(h);
    ck_assert_int_eq(gen_float_to_half(back), h);
    ck_assert(gen_half_round(back) == back || isnan(back));
    ck_assert_int_eq(signbit(back) != 0, (h & 0x8000) != 0);
}
END_TEST

START_TEST(half_nan_and_all_halves)
{
    uint16_t h = gen_float_to_half(NAN);
    ck_assert_msg((h & 0x7c00) == 0x7c00 && (h & 0x3ff), "NaN -> 0x%04x", h);
    ck_assert(isnan(gen_half_to_float(h)));
    ck_assert(isnan(gen_half_round(-NAN)));
    /* A signalling-looking NaN whose payload sits only in the low bits. */
    uint32_t bits = 0x7f800001u;
    float snan;
    memcpy(&snan, &bits, sizeof snan);
    ck_assert(isnan(gen_half_round(snan)));
    /* Every half goes to a float and back unchanged, and every float
     * between two neighbouring finite halves rounds to the nearer one. */
    for (uint32_t u = 0; u < 0x10000; u++) {
        float f = gen_half_to_float((uint16_t)u);
        if (isnan(f))
            continue;
        ck_assert_int_eq(gen_float_to_half(f), u);
        if ((u & 0x7fff) >= 0x7bff) /* the largest finite, inf: no next */
            continue;
        float g = gen_half_to_float((uint16_t)(u + 1)); /* the next away from zero */
        float lo = f + (g - f) * 0.25f, hi = f + (g - f) * 0.75f;
        ck_assert_int_eq(gen_float_to_half(lo), u);
        ck_assert_int_eq(gen_float_to_half(hi), u + 1);
    }
}
END_TEST

/* ---- GEMMs with half storage ---- */

/* Every channel count (1, 2, 3, 4), every acc, every profile, odd shapes,
 * transposes, alpha and beta; one with a forced split. */
static const gemm_case cases[] = {
    {"mrt=1x1,mc=1x1,np=all,acc=pingpong,store=f16", 7, 13, 5, 0, 0, 1.0f, 0.0f},
    {"mrt=2x2,mc=1x2,np=2,profile=120,acc=copy,store=f16", 67, 45, 83, 1, 0, 2.0f, 0.5f},
    {"mrt=1x2,mc=1x3,np=3,unroll=1,profile=300es,acc=blend,store=f16", 7, 13, 5, 0, 1, -0.5f, 1.0f},
    {"mrt=2x4,mc=4x1,np=32,unroll=1,acc=blend,store=f16", 67, 45, 83, 1, 1, 1.0f, 0.0f},
    {"mrt=1x1,mc=2x2,np=1,profile=300es,acc=pingpong,store=f16", 67, 45, 83, 0, 0, 2.0f, 0.5f},
    {"mrt=3x1,mc=3x1,np=all,profile=120,acc=blend,store=f16", 29, 31, 37, 1, 0, 1.0f, 1.0f},
    {"mrt=1x4,mc=1x4,np=2,unroll=1,acc=copy,store=f16", 7, 13, 5, 1, 1, -0.5f, 1.0f},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* The gemm suite's case (tests/gemm_util.h), with 1 rep. */
static void setup(gemm_run *r, const gemm_case *gc, unsigned seed)
{
    setup_case(r, gc, seed);
    r->p.reps = 1;
    ck_assert_int_eq(r->v.store, GG_STORE_F16);
}

START_TEST(f16_gemm)
{
    const gemm_case *fc = &cases[_i];
    gemm_run r;
    setup(&r, fc, 500u + (unsigned)_i);
    ck_assert_int_eq(r.ref.store, GG_STORE_F16);
    evaluate(&r, NULL);
    ck_assert_msg(r.m.status == GG_OK, "%s: %s: %s", fc->variant, base_status_name(r.m.status),
                  r.m.detail);
    ck_assert_msg(r.m.rel_err >= 0 && r.m.rel_err <= base_verify_bound(fc->k), "%s: rel_err %g",
                  fc->variant, r.m.rel_err);
    check_against_naive(&r, fc->variant);
    free_case(&r);
}
END_TEST

/* A forced split (several A and B blocks, each converted) and an fp32
 * reference handed in by mistake: the host judges with the rounded one. */
START_TEST(f16_split_and_mismatched_ref)
{
    gemm_case fc = {"mrt=1x2,mc=2x2,np=2,acc=pingpong,store=f16", 40, 37, 50, 1, 0, 2.0f, 0.5f};
    gemm_run r;
    setup(&r, &fc, 77u);
    char err[256];
    base_reference_free(&r.ref); /* the fp32 one instead */
    ck_assert_int_eq(base_reference_compute(&r.in, fc.alpha, fc.beta, &r.ref, err, sizeof err), 0);
    ck_assert_int_eq(r.ref.store, GG_STORE_F32);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = 16;
    evaluate(&r, &o);
    ck_assert_msg(r.m.status == GG_OK, "%s: %s", base_status_name(r.m.status), r.m.detail);
    ck_assert(r.m.rel_err <= base_verify_bound(fc.k));
    ck_assert_int_gt(r.m.passes, 1);
    check_against_naive(&r, fc.variant);
    free_case(&r);
}
END_TEST

/* Values a half cannot hold (1 + 2^-12 and its like round to 1 or to
 * 1 + 2^-10): the fp32 and the rounded references differ by some 2^-12
 * relative, thousands of times the bound.  The result must be within the
 * bound of the rounded one and beyond it from the unrounded one; both
 * checks by base_verify, and store=f32 on the same inputs the other way
 * round (so the test tells the two stores apart); store=f16x8 as f16. */
START_TEST(f16_rounding_is_real)
{
    const int m = 7, n = 13, k = 5;
    gg_inputs in = {m, n, k, false, false, malloc((size_t)m * k * sizeof(float)),
                    malloc((size_t)k * n * sizeof(float)), NULL, k, n, NULL, NULL, NULL, false, 0};
    ck_assert(in.a && in.b);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++)
            in.a[i * k + p] = (1.0f + (float)(1 + (i + p) % 3) * 0x1p-12f) * ((i + p) % 2 ? -1 : 1);
    for (int p = 0; p < k; p++)
        for (int j = 0; j < n; j++)
            in.b[p * n + j] = 0.5f + (float)((p * n + j) % 5) * 0x1p-13f;
    char err[256];
    gg_reference r16, r32;
    ck_assert_int_eq(base_reference_compute_store(&in, 1.0f, 0.0f, GG_STORE_F16, &r16, err, sizeof err), 0);
    ck_assert_int_eq(base_reference_compute(&in, 1.0f, 0.0f, &r32, err, sizeof err), 0);
    gg_problem p;
    base_problem_default(&p);
    p.m = m;
    p.n = n;
    p.k = k;
    p.reps = 1;
    float *c = malloc((size_t)m * n * sizeof *c);
    /* store=f16x8 holds the same halves as f16: its result is judged the
     * same way. */
    const char *texts[3] = {"mrt=1x2,mc=1x4,np=2,store=f16", "mrt=1x2,mc=1x4,np=2,store=f32",
                            "mrt=1x2,mc=1x4,np=2,store=f16x8"};
    for (int s = 0; s < 3; s++) {
        gg_variant v;
        ck_assert_int_eq(gen_variant_parse(texts[s], NULL, &v, err, sizeof err), 0);
        gg_measurement meas;
        bool half = s != 1;
        ck_assert_int_eq(run_once(GG_BACKEND_EGL, &v, &p, &in, half ? &r16 : &r32, NULL, &meas,
                                  c, err, sizeof err), 0);
        ck_assert_msg(meas.status == GG_OK, "%s: %s: %s", texts[s], base_status_name(meas.status),
                      meas.detail);
        gg_verdict own, other;
        base_verify(half ? &r16 : &r32, c, &own);
        base_verify(half ? &r32 : &r16, c, &other);
        ck_assert_msg(own.pass && own.rel_err <= own.bound, "%s: %s", texts[s], own.detail);
        ck_assert_msg(!other.pass && other.rel_err > 100 * other.bound,
                      "%s: the other store's reference is within %g (bound %g): the inputs "
                      "were not stored as the variant says", texts[s], other.rel_err, other.bound);
    }
    free(c);
    base_reference_free(&r16);
    base_reference_free(&r32);
    base_inputs_free(&in);
}
END_TEST

/* `glgemm run` with store=f16: the canonical line says store=f16, the run
 * passes its (rounded) check; the CSV row carries the store column. */
START_TEST(f16_cli_run)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(".", NULL, "run mrt=2x2,mc=2x2,np=3,store=f16 --m 19 --n 23 --k 37 --reps 1",
                    &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, "mrt=2x2,mc=2x2,np=3,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                              "store=f16 19x23x37: ok,") != NULL, "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run mrt=2x2,mc=2x2,np=3,store=f16 --m 19 --n 23 --k 37 --reps 1 --csv",
                &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, ",2x2,2x2,3,0,330,glsl,pingpong,f16,") != NULL, "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run store=f8 --size 8", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "store: 'f8' is not allowed; use f32, f16, f16x8, f64, dd or df") != NULL, "%s", err);
    free(out);
    free(err);
}
END_TEST

Suite *make_half_suite(void)
{
    Suite *s = suite_create("half");
    TCase *tc = tcase_create("convert");
    tcase_add_loop_test(tc, half_conversion, 0, (int)(sizeof conv / sizeof *conv));
    tcase_add_test(tc, half_nan_and_all_halves);
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("f16-gemm");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, f16_gemm, 0, NCASES);
    tcase_add_test(gl, f16_split_and_mismatched_ref);
    tcase_add_test(gl, f16_rounding_is_real);
    tcase_add_test(gl, f16_cli_run);
    suite_add_tcase(s, gl);
    return s;
}
