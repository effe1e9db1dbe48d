/* Packing and unpacking by gen/gen.h's geometry; splitting by texture size. */
#include "gen/pack.h"

#include <string.h>

#include "gen/half.h"

gg_block gen_block_whole(const gg_layout *L)
{
    gg_block b = {0, 0, 0, L->m, L->n, L->k};
    return b;
}

int gen_target_channels(const gg_layout *L) { return L->channels == 3 ? 4 : L->channels; }

/* store=f16x8: the half packing is group times wider (A) or taller (B)
 * than the stored texture (gen.h). */
size_t gen_pack_a_floats(const gg_layout *L)
{
    return (size_t)L->a_w * L->group * L->a_h * L->channels;
}
size_t gen_pack_b_floats(const gg_layout *L)
{
    return (size_t)L->b_w * L->b_h * L->group * L->channels;
}
size_t gen_pack_a_words(const gg_layout *L) { return (size_t)L->a_w * L->a_h * 4; }
size_t gen_pack_b_words(const gg_layout *L) { return (size_t)L->b_w * L->b_h * 4; }
size_t gen_target_floats(const gg_layout *L, int stride)
{
    return (size_t)L->tgt_w * L->tgt_h * stride;
}

static inline float src_at(gg_src s, long i, long j)
{
    return s.trans ? s.data[j * s.ld + i] : s.data[i * s.ld + j];
}

/* n runs of c floats, dstep floats apart in dst and sstep in src.  Called
 * with a constant c, the copies inline: a memcpy call of c floats for each
 * element of an mc=4x1 texture was most of a 256^3 library call's packing
 * on llvmpipe. */
static inline void runs_of(float *restrict dst, size_t dstep, const float *restrict src,
                           size_t sstep, int n, int c)
{
    for (int x = 0; x < n; x++)
        for (int j = 0; j < c; j++)
            dst[(size_t)x * dstep + j] = src[(size_t)x * sstep + j];
}

static void copy_runs(float *dst, size_t dstep, const float *src, size_t sstep, int n, int c)
{
    switch (c) {
    case 1: runs_of(dst, dstep, src, sstep, n, 1); break;
    case 2: runs_of(dst, dstep, src, sstep, n, 2); break;
    case 4: runs_of(dst, dstep, src, sstep, n, 4); break;
    default: runs_of(dst, dstep, src, sstep, n, c); break;
    }
}

/* One texture of r x c blocks: texel (x, y) channel i*c + j holds
 * op(X)[row0 + y'*r + i][col0 + x'*c + j] while inside rows x cols, else 0,
 * y' = gen_layout_unfold(y, rways, h), x' = gen_layout_unfold(x, cways, w) (order=frag).
 * Only texel rows y0 .. y1-1 are written (out is still the whole texture).
 * Untransposed sources copy runs of c floats (a whole row when r is 1 and
 * the columns are in order). */
static void pack_blocks(gg_src s, int r, int c, int w, int h, long row0, long col0,
                        int rows, int cols, int y0, int y1, int rways, int cways, float *out)
{
    int ch = r * c;
    y1 = y1 < h ? y1 : h;
    if (y0 >= y1)
        return;
    if (rows < y1 * r || cols < w * c || rways || cways)
        memset(out + (size_t)y0 * w * ch, 0, (size_t)w * (y1 - y0) * ch * sizeof *out);
    for (int y = y0; y < y1; y++)
        for (int i = 0; i < r; i++) {
            int row = gen_layout_unfold(y, rways, h) * r + i;
            if (row >= rows)
                continue;
            float *dst = out + (size_t)y * w * ch + i * c;
            if (cways) {
                for (int x = 0; x < w; x++) {
                    int lx = gen_layout_unfold(x, cways, w);
                    for (int j = 0; j < c && lx * c + j < cols; j++)
                        dst[(size_t)x * ch + j] = src_at(s, row0 + row, col0 + lx * c + j);
                }
                continue;
            }
            if (!s.trans) {
                const float *src = s.data + (row0 + row) * s.ld + col0;
                if (r == 1) {
                    memcpy(dst, src, (size_t)cols * sizeof *dst);
                    continue;
                }
                int x = cols / c;
                copy_runs(dst, (size_t)ch, src, (size_t)c, x, c);
                for (int j = 0; x * c + j < cols; j++)
                    dst[(size_t)x * ch + j] = src[(size_t)x * c + j];
                continue;
            }
            for (int x = 0; x < w; x++)
                for (int j = 0; j < c; j++) {
                    int col = x * c + j;
                    if (col >= cols)
                        break;
                    dst[(size_t)x * ch + j] = src_at(s, row0 + row, col0 + col);
                }
        }
}

void gen_pack_a(const gg_layout *L, gg_src a, const gg_block *blk, float *out)
{
    gen_pack_a_rows(L, a, blk, 0, L->a_h, out);
}

void gen_pack_b(const gg_layout *L, gg_src b, const gg_block *blk, float *out)
{
    gen_pack_b_rows(L, b, blk, 0, L->b_h * L->group, out);
}

void gen_pack_a_rows(const gg_layout *L, gg_src a, const gg_block *blk, int y0, int y1,
                     float *out)
{
    pack_blocks(a, L->r, L->c, L->a_w * L->group, L->a_h, blk->i0, blk->k0, blk->m, blk->k, y0, y1,
                L->frag ? L->tr : 0, 0, out);
}

void gen_pack_b_rows(const gg_layout *L, gg_src b, const gg_block *blk, int y0, int y1,
                     float *out)
{
    pack_blocks(b, L->r, L->c, L->b_w, L->b_h * L->group, blk->k0, blk->j0, blk->k, blk->n, y0, y1,
                0, L->frag ? L->tc : 0, out);
}

/* Two halves in a word, the first in the low 16 bits (packHalf2x16). */
static uint32_t half_pair(float lo, float hi)
{
    return (uint32_t)gen_float_to_half(lo) | (uint32_t)gen_float_to_half(hi) << 16;
}

void gen_pack_words_a(const gg_layout *L, const float *packed, uint32_t *out)
{
    /* A's group half texels of a stored texel are adjacent in a row of the
     * half packing: its eight halves are eight consecutive floats. */
    size_t words = gen_pack_a_words(L);
    for (size_t i = 0; i < words; i++)
        out[i] = half_pair(packed[2 * i], packed[2 * i + 1]);
}

void gen_pack_words_b(const gg_layout *L, const float *packed, uint32_t *out)
{
    /* B's are group rows of the half packing apart: stored texel (x, y)
     * takes half texels (x, group*y + t), t < group, in that order. */
    int ch = L->channels, g = L->group;
    size_t row = (size_t)L->b_w * ch; /* floats a row of the half packing */
    for (int y = 0; y < L->b_h; y++)
        for (int x = 0; x < L->b_w; x++) {
            uint32_t *dst = out + ((size_t)y * L->b_w + x) * 4;
            for (int h = 0; h < 8; h += 2) {
                const float *p0 = packed + (size_t)(g * y + h / ch) * row + (size_t)x * ch + h % ch;
                const float *p1 = packed + (size_t)(g * y + (h + 1) / ch) * row + (size_t)x * ch +
                                  (h + 1) % ch;
                dst[h / 2] = half_pair(*p0, *p1);
            }
        }
}

/* Target t = ti*C + tj, fragment (x, y), channel i*c + j <-> C element
 * ((y*R + ti)*r + i, (x*C + tj)*c + j), block-local. */
#define FOR_TARGET_ELEMENTS(L, blk, BODY)                                              \
    for (int ti = 0; ti < (L)->tr; ti++)                                               \
        for (int tj = 0; tj < (L)->tc; tj++) {                                         \
            int t = ti * (L)->tc + tj;                                                 \
            for (int y = 0; y < (L)->tgt_h; y++)                                       \
                for (int i = 0; i < (L)->r; i++) {                                     \
                    int row = (y * (L)->tr + ti) * (L)->r + i;                         \
                    if (row >= (blk)->m)                                               \
                        break;                                                         \
                    for (int x = 0; x < (L)->tgt_w; x++)                               \
                        for (int j = 0; j < (L)->c; j++) {                             \
                            int col = (x * (L)->tc + tj) * (L)->c + j;                 \
                            if (col >= (blk)->n)                                       \
                                break;                                                 \
                            size_t at = ((size_t)y * (L)->tgt_w + x) * stride + i * (L)->c + j; \
                            BODY;                                                      \
                        }                                                              \
                }                                                                      \
        }

void gen_pack_c0(const gg_layout *L, const float *c0, int ldc, float beta,
                const gg_block *blk, int stride, float *const *targets)
{
    for (int t = 0; t < L->targets; t++)
        memset(targets[t], 0, gen_target_floats(L, stride) * sizeof(float));
    if (beta == 0.0f)
        return;
    FOR_TARGET_ELEMENTS(L, blk, {
        targets[t][at] = beta * c0[(size_t)(blk->i0 + row) * ldc + blk->j0 + col];
    })
}

void gen_unpack_c(const gg_layout *L, const float *const *targets, int stride,
                 const gg_block *blk, float *c, int ldc)
{
    gen_unpack_c_rows(L, targets, stride, blk, 0, L->tgt_h, c, ldc);
}

void gen_unpack_c_rows(const gg_layout *L, const float *const *targets, int stride,
                       const gg_block *blk, int y0, int y1, float *c, int ldc)
{
    /* Runs of c floats: a fragment's channels i*c .. i*c + c-1 are c
     * adjacent columns of one row of C. */
    int rc = L->r, cc = L->c, R = L->tr, Cn = L->tc;
    for (int ti = 0; ti < R; ti++)
        for (int tj = 0; tj < Cn; tj++) {
            const float *t = targets[ti * Cn + tj];
            for (int y = y0; y < y1 && y < L->tgt_h; y++)
                for (int i = 0; i < rc; i++) {
                    int row = (y * R + ti) * rc + i;
                    if (row >= blk->m)
                        break;
                    float *dst = c + (size_t)(blk->i0 + row) * ldc + blk->j0;
                    const float *src = t + (size_t)y * L->tgt_w * stride + i * cc;
                    if (Cn == 1 && stride == cc) { /* one fragment row is one run */
                        memcpy(dst, src, (size_t)blk->n * sizeof *dst);
                        continue;
                    }
                    /* whole runs: fragments x whose columns all lie inside */
                    int whole = (blk->n / cc - tj + Cn - 1) / Cn;
                    whole = whole < 0 ? 0 : whole < L->tgt_w ? whole : L->tgt_w;
                    if (whole)
                        copy_runs(dst + tj * cc, (size_t)Cn * cc, src, (size_t)stride, whole, cc);
                    for (int x = whole; x < L->tgt_w; x++) {
                        int col = (x * Cn + tj) * cc;
                        if (col >= blk->n)
                            break;
                        int len = blk->n - col < cc ? blk->n - col : cc;
                        memcpy(dst + col, src + (size_t)x * stride, (size_t)len * sizeof *dst);
                    }
                }
        }
}

/* long long: long is 32 bits on wasm32 (web/wasm), where a + b - 1 could
 * pass it for sizes near INT_MAX. */
static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/* Block size for `blocks` blocks of a dimension d, rounded up to the
 * granularity g the layout pads to (so inner blocks carry no padding). */
static int block_size(int d, int blocks, int g)
{
    long long b = ceil_div(ceil_div(d, blocks), g) * g;
    return b < d ? (int)b : d;
}

int gen_split_plan(const gg_variant *v, int m, int n, int k, int max_tex, gg_split *s)
{
    return gen_split_plan_bands(v, m, n, k, max_tex, 1, s);
}

int gen_split_plan_bands(const gg_variant *v, int m, int n, int k, int max_tex, int bands,
                         gg_split *s)
{
    if (max_tex < 1)
        return -1;
    gg_layout L;
    if (gen_layout_compute(v, 1, 1, 1, &L))
        return -1;
    int gm = L.r * L.tr, gn = L.c * L.tc, gk = L.step * L.ku; /* ku: f16x8's whole iterations */
    long long mbl = bands > 1 ? bands : 1, nbl = 1, kbl = 1;
    for (;;) {
        s->mb = block_size(m, (int)mbl, gm);
        s->nb = block_size(n, (int)nbl, gn);
        s->kb = block_size(k, (int)kbl, gk);
        if (gen_layout_compute(v, s->mb, s->nb, s->kb, &s->L))
            return -1;
        bool fit_m = s->L.a_h <= max_tex && s->L.tgt_h <= max_tex;
        bool fit_n = s->L.b_w <= max_tex && s->L.tgt_w <= max_tex;
        bool fit_k = s->L.a_w <= max_tex && s->L.b_h <= max_tex;
        if (fit_m && fit_n && fit_k)
            break;
        /* Grow the block counts of the dimensions that do not fit; stop when
         * a block is already as small as the packing allows. */
        if (!fit_m) {
            if (s->mb <= gm)
                return -1;
            long long want = ceil_div(mbl * s->L.a_h, max_tex);
            mbl = want > mbl ? want : mbl + 1;
        }
        if (!fit_n) {
            if (s->nb <= gn)
                return -1;
            long long want = ceil_div(nbl * s->L.b_w, max_tex);
            nbl = want > nbl ? want : nbl + 1;
        }
        if (!fit_k) {
            if (s->kb <= gk)
                return -1;
            long long big = s->L.a_w > s->L.b_h ? s->L.a_w : s->L.b_h;
            long long want = ceil_div(kbl * big, max_tex);
            kbl = want > kbl ? want : kbl + 1;
        }
    }
    s->mblocks = (int)ceil_div(m, s->mb);
    s->nblocks = (int)ceil_div(n, s->nb);
    s->kblocks = (int)ceil_div(k, s->kb);
    return 0;
}

static int extent(int d, int bsize, int b)
{
    int rest = d - b * bsize;
    return rest < bsize ? rest : bsize;
}

gg_block gen_split_block(const gg_split *s, int m, int n, int k, int bi, int bj, int bk)
{
    gg_block b = {bi * s->mb, bj * s->nb, bk * s->kb,
                  extent(m, s->mb, bi), extent(n, s->nb, bj), extent(k, s->kb, bk)};
    return b;
}

int gen_pack_ssbo_stride(const gg_layout *L) { return L->channels == 3 ? 4 : L->channels; }

size_t gen_pack_ssbo_floats(const gg_layout *L, int matrix)
{
    size_t texels = matrix ? (size_t)L->b_w * L->b_h : (size_t)L->a_w * L->a_h;
    return texels * (size_t)gen_pack_ssbo_stride(L);
}

size_t gen_pack_ssbo_bytes(const gg_layout *L, int matrix, gg_store store)
{
    if (store == GG_STORE_F16)
        return (matrix ? (size_t)L->b_w * L->b_h : (size_t)L->a_w * L->a_h) * (size_t)L->channels * 2;
    return gen_pack_ssbo_floats(L, matrix) * sizeof(float);
}

void gen_pack_ssbo(const gg_layout *L, int matrix, const float *packed, float *out)
{
    size_t texels = gen_pack_ssbo_floats(L, matrix) / (size_t)gen_pack_ssbo_stride(L);
    int ch = L->channels, st = gen_pack_ssbo_stride(L);
    for (size_t t = 0; t < texels; t++)
        for (int i = 0; i < st; i++)
            out[t * st + i] = i < ch ? packed[t * ch + i] : 0.0f;
}
