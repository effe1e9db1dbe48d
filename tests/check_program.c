/* glhost/program: the pairwise grid of variants compiles and links on the
 * GL at hand (llvmpipe), each in the context its profile needs, GLSL and
 * SPIR-V; failures come back as statuses with the log and numbered source.
 * Every case makes its own context (Check forks each test). */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/gen.h"
#include "base/spirv.h"
#include "glhost/context.h"
#include "glhost/progcache.h"
#include "glhost/program.h"
#include "tests/gen_grid.h"
#include "base/clock.h"
#include "tests/suites.h"

static gg_ctx *make_ctx(gg_ctx_kind kind, gg_card_limits *lim)
{
    char err[512];
    gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, 0, kind, err, sizeof err, NULL);
    ck_assert_msg(ctx != NULL, "no %s context: %s", host_ctx_kind_name(kind), err);
    if (lim) {
        gg_ctx_info in;
        host_ctx_query(ctx, &in);
        host_ctx_limits(&in, lim);
    }
    return ctx;
}

/* Part _i of the grid: 0 profile 120 (compat), 1 profile 330 (core),
 * 2 profile 300es (ES 3), 3 compiler=spirv (core). */
START_TEST(grid_compiles)
{
    static const gg_ctx_kind kinds[] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3, GG_CTX_CORE};
    static const char *const parts[] = {"profile=120", "profile=330", "profile=300es", "compiler=spirv"};
    gg_variant *grid;
    int glsl = 0;
    int n = gg_grid_pairwise_split(&grid, &glsl);
    ck_assert_int_gt(n, glsl);
    /* Compile for real: Mesa's on-disk shader cache would skip compile and link
     * of a variant seen by an earlier run, and so would glgemm's program cache
     * (glhost/progcache.h). */
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    setenv("GLGEMM_CACHE", "off", 1);
    host_progcache_reset();
    gg_card_limits lim;
    gg_ctx *ctx = make_ctx(kinds[_i], &lim);
    double t0 = base_now_s(), compile_s = 0;
    int built = 0, unsupported = 0;
    for (int i = 0; i < n; i++) {
        const gg_variant *v = &grid[i];
        bool mine = _i == 3 ? v->compiler == GG_COMPILER_SPIRV
                            : v->compiler == GG_COMPILER_GLSL && (int)v->profile == _i;
        if (!mine)
            continue;
        char vt[GG_VARIANT_TEXT], why[256];
        gen_variant_format(v, vt, sizeof vt);
        if (gen_variant_check_card(v, &lim, why, sizeof why) != GG_CARD_OK) {
            /* llvmpipe offers everything the grid asks for; a card that does
             * not must say why. */
            ck_assert_msg(why[0] != '\0', "%s: verdict without a reason", vt);
            fprintf(stderr, "program grid: %s: %s\n", vt, why);
            unsupported++;
            continue;
        }
        gg_program p;
        gg_status st = host_program_build(&p, v, GG_GRID_M, GG_GRID_N, GG_GRID_K);
        if (st != GG_OK)
            host_program_print_failure(&p, stderr);
        ck_assert_msg(st == GG_OK, "%s: %s: %s", vt, base_status_name(st), p.detail);
        ck_assert_uint_ne(p.prog, 0);
        ck_assert_int_ge(p.loc_kbase, 0);
        ck_assert_int_ge(p.loc_alpha, 0);
        ck_assert(p.compile_s > 0);
        compile_s += p.compile_s;
        host_program_free(&p);
        built++;
    }
    fprintf(stderr, "program grid %s: %d variants compiled and linked (%d unsupported) in %.2f s "
                    "(compile %.2f s)\n", parts[_i], built, unsupported, base_now_s() - t0, compile_s);
    ck_assert_int_gt(built, 30);
    ck_assert_int_eq(unsupported, 0); /* llvmpipe: 8 draw buffers, float blend, SPIR-V */
    host_ctx_destroy(ctx);
    free(grid);
}
END_TEST

/* The grid past the 32-output cap (gen_grid.h): part 0 on the core
 * context (profile 430), part 1 on the ES context (310es); every variant
 * builds, with its fetch path and out. */
START_TEST(modern_grid_compiles)
{
    static const gg_ctx_kind kinds[] = {GG_CTX_CORE, GG_CTX_ES3};
    gg_variant *grid;
    int n = gg_grid_modern(&grid);
    ck_assert_int_gt(n, 40);
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    setenv("GLGEMM_CACHE", "off", 1);
    host_progcache_reset();
    gg_card_limits lim;
    gg_ctx *ctx = make_ctx(kinds[_i], &lim);
    int built = 0, per_fetch[GG_FETCH_COUNT] = {0}, images = 0;
    for (int i = 0; i < n; i++) {
        const gg_variant *v = &grid[i];
        if ((v->profile == GG_PROFILE_310ES) != (_i == 1))
            continue;
        char vt[GG_VARIANT_TEXT], why[256];
        gen_variant_format(v, vt, sizeof vt);
        ck_assert_msg(gen_variant_check_card(v, &lim, why, sizeof why) == GG_CARD_OK, "%s: %s", vt,
                      why);
        gg_program p;
        gg_status st = host_program_build(&p, v, GG_GRID_M, GG_GRID_N, GG_GRID_K);
        if (st != GG_OK)
            host_program_print_failure(&p, stderr);
        ck_assert_msg(st == GG_OK, "%s: %s: %s", vt, base_status_name(st), p.detail);
        ck_assert_uint_ne(p.prog, 0);
        ck_assert_int_ge(p.loc_kbase, 0);
        host_program_free(&p);
        built++;
        per_fetch[v->fetch]++;
        images += v->out == GG_OUT_IMAGE;
    }
    fprintf(stderr, "program grid %s: %d variants past the cap compiled (%d out=image)\n",
            _i ? "310es" : "430", built, images);
    ck_assert_int_gt(built, 10);
    ck_assert_int_gt(images, 3);
    for (int f = 0; f < GG_FETCH_COUNT; f++) /* ES 3.1 has no buffer textures */
        ck_assert_msg(per_fetch[f] > 0 || (_i == 1 && f == GG_FETCH_BUFFER), "no fetch=%s",
                      gen_fetch_name((gg_fetch)f));
    host_ctx_destroy(ctx);
    free(grid);
}
END_TEST

/* The grid covers every pair of values of any two keys. */
START_TEST(grid_is_pairwise)
{
    gg_variant *grid;
    int glsl = 0;
    int n = gg_grid_pairwise_split(&grid, &glsl);
    /* profile x mrt and mc x mrt, the widest pairs, are all present. */
    for (int p = 0; p < 3; p++)
        for (size_t r = 0; r < sizeof grid_mrts / sizeof *grid_mrts; r++) {
            bool found = false;
            for (int i = 0; i < glsl && !found; i++)
                found = (int)grid[i].profile == p && grid[i].mrt.rows == grid_mrts[r].rows &&
                        grid[i].mrt.cols == grid_mrts[r].cols;
            ck_assert_msg(found, "profile %d x mrt %dx%d missing", p, grid_mrts[r].rows, grid_mrts[r].cols);
        }
    for (size_t c = 0; c < sizeof grid_mcs / sizeof *grid_mcs; c++)
        for (size_t r = 0; r < sizeof grid_mrts / sizeof *grid_mrts; r++)
            for (int part = 0; part < 2; part++) {
                bool in_subset = part == 0;
                for (size_t j = 0; j < sizeof grid_spirv_mrts / sizeof *grid_spirv_mrts; j++)
                    in_subset = in_subset || grid_spirv_mrts[j] == (int)r;
                if (!in_subset)
                    continue;
                bool found = false;
                for (int i = part ? glsl : 0; i < (part ? n : glsl) && !found; i++)
                    found = grid[i].mc.rows == grid_mcs[c].rows && grid[i].mc.cols == grid_mcs[c].cols &&
                            grid[i].mrt.rows == grid_mrts[r].rows && grid[i].mrt.cols == grid_mrts[r].cols;
                ck_assert_msg(found, "mc x mrt pair missing in part %d", part);
            }
    /* np x acc x unroll: every np value with every acc (GLSL part). */
    for (size_t k = 0; k < sizeof grid_nps / sizeof *grid_nps; k++)
        for (int a = 0; a < 3; a++) {
            bool found = false;
            for (int i = 0; i < glsl && !found; i++)
                found = grid[i].np == grid_nps[k] && (int)grid[i].acc == a;
            ck_assert(found);
        }
    /* Far fewer than the full product (3*8*14*3*2*3 = 6048, SPIR-V 8*6*3*2*3 = 864);
     * no fewer than the widest pair needs. */
    ck_assert_int_lt(n, 400);
    ck_assert_int_ge(glsl, 14 * 8);
    ck_assert_int_ge(n - glsl, 8 * 6);
    free(grid);
}
END_TEST

static const char vs330[] = "#version 330\nlayout(location = 0) in vec2 aPos;\n"
                            "out vec2 v;\nvoid main()\n{\n    v = aPos;\n    gl_Position = vec4(aPos, 0.0, 1.0);\n}\n";

static char *printed(const gg_program *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    host_program_print_failure(p, f);
    fclose(f);
    return buf;
}

START_TEST(compile_error_is_status)
{
    gg_ctx *ctx = make_ctx(GG_CTX_CORE, NULL);
    gg_program p;
    const char *fs = "#version 330\nout vec4 o;\nvoid main()\n{\n    o = undefined_thing;\n}\n";
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs, false), GG_COMPILE_ERROR);
    ck_assert_uint_eq(p.prog, 0);
    ck_assert_str_eq(p.failed_stage, "fragment");
    ck_assert_msg(!strncmp(p.detail, "fragment shader: ", 17), "%s", p.detail);
    ck_assert_msg(strstr(p.detail, "undefined_thing"), "%s", p.detail);
    ck_assert_ptr_null(strchr(p.detail, '\n'));
    ck_assert_ptr_nonnull(p.log);
    char *out = printed(&p);
    ck_assert_msg(strstr(out, "status compile_error: fragment shader: "), "%s", out);
    ck_assert_msg(strstr(out, "   5:     o = undefined_thing;\n"), "%s", out); /* numbered source */
    free(out);
    host_program_free(&p);
    host_ctx_destroy(ctx);
}
END_TEST

START_TEST(link_error_is_status)
{
    gg_ctx *ctx = make_ctx(GG_CTX_CORE, NULL);
    gg_program p;
    /* A function declared, called, never defined: it compiles, it does not link. */
    const char *fs = "#version 330\nout vec4 o;\nvec4 f();\nvoid main()\n{\n    o = f();\n}\n";
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs, false), GG_LINK_ERROR);
    ck_assert_str_eq(p.failed_stage, "link");
    ck_assert_msg(!strncmp(p.detail, "link: ", 6), "%s", p.detail);
    ck_assert_ptr_nonnull(p.log);
    ck_assert_ptr_nonnull(strstr(p.log, "link:\n"));
    host_program_free(&p);
    host_ctx_destroy(ctx);
}
END_TEST

START_TEST(spirv_paths)
{
    gg_ctx *ctx = make_ctx(GG_CTX_CORE, NULL);
    gg_variant v;
    char err[256];
    gg_program p;
    /* No SPIR-V from GLSL 1.20: invalid before anything is compiled. */
    ck_assert_int_eq(gen_variant_parse("compiler=spirv,profile=120", NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(host_program_build(&p, &v, 8, 8, 8), GG_INVALID);
    ck_assert_ptr_null(p.frag_src);
    host_program_free(&p);
    /* glslang rejects a source without explicit locations: a compile error. */
    const char *fs = "#version 330\nuniform float uAlpha;\nlayout(location = 0) out vec4 o;\n"
                     "void main()\n{\n    o = vec4(uAlpha);\n}\n";
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs, true), GG_COMPILE_ERROR);
    ck_assert_msg(strstr(p.detail, "glslang"), "%s", p.detail);
    ck_assert_ptr_nonnull(p.log);
    host_program_free(&p);
    /* A good SPIR-V variant: fixed locations, and the same variant as GLSL
     * gets queried locations. */
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=2x2,np=3,compiler=spirv,acc=copy", NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(host_program_build(&p, &v, 16, 16, 16), GG_OK);
    ck_assert_int_eq(p.loc_kbase, 0);
    ck_assert_int_eq(p.loc_alpha, 1);
    ck_assert_ptr_nonnull(strstr(p.frag_src, "layout(binding = 5) uniform sampler2D uPrev3;"));
    host_program_free(&p);
    v.compiler = GG_COMPILER_GLSL;
    ck_assert_int_eq(host_program_build(&p, &v, 16, 16, 16), GG_OK);
    ck_assert_int_ge(p.loc_kbase, 0);
    ck_assert_int_ge(p.loc_alpha, 0);
    ck_assert_int_ne(p.loc_kbase, p.loc_alpha);
    host_program_free(&p);
    host_ctx_destroy(ctx);
}
END_TEST

Suite *make_program_suite(void)
{
    Suite *s = suite_create("program");
    TCase *tc = tcase_create("grid");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, grid_compiles, 0, 4);
    tcase_add_loop_test(tc, modern_grid_compiles, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("sample");
    tcase_add_test(tc, grid_is_pairwise);
    suite_add_tcase(s, tc);

    tc = tcase_create("failures");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, compile_error_is_status);
    tcase_add_test(tc, link_error_is_status);
    tcase_add_test(tc, spirv_paths);
    suite_add_tcase(s, tc);
    return s;
}
