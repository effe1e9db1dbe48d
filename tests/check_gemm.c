/* glhost/run and `glgemm run`: GEMMs on a real context (llvmpipe is enough)
 * against the double reference, every packing, MRT shape, np, unroll, acc and
 * profile; texture-limit splits; NaN/Inf; statuses of variants the card
 * cannot run; the CLI's output, CSV row, --out and exit codes.
 *
 * Check forks each case, and every case makes its context in the child.
 * The numerical grid is pairwise: every pair of values of any two of mc,
 * mrt, np, unroll, acc, profile, shape, transposes and alpha/beta appears in
 * some row (80 rows, made by a greedy all-pairs generator). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/csv.h"
#include "base/inputs.h"
#include "base/npy.h"
#include "gen/pack.h"
#include "base/reference.h"
#include "glhost/run.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"


static const gemm_case pairwise[] = {
    {"mrt=2x1,mc=1x1,np=1,unroll=0,profile=300es,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=1x2,np=3,unroll=1,profile=330,acc=copy", 67, 45, 83, 0, 0, 2.00f, 0.50f},
    {"mrt=1x2,mc=1x3,np=2,unroll=0,profile=120,acc=blend", 7, 13, 5, 1, 0, 2.00f, 0.50f},
    {"mrt=2x2,mc=2x1,np=all,unroll=1,profile=120,acc=pingpong", 129, 3, 17, 0, 1, -0.50f, 1.00f},
    {"mrt=3x1,mc=2x2,np=3,unroll=0,profile=300es,acc=copy", 3, 129, 17, 1, 1, -0.50f, 1.00f},
    {"mrt=1x4,mc=3x1,np=1,unroll=1,profile=330,acc=blend", 3, 129, 17, 0, 1, 1.00f, 0.00f},
    {"mrt=2x4,mc=1x4,np=2,unroll=1,profile=330,acc=pingpong", 7, 13, 5, 1, 1, 1.00f, 0.00f},
    {"mrt=4x2,mc=4x1,np=all,unroll=0,profile=330,acc=blend", 1, 1, 1, 1, 0, -0.50f, 1.00f},
    {"mrt=8x1,mc=1x1,np=3,unroll=1,profile=120,acc=copy", 129, 3, 17, 1, 0, 1.00f, 0.00f},
    {"mrt=8x1,mc=1x4,np=all,unroll=0,profile=300es,acc=blend", 67, 45, 83, 0, 1, 2.00f, 0.50f},
    {"mrt=1x8,mc=4x1,np=1,unroll=1,profile=120,acc=pingpong", 67, 45, 83, 1, 1, 2.00f, 0.50f},
    {"mrt=1x8,mc=3x1,np=2,unroll=0,profile=300es,acc=copy", 7, 13, 5, 0, 0, -0.50f, 1.00f},
    {"mrt=2x4,mc=1x2,np=1,unroll=0,profile=300es,acc=blend", 129, 3, 17, 1, 0, -0.50f, 1.00f},
    {"mrt=4x2,mc=1x3,np=3,unroll=1,profile=300es,acc=copy", 1, 1, 1, 0, 1, 1.00f, 0.00f},
    {"mrt=1x2,mc=2x2,np=all,unroll=1,profile=120,acc=pingpong", 3, 129, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=2x1,np=2,unroll=0,profile=300es,acc=blend", 1, 1, 1, 1, 1, 1.00f, 0.00f},
    {"mrt=2x1,mc=2x2,np=2,unroll=1,profile=330,acc=blend", 129, 3, 17, 0, 1, 2.00f, 0.50f},
    {"mrt=3x1,mc=3x1,np=3,unroll=1,profile=120,acc=pingpong", 1, 1, 1, 1, 0, 2.00f, 0.50f},
    {"mrt=2x2,mc=1x1,np=2,unroll=0,profile=330,acc=blend", 3, 129, 17, 1, 0, 2.00f, 0.50f},
    {"mrt=1x4,mc=1x2,np=all,unroll=0,profile=120,acc=pingpong", 7, 13, 5, 1, 1, 1.00f, 0.00f},
    {"mrt=2x2,mc=4x1,np=3,unroll=0,profile=300es,acc=copy", 7, 13, 5, 0, 0, 1.00f, 0.00f},
    {"mrt=2x1,mc=1x4,np=3,unroll=0,profile=120,acc=copy", 67, 45, 83, 1, 0, -0.50f, 1.00f},
    {"mrt=8x1,mc=1x3,np=1,unroll=0,profile=330,acc=pingpong", 7, 13, 5, 0, 0, -0.50f, 1.00f},
    {"mrt=3x1,mc=2x1,np=1,unroll=0,profile=330,acc=copy", 67, 45, 83, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=1x1,np=all,unroll=0,profile=120,acc=pingpong", 7, 13, 5, 0, 1, -0.50f, 1.00f},
    {"mrt=1x8,mc=2x1,np=3,unroll=0,profile=330,acc=blend", 3, 129, 17, 1, 0, 1.00f, 0.00f},
    {"mrt=1x2,mc=3x1,np=all,unroll=0,profile=330,acc=copy", 129, 3, 17, 1, 1, -0.50f, 1.00f},
    {"mrt=4x2,mc=1x4,np=1,unroll=0,profile=120,acc=pingpong", 129, 3, 17, 0, 0, 2.00f, 0.50f},
    {"mrt=1x4,mc=2x2,np=2,unroll=0,profile=300es,acc=copy", 67, 45, 83, 1, 0, 2.00f, 0.50f},
    {"mrt=2x4,mc=1x3,np=all,unroll=0,profile=120,acc=copy", 67, 45, 83, 0, 0, 2.00f, 0.50f},
    {"mrt=3x1,mc=4x1,np=2,unroll=0,profile=330,acc=blend", 129, 3, 17, 0, 1, 1.00f, 0.00f},
    {"mrt=1x2,mc=1x2,np=1,unroll=0,profile=300es,acc=pingpong", 1, 1, 1, 0, 1, 1.00f, 0.00f},
    {"mrt=1x4,mc=1x3,np=3,unroll=0,profile=330,acc=blend", 129, 3, 17, 0, 0, -0.50f, 1.00f},
    {"mrt=2x1,mc=2x1,np=all,unroll=0,profile=330,acc=pingpong", 7, 13, 5, 1, 1, 2.00f, 0.50f},
    {"mrt=2x2,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 1, 1, 1.00f, 0.00f},
    {"mrt=4x2,mc=1x1,np=2,unroll=0,profile=330,acc=pingpong", 67, 45, 83, 1, 1, 1.00f, 0.00f},
    {"mrt=8x1,mc=1x2,np=2,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 1, 1, 1.00f, 0.00f},
    {"mrt=1x8,mc=1x4,np=all,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 1, 1.00f, 0.00f},
    {"mrt=2x4,mc=4x1,np=3,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 0, 1, 1.00f, 0.00f},
    {"mrt=1x1,mc=1x3,np=1,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 1, 0, 1.00f, 0.00f},
    {"mrt=3x1,mc=1x3,np=all,unroll=0,profile=330,acc=pingpong", 7, 13, 5, 1, 1, 1.00f, 0.00f},
    {"mrt=1x2,mc=1x1,np=3,unroll=0,profile=330,acc=pingpong", 67, 45, 83, 0, 0, 1.00f, 0.00f},
    {"mrt=4x2,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 7, 13, 5, 0, 0, 1.00f, 0.00f},
    {"mrt=2x2,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 67, 45, 83, 0, 0, 1.00f, 0.00f},
    {"mrt=1x4,mc=4x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x8,mc=1x1,np=1,unroll=0,profile=330,acc=pingpong", 129, 3, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=2x4,mc=1x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 129, 3, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=4x2,mc=1x2,np=1,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=8x1,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x1,mc=1x2,np=1,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=3x1,mc=1x4,np=1,unroll=0,profile=330,acc=pingpong", 3, 129, 17, 0, 0, 1.00f, 0.00f},
    {"mrt=2x1,mc=4x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=3x1,mc=1x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x4,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=8x1,mc=2x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=4x2,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x4,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x2,mc=1x4,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x8,mc=1x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x2,mc=1x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=4x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x1,mc=1x3,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x2,mc=2x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=3x1,mc=1x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x4,mc=1x4,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=4x2,mc=2x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x4,mc=2x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=8x1,mc=4x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x4,mc=2x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x8,mc=2x2,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x8,mc=1x3,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x1,mc=1x4,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x2,mc=1x4,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=8x1,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x4,mc=1x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x1,mc=3x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=1x2,mc=4x1,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
    {"mrt=2x2,mc=1x3,np=1,unroll=0,profile=330,acc=pingpong", 1, 1, 1, 0, 0, 1.00f, 0.00f},
};
#define NPAIRWISE ((int)(sizeof pairwise / sizeof *pairwise))

/* SPIR-V: profile 330 only; one case per acc. */
static const gemm_case spirv_cases[] = {
    {"mrt=2x2,mc=2x2,np=3,compiler=spirv,acc=pingpong,store=f32", 67, 45, 83, 0, 1, 1.0f, 0.5f},
    {"mrt=1x4,mc=1x4,np=2,unroll=1,compiler=spirv,acc=copy,store=f32", 29, 31, 37, 1, 0, -0.5f, 1.0f},
    {"mrt=2x1,mc=1x3,np=all,compiler=spirv,acc=blend,store=f32", 13, 17, 19, 0, 0, 2.0f, 0.0f},
};
#define NSPIRV ((int)(sizeof spirv_cases / sizeof *spirv_cases))

/* Splits forced by a small texture limit: C blocks, K blocks, both. */
static const struct {
    gemm_case c;
    int max_tex;
} split_cases[] = {
    {{"mrt=2x2,mc=2x2,np=2,acc=pingpong", 67, 45, 83, 0, 0, 1.0f, 0.0f}, 16},
    {{"mrt=1x1,mc=1x1,np=all,acc=copy", 40, 37, 50, 1, 1, 2.0f, 0.5f}, 16},
    {{"mrt=1x8,mc=1x4,np=3,acc=blend", 21, 70, 90, 0, 1, 1.0f, 1.0f}, 16},
    {{"mrt=2x1,mc=3x1,np=1,profile=120,acc=pingpong", 50, 9, 33, 1, 0, -1.0f, 0.25f}, 8},
    {{"mrt=1x2,mc=1x3,np=2,unroll=1,profile=300es,acc=copy", 17, 60, 61, 0, 0, 1.0f, 0.0f}, 12},
    {{"mrt=1x1,mc=2x2,np=all,profile=300es,acc=blend", 3, 129, 17, 1, 1, 1.0f, 2.0f}, 8},
};
#define NSPLIT ((int)(sizeof split_cases / sizeof *split_cases))


START_TEST(gemm_pairwise)
{
    gemm_run r;
    setup_case(&r, &pairwise[_i], 100u + (unsigned)_i);
    evaluate(&r, NULL);
    expect_gemm_ok(&r, pairwise[_i].variant);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&r.v, r.in.m, r.in.n, r.in.k, &L), 0);
    ck_assert_int_eq(r.m.passes, L.passes);
    free_case(&r);
}
END_TEST

START_TEST(gemm_spirv)
{
    gemm_run r;
    setup_case(&r, &spirv_cases[_i], 7u + (unsigned)_i);
    evaluate(&r, NULL);
    expect_gemm_ok(&r, spirv_cases[_i].variant);
    free_case(&r);
}
END_TEST

START_TEST(gemm_split)
{
    run_split_case(&split_cases[_i].c, split_cases[_i].max_tex, 300u + (unsigned)_i);
}
END_TEST

/* A limit no block fits: a status, not a crash. */
START_TEST(gemm_split_impossible)
{
    gemm_run r;
    gemm_case gc = {"mrt=1x8,mc=1x4", 16, 64, 16, 0, 0, 1.0f, 0.0f};
    setup_case(&r, &gc, 1);
    gg_run_opts o = {.max_texture_size = 4};
    evaluate(&r, &o);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);
    ck_assert(r.m.gflops == 0);
    ck_assert(strstr(r.m.detail, "texture limit") != NULL);
    free_case(&r);
}
END_TEST

/* NaN and Inf in A and B: C is NaN or Inf where IEEE says, finite elsewhere,
 * and the run passes verification.  _i: acc x packing. */
START_TEST(gemm_nan_inf)
{
    static const char *const accs[] = {"pingpong", "copy", "blend"};
    static const char *const packs[] = {"mrt=1x1,mc=1x1,np=2", "mrt=2x2,mc=2x2,np=2",
                                        "mrt=1x2,mc=1x4,np=1", "mrt=2x1,mc=3x1,np=all"};
    char text[128];
    snprintf(text, sizeof text, "%s,acc=%s", packs[_i % 4], accs[_i / 4]);
    gemm_case gc = {text, 9, 11, 13, 0, 0, 1.0f, 0.0f};
    gemm_run r;
    setup_case(&r, &gc, 5);
    gg_inputs *in = &r.in;
    /* Row 0 of A has a NaN; row 1 an Inf; column 3 of B a -Inf; B(5, 4) = 0
     * with A(2, 5) = Inf gives 0*Inf = NaN in C(2, 4). */
    in->a[0 * in->lda + 4] = NAN;
    in->a[1 * in->lda + 7] = INFINITY;
    in->b[9 * in->ldb + 3] = -INFINITY;
    in->a[2 * in->lda + 5] = INFINITY;
    for (int j = 0; j < in->n; j++)
        in->b[5 * in->ldb + j] = j == 4 ? 0.0f : 1.0f;
    in->b[7 * in->ldb + 3] = 0.5f; /* C(1,3): +Inf (row 1) + -Inf (col 3) = NaN */
    base_reference_free(&r.ref);
    char err[256];
    ck_assert(base_reference_compute(in, 1.0f, 0.0f, &r.ref, err, sizeof err) == 0);
    evaluate(&r, NULL);
    ck_assert_msg(r.m.status == GG_OK, "%s: %s: %s", text, base_status_name(r.m.status), r.m.detail);
    const float *c = r.c;
    int n = in->n;
    for (int j = 0; j < n; j++)
        ck_assert_msg(isnan(c[0 * n + j]), "C(0,%d) = %g, want NaN", j, c[j]);
    ck_assert(isnan(c[2 * n + 4]));
    ck_assert(isnan(c[1 * n + 3]));
    for (int i = 0; i < in->m; i++)
        for (int j = 0; j < n; j++) {
            double want = r.ref.r[(size_t)i * n + j];
            float got = c[(size_t)i * n + j];
            if (isnan(want))
                ck_assert_msg(isnan(got), "C(%d,%d) = %g, want NaN", i, j, got);
            else if (isinf(want))
                ck_assert_msg(got == (float)want, "C(%d,%d) = %g, want %g", i, j, got, want);
            else
                ck_assert_msg(isfinite(got), "C(%d,%d) = %g, want finite", i, j, got);
        }
    /* Some element of row 1 is an infinity (not NaN): the Inf propagates. */
    int infs = 0;
    for (int j = 0; j < n; j++)
        infs += isinf(c[1 * n + j]);
    ck_assert_int_gt(infs, 0);
    free_case(&r);
}
END_TEST

/* Card limits are checked first: too many targets for the card, no float
 * blending: unsupported, nothing compiled, no GL work. */
START_TEST(gemm_card_limits)
{
    gemm_case gc = {"mrt=2x4,mc=1x4", 8, 8, 8, 0, 0, 1.0f, 0.0f};
    gemm_run r;
    setup_case(&r, &gc, 1);
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    gg_ctx_info info;
    char err[256];
    ck_assert_msg(host_session_context(s, GG_CTX_CORE, &info, err, sizeof err, NULL) == 0, "%s", err);
    info.max_draw_buffers = 4;
    host_run_current(&info, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, NULL);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);
    ck_assert(r.m.compile_s == 0);
    ck_assert(r.m.gflops == 0);
    ck_assert(r.m.detail[0] != '\0');

    ck_assert(gen_variant_parse("acc=blend", NULL, &r.v, err, sizeof err) == 0);
    host_session_context(s, GG_CTX_CORE, &info, err, sizeof err, NULL);
    info.float_blend = false;
    host_run_current(&info, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, NULL);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);

    /* The same session then runs the variant on the real limits. */
    host_run_current(&info, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, NULL);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);
    ck_assert(host_session_run(s, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, NULL, err,
                             sizeof err, NULL) == 0);
    ck_assert_msg(r.m.status == GG_OK, "%s", r.m.detail);
    host_session_free(s);
    free_case(&r);
}
END_TEST

/* A reference that is not this problem's: wrong_result with gflops 0,
 * however fast the run was. */
START_TEST(gemm_wrong_result)
{
    gemm_case gc = {"mrt=2x2,mc=2x2,np=2,acc=copy", 17, 19, 23, 0, 0, 1.0f, 0.0f};
    gemm_run r;
    setup_case(&r, &gc, 3);
    r.ref.r[5] += 1.0; /* one element off */
    evaluate(&r, NULL);
    ck_assert_int_eq(r.m.status, GG_WRONG_RESULT);
    ck_assert(r.m.gflops == 0);
    ck_assert(r.m.seconds > 0);
    ck_assert(r.m.detail[0] != '\0');
    free_case(&r);
}
END_TEST

/* beta = 0 on render targets made holding NaN (fault dirty_targets: GL
 * leaves a new texture's contents undefined): the set each C block's
 * passes read first is cleared, the others are written whole before they
 * are read, so C is right; every accumulation, both outputs, one pass and
 * several, fetch=ubo's strips, a problem split into blocks along k at a
 * texture limit of 16 (pingpong's passes carry on from block to block: an
 * odd count a block), the timed way (warm-up, reps) and once. */
static const struct {
    gemm_case gc;
    int max_tex; /* the texture limit (0: the card's); 16 splits these along k */
} dirty[] = {
    {{"mrt=2x2,mc=1x4,np=all,profile=330", 29, 37, 41, 0, 1, 1.0f, 0.0f}, 0},
    {{"mrt=1x2,mc=2x2,np=3,profile=330", 29, 37, 41, 1, 0, -0.5f, 0.0f}, 0},
    {{"mrt=2x1,mc=1x4,np=2,profile=330,acc=copy", 31, 23, 45, 0, 0, 1.0f, 0.0f}, 0},
    {{"mrt=1x1,mc=2x2,np=3,profile=300es,acc=blend", 31, 23, 45, 1, 1, 2.0f, 0.0f}, 0},
    {{"mc=1x4,np=all,profile=430,out=image,blk=4x8", 37, 53, 71, 0, 0, 1.0f, 0.0f}, 0},
    {{"mc=1x4,np=3,profile=430,out=image,blk=8x4", 37, 53, 71, 0, 1, 1.0f, 0.0f}, 0},
    {{"mc=1x1,np=5,profile=430,out=image,blk=3x5,acc=copy", 29, 31, 45, 1, 0, 1.0f, 0.0f}, 0},
    {{"mrt=2x2,mc=2x2,np=5,profile=330,fetch=ubo", 37, 53, 71, 0, 1, 1.5f, 0.0f}, 0},
    {{"mrt=1x1,mc=1x4,np=4,profile=330", 23, 19, 45, 0, 0, 1.0f, 0.0f}, 16},
    {{"mc=1x4,np=4,profile=430,out=image,blk=2x4", 23, 19, 45, 1, 0, 1.0f, 0.0f}, 16},
};
#define NDIRTY ((int)(sizeof dirty / sizeof *dirty))

START_TEST(gemm_dirty_targets)
{
    const gemm_case *gc = &dirty[_i / 2].gc;
    int max_tex = dirty[_i / 2].max_tex;
    setenv("GLGEMM_FAULT", "dirty_targets", 1);
    gemm_run r;
    setup_case(&r, gc, 40u + (unsigned)_i);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = _i % 2;
    if (max_tex) { /* split along k: several blocks, an odd count of passes each */
        o.max_texture_size = max_tex;
        gg_split sp;
        ck_assert_int_eq(gen_split_plan(&r.v, r.in.m, r.in.n, r.in.k, max_tex, &sp), 0);
        ck_assert_msg(sp.kblocks > 1 && sp.L.passes % 2 == 1, "%s: %d k-blocks, %d passes",
                      gc->variant, sp.kblocks, sp.L.passes);
    }
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    check_against_naive(&r, gc->variant);
    free_case(&r);
    unsetenv("GLGEMM_FAULT");
}
END_TEST

/* One session, several variants of the same kind and of two kinds. */
START_TEST(gemm_session_reuse)
{
    static const char *const texts[] = {"larsen", "nv-multi", "profile=120,mc=2x2",
                                        "profile=300es,mrt=1x2,acc=blend", "tfjs"};
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    for (int i = 0; i < 5; i++) {
        gemm_case gc = {texts[i], 31, 29, 37, 1, 0, 1.5f, -1.0f};
        gemm_run r;
        setup_case(&r, &gc, 11u + (unsigned)i);
        char err[256];
        ck_assert(host_session_run(s, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, NULL, err,
                                 sizeof err, NULL) == 0);
        expect_gemm_ok(&r, texts[i]);
        free_case(&r);
    }
    host_session_free(s);
}
END_TEST

/* The GLFW backend (a hidden window) runs the same host: one variant per
 * profile. */
START_TEST(gemm_glfw)
{
    static const char *const texts[] = {"nv-multi,acc=copy", "profile=120,mrt=2x1,acc=blend",
                                        "profile=300es,mc=2x2,mrt=1x2"};
    gemm_case gc = {texts[_i], 19, 23, 29, 0, 1, 1.0f, 0.5f};
    gemm_run r;
    setup_case(&r, &gc, 77);
    char err[512] = "";
    int rc = run_once(GG_BACKEND_GLFW, &r.v, &r.p, &r.in, &r.ref, NULL, &r.m, r.c, err,
                      sizeof err);
    ck_assert_msg(rc == 0, "no GLFW context: %s", err);
    expect_gemm_ok(&r, texts[_i]);
    free_case(&r);
}
END_TEST

/* ---- the CLI ---------------------------------------------------------- */

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/glgemm-gemm-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static int count_entries(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(tmpdir);
}

/* Runs `glgemm run ARGS` in tmpdir (tests/cli_util.h); returns the exit
 * status; out/errtext (may be NULL) get the texts (cut to fit). */
static int run_cli(const char *args, char *out, size_t outlen, char *errtext, size_t errlen)
{
    char full[2048], *o, *e;
    snprintf(full, sizeof full, "run %s", args);
    int rc = tu_run(tmpdir, NULL, full, &o, &e);
    if (out)
        snprintf(out, outlen, "%s", o);
    if (errtext)
        snprintf(errtext, errlen, "%s", e);
    free(o);
    free(e);
    return rc;
}

START_TEST(cli_run_line_and_csv)
{
    make_tmpdir();
    char out[4096], err[4096];
    int rc = run_cli("nv-multi --m 33 --n 17 --k 29 --reps 2", out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32"
                              " 33x17x29: ok") != NULL, "%s", out);
    ck_assert(strstr(out, "GFLOP/s") && strstr(out, "rel_err") && strstr(out, "compile") &&
              strstr(out, "upload") && strstr(out, "read-back"));
    ck_assert_int_eq((int)(strchr(out, '\n') - out) + 1, (int)strlen(out)); /* one line */

    rc = run_cli("mrt=2x2,mc=2x2,np=3,acc=copy --m 20 --n 21 --k 22 --csv --reps 1", out,
                 sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    char *nl = strchr(out, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    ck_assert_str_eq(out, "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,"
                          "tile,ku,order,passes,status,seconds,gflops,rel_err");
    char card[GG_CARD_MAX], perr[256];
    gg_problem p;
    gg_variant v;
    gg_measurement m;
    ck_assert_msg(store_csv_parse(nl + 1, card, sizeof card, &p, &v, &m, perr, sizeof perr) == 0,
                  "%s", perr);
    ck_assert_int_eq(p.m, 20);
    ck_assert_int_eq(p.k, 22);
    ck_assert_int_eq(m.status, GG_OK);
    ck_assert_int_eq(m.passes, 4);
    ck_assert(m.gflops > 0 && m.rel_err >= 0);
    ck_assert_int_eq(v.acc, GG_ACC_COPY);

    /* A variant that cannot exist: its status in the row, exit 1. */
    rc = run_cli("compiler=spirv,profile=300es --size 8 --csv", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 1);
    nl = strchr(out, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_msg(store_csv_parse(nl + 1, card, sizeof card, &p, &v, &m, perr, sizeof perr) == 0,
                  "%s", perr);
    ck_assert_int_eq(m.status, GG_INVALID);
    ck_assert(m.gflops == 0);
    ck_assert(strstr(err, "invalid") != NULL);
    remove_tmpdir();
}
END_TEST

/* Exit 1 and the status for what the card cannot run; exit 2 for bad input;
 * nothing crashes. */
START_TEST(cli_run_statuses)
{
    make_tmpdir();
    char out[4096], err[4096];
    int rc = run_cli("compiler=spirv,profile=120 --size 5", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 1);
    ck_assert(strstr(out, "invalid") != NULL);
    rc = run_cli("--size 5", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    ck_assert(strstr(err, "VARIANT") != NULL);
    rc = run_cli("mrt=0x1 --size 5", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    rc = run_cli("larsen --size 5 --reps 0", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    rc = run_cli("best --m 3 --n 5 --k 7", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    ck_assert(strstr(err, "best") != NULL);
    ck_assert(strchr(err, '\n') == err + strlen(err) - 1); /* one line */
    rc = run_cli("larsen --size 5 --device 99", out, sizeof out, err, sizeof err);
    ck_assert(rc == 2 || rc == 3);

    /* best, from results/<this card>/best-3x5x7.txt, with an override. */
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    gg_ctx_info info;
    char e[256], slug[128], dir[700], file[800];
    ck_assert_msg(host_session_context(s, GG_CTX_CORE, &info, e, sizeof e, NULL) == 0, "%s", e);
    host_session_free(s);
    base_slug(info.renderer, slug, sizeof slug);
    snprintf(dir, sizeof dir, "%s/results", tmpdir);
    ck_assert(mkdir(dir, 0700) == 0);
    snprintf(dir, sizeof dir, "%s/results/%s", tmpdir, slug);
    ck_assert(mkdir(dir, 0700) == 0);
    snprintf(file, sizeof file, "%s/best-3x5x7.txt", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("mrt=2x2,mc=1x2,np=2,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32\ngflops: 1\n", f);
    fclose(f);
    rc = run_cli("best,acc=blend --m 3 --n 5 --k 7", out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "mrt=2x2,mc=1x2,np=2,unroll=0,profile=330,compiler=glsl,acc=blend,"
                              "store=f32 3x5x7: ok") != NULL, "%s", out);
    /* A best recorded with store=f16 is that: run with half inputs and
     * judged against their rounded reference. */
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("mrt=2x2,mc=1x2,np=2,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16\ngflops: 1\n", f);
    fclose(f);
    rc = run_cli("best --m 3 --n 5 --k 7", out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "acc=pingpong,store=f16 3x5x7: ok") != NULL, "%s", out);
    unlink(file);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/results", tmpdir);
    rmdir(dir);
    remove_tmpdir();
}
END_TEST

/* --out: the right C, written whole; a failing variant leaves an existing
 * file as it was; a bad destination is exit 2 with no file and no stray
 * temporary. */
START_TEST(cli_run_out)
{
    make_tmpdir();
    /* Inputs from .npy files: A 5x3 (k x m, --transa), B 3x4. */
    int m = 3, k = 5, n = 4;
    float a[15], b[20], want[12];
    for (int i = 0; i < 15; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 20; i++)
        b[i] = 0.5f * (float)(i % 5) - 1.0f;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int kk = 0; kk < k; kk++)
                s += (double)a[kk * m + i] * b[kk * n + j];
            want[i * n + j] = (float)(2.0 * s);
        }
    char path[600], e[256];
    snprintf(path, sizeof path, "%s/a.npy", tmpdir);
    ck_assert(base_npy_write(path, a, k, m, e, sizeof e) == 0);
    snprintf(path, sizeof path, "%s/b.npy", tmpdir);
    ck_assert(base_npy_write(path, b, k, n, e, sizeof e) == 0);
    char out[4096], err[4096];
    int rc = run_cli("mrt=1x2,mc=2x2,acc=blend --a a.npy --b b.npy --transa --alpha 2 --out c.npy",
                     out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    float *c = NULL;
    int rows = 0, cols = 0;
    snprintf(path, sizeof path, "%s/c.npy", tmpdir);
    ck_assert_msg(base_npy_read(path, &c, &rows, &cols, e, sizeof e) == 0, "%s", e);
    ck_assert_int_eq(rows, m);
    ck_assert_int_eq(cols, n);
    for (int i = 0; i < m * n; i++)
        ck_assert_float_eq_tol(c[i], want[i], 1e-5f);
    free(c);
    ck_assert_int_eq(count_entries(), 3); /* a, b, c: no temporary left */

    /* A failing variant: c.npy stays as it was. */
    struct stat before, after;
    ck_assert(stat(path, &before) == 0);
    rc = run_cli("compiler=spirv,profile=120 --a a.npy --b b.npy --transa --out c.npy", out,
                 sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 1);
    ck_assert(stat(path, &after) == 0);
    ck_assert(before.st_ino == after.st_ino && before.st_size == after.st_size &&
              before.st_mtime == after.st_mtime);
    ck_assert(base_npy_read(path, &c, &rows, &cols, e, sizeof e) == 0);
    ck_assert_float_eq_tol(c[0], want[0], 1e-5f);
    free(c);
    /* A new name is not created when the run fails. */
    rc = run_cli("compiler=spirv,profile=120 --size 4 --out new.npy", out, sizeof out, err,
                 sizeof err);
    ck_assert_int_eq(rc, 1);
    ck_assert_int_eq(count_entries(), 3);
    /* A destination that cannot be written: exit 2, nothing left behind. */
    rc = run_cli("larsen --size 4 --out no/such/dir/c.npy", out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    ck_assert(strchr(err, '\n') == err + strlen(err) - 1); /* one line */
    ck_assert_int_eq(count_entries(), 3);
    remove_tmpdir();
}
END_TEST

Suite *make_gemm_suite(void)
{
    Suite *s = suite_create("gemm");
    static const char *const tags = "gl";
    TCase *tc = tcase_create("gemm");
    tcase_set_tags(tc, tags);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, gemm_pairwise, 0, NPAIRWISE);
    tcase_add_loop_test(tc, gemm_spirv, 0, NSPIRV);
    tcase_add_loop_test(tc, gemm_split, 0, NSPLIT);
    tcase_add_test(tc, gemm_split_impossible);
    tcase_add_loop_test(tc, gemm_nan_inf, 0, 12);
    tcase_add_test(tc, gemm_card_limits);
    tcase_add_test(tc, gemm_wrong_result);
    tcase_add_test(tc, gemm_session_reuse);
    tcase_add_loop_test(tc, gemm_dirty_targets, 0, 2 * NDIRTY);
    suite_add_tcase(s, tc);

    TCase *cli = tcase_create("run-cli");
    tcase_set_tags(cli, tags);
    tcase_set_timeout(cli, 120);
    tcase_add_test(cli, cli_run_line_and_csv);
    tcase_add_test(cli, cli_run_statuses);
    tcase_add_test(cli, cli_run_out);
    suite_add_tcase(s, cli);

    const char *display = getenv("DISPLAY");
    if (display && *display) {
        TCase *glfw = tcase_create("gemm-glfw");
        tcase_set_tags(glfw, "gl glfw");
        tcase_set_timeout(glfw, 60);
        tcase_add_loop_test(glfw, gemm_glfw, 0, 3);
        suite_add_tcase(s, glfw);
    } else {
        fprintf(stderr, "gemm: GLFW cases skipped: no DISPLAY (make check runs them under xvfb-run)\n");
    }
    return s;
}
