/* The probe's kernels without GL (probe_src.h): GLSL 3.30 fragment shaders
 * (4.30 for images; GLSL ES 3.00 for WebGL2) drawn over one triangle that
 * covers the viewport, into RGBA32F targets, and a CPU model of what each
 * writes.
 *
 *  - PK_MAD: `chains` independent vec4 chains v = v * uMul + uAdd, `unroll`
 *    steps of each per iteration of a uniform-bounded loop (the compiler
 *    cannot fold it; few chains unrolled keep llvmpipe's registers from
 *    spilling, many chains give a GPU independent work), summed into the
 *    target so no chain is dead.  uMul and uAdd are uniforms: lane w
 *    (v * 1 + 2^-10) cannot be simplified away and counts iterations exactly.
 *    fp64: the same chains as dvec4 (GLSL 3.30 with GL_ARB_gpu_shader_fp64,
 *    the extension the store=f64 shaders enable), their sum rounded to
 *    float into the target: checked against a double model within two
 *    float ulps, so fp32 arithmetic would not pass.
 *  - PK_FETCH: `iters` fetches of an R32F, RGBA32F or RGBA16F texture, summed into
 *    four accumulators.  A fetch samples a texel centre with normalized
 *    coordinates and GL_NEAREST, as the GEMM's shaders do (gen/emit.c; on
 *    llvmpipe texelFetch costs more a texel), so the ceiling is theirs.
 *    Friendly: fragment (x, y) reads texels (x + i, y),
 *    neighbours read neighbours, as the GEMM's sweep along k.  Hostile: a
 *    hash of the fragment starts a walk with an odd stride of 2^32 / phi
 *    over the whole (large) texture, so almost every fetch misses.  GEMM:
 *    `iters` k-steps of 12 fetches in the pattern of mrt=2x4,mc=4x1 or
 *    mrt=4x2,mc=1x4 (probe.h).  Texel
 *    values are multiples of 2^-10 below 1, so every partial sum up to 8192
 *    terms is exact in float and the CPU model matches to the bit.  The
 *    GEMM patterns also by the other paths of gen/emit.c, the same texels
 *    at the same (wrapped) integer coordinates: texelFetch(uTex, ivec2, 0);
 *    imageLoad of the texture bound readonly as an image of its format
 *    (immutable, glTexStorage2D, as the host makes it for fetch=image);
 *    texelFetch on a samplerBuffer holding the texels row by row (RGBA16F
 *    as halves made on the host, gen/half.h: exact for these values).
 *  - PK_WRITE: `targets` outputs, target t gets (x + .5, y + .5, t, 1).
 *  - PK_STORE: fragment (x, y) stores the blk x blk texels (x*blk + i,
 *    y*blk + j) of an RGBA32F image (immutable, cleared to zero) by
 *    imageStore, written out as gen/emit.c writes out=image's block: texel
 *    (X, Y) gets (X + .5, Y + .5, j*blk + i, 1).  No render target: a
 *    framebuffer without attachments of the viewport's size, and after each
 *    draw the barrier the GEMM's host puts between passes.
 *  - es (WebGL2): `#version 300 es` with highp precision statements, and
 *    float literals written with a point (ES converts no int to float);
 *    the rest of the text is the same.  ES 3.00 has no images and no
 *    buffer textures. */
#include "glhost/probe_src.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vertex shader in the fragment shader's GLSL version. */
static const char *vertex_src_330 =
    "#version 330 core\n"
    "layout(location = 0) in vec2 aPos;\n"
    "void main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n";
static const char *vertex_src_430 =
    "#version 430 core\n"
    "layout(location = 0) in vec2 aPos;\n"
    "void main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n";
static const char *vertex_src_300es =
    "#version 300 es\n"
    "layout(location = 0) in vec2 aPos;\n"
    "void main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n";

/* The fragment shader's first lines: its version, and in ES the precision
 * of floats, ints and samplers (ES's defaults for samplers are lowp). */
static const char *version_text(bool es, bool v430)
{
    return es     ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
                    "precision highp sampler2D;\n"
           : v430 ? "#version 430 core\n"
                  : "#version 330 core\n";
}

/* GLSL 4.30: imageLoad and imageStore with layout(binding), storage
 * blocks. */
bool host_probe_kernel_needs_430(const host_probe_kernel *k)
{
    return k->kind == PK_STORE ||
           (k->kind == PK_FETCH && (k->path == GG_FETCH_IMAGE || k->path == GG_FETCH_SSBO));
}

/* Appends to a fixed buffer; overflow is sticky and checked once. */
typedef struct {
    char buf[HOST_PROBE_SRC_MAX];
    size_t len;
    bool overflow;
    bool es;
} srcbuf;

static void put(srcbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(srcbuf *s, const char *fmt, ...)
{
    va_list ap;
    if (s->overflow)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, sizeof s->buf - s->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof s->buf - s->len)
        s->overflow = true;
    else
        s->len += (size_t)n;
}

/* Initial value of chain c at fragment (x, y): exact in float. */
static void mad_init(int x, int y, int c, float v[4])
{
    float fx = ((float)x + 0.5f) * 0.0009765625f;
    float fy = ((float)y + 0.5f) * 0.0009765625f;
    v[0] = fx + 0.125f * (float)c;
    v[1] = fy - 0.0625f * (float)c;
    v[2] = (0.5f - fx) + 0.03125f * (float)c;
    v[3] = (float)c;
}

/* A float constant as a GLSL literal: "%.9g", in ES with a point where that
 * has none (ES converts no int to float). */
static const char *flit(const srcbuf *s, double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.9g", v);
    if (s->es && !strpbrk(buf, ".en"))
        snprintf(buf + strlen(buf), len - strlen(buf), ".0");
    return buf;
}

/* fp64: the chains are dvec4 from the same float starts, multiplied and
 * added by the uniforms widened (double(float) is exact), and their sum is
 * rounded to float once for the RGBA32F target. */
static void emit_mad(srcbuf *s, int chains, int unroll, bool fp64)
{
    const char *T = fp64 ? "dvec4" : "vec4";
    put(s, "%s%s"
           "// glgemm probe: %s multiply-add, %d independent chains, %d steps an iteration\n"
           "uniform int uIters;\nuniform vec4 uMul;\nuniform vec4 uAdd;\n"
           "layout(location = 0) out vec4 oColor;\n"
           "void main() {\n"
           "    float fx = gl_FragCoord.x * 0.0009765625;\n"
           "    float fy = gl_FragCoord.y * 0.0009765625;\n",
        version_text(s->es, false),
        fp64 ? "#extension GL_ARB_gpu_shader_fp64 : require\n" : "", T, chains, unroll);
    if (fp64)
        put(s, "    dvec4 m = dvec4(uMul), a = dvec4(uAdd);\n");
    for (int c = 0; c < chains; c++) {
        char a[32], b[32], d[32];
        put(s, "    %s v%d = %s(vec4(fx + %s, fy - %s, (0.5 - fx) + %s, %d.0));\n", T, c, T,
            flit(s, 0.125 * c, a, sizeof a), flit(s, 0.0625 * c, b, sizeof b),
            flit(s, 0.03125 * c, d, sizeof d), c);
    }
    put(s, "    for (int i = 0; i < uIters; i++) {\n");
    for (int u = 0; u < unroll; u++)
        for (int c = 0; c < chains; c++)
            put(s, "        v%d = v%d * %s + %s;\n", c, c, fp64 ? "m" : "uMul", fp64 ? "a" : "uAdd");
    put(s, "    }\n    oColor = %s(v0", fp64 ? "vec4" : "");
    for (int c = 1; c < chains; c++)
        put(s, " + v%d", c);
    put(s, ");\n}\n");
}

/* The 12 fetches of k-step q of a GEMM pattern at fragment (x, y): (sum,
 * u, v) each, in the shader's order; host_probe_gemm_coord_text writes fetch i's
 * u and v as GLSL over p (the fragment) and q.  Both from one table. */
typedef struct {
    int acc, ux, uy, uq, uc, vx, vy, vq, vc; /* u = ux*x + uy*y + uq*q + uc, v likewise */
} gemm_fetch;

static const gemm_fetch gemm24[12] = {
    {0, 0, 0, 4, 0, 0, 2, 0, 0}, {1, 0, 0, 4, 1, 0, 2, 0, 0}, {2, 0, 0, 4, 2, 0, 2, 0, 0},
    {3, 0, 0, 4, 3, 0, 2, 0, 0}, {0, 0, 0, 4, 0, 0, 2, 0, 1}, {1, 0, 0, 4, 1, 0, 2, 0, 1},
    {2, 0, 0, 4, 2, 0, 2, 0, 1}, {3, 0, 0, 4, 3, 0, 2, 0, 1}, {0, 4, 0, 0, 0, 0, 0, 1, 0},
    {1, 4, 0, 0, 1, 0, 0, 1, 0}, {2, 4, 0, 0, 2, 0, 0, 1, 0}, {3, 4, 0, 0, 3, 0, 0, 1, 0},
}, gemm42[12] = {
    {0, 0, 0, 1, 0, 0, 4, 0, 0}, {1, 0, 0, 1, 0, 0, 4, 0, 1}, {2, 0, 0, 1, 0, 0, 4, 0, 2},
    {3, 0, 0, 1, 0, 0, 4, 0, 3}, {0, 2, 0, 0, 0, 0, 0, 4, 0}, {1, 2, 0, 0, 0, 0, 0, 4, 1},
    {2, 2, 0, 0, 0, 0, 0, 4, 2}, {3, 2, 0, 0, 0, 0, 0, 4, 3}, {0, 2, 0, 0, 1, 0, 0, 4, 0},
    {1, 2, 0, 0, 1, 0, 0, 4, 1}, {2, 2, 0, 0, 1, 0, 0, 4, 2}, {3, 2, 0, 0, 1, 0, 0, 4, 3},
};

int host_probe_gemm_fetches(int pattern, int x, int y, int q, int out[12][3])
{
    for (int i = 0; i < 12; i++) {
        const gemm_fetch *e = pattern == GG_FETCH_GEMM42 ? &gemm42[i] : &gemm24[i];
        out[i][0] = e->acc;
        out[i][1] = e->ux * x + e->uy * y + e->uq * q + e->uc;
        out[i][2] = e->vx * x + e->vy * y + e->vq * q + e->vc;
    }
    return 12;
}

static void coord_text(char *dst, size_t len, int cx, int cy, int cq, int c)
{
    snprintf(dst, len, "%d * p.x + %d * p.y + %d * q + %d", cx, cy, cq, c);
}

void host_probe_gemm_coord_text(int pattern, int i, char *u, size_t ulen, char *v, size_t vlen)
{
    const gemm_fetch *e = pattern == GG_FETCH_GEMM42 ? &gemm42[i] : &gemm24[i];
    coord_text(u, ulen, e->ux, e->uy, e->uq, e->uc);
    coord_text(v, vlen, e->vx, e->vy, e->vq, e->vc);
}

static const char *fetch_fmt_label(int fmt)
{
    return fmt == GG_FETCH_R32F ? "R32F" : fmt == GG_FETCH_RGBA16F ? "RGBA16F" : "RGBA32F";
}

/* The read of texel (u, v), coordinates wrapped by masks, by the kernel's
 * path: texture() at the texel centre, texelFetch, imageLoad, or texelFetch
 * of the buffer texture at v * w + u. */
static void put_fetch(srcbuf *s, int acc, const char *u, const char *v, const host_probe_kernel *k)
{
    int w = 1 << k->tex_log2w, h = 1 << k->tex_log2h;
    switch (k->path) {
    case GG_FETCH_TEXELFETCH:
        put(s, "        s%d += texelFetch(uTex, ivec2((%s) & %d, (%s) & %d), 0);\n", acc, u, w - 1,
            v, h - 1);
        return;
    case GG_FETCH_IMAGE:
        put(s, "        s%d += imageLoad(uImg, ivec2((%s) & %d, (%s) & %d));\n", acc, u, w - 1, v,
            h - 1);
        return;
    case GG_FETCH_BUFFER:
        put(s, "        s%d += texelFetch(uTex, ((%s) & %d) * %d + ((%s) & %d));\n", acc, v, h - 1,
            w, u, w - 1);
        return;
    case GG_FETCH_SSBO:
        put(s, "        s%d += uSrc[((%s) & %d) * %d + ((%s) & %d)];\n", acc, v, h - 1, w, u, w - 1);
        return;
    default:
        put(s, "        s%d += texture(uTex, vec2((float((%s) & %d) + 0.5) / %d.0, "
               "(float((%s) & %d) + 0.5) / %d.0));\n",
            acc, u, w - 1, w, v, h - 1, h);
        return;
    }
}

static const char *path_label(int path)
{
    return path == GG_FETCH_TEXELFETCH ? "texelFetch"
           : path == GG_FETCH_IMAGE    ? "imageLoad"
           : path == GG_FETCH_BUFFER   ? "texelFetch on a buffer texture"
           : path == GG_FETCH_SSBO     ? "a std430 storage buffer"
                                       : "texture() at texel centres";
}

static void emit_fetch(srcbuf *s, const host_probe_kernel *k)
{
    static const char *pat[] = {"cache-friendly", "cache-hostile", "GEMM pattern 2x4-4x1",
                                "GEMM pattern 4x2-1x4"};
    put(s, "%s"
           "// glgemm probe: texel fetch, %s, %s, %s, %dx%d texture\n",
        version_text(s->es, host_probe_kernel_needs_430(k)), fetch_fmt_label(k->fmt), pat[k->pattern],
        path_label(k->path), 1 << k->tex_log2w, 1 << k->tex_log2h);
    if (k->path == GG_FETCH_IMAGE)
        put(s, "layout(binding = 0, %s) readonly uniform image2D uImg;\n",
            k->fmt == GG_FETCH_RGBA16F ? "rgba16f" : "rgba32f");
    else if (k->path == GG_FETCH_SSBO)
        put(s, "layout(std430, binding = 0) readonly buffer Src { vec4 uSrc[]; };\n");
    else
        put(s, "uniform %s uTex;\n", k->path == GG_FETCH_BUFFER ? "samplerBuffer" : "sampler2D");
    put(s, "uniform int uIters;\n"
           "layout(location = 0) out vec4 oColor;\n"
           "void main() {\n"
           "    vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);\n");
    int mw = (1 << k->tex_log2w) - 1, mh = (1 << k->tex_log2h) - 1;
    if (k->pattern == GG_FETCH_FRIENDLY) {
        put(s, "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
               "    float y = (float(p.y & %d) + 0.5) / %d.0;\n"
               "    for (int i = 0; i < uIters; i += 4) {\n",
            mh, mh + 1);
        for (int j = 0; j < 4; j++)
            put(s, "        s%d += texture(uTex, vec2((float((p.x + i + %d) & %d) + 0.5) / %d.0, y));\n",
                j, j, mw, mw + 1);
        put(s, "    }\n");
    } else if (k->pattern == GG_FETCH_GEMM24 || k->pattern == GG_FETCH_GEMM42) {
        /* uIters k-steps of 12 fetches (probe.h), sums as host_probe_expect's. */
        put(s, "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
               "    for (int q = 0; q < uIters; q++) {\n");
        int f[12][3];
        int n = host_probe_gemm_fetches(k->pattern, 0, 0, 0, f);
        for (int i = 0; i < n; i++) {
            char u[32], v[32];
            host_probe_gemm_coord_text(k->pattern, i, u, sizeof u, v, sizeof v);
            put_fetch(s, f[i][0], u, v, k);
        }
        put(s, "    }\n");
    } else {
        unsigned all = (unsigned)(((uint64_t)1 << (k->tex_log2w + k->tex_log2h)) - 1);
        put(s, "    uvec2 p = uvec2(gl_FragCoord.xy);\n"
               "    uint h = p.x * 73856093u ^ p.y * 19349663u;\n"
               "    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;\n"
               "    for (int i = 0; i < uIters; i += 4) {\n");
        for (int j = 0; j < 4; j++)
            put(s, "        { uint a = h & %uu; h += 2654435769u;\n"
                   "          s%d += texture(uTex, (vec2(uvec2(a & %uu, a >> %d)) + 0.5) / vec2(%d.0, %d.0)); }\n",
                all, j, (unsigned)mw, k->tex_log2w, mw + 1, mh + 1);
        put(s, "    }\n");
    }
    put(s, "    oColor = (s0 + s1) + (s2 + s3);\n}\n");
}

static void emit_store(srcbuf *s, int blk)
{
    put(s, "#version 430 core\n"
           "// glgemm probe: imageStore of %dx%d RGBA32F texels a fragment\n"
           "layout(binding = 0, rgba32f) writeonly uniform image2D uImg;\n"
           "void main() {\n"
           "    ivec2 c = ivec2(gl_FragCoord.xy) * %d;\n",
        blk, blk, blk);
    for (int j = 0; j < blk; j++)
        for (int i = 0; i < blk; i++)
            put(s, "    { ivec2 q = c + ivec2(%d, %d); imageStore(uImg, q, vec4(vec2(q) + 0.5, %d.0, "
                   "1.0)); }\n",
                i, j, j * blk + i);
    put(s, "}\n");
}

static void emit_write(srcbuf *s, int targets)
{
    put(s, "%s// glgemm probe: render-target write, %d targets\n", version_text(s->es, false),
        targets);
    for (int t = 0; t < targets; t++)
        put(s, "layout(location = %d) out vec4 o%d;\n", t, t);
    put(s, "void main() {\n    vec4 v = vec4(gl_FragCoord.xy, 0.0, 1.0);\n");
    for (int t = 0; t < targets; t++)
        put(s, "    o%d = v + vec4(0.0, 0.0, %d.0, 0.0);\n", t, t);
    put(s, "}\n");
}

gg_status host_probe_kernel_check(host_probe_kernel *k, char *detail, size_t len)
{
    if (k->kind != PK_WRITE)
        k->targets = 1;
    if (k->unroll < 1)
        k->unroll = 1;
    bool gemm = k->pattern == GG_FETCH_GEMM24 || k->pattern == GG_FETCH_GEMM42;
    if (k->targets < 1 || k->targets > GG_MAX_TARGETS || k->w < 1 || k->h < 1 ||
        (k->kind == PK_MAD && k->chains < 1) ||
        (k->kind == PK_FETCH && (k->path < 0 || k->path > GG_PROBE_LAST_PATH ||
                                 k->path == GG_FETCH_UBO ||
                                 (k->path == GG_FETCH_SSBO && k->fmt != GG_FETCH_RGBA32F) ||
                                 (k->path != GG_FETCH_TEXTURE && !gemm))) ||
        (k->kind == PK_STORE && (k->blk < 1 || k->w % k->blk || k->h % k->blk))) {
        snprintf(detail, len, "probe: bad kernel parameters");
        return GG_INVALID;
    }
    return GG_OK;
}

gg_status host_probe_kernel_source(const host_probe_kernel *k, bool es, char *fs, size_t fslen,
                                   const char **vs, char *detail, size_t len)
{
    bool v430 = host_probe_kernel_needs_430(k);
    if (es && k->kind == PK_MAD && k->fp64) {
        snprintf(detail, len, "probe: GLSL ES 3.00 has no double");
        return GG_UNSUPPORTED;
    }
    if (es && (v430 || (k->kind == PK_FETCH && k->path == GG_FETCH_BUFFER))) {
        snprintf(detail, len, "probe: GLSL ES 3.00 has no %s",
                 k->kind == PK_STORE                                ? "imageStore"
                 : k->kind == PK_FETCH && k->path == GG_FETCH_SSBO ? "storage buffers"
                 : v430                                             ? "imageLoad"
                                                                    : "buffer textures");
        return GG_UNSUPPORTED;
    }
    srcbuf *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(detail, len, "probe: out of memory");
        return GG_GL_ERROR;
    }
    s->es = es;
    switch (k->kind) {
    case PK_MAD: emit_mad(s, k->chains, k->unroll < 1 ? 1 : k->unroll, k->fp64); break;
    case PK_FETCH: emit_fetch(s, k); break;
    case PK_WRITE: emit_write(s, k->targets); break;
    case PK_STORE: emit_store(s, k->blk); break;
    }
    gg_status st = GG_OK;
    if (s->overflow || s->len >= fslen) {
        snprintf(detail, len, "probe: shader text too long");
        st = GG_INVALID;
    } else {
        memcpy(fs, s->buf, s->len + 1);
        *vs = es ? vertex_src_300es : v430 ? vertex_src_430 : vertex_src_330;
    }
    free(s);
    return st;
}

uint32_t host_probe_hash(uint32_t x, uint32_t y)
{
    uint32_t h = (x * 73856093u) ^ (y * 19349663u);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

float host_probe_texel_value(uint32_t index, int channel)
{
    uint32_t v = ((index * 4u + (uint32_t)channel) * 2654435761u) >> 22;
    return (float)v * 0.0009765625f;
}

/* ---- CPU models ---------------------------------------------------------- */

void host_probe_mad_reference(int x, int y, int chains, int steps, float out[4])
{
    static const float mul[4] = {PK_MUL_X, PK_MUL_Y, PK_MUL_Z, PK_MUL_W};
    static const float add[4] = {PK_ADD_X, PK_ADD_Y, PK_ADD_Z, PK_ADD_W};
    for (int l = 0; l < 4; l++)
        out[l] = 0.0f;
    for (int c = 0; c < chains; c++) {
        float v[4];
        mad_init(x, y, c, v);
        for (int i = 0; i < steps; i++)
            for (int l = 0; l < 4; l++) {
                volatile float p = v[l] * mul[l]; /* no contraction: one rounding each */
                v[l] = p + add[l];
            }
        for (int l = 0; l < 4; l++)
            out[l] = c == 0 ? v[l] : out[l] + v[l];
    }
}

void host_probe_mad64_reference(int x, int y, int chains, int steps, float out[4])
{
    static const float mul[4] = {PK_MUL_X, PK_MUL_Y, PK_MUL_Z, PK_MUL_W};
    static const float add[4] = {PK_ADD_X, PK_ADD_Y, PK_ADD_Z, PK_ADD_W};
    double sum[4] = {0, 0, 0, 0};
    for (int c = 0; c < chains; c++) {
        float f[4];
        mad_init(x, y, c, f);
        double v[4] = {f[0], f[1], f[2], f[3]};
        for (int i = 0; i < steps; i++)
            for (int l = 0; l < 4; l++) {
                volatile double p = v[l] * (double)mul[l]; /* one rounding each */
                v[l] = p + (double)add[l];
            }
        for (int l = 0; l < 4; l++)
            sum[l] += v[l];
    }
    for (int l = 0; l < 4; l++)
        out[l] = (float)sum[l];
}

double host_probe_mad64_tolerance(float ref)
{
    /* The double chains differ from the CPU's by a few double ulps (FMA
     * contraction, the sum's order), far below a float's: the one rounding
     * to float may land on either neighbour.  fp32 chains miss by tens of
     * float ulps in lane x (a contraction by 0.99 sums ~100 steps' roundings). */
    return 2.0 * ldexp(1.0, -23) * fmax(fabs((double)ref), 1e-30);
}

double host_probe_mad_tolerance(int chains, int steps, const float ref[4])
{
    /* Lanes x, y, z contract (|mul| <= 0.99), so a rounding difference per
     * step (an FMA, or a reordered sum) stays within about 100 ulp of values
     * below 4 per chain; lane w is exact.  One iteration more or fewer moves
     * lane w by chains * 2^-10, well above this. */
    (void)steps;
    double m = 0;
    for (int l = 0; l < 4; l++)
        m = fmax(m, fabs((double)ref[l]));
    return 1e-4 * chains + 1e-6 * m;
}

void host_probe_expect(const host_probe_kernel *k, int t, int x, int y, int iters, float out[4])
{
    switch (k->kind) {
    case PK_MAD:
        if (k->fp64)
            host_probe_mad64_reference(x, y, k->chains, iters * k->unroll, out);
        else
            host_probe_mad_reference(x, y, k->chains, iters * k->unroll, out);
        return;
    case PK_WRITE:
        out[0] = (float)x + 0.5f;
        out[1] = (float)y + 0.5f;
        out[2] = (float)t;
        out[3] = 1.0f;
        return;
    case PK_STORE:
        out[0] = (float)x + 0.5f;
        out[1] = (float)y + 0.5f;
        out[2] = (float)((y % k->blk) * k->blk + x % k->blk);
        out[3] = 1.0f;
        return;
    case PK_FETCH:
        break;
    }
    int w = 1 << k->tex_log2w, mw = w - 1, mh = (1 << k->tex_log2h) - 1;
    uint32_t all = (uint32_t)(((uint64_t)1 << (k->tex_log2w + k->tex_log2h)) - 1);
    uint32_t h = host_probe_hash((uint32_t)x, (uint32_t)y);
    float s[4][4] = {{0}};
    /* (accumulator, u, v) of every fetch, in the shader's order. */
    int n = 0, fetch[12][3];
    bool gemm = k->pattern == GG_FETCH_GEMM24 || k->pattern == GG_FETCH_GEMM42;
    int steps = gemm ? iters : iters / 4 + (iters % 4 != 0);
    for (int i = 0; i < steps; i++) {
        n = 0;
        if (gemm) {
            n = host_probe_gemm_fetches(k->pattern, x, y, i, fetch);
        } else {
            for (int j = 0; j < 4; j++, n++) {
                fetch[n][0] = j;
                fetch[n][1] = x + 4 * i + j;
                fetch[n][2] = y;
            }
        }
        for (int f = 0; f < n; f++) {
            uint32_t index;
            if (k->pattern == GG_FETCH_HOSTILE) {
                index = h & all;
                h += 2654435769u;
            } else {
                index = (uint32_t)(fetch[f][2] & mh) * (uint32_t)w + (uint32_t)(fetch[f][1] & mw);
            }
            for (int c = 0; c < 4; c++) {
                float v;
                if (k->fmt != GG_FETCH_R32F)
                    v = host_probe_texel_value(index, c);
                else
                    v = c == 0 ? host_probe_texel_value(index, 0) : c == 3 ? 1.0f : 0.0f;
                s[fetch[f][0]][c] += v;
            }
        }
    }
    for (int c = 0; c < 4; c++)
        out[c] = (s[0][c] + s[1][c]) + (s[2][c] + s[3][c]);
}

double host_probe_tolerance(const host_probe_kernel *k, int iters, const float expect[4], int channel)
{
    /* Multiply-add lane w, fetch sums (multiples of 2^-10 below 8192) and
     * written values are exact in any order of evaluation. */
    if (k->kind == PK_MAD && channel != 3)
        return k->fp64 ? host_probe_mad64_tolerance(expect[channel])
                       : host_probe_mad_tolerance(k->chains, iters * k->unroll, expect);
    return 0.0;
}
