/* Packing doubles into the wide stores' words and C back out (gen/wide.h),
 * by gen.h's geometry with values for channels (order=plain: the wide
 * stores' subset; out=image's one image is gen_layout_c_view's layout,
 * which the host passes for C). */
#include "gen/wide.h"

#include <math.h>
#include <string.h>

size_t gen_wide_a_words(const gg_layout *L, gg_store s)
{
    return (size_t)L->a_w * L->a_h * gen_wide_texel_words(L, s);
}

size_t gen_wide_b_words(const gg_layout *L, gg_store s)
{
    return (size_t)L->b_w * L->b_h * gen_wide_texel_words(L, s);
}

size_t gen_wide_target_words(const gg_layout *L, gg_store s)
{
    return (size_t)L->tgt_w * L->tgt_h * gen_wide_texel_words(L, s);
}

static double at(gg_src64 x, long i, long j)
{
    return x.trans ? x.data[j * x.ld + i] : x.data[i * x.ld + j];
}

/* A w x h texture of r x c blocks of op(X) (rows x cols valid): texel
 * (x, y) value i*c + j is op(X)[y*r + i][x*c + j], zero outside. */
static void pack(const gg_layout *L, gg_store s, gg_src64 src, int w, int h, int rows, int cols,
                 uint32_t *out)
{
    int tw = gen_wide_texel_words(L, s), vw = gen_wide_words(s), r = L->r, c = L->c;
    memset(out, 0, (size_t)w * h * tw * sizeof *out);
    for (int y = 0; y < h; y++)
        for (int i = 0; i < r; i++) {
            int row = y * r + i;
            if (row >= rows)
                break;
            for (int x = 0; x < w; x++)
                for (int j = 0; j < c; j++) {
                    int col = x * c + j;
                    if (col >= cols)
                        break;
                    uint32_t *t = out + ((size_t)y * w + x) * tw + (size_t)(i * c + j) * vw;
                    gen_wide_value(s, at(src, row, col), 0.0, t);
                }
        }
}

void gen_wide_pack_a(const gg_layout *L, gg_store s, gg_src64 a, uint32_t *out)
{
    pack(L, s, a, L->a_w, L->a_h, L->m, L->k, out);
}

void gen_wide_pack_b(const gg_layout *L, gg_store s, gg_src64 b, uint32_t *out)
{
    pack(L, s, b, L->b_w, L->b_h, L->k, L->n, out);
}

/* Target t = ti*C + tj, fragment (x, y), value i*c + j <-> C element
 * ((y*R + ti)*r + i, (x*C + tj)*c + j); BODY sees t, row, col and at (the
 * value's first word in the target). */
#define FOR_C(L, s, ...)                                                                 \
    for (int ti = 0; ti < (L)->tr; ti++)                                                 \
        for (int tj = 0; tj < (L)->tc; tj++) {                                           \
            int t = ti * (L)->tc + tj;                                                   \
            for (int y = 0; y < (L)->tgt_h; y++)                                         \
                for (int i = 0; i < (L)->r; i++) {                                       \
                    int row = (y * (L)->tr + ti) * (L)->r + i;                           \
                    if (row >= (L)->m)                                                   \
                        break;                                                           \
                    for (int x = 0; x < (L)->tgt_w; x++)                                 \
                        for (int j = 0; j < (L)->c; j++) {                               \
                            int col = (x * (L)->tc + tj) * (L)->c + j;                   \
                            if (col >= (L)->n)                                           \
                                break;                                                   \
                            size_t at = ((size_t)y * (L)->tgt_w + x) * tw +              \
                                        (size_t)(i * (L)->c + j) * vw;                   \
                            __VA_ARGS__;                                                     \
                        }                                                                \
                }                                                                        \
        }

void gen_wide_pack_c0(const gg_layout *L, gg_store s, const double *c0, int ldc, double beta,
                      uint32_t *const *targets)
{
    int tw = gen_wide_texel_words(L, s), vw = gen_wide_words(s);
    for (int t = 0; t < L->targets; t++)
        memset(targets[t], 0, gen_wide_target_words(L, s) * sizeof(uint32_t));
    if (beta == 0.0)
        return;
    FOR_C(L, s, {
        double x = c0[(size_t)row * ldc + col], p = beta * x;
        gen_wide_value(s, p, fma(beta, x, -p), targets[t] + at); /* beta*C0 exactly */
    })
}

void gen_wide_unpack_c(const gg_layout *L, gg_store s, const uint32_t *const *targets,
                       double *hi, double *lo, int ldc)
{
    int tw = gen_wide_texel_words(L, s), vw = gen_wide_words(s);
    FOR_C(L, s, gen_wide_read(s, targets[t] + at, &hi[(size_t)row * ldc + col],
                              &lo[(size_t)row * ldc + col]))
}
