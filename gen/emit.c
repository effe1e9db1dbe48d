/* The shader emitter: GLSL for one variant on one problem (gen.h's
 * contract).  Decisions, stated once:
 *  - Everything that depends on the problem (texture sizes, np, the target
 *    layout) is baked into the text as literals; the shader is generated per
 *    problem.  The only uniforms are uKBase, uAlpha and the samplers.
 *  - `#version` is the first line (glslang rejects anything before it in an
 *    ES shader, comments included); the header comment follows it.
 *  - One k-step is lcm(r, c) scalar k values.  For scalar offset q of the step
 *    C[i][j] += A[i][q] * B[q][j], with A[i][q] channel i*c + q%c of A texel
 *    q/c of the step and B[q][j] channel (q%r)*c + j of B texel q/r.  The
 *    emitter vectorizes over the r*c output channels: per q one product of
 *    two swizzles, a scalar where the swizzle repeats one channel, nothing
 *    where it is the identity.
 *  - Fetched texels and accumulators have exactly r*c components (float for
 *    one); outputs are vec4 padded with zeros.
 *  - Fragment (x, y), target t = ti*C + tj reads A texel row y*R + ti and B
 *    texel column x*C + tj; A rows are shared by a row of targets, B columns
 *    by a column, so a k-step fetches R*(step/c) + C*(step/r) texels.
 *  - Every profile samples at texel centres, (x + 0.5) / w, from the baked
 *    sizes (the host sets GL_NEAREST, no mipmaps): texture2D in 120, texture
 *    in 330 and 300es.  Not texelFetch: on llvmpipe (Mesa 22.3) the same
 *    variant ran about 1.5-2x slower with texelFetch (range checks and a
 *    zero select per fetch; the GEMM is bound by texel fetches there), and
 *    normalized coordinates are exact enough (the error is far below half a
 *    texel for any size up to the texture limit).
 *    That is fetch=texture, the default; fetch=texelfetch, image and buffer
 *    read by integer texel (texelFetch on the 2D textures, imageLoad,
 *    texelFetch on buffer textures at y*w + x): which path is fastest differs
 *    by card, so it is a tuning key.  The storage-buffer pairings read a
 *    matrix from a std430 block at the same index y*w + x (the load/store
 *    path beside the texture unit: docs/notes/feed.md), the other by
 *    texelFetch.
 *  - out=image: the fragment's accumulators go to the image uC with
 *    imageStore, so the block can pass 8 targets.  Its texels are strided
 *    over the image (fragment (x, y): columns x + j*tgt_w, rows y + i*tgt_h),
 *    not adjacent as the targets of mrt are: neighbouring fragments then
 *    read neighbouring texels of A and B (docs/notes/generator.md, "Past the 32-output cap"
 *    has the strided-against-adjacent measurements).
 *  - store=f16x8 (gen.h): a loop iteration is ku k-steps, the least whose
 *    texels of A and B are whole stored texels; each stored texel is
 *    fetched once as a uvec4 and unpacked (unpackHalf2x16) into its half
 *    texels, named as store=f16's texels of those k-steps would be, so the
 *    multiply-adds are f16's, ku steps of them in one sum a target.  With
 *    ku = 1 (every other store) the text is what it was before f16x8.
 *  - compiler=spirv: the 330 text plus explicit uniform locations and sampler
 *    bindings, which OpenGL SPIR-V requires (glslangValidator -G accepts
 *    `#version 330` with GL_ARB_explicit_uniform_location and
 *    GL_ARB_shading_language_420pack).  Profiles 430 and 310es carry
 *    layout(binding) on every sampler and image (core there). */
#include "gen/gen.h"
#include "gen/sbuf.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const gg_variant *v;
    gg_layout L;
    gg_sbuf sb;
    bool legacy; /* profile 120: texture2D, attribute, gl_FragData */
    bool spirv;  /* compiler=spirv on profile 330: explicit locations/bindings */
    bool bind;   /* layout(binding) on samplers and images: spirv, 430, 310es */
    bool es;     /* 300es, 310es: precision statements */
    bool ints;   /* fetch by integer texel (every fetch but texture) */
    bool x8;     /* store=f16x8: uvec4 fetches of group half texels, unpacked */
    int steps;   /* k-steps one put_step covers: ku for store=f16x8 (whole stored
                    texels of A and B), else 1 */
    const char *sample; /* texture2D (120) or texture (other profiles) */
} emitter;

static const char xyzw[] = "xyzw";

static const char *vec_type(int n)
{
    static const char *const t[] = {"float", "float", "vec2", "vec3", "vec4"};
    return t[n];
}

/* The swizzle taking a vec4 down to n components: ".x", ".xy", ".xyz", "". */
static const char *narrow(int n)
{
    static const char *const s[] = {"", ".x", ".xy", ".xyz", ""};
    return s[n];
}

/* "base * mul + add" with the identities left out. */
static void put_affine(gg_sbuf *sb, const char *base, int mul, int add)
{
    gen_sb_puts(sb, base);
    if (mul != 1)
        gen_sb_printf(sb, " * %d", mul);
    if (add)
        gen_sb_printf(sb, " + %d", add);
}

/* A swizzle of a variable with n components: nothing for the identity (or a
 * scalar variable), ".x" for a repeated channel (a scalar operand), else the
 * letters. */
static void put_swizzle(gg_sbuf *sb, const int *comp, int n)
{
    if (n == 1)
        return;
    bool same = true, ident = true;
    for (int i = 0; i < n; i++) {
        same = same && comp[i] == comp[0];
        ident = ident && comp[i] == i;
    }
    if (ident)
        return;
    gen_sb_puts(sb, ".");
    for (int i = 0; i < (same ? 1 : n); i++)
        gen_sb_printf(sb, "%c", xyzw[comp[i]]);
}

static void put_header(emitter *e, int m, int n, int k)
{
    const gg_layout *L = &e->L;
    gg_sbuf *sb = &e->sb;
    char vt[GG_VARIANT_TEXT];
    gen_variant_format(e->v, vt, sizeof vt);
    bool prev = e->v->acc != GG_ACC_BLEND;
    gen_sb_printf(sb, "/* Generated by %s %s (gen/emit.c): do not edit.\n", GG_GEN_NAME, GG_GEN_VERSION);
    gen_sb_printf(sb, " * variant: %s\n", vt);
    gen_sb_printf(sb, " * storage: %s\n",
                 e->v->store == GG_STORE_F16 ? "A and B as half floats (f16), sums in fp32"
                 : e->x8 ? "A and B as half floats, eight a RGBA32UI texel (f16x8), sums in fp32"
                         : "A and B as fp32, sums in fp32");
    gen_sb_printf(sb, " * problem: m=%d n=%d k=%d, padded to %d x %d x %d\n", m, n, k, L->mpad,
                 L->npad, L->kpad);
    gen_sb_printf(sb, " * k-step: %d scalar k (mc %dx%d: %d A texel(s) per row block, %d B texel(s) "
                     "per column block)\n",
                 L->step, L->r, L->c, L->a_texels_per_step, L->b_texels_per_step);
    gen_sb_printf(sb, " * k-steps: %d; np: %d per pass; passes: %d\n", L->ksteps, L->np, L->passes);
    if (e->x8)
        gen_sb_printf(sb, " * f16x8: a texel holds %d half texel(s) of %d channel(s) adjacent along k "
                         "(A: columns, B: rows); %d k-steps a loop iteration (A %d, B %d texel(s))\n",
                     L->group, L->channels, L->ku, L->a_texels_per_iter, L->b_texels_per_iter);
    else if (L->ku > 1)
        gen_sb_printf(sb, " * loop: %d k-steps an iteration (ku), %d after it\n", L->ku, L->np % L->ku);
    gen_sb_printf(sb, " * textures: A %dx%d, B %dx%d, %d channel(s) each; %d %s (%dx%d) "
                     "of %dx%d fragments\n",
                 L->a_w, L->a_h, L->b_w, L->b_h, L->channels, L->targets,
                 L->image ? "C texel(s) a fragment" : "target(s), mrt", L->tr, L->tc, L->tgt_w,
                 L->tgt_h);
    gen_sb_printf(sb, " * per fragment per pass: %ld texel fetches (A %ld, B %ld, running sums %d), "
                     "%ld multiply-adds\n",
                 L->fetches_per_frag_pass, L->a_fetches, L->b_fetches, prev ? L->targets : 0,
                 L->mads_per_frag_pass);
    gen_sb_printf(sb, " * outputs per fragment: %d (%s); multiply-adds per texel of A and B "
                     "fetched: %.2f; fetch: %s\n",
                 gen_layout_outputs(L), L->image ? "out=image: imageStore of blk" : "out=rt",
                 gen_layout_mads_per_fetch(L), gen_fetch_name(e->v->fetch));
    if (L->image)
        gen_sb_printf(sb, " * C: one image of %dx%d texels; fragment (x, y) writes texels (x*%d + j, "
                         "y*%d + i), i < %d, j < %d\n",
                     L->c_w, L->c_h, L->tc, L->tr, L->tr, L->tc);
    if (prev)
        gen_sb_printf(sb, " * each pass: out_t = uPrev_t + uAlpha * (sum over k-steps uKBase .. "
                         "uKBase+%d)\n", L->np - 1);
    else
        gen_sb_printf(sb, " * each pass: out_t = uAlpha * (sum over k-steps uKBase .. uKBase+%d), "
                         "added by GL_ONE, GL_ONE blending\n", L->np - 1);
    if (e->v->compiler == GG_COMPILER_SPIRV && e->v->profile != GG_PROFILE_330)
        gen_sb_printf(sb, " * note: compiler=spirv needs profile=330; this variant is invalid\n");
    gen_sb_puts(sb, " */\n");
}

static void put_version(emitter *e)
{
    gg_sbuf *sb = &e->sb;
    switch (e->v->profile) {
    case GG_PROFILE_120: gen_sb_puts(sb, "#version 120\n"); break;
    case GG_PROFILE_330: gen_sb_puts(sb, "#version 330\n"); break;
    case GG_PROFILE_300ES: gen_sb_puts(sb, "#version 300 es\n"); break;
    case GG_PROFILE_430: gen_sb_puts(sb, "#version 430\n"); break;
    case GG_PROFILE_310ES: gen_sb_puts(sb, "#version 310 es\n"); break;
    case GG_PROFILE_COUNT: break;
    }
}

/* The image format of n channels (1, 2 or 4) of the store. */
static const char *image_format(int n, gg_store store)
{
    if (store == GG_STORE_F16X8)
        return "rgba32ui";
    bool h = store == GG_STORE_F16;
    return n == 1 ? (h ? "r16f" : "r32f") : n == 2 ? (h ? "rg16f" : "rg32f") : (h ? "rgba16f" : "rgba32f");
}

/* The path matrix u (0: A, 1: B) is read by (gen_fetch_path). */
static gg_fetch path_of(const emitter *e, int u) { return gen_fetch_path(e->v->fetch, u); }

/* Whether matrix u is read by one index into its texels row by row (a
 * buffer texture or a storage buffer), not by 2D coordinates. */
static bool linear(const emitter *e, int u)
{
    gg_fetch p = path_of(e, u);
    return p == GG_FETCH_BUFFER || p == GG_FETCH_SSBO;
}

/* A storage buffer's element: the texel's channels, a vec4 for three
 * (std430 strides a vec3 array by 16 bytes); store=f16: the texel's
 * halves in pairs, a uvec2 for four, a uint for two (gen_pack_ssbo_bytes). */
static const char *ssbo_type(const emitter *e)
{
    int ch = e->L.channels;
    if (e->v->store == GG_STORE_F16)
        return ch == 4 ? "uvec2" : "uint";
    return ch == 3 ? "vec4" : vec_type(ch);
}

/* One input, uA or uB, at unit u (texture unit; image unit u + 1; storage
 * buffer binding u). */
static void put_input(emitter *e, const char *name, int u)
{
    gg_sbuf *sb = &e->sb;
    switch (path_of(e, u)) {
    case GG_FETCH_UBO:
        gen_sb_printf(sb, "layout(std140%s) uniform ABlock { vec4 uAB[%ld]; }; /* a strip's A */\n",
                     e->bind ? ", binding = 0" : "", e->L.ubo_vec4s);
        return;
    case GG_FETCH_SSBO:
        gen_sb_printf(sb, "layout(std430, binding = %d) readonly buffer %sBuf { %s %ss[]; }; "
                         "/* %s's texels, row by row */\n",
                     u, name + 1, ssbo_type(e), name, name + 1);
        return;
    case GG_FETCH_IMAGE:
        gen_sb_printf(sb, "layout(binding = %d, %s) readonly uniform highp %simage2D uImg%s;\n", u + 1,
                     image_format(e->L.channels, e->v->store), e->x8 ? "u" : "", name + 1);
        return;
    case GG_FETCH_BUFFER:
        if (e->bind)
            gen_sb_printf(sb, "layout(binding = %d) ", u);
        gen_sb_printf(sb, "uniform %ssamplerBuffer %s;\n", e->x8 ? "u" : "", name);
        return;
    default:
        if (e->bind)
            gen_sb_printf(sb, "layout(binding = %d) ", u);
        gen_sb_printf(sb, "uniform %ssampler2D %s;\n", e->x8 ? "u" : "", name);
        return;
    }
}

static void put_declarations(emitter *e)
{
    gg_sbuf *sb = &e->sb;
    const gg_layout *L = &e->L;
    if (e->spirv)
        gen_sb_puts(sb, "#extension GL_ARB_explicit_uniform_location : require\n"
                       "#extension GL_ARB_shading_language_420pack : require\n");
    if (e->x8 && e->v->profile == GG_PROFILE_330) /* unpackHalf2x16: core in 4.20, ES 3.00 */
        gen_sb_puts(sb, "#extension GL_ARB_shading_language_packing : require\n");
    if (e->es) {
        gen_sb_puts(sb, "precision highp float;\nprecision highp int;\nprecision highp sampler2D;\n");
        if (L->image || (e->v->fetch == GG_FETCH_IMAGE && !e->x8))
            gen_sb_puts(sb, "precision highp image2D;\n");
        if (e->x8) /* no default precision for these in ES */
            gen_sb_puts(sb, e->v->fetch == GG_FETCH_IMAGE ? "precision highp uimage2D;\n"
                                                          : "precision highp usampler2D;\n");
    }
    gen_sb_puts(sb, "\n");
    put_input(e, "uA", 0);
    put_input(e, "uB", 1);
    /* The previous sums read as textures: one per target (rt), or the
     * other image (image, pingpong); none for blend and image+copy. */
    int prevs = e->v->acc == GG_ACC_BLEND ? 0 : !L->image ? L->targets
                : e->v->acc == GG_ACC_PINGPONG ? 1 : 0;
    for (int t = 0; t < prevs; t++) {
        if (e->bind)
            gen_sb_printf(sb, "layout(binding = %d) ", 2 + t);
        gen_sb_printf(sb, "uniform sampler2D uPrev%d;\n", t);
    }
    if (L->image)
        gen_sb_printf(sb, "layout(binding = 0, %s) %suniform highp image2D uC;\n",
                     L->channels == 1 ? "r32f" : "rgba32f",
                     e->v->acc == GG_ACC_COPY ? "" : "writeonly ");
    gen_sb_printf(sb, "%suniform int uKBase;   /* first k-step of this pass */\n",
                 e->spirv ? "layout(location = 0) " : "");
    gen_sb_printf(sb, "%suniform float uAlpha;\n", e->spirv ? "layout(location = 1) " : "");
    if (!e->legacy && !L->image)
        for (int t = 0; t < L->targets; t++)
            gen_sb_printf(sb, "layout(location = %d) out vec4 o%d;\n", t, t);
    if (gen_fetch_ssbos(e->v->fetch) && e->v->store == GG_STORE_F16 && L->channels == 4)
        gen_sb_puts(sb, "\n/* four halves of a storage buffer's uvec2, low half first */\n"
                       "vec4 unpackHalf4(uvec2 h) { return vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)); }\n");
}

/* The swizzle that narrows a fetch to the texel's channels; none for a
 * stored f16x8 texel, which put_unpack takes apart. */
static const char *fetch_narrow(const emitter *e) { return e->x8 ? "" : narrow(e->L.channels); }

/* The read of one input texel at integer coordinates: column col + col_off
 * and row row + row_off for the 2D paths; for buffers and storage buffers
 * the index row + col + col_off + row_off (the row already scaled by the
 * width).  Then the swizzle that narrows it to the texel's channels. */
static void put_int_fetch(emitter *e, const char *u, const char *col, int col_off,
                          const char *row, int row_off)
{
    gg_sbuf *sb = &e->sb;
    gg_fetch path = path_of(e, u[1] == 'B');
    const char *fn = path == GG_FETCH_IMAGE ? "imageLoad" : "texelFetch";
    if (path == GG_FETCH_SSBO) {
        bool half = e->v->store == GG_STORE_F16; /* halves in pairs: unpacked */
        if (half)
            gen_sb_puts(sb, e->L.channels == 4 ? "unpackHalf4(" : "unpackHalf2x16(");
        gen_sb_printf(sb, "%ss[%s + %s", u, row, col);
        if (col_off + row_off)
            gen_sb_printf(sb, " + %d", col_off + row_off);
        gen_sb_printf(sb, "]%s%s", e->L.channels == 3 ? ".xyz" : "", half ? ")" : "");
        return;
    }
    if (path == GG_FETCH_IMAGE) /* uImgA, uImgB: not set as samplers by the host */
        gen_sb_printf(sb, "%s(uImg%s, ", fn, u + 1);
    else
        gen_sb_printf(sb, "%s(%s, ", fn, u);
    if (path == GG_FETCH_BUFFER) {
        gen_sb_printf(sb, "%s + %s", row, col);
        if (col_off + row_off)
            gen_sb_printf(sb, " + %d", col_off + row_off);
        gen_sb_printf(sb, ")%s", fetch_narrow(e));
        return;
    }
    gen_sb_printf(sb, "ivec2(%s", col);
    if (col_off)
        gen_sb_printf(sb, " + %d", col_off);
    gen_sb_printf(sb, ", %s", row);
    if (row_off)
        gen_sb_printf(sb, " + %d", row_off);
    gen_sb_printf(sb, ")%s)%s", path == GG_FETCH_IMAGE ? "" : ", 0", fetch_narrow(e));
}

/* The declaration a fetched texel goes into: "<type> a<ti>_<u> = " (x
 * 'a' or 'b'), or for store=f16x8 "uvec4 ua<ti>_<u> = ", the stored texel
 * before its unpacking (put_unpack). */
static void put_fetched(emitter *e, char x, int i, int u)
{
    if (e->x8)
        gen_sb_printf(&e->sb, "uvec4 u%c%d_%d = ", x, i, u);
    else
        gen_sb_printf(&e->sb, "%s %c%d_%d = ", vec_type(e->L.channels), x, i, u);
}

/* Fetch of A texel (row of target row ti, k offset off from ka). */
static void put_fetch_a(emitter *e, int ti, int u, int off)
{
    gg_sbuf *sb = &e->sb;
    int ch = e->L.channels;

    if (e->v->fetch == GG_FETCH_UBO) {
        gen_sb_printf(sb, "%s a%d_%d = uAB[ay%d + ka", vec_type(ch), ti, u, ti);
        if (off)
            gen_sb_printf(sb, " + %d", off);
        gen_sb_printf(sb, "]%s;\n", narrow(ch));
        return;
    }
    if (e->ints) {
        char row[16];
        snprintf(row, sizeof row, "ay%d", ti);
        put_fetched(e, 'a', ti, u);
        put_int_fetch(e, "uA", "ka", off, row, 0);
        gen_sb_puts(sb, ";\n");
        return;
    }
    put_fetched(e, 'a', ti, u);
    gen_sb_printf(sb, "%s(uA, vec2(", e->sample);
    if (off)
        gen_sb_printf(sb, "(ka + %d.0)", off);
    else
        gen_sb_puts(sb, "ka");
    gen_sb_printf(sb, " / %d.0, ay%d))%s;\n", e->L.a_w, ti, fetch_narrow(e));
}

static void put_fetch_b(emitter *e, int tj, int u, int off)
{
    gg_sbuf *sb = &e->sb;
    if (e->ints) {
        char col[16];
        snprintf(col, sizeof col, "bx%d", tj);
        put_fetched(e, 'b', tj, u);
        /* buffer, storage buffer: kb is already a texel index (row * width) */
        int row_off = linear(e, 1) ? off * e->L.b_w : off;
        put_int_fetch(e, "uB", col, 0, "kb", row_off);
        gen_sb_puts(sb, ";\n");
        return;
    }
    put_fetched(e, 'b', tj, u);
    gen_sb_printf(sb, "%s(uB, vec2(bx%d, ", e->sample, tj);
    if (off)
        gen_sb_printf(sb, "(kb + %d.0)", off);
    else
        gen_sb_puts(sb, "kb");
    gen_sb_printf(sb, " / %d.0))%s;\n", e->L.b_h, fetch_narrow(e));
}

/* store=f16x8: stored texel u<x><i>_<w> into its group half texels
 * <x><i>_<w*group + t> (gen.h: half t*channels + ch is word
 * (t*channels + ch) / 2, low half first).  A vec4 takes two words, a vec2
 * one, a float one half of one. */
static void put_unpack(emitter *e, const char *ind, char x, int i, int w)
{
    const gg_layout *L = &e->L;
    for (int t = 0; t < L->group; t++) {
        int h = w * L->group + t, word = t * L->channels / 2;
        gen_sb_printf(&e->sb, "%s%s %c%d_%d = ", ind, vec_type(L->channels), x, i, h);
        if (L->channels == 4)
            gen_sb_printf(&e->sb, "vec4(unpackHalf2x16(u%c%d_%d.%c), unpackHalf2x16(u%c%d_%d.%c));\n",
                         x, i, w, xyzw[word], x, i, w, xyzw[word + 1]);
        else if (L->channels == 2)
            gen_sb_printf(&e->sb, "unpackHalf2x16(u%c%d_%d.%c);\n", x, i, w, xyzw[word]);
        else
            gen_sb_printf(&e->sb, "unpackHalf2x16(u%c%d_%d.%c).%c;\n", x, i, w, xyzw[t / 2],
                         xyzw[t % 2]);
    }
}

/* Stored texels of A (x 'a') or B one put_step reads per row / column
 * block. */
static int step_texels(const emitter *e, char x)
{
    const gg_layout *L = &e->L;
    if (e->x8)
        return x == 'a' ? L->a_texels_per_iter : L->b_texels_per_iter;
    return x == 'a' ? L->a_texels_per_step : L->b_texels_per_step;
}

/* The A texels of target row ti (x 'a') or the B texels of target column
 * tj ('b') of loop iteration it (unrolled: its index in the pass; in a
 * loop 0, ka and kb pointing at it): the stored texels, and for
 * store=f16x8 their half texels. */
static void put_fetches(emitter *e, const char *ind, char x, int i, int it)
{
    int n = step_texels(e, x);
    for (int w = 0; w < n; w++) {
        gen_sb_puts(&e->sb, ind);
        if (x == 'a')
            put_fetch_a(e, i, w, it * n + w);
        else
            put_fetch_b(e, i, w, it * n + w);
        if (e->x8)
            put_unpack(e, ind, x, i, w);
    }
}

/* e->steps k-steps (one; store=f16x8: a loop iteration's ku): fetch the
 * texels, then per target the multiply-adds.  it counts such groups from
 * ka, kb (written out: the group's index in the pass; in a ku loop of
 * other stores the step's index in the iteration), 0 where ka, kb already
 * point at them. */
static void put_step(emitter *e, const char *ind, int it)
{
    const gg_layout *L = &e->L;
    gg_sbuf *sb = &e->sb;
    int r = L->r, c = L->c, ch = L->channels;
    /* out=image: B's texels first, then A's row by row, each row's
     * multiply-adds right after its fetch, so that one A row is live at a
     * time beside the block's accumulators (out=rt keeps its order). */
    for (int ti = 0; ti < L->tr && !L->image; ti++)
        put_fetches(e, ind, 'a', ti, it);
    for (int tj = 0; tj < L->tc; tj++)
        put_fetches(e, ind, 'b', tj, it);
    for (int ti = 0; ti < L->tr; ti++)
        for (int tj = 0; tj < L->tc; tj++) {
            if (L->image && tj == 0)
                put_fetches(e, ind, 'a', ti, it);
            /* acc = acc + t0 + t1 + ...: evaluated left to right, each
             * product joins the running sum in one fused multiply-add;
             * acc += t0 + t1 + ... sums the products first (NVIDIA's
             * compiler: a multiply, 3 multiply-adds and an add per 4). */
            int an = ti * L->tc + tj;
            gen_sb_printf(sb, "%sacc%d = acc%d", ind, an, an);
            for (int q = 0; q < L->step * e->steps; q++) {
                int ca[4], cb[4], qs = q % L->step, s = q / L->step; /* k-step s of the iteration */
                for (int i = 0; i < r; i++)
                    for (int j = 0; j < c; j++) {
                        ca[i * c + j] = i * c + qs % c;
                        cb[i * c + j] = (qs % r) * c + j;
                    }
                gen_sb_printf(sb, " + a%d_%d", ti, s * L->a_texels_per_step + qs / c);
                put_swizzle(sb, ca, ch);
                gen_sb_printf(sb, " * b%d_%d", tj, s * L->b_texels_per_step + qs / r);
                put_swizzle(sb, cb, ch);
            }
            gen_sb_puts(sb, ";\n");
        }
}

/* ka/kb: the texel centre of the first A texel column / B texel row of a
 * k-step, not yet normalized.  ks is the k-step, an expression that needs
 * parentheses when multiplied if it is a sum; ubo_ks the same k-step in
 * fetch=ubo's chunk of A, which holds this pass's k-steps only (it counts
 * from 0). */
static void put_kbase(emitter *e, const char *ind, const char *ks, bool sum, const char *ubo_ks)
{
    gg_sbuf *sb = &e->sb;
    const gg_layout *L = &e->L;
    const char *name[2] = {"ka", "kb"};
    int mul[2] = {step_texels(e, 'a'), step_texels(e, 'b')};
    if (e->ints && linear(e, 1))
        mul[1] *= L->b_w; /* kb: the index of the B row */
    const char *ks_a = e->v->fetch != GG_FETCH_UBO ? ks : ubo_ks;
    for (int i = 0; i < 2; i++) {
        gen_sb_printf(sb, e->ints ? "%sint %s = " : "%sfloat %s = float(", ind, name[i]);
        const char *k = i == 0 ? ks_a : ks;
        if (mul[i] != 1 && sum && strchr(k, ' '))
            gen_sb_printf(sb, "(%s) * %d", k, mul[i]);
        else
            put_affine(sb, k, mul[i], 0);
        gen_sb_puts(sb, e->ints ? ";\n" : ") + 0.5;\n");
    }
}

/* The texel row of C (and A) of block row ti, the texel column of C (and
 * B) of block column tj, of fragment f: adjacent for out=rt (the targets of
 * one fragment are neighbours: y*R + ti), strided for out=image (y + ti *
 * tgt_h), so that neighbouring fragments read neighbouring texels. */
static void put_row(emitter *e, int ti)
{
    if (e->L.frag) { /* order=frag (gen.h): pairs of fragment rows interleaved */
        gen_sb_printf(&e->sb, "(f.y / 2) * %d + f.y %% 2", 2 * e->L.tr);
        if (ti)
            gen_sb_printf(&e->sb, " + %d", 2 * ti);
    } else if (e->L.image && e->v->fetch != GG_FETCH_UBO) { /* ubo: a strip's rows are A's chunk */
        put_affine(&e->sb, "f.y", 1, ti * e->L.tgt_h);
    }
    else
        put_affine(&e->sb, "f.y", e->L.tr, ti);
}

static void put_col(emitter *e, int tj)
{
    if (e->L.frag) {
        gen_sb_printf(&e->sb, "(f.x / 2) * %d + f.x %% 2", 2 * e->L.tc);
        if (tj)
            gen_sb_printf(&e->sb, " + %d", 2 * tj);
    } else if (e->L.image)
        put_affine(&e->sb, "f.x", 1, tj * e->L.tgt_w);
    else
        put_affine(&e->sb, "f.x", e->L.tc, tj);
}

/* out=image: each accumulator to its texel of uC, added to the previous
 * sum (the other image by texelFetch for pingpong, the same by imageLoad for
 * copy).  One channel: r32f, a float; else rgba32f, padded with zeros. */
static void put_image_out(emitter *e)
{
    const gg_layout *L = &e->L;
    gg_sbuf *sb = &e->sb;
    int ch = L->channels;
    static const char *const pad[] = {"", ", 0.0, 0.0, 0.0", ", 0.0, 0.0", ", 0.0", ""};
    bool adj_rows = e->v->fetch == GG_FETCH_UBO; /* see put_row */
    if (adj_rows)
        gen_sb_printf(sb, "    ivec2 c = ivec2(f.x, f.y * %d);\n", L->tr);
    else
        gen_sb_puts(sb, "    ivec2 c = f;\n");
    for (int ti = 0; ti < L->tr; ti++)
        for (int tj = 0; tj < L->tc; tj++) {
            int t = ti * L->tc + tj;
            gen_sb_printf(sb, "    { ivec2 q = c + ivec2(%d, %d); %s p = ", tj * L->tgt_w,
                         adj_rows ? ti : ti * L->tgt_h, vec_type(ch));
            if (e->v->acc == GG_ACC_COPY)
                gen_sb_puts(sb, "imageLoad(uC, q)");
            else
                gen_sb_puts(sb, "texelFetch(uPrev0, q, 0)");
            gen_sb_printf(sb, "%s; imageStore(uC, q, ", narrow(ch));
            if (ch < 4)
                gen_sb_puts(sb, "vec4(");
            gen_sb_printf(sb, "p + uAlpha * acc%d", t);
            if (ch < 4)
                gen_sb_printf(sb, "%s)", pad[ch]);
            gen_sb_puts(sb, "); }\n");
        }
    gen_sb_puts(sb, "}\n");
}

/* n k-steps from ka, kb, each in a block of its own (their fetched texels
 * share names): ku's loop body and the steps after it. */
static void put_step_blocks(emitter *e, int n)
{
    for (int u = 0; u < n; u++) {
        gen_sb_puts(&e->sb, "        {\n");
        put_step(e, "            ", u);
        gen_sb_puts(&e->sb, "        }\n");
    }
}

static void put_main(emitter *e)
{
    const gg_layout *L = &e->L;
    gg_sbuf *sb = &e->sb;
    int ch = L->channels;
    bool prev = e->v->acc != GG_ACC_BLEND;
    gen_sb_puts(sb, "\nvoid main()\n{\n    ivec2 f = ivec2(gl_FragCoord.xy);\n");
    for (int ti = 0; ti < L->tr && e->v->fetch == GG_FETCH_UBO; ti++)
        gen_sb_printf(sb, "    int ay%d = ((f.y %% %d) * %d + %d) * %d; /* row of the strip's chunk */\n",
                     ti, GG_UBO_STRIP, L->tr, ti, L->ubo_row);
    for (int ti = 0; ti < L->tr && e->ints && e->v->fetch != GG_FETCH_UBO; ti++) {
        gen_sb_printf(sb, "    int ay%d = ", ti);
        if (linear(e, 0))
            gen_sb_puts(sb, "(");
        put_row(e, ti);
        if (linear(e, 0))
            gen_sb_printf(sb, ") * %d", L->a_w);
        gen_sb_puts(sb, ";\n");
    }
    for (int tj = 0; tj < L->tc && e->ints; tj++) {
        gen_sb_printf(sb, "    int bx%d = ", tj);
        put_col(e, tj);
        gen_sb_puts(sb, ";\n");
    }
    for (int ti = 0; ti < L->tr && !e->ints; ti++) {
        gen_sb_printf(sb, "    float ay%d = (float(", ti);
        put_row(e, ti);
        gen_sb_printf(sb, ") + 0.5) / %d.0;\n", L->a_h);
    }
    for (int tj = 0; tj < L->tc && !e->ints; tj++) {
        gen_sb_printf(sb, "    float bx%d = (float(", tj);
        put_col(e, tj);
        gen_sb_printf(sb, ") + 0.5) / %d.0;\n", L->b_w);
    }
    for (int t = 0; t < L->targets; t++)
        gen_sb_printf(sb, "    %s acc%d = %s;\n", vec_type(ch), t,
                     ch == 1 ? "0.0" : ch == 2 ? "vec2(0.0)" : ch == 3 ? "vec3(0.0)" : "vec4(0.0)");
    /* The iteration uKBase starts at: uKBase itself where an iteration is
     * one k-step; passes start at whole iterations (np: a multiple of ku). */
    char it0[32], its[48];
    if (L->ku == 1)
        snprintf(it0, sizeof it0, "uKBase");
    else
        snprintf(it0, sizeof it0, "uKBase / %d", L->ku);
    snprintf(its, sizeof its, "%s + i", it0);
    if (e->v->unroll) {
        gen_sb_printf(sb, "    /* k-steps uKBase .. uKBase+%d, written out */\n", L->np - 1);
        put_kbase(e, "    ", it0, false, "0");
        for (int s = 0; s < L->np / L->ku; s++) {
            if (L->ku == 1)
                gen_sb_printf(sb, "    { /* k-step uKBase+%d */\n", s);
            else
                gen_sb_printf(sb, "    { /* k-steps uKBase+%d .. uKBase+%d */\n", s * L->ku,
                             s * L->ku + L->ku - 1);
            put_step(e, "        ", s);
            gen_sb_puts(sb, "    }\n");
        }
    } else if (e->x8 || L->ku == 1) {
        /* One k-step an iteration, or store=f16x8's ku, their stored texels
         * fetched once (np is a multiple of ku: nothing after the loop). */
        gen_sb_printf(sb, "    for (int i = 0; i < %d; ++i) { /* k-steps uKBase .. uKBase+%d",
                     L->np / L->ku, L->np - 1);
        if (e->x8)
            gen_sb_printf(sb, ", %d an iteration", L->ku);
        gen_sb_puts(sb, " */\n");
        put_kbase(e, "        ", its, true, "i");
        put_step(e, "        ", 0);
        gen_sb_puts(sb, "    }\n");
    } else {
        /* ku k-steps an iteration, each in its own block (their fetched
         * texels share names); the np % ku left over after the loop. */
        int body = L->np - L->np % L->ku, rest = L->np % L->ku;
        if (body) {
            gen_sb_printf(sb, "    for (int i = 0; i < %d; i += %d) { /* k-steps uKBase .. uKBase+%d, "
                             "%d an iteration */\n", body, L->ku, body - 1, L->ku);
            put_kbase(e, "        ", "uKBase + i", true, "i");
            put_step_blocks(e, L->ku);
            gen_sb_puts(sb, "    }\n");
        }
        if (rest) {
            char ks[32], first[16];
            snprintf(ks, sizeof ks, "uKBase + %d", body);
            snprintf(first, sizeof first, "%d", body);
            gen_sb_printf(sb, "    { /* k-steps uKBase+%d .. uKBase+%d, after the loop */\n", body,
                         L->np - 1);
            put_kbase(e, "        ", ks, true, first);
            put_step_blocks(e, rest);
            gen_sb_puts(sb, "    }\n");
        }
    }
    if (L->image) {
        put_image_out(e);
        return;
    }
    static const char *const pad[] = {"", ", 0.0, 0.0, 0.0", ", 0.0, 0.0", ", 0.0", ""};
    for (int t = 0; t < L->targets; t++) {
        if (prev) {
            gen_sb_printf(sb, "    %s p%d = ", vec_type(ch), t);
            gen_sb_printf(sb, "%s(uPrev%d, gl_FragCoord.xy / vec2(%d.0, %d.0))%s;\n", e->sample, t,
                         L->tgt_w, L->tgt_h, narrow(ch));
        }
        if (e->legacy)
            gen_sb_printf(sb, "    gl_FragData[%d] = ", t);
        else
            gen_sb_printf(sb, "    o%d = ", t);
        if (ch < 4)
            gen_sb_puts(sb, "vec4(");
        if (prev)
            gen_sb_printf(sb, "p%d + ", t);
        gen_sb_printf(sb, "uAlpha * acc%d", t);
        if (ch < 4)
            gen_sb_printf(sb, "%s)", pad[ch]);
        gen_sb_puts(sb, ";\n");
    }
    gen_sb_puts(sb, "}\n");
}

char *gen_emit_fragment(const gg_variant *v, int m, int n, int k)
{
    if (gen_store_wide(v->store))
        return gen_emit_wide(v, m, n, k);
    emitter e = {.v = v};
    if (gen_layout_compute(v, m, n, k, &e.L))
        return NULL;
    e.legacy = v->profile == GG_PROFILE_120;
    e.spirv = v->compiler == GG_COMPILER_SPIRV && v->profile == GG_PROFILE_330;
    e.sample = e.legacy ? "texture2D" : "texture";
    e.bind = e.spirv || v->profile == GG_PROFILE_430 || v->profile == GG_PROFILE_310ES;
    e.es = v->profile == GG_PROFILE_300ES || v->profile == GG_PROFILE_310ES;
    e.ints = v->fetch != GG_FETCH_TEXTURE;
    e.x8 = v->store == GG_STORE_F16X8;
    e.steps = e.x8 ? e.L.ku : 1;
    gen_sb_init(&e.sb);
    put_version(&e);
    put_header(&e, m, n, k);
    put_declarations(&e);
    put_main(&e);
    return gen_sb_finish(&e.sb);
}

char *gen_emit_vertex(const gg_variant *v)
{
    gg_sbuf sb;
    gen_sb_init(&sb);
    switch (v->profile) {
    case GG_PROFILE_120:
        gen_sb_puts(&sb, "#version 120\n");
        break;
    case GG_PROFILE_330:
        gen_sb_puts(&sb, "#version 330\n");
        break;
    case GG_PROFILE_300ES:
        gen_sb_puts(&sb, "#version 300 es\n");
        break;
    case GG_PROFILE_430:
        gen_sb_puts(&sb, "#version 430\n");
        break;
    case GG_PROFILE_310ES:
    case GG_PROFILE_COUNT:
        gen_sb_puts(&sb, "#version 310 es\n");
        break;
    }
    gen_sb_printf(&sb, "/* Generated by %s %s (gen/emit.c): one triangle covering the viewport. */\n",
                 GG_GEN_NAME, GG_GEN_VERSION);
    if (v->profile == GG_PROFILE_120)
        gen_sb_puts(&sb, "attribute vec2 aPos; /* location 0: glBindAttribLocation */\n");
    else
        gen_sb_puts(&sb, "layout(location = 0) in vec2 aPos;\n");
    gen_sb_puts(&sb, "void main()\n{\n    gl_Position = vec4(aPos, 0.0, 1.0);\n}\n");
    return gen_sb_finish(&sb);
}
