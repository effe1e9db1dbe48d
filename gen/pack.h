/* gen/pack: matrices <-> texel arrays, by gen/gen.h's geometry.  No GL.
 *
 * Contract:
 *  - gen_pack_a / gen_pack_b fill an A or B texture's texels (L->channels
 *    floats a texel, tightly packed, row 0 first: what glTexImage2D takes
 *    with GL_RED/GL_RG/GL_RGB/GL_RGBA) from op(A) / op(B), zero where the
 *    padded geometry runs past the block's valid extent.  Transposes are
 *    taken while filling (op(A)[i][p] read as A[p][i]); no transposed copy.
 *  - store=f16x8 (gen.h): gen_pack_a / gen_pack_b fill the half packing,
 *    store=f16's (the floats before rounding: group times as many texels
 *    as the stored texture), and gen_pack_words_a / _b round them to halves
 *    and lay them out as the RGBA32UI texels (4 words a texel, what
 *    glTexImage2D takes with GL_RGBA_INTEGER, GL_UNSIGNED_INT).
 *  - gen_pack_c0 fills the initial running sums of every render target:
 *    beta*C0 in the target layout, or zeros when beta == 0 (C0 is then not
 *    read, as BLAS does; it may be NULL).  gen_unpack_c takes the targets'
 *    read-back and writes C, dropping padding.  Target buffers hold `stride`
 *    floats a texel (1, 2 or 4 as uploaded, 4 as glReadPixels GL_RGBA gives).
 *  - gen_split_plan cuts a problem into equal blocks whose textures (A, B and
 *    the render targets) all fit a texture size limit, so one shader (made
 *    for the block size) serves every block; the last block along a
 *    dimension is shorter and its padding is zeros.
 * Everything works on one block of the problem (gg_block); gen_block_whole
 * gives the block that is the whole problem. */
#ifndef GLGEMM_PACK_H
#define GLGEMM_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"

/* A stored row-major matrix and the op applied to it. */
typedef struct {
    const float *data;
    int ld;     /* row stride of the stored matrix, in floats */
    bool trans; /* op(X)[i][j] = trans ? data[j*ld + i] : data[i*ld + j] */
} gg_src;

/* The part of the problem one layout covers: C rows i0.., columns j0..,
 * k values k0..; m, n, k are the valid extents (each <= the layout's). */
typedef struct {
    int i0, j0, k0;
    int m, n, k;
} gg_block;

gg_block gen_block_whole(const gg_layout *L);

/* Floats a target texel holds as uploaded: 1, 2 or 4 (3-channel packings
 * render into RGBA). */
int gen_target_channels(const gg_layout *L);

size_t gen_pack_a_floats(const gg_layout *L); /* a_w*group*a_h*channels */
size_t gen_pack_b_floats(const gg_layout *L); /* b_w*b_h*group*channels */
size_t gen_pack_a_words(const gg_layout *L);  /* store=f16x8: a_w*a_h*4 */
size_t gen_pack_b_words(const gg_layout *L);  /* store=f16x8: b_w*b_h*4 */
size_t gen_target_floats(const gg_layout *L, int stride); /* tgt_w*tgt_h*stride */

void gen_pack_a(const gg_layout *L, gg_src a, const gg_block *blk, float *out);
void gen_pack_b(const gg_layout *L, gg_src b, const gg_block *blk, float *out);
/* The same for texel rows y0 .. y1-1 only (out is the whole texture, rows
 * outside untouched): disjoint row ranges may be packed by several threads
 * at once.  Rows y of A's texture hold C rows y*r .. y*r+r-1 of the block.
 * (store=f16x8: rows of the half packing, B's group times as many.) */
void gen_pack_a_rows(const gg_layout *L, gg_src a, const gg_block *blk, int y0, int y1,
                     float *out);
void gen_pack_b_rows(const gg_layout *L, gg_src b, const gg_block *blk, int y0, int y1,
                     float *out);

/* store=f16x8: the packed floats of gen_pack_a / gen_pack_b (the whole
 * texture) as halves in the stored texels, gen_pack_a_words(L) /
 * gen_pack_b_words(L) words. */
void gen_pack_words_a(const gg_layout *L, const float *packed, uint32_t *out);
void gen_pack_words_b(const gg_layout *L, const float *packed, uint32_t *out);

/* The storage-buffer fetches (gen.h): matrix 0 (A) or 1 (B) as its
 * storage buffer holds it, the texels of its packing row by row (element
 * y*w + x is texel (x, y)), each texel an element of gen_pack_ssbo_stride
 * floats: the channels, but 4 for 3 channels (std430 strides a vec3
 * array by 16 bytes; the fourth float is zero).  gen_pack_ssbo_floats:
 * the buffer's floats; gen_pack_ssbo: the packed texels of gen_pack_a or
 * gen_pack_b (fp32) into that layout (the same floats, where the stride
 * is the channels). */
int gen_pack_ssbo_stride(const gg_layout *L);
size_t gen_pack_ssbo_floats(const gg_layout *L, int matrix);
/* The buffer's bytes under store: fp32's floats, or store=f16's halves
 * (2 or 4 channels: a texel's halves side by side, read in pairs as a uint
 * or a uvec2, low half first; exactly the halves of the packing, as the
 * host converts them for a half texture). */
size_t gen_pack_ssbo_bytes(const gg_layout *L, int matrix, gg_store store);
void gen_pack_ssbo(const gg_layout *L, int matrix, const float *packed, float *out);

/* targets[t], t < L->targets, each gen_target_floats(L, stride) floats.
 * c0: row-major C0 with row stride ldc (read only when beta != 0). */
void gen_pack_c0(const gg_layout *L, const float *c0, int ldc, float beta,
                const gg_block *blk, int stride, float *const *targets);

/* Writes C[blk->i0 + i][blk->j0 + j] for the block's valid i, j. */
void gen_unpack_c(const gg_layout *L, const float *const *targets, int stride,
                 const gg_block *blk, float *c, int ldc);
/* Target rows y0 .. y1-1 only: C rows (y*tr + ti)*r + i of the block for
 * target row ti and packing row i: C rows y0*tr*r .. y1*tr*r - 1. */
void gen_unpack_c_rows(const gg_layout *L, const float *const *targets, int stride,
                       const gg_block *blk, int y0, int y1, float *c, int ldc);

/* Blocks of a problem for a texture size limit. */
typedef struct {
    int mb, nb, kb;          /* block sizes (the layout is made for these) */
    int mblocks, nblocks, kblocks;
    gg_layout L;             /* layout of one block */
} gg_split;

/* Returns 0, or -1 when no split fits (limit too small for the variant's
 * packing, or sizes overflow). */
int gen_split_plan(const gg_variant *v, int m, int n, int k, int max_texture_size,
                  gg_split *out);

/* The same with at least `bands` blocks along m where the packing allows
 * (fewer when m is too short): row bands of C that can be drawn, read back
 * and checked one after another.  bands <= 1: gen_split_plan. */
int gen_split_plan_bands(const gg_variant *v, int m, int n, int k, int max_texture_size,
                         int bands, gg_split *out);
/* Block (bi, bj, bk) of a plan, with its valid extents. */
gg_block gen_split_block(const gg_split *s, int m, int n, int k, int bi, int bj, int bk);

#endif
