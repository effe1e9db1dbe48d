/* The storage-buffer fetches (issue 37): fetch=ssbo, texelfetch+ssbo and
 * ssbo+texelfetch end to end.  Every value against the fp64 reference and a
 * naive loop on odd shapes over several passes, with transposes, alpha and
 * beta, over every packing and block it accepts (out=rt with mrt, each
 * acc, unroll; out=image with order=frag, tile, ku; profiles 430 and
 * 310es); a buffer past GL_MAX_SHADER_STORAGE_BLOCK_SIZE (lowered through
 * gg_run_opts.max_ssbo_bytes) split along the problem, or unsupported when
 * no block fits; the buffer's contents read back from GL against a CPU
 * model of the layout built here from op(A) and op(B); the rules (profiles
 * without storage buffers, half stores, SPIR-V, cards without fragment
 * storage blocks); the emitted declarations and reads, glslang; the command
 * line (the CSV row, a bad value's one line and exit 2). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spirv.h"
#include "gen/gen.h"
#include "gen/half.h"
#include "gen/pack.h"
#include "tests/glslang_util.h"
#include "glhost/run_int.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

/* Each value over the packings and blocks: odd shapes, np small enough for
 * several passes. */
static const gemm_case grid[] = {
    /* texelfetch+ssbo: A by texelFetch, B from the storage buffer */
    {"mrt=2x2,mc=1x4,np=3,fetch=texelfetch+ssbo", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mrt=1x2,mc=2x2,np=4,fetch=texelfetch+ssbo,acc=copy", 29, 31, 45, 1, 1, -0.5f, 1.0f},
    {"mrt=2x1,mc=4x1,np=5,fetch=texelfetch+ssbo,acc=blend", 41, 19, 50, 0, 1, 1.5f, 0.5f},
    {"mrt=1x1,mc=1x1,np=7,fetch=texelfetch+ssbo", 23, 29, 31, 1, 0, 2.0f, 0.25f},
    {"mrt=2x1,mc=1x2,np=3,unroll=1,fetch=texelfetch+ssbo", 27, 25, 33, 0, 0, 1.0f, 1.0f},
    {"mrt=1x2,mc=2x1,np=4,fetch=texelfetch+ssbo,ku=2", 33, 35, 37, 1, 1, 1.0f, 0.0f},
    {"mrt=2x1,mc=1x3,np=2,fetch=texelfetch+ssbo", 29, 31, 45, 1, 0, -1.0f, 0.5f},
    {"mc=1x4,np=3,out=image,blk=8x8,fetch=texelfetch+ssbo", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x4,np=2,out=image,blk=16x8,fetch=texelfetch+ssbo,order=frag,tile=64x64,ku=2", 37, 53,
     71, 1, 1, 1.5f, 0.5f},
    {"mc=4x1,np=3,out=image,blk=8x16,fetch=texelfetch+ssbo,acc=copy", 41, 19, 50, 0, 1, 1.0f,
     1.0f},
    {"mc=2x2,np=all,out=image,blk=4x4,fetch=texelfetch+ssbo,order=frag", 33, 35, 37, 1, 0, 0.5f,
     2.0f},
    {"mc=1x3,np=3,out=image,blk=2x6,fetch=texelfetch+ssbo", 27, 25, 33, 0, 1, 1.0f, 0.0f},
    {"mc=1x4,np=3,profile=310es,out=image,blk=8x8,fetch=texelfetch+ssbo", 37, 53, 71, 1, 0, 1.0f,
     0.5f},
    {"mrt=2x2,mc=2x2,np=3,profile=310es,fetch=texelfetch+ssbo", 29, 31, 45, 0, 1, 1.0f, 0.0f},
    /* ssbo+texelfetch: A from the storage buffer */
    {"mrt=2x2,mc=1x4,np=3,fetch=ssbo+texelfetch", 37, 53, 71, 1, 0, 1.0f, 0.5f},
    {"mrt=1x2,mc=1x3,np=2,fetch=ssbo+texelfetch,acc=blend", 29, 31, 45, 0, 1, -0.5f, 1.0f},
    {"mc=4x1,np=2,out=image,blk=8x4,fetch=ssbo+texelfetch,order=frag", 41, 19, 50, 1, 1, 1.0f,
     0.0f},
    {"mc=2x2,np=3,profile=310es,out=image,blk=4x8,fetch=ssbo+texelfetch", 33, 35, 37, 0, 0, 2.0f,
     0.25f},
    /* ssbo: both */
    {"mrt=2x1,mc=2x2,np=4,fetch=ssbo,acc=copy", 37, 53, 71, 0, 1, 1.0f, 1.0f},
    {"mrt=1x1,mc=1x1,np=5,unroll=1,fetch=ssbo", 23, 29, 31, 1, 1, 1.0f, 0.0f},
    {"mc=1x4,np=3,out=image,blk=8x8,fetch=ssbo,tile=64x32z", 37, 53, 71, 1, 0, -1.0f, 0.5f},
    {"mc=3x1,np=2,out=image,blk=6x2,fetch=ssbo", 27, 25, 33, 0, 0, 1.0f, 0.0f},
    {"mc=1x2,np=3,profile=310es,out=image,blk=2x4,fetch=ssbo", 29, 31, 45, 1, 1, 0.5f, 0.5f},
    /* store=f16: the halves in pairs (uvec2 for 4 channels, uint for 2),
     * against the reference of the inputs rounded to halves */
    {"mrt=2x2,mc=1x4,np=3,fetch=texelfetch+ssbo,store=f16", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x4,np=3,out=image,blk=16x8,fetch=texelfetch+ssbo,store=f16,order=frag,tile=64x64", 37,
     53, 71, 1, 1, 1.5f, 0.5f},
    {"mc=2x2,np=2,out=image,blk=4x4,fetch=ssbo,store=f16,acc=copy", 33, 35, 37, 0, 1, -0.5f, 1.0f},
    {"mrt=1x2,mc=1x2,np=4,fetch=ssbo+texelfetch,store=f16", 29, 31, 45, 1, 0, 2.0f, 0.25f},
    {"mc=2x1,np=3,profile=310es,out=image,blk=4x2,fetch=texelfetch+ssbo,store=f16", 41, 19, 50,
     0, 1, 1.0f, 1.0f},
    {"mc=4x1,np=2,out=image,blk=8x8,fetch=ssbo,store=f16,ku=2", 27, 25, 33, 1, 1, 1.0f, 0.0f},
};
#define NGRID ((int)(sizeof grid / sizeof *grid))

START_TEST(ssbo_grid)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(grid[_i].variant, NULL, &v, err, sizeof err) == 0, "%s: %s",
                  grid[_i].variant, err);
    ck_assert_msg(gen_fetch_ssbos(v.fetch) > 0, "%s", grid[_i].variant);
    run_grid_case(&grid[_i], 900u + (unsigned)_i);
}
END_TEST

/* A storage buffer past the limit (lowered here: llvmpipe's is 128 MiB):
 * the problem is cut into blocks whose buffers fit, and C is right; the
 * K blocks add their passes.  Each value, out=rt and out=image. */
static const struct {
    gemm_case c;
    long max_bytes;
} split_cases[] = {
    {{"mrt=2x2,mc=1x4,np=3,fetch=texelfetch+ssbo", 67, 45, 83, 0, 0, 1.0f, 0.5f}, 4096},
    {{"mc=1x4,np=2,out=image,blk=8x8,fetch=texelfetch+ssbo,acc=copy", 40, 70, 90, 1, 1, 2.0f,
      0.0f}, 2048},
    {{"mrt=1x2,mc=2x2,np=all,fetch=ssbo+texelfetch", 50, 29, 61, 0, 1, -1.0f, 0.25f}, 3000},
    {{"mc=1x3,np=3,out=image,blk=2x6,fetch=ssbo", 33, 37, 41, 1, 0, 1.0f, 1.0f}, 1024},
    {{"mc=1x4,np=2,out=image,blk=8x8,fetch=texelfetch+ssbo,store=f16", 40, 70, 90, 0, 1, 1.0f,
      0.5f}, 1024},
};
#define NSPLIT ((int)(sizeof split_cases / sizeof *split_cases))

START_TEST(ssbo_split)
{
    const gemm_case *gc = &split_cases[_i].c;
    long max_bytes = split_cases[_i].max_bytes;
    gemm_run r;
    setup_case(&r, gc, 950u + (unsigned)_i);
    /* Unsplit, the largest buffer passes the limit; the plan cuts it. */
    gg_layout whole;
    ck_assert_int_eq(gen_layout_compute(&r.v, gc->m, gc->n, gc->k, &whole), 0);
    gg_store st = r.v.store;
    long a0 = gen_fetch_path(r.v.fetch, 0) == GG_FETCH_SSBO ? (long)gen_pack_ssbo_bytes(&whole, 0, st) : 0;
    long b0 = gen_fetch_path(r.v.fetch, 1) == GG_FETCH_SSBO ? (long)gen_pack_ssbo_bytes(&whole, 1, st) : 0;
    ck_assert_msg((a0 > b0 ? a0 : b0) > max_bytes, "%s fits unsplit", gc->variant);
    gg_split sp;
    char why[256];
    ck_assert_msg(host_ssbo_plan(&r.v, gc->m, gc->n, gc->k, 16384, max_bytes, 1, &sp, why,
                                 sizeof why) == 0, "%s", why);
    ck_assert_int_gt(sp.kblocks, 1); /* the passes tell that the run split too */
    if (gen_fetch_path(r.v.fetch, 0) == GG_FETCH_SSBO)
        ck_assert_int_le((long)gen_pack_ssbo_bytes(&sp.L, 0, st), max_bytes);
    if (gen_fetch_path(r.v.fetch, 1) == GG_FETCH_SSBO)
        ck_assert_int_le((long)gen_pack_ssbo_bytes(&sp.L, 1, st), max_bytes);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_ssbo_bytes = max_bytes;
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert_int_eq(r.m.passes, sp.L.passes * sp.kblocks);
    /* one draw a pass of every block (no tiles here): the run drew the plan's blocks */
    ck_assert_int_eq(r.m.draws, (long)sp.mblocks * sp.nblocks * sp.kblocks * sp.L.passes);
    free_case(&r);
}
END_TEST

/* No block fits a limit below one texel row's worth: unsupported, naming
 * the limit, nothing written as a result. */
START_TEST(ssbo_too_big)
{
    gemm_run r;
    gemm_case gc = {"mrt=2x2,mc=1x4,np=3,fetch=texelfetch+ssbo", 37, 53, 71, 0, 0, 1.0f, 0.0f};
    setup_case(&r, &gc, 7);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_ssbo_bytes = 8; /* less than one vec4 */
    evaluate(&r, &o);
    ck_assert_int_eq(r.m.status, GG_UNSUPPORTED);
    ck_assert(r.m.gflops == 0);
    ck_assert_msg(strstr(r.m.detail, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE") &&
                      strstr(r.m.detail, "8 bytes"), "%s", r.m.detail);
    free_case(&r);
}
END_TEST

/* The buffer as GL holds it against a model of the layout written here
 * from the matrices (not from gen/pack.c): B's element (y*b_w + x)*stride
 * + i*c + j holds op(B)[y*r + i][col*c + j] with col the plain column that
 * texture column x holds (order=frag: gen_layout_b_col), zero past k and
 * n and in a three-channel texel's fourth float; A's likewise with rows. */
static const struct {
    const char *variant;
    int m, n, k, transa, transb;
} layouts[] = {
    {"mrt=2x2,mc=1x4,np=3,fetch=ssbo", 13, 22, 19, 0, 0},
    {"mrt=1x2,mc=2x2,np=2,fetch=ssbo", 9, 11, 14, 1, 1},
    {"mc=1x3,np=3,out=image,blk=2x6,fetch=ssbo", 7, 17, 10, 0, 1},
    {"mc=4x1,np=2,out=image,blk=8x4,fetch=ssbo,order=frag", 21, 15, 23, 1, 0},
    {"mc=1x1,np=4,out=image,blk=4x4,fetch=ssbo,order=frag", 10, 18, 9, 0, 0},
    /* store=f16: element e is the half of the model's value e (stride the
     * channels: 2 or 4 halves a texel, read in pairs) */
    {"mrt=2x1,mc=1x4,np=3,fetch=ssbo,store=f16", 13, 22, 19, 1, 0},
    {"mc=2x1,np=2,out=image,blk=4x4,fetch=ssbo,store=f16,order=frag", 21, 15, 23, 0, 1},
};

static float model(const gg_layout *L, gg_store store, const gg_inputs *in, int matrix, size_t e)
{
    int st = L->channels == 3 && store == GG_STORE_F32 ? 4 : L->channels, ch = (int)(e % (size_t)st);
    size_t t = e / (size_t)st;
    if (ch >= L->channels)
        return 0.0f;
    int i = ch / L->c, j = ch % L->c;
    if (matrix == 0) { /* A: texel (x, y) holds rows y*r + i (texture row y), k x*c + j */
        int x = (int)(t % (size_t)L->a_w), y = (int)(t / (size_t)L->a_w);
        int row = gen_layout_a_row(L, y) * L->r + i, kk = x * L->c + j;
        return row < in->m && kk < in->k ? gg_op_a(in, row, kk) : 0.0f;
    }
    int x = (int)(t % (size_t)L->b_w), y = (int)(t / (size_t)L->b_w);
    int kk = y * L->r + i, col = gen_layout_b_col(L, x) * L->c + j;
    return kk < in->k && col < in->n ? gg_op_b(in, kk, col) : 0.0f;
}

START_TEST(ssbo_layout_in_gl)
{
    char err[256];
    gg_problem p;
    base_problem_default(&p);
    p.m = layouts[_i].m;
    p.n = layouts[_i].n;
    p.k = layouts[_i].k;
    p.transa = layouts[_i].transa;
    p.transb = layouts[_i].transb;
    p.seed = 31 + (unsigned)_i;
    gg_inputs in;
    ck_assert_msg(base_inputs_make(&p, &in, err, sizeof err) == 0, "%s", err);
    gg_variant v;
    ck_assert_msg(gen_variant_parse(layouts[_i].variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, p.m, p.n, p.k, &L), 0);
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(host_session_context(s, GG_CTX_CORE, NULL, err, sizeof err, NULL) == 0, "%s", err);
    gg_block blk = gen_block_whole(&L);
    for (int matrix = 0; matrix < 2; matrix++) {
        size_t packed_n = matrix ? gen_pack_b_floats(&L) : gen_pack_a_floats(&L);
        bool half = v.store == GG_STORE_F16;
        size_t bytes = gen_pack_ssbo_bytes(&L, matrix, v.store), n = bytes / (half ? 2 : 4);
        ck_assert_uint_eq(bytes, half ? packed_n * 2 : gen_pack_ssbo_floats(&L, matrix) * 4);
        float *packed = malloc(packed_n * sizeof *packed), *got = malloc(bytes);
        uint16_t *halves = malloc(packed_n * sizeof *halves);
        ck_assert(packed && got && halves);
        if (matrix)
            gen_pack_b(&L, (gg_src){in.b, in.ldb, in.transb}, &blk, packed);
        else
            gen_pack_a(&L, (gg_src){in.a, in.lda, in.transa}, &blk, packed);
        if (half) /* the halves the host uploads (run.c's store_data) */
            gen_floats_to_halves(halves, packed, packed_n);
        GLuint b = host_ssbo_make(&L, matrix, v.store, half ? (const void *)halves : packed);
        ck_assert_uint_ne(b, 0);
        ck_assert_int_eq(host_ssbo_read(b, bytes, got), 0);
        glDeleteBuffers(1, &b);
        for (size_t e = 0; e < n; e++) {
            float want = model(&L, v.store, &in, matrix, e);
            float have = half ? gen_half_to_float(((const uint16_t *)(const void *)got)[e]) : got[e];
            ck_assert_msg(have == (half ? gen_half_round(want) : want),
                          "%s: %c element %zu: %g, model %g", layouts[_i].variant, matrix ? 'B' : 'A',
                          e, have, want);
        }
        free(packed);
        free(got);
        free(halves);
    }
    host_session_free(s);
    base_inputs_free(&in);
}
END_TEST

/* ---- rules ---- */

static const struct {
    const char *variant;
    int ssbos;          /* GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS of the card */
    gg_card_verdict verdict;
    const char *why;
} cards[] = {
    {"fetch=texelfetch+ssbo", 8, GG_CARD_OK, ""},
    {"fetch=ssbo,profile=310es", 4, GG_CARD_OK, ""},
    {"fetch=ssbo+texelfetch,profile=310es,mc=2x2,out=image,blk=4x4", 1, GG_CARD_OK, ""},
    {"fetch=texelfetch+ssbo,profile=300es", 8, GG_CARD_INVALID,
     "fetch=texelfetch+ssbo needs profile=430 or 310es: shader storage buffers are GLSL 4.30 and "
     "GLSL ES 3.10, not profile 300es (nor WebGL2)"},
    {"fetch=ssbo,profile=330", 8, GG_CARD_INVALID, "not profile 330"},
    {"fetch=ssbo+texelfetch,profile=120", 8, GG_CARD_INVALID, "not profile 120"},
    {"fetch=texelfetch+ssbo,store=f16", 8, GG_CARD_INVALID,
     "fetch=texelfetch+ssbo with store=f16 needs 2 or 4 elements a texel (mc=1x2, 2x1, 1x4, 4x1 "
     "or 2x2): the storage buffer holds the halves in pairs (unpackHalf2x16), not mc=1x1's 1"},
    {"fetch=ssbo,store=f16,mc=1x3", 8, GG_CARD_INVALID, "not mc=1x3's 3"},
    {"fetch=texelfetch+ssbo,store=f16,mc=1x4", 8, GG_CARD_OK, ""},
    {"fetch=ssbo+texelfetch,store=f16,mc=2x1,profile=310es", 8, GG_CARD_OK, ""},
    {"fetch=ssbo,store=f16x8", 8, GG_CARD_INVALID, "store=f16x8 has no storage-buffer path"},
    {"fetch=texelfetch+ssbo,profile=330,compiler=spirv", 8, GG_CARD_INVALID,
     "compiler=spirv covers out=rt with fetch=texture or texelfetch only"},
    {"fetch=texelfetch+ssbo,profile=310es", 0, GG_CARD_UNSUPPORTED,
     "fetch=texelfetch+ssbo needs 1 shader storage block(s) in the fragment shader; this context "
     "has 0 (GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS)"},
    {"fetch=ssbo,profile=310es", 1, GG_CARD_UNSUPPORTED, "needs 2 shader storage block(s)"},
};

START_TEST(ssbo_card_check)
{
    gg_variant v;
    char err[256], why[256] = "stale";
    ck_assert_msg(gen_variant_parse(cards[_i].variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    bool es = v.profile == GG_PROFILE_300ES || v.profile == GG_PROFILE_310ES;
    gg_card_limits lim = {.max_draw_buffers = 8, .max_texture_size = 16384, .float_blend = true,
                          .spirv = true, .es = es, .gl_version = es ? 32 : 46,
                          .max_fragment_images = 8, .max_texture_buffer = 1L << 27,
                          .packing_ext = true, .max_fragment_ssbos = cards[_i].ssbos};
    gg_card_verdict got = gen_variant_check_card(&v, &lim, why, sizeof why);
    ck_assert_msg(got == cards[_i].verdict, "%s: verdict %d, want %d (%s)", cards[_i].variant, got,
                  cards[_i].verdict, why);
    ck_assert_msg(strstr(why, cards[_i].why) != NULL, "%s: '%s' lacks '%s'", cards[_i].variant, why,
                  cards[_i].why);
}
END_TEST

/* The paths of each value, and the canonical form: the profile of storage
 * buffers where none is named (430, or 310es from an ES one), the name
 * read back as written. */
START_TEST(ssbo_parse_paths)
{
    static const struct {
        const char *text, *canonical;
        gg_fetch a, b;
    } t[] = {
        {"fetch=texelfetch+ssbo", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=430,compiler=glsl,"
                                  "acc=pingpong,store=f32,fetch=texelfetch+ssbo",
         GG_FETCH_TEXELFETCH, GG_FETCH_SSBO},
        {"mc=2x2,fetch=ssbo+texelfetch,profile=300es", "mrt=1x1,mc=2x2,np=all,unroll=0,"
         "profile=300es,compiler=glsl,acc=pingpong,store=f32,fetch=ssbo+texelfetch",
         GG_FETCH_SSBO, GG_FETCH_TEXELFETCH},
        {"nv-multi,fetch=ssbo", "mrt=1x1,mc=1x4,np=6,unroll=1,profile=430,compiler=glsl,"
                                "acc=pingpong,store=f32,fetch=ssbo", GG_FETCH_SSBO, GG_FETCH_SSBO},
        {"mc=1x4,out=image,blk=8x8,fetch=texelfetch+ssbo,order=frag",
         "mrt=1x1,mc=1x4,np=all,unroll=0,profile=430,compiler=glsl,acc=pingpong,store=f32,"
         "out=image,blk=8x8,fetch=texelfetch+ssbo,order=frag", GG_FETCH_TEXELFETCH, GG_FETCH_SSBO},
        {"fetch=ubo", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                      "store=f32,fetch=ubo", GG_FETCH_UBO, GG_FETCH_TEXELFETCH},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        gg_variant v, back;
        char err[256], buf[GG_VARIANT_TEXT];
        ck_assert_msg(gen_variant_parse(t[i].text, NULL, &v, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf), t[i].canonical);
        ck_assert_int_eq(gen_fetch_path(v.fetch, 0), t[i].a);
        ck_assert_int_eq(gen_fetch_path(v.fetch, 1), t[i].b);
        ck_assert_int_eq(gen_fetch_ssbos(v.fetch),
                         (t[i].a == GG_FETCH_SSBO) + (t[i].b == GG_FETCH_SSBO));
        ck_assert_msg(gen_variant_parse(buf, NULL, &back, err, sizeof err) == 0, "%s", err);
        ck_assert(gen_variant_equal(&v, &back));
    }
}
END_TEST

START_TEST(ssbo_parse_bad)
{
    static const char *const bad[] = {"fetch=ssbo+ssbo", "fetch=texelfetch+", "fetch=SSBO",
                                      "fetch=texture+ssbo"};
    gg_variant v;
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(gen_variant_parse(bad[i], NULL, &v, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "is not allowed; use texture, texelfetch, image, buffer, ubo, ssbo, "
                                  "texelfetch+ssbo or ssbo+texelfetch") && !strchr(err, '\n'),
                      "%s: %s", bad[i], err);
    }
}
END_TEST

/* The emitted text: the std430 blocks at their bindings, the element type
 * (vec4 for three channels, narrowed), reads by one index, the other
 * matrix by texelFetch. */
START_TEST(ssbo_emit)
{
    gg_variant v;
    char err[256];
    ck_assert(!gen_variant_parse("mrt=2x1,mc=1x4,np=3,fetch=texelfetch+ssbo", NULL, &v, err, sizeof err));
    char *f = gen_emit_fragment(&v, 9, 13, 11);
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(strstr(f, "layout(binding = 0) uniform sampler2D uA;\n"
                            "layout(std430, binding = 1) readonly buffer BBuf { vec4 uBs[]; };"), "%s", f);
    ck_assert_msg(strstr(f, "int kb = (uKBase + i) * 16;\n"), "%s", f);
    ck_assert_msg(strstr(f, "vec4 b0_3 = uBs[kb + bx0 + 12];\n"), "%s", f);
    ck_assert_msg(strstr(f, "vec4 a1_0 = texelFetch(uA, ivec2(ka, ay1), 0);\n"), "%s", f);
    ck_assert_ptr_null(strstr(f, "uniform sampler2D uB;"));
    free(f);
    ck_assert(!gen_variant_parse("mc=1x3,out=image,blk=2x6,np=2,fetch=ssbo+texelfetch", NULL, &v, err, sizeof err));
    f = gen_emit_fragment(&v, 9, 13, 11);
    ck_assert_msg(strstr(f, "layout(std430, binding = 0) readonly buffer ABuf { vec4 uAs[]; };"), "%s", f);
    ck_assert_msg(strstr(f, "int ay1 = (f.y + 5) * 4;\n"), "%s", f);
    ck_assert_msg(strstr(f, "vec3 a1_0 = uAs[ay1 + ka].xyz;\n"), "%s", f);
    ck_assert_msg(strstr(f, "texelFetch(uB, ivec2(bx0, kb), 0).xyz"), "%s", f);
    free(f);
    /* store=f16: halves in pairs, unpacked where read */
    ck_assert(!gen_variant_parse("mrt=2x1,mc=1x4,np=3,fetch=texelfetch+ssbo,store=f16", NULL, &v,
                                 err, sizeof err));
    f = gen_emit_fragment(&v, 9, 13, 11);
    ck_assert_msg(strstr(f, "readonly buffer BBuf { uvec2 uBs[]; };"), "%s", f);
    ck_assert_msg(strstr(f, "vec4 unpackHalf4(uvec2 h) { return vec4(unpackHalf2x16(h.x), "
                            "unpackHalf2x16(h.y)); }\n"), "%s", f);
    ck_assert_msg(strstr(f, "vec4 b0_3 = unpackHalf4(uBs[kb + bx0 + 12]);\n"), "%s", f);
    ck_assert_msg(strstr(f, "vec4 a1_0 = texelFetch(uA, ivec2(ka, ay1), 0);\n"), "%s", f);
    free(f);
    ck_assert(!gen_variant_parse("mc=1x2,fetch=ssbo,store=f16", NULL, &v, err, sizeof err));
    f = gen_emit_fragment(&v, 9, 13, 11);
    ck_assert_msg(strstr(f, "readonly buffer ABuf { uint uAs[]; };") &&
                  strstr(f, "vec2 a0_0 = unpackHalf2x16(uAs[ay0 + ka]);\n") &&
                  !strstr(f, "unpackHalf4"), "%s", f);
    free(f);
    ck_assert(!gen_variant_parse("mc=1x2,fetch=ssbo,profile=310es", NULL, &v, err, sizeof err));
    f = gen_emit_fragment(&v, 9, 13, 11);
    ck_assert_msg(strstr(f, "#version 310 es\n"), "%s", f);
    ck_assert_msg(strstr(f, "readonly buffer ABuf { vec2 uAs[]; };") &&
                  strstr(f, "readonly buffer BBuf { vec2 uBs[]; };"), "%s", f);
    free(f);
}
END_TEST

START_TEST(ssbo_glslang)
{
    if (!base_spirv_available()) {
        fprintf(stderr, "ssbo: glslang case skipped: glslangValidator is not installed\n");
        return;
    }
    char log[4096];
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(grid[_i].variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    char *f = gen_emit_fragment(&v, grid[_i].m, grid[_i].n, grid[_i].k);
    ck_assert_ptr_nonnull(f);
    int rc = tu_glslang(f, "frag", "", log, sizeof log);
    ck_assert_msg(rc == 0, "%s: glslang exit %d\n%s\n%s", grid[_i].variant, rc, log, f);
    free(f);
}
END_TEST

/* ---- the command line ---- */

START_TEST(ssbo_cli)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(".", NULL, "run mrt=2x2,mc=1x4,np=3,fetch=texelfetch+ssbo --m 19 --n 23 --k 37 "
                               "--reps 1 --csv", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, ",2x2,1x4,3,0,430,glsl,pingpong,f32,rt,-,texelfetch+ssbo,-,1,plain,4,ok,"),
                  "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run fetch=texelfetch+sbo --size 8", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "glgemm run: fetch: 'texelfetch+sbo' is not allowed; use texture, "
                          "texelfetch, image, buffer, ubo, ssbo, texelfetch+ssbo or ssbo+texelfetch\n");
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run fetch=ssbo,profile=300es --size 8", &out, &err);
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(out, "fetch=ssbo 8x8x8: invalid: fetch=ssbo needs profile=430 or 310es"),
                  "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "info", &out, &err);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "\nmax fragment storage blocks: "), "%s", out);
    free(out);
    free(err);
}
END_TEST

Suite *make_ssbo_suite(void)
{
    Suite *s = suite_create("ssbo");
    TCase *tc = tcase_create("rules");
    tcase_set_tags(tc, "pure");
    tcase_add_loop_test(tc, ssbo_card_check, 0, (int)(sizeof cards / sizeof *cards));
    tcase_add_test(tc, ssbo_parse_paths);
    tcase_add_test(tc, ssbo_parse_bad);
    tcase_add_test(tc, ssbo_emit);
    suite_add_tcase(s, tc);
    TCase *gs = tcase_create("glslang");
    tcase_add_loop_test(gs, ssbo_glslang, 0, NGRID);
    suite_add_tcase(s, gs);
    TCase *gl = tcase_create("gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 300);
    tcase_add_loop_test(gl, ssbo_grid, 0, NGRID);
    tcase_add_loop_test(gl, ssbo_split, 0, NSPLIT);
    tcase_add_test(gl, ssbo_too_big);
    tcase_add_loop_test(gl, ssbo_layout_in_gl, 0, (int)(sizeof layouts / sizeof *layouts));
    tcase_add_test(gl, ssbo_cli);
    suite_add_tcase(s, gl);
    return s;
}
