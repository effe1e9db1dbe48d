/* Past the 32-output cap: the keys out, blk and fetch and the profiles 430
 * and 310es, end to end.  Every out x fetch x store combination the GL
 * versions allow runs on odd shapes (k over several passes, transposes,
 * alpha, beta) against the fp64 reference and a naive loop; what a card
 * lacks is `unsupported` and what no card can run `invalid`; every new
 * shader compiles with glslang for its profile; the layout's figures. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen/gen.h"
#include "base/spirv.h"
#include "gen/pack.h"
#include "tests/gemm_util.h"
#include "tests/glslang_util.h"
#include "tests/suites.h"

/* out x fetch x store, each with a profile that allows it; the odd shapes
 * are no multiple of any block, np small enough for several passes. */
static const gemm_case grid[] = {
    /* out=rt, each fetch path */
    {"mrt=2x2,mc=1x4,np=3,profile=430,fetch=texture", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mrt=2x2,mc=1x4,np=3,profile=430,fetch=texture,store=f16", 37, 53, 71, 1, 0, 1.5f, 0.5f},
    {"mrt=2x1,mc=2x2,np=2,profile=330,fetch=texelfetch", 29, 31, 45, 0, 1, -0.5f, 1.0f},
    {"mrt=1x2,mc=4x1,np=5,profile=300es,fetch=texelfetch,store=f16", 41, 19, 50, 1, 1, 1.0f, 0.0f},
    {"mrt=2x2,mc=1x4,np=3,profile=430,fetch=image,acc=copy", 37, 53, 71, 0, 0, 2.0f, 0.25f},
    {"mrt=1x4,mc=1x1,np=7,profile=430,fetch=image,store=f16,acc=blend", 23, 29, 31, 1, 0, 1.0f, 1.0f},
    {"mrt=2x2,mc=2x2,np=4,profile=310es,fetch=image", 33, 35, 37, 0, 1, 1.0f, 0.0f},
    {"mrt=2x1,mc=1x4,np=2,profile=430,fetch=buffer", 37, 53, 71, 1, 1, 1.0f, 0.5f},
    {"mrt=1x2,mc=1x2,np=3,profile=330,fetch=buffer,store=f16", 27, 25, 33, 0, 0, -1.0f, 0.0f},
    /* out=image, each fetch path, both accumulations on 430 */
    {"mc=1x4,np=3,profile=430,out=image,blk=8x8", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=4x1,np=2,profile=430,out=image,blk=16x8,store=f16", 37, 53, 71, 1, 0, 1.5f, 0.5f},
    {"mc=1x1,np=5,profile=430,out=image,blk=3x5,fetch=texelfetch,acc=copy", 29, 31, 45, 0, 1,
     -0.5f, 1.0f},
    {"mc=2x2,np=3,profile=430,out=image,blk=2x4,fetch=texelfetch,store=f16", 41, 19, 50, 1, 1,
     1.0f, 0.0f},
    {"mc=1x4,np=4,profile=430,out=image,blk=4x8,fetch=image,acc=copy", 37, 53, 71, 0, 0, 2.0f,
     0.25f},
    {"mc=1x2,np=all,profile=430,out=image,blk=6x4,fetch=image,store=f16", 23, 29, 31, 1, 0, 1.0f,
     1.0f},
    {"mc=1x4,np=2,profile=430,out=image,blk=16x16,fetch=buffer", 37, 53, 71, 1, 1, 1.0f, 0.5f},
    {"mc=1x3,np=3,profile=430,out=image,blk=2x6,fetch=texture,acc=copy", 27, 25, 33, 0, 1, 1.0f,
     0.0f},
    {"mc=1x1,np=6,profile=430,out=image,blk=5x3,fetch=buffer,store=f16", 27, 25, 33, 0, 0, -1.0f,
     0.0f},
    /* fetch=ubo: A from a uniform block a strip of fragments, both outs */
    {"mrt=2x2,mc=2x2,np=5,profile=330,fetch=ubo", 37, 53, 71, 0, 1, 1.5f, 0.5f},
    {"mrt=2x1,mc=1x3,np=2,profile=300es,fetch=ubo,acc=copy", 29, 31, 45, 1, 0, -0.5f, 1.0f},
    {"mrt=1x2,mc=1x1,np=3,unroll=1,profile=330,fetch=ubo,acc=blend", 23, 29, 31, 1, 1, 1.0f,
     1.0f},
    {"mc=1x4,np=4,profile=430,out=image,blk=8x8,fetch=ubo", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x2,np=7,unroll=1,profile=430,out=image,blk=4x4,fetch=ubo,acc=copy", 41, 19, 50, 1, 1,
     2.0f, 0.25f},
    /* out=image on ES 3.1: pingpong only */
    {"mc=1x4,np=3,profile=310es,out=image,blk=8x8,fetch=texelfetch", 37, 53, 71, 1, 0, 1.0f, 0.5f},
    {"mc=4x1,np=2,profile=310es,out=image,blk=8x4,fetch=image,store=f16", 29, 31, 45, 0, 1, 1.0f,
     0.0f},
    {"mc=2x2,np=all,profile=310es,out=image,blk=4x4", 33, 35, 37, 1, 1, 0.5f, 2.0f},
    {"mc=4x1,np=3,profile=310es,out=image,blk=8x8,fetch=ubo", 37, 53, 71, 1, 0, 1.0f, 0.5f},
};
#define NGRID ((int)(sizeof grid / sizeof *grid))


START_TEST(image_grid)
{
    run_grid_case(&grid[_i], 500u + (unsigned)_i);
}
END_TEST

/* Splits forced by a small texture limit, with the image and the buffer
 * paths: C blocks and K blocks go on accumulating in the same image. */
static const struct {
    gemm_case c;
    int max_tex;
} split_cases[] = {
    {{"mc=1x4,np=2,profile=430,out=image,blk=4x8", 67, 45, 83, 0, 0, 1.0f, 0.0f}, 16},
    {{"mc=2x2,np=all,profile=430,out=image,blk=4x4,fetch=buffer,acc=copy", 40, 37, 50, 1, 1,
      2.0f, 0.5f}, 16},
    {{"mrt=2x1,mc=1x4,np=3,profile=430,fetch=buffer", 21, 70, 90, 0, 1, 1.0f, 1.0f}, 16},
    {{"mc=4x1,np=3,profile=310es,out=image,blk=8x4,fetch=image", 50, 29, 33, 1, 0, -1.0f, 0.25f},
     12},
    {{"mc=1x4,np=2,profile=430,out=image,blk=4x8,fetch=ubo", 67, 45, 83, 0, 1, 1.0f, 0.5f}, 16},
    {{"mrt=2x2,mc=2x2,np=3,profile=330,fetch=ubo", 40, 37, 50, 1, 1, 2.0f, 0.0f}, 16},
};
#define NSPLIT ((int)(sizeof split_cases / sizeof *split_cases))

START_TEST(image_split)
{
    run_split_case(&split_cases[_i].c, split_cases[_i].max_tex, 700u + (unsigned)_i);
}
END_TEST

/* ---- what a card lacks, what no card has ---- */

static gg_card_limits modern(bool es)
{
    gg_card_limits l = {.max_draw_buffers = 8, .max_texture_size = 16384, .float_blend = true,
                        .spirv = true, .es = es, .gl_version = es ? 32 : 46,
                        .max_fragment_images = 8, .max_texture_buffer = 1L << 27};
    return l;
}

static const struct {
    const char *variant;
    int lack; /* 0 none, 1 no image units, 2 one image unit, 3 ES 3.0, 4 GL 3.3, 5 no buffers */
    gg_card_verdict verdict;
    const char *why; /* a part of the reason */
} cards[] = {
    {"mc=1x4,profile=430,out=image,blk=8x8", 0, GG_CARD_OK, ""},
    {"mc=1x4,profile=310es,out=image,blk=8x8", 0, GG_CARD_OK, ""},
    {"mc=1x4,profile=430,out=image,blk=8x8", 1, GG_CARD_UNSUPPORTED, "GL_MAX_FRAGMENT_IMAGE_UNIFORMS"},
    {"mc=1x4,profile=430,out=image,blk=8x8", 2, GG_CARD_OK, ""},
    {"mc=1x4,profile=430,out=image,blk=8x8,fetch=image", 2, GG_CARD_UNSUPPORTED, "needs 3 image"},
    {"mrt=2x2,mc=1x4,profile=430,fetch=image", 0, GG_CARD_OK, ""},
    {"mrt=2x2,mc=1x4,profile=430,fetch=image", 2, GG_CARD_UNSUPPORTED, "this card has 1"},
    {"mrt=2x2,mc=1x4,profile=430,fetch=image", 1, GG_CARD_UNSUPPORTED, "needs 2 image"},
    {"mc=1x4,profile=310es,out=image,blk=8x8", 3, GG_CARD_UNSUPPORTED, "needs OpenGL ES 3.1"},
    {"mc=1x4,profile=430,out=image,blk=8x8", 4, GG_CARD_UNSUPPORTED, "needs desktop OpenGL 4.3"},
    {"mrt=2x2,mc=1x4,profile=330,fetch=buffer", 5, GG_CARD_UNSUPPORTED, "buffer textures"},
    {"mc=1x4,profile=330,out=image,blk=8x8", 0, GG_CARD_INVALID, "needs profile=430 or 310es"},
    {"mc=1x4,profile=300es,out=image,blk=8x8", 0, GG_CARD_INVALID, "needs profile=430 or 310es"},
    {"mc=1x4,profile=430,out=image,blk=8x8,acc=blend", 0, GG_CARD_INVALID, "acc=blend"},
    {"mc=1x4,profile=310es,out=image,blk=8x8,acc=copy", 0, GG_CARD_INVALID, "r32f only"},
    {"mrt=2x2,profile=120,fetch=texelfetch", 0, GG_CARD_INVALID, "GLSL 1.30"},
    {"mrt=2x2,mc=1x3,profile=430,fetch=image", 0, GG_CARD_INVALID, "3 channels"},
    {"mrt=2x2,mc=1x2,profile=310es,fetch=image", 0, GG_CARD_INVALID, "in GLSL ES"},
    {"mrt=2x2,mc=1x4,profile=330,fetch=image", 0, GG_CARD_INVALID, "imageLoad"},
    {"mrt=2x2,mc=1x4,profile=300es,fetch=buffer", 0, GG_CARD_INVALID, "profile=330 or 430"},
    {"mrt=2x2,mc=1x4,profile=310es,fetch=buffer", 0, GG_CARD_INVALID, "profile=330 or 430"},
    {"mrt=2x2,mc=3x1,profile=430,fetch=buffer", 0, GG_CARD_INVALID, "not 3"},
    {"mc=1x4,compiler=spirv,out=image,blk=8x8,profile=330", 0, GG_CARD_INVALID, "covers out=rt"},
    {"mc=1x4,compiler=spirv,out=image,blk=8x8,profile=430", 0, GG_CARD_INVALID,
     "the SPIR-V path is built from the GLSL 3.30 text"},
    {"mrt=2x2,mc=1x4,compiler=spirv,fetch=buffer", 0, GG_CARD_INVALID, "out=rt with fetch=texture"},
    {"mrt=2x2,mc=1x4,compiler=spirv,fetch=texelfetch", 0, GG_CARD_OK, ""},
    {"mrt=2x2,mc=1x4,profile=120,fetch=ubo", 0, GG_CARD_INVALID, "uniform blocks"},
    {"mrt=2x2,mc=1x4,profile=330,fetch=ubo,store=f16", 0, GG_CARD_INVALID, "store=f16"},
    {"mrt=2x2,mc=1x4,profile=300es,fetch=ubo", 0, GG_CARD_OK, ""},
};
#define NCARDS ((int)(sizeof cards / sizeof *cards))

START_TEST(image_card_check)
{
    gg_variant v;
    char err[256], why[256] = "stale";
    ck_assert_msg(gen_variant_parse(cards[_i].variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    bool es = v.profile == GG_PROFILE_300ES || v.profile == GG_PROFILE_310ES;
    gg_card_limits lim = modern(es);
    switch (cards[_i].lack) {
    case 1: lim.max_fragment_images = 0; break;
    case 2: lim.max_fragment_images = 1; break;
    case 3: lim.gl_version = 30; break;
    case 4: lim.gl_version = 33; break;
    case 5: lim.max_texture_buffer = 0; break;
    }
    gg_card_verdict got = gen_variant_check_card(&v, &lim, why, sizeof why);
    ck_assert_msg(got == cards[_i].verdict, "%s: verdict %d, want %d (%s)", cards[_i].variant, got,
                  cards[_i].verdict, why);
    ck_assert_msg(strstr(why, cards[_i].why) != NULL, "%s: '%s' lacks '%s'", cards[_i].variant,
                  why, cards[_i].why);
}
END_TEST

/* fetch=ubo: a strip's A past GL_MAX_UNIFORM_BLOCK_SIZE (64 KiB on
 * llvmpipe) is unsupported with the reason, not a failure. */
START_TEST(image_ubo_too_big)
{
    gemm_run r;
    /* 2 x 16 rows of 150 texels (k 600 in one pass): 4800 vec4s, 76800 bytes */
    gemm_case gc = {"mc=1x4,np=all,profile=430,out=image,blk=16x16,fetch=ubo", 16, 16, 600, 0,
                    0, 1.0f, 0.0f};
    setup_case(&r, &gc, 4);
    evaluate(&r, NULL);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);
    ck_assert_msg(strstr(r.m.detail, "GL_MAX_UNIFORM_BLOCK_SIZE") &&
                      strstr(r.m.detail, "76800 bytes"), "%s", r.m.detail);
    free_case(&r);
}
END_TEST

/* On llvmpipe's contexts: an invalid combination is a status, nothing
 * compiled, whatever the host does. */
START_TEST(image_invalid_is_status)
{
    gemm_run r;
    gemm_case gc = {"mc=1x4,profile=330,out=image,blk=8x8", 16, 16, 16, 0, 0, 1.0f, 0.0f};
    setup_case(&r, &gc, 3);
    evaluate(&r, NULL);
    ck_assert_int_eq(r.m.status, GG_INVALID);
    ck_assert(r.m.gflops == 0);
    ck_assert_ptr_nonnull(strstr(r.m.detail, "profile=430 or 310es"));
    free_case(&r);
}
END_TEST

/* ---- the shaders compile with glslang for their profiles ---- */

static const char *const glsl_grid[] = {
    "mc=1x4,np=3,profile=430,out=image,blk=8x8",
    "mc=1x4,np=3,profile=430,out=image,blk=16x8,fetch=texelfetch,unroll=1",
    "mc=4x1,np=2,profile=430,out=image,blk=16x8,fetch=image,acc=copy,store=f16",
    "mc=1x1,np=all,profile=430,out=image,blk=3x5,fetch=buffer",
    "mc=1x3,np=2,profile=430,out=image,blk=2x6,acc=copy",
    "mc=2x2,np=3,profile=310es,out=image,blk=4x4,fetch=image",
    "mc=1x4,np=3,profile=310es,out=image,blk=8x8,fetch=texelfetch,unroll=1,store=f16",
    "mc=1x2,np=3,profile=310es,out=image,blk=2x4",
    "mrt=2x2,mc=1x4,np=3,profile=430,fetch=image",
    "mrt=1x4,mc=1x1,np=3,profile=430,fetch=image,acc=blend,store=f16",
    "mrt=2x1,mc=2x2,np=3,profile=330,fetch=buffer,unroll=1",
    "mrt=2x2,mc=1x4,np=3,profile=300es,fetch=texelfetch",
    "mrt=2x2,mc=1x4,np=3,profile=310es,fetch=texture",
    "mrt=2x2,mc=1x4,np=3,profile=430,fetch=texelfetch,acc=copy",
    "mrt=2x2,mc=2x2,np=3,profile=330,fetch=ubo",
    "mrt=2x1,mc=1x3,np=3,profile=300es,fetch=ubo,unroll=1",
    "mc=4x1,np=3,profile=310es,out=image,blk=8x8,fetch=ubo",
    "mc=1x4,np=3,profile=430,out=image,blk=16x8,fetch=ubo,acc=copy",
};
#define NGLSL ((int)(sizeof glsl_grid / sizeof *glsl_grid))

START_TEST(image_shaders_compile)
{
    if (!base_spirv_available()) {
        fprintf(stderr, "image: glslang case skipped: glslangValidator is not installed\n");
        return;
    }
    gg_variant v;
    char err[256], log[4096];
    ck_assert_msg(gen_variant_parse(glsl_grid[_i], NULL, &v, err, sizeof err) == 0, "%s", err);
    char *frag = gen_emit_fragment(&v, 37, 53, 71);
    ck_assert_ptr_nonnull(frag);
    ck_assert_msg(tu_glslang(frag, "frag", "", log, sizeof log) == 0, "%s: glslang: %s", glsl_grid[_i],
                  log);
    char *vert = gen_emit_vertex(&v);
    ck_assert_msg(tu_glslang(vert, "vert", "", log, sizeof log) == 0, "%s vertex: %s", glsl_grid[_i], log);
    /* The first line is #version of the profile. */
    static const char *const versions[] = {"#version 120\n", "#version 330\n", "#version 300 es\n",
                                           "#version 430\n", "#version 310 es\n"};
    ck_assert(!strncmp(frag, versions[v.profile], strlen(versions[v.profile])));
    ck_assert(!strncmp(vert, versions[v.profile], strlen(versions[v.profile])));
    free(frag);
    free(vert);
}
END_TEST

/* ---- the layout's figures and the header that states them ---- */

START_TEST(image_layout)
{
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("mc=1x4,out=image,blk=16x8,profile=430", NULL, &v, err,
                                      sizeof err), 0);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, 100, 70, 90, &L), 0);
    ck_assert(L.image);
    ck_assert_int_eq(L.tr, 16); /* 16 rows of 1-row texels */
    ck_assert_int_eq(L.tc, 2);  /* 8 columns of 4-column texels */
    ck_assert_int_eq(L.mpad, 112);
    ck_assert_int_eq(L.npad, 72);
    ck_assert_int_eq(L.c_w, L.b_w);
    ck_assert_int_eq(L.c_h, L.a_h);
    ck_assert_int_eq(L.tgt_w * L.tc, L.c_w);
    ck_assert_int_eq(L.tgt_h * L.tr, L.c_h);
    ck_assert_int_eq(gen_layout_outputs(&L), 128);
    /* a k-step (4 k): 16 A texels and 2 x 4 B texels for 16 * 2 * 4 * 4 = 512 */
    ck_assert_double_eq_tol(gen_layout_mads_per_fetch(&L), 512.0 / 24.0, 1e-12);
    gg_layout view;
    gen_layout_c_view(&L, &view);
    ck_assert_int_eq(view.targets, 1);
    ck_assert_int_eq(view.tgt_w, L.c_w);
    ck_assert_int_eq(view.tgt_h, L.c_h);

    ck_assert_int_eq(gen_variant_parse("mrt=4x2,mc=2x2", NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(gen_layout_compute(&v, 64, 64, 64, &L), 0);
    ck_assert(!L.image);
    ck_assert_int_eq(gen_layout_outputs(&L), 32);
    /* a k-step (2 k): 4 A texels and 2 B texels for 8 * 4 * 2 = 64 */
    ck_assert_double_eq_tol(gen_layout_mads_per_fetch(&L), 64.0 / 6.0, 1e-12);

    ck_assert_int_eq(gen_variant_parse("mc=4x1,out=image,blk=16x8,profile=430,np=512", NULL, &v,
                                      err, sizeof err), 0);
    char *frag = gen_emit_fragment(&v, 4096, 4096, 4096);
    ck_assert_ptr_nonnull(frag);
    ck_assert_ptr_nonnull(strstr(frag, " * outputs per fragment: 128 (out=image: imageStore of blk); "
                                       "multiply-adds per texel of A and B fetched: 21.33"));
    ck_assert_ptr_nonnull(strstr(frag, "imageStore(uC, q, "));
    ck_assert_ptr_null(strstr(frag, "out vec4"));
    free(frag);
}
END_TEST

/* ---- parse and print ---- */

static const struct {
    const char *in, *canon;
} good[] = {
    {"mc=1x4,out=image,blk=16x8,profile=430",
     "mrt=1x1,mc=1x4,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,out=image,"
     "blk=16x8"},
    {"fetch=buffer,mrt=2x2,profile=430",
     "mrt=2x2,mc=1x1,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,fetch=buffer"},
    {"blk=4x4,out=image,fetch=image,profile=310es,mc=2x2",
     "mrt=1x1,mc=2x2,np=all,unroll=0,profile=310es,compiler=glsl,acc=pingpong,store=f32,out=image,"
     "blk=4x4,fetch=image"},
    /* the defaults are left out: the texts from before the keys */
    {"mrt=2x2,out=rt,fetch=texture",
     "mrt=2x2,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-multi,out=image,blk=4x8,profile=430",
     "mrt=1x1,mc=1x4,np=6,unroll=1,profile=430,compiler=glsl,acc=pingpong,store=f32,out=image,"
     "blk=4x8"},
    /* no profile named: the lowest with image loads and stores (SPEC.md) */
    {"out=image,blk=8x8",
     "mrt=1x1,mc=1x1,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,out=image,"
     "blk=8x8"},
    {"nv-single,out=image,blk=8x8,np=all,unroll=0",
     "mrt=1x1,mc=2x2,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,out=image,"
     "blk=8x8"},
    {"fetch=image,mrt=2x2",
     "mrt=2x2,mc=1x1,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,fetch=image"},
};

START_TEST(image_parse_round_trip)
{
    gg_variant v, back;
    char err[256], t[GG_VARIANT_TEXT], t2[GG_VARIANT_TEXT];
    ck_assert_msg(gen_variant_parse(good[_i].in, NULL, &v, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(gen_variant_format(&v, t, sizeof t), good[_i].canon);
    ck_assert_msg(gen_variant_parse(t, NULL, &back, err, sizeof err) == 0, "%s", err);
    ck_assert(gen_variant_equal(&v, &back));
    ck_assert_str_eq(gen_variant_format(&back, t2, sizeof t2), t);
}
END_TEST

static const struct {
    const char *in, *message;
} bad[] = {
    {"blk=8x8", "blk: only with out=image (out=rt computes mrt x mc texels a fragment)"},
    {"out=image", "out=image needs blk=RxC, the rows x columns of C one fragment computes "
                  "(e.g. blk=8x16)"},
    {"out=image,blk=8x8,mrt=2x2", "mrt: out=image writes no render target; leave mrt at 1x1 and "
                                  "give the block with blk (here mrt=2x2)"},
    {"out=image,blk=8x6,mc=1x4", "blk: 8x6 is not whole texels of mc=1x4; its rows must be a "
                                 "multiple of 1 and its columns of 4"},
    {"out=image,blk=32x16", "blk: 32x16 is 512 outputs a fragment; R*C must be at most 256"},
    {"out=image,blk=0x8", "blk: '0x8' is not allowed; use RxC scalars with R, C >= 1 and R*C at "
                          "most 256 (e.g. 8x16), whole texels of mc"},
    {"fetch=sbo", "fetch: 'sbo' is not allowed; use texture, texelfetch, image, buffer, ubo, ssbo, "
                  "texelfetch+ssbo or ssbo+texelfetch"},
    {"fetch=", "fetch: empty value; use texture, texelfetch, image, buffer, ubo, ssbo, "
               "texelfetch+ssbo or ssbo+texelfetch"},
    {"out=foo", "out: 'foo' is not allowed; use rt or image"},
    {"profile=450", "profile: '450' is not allowed; use 120, 330, 300es, 430 or 310es"},
    {"out=image,blk=8x8,out=rt", "out given twice; each key at most once"},
};

START_TEST(image_parse_bad)
{
    gg_variant v;
    char err[256] = "";
    ck_assert_int_eq(gen_variant_parse(bad[_i].in, NULL, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, bad[_i].message);
}
END_TEST

Suite *make_image_suite(void)
{
    Suite *s = suite_create("image");
    TCase *gl = tcase_create("image-gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, image_grid, 0, NGRID);
    tcase_add_loop_test(gl, image_split, 0, NSPLIT);
    tcase_add_test(gl, image_invalid_is_status);
    tcase_add_test(gl, image_ubo_too_big);
    suite_add_tcase(s, gl);

    TCase *tc = tcase_create("image-keys");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, image_card_check, 0, NCARDS);
    tcase_add_loop_test(tc, image_shaders_compile, 0, NGLSL);
    tcase_add_test(tc, image_layout);
    tcase_add_loop_test(tc, image_parse_round_trip, 0, (int)(sizeof good / sizeof *good));
    tcase_add_loop_test(tc, image_parse_bad, 0, (int)(sizeof bad / sizeof *bad));
    suite_add_tcase(s, tc);
    return s;
}
