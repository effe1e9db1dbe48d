/* store=f16x8 (gen/gen.h): eight halves a RGBA32UI texel, two to a 32-bit
 * channel.  Its variants (parse, canonical form, the card's verdicts), its
 * geometry (hand-worked figures, and invariants against store=f16's layout
 * over a grid), its text (declarations, fetch and unpack counts, glslang
 * as an independent compiler), its packing (each stored half read back the
 * way the shader reads it and compared with the source element, rounded),
 * GEMMs on llvmpipe over every packing, fetch path and out, verified
 * against the reference of the half-rounded inputs and a naive loop, and
 * the CLI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spirv.h"
#include "gen/gen.h"
#include "gen/half.h"
#include "gen/pack.h"
#include "search/search.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/glslang_util.h"
#include "tests/suites.h"

/* The packings f16x8 takes: channel counts that divide 8. */
static const gg_shape packings[] = {{1, 1}, {1, 2}, {2, 1}, {1, 4}, {4, 1}, {2, 2}};
#define NPACK ((int)(sizeof packings / sizeof *packings))

static gg_variant parsed(const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s: %s", text, err);
    return v;
}

/* ---- variants ---- */

START_TEST(f16x8_parse_format)
{
    static const struct {
        const char *text, *canonical;
    } good[] = {
        {"store=f16x8", "mrt=1x1,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f16x8"},
        {"nv-multi,store=f16x8,out=image,blk=16x8", /* image: profile 430 by itself */
         "mrt=1x1,mc=1x4,np=6,unroll=1,profile=430,compiler=glsl,acc=pingpong,store=f16x8,out=image,"
         "blk=16x8"},
        {"fetch=buffer,mc=2x2,store=f16x8,mrt=2x4,acc=blend",
         "mrt=2x4,mc=2x2,np=all,unroll=0,profile=330,compiler=glsl,acc=blend,store=f16x8,fetch=buffer"},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        gg_variant v = parsed(good[i].text), back;
        char buf[GG_VARIANT_TEXT], err[256];
        ck_assert_str_eq(gen_variant_format(&v, buf, sizeof buf), good[i].canonical);
        ck_assert_int_eq(v.store, GG_STORE_F16X8);
        ck_assert_int_eq(gen_variant_parse(buf, NULL, &back, err, sizeof err), 0);
        ck_assert(gen_variant_equal(&v, &back));
    }
    ck_assert_str_eq(gen_store_name(GG_STORE_F16X8), "f16x8");
    ck_assert_int_eq(gen_store_inputs(GG_STORE_F16X8), GG_STORE_F16);
    ck_assert_int_eq(gen_store_inputs(GG_STORE_F16), GG_STORE_F16);
    ck_assert_int_eq(gen_store_inputs(GG_STORE_F32), GG_STORE_F32);
    gg_variant v;
    char err[256];
    ck_assert_int_eq(gen_variant_parse("store=f16X8", NULL, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "store: 'f16X8' is not allowed; use f32, f16, f16x8, f64, dd or df");
}
END_TEST

static const struct {
    const char *variant;
    bool es, packing;
    int gl_version;
    gg_card_verdict verdict;
    const char *why;
} cards[] = {
    {"mc=1x3,store=f16x8", false, true, 45, GG_CARD_INVALID,
     "store=f16x8 packs 8 halves a texel: whole texels of 1, 2 or 4 channels, not the 3 of mc=1x3"},
    {"mc=3x1,store=f16x8,profile=300es", true, false, 32, GG_CARD_INVALID,
     "store=f16x8 packs 8 halves a texel: whole texels of 1, 2 or 4 channels, not the 3 of mc=3x1"},
    {"store=f16x8,profile=120", false, true, 45, GG_CARD_INVALID,
     "store=f16x8 needs unsigned integer textures and unpackHalf2x16 (GLSL 3.30 with "
     "GL_ARB_shading_language_packing, 4.20, ES 3.00), not profile 120"},
    {"mc=1x4,store=f16x8,fetch=ubo", false, true, 45, GG_CARD_INVALID,
     "fetch=ubo holds A as fp32 vec4s in the uniform block; store=f16x8 has no such path"},
    {"mc=1x4,store=f16x8", false, false, 33, GG_CARD_UNSUPPORTED,
     "store=f16x8 with profile=330 needs GL_ARB_shading_language_packing (unpackHalf2x16), which "
     "this context lacks; profile 430 or 300es has it core"},
    {"mc=1x4,store=f16x8", false, true, 33, GG_CARD_OK, ""},
    {"mc=2x2,store=f16x8,profile=300es", true, false, 30, GG_CARD_OK, ""},
    {"mc=1x4,store=f16x8,out=image,blk=8x8", false, false, 45, GG_CARD_OK, ""},
    /* rgba32ui whatever mc: a 2-channel packing reads as an image in ES,
     * which store=f16 cannot (no rg16f image format there). */
    {"mc=1x2,store=f16x8,fetch=image,profile=310es", true, false, 31, GG_CARD_OK, ""},
    {"mc=1x2,store=f16,fetch=image,profile=310es", true, false, 31, GG_CARD_INVALID,
     "fetch=image has no image format of 2 channels in GLSL ES (mc=1x2)"},
    {"mc=1x4,store=f16x8,compiler=spirv,fetch=texelfetch", false, true, 46, GG_CARD_OK, ""},
};

START_TEST(f16x8_card_verdicts)
{
    gg_variant v = parsed(cards[_i].variant);
    gg_card_limits lim = {.max_draw_buffers = 8, .max_texture_size = 16384, .float_blend = true,
                          .spirv = true, .es = cards[_i].es, .gl_version = cards[_i].gl_version,
                          .max_fragment_images = 8, .max_texture_buffer = 1 << 27,
                          .packing_ext = cards[_i].packing};
    char why[256] = "stale", why2[256] = "stale";
    ck_assert_int_eq(gen_variant_check_card(&v, &lim, why, sizeof why), cards[_i].verdict);
    ck_assert_str_eq(why, cards[_i].why);
    /* The card-free half says the same of what no card runs. */
    ck_assert_int_eq(gen_variant_invalid(&v, why2, sizeof why2), cards[_i].verdict == GG_CARD_INVALID);
    if (cards[_i].verdict == GG_CARD_INVALID)
        ck_assert_str_eq(why2, cards[_i].why);
}
END_TEST

/* ---- geometry ---- */

static const struct {
    const char *variant;
    int m, n, k;
    int group, ku, np, passes, kpad, a_w, a_h, b_w, b_h;
    long fetches, mads;
} layouts[] = {
    /* 1x4: A one half texel a step, B four; g 2: 2 steps an iteration, np
     * 3 -> 4, 10 k-steps in 3 passes; A 48/4/2 = 6 wide, B 48/2 = 24 tall;
     * per pass 2 iterations of 1 A + 4 B texels, and the running sum. */
    {"mc=1x4,np=3,store=f16x8", 37, 37, 37, 2, 2, 4, 3, 48, 6, 37, 10, 24, 2 * (1 + 4) + 1,
     1 * 4 * 4 * 4},
    /* 1x1: g 8, 8 steps an iteration, 19 -> 24, one pass of 3 iterations
     * of 2 A rows + 1 B column (blend: no running sum). */
    {"mc=1x1,mrt=2x1,np=all,acc=blend,store=f16x8", 5, 7, 19, 8, 8, 24, 1, 24, 3, 6, 7, 3,
     3 * (2 + 1), 2 * 1 * 1 * 24},
    /* 2x2 unrolled: np 1 -> 2, 5 k-steps in 3 passes of one iteration. */
    {"mc=2x2,np=1,unroll=1,store=f16x8", 8, 8, 9, 2, 2, 2, 3, 12, 3, 4, 4, 3, 1 + 1 + 1,
     1 * 4 * 2 * 2},
    /* 4x1, 2 targets: A four half texels a step (two stored), B one (two
     * steps a stored texel): ku 2, np 5 -> 6. */
    {"mc=4x1,mrt=1x2,np=5,store=f16x8", 33, 33, 33, 2, 2, 6, 2, 48, 24, 9, 34, 6,
     3 * (4 + 2 * 1) + 2, 2 * 4 * 4 * 6},
    /* 1x2: g 4; A 1 half texel a step, B 2: ku 4 (1 stored A, 2 stored B). */
    {"mc=1x2,np=3,store=f16x8", 10, 10, 10, 4, 4, 4, 2, 16, 2, 10, 5, 4, 1 * (1 + 2) + 1,
     1 * 2 * 2 * 4},
    /* 2x1: the mirror. */
    {"mc=2x1,np=3,store=f16x8", 10, 10, 10, 4, 4, 4, 2, 16, 4, 5, 10, 2, 1 * (2 + 1) + 1,
     1 * 2 * 2 * 4},
    /* The ku key past the group's need: 4 steps an iteration, np 3 -> 4. */
    {"mc=1x4,np=3,ku=4,store=f16x8", 37, 37, 37, 2, 4, 4, 3, 48, 6, 37, 10, 24, 2 * (1 + 4) + 1,
     1 * 4 * 4 * 4},
    /* ... and below it: the group's 8 (np 5 -> 8, 19 k-steps in 3 passes). */
    {"mc=1x1,np=5,ku=2,store=f16x8", 5, 7, 19, 8, 8, 8, 3, 24, 3, 5, 7, 3, 1 + 1 + 1, 8},
};

START_TEST(f16x8_layout_figures)
{
    gg_variant v = parsed(layouts[_i].variant);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, layouts[_i].m, layouts[_i].n, layouts[_i].k, &L), 0);
    ck_assert_int_eq(L.group, layouts[_i].group);
    ck_assert_int_eq(L.ku, layouts[_i].ku);
    ck_assert_int_eq(L.np, layouts[_i].np);
    ck_assert_int_eq(L.passes, layouts[_i].passes);
    ck_assert_int_eq(L.kpad, layouts[_i].kpad);
    ck_assert_int_eq(L.a_w, layouts[_i].a_w);
    ck_assert_int_eq(L.a_h, layouts[_i].a_h);
    ck_assert_int_eq(L.b_w, layouts[_i].b_w);
    ck_assert_int_eq(L.b_h, layouts[_i].b_h);
    ck_assert_int_eq(L.fetches_per_frag_pass, layouts[_i].fetches);
    ck_assert_int_eq(L.mads_per_frag_pass, layouts[_i].mads);
}
END_TEST

/* Over a grid: whole groups a loop iteration (the ku key's, or the least
 * count that makes whole groups where that is larger),
 * passes on iteration boundaries, the stored sizes f16's divided by the
 * group, the same multiply-adds as store=f16 at the same np, and group
 * times its multiply-adds a texel fetched. */
START_TEST(f16x8_layout_invariants)
{
    static const int nps[] = {1, 2, 3, 5, GG_NP_ALL};
    static const int ks[] = {1, 7, 37, 64};
    static const gg_shape mrts[] = {{1, 1}, {2, 2}, {1, 3}};
    static const int kus[] = {1, 2, 4};
    int checked = 0;
    for (int p = 0; p < NPACK; p++)
        for (size_t a = 0; a < sizeof nps / sizeof *nps; a++)
            for (size_t b = 0; b < sizeof ks / sizeof *ks; b++)
                for (size_t t = 0; t < sizeof mrts / sizeof *mrts * 3; t++) {
                    gg_variant v;
                    gen_variant_default(&v);
                    v.mc = packings[p];
                    v.mrt = mrts[t % 3];
                    v.np = nps[a];
                    v.ku = kus[t / 3];
                    v.store = GG_STORE_F16X8;
                    gg_layout L, H;
                    ck_assert_int_eq(gen_layout_compute(&v, 9, 11, ks[b], &L), 0);
                    int g = L.group, ch = L.channels;
                    ck_assert_int_eq(g * ch, 8);
                    /* the least count of steps that makes whole groups of A and B */
                    int whole = 1;
                    while (whole * L.a_texels_per_step % g || whole * L.b_texels_per_step % g)
                        whole *= 2;
                    ck_assert_int_eq(L.ku, v.ku > whole ? v.ku : whole);
                    ck_assert_int_eq(L.ku * L.a_texels_per_step % g, 0);
                    ck_assert_int_eq(L.ku * L.b_texels_per_step % g, 0);
                    int want = v.np == GG_NP_ALL || v.np > L.ksteps ? L.ksteps : v.np;
                    ck_assert_int_eq(L.np % L.ku, 0);
                    ck_assert(L.np >= want && L.np < want + L.ku);
                    ck_assert(L.passes * L.np >= L.ksteps && (L.passes - 1) * L.np < L.ksteps);
                    ck_assert_int_eq(L.a_w * g * L.c, L.kpad);
                    ck_assert_int_eq(L.b_h * g * L.r, L.kpad);
                    ck_assert_int_eq(L.a_texels_per_iter * g, L.ku * L.a_texels_per_step);
                    /* store=f16 at the np f16x8 resolved to, on its padded k (np may
                     * pass the k-steps of k) */
                    gg_variant h = v;
                    h.store = GG_STORE_F16;
                    h.np = L.np;
                    h.ku = 1;
                    ck_assert_int_eq(gen_layout_compute(&h, 9, 11, L.kpad, &H), 0);
                    ck_assert_int_eq(H.group, 1);
                    ck_assert_int_eq(H.ku, 1);
                    ck_assert_int_eq(H.kpad, L.kpad);
                    ck_assert(H.mpad == L.mpad && H.npad == L.npad && H.passes == L.passes);
                    ck_assert(H.tgt_w == L.tgt_w && H.tgt_h == L.tgt_h);
                    ck_assert_int_eq(H.a_w, L.a_w * g);
                    ck_assert_int_eq(H.b_h, L.b_h * g);
                    ck_assert_int_eq(H.a_h, L.a_h);
                    ck_assert_int_eq(H.b_w, L.b_w);
                    ck_assert_int_eq(H.mads_per_frag_pass, L.mads_per_frag_pass);
                    long sums = L.targets; /* pingpong reads each target's running sum */
                    ck_assert_int_eq((L.fetches_per_frag_pass - sums) * g,
                                     H.fetches_per_frag_pass - sums);
                    ck_assert_double_eq_tol(gen_layout_mads_per_fetch(&L),
                                            g * gen_layout_mads_per_fetch(&H), 1e-9);
                    checked++;
                }
    ck_assert_int_eq(checked, NPACK * 5 * 4 * 3 * 3);
}
END_TEST

/* The search's normal form: f16x8 rounds ku up to whole stored texels, so
 * each ku becomes the smallest giving the same iteration (one shader, one
 * point); the layout is the same before and after; other stores keep ku. */
START_TEST(f16x8_ku_normalised)
{
    static const int sizes[] = {37, 64, 129};
    int merged = 0;
    for (int p = 0; p < NPACK; p++)
        for (int z = 0; z < 3; z++)
            for (int np = 0; np < 2; np++) {
                char text[128];
                int first_of[9] = {0}; /* a loop iteration's k-steps -> the first ku giving it */
                for (int ku = 1; ku <= 4; ku *= 2) {
                    snprintf(text, sizeof text, "mc=%dx%d,np=%s,ku=%d,store=f16x8",
                             packings[p].rows, packings[p].cols, np ? "all" : "3", ku);
                    gg_variant v = parsed(text), w = v;
                    gg_layout a, b;
                    ck_assert_int_eq(gen_layout_compute(&v, sizes[z], sizes[z], sizes[z], &a), 0);
                    ck_assert_int_eq(search_variant_normalize(&w, sizes[z], sizes[z], sizes[z]), 0);
                    ck_assert_int_eq(gen_layout_compute(&w, sizes[z], sizes[z], sizes[z], &b), 0);
                    ck_assert_msg(a.ku == b.ku && a.np == b.np && a.passes == b.passes,
                                  "%s: the layout changed (ku %d -> %d)", text, a.ku, b.ku);
                    ck_assert_int_le(a.ku, 8);
                    if (!first_of[a.ku])
                        first_of[a.ku] = ku;
                    ck_assert_msg(w.ku == first_of[a.ku], "%s: ku %d, not %d", text, w.ku,
                                  first_of[a.ku]);
                    merged += w.ku != ku;
                    v.store = GG_STORE_F32; /* keeps its ku */
                    ck_assert_int_eq(search_variant_normalize(&v, sizes[z], sizes[z], sizes[z]), 0);
                    ck_assert_int_eq(v.ku, ku);
                }
            }
    ck_assert_int_gt(merged, 0); /* the grid has ku values that merge */
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
    gg_variant v = parsed(variant);
    char *s = gen_emit_fragment(&v, m, n, k);
    ck_assert_ptr_nonnull(s);
    return s;
}

static const struct {
    const char *variant;
    const char *has[4], *lacks[3];
} decls[] = {
    {"mc=1x4,store=f16x8,fetch=texelfetch",
     {"#version 330\n", "#extension GL_ARB_shading_language_packing : require\n",
      "uniform usampler2D uA;\nuniform usampler2D uB;\n", "= texelFetch(uA, ivec2(ka, ay0), 0);\n"},
     {"precision", "uniform sampler2D uA", "uimage2D"}},
    {"mc=2x2,store=f16x8,profile=300es",
     {"precision highp usampler2D;\n", "uniform usampler2D uA;\n", "= texture(uA, vec2(ka / ",
      "uniform sampler2D uPrev0;\n"},
     {"#extension", "image", "samplerBuffer"}},
    {"mc=1x4,store=f16x8,fetch=image,profile=430",
     {"layout(binding = 1, rgba32ui) readonly uniform highp uimage2D uImgA;\n",
      "layout(binding = 2, rgba32ui) readonly uniform highp uimage2D uImgB;\n",
      "uvec4 ua0_0 = imageLoad(uImgA, ivec2(ka, ay0));\n", "layout(binding = 2) uniform sampler2D uPrev0;\n"},
     {"#extension", "usampler2D", "rgba16f"}},
    {"mc=2x1,store=f16x8,fetch=buffer",
     {"uniform usamplerBuffer uA;\nuniform usamplerBuffer uB;\n", "texelFetch(uB, kb + bx0)",
      "#extension GL_ARB_shading_language_packing", "int ay0 = (f.y) * "},
     {"usampler2D", "image", "precision"}},
    {"mc=1x2,store=f16x8,fetch=image,profile=310es,out=image,blk=4x4",
     {"precision highp uimage2D;\n", "precision highp image2D;\n",
      "readonly uniform highp uimage2D uImgA;\n", "writeonly uniform highp image2D uC;\n"},
     {"#extension", "usampler2D", "rg32f"}},
};

START_TEST(f16x8_emit_declarations)
{
    char *s = emit(decls[_i].variant, 19, 23, 37);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(strstr(s, decls[_i].has[i]) != NULL, "%s lacks '%s':\n%s", decls[_i].variant,
                      decls[_i].has[i], s);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(strstr(s, decls[_i].lacks[i]) == NULL, "%s has '%s':\n%s", decls[_i].variant,
                      decls[_i].lacks[i], s);
    free(s);
}
END_TEST

/* A loop iteration fetches each stored texel once (the layout's counts) and
 * unpacks it into its group half texels; unrolled, np/ku blocks; the
 * header says the group; the f32 and f16 texts have none of it. */
START_TEST(f16x8_emit_fetches_unpacks)
{
    static const char *const mrts[] = {"1x1", "2x1", "1x3"};
    for (int p = 0; p < NPACK; p++)
        for (int t = 0; t < 3; t++)
            for (int u = 0; u < 2; u++) {
                char text[128];
                snprintf(text, sizeof text, "mrt=%s,mc=%dx%d,np=5,unroll=%d,store=f16x8,fetch=texelfetch",
                         mrts[t], packings[p].rows, packings[p].cols, u);
                gg_variant v = parsed(text);
                gg_layout L;
                ck_assert_int_eq(gen_layout_compute(&v, 19, 23, 37, &L), 0);
                char *s = emit(text, 19, 23, 37);
                int iters = u ? L.np / L.ku : 1; /* written out, or one loop body */
                int a = L.tr * L.a_texels_per_iter * iters, b = L.tc * L.b_texels_per_iter * iters;
                ck_assert_int_eq(count_of(s, "uvec4 ua"), a);
                ck_assert_int_eq(count_of(s, "uvec4 ub"), b);
                ck_assert_int_eq(count_of(s, "texelFetch(uA"), a);
                ck_assert_int_eq(count_of(s, "texelFetch(uB"), b);
                /* a vec4 half texel is two unpacks, a vec2 one, a float one */
                int per_half = L.channels == 4 ? 2 : 1;
                ck_assert_int_eq(count_of(s, "unpackHalf2x16("), (a + b) * L.group * per_half);
                char line[160];
                snprintf(line, sizeof line, " * f16x8: a texel holds %d half texel(s) of %d channel(s) "
                                            "adjacent along k (A: columns, B: rows); %d k-steps a loop "
                                            "iteration", L.group, L.channels, L.ku);
                ck_assert_msg(strstr(s, line) != NULL, "%s", s);
                if (u) {
                    ck_assert_int_eq(count_of(s, "    { /* k-steps uKBase+"), L.np / L.ku);
                } else {
                    snprintf(line, sizeof line, "    for (int i = 0; i < %d; ++i) {", L.np / L.ku);
                    ck_assert_msg(strstr(s, line) != NULL, "%s", s);
                    snprintf(line, sizeof line, "int ka = (uKBase / %d + i)", L.ku);
                    if (L.a_texels_per_iter == 1)
                        snprintf(line, sizeof line, "int ka = uKBase / %d + i;", L.ku);
                    ck_assert_msg(strstr(s, line) != NULL, "%s", s);
                }
                free(s);
                /* store=f16 and f32 at the same np: none of it */
                for (int st = 0; st < 2; st++) {
                    v.store = (gg_store)st;
                    v.np = L.np;
                    char *o = gen_emit_fragment(&v, 19, 23, 37);
                    ck_assert_ptr_nonnull(o);
                    ck_assert_ptr_null(strstr(o, "unpackHalf2x16"));
                    ck_assert_ptr_null(strstr(o, "usampler2D"));
                    ck_assert_ptr_null(strstr(o, " * f16x8:"));
                    free(o);
                }
            }
}
END_TEST

/* Every packing, fetch path and profile f16x8 allows (out=image where the
 * profile has it, unroll alternating), and SPIR-V from the 330 text: what
 * glslang, a compiler other than the driver, accepts. */
START_TEST(f16x8_glslang_accepts)
{
    ck_assert_msg(base_spirv_available(), "glslangValidator is not installed (glslang-tools)");
    static const char *const fetches[] = {"texture", "texelfetch", "image", "buffer"};
    static const char *const profiles[] = {"330", "430", "300es", "310es"};
    char log[4096];
    int checked = 0, i = 0;
    for (int p = 0; p < NPACK; p++)
        for (int f = 0; f < 4; f++)
            for (int pr = 0; pr < 4; pr++, i++) {
                bool modern = pr == 1 || pr == 3;
                char text[200], why[256];
                snprintf(text, sizeof text, "mc=%dx%d,np=3,unroll=%d,profile=%s,store=f16x8,fetch=%s%s",
                         packings[p].rows, packings[p].cols, i % 2, profiles[pr], fetches[f],
                         modern && i % 3 ? ",out=image,blk=4x4" : "");
                gg_variant v = parsed(text);
                if (gen_variant_invalid(&v, why, sizeof why))
                    continue;
                char *s = gen_emit_fragment(&v, 19, 23, 37);
                ck_assert_ptr_nonnull(s);
                ck_assert_msg(tu_glslang(s, "frag", "", log, sizeof log) == 0, "glslang rejects %s:\n%s\n%s",
                              text, log, s);
                free(s);
                checked++;
            }
    ck_assert_int_ge(checked, 60);
    gg_variant v = parsed("mrt=2x2,mc=1x4,np=4,store=f16x8,compiler=spirv,fetch=texelfetch");
    char *s = gen_emit_fragment(&v, 19, 23, 37);
    ck_assert_msg(tu_glslang(s, "frag", "-G", log, sizeof log) == 0, "glslang -G rejects:\n%s", log);
    free(s);
}
END_TEST

/* ---- packing ---- */

static float op_at(const float *x, int ld, bool trans, int i, int j)
{
    return trans ? x[(size_t)j * ld + i] : x[(size_t)i * ld + j];
}

/* Half number h of a stored texel's eight, as gen.h says: word h / 2, the
 * low 16 bits for an even h. */
static float half_of(const uint32_t *texel, int h)
{
    return gen_half_to_float((uint16_t)(texel[h / 2] >> (h % 2 ? 16 : 0)));
}

/* Each stored half of A's (b false) or B's texture against the element of
 * op(X) it holds by gen.h: half q of texel (x, y) is channel q % channels of
 * half texel t = q / channels, which is (group*x + t, y) for A and (x,
 * group*y + t) for B; inside the block's rows x cols the element rounded to
 * a half, else zero. */
static void check_words(const gg_layout *L, bool b, const uint32_t *words, gg_src x, long row0,
                        long col0, int rows, int cols)
{
    int g = L->group, ch = L->channels, w = b ? L->b_w : L->a_w, h = b ? L->b_h : L->a_h;
    for (int ty = 0; ty < h; ty++)
        for (int tx = 0; tx < w; tx++)
            for (int q = 0; q < 8; q++) {
                int t = q / ch, c = q % ch;
                int hx = b ? tx : g * tx + t, hy = b ? g * ty + t : ty;
                int row = hy * L->r + c / L->c, col = hx * L->c + c % L->c;
                float want = row < rows && col < cols
                                 ? gen_half_round(op_at(x.data, x.ld, x.trans, row0 + row, col0 + col))
                                 : 0.0f;
                float got = half_of(words + ((size_t)ty * w + tx) * 4, q);
                ck_assert_msg(got == want, "%c mc=%dx%d texel (%d,%d) half %d: %g, want %g",
                              b ? 'B' : 'A', L->r, L->c, tx, ty, q, got, want);
            }
}

/* Every block of a split (max_tex small enough to cut every dimension
 * where the packing allows), transposes included: each stored half of A
 * and B read back as the shader reads it is the source element rounded to
 * a half, zero in the padding; and the floats under the words are store=f16's
 * packing, texel for texel. */
START_TEST(f16x8_pack_words)
{
    static const int sizes[][3] = {{5, 7, 19}, {37, 29, 53}, {1, 1, 1}};
    int blocks = 0;
    for (int p = 0; p < NPACK; p++)
        for (int s = 0; s < 3; s++)
            for (int tr = 0; tr < 4; tr++) {
                int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
                bool ta = tr & 1, tb = tr & 2;
                gg_variant v;
                gen_variant_default(&v);
                v.mc = packings[p];
                v.mrt = (gg_shape){2, 1};
                v.np = 3;
                v.store = GG_STORE_F16X8;
                float *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b);
                for (int i = 0; i < m * k; i++)
                    a[i] = 1.0f + (float)i * 0x1p-12f * ((i % 3) ? 1 : -1); /* not all halves */
                for (int i = 0; i < k * n; i++)
                    b[i] = -0.5f + (float)i * 0x1p-11f;
                int lda = ta ? m : k, ldb = tb ? k : n;
                gg_split sp;
                ck_assert_int_eq(gen_split_plan(&v, m, n, k, s == 1 ? 8 : 16384, &sp), 0);
                const gg_layout *L = &sp.L;
                gg_variant h = v;
                h.store = GG_STORE_F16;
                h.np = L->np;
                gg_layout H;
                ck_assert_int_eq(gen_layout_compute(&h, sp.mb, sp.nb, L->kpad, &H), 0);
                size_t na = gen_pack_a_floats(L), nb = gen_pack_b_floats(L);
                ck_assert_uint_eq(na, gen_pack_a_floats(&H));
                ck_assert_uint_eq(nb, gen_pack_b_floats(&H));
                ck_assert_uint_eq(gen_pack_a_words(L) * 2, na);
                ck_assert_uint_eq(gen_pack_b_words(L) * 2, nb);
                float *fa = malloc(na * sizeof *fa), *fb = malloc(nb * sizeof *fb);
                float *ha = malloc(na * sizeof *ha), *hb = malloc(nb * sizeof *hb);
                uint32_t *wa = malloc(gen_pack_a_words(L) * 4), *wb = malloc(gen_pack_b_words(L) * 4);
                for (int bi = 0; bi < sp.mblocks; bi++)
                    for (int bj = 0; bj < sp.nblocks; bj++)
                        for (int bk = 0; bk < sp.kblocks; bk++) {
                            gg_block blk = gen_split_block(&sp, m, n, k, bi, bj, bk);
                            gen_pack_a(L, (gg_src){a, lda, ta}, &blk, fa);
                            gen_pack_b(L, (gg_src){b, ldb, tb}, &blk, fb);
                            gen_pack_a(&H, (gg_src){a, lda, ta}, &blk, ha);
                            gen_pack_b(&H, (gg_src){b, ldb, tb}, &blk, hb);
                            ck_assert_int_eq(memcmp(fa, ha, na * sizeof *fa), 0);
                            ck_assert_int_eq(memcmp(fb, hb, nb * sizeof *fb), 0);
                            gen_pack_words_a(L, fa, wa);
                            gen_pack_words_b(L, fb, wb);
                            check_words(L, false, wa, (gg_src){a, lda, ta}, blk.i0, blk.k0,
                                        blk.m, blk.k);
                            check_words(L, true, wb, (gg_src){b, ldb, tb}, blk.k0, blk.j0, blk.k,
                                        blk.n);
                            blocks++;
                        }
                free(a);
                free(b);
                free(fa);
                free(fb);
                free(ha);
                free(hb);
                free(wa);
                free(wb);
            }
    ck_assert_int_gt(blocks, NPACK * 3 * 4); /* the 8-texel limit split some */
}
END_TEST

/* ---- GEMMs on llvmpipe ---- */

/* Every packing f16x8 takes, out=rt and out=image, the four fetch paths,
 * np that cut k into several passes, unroll, every acc, transposes, alpha
 * and beta, odd sizes, SPIR-V, the ku key, order=frag. */
static const gemm_case cases[] = {
    {"mrt=2x1,mc=1x4,np=3,store=f16x8,fetch=texelfetch", 37, 29, 53, 0, 0, 1.0f, 0.0f},
    {"mc=2x2,np=2,unroll=1,acc=copy,store=f16x8,fetch=texture", 19, 23, 37, 1, 0, 2.0f, 0.5f},
    {"mrt=1x2,mc=4x1,np=all,profile=300es,acc=blend,store=f16x8", 33, 17, 70, 0, 1, -0.5f, 1.0f},
    {"mrt=2x2,mc=1x2,np=5,store=f16x8,fetch=buffer", 7, 13, 29, 1, 1, 1.0f, 0.0f},
    {"mc=2x1,np=1,unroll=1,profile=430,store=f16x8,fetch=image", 11, 9, 31, 0, 0, 2.0f, 0.5f},
    {"mrt=1x2,mc=1x1,np=3,store=f16x8", 5, 7, 19, 0, 1, 1.0f, 0.0f},
    {"mc=1x4,np=3,profile=430,store=f16x8,out=image,blk=8x8,fetch=texelfetch", 37, 29, 53, 0, 0,
     1.0f, 0.0f},
    {"mc=2x2,np=all,profile=310es,store=f16x8,out=image,blk=4x8,fetch=image", 19, 23, 37, 1, 1,
     1.0f, 1.0f},
    {"mc=4x1,np=2,profile=430,acc=copy,store=f16x8,out=image,blk=8x4,fetch=buffer", 33, 17, 70, 0,
     0, -0.5f, 0.0f},
    {"mc=1x2,np=3,unroll=1,profile=430,store=f16x8,out=image,blk=2x4,fetch=texture", 7, 13, 29, 1,
     0, 1.0f, 0.5f},
    {"mc=2x1,np=2,profile=310es,store=f16x8,out=image,blk=4x2,fetch=texelfetch", 11, 9, 31, 0, 1,
     2.0f, 0.0f},
    {"mc=1x1,np=5,profile=430,store=f16x8,out=image,blk=4x4,fetch=image", 5, 7, 19, 0, 0, 1.0f,
     0.0f},
    {"mrt=2x2,mc=1x4,np=2,compiler=spirv,store=f16x8,fetch=texelfetch", 37, 29, 53, 0, 0, 1.0f,
     0.0f},
    {"mrt=2x4,mc=2x2,np=3,profile=300es,store=f16x8,fetch=texelfetch", 67, 45, 83, 1, 0, 1.0f, 0.5f},
    /* the ku key past the group's need (4 k-steps an iteration, not 2) */
    {"mrt=2x1,mc=2x2,np=3,ku=4,store=f16x8,fetch=texelfetch", 37, 29, 53, 0, 1, 1.0f, 0.0f},
    /* order=frag: texelFetchOffset / textureOffset on the unsigned textures */
    {"mc=1x4,np=3,profile=430,store=f16x8,out=image,blk=16x8,order=frag,fetch=texelfetch", 67, 45,
     83, 0, 0, 1.0f, 0.0f},
    {"mc=2x2,np=3,ku=4,profile=310es,store=f16x8,out=image,blk=16x16,order=frag", 67, 45, 83, 1, 0,
     1.0f, 0.5f},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

START_TEST(f16x8_gemm)
{
    const gemm_case *fc = &cases[_i];
    gemm_run r;
    setup_case(&r, fc, 800u + (unsigned)_i);
    r.p.reps = 1;
    ck_assert_int_eq(r.v.store, GG_STORE_F16X8);
    ck_assert_int_eq(r.ref.store, GG_STORE_F16); /* the rounded inputs' reference */
    evaluate(&r, NULL);
    expect_gemm_ok(&r, fc->variant);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&r.v, fc->m, fc->n, fc->k, &L), 0);
    ck_assert_int_eq(r.m.passes, L.passes);
    free_case(&r);
}
END_TEST

/* A forced split (A and B in several blocks, each packed into words) and
 * an fp32 reference handed in by mistake: the host judges with the rounded
 * one. */
START_TEST(f16x8_split_and_mismatched_ref)
{
    gemm_case fc = {"mrt=1x2,mc=2x2,np=2,store=f16x8", 40, 37, 50, 1, 0, 2.0f, 0.5f};
    gemm_run r;
    setup_case(&r, &fc, 78u);
    r.p.reps = 1;
    char err[256];
    base_reference_free(&r.ref);
    ck_assert_int_eq(base_reference_compute(&r.in, fc.alpha, fc.beta, &r.ref, err, sizeof err), 0);
    ck_assert_int_eq(r.ref.store, GG_STORE_F32);
    gg_split sp;
    ck_assert_int_eq(gen_split_plan(&r.v, fc.m, fc.n, fc.k, 8, &sp), 0);
    ck_assert_int_gt(sp.mblocks * sp.nblocks * sp.kblocks, 1);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = 8;
    evaluate(&r, &o);
    expect_gemm_ok(&r, fc.variant);
    ck_assert_int_eq(r.m.passes, sp.L.passes * sp.kblocks);
    free_case(&r);
}
END_TEST

/* ---- the command line ---- */

START_TEST(f16x8_cli)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(".", NULL, "run mrt=2x2,mc=2x2,np=3,store=f16x8 --m 19 --n 23 --k 37 --reps 1",
                    &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, "mrt=2x2,mc=2x2,np=3,unroll=0,profile=330,compiler=glsl,acc=pingpong,"
                              "store=f16x8 19x23x37: ok,") != NULL, "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run mc=1x4,store=f16x8,out=image,blk=8x4 --m 19 --n 23 --k 37 --reps 1 --csv",
                &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
    ck_assert_msg(strstr(out, ",1x1,1x4,all,0,430,glsl,pingpong,f16x8,image,8x4,texture,-,1,plain,1,ok,") != NULL,
                  "%s", out);
    free(out);
    free(err);
    /* No geometry: gen says why (bad usage); run reports the status. */
    rc = tu_run(".", NULL, "gen mc=1x3,store=f16x8 --size 8", &out, &err);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "glgemm gen: store=f16x8 packs 8 halves a texel: whole texels of 1, 2 or 4 "
                          "channels, not the 3 of mc=1x3\n");
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
    rc = tu_run(".", NULL, "run mc=3x1,store=f16x8 --size 8", &out, &err);
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(out, "store=f16x8 8x8x8: invalid: store=f16x8 packs 8 halves a texel") != NULL,
                  "%s", out);
    free(out);
    free(err);
    rc = tu_run(".", NULL, "info", &out, &err);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "\nshading language packing: yes (store=f16x8 at profile 330)\n") != NULL,
                  "%s", out); /* llvmpipe's core context has it */
    free(out);
    free(err);
}
END_TEST

Suite *make_f16x8_suite(void)
{
    Suite *s = suite_create("f16x8");
    TCase *tc = tcase_create("gen");
    tcase_add_test(tc, f16x8_parse_format);
    tcase_add_loop_test(tc, f16x8_card_verdicts, 0, (int)(sizeof cards / sizeof *cards));
    tcase_add_loop_test(tc, f16x8_layout_figures, 0, (int)(sizeof layouts / sizeof *layouts));
    tcase_add_test(tc, f16x8_layout_invariants);
    tcase_add_test(tc, f16x8_ku_normalised);
    tcase_add_loop_test(tc, f16x8_emit_declarations, 0, (int)(sizeof decls / sizeof *decls));
    tcase_add_test(tc, f16x8_emit_fetches_unpacks);
    tcase_add_test(tc, f16x8_pack_words);
    suite_add_tcase(s, tc);
    tc = tcase_create("glslang");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, f16x8_glslang_accepts);
    suite_add_tcase(s, tc);
    tc = tcase_create("f16x8-gemm");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, f16x8_gemm, 0, NCASES);
    tcase_add_test(tc, f16x8_split_and_mismatched_ref);
    tcase_add_test(tc, f16x8_cli);
    suite_add_tcase(s, tc);
    return s;
}
