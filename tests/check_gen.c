/* gen/: variants (parse, canonical form, presets, card checks), layout
 * figures, emitted text, glslang as an independent compiler, shaders/. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen/gen.h"
#include "base/spirv.h"
#include "tests/cli_util.h"
#include "tests/gen_grid.h"
#include "tests/glslang_util.h"
#include "tests/suites.h"

/* ---- parsing: good texts and their canonical forms ---- */

static const struct {
    const char *text, *canonical;
} good[] = {
    {"mrt=1x1", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"acc=blend,mc=2x2,mrt=2x4,np=16,unroll=1,profile=300es,compiler=glsl",
     "mrt=2x4,mc=2x2,np=16,unroll=1,profile=300es,compiler=glsl,acc=blend,store=f32"},
    {"np=1", "mrt=1x1,mc=1x1,np=1,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"np=all,profile=120,acc=copy", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=120,compiler=glsl,acc=copy,store=f32"},
    {"mc=1x3,mrt=8x1", "mrt=8x1,mc=1x3,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"mc=4x1,mrt=1x8,compiler=spirv", "mrt=1x8,mc=4x1,np=all,unroll=0,profile=330,compiler=spirv,acc=pingpong,store=f32"},
    {"larsen", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-single", "mrt=1x1,mc=2x2,np=128,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-multi", "mrt=1x1,mc=1x4,np=6,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"tfjs", "mrt=1x1,mc=2x2,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-single,np=64", "mrt=1x1,mc=2x2,np=64,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-multi,mrt=2x2,profile=300es,acc=blend",
     "mrt=2x2,mc=1x4,np=6,unroll=1,profile=300es,compiler=glsl,acc=blend,store=f32"},
    {"tfjs,unroll=1,np=7", "mrt=1x1,mc=2x2,np=7,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"larsen,mc=1x1,mrt=1x1", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"np=2147483647", "mrt=1x1,mc=1x1,np=2147483647,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"store=f16", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16"},
    {"store=f32", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32"},
    {"nv-single,store=f16", "mrt=1x1,mc=2x2,np=128,unroll=1,profile=330,compiler=glsl,acc=pingpong,store=f16"},
    {"store=f16,acc=blend,mrt=2x4", "mrt=2x4,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=blend,store=f16"},
    /* The canonical form from before the store key (results/, best files): f32. */
    {"mrt=2x4,mc=4x1,np=32,unroll=1,profile=330,compiler=glsl,acc=blend",
     "mrt=2x4,mc=4x1,np=32,unroll=1,profile=330,compiler=glsl,acc=blend,store=f32"},
};

START_TEST(parse_good)
{
    gg_variant v;
    char err[256] = "x", buf[GG_VARIANT_TEXT];
    ck_assert_msg(gen_variant_parse(good[_i].text, NULL, &v, err, sizeof err) == 0, "%s: %s",
                  good[_i].text, err);
    ck_assert_str_eq(err, "");
    ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf), good[_i].canonical);
}
END_TEST

/* ---- parsing: bad texts and their exact one-line messages ---- */

#define KEYS "(keys: mrt, mc, np, unroll, profile, compiler, acc, store, out, blk, fetch, tile, ku, order)"
static const struct {
    const char *text, *message;
} bad[] = {
    {"", "empty variant; give key=value pairs " KEYS " or a preset (larsen, nv-single, nv-multi, tfjs, best)"},
    {"foo=1", "unknown key 'foo' " KEYS},
    {"mrt=1x1,Mc=1x1", "unknown key 'Mc' " KEYS},
    {"mrt=1x1,mrt=2x2", "mrt given twice; each key at most once"},
    {"store=f63", "store: 'f63' is not allowed; use f32, f16, f16x8, f64, dd or df"},
    {"store=F16", "store: 'F16' is not allowed; use f32, f16, f16x8, f64, dd or df"},
    {"ku=3", "ku: '3' is not allowed; use 1, 2 or 4"},
    {"unroll=1,ku=2", "ku: 2 k-steps a loop iteration needs unroll=0 (unroll=1 writes the whole k loop out)"},
    {"tile=4x4", "tile: 4x4 is 16 fragments a draw; W*H must be at least 64 (smaller draws cost more than they "
                 "can save)"},
    {"tile=64x64q", "tile: '64x64q' is not allowed; use WxH fragments, W, H >= 1 and W*H at least 64, optionally "
                    "followed by c (tiles in columns) or z (Z order), e.g. 64x32 or 64x64z; or none (one draw)"},
    {"order=kx", "order: 'kx' is not allowed; use plain or frag (frag: out=image only)"},
    {"store=half", "store: 'half' is not allowed; use f32, f16, f16x8, f64, dd or df"},
    {"store=", "store: empty value; use f32, f16, f16x8, f64, dd or df"},
    {"larsen,store", "store: missing '=value'; use f32, f16, f16x8, f64, dd or df"},
    {"store=f16,store=f32", "store given twice; each key at most once"},
    {"nv-single,np=4,np=8", "np given twice; each key at most once"},
    {"mrt= 2x2", "whitespace is not allowed in a variant; write key=value,key=value (e.g. nv-single,np=64)"},
    {" larsen", "whitespace is not allowed in a variant; write key=value,key=value (e.g. nv-single,np=64)"},
    {"larsen\n", "whitespace is not allowed in a variant; write key=value,key=value (e.g. nv-single,np=64)"},
    {"mrt=1x1,", "empty item in variant (a stray comma); write key=value,key=value"},
    {",mrt=1x1", "empty item in variant (a stray comma); write key=value,key=value"},
    {"mrt=1x1,,np=2", "empty item in variant (a stray comma); write key=value,key=value"},
    {"mc=3x2", "mc: 3x2 packs 6 values; R*C must be at most 4"},
    {"mc=1x5", "mc: 1x5 packs 5 values; R*C must be at most 4"},
    {"mrt=3x3", "mrt: 3x3 needs 9 render targets; R*C must be at most 8"},
    {"mrt=1x16", "mrt: 1x16 needs 16 render targets; R*C must be at most 8"},
    {"mrt=0x1", "mrt: '0x1' is not allowed; use RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)"},
    {"mrt=2", "mrt: '2' is not allowed; use RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)"},
    {"mrt=2X2", "mrt: '2X2' is not allowed; use RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)"},
    {"mrt=02x2", "mrt: '02x2' is not allowed; use RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)"},
    {"mrt=2x2x2", "mrt: '2x2x2' is not allowed; use RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)"},
    {"mc=x2", "mc: 'x2' is not allowed; use RxC with R, C >= 1 and R*C at most 4 (1x1, 1x2, 2x1, 1x3, 3x1, 1x4, 4x1, 2x2)"},
    {"mc=-1x1", "mc: '-1x1' is not allowed; use RxC with R, C >= 1 and R*C at most 4 (1x1, 1x2, 2x1, 1x3, 3x1, 1x4, 4x1, 2x2)"},
    {"np=0", "np: '0' is not allowed; use an integer >= 1, or all"},
    {"np=-3", "np: '-3' is not allowed; use an integer >= 1, or all"},
    {"np=+3", "np: '+3' is not allowed; use an integer >= 1, or all"},
    {"np=08", "np: '08' is not allowed; use an integer >= 1, or all"},
    {"np=2147483648", "np: '2147483648' is not allowed; use an integer >= 1, or all"},
    {"np=ALL", "np: 'ALL' is not allowed; use an integer >= 1, or all"},
    {"np=", "np: empty value; use an integer >= 1, or all"},
    {"unroll=2", "unroll: '2' is not allowed; use 0 or 1"},
    {"unroll=yes", "unroll: 'yes' is not allowed; use 0 or 1"},
    {"profile=450", "profile: '450' is not allowed; use 120, 330, 300es, 430 or 310es"},
    {"profile=300ES", "profile: '300ES' is not allowed; use 120, 330, 300es, 430 or 310es"},
    {"compiler=hlsl", "compiler: 'hlsl' is not allowed; use glsl or spirv"},
    {"acc=add", "acc: 'add' is not allowed; use copy, pingpong or blend"},
    {"np", "np: missing '=value'; use an integer >= 1, or all"},
    {"mrt=1x1,acc", "acc: missing '=value'; use copy, pingpong or blend"},
    {"nvsingle", "unknown preset 'nvsingle' (presets: larsen, nv-single, nv-multi, tfjs, best; or key=value pairs, keys: mrt, mc, np, unroll, profile, compiler, acc, store, out, blk, fetch, tile, ku, order)"},
    {"np=4,tfjs", "preset 'tfjs' must come first, then key=value overrides"},
    {"larsen,tfjs", "preset 'tfjs' must come first, then key=value overrides"},
    {"mrt=1x1,fast", "'fast' is not key=value " KEYS},
    {"best", "best: no best variant is recorded for this card and problem (run glgemm tune first)"},
    {"best,np=2", "best: no best variant is recorded for this card and problem (run glgemm tune first)"},
};

START_TEST(parse_bad)
{
    gg_variant v, before;
    gen_variant_default(&v);
    v.np = 77; /* out must be untouched on failure */
    before = v;
    char err[512] = "";
    ck_assert_int_eq(gen_variant_parse(bad[_i].text, NULL, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, bad[_i].message);
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert_int_eq(memcmp(&v, &before, sizeof v), 0);
}
END_TEST

START_TEST(parse_short_err_buffer)
{
    gg_variant v;
    char err[8];
    ck_assert_int_eq(gen_variant_parse("mc=3x2", NULL, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "mc: 3x2"); /* truncated, terminated */
    ck_assert_int_eq(gen_variant_parse("mc=3x2", NULL, &v, NULL, 0), -1);
}
END_TEST

START_TEST(parse_best)
{
    gg_variant best, v;
    char err[256], buf[GG_VARIANT_TEXT];
    ck_assert_int_eq(gen_variant_parse("mrt=2x4,mc=1x4,np=12,acc=blend", NULL, &best, err, sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("best", &best, &v, err, sizeof err), 0);
    ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf),
                     "mrt=2x4,mc=1x4,np=12,unroll=0,profile=330,compiler=glsl,acc=blend,store=f32");
    ck_assert_int_eq(gen_variant_parse("best,np=all,unroll=1", &best, &v, err, sizeof err), 0);
    ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf),
                     "mrt=2x4,mc=1x4,np=all,unroll=1,profile=330,compiler=glsl,acc=blend,store=f32");
    /* A preset's overrides change only what they name. */
    ck_assert_int_eq(gen_variant_parse("nv-single,np=64", NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(v.np, 64);
    ck_assert_int_eq(v.mc.rows * 10 + v.mc.cols, 22);
    ck_assert_int_eq(v.unroll, 1);
}
END_TEST

START_TEST(names_and_defaults)
{
    gg_variant v;
    gen_variant_default(&v);
    char buf[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf),
                     "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32");
    ck_assert_str_eq(gen_profile_name(GG_PROFILE_120), "120");
    ck_assert_str_eq(gen_profile_name(GG_PROFILE_300ES), "300es");
    ck_assert_str_eq(gen_compiler_name(GG_COMPILER_SPIRV), "spirv");
    ck_assert_str_eq(gen_acc_name(GG_ACC_COPY), "copy");
    ck_assert_str_eq(gen_acc_name(GG_ACC_BLEND), "blend");
}
END_TEST

/* Every variant of the full space prints and parses back to itself. */
START_TEST(canonical_round_trip)
{
    static const int nps[] = {GG_NP_ALL, 1, 2, 7, 128, 100000};
    int count = 0;
    for (int R = 1; R <= 8; R++)
        for (int C = 1; R * C <= 8; C++)
            for (int r = 1; r <= 4; r++)
                for (int c = 1; r * c <= 4; c++)
                    for (size_t i = 0; i < sizeof nps / sizeof *nps; i++)
                        for (int u = 0; u < 2; u++)
                            for (int p = 0; p < 3; p++)
                                for (int co = 0; co < 2; co++)
                                    for (int a = 0; a < 3 * GG_STORE_COUNT; a++) {
                                        gg_variant v = {{R, C}, {r, c}, nps[i], u, (gg_profile)p,
                                                        (gg_compiler)co, (gg_acc)(a % 3),
                                                        (gg_store)(a / 3), GG_OUT_RT, {0, 0},
                                                        GG_FETCH_TEXTURE,
                                                        co ? (gg_shape){16, 32} : (gg_shape){0, 0},
                                                        co ? (gg_tile_order)(a % 3) : GG_TILE_ROWS,
                                                        u ? 1 : (int[]){1, 2, 4}[a % 3],
                                                        (gg_order)(p % 2)};
                                        gg_variant back;
                                        char buf[GG_VARIANT_TEXT], buf2[GG_VARIANT_TEXT], err[256];
                                        gen_variant_format(&v, buf, sizeof buf);
                                        ck_assert_msg(gen_variant_parse(buf, NULL, &back, err, sizeof err) == 0,
                                                      "%s: %s", buf, err);
                                        ck_assert_int_eq(memcmp(&v, &back, sizeof v), 0);
                                        ck_assert_str_eq(gen_variant_format(&back, buf2, sizeof buf2), buf);
                                        count++;
                                    }
    /* 20 mrt shapes x 8 packings x 6 np x 2 x 3 x 2 x 3 acc x GG_STORE_COUNT stores */
    ck_assert_int_eq(count, 20 * 8 * 6 * 2 * 3 * 2 * 3 * GG_STORE_COUNT);
}
END_TEST

/* ---- card checks ---- */

static const struct {
    const char *variant;
    int draw_buffers;
    bool float_blend, spirv;
    gg_card_verdict verdict;
    const char *why;
} cards[] = {
    {"mrt=2x4", 8, true, true, GG_CARD_OK, ""},
    {"mrt=2x4", 4, true, true, GG_CARD_UNSUPPORTED,
     "mrt=2x4 needs 8 render targets; this card has 4 (GL_MAX_DRAW_BUFFERS)"},
    {"mrt=1x4,acc=blend", 4, false, true, GG_CARD_UNSUPPORTED,
     "acc=blend needs blending into float render targets, which this GL context lacks"},
    {"acc=blend,profile=300es", 8, false, true, GG_CARD_UNSUPPORTED,
     "acc=blend needs blending into float render targets, which this ES (EXT_float_blend) context lacks"},
    {"acc=pingpong", 1, false, false, GG_CARD_OK, ""},
    {"mc=1x4,order=frag", 8, true, true, GG_CARD_INVALID,
     "order=frag reorders the texels for out=image's strided blocks; out=rt reads its targets' rows side by "
     "side already"},
    {"mc=1x4,out=image,blk=8x8,fetch=ubo,tile=64x64", 8, true, true, GG_CARD_INVALID,
     "tile=64x64: fetch=ubo draws in strips of 2 fragment rows of its own, one draw each"},
    {"compiler=spirv", 8, true, false, GG_CARD_UNSUPPORTED,
     "compiler=spirv needs GL_ARB_gl_spirv and glslangValidator, which this context or machine lacks"},
    {"compiler=spirv", 8, true, true, GG_CARD_OK, ""},
    {"compiler=spirv,profile=120", 8, true, true, GG_CARD_INVALID,
     "compiler=spirv needs profile=330: glslang makes OpenGL SPIR-V only from desktop GLSL 3.30 or later, not GLSL 1.20"},
    {"compiler=spirv,profile=300es,mrt=2x4", 1, false, false, GG_CARD_INVALID,
     "compiler=spirv needs profile=330: OpenGL SPIR-V (GL_ARB_gl_spirv) has no GLSL ES input, so glslang cannot make it from GLSL ES 3.00"},
};

START_TEST(card_check)
{
    gg_variant v;
    char err[256], why[256] = "stale";
    ck_assert_int_eq(gen_variant_parse(cards[_i].variant, NULL, &v, err, sizeof err), 0);
    gg_card_limits lim = {.max_draw_buffers = cards[_i].draw_buffers, .max_texture_size = 16384,
                          .float_blend = cards[_i].float_blend, .spirv = cards[_i].spirv};
    ck_assert_int_eq(gen_variant_check_card(&v, &lim, why, sizeof why), cards[_i].verdict);
    ck_assert_str_eq(why, cards[_i].why);
}
END_TEST

/* ---- layout figures ---- */

static const struct {
    const char *variant;
    int m, n, k;
    int step, ksteps, np, passes, kpad, mpad, npad, a_w, a_h, b_w, b_h, tgt_w, tgt_h;
    long fetches, mads;
} layouts[] = {
    /* larsen at 1024: one pass, 1024 steps of one A and one B texel. */
    {"larsen", 1024, 1024, 1024, 1, 1024, 1024, 1, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024,
     2049, 1024},
    /* nv-single: 2x2 texels, 512 steps in 4 passes of 128. */
    {"nv-single", 1024, 1024, 1024, 2, 512, 128, 4, 1024, 1024, 1024, 512, 512, 512, 512, 512, 512,
     257, 1024},
    /* nv-multi: 1x4, k padded to 43 passes * 6 steps * 4. */
    {"nv-multi", 1024, 1024, 1024, 4, 256, 6, 43, 1032, 1024, 1024, 258, 1024, 256, 1032, 256, 1024,
     31, 96},
    /* 2x4 targets of 1x3 texels, blend (no prev), odd sizes. */
    {"mrt=2x4,mc=1x3,np=5,acc=blend", 37, 29, 41, 3, 14, 5, 3, 45, 38, 36, 15, 38, 12, 45, 3, 19,
     (2 * 1 + 4 * 3) * 5, 8 * 3 * 3 * 5},
    /* 3x1 packing: A texel holds 3 rows, step 3 (3 A texels, 1 B texel). */
    {"mc=3x1,mrt=1x2,np=all,acc=copy", 10, 10, 10, 3, 4, 4, 1, 12, 12, 10, 12, 4, 10, 4, 5, 4,
     (3 + 2) * 4 + 2, 2 * 3 * 3 * 4},
};

START_TEST(layout_figures)
{
    gg_variant v;
    gg_layout L;
    char err[256];
    ck_assert_int_eq(gen_variant_parse(layouts[_i].variant, NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(gen_layout_compute(&v, layouts[_i].m, layouts[_i].n, layouts[_i].k, &L), 0);
    ck_assert_int_eq(L.step, layouts[_i].step);
    ck_assert_int_eq(L.ksteps, layouts[_i].ksteps);
    ck_assert_int_eq(L.np, layouts[_i].np);
    ck_assert_int_eq(L.passes, layouts[_i].passes);
    ck_assert_int_eq(L.kpad, layouts[_i].kpad);
    ck_assert_int_eq(L.mpad, layouts[_i].mpad);
    ck_assert_int_eq(L.npad, layouts[_i].npad);
    ck_assert_int_eq(L.a_w, layouts[_i].a_w);
    ck_assert_int_eq(L.a_h, layouts[_i].a_h);
    ck_assert_int_eq(L.b_w, layouts[_i].b_w);
    ck_assert_int_eq(L.b_h, layouts[_i].b_h);
    ck_assert_int_eq(L.tgt_w, layouts[_i].tgt_w);
    ck_assert_int_eq(L.tgt_h, layouts[_i].tgt_h);
    ck_assert_int_eq(L.fetches_per_frag_pass, layouts[_i].fetches);
    ck_assert_int_eq(L.mads_per_frag_pass, layouts[_i].mads);
}
END_TEST

START_TEST(layout_rejects)
{
    gg_variant v;
    gg_layout L;
    gen_variant_default(&v);
    ck_assert_int_eq(gen_layout_compute(&v, 0, 1, 1, &L), -1);
    ck_assert_int_eq(gen_layout_compute(&v, 1, 1, -1, &L), -1);
    ck_assert_ptr_null(gen_emit_fragment(&v, 1, 0, 1));
    v.mrt.rows = 8;
    v.mc.rows = 4;
    ck_assert_int_eq(gen_layout_compute(&v, 2147483647, 1, 1, &L), -1); /* padding overflows */
}
END_TEST

/* ---- emitted text ---- */

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *emit(const char *variant, int m, int n, int k)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(variant, NULL, &v, err, sizeof err) == 0, "%s", err);
    char *s = gen_emit_fragment(&v, m, n, k);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* store=f16 changes the header only: the line after the variant says the
 * storage, and the rest of the text is the f32 variant's, byte for byte. */
START_TEST(emit_store_header_only)
{
    static const char *const bases[] = {"mrt=2x4,mc=4x1,np=32,unroll=1,acc=blend",
                                        "mrt=1x2,mc=1x3,np=3,profile=120,acc=copy",
                                        "mrt=2x2,mc=2x2,profile=300es"};
    for (int i = 0; i < 3; i++) {
        char t32[128], t16[128];
        snprintf(t32, sizeof t32, "%s,store=f32", bases[i]);
        snprintf(t16, sizeof t16, "%s,store=f16", bases[i]);
        char *a = emit(t32, 67, 45, 83), *b = emit(t16, 67, 45, 83);
        ck_assert_ptr_nonnull(strstr(a, ",store=f32\n * storage: A and B as fp32, sums in fp32\n"));
        ck_assert_ptr_nonnull(
            strstr(b, ",store=f16\n * storage: A and B as half floats (f16), sums in fp32\n"));
        const char *ra = strstr(a, " * problem:"), *rb = strstr(b, " * problem:");
        ck_assert_ptr_nonnull(ra);
        ck_assert_str_eq(ra, rb);
        free(a);
        free(b);
    }
}
END_TEST

/* Samplers, outputs and the fetch function per profile and acc. */
START_TEST(emit_interface)
{
    static const char *const profiles[] = {"120", "330", "300es"};
    static const char *const accs[] = {"copy", "pingpong", "blend"};
    for (int p = 0; p < 3; p++)
        for (int a = 0; a < 3; a++) {
            char variant[128];
            snprintf(variant, sizeof variant, "mrt=2x3,mc=1x2,np=3,profile=%s,acc=%s", profiles[p], accs[a]);
            char *s = emit(variant, 20, 30, 40);
            const char *first = p == 0 ? "#version 120\n" : p == 1 ? "#version 330\n" : "#version 300 es\n";
            ck_assert_msg(!strncmp(s, first, strlen(first)), "%s: starts %.20s", variant, s);
            ck_assert_msg(strstr(s, "\n/* Generated by glgemm gen "), "%s: header", variant);
            ck_assert_msg(strstr(s, "variant: mrt=2x3,mc=1x2,np=3,unroll=0,profile="), "%s", variant);
            ck_assert_msg(strstr(s, "problem: m=20 n=30 k=40"), "%s", variant);
            ck_assert_int_eq(count_of(s, "uniform sampler2D uA;"), 1);
            ck_assert_int_eq(count_of(s, "uniform sampler2D uB;"), 1);
            ck_assert_int_eq(count_of(s, "uniform sampler2D uPrev"), a == 2 ? 0 : 6);
            ck_assert_int_eq(count_of(s, "uniform sampler2D uPrev5;"), a == 2 ? 0 : 1);
            ck_assert_int_eq(count_of(s, "uniform int uKBase;"), 1);
            ck_assert_int_eq(count_of(s, "uniform float uAlpha;"), 1);
            ck_assert_int_eq(count_of(s, "uniform "), (a == 2 ? 2 : 8) + 2);
            /* every profile samples at texel centres from the baked sizes (GL_NEAREST):
             * k pads to 42, A is 21 wide and 20 high, B 42 high */
            ck_assert_int_eq(count_of(s, "texelFetch"), 0);
            ck_assert_ptr_nonnull(strstr(s, "float ay1 = (float(f.y * 2 + 1) + 0.5) / 20.0;"));
            ck_assert_ptr_nonnull(strstr(s, "float kb = float((uKBase + i) * 2) + 0.5;"));
            if (p == 0) {
                ck_assert_int_eq(count_of(s, "gl_FragData["), 6);
                ck_assert_int_eq(count_of(s, "gl_FragData[5] = "), 1);
                ck_assert_int_eq(count_of(s, " out "), 0);
                ck_assert_ptr_nonnull(strstr(s, "vec2 a1_0 = texture2D(uA, vec2(ka / 21.0, ay1)).xy;"));
                ck_assert_ptr_nonnull(strstr(s, "vec2 b2_1 = texture2D(uB, vec2(bx2, (kb + 1.0) / 42.0)).xy;"));
                ck_assert_int_eq(count_of(s, "texture("), 0);
            } else {
                ck_assert_int_eq(count_of(s, "texture2D"), 0);
                ck_assert_int_eq(count_of(s, "gl_FragData"), 0);
                ck_assert_int_eq(count_of(s, ") out vec4 o"), 6);
                ck_assert_int_eq(count_of(s, "layout(location = 5) out vec4 o5;"), 1);
                ck_assert_ptr_nonnull(strstr(s, "vec2 a1_0 = texture(uA, vec2(ka / 21.0, ay1)).xy;"));
                ck_assert_ptr_nonnull(strstr(s, "vec2 b2_1 = texture(uB, vec2(bx2, (kb + 1.0) / 42.0)).xy;"));
                ck_assert_int_eq(count_of(s, "texture(uPrev"), a == 2 ? 0 : 6);
            }
            ck_assert_int_eq(count_of(s, "precision highp"), p == 2 ? 3 : 0);
            ck_assert_int_eq(count_of(s, "layout(binding"), 0);
            /* every pass: prev + alpha*acc, or alpha*acc for blend; zero padding */
            ck_assert_int_eq(count_of(s, "p3 + uAlpha * acc3, 0.0, 0.0)"), a == 2 ? 0 : 1);
            ck_assert_int_eq(count_of(s, "vec4(uAlpha * acc3, 0.0, 0.0)"), a == 2 ? 1 : 0);
            free(s);
        }
}
END_TEST

START_TEST(emit_spirv_interface)
{
    char *s = emit("mrt=1x2,mc=2x2,compiler=spirv,acc=copy,store=f32", 8, 8, 8);
    ck_assert(!strncmp(s, "#version 330\n", 13));
    ck_assert_ptr_nonnull(strstr(s, "#extension GL_ARB_explicit_uniform_location : require"));
    ck_assert_ptr_nonnull(strstr(s, "#extension GL_ARB_shading_language_420pack : require"));
    ck_assert_ptr_nonnull(strstr(s, "layout(binding = 0) uniform sampler2D uA;"));
    ck_assert_ptr_nonnull(strstr(s, "layout(binding = 1) uniform sampler2D uB;"));
    ck_assert_ptr_nonnull(strstr(s, "layout(binding = 3) uniform sampler2D uPrev1;"));
    ck_assert_ptr_nonnull(strstr(s, "layout(location = 0) uniform int uKBase;"));
    ck_assert_ptr_nonnull(strstr(s, "layout(location = 1) uniform float uAlpha;"));
    free(s);
    gg_variant v;
    gen_variant_default(&v);
    v.compiler = GG_COMPILER_SPIRV;
    char *vs = gen_emit_vertex(&v);
    ck_assert_ptr_nonnull(strstr(vs, "layout(location = 0) in vec2 aPos;"));
    free(vs);
    v.profile = GG_PROFILE_120;
    vs = gen_emit_vertex(&v);
    ck_assert(!strncmp(vs, "#version 120\n", 13));
    ck_assert_ptr_nonnull(strstr(vs, "attribute vec2 aPos;"));
    free(vs);
    v.profile = GG_PROFILE_300ES;
    vs = gen_emit_vertex(&v);
    ck_assert(!strncmp(vs, "#version 300 es\n", 16));
    ck_assert_ptr_nonnull(strstr(vs, "layout(location = 0) in vec2 aPos;"));
    free(vs);
}
END_TEST

/* The k-step's multiply-adds for each packing: the swizzle products of the
 * generic rule, scalars for repeated channels, no identity swizzles. */
static const struct {
    const char *mc, *mad;
} mads[] = {
    {"1x1", "acc0 = acc0 + a0_0 * b0_0;"},
    {"1x2", "acc0 = acc0 + a0_0.x * b0_0 + a0_0.y * b0_1;"},
    {"2x1", "acc0 = acc0 + a0_0 * b0_0.x + a0_1 * b0_0.y;"},
    {"1x3", "acc0 = acc0 + a0_0.x * b0_0 + a0_0.y * b0_1 + a0_0.z * b0_2;"},
    {"3x1", "acc0 = acc0 + a0_0 * b0_0.x + a0_1 * b0_0.y + a0_2 * b0_0.z;"},
    {"1x4", "acc0 = acc0 + a0_0.x * b0_0 + a0_0.y * b0_1 + a0_0.z * b0_2 + a0_0.w * b0_3;"},
    {"4x1", "acc0 = acc0 + a0_0 * b0_0.x + a0_1 * b0_0.y + a0_2 * b0_0.z + a0_3 * b0_0.w;"},
    {"2x2", "acc0 = acc0 + a0_0.xxzz * b0_0.xyxy + a0_0.yyww * b0_0.zwzw;"},
};

START_TEST(emit_packing_mads)
{
    char variant[64];
    snprintf(variant, sizeof variant, "mc=%s,np=2", mads[_i].mc);
    char *s = emit(variant, 16, 16, 16);
    ck_assert_msg(count_of(s, mads[_i].mad) == 1, "%s: expected '%s' in\n%s", mads[_i].mc, mads[_i].mad, s);
    int ch = (mads[_i].mc[0] - '0') * (mads[_i].mc[2] - '0');
    static const char *const types[] = {"", "float", "vec2", "vec3", "vec4"};
    char decl[32];
    snprintf(decl, sizeof decl, "    %s acc0 = ", types[ch]);
    ck_assert_ptr_nonnull(strstr(s, decl));
    free(s);
}
END_TEST

/* MRT: target t = ti*C + tj uses A row ti and B column tj. */
START_TEST(emit_mrt_rows_cols)
{
    char *s = emit("mrt=2x4,mc=2x2,np=1", 16, 16, 16);
    ck_assert_ptr_nonnull(strstr(s, "float ay1 = (float(f.y * 2 + 1) + 0.5) / 8.0;"));
    ck_assert_ptr_nonnull(strstr(s, "float bx3 = (float(f.x * 4 + 3) + 0.5) / 8.0;"));
    ck_assert_ptr_nonnull(strstr(s, "acc6 = acc6 + a1_0.xxzz * b2_0.xyxy + a1_0.yyww * b2_0.zwzw;"));
    ck_assert_int_eq(count_of(s, "texture(uA"), 2); /* one per target row */
    ck_assert_int_eq(count_of(s, "texture(uB"), 4); /* one per target column */
    free(s);
}
END_TEST

START_TEST(emit_unroll)
{
    char *loop = emit("mc=1x4,np=5,unroll=0", 40, 40, 100);
    char *flat = emit("mc=1x4,np=5,unroll=1", 40, 40, 100);
    ck_assert_int_eq(count_of(loop, "for (int i = 0; i < 5; ++i)"), 1);
    ck_assert_int_eq(count_of(loop, "texture(uB"), 4);
    ck_assert_int_eq(count_of(flat, "for ("), 0);
    ck_assert_int_eq(count_of(flat, "{ /* k-step uKBase+"), 5);
    ck_assert_int_eq(count_of(flat, "texture(uB"), 5 * 4);
    ck_assert_ptr_nonnull(strstr(flat, "texture(uB, vec2(bx0, (kb + 19.0) / 100.0))")); /* last B texel */
    ck_assert_ptr_null(strstr(flat, "kb + 20"));
    free(loop);
    free(flat);
    /* np=all resolves to the k-steps: 25 of 4 scalar k. */
    char *all = emit("mc=1x4,np=all,unroll=1", 40, 40, 100);
    ck_assert_int_eq(count_of(all, "{ /* k-step uKBase+"), 25);
    free(all);
}
END_TEST

START_TEST(emit_deterministic)
{
    char *a = emit("mrt=4x2,mc=3x1,np=7,unroll=1,profile=120,acc=copy", 33, 17, 70);
    char *b = emit("acc=copy,profile=120,unroll=1,np=7,mc=3x1,mrt=4x2", 33, 17, 70);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    char *c = emit("tfjs", 64, 64, 64);
    char *d = emit("tfjs", 64, 64, 65);
    ck_assert_str_ne(c, d); /* the problem is baked in */
    free(c);
    free(d);
}
END_TEST

/* ---- glslang: an independent compiler for the pairwise grid ---- */

START_TEST(glslang_accepts_grid)
{
    ck_assert_msg(base_spirv_available(), "glslangValidator is not installed (glslang-tools)");
    gg_variant *grid;
    int n = gg_grid_pairwise(&grid);
    ck_assert_int_gt(n, 0);
    int checked = 0;
    char log[4096];
    for (int i = 0; i < n; i++) {
        if (grid[i].profile == GG_PROFILE_120 || i % 2)
            continue; /* a sample: every other 330 / 300es variant */
        char *s = gen_emit_fragment(&grid[i], GG_GRID_M, GG_GRID_N, GG_GRID_K);
        char vt[GG_VARIANT_TEXT];
        int rc = tu_glslang(s, "frag", "", log, sizeof log);
        ck_assert_msg(rc == 0, "glslang rejects %s:\n%s", gen_variant_format(&grid[i], vt, sizeof vt), log);
        free(s);
        checked++;
    }
    free(grid);
    ck_assert_int_gt(checked, 10);
}
END_TEST

START_TEST(glslang_rejects_broken)
{
    char log[4096];
    ck_assert_int_ne(tu_glslang("#version 330\nvoid main() { undefined_thing = 1.0; }\n", "frag", "", log,
                             sizeof log), 0);
    ck_assert_ptr_nonnull(strstr(log, "undefined_thing"));
}
END_TEST

START_TEST(spirv_compile)
{
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=1x4,np=3,compiler=spirv,acc=copy,store=f32", NULL, &v, err, sizeof err), 0);
    char *fs = gen_emit_fragment(&v, 24, 24, 24), *vs = gen_emit_vertex(&v);
    void *spv;
    size_t len;
    char *log;
    ck_assert_int_eq(base_spirv_compile(fs, GG_STAGE_FRAGMENT, &spv, &len, &log), GG_SPIRV_OK);
    ck_assert_int_gt(len, 20);
    ck_assert_int_eq(len % 4, 0);
    ck_assert_uint_eq(((unsigned *)spv)[0], 0x07230203u); /* SPIR-V magic */
    free(spv);
    free(log);
    ck_assert_int_eq(base_spirv_compile(vs, GG_STAGE_VERTEX, &spv, &len, NULL), GG_SPIRV_OK);
    ck_assert_uint_eq(((unsigned *)spv)[0], 0x07230203u);
    free(spv);
    /* A 330 source without explicit locations: OpenGL SPIR-V refuses it. */
    v.compiler = GG_COMPILER_GLSL;
    char *plain = gen_emit_fragment(&v, 24, 24, 24);
    ck_assert_int_eq(base_spirv_compile(plain, GG_STAGE_FRAGMENT, &spv, &len, &log), GG_SPIRV_REJECTED);
    ck_assert_ptr_null(spv);
    ck_assert_ptr_nonnull(log);
    ck_assert_ptr_nonnull(strstr(log, "ERROR"));
    free(log);
    free(plain);
    free(fs);
    free(vs);
}
END_TEST

/* A folder left by a process killed mid-compile (glgemm-spirv-<pid>-XXXXXX
 * of a pid that is gone) is removed by the next process's first look for the
 * validator (every context makes one, compiling or not); a
 * live process's folder and other names are left; the compile leaves none
 * of its own.  In a child: the sweep is once per process. */
static void make_folder(const char *tmp, const char *name, bool files)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    for (int i = 0; files && i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", tmp, name, i ? "log.txt" : "shader.frag");
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs("left by a killed process\n", f);
        fclose(f);
    }
}

static bool folder_exists(const char *tmp, const char *name)
{
    char p[512];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    return stat(p, &sb) == 0;
}

START_TEST(spirv_sweeps_stale_folders)
{
    char tmp[128], dead[64], live[64];
    tu_mkdtemp(tmp, sizeof tmp, "spirv-sweep");
    pid_t gone = fork(); /* a pid that surely has no process now */
    ck_assert_int_ge(gone, 0);
    if (gone == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(gone, NULL, 0), gone);
    snprintf(dead, sizeof dead, "glgemm-spirv-%ld-AbC123", (long)gone);
    snprintf(live, sizeof live, "glgemm-spirv-%ld-XyZ789", (long)getpid());
    make_folder(tmp, dead, true);
    make_folder(tmp, live, true);
    make_folder(tmp, "glgemm-spirv-QwErTy", false); /* the old naming: not ours to judge */
    fflush(NULL);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        setenv("TMPDIR", tmp, 1);
        gg_variant v;
        char err[256];
        int rc = gen_variant_parse("mrt=1x1,mc=2x2,np=all,compiler=spirv,store=f32", NULL, &v, err,
                                   sizeof err);
        char *fs = rc ? NULL : gen_emit_fragment(&v, 8, 8, 8);
        if (!base_spirv_available() || folder_exists(tmp, dead))
            _exit(2); /* swept by the look-up alone, before any compile */
        void *spv = NULL;
        size_t len;
        _exit(fs && base_spirv_compile(fs, GG_STAGE_FRAGMENT, &spv, &len, NULL) == GG_SPIRV_OK ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(child, &st, 0), child);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the compile failed: %d", st);
    ck_assert_msg(!folder_exists(tmp, dead), "%s (process gone) was left", dead);
    ck_assert_msg(folder_exists(tmp, live), "%s (this process) was removed", live);
    ck_assert(folder_exists(tmp, "glgemm-spirv-QwErTy"));
    DIR *d = opendir(tmp);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(n, 2); /* the live one and the odd name: the compile left nothing */
    tu_rm_rf(tmp);
}
END_TEST

/* ---- shaders/ is the generator's output ---- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(fread(s, 1, (size_t)n, f), n);
    s[n] = '\0';
    fclose(f);
    return s;
}

START_TEST(shaders_presets_match)
{
    static const char *const presets[] = {"larsen", "nv-single", "nv-multi", "tfjs"};
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        char path[64];
        snprintf(path, sizeof path, "shaders/%s.frag", presets[i]);
        char *file = read_file(path);
        ck_assert_msg(file != NULL, "%s is missing: run make shaders", path);
        char *text = emit(presets[i], 1024, 1024, 1024);
        ck_assert_msg(!strcmp(file, text), "%s differs from the generator's output: run make shaders", path);
        free(file);
        free(text);
    }
}
END_TEST

/* The whole folder, through the CLI: same files, same bytes. */
START_TEST(shaders_dir_matches_cli)
{
    char dir[] = "/tmp/glgemm-shaders-XXXXXX", cmd[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *args[] = {"gen", "--write-shaders", dir, NULL};
    tu_result r;
    tu_exec(NULL, NULL, args, &r);
    ck_assert_msg(r.status == 0, "glgemm gen --write-shaders: exit %d; stderr: %s", r.status, r.err);
    tu_result_free(&r);
    snprintf(cmd, sizeof cmd, "diff -r shaders %s >&2", dir);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(rc == 0, "shaders/ differs from `glgemm gen --write-shaders`: run make shaders");
}
END_TEST

/* ---- glgemm gen on the command line ---- */

/* Runs glgemm ARGS (tests/cli_util.h): its exit status; stdout and stderr
 * into the buffers. */
static int run_cli(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
    char *o, *e;
    int rc = tu_run(NULL, NULL, args, &o, &e);
    snprintf(out, outlen, "%s", o);
    snprintf(err, errlen, "%s", e);
    free(o);
    free(e);
    return rc;
}

static const struct {
    const char *args, *output;
} cli_bad[] = {
    {"gen mc=3x2", "glgemm gen: mc: 3x2 packs 6 values; R*C must be at most 4\n"},
    {"gen mrt=2x2, mc=1x4", "glgemm gen: one variant only, got 'mrt=2x2,' and 'mc=1x4'\n"},
    {"gen 'mrt=2x2, mc=1x4'", "glgemm gen: whitespace is not allowed in a variant; write key=value,key=value (e.g. nv-single,np=64)\n"},
    {"gen", "glgemm gen: give a variant, e.g. nv-single or mrt=2x2,mc=1x4\n"},
    {"gen larsen --size 0", "glgemm gen: --size must be an integer from 1 to 1048576, got '0'\n"},
    {"gen best --card no-such-card --size 64",
     "glgemm gen: best: no results/no-such-card/best-64x64x64.txt, nor any other f32 best file of card 'no-such-card' (run glgemm tune --m 64 --n 64 --k 64 on that card first)\n"},
    {"gen best --card ../etc", "glgemm gen: --card must be a card slug (lower case letters, digits and dashes, as glgemm info prints), got '../etc'\n"},
    {"gen --write-shaders /tmp/x larsen", "glgemm gen: --write-shaders DIR takes no variant, problem, -o or --vertex\n"},
};

START_TEST(cli_gen_bad)
{
    char out[1024], err[1024];
    ck_assert_int_eq(run_cli(cli_bad[_i].args, out, sizeof out, err, sizeof err), 2);
    ck_assert_str_eq(err, cli_bad[_i].output);
    ck_assert_str_eq(out, "");
}
END_TEST

/* best at a size with no record of its own: the nearest recorded problem's
 * variant (store/nearest.h, as the library chooses), said on stderr; its own
 * record when there is one. */
START_TEST(cli_gen_best_nearest)
{
    char dir[64], res[96];
    tu_mkdtemp(dir, sizeof dir, "gen-near");
    snprintf(res, sizeof res, "%s/results", dir);
    ck_assert_int_eq(mkdir(res, 0755), 0);
    tu_write_best(res, "card", 64, 64, 64, "mrt=2x2,mc=1x4,np=8", 1);
    tu_write_best(res, "card", 512, 512, 512, "mrt=1x2,mc=2x2,np=16", 1);
    char *out, *err;
    ck_assert_int_eq(tu_run(dir, NULL, "gen best --card card --m 60 --n 70 --k 64", &out, &err), 0);
    ck_assert_str_eq(err, "glgemm gen: best: no record for 60x70x64; the nearest recorded "
                          "problem's, 64x64x64 (results/card/best-64x64x64.txt)\n");
    char *want = emit("mrt=2x2,mc=1x4,np=8", 60, 70, 64);
    ck_assert_str_eq(out, want);
    free(want);
    free(out);
    free(err);
    ck_assert_int_eq(tu_run(dir, NULL, "gen best --card card --size 512", &out, &err), 0);
    ck_assert_str_eq(err, "");
    want = emit("mrt=1x2,mc=2x2,np=16", 512, 512, 512);
    ck_assert_str_eq(out, want);
    free(want);
    free(out);
    free(err);
}
END_TEST

START_TEST(cli_gen_output)
{
    static char out[1 << 16], err[4096];
    ck_assert_int_eq(run_cli("gen nv-multi,mrt=1x2 --m 30 --n 20 --k 50", out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
    char *text = emit("nv-multi,mrt=1x2", 30, 20, 50);
    ck_assert_str_eq(out, text);
    free(text);
    /* -o: the same bytes in the file, nothing on stdout, no temp left. */
    char dir[] = "/tmp/glgemm-gen-XXXXXX", args[256], path[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/s.frag", dir);
    snprintf(args, sizeof args, "gen tfjs --size 48 -o %s", path);
    ck_assert_int_eq(run_cli(args, out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(err, "");
    char *file = read_file(path);
    text = emit("tfjs", 48, 48, 48);
    ck_assert_str_eq(file, text);
    free(file);
    free(text);
    DIR *d = opendir(dir);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));)
        entries += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(entries, 1);
    unlink(path);
    rmdir(dir);
    /* --vertex */
    ck_assert_int_eq(run_cli("gen larsen,profile=120 --vertex", out, sizeof out, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(out, "attribute vec2 aPos;"));
    /* best from a card's record */
    char cwd[] = "/tmp/glgemm-best-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(cwd));
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/results/test-card && printf 'mrt=1x2,mc=2x2,np=8,unroll=0,"
             "profile=330,compiler=glsl,acc=blend 12.5\\n' > %s/results/test-card/best-32x32x32.txt", cwd, cwd);
    ck_assert_int_eq(system(cmd), 0);
    char *best_out;
    ck_assert_int_eq(tu_run(cwd, NULL, "gen best,np=4 --card test-card --size 32", &best_out, NULL), 0);
    snprintf(out, sizeof out, "%s", best_out);
    free(best_out);
    ck_assert_ptr_nonnull(strstr(out, "variant: mrt=1x2,mc=2x2,np=4,unroll=0,profile=330,compiler=glsl,acc=blend,store=f32\n"));
    tu_rm_rf(cwd);
}
END_TEST


/* gen_tile_boxes: every fragment of the viewport in exactly one box, in
 * the order the key says; no tiles: one box, the viewport. */
static const struct {
    const char *tile;
    int w, h, count;
    int x1, y1; /* the second box's corner */
} tiles[] = {
    {"tile=8x8", 20, 12, 6, 8, 0},    {"tile=8x8c", 20, 12, 6, 0, 8},
    {"tile=8x8z", 20, 12, 6, 8, 0},   {"tile=16x4z", 64, 64, 64, 16, 0},
    {"tile=4x16z", 64, 64, 64, 4, 0}, {"tile=64x64", 10, 10, 1, -1, -1},
    {"tile=none", 10, 10, 1, -1, -1},
};

START_TEST(tile_boxes_cover)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(tiles[_i].tile, NULL, &v, err, sizeof err) == 0, "%s", err);
    int w = tiles[_i].w, h = tiles[_i].h;
    int n = gen_tile_boxes(&v, w, h, NULL, 0);
    ck_assert_int_eq(n, tiles[_i].count);
    gg_box *b = malloc((size_t)n * sizeof *b);
    ck_assert_int_eq(gen_tile_boxes(&v, w, h, b, n), n);
    unsigned char *hit = calloc((size_t)w * h, 1);
    for (int t = 0; t < n; t++) {
        ck_assert(b[t].w >= 1 && b[t].h >= 1 && b[t].x + b[t].w <= w && b[t].y + b[t].h <= h);
        for (int y = b[t].y; y < b[t].y + b[t].h; y++)
            for (int x = b[t].x; x < b[t].x + b[t].w; x++)
                hit[y * w + x]++;
    }
    for (int i = 0; i < w * h; i++)
        ck_assert_msg(hit[i] == 1, "fragment (%d, %d) drawn %d times", i % w, i / w, hit[i]);
    if (n > 1) {
        ck_assert_int_eq(b[1].x, tiles[_i].x1);
        ck_assert_int_eq(b[1].y, tiles[_i].y1);
    }
    if (v.tile_order == GG_TILE_Z && n == 64) /* a 4x4 quad of tiles first: Z order */
        ck_assert(b[2].x == 0 && b[2].y == v.tile.rows && b[3].x == v.tile.cols && b[4].x == 2 * v.tile.cols);
    free(hit);
    free(b);
}
END_TEST

/* More tiles than GG_MAX_TILES: -1 (the host says unsupported). */
START_TEST(tile_boxes_too_many)
{
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("tile=8x8", NULL, &v, err, sizeof err), 0);
    ck_assert_int_eq(gen_tile_boxes(&v, 8 * 512, 8 * 129, NULL, 0), -1);
}
END_TEST

/* order=frag: texture rows and columns are a permutation of the plain
 * ones, pairing fragment rows; M and N padded to even fragment counts. */
START_TEST(layout_frag_permutes)
{
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("mc=1x4,out=image,blk=12x8,order=frag", NULL, &v, err, sizeof err), 0);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, 61, 45, 33, &L), 0);
    ck_assert(L.frag);
    ck_assert_int_eq(L.tgt_h % 2, 0);
    ck_assert_int_eq(L.tgt_w % 2, 0);
    ck_assert_int_eq(L.a_h, L.tgt_h * L.tr);
    unsigned char *seen = calloc((size_t)L.a_h + L.b_w, 1);
    for (int t = 0; t < L.a_h; t++) {
        int r = gen_layout_a_row(&L, t);
        ck_assert(r >= 0 && r < L.a_h && !seen[r]);
        seen[r] = 1;
    }
    /* fragment row 3's block row 2 sits at texture row (3/2)*2*tr + 2*2 + 1 */
    ck_assert_int_eq(gen_layout_a_row(&L, 1 * 2 * L.tr + 4 + 1), 3 + 2 * L.tgt_h);
    memset(seen, 0, (size_t)L.a_h + L.b_w);
    for (int t = 0; t < L.b_w; t++) {
        int c = gen_layout_b_col(&L, t);
        ck_assert(c >= 0 && c < L.b_w && !seen[c]);
        seen[c] = 1;
    }
    free(seen);
    /* the plain order: the identity */
    v.order = GG_ORDER_PLAIN;
    ck_assert_int_eq(gen_layout_compute(&v, 61, 45, 33, &L), 0);
    ck_assert(!L.frag && gen_layout_a_row(&L, 7) == 7 && gen_layout_b_col(&L, 5) == 5);
}
END_TEST

/* ku: ku k-steps an iteration and the np % ku rest after the loop; the
 * default text has neither. */
START_TEST(emit_ku)
{
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=2x2,np=7,ku=4", NULL, &v, err, sizeof err), 0);
    char *t = gen_emit_fragment(&v, 64, 64, 64);
    ck_assert_ptr_nonnull(strstr(t, "for (int i = 0; i < 4; i += 4)"));
    ck_assert_ptr_nonnull(strstr(t, "k-steps uKBase+4 .. uKBase+6, after the loop"));
    ck_assert_ptr_nonnull(strstr(t, "loop: 4 k-steps an iteration (ku), 3 after it"));
    free(t);
    v.ku = 2;
    v.np = 8;
    t = gen_emit_fragment(&v, 64, 64, 64);
    ck_assert_ptr_nonnull(strstr(t, "i += 2"));
    ck_assert_ptr_null(strstr(t, "after the loop"));
    free(t);
    v.ku = 1;
    t = gen_emit_fragment(&v, 64, 64, 64);
    ck_assert_ptr_nonnull(strstr(t, "++i"));
    ck_assert_ptr_null(strstr(t, "ku"));
    free(t);
}
END_TEST

Suite *make_gen_suite(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("variant");
    tcase_add_loop_test(tc, parse_good, 0, sizeof good / sizeof *good);
    tcase_add_loop_test(tc, parse_bad, 0, sizeof bad / sizeof *bad);
    tcase_add_test(tc, parse_short_err_buffer);
    tcase_add_test(tc, parse_best);
    tcase_add_test(tc, names_and_defaults);
    tcase_add_test(tc, canonical_round_trip);
    tcase_add_loop_test(tc, card_check, 0, sizeof cards / sizeof *cards);
    /* canonical_round_trip formats and parses 207,360 variants (more with
     * each store): under ASan + UBSan about 7 s on two cores, past check's
     * default 4 */
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("layout");
    tcase_add_loop_test(tc, layout_figures, 0, sizeof layouts / sizeof *layouts);
    tcase_add_test(tc, layout_rejects);
    suite_add_tcase(s, tc);

    tc = tcase_create("emit");
    tcase_add_test(tc, emit_interface);
    tcase_add_test(tc, emit_store_header_only);
    tcase_add_test(tc, emit_spirv_interface);
    tcase_add_loop_test(tc, emit_packing_mads, 0, sizeof mads / sizeof *mads);
    tcase_add_test(tc, emit_mrt_rows_cols);
    tcase_add_test(tc, emit_unroll);
    tcase_add_test(tc, emit_ku);
    tcase_add_loop_test(tc, tile_boxes_cover, 0, sizeof tiles / sizeof *tiles);
    tcase_add_test(tc, tile_boxes_too_many);
    tcase_add_test(tc, layout_frag_permutes);
    tcase_add_test(tc, emit_deterministic);
    suite_add_tcase(s, tc);

    tc = tcase_create("glslang");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, glslang_accepts_grid);
    tcase_add_test(tc, glslang_rejects_broken);
    tcase_add_test(tc, spirv_compile);
    tcase_add_test(tc, spirv_sweeps_stale_folders);
    suite_add_tcase(s, tc);

    tc = tcase_create("shaders");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, shaders_presets_match);
    tcase_add_test(tc, shaders_dir_matches_cli);
    suite_add_tcase(s, tc);

    tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cli_gen_bad, 0, sizeof cli_bad / sizeof *cli_bad);
    tcase_add_test(tc, cli_gen_output);
    tcase_add_test(tc, cli_gen_best_nearest);
    suite_add_tcase(s, tc);
    return s;
}
