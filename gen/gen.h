/* gen/: variants and GLSL, nothing of GL.
 *
 * Contract of this layer:
 *  - A variant (one point of the tuning space, SPEC.md "Variants") is one struct.
 *    gen_variant_parse() turns text into it (keys in any order, presets with
 *    overrides), gen_variant_format() prints the canonical form.
 *  - Validation has two steps.  Syntax and static rules (known keys and values,
 *    R*C <= 4 for mc, np >= 1) are bad input: parse fails with one line naming
 *    the key and what is allowed.  Card limits (draw buffers, SPIR-V, float
 *    blending) are checked by gen_variant_check_card() and make a variant
 *    invalid or unsupported, a status, not an error.
 *  - gen_layout_compute() fixes the geometry every other layer relies on: how
 *    A, B and C are packed into textures, how many passes run, what each
 *    fragment computes.  The host packs and unpacks by it; the emitter writes
 *    shaders by it.
 *  - The emitters return malloc'd text, deterministic for a given input.
 * No GL header is included anywhere in gen/.
 *
 * Geometry (mc = r x c, mrt = R x C, s = lcm(r, c) scalar k per k-step):
 *  - A texture: width kpad/c, height mpad/r.  Texel (x, y) holds
 *    A[y*r + i][x*c + j] in channel i*c + j (row-major inside the block).
 *  - B texture: width npad/c, height kpad/r.  Texel (x, y) holds
 *    B[y*r + i][x*c + j] in channel i*c + j.
 *  - C: tgt_w x tgt_h fragments, each writing R x C texels of C, one per
 *    render target.  Target t = ti*C + tj at fragment (x, y) holds the C texel
 *    at texel row y*R + ti, texel column x*C + tj, i.e. C[(y*R+ti)*r + i]
 *    [(x*C+tj)*c + j] in channel i*c + j.  The fragment's blocks are adjacent.
 *  - K is zero-padded to kpad = passes * np * s, M to mpad (multiple of r*R),
 *    N to npad (multiple of c*C), so every pass runs the same np k-steps.
 *  - out=image, blk = BR x BC scalars: R = BR/r, C = BC/c texels a fragment,
 *    as many as mrt = R x C would give, but strided: fragment (x, y) holds texels (x + j *
 *    tgt_w, y + i * tgt_h), i < R, j < C, so that neighbouring fragments read
 *    neighbouring texels of A and B), and C is one image of npad/c x mpad/r
 *    texels in the packing of A and B (texel (x, y) holds C[y*r + i][x*c + j]
 *    in channel i*c + j), written with imageStore; no render target.
 *
 * store=f16x8 (A and B as halves, eight a texel; 1, 2 or 4 channels):
 *  - Its texels are those of store=f16's packing above (the "half texels",
 *    A kpad/c x mpad/r, B npad/c x kpad/r), group = 8 / channels of them
 *    adjacent along k in one RGBA32UI texel: A texel (x, y) holds half
 *    texels (g*x + t, y), B texel (x, y) half texels (x, g*y + t), t <
 *    group.  Half texel t's channel ch is half number t*channels + ch of
 *    the texel's eight: word number / 2, the low 16 bits for an even
 *    number, the high for an odd one (unpackHalf2x16's order).  So a_w =
 *    kpad/c/group and b_h = kpad/r/group; the other sizes are f16's.  Why
 *    along k: one fetch then feeds group half texels' worth of
 *    multiply-adds into the same outputs, halving the fetches per
 *    multiply-add of store=f16 (the fetch-bound fp32 GEMM's limit);
 *    grouping along m or n would need more outputs a fragment for that.
 *  - The k loop starts every iteration at a stored texel of A and of B:
 *    an iteration covers ku k-steps (unroll=1: the written-out steps go
 *    by ku), the key's ku or the least count whose half texels of A
 *    (ku*step/c) and of B (ku*step/r) are whole groups, whichever is
 *    larger; np is rounded up to a multiple of ku, so no step follows the
 *    loop and every pass (uKBase = pass * np) starts at a group too.
 *    Channel counts that do not divide 8 (mc 1x3, 3x1) are invalid.
 *  - Shader: usampler2D / uimage2D (rgba32ui) / usamplerBuffer inputs,
 *    uvec4 fetches unpacked (unpackHalf2x16) to the half texels, then the
 *    multiply-adds of store=f16.  Profile 330 needs
 *    GL_ARB_shading_language_packing; profile 120 and fetch=ubo are
 *    invalid.
 *
 * store=f64, dd, df (the wide stores; gen/wide.h has the detail):
 *  - A value is 2 (f64: the double's words, low first; df: the bits of
 *    its fp32 hi and lo) or 4 (dd: hi's words, then lo's) 32-bit words;
 *    a texel holds r*c values, r*c*words <= 4 (f64, df: mc 1x1, 1x2, 2x1;
 *    dd: 1x1), in RG32UI (2 words) or RGBA32UI (4) textures, the value of
 *    channel i*c + j at words (i*c + j)*words ...  The geometry above is
 *    unchanged (channels counts values).  The running sums are targets of
 *    the same formats (uvec4 outputs), read back as words.
 *  - uniform uvec4 uAlphaW: alpha as a value of the store (its words);
 *    no uAlpha.  Samplers are usampler2D (texture() at centres, or
 *    texelFetch); uPrev_t read by texelFetch.
 *  - Subset (others invalid, with the reason): out=rt, acc=pingpong,
 *    fetch=texture or texelfetch, compiler=glsl, ku=1, order=plain, no
 *    tile; f64 and dd need profile 330 (with GL_ARB_gpu_shader_fp64) or
 *    430; df runs in 330, 300es, 430 and 310es.
 *
 * Shader interface (what the host binds):
 *  - sampler2D uA (texture unit 0, SPIR-V binding 0), uB (unit/binding 1);
 *    fetch=image: image2D uImgA (image unit 1), uImgB (unit 2), readonly, in the
 *    inputs' format (r32f, rg32f, rgba32f; r16f.. for store=f16);
 *    store=f16x8: usampler2D, usamplerBuffer, uimage2D rgba32ui instead;
 *    fetch=buffer: samplerBuffer uA (texture unit 0), uB (unit 1), the
 *    texels of the 2D layout row by row (index y*w + x);
 *    fetch=ssbo, texelfetch+ssbo, ssbo+texelfetch: a matrix from a
 *    storage buffer is the std430 block `layout(std430, binding = 0)
 *    readonly buffer ABuf { T uAs[]; }` (A; B: binding 1, BBuf, uBs), T
 *    float, vec2 or vec4 by the channels (3 channels: vec4, the fourth
 *    zero, as std430 strides a vec3 array by 16 bytes), element y*w + x
 *    the texel (x, y) of the 2D layout (order=frag's order included); the
 *    other matrix as fetch=texelfetch reads it; fp32 only;
 *    fetch=ubo: A in the std140 uniform block ABlock { vec4 uAB[] } at
 *    binding 0 (glUniformBlockBinding where the profile has no
 *    layout(binding)), B as for texelfetch.  The host draws the fragments in
 *    strips GG_UBO_STRIP rows tall (scissor), one draw per strip and pass,
 *    with the strip's chunk of A bound: the texels of its rows (y*R .. of
 *    the strip) for the pass's k-steps, row by row (ubo_row texels a row);
 *    a fragment reads row ((f.y % GG_UBO_STRIP) * R + i) of the chunk.
 *    Fragment rows are adjacent then (A's rows must be the strip's), also
 *    with out=image; M is padded to whole strips;
 *    profiles 430 and 310es carry layout(binding = unit) on every sampler
 *    and image;
 *    for acc=copy and acc=pingpong also uPrev0 .. uPrev{T-1} (units/bindings
 *    2 .. T+1), the running sums in the target layout.
 *  - int uKBase (SPIR-V location 0): the first k-step of this pass.
 *  - float uAlpha (SPIR-V location 1).
 *  - Every pass writes, per target, prev + uAlpha * (this pass's partial sum)
 *    (copy, pingpong) or uAlpha * partial (blend: the host adds with
 *    GL_ONE, GL_ONE).  The host initialises the running sums to beta*C0, or
 *    to zero when beta == 0 (C0 is then not read, as BLAS does).
 *  - Outputs: target t is gl_FragData[t] (120) or `layout(location=t) out
 *    vec4` (330, 300es, 430, 310es); channels past r*c are written as 0.
 *  - out=image: image2D uC at image unit 0, format r32f for one channel,
 *    else rgba32f.  acc=pingpong: writeonly, the previous sum read by
 *    texelFetch from sampler2D uPrev0 (texture unit 2, the other image);
 *    acc=copy: one image read with imageLoad and written in place (430
 *    only: ES 3.1 allows read-write images of r32f only).  The host draws
 *    into a framebuffer with no attachment of tgt_w x tgt_h and puts
 *    glMemoryBarrier between passes.  Three-channel
 *    packings render into RGBA targets (RGB32F is not colour-renderable).
 *  - Vertex shader: attribute/in vec2 aPos at location 0; the host draws one
 *    triangle (-1,-1) (3,-1) (-1,3) over a tgt_w x tgt_h viewport at (0, 0):
 *    fragment (x, y) is ivec2(gl_FragCoord.xy).
 *  - fetch=texture samples at texel centres computed from the baked texture
 *    sizes (texture2D in 120, texture otherwise): the host sets GL_NEAREST
 *    filtering and a single mip level on every texture.  fetch=texelfetch
 *    reads the same textures by integer texel (not in 120).
 *  - For compiler=spirv (profile 330 only) the GLSL carries explicit
 *    layout(binding = unit) on the samplers and layout(location = 0/1) on
 *    uKBase/uAlpha; the host binds units the same way and needs no
 *    glGetUniformLocation.
 */
#ifndef GLGEMM_GEN_H
#define GLGEMM_GEN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int rows, cols;
} gg_shape;

typedef enum {
    GG_PROFILE_120, GG_PROFILE_330, GG_PROFILE_300ES, GG_PROFILE_430, GG_PROFILE_310ES,
    GG_PROFILE_COUNT
} gg_profile;
typedef enum { GG_COMPILER_GLSL, GG_COMPILER_SPIRV } gg_compiler;
typedef enum { GG_ACC_COPY, GG_ACC_PINGPONG, GG_ACC_BLEND } gg_acc;
/* How A and B are stored in their textures: fp32 (R32F..RGBA32F), half
 * floats (R16F..RGBA16F, rounded on the host by gen/half.h), or the same
 * halves eight a texel (f16x8: RGBA32UI, two a 32-bit channel, read with
 * unpackHalf2x16; see "store=f16x8" above).  Sums and C are fp32 always;
 * f32 and f16 shaders differ only in their header. */
typedef enum {
    GG_STORE_F32, GG_STORE_F16, GG_STORE_F16X8, GG_STORE_F64, GG_STORE_DD, GG_STORE_DF,
    GG_STORE_COUNT
} gg_store;
/* The wide stores (gen/wide.h): f64, dd, df carry each value in 32-bit
 * words of unsigned-integer textures and targets, sums included. */
bool gen_store_wide(gg_store s);
/* How C leaves a fragment: render targets, or imageStore of a blk block. */
typedef enum { GG_OUT_RT, GG_OUT_IMAGE, GG_OUT_COUNT } gg_out;
/* How A and B are read: texture() at texel centres, texelFetch on the 2D
 * textures, imageLoad, texelFetch on buffer textures; ubo: A from a
 * uniform block holding the rows of one strip of fragments (one draw per
 * strip), B by texelFetch.  The storage-buffer pairings (GLSL 4.30, ES
 * 3.10): ssbo, A and B from shader storage buffers; texelfetch+ssbo, A by
 * texelFetch and B from a storage buffer; ssbo+texelfetch, the mirror.
 * A matrix read from a storage buffer holds its texels of the 2D layout
 * row by row, as fetch=buffer's (gen.h's "Shader interface"). */
typedef enum {
    GG_FETCH_TEXTURE, GG_FETCH_TEXELFETCH, GG_FETCH_IMAGE, GG_FETCH_BUFFER, GG_FETCH_UBO,
    GG_FETCH_SSBO, GG_FETCH_TEXELFETCH_SSBO, GG_FETCH_SSBO_TEXELFETCH,
    GG_FETCH_COUNT
} gg_fetch;
/* The path one matrix (0: A, 1: B) is read by under a fetch value: itself
 * for the single paths; ubo: A GG_FETCH_UBO, B GG_FETCH_TEXELFETCH; the
 * pairings: GG_FETCH_SSBO or GG_FETCH_TEXELFETCH for each. */
gg_fetch gen_fetch_path(gg_fetch f, int matrix);
/* Whether a fetch value reads a matrix from a shader storage buffer, and
 * how many storage blocks its fragment shader declares (0, 1 or 2). */
int gen_fetch_ssbos(gg_fetch f);

/* Draw order of C's fragments (tile=WxH[c|z]): one draw per tile of W x H
 * fragments (a scissor box), the tiles in rows (default), columns or Z
 * (Morton) order, so that the fragments in flight share A's and B's
 * texels in the texture caches. */
typedef enum { GG_TILE_ROWS, GG_TILE_COLS, GG_TILE_Z, GG_TILE_ORDER_COUNT } gg_tile_order;
/* Texel order of the inputs (order=): plain, the texels in the matrices'
 * order (the geometry below); frag (out=image only): in the order the
 * fragments read them, pairs of fragment rows interleaved: texture row
 * (y/2)*2*tr + 2*i + y%2 of A holds the texel row that fragment row y
 * reads for block row i (the plain order's y + i*tgt_h), and texture
 * column (x/2)*2*tc + 2*j + x%2 of B likewise (the plain x + j*tgt_w).
 * The two fragments of a 2x2 quad still read neighbouring texels, and one
 * fragment's block rows lie 2 apart instead of tgt_h.  M and N are padded
 * to even fragment counts.  C's image keeps the plain order.  (Reading
 * them from one coordinate and constant offsets, textureOffset or
 * texelFetchOffset, took a third fewer instructions but ran at 0.62x on
 * the H100: docs/notes/feed.md.) */
typedef enum { GG_ORDER_PLAIN, GG_ORDER_FRAG, GG_ORDER_COUNT } gg_order;

#define GG_GEN_NAME "glgemm gen"
#define GG_GEN_VERSION "5" /* bump when the emitted text changes */
#define GG_NP_ALL 0 /* np=all: the whole k loop in one pass */
#define GG_MAX_TARGETS 8
#define GG_MAX_BLK 256 /* blk: at most this many scalars of C a fragment */
#define GG_UBO_STRIP 2 /* fetch=ubo: fragment rows a draw covers (a 2x2 quad tall) */
#define GG_VARIANT_TEXT 240 /* enough for any canonical form */
#define GG_TILE_MIN 64      /* tile: at least this many fragments a draw */
#define GG_TILE_MIN_TEXT "64"
#define GG_MAX_TILES 65536  /* draws a pass at most (gen_tile_boxes) */

typedef struct {
    gg_shape mrt;         /* render targets per fragment, R x C */
    gg_shape mc;          /* packing of a texel, r x c, r*c <= 4 */
    int np;               /* k-steps per pass, or GG_NP_ALL */
    int unroll;           /* 0: GLSL loop; 1: written out */
    gg_profile profile;
    gg_compiler compiler;
    gg_acc acc;
    gg_store store;
    gg_out out;           /* rt (default) or image */
    gg_shape blk;         /* out=image: rows x columns of C scalars a fragment computes
                             (whole texels of mc); 0x0 with out=rt */
    gg_fetch fetch;
    gg_shape tile;        /* draw order: C drawn in tiles of cols x rows fragments
                             (tile.cols = W, tile.rows = H; 0x0: one draw) */
    gg_tile_order tile_order; /* the order of the tiles (row, column, Z) */
    int ku;               /* k-steps a loop iteration with unroll=0 (1, 2, 4) */
    gg_order order;       /* texel order of A and B (last key of the canonical form) */
} gg_variant;

/* Defaults of SPEC.md's table. */
void gen_variant_default(gg_variant *v);

/* The keys of a variant, in the canonical form's order: key i is named
 * gen_keys[i].name and has the bit gen_keys[i].bit == 1u << i (search's
 * --fix holds a set of keys as these bits). */
enum {
    GG_KEY_MRT = 1 << 0, GG_KEY_MC = 1 << 1, GG_KEY_NP = 1 << 2, GG_KEY_UNROLL = 1 << 3,
    GG_KEY_PROFILE = 1 << 4, GG_KEY_COMPILER = 1 << 5, GG_KEY_ACC = 1 << 6,
    GG_KEY_STORE = 1 << 7, /* never searched: f32 unless --fix store=f16, f16x8, f64, dd or df */
    GG_KEY_OUT = 1 << 8, GG_KEY_BLK = 1 << 9, GG_KEY_FETCH = 1 << 10,
    GG_KEY_TILE = 1 << 11, GG_KEY_KU = 1 << 12, GG_KEY_ORDER = 1 << 13,
};
#define GG_KEY_COUNT 14
#define GG_KEYS_LIST "mrt, mc, np, unroll, profile, compiler, acc, store, out, blk, fetch, tile, ku, order"
typedef struct {
    const char *name;
    unsigned bit;
} gg_key;
extern const gg_key gen_keys[GG_KEY_COUNT];

/* The pruned shapes the phase search tries (search/space.c) and the report's
 * Figure 8 shows: the paper's set first (GG_PAPER_MC, GG_PAPER_MRT of them:
 * 1x1, 1x2, 1x4, 2x2), then mc 4x1 and the modern mrt 1x8, 2x4, 4x2: 4x1
 * and 4x2 the mirrors of 1x4 and 2x4, which beat the paper's set on the
 * cards of results/ (their reports' Figure 8). */
#define GG_PRUNED_MC 5
#define GG_PRUNED_MRT 7
#define GG_PAPER_MC 4
#define GG_PAPER_MRT 4
extern const gg_shape gen_pruned_mc[GG_PRUNED_MC];
extern const gg_shape gen_pruned_mrt[GG_PRUNED_MRT];


/* Parses "key=value,..." or "preset[,key=value...]".  `best` may be NULL; a
 * text naming the preset `best` then fails with a message saying no best is
 * recorded.  Returns 0, or -1 with one line in err (no trailing newline). */
int gen_variant_parse(const char *text, const gg_variant *best, gg_variant *out,
                     char *err, size_t errlen);

/* Canonical form: every key in the table's order. Returns buf. */
char *gen_variant_format(const gg_variant *v, char *buf, size_t len);
/* Whether two variants have the same value for every key (the canonical
 * forms are equal). */
bool gen_variant_equal(const gg_variant *a, const gg_variant *b);

/* Value names, for printing and CSV columns. */
const char *gen_profile_name(gg_profile p);
const char *gen_compiler_name(gg_compiler c);
const char *gen_acc_name(gg_acc a);
const char *gen_store_name(gg_store s);
/* The values the GPU reads from a store's textures: f16x8 holds the same
 * halves as f16 (one reference of rounded inputs serves both); f32, f16
 * themselves. */
gg_store gen_store_inputs(gg_store s);
const char *gen_out_name(gg_out o);
const char *gen_fetch_name(gg_fetch f);
const char *gen_order_name(gg_order o);
/* "WxH", "WxHc", "WxHz", or "-" for no tiles; returns buf. */
char *gen_tile_format(const gg_variant *v, char *buf, size_t len);
/* Where the tiles of a tile=WxH variant lie in a tgt_w x tgt_h viewport,
 * in drawing order: fills at most cap boxes (x, y, w, h; edge tiles are cut
 * to the viewport) and returns how many there are (one, the whole viewport,
 * without tiles); the host draws one scissored draw per box. */
typedef struct {
    int x, y, w, h;
} gg_box;
int gen_tile_boxes(const gg_variant *v, int tgt_w, int tgt_h, gg_box *out, int cap);
/* (-1 when there would be more than GG_MAX_TILES.) */

/* What the card offers, as far as variants care. */
typedef struct {
    int max_draw_buffers;
    int max_texture_size;
    bool float_blend;   /* float blending in the context the profile needs */
    bool spirv;         /* GL_ARB_gl_spirv and a SPIR-V compiler */
    bool es;            /* the context of the variant's profile is OpenGL ES */
    int gl_version;     /* that context's version, major*10 + minor (e.g. 46, 32) */
    int max_fragment_images; /* GL_MAX_FRAGMENT_IMAGE_UNIFORMS (0 before GL 4.2 / ES 3.1) */
    long max_texture_buffer; /* GL_MAX_TEXTURE_BUFFER_SIZE in texels (0: none) */
    bool packing_ext;   /* GL_ARB_shading_language_packing: unpackHalf2x16 in GLSL 3.30
                           (store=f16x8 with profile 330; core in 4.20 and ES 3.00) */
    int max_fragment_ssbos; /* GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS (0 before GL 4.3 / ES 3.1;
                               ES 3.1 may have 0) */
    bool fp64;          /* double in GLSL: desktop GL 4.0 or GL_ARB_gpu_shader_fp64
                           (store=f64 and dd; profile 330 enables the extension) */
} gg_card_limits;

typedef enum { GG_CARD_OK, GG_CARD_INVALID, GG_CARD_UNSUPPORTED } gg_card_verdict;

/* Card-dependent validity: INVALID for variants that cannot exist (a profile
 * that cannot go to SPIR-V), UNSUPPORTED for what this card lacks (targets
 * beyond max_draw_buffers, no float blending, no SPIR-V).  why gets a reason. */
gg_card_verdict gen_variant_check_card(const gg_variant *v, const gg_card_limits *lim,
                                      char *why, size_t whylen);

/* The card-independent half of gen_variant_check_card: true, with the
 * reason in why, for a variant no card can run (its INVALID verdicts). */
bool gen_variant_invalid(const gg_variant *v, char *why, size_t whylen);

/* Derived geometry of a variant on an m x n x k problem (see the top). */
typedef struct {
    int m, n, k;          /* the problem */
    int r, c;             /* mc */
    int tr, tc;           /* mrt */
    int targets;          /* tr*tc */
    int channels;         /* r*c */
    int step;             /* lcm(r, c): scalar k per k-step */
    int a_texels_per_step;/* step / c (A texels along k, per row block) */
    int b_texels_per_step;/* step / r (B texels along k, per column block) */
    int group;            /* texels of the f16 packing one stored texel holds: 8 / channels
                             for store=f16x8, else 1 */
    int ksteps;           /* ceil(k / step) */
    int np;               /* resolved np, 1..ksteps (store=f16x8: rounded up to a multiple
                             of ku, which may pass ksteps) */
    int passes;           /* ceil(ksteps / np) */
    int ku;               /* k-steps a loop iteration (1 with unroll=1); np % ku more
                             follow the loop, written out.  store=f16x8: also a
                             multiple of the steps that make whole stored texels of A
                             and B, with unroll=1 the steps a written-out group holds,
                             and np % ku is 0 */
    int a_texels_per_iter;/* stored A texels an iteration reads per row block:
                             ku * a_texels_per_step / group */
    int b_texels_per_iter;/* the same of B per column block */
    int kpad, mpad, npad; /* padded sizes */
    int a_w, a_h;         /* A texture, texels (store=f16x8: its RGBA32UI texels) */
    int b_w, b_h;         /* B texture, texels (likewise) */
    int tgt_w, tgt_h;     /* render target / viewport, fragments */
    bool image;           /* out=image: C is one image of c_w x c_h texels */
    bool frag;            /* order=frag: A's rows and B's columns in the fragments' order */
    int ubo_row;          /* fetch=ubo: A texels a chunk row holds (np * a_texels_per_step) */
    long ubo_vec4s;       /* fetch=ubo: vec4s of one strip's chunk (GG_UBO_STRIP * R rows) */
    int c_w, c_h;         /* C's texture(s): tgt_w x tgt_h per target (rt), or the whole
                             image b_w x a_h (image) */
    long fetches_per_frag_pass; /* texels of A and B (and prev) per fragment per pass */
    long a_fetches, b_fetches;  /* of them A's and B's (stored texels) */
    long mads_per_frag_pass;    /* scalar multiply-adds per fragment per pass */
} gg_layout;

/* Fills out; returns 0, or -1 if m, n or k < 1 or the sizes overflow int. */
int gen_layout_compute(const gg_variant *v, int m, int n, int k, gg_layout *out);

/* C as the host stores it: for out=rt the layout itself; for out=image a
 * copy that says one target of c_w x c_h texels (tr = tc = 1), which the
 * packing of C (gen/pack.h) reads the same way. */
void gen_layout_c_view(const gg_layout *L, gg_layout *view);

/* order=frag: the plain order's texel row of A (column of B) that texture
 * row (column) t holds (gen.h's order=frag), t itself in the plain order;
 * gen_layout_unfold(t, ways, len) with ways tr (tc) and len a_h (b_w), or
 * ways 0 for the identity. */
int gen_layout_a_row(const gg_layout *L, int t);
int gen_layout_b_col(const gg_layout *L, int t);
int gen_layout_unfold(int t, int ways, int len);

/* Outputs (scalars of C) a fragment computes, and multiply-adds per texel
 * of A and B it fetches: the figures the fetch bound turns on. */
int gen_layout_outputs(const gg_layout *L);
double gen_layout_mads_per_fetch(const gg_layout *L);

/* Scalar k per k-step of a packing: lcm(r, c) (gg_layout.step). */
int gen_mc_step(gg_shape mc);

/* Shaders for the variant and problem, as the host compiles them, malloc'd
 * (NULL when out of memory or when gen_layout_compute fails).  The fragment
 * shader's first line is #version (glslang accepts nothing before it in ES
 * shaders), then a comment naming the generator, the canonical variant, the
 * problem and the derived figures.  For compiler=spirv the text is the GLSL
 * handed to glslang. */
char *gen_emit_fragment(const gg_variant *v, int m, int n, int k);
char *gen_emit_vertex(const gg_variant *v);
/* The fragment shader of a wide store (gen/wide_emit.c); gen_emit_fragment
 * hands those variants to it. */
char *gen_emit_wide(const gg_variant *v, int m, int n, int k);

#endif
