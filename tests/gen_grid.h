/* Test support: a pairwise sample of the variant space (header only).
 *
 * The wide grid is every profile x every packing x MRT shapes up to 8
 * targets x np in {1, odd, all} x both unrolls x every acc, for the GLSL
 * compiler; plus, for compiler=spirv (profile 330 only), packing x MRT (a
 * subset of six shapes, see grid_spirv_mrts) x np x unroll x acc.  Compiling the full product (3*8*14*3*2*3 = 6048 GLSL
 * variants) would take the suite too long on llvmpipe, so the grid is sampled
 * pairwise: every pair of values of any two keys occurs in some variant
 * (greedy construction, deterministic).  The problem size is odd on purpose
 * (padding in m, n and k). */
#ifndef GLGEMM_TESTS_GEN_GRID_H
#define GLGEMM_TESTS_GEN_GRID_H

#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

#define GG_GRID_M 19
#define GG_GRID_N 23
#define GG_GRID_K 37

enum { GRID_PROFILE, GRID_MC, GRID_MRT, GRID_NP, GRID_UNROLL, GRID_ACC, GRID_DIMS };

static const gg_shape grid_mcs[] = {{1, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1}, {1, 4}, {4, 1}, {2, 2}};
static const gg_shape grid_mrts[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {1, 4},
                                     {4, 1}, {2, 3}, {3, 2}, {2, 4}, {4, 2}, {1, 8}, {8, 1}};
static const int grid_nps[] = {1, 3, GG_NP_ALL};
/* SPIR-V builds cost two glslang runs each (about 0.1 s apiece), so its grid
 * takes MRT shapes from this subset: every target count class and both
 * orientations. */
static const int grid_spirv_mrts[] = {0, 2, 3, 7, 11, 12}; /* 1x1 2x1 2x2 4x1 4x2 1x8 */

static inline int grid_dim_size(int d, bool spirv)
{
    switch (d) {
    case GRID_PROFILE: return spirv ? 1 : 3;
    case GRID_MC: return (int)(sizeof grid_mcs / sizeof *grid_mcs);
    case GRID_MRT:
        return spirv ? (int)(sizeof grid_spirv_mrts / sizeof *grid_spirv_mrts)
                     : (int)(sizeof grid_mrts / sizeof *grid_mrts);
    case GRID_NP: return (int)(sizeof grid_nps / sizeof *grid_nps);
    case GRID_UNROLL: return 2;
    case GRID_ACC: return 3;
    }
    return 0;
}

/* covered[d1][d2][v1*16 + v2], d1 < d2 (values < 16). */
typedef unsigned char grid_cover[GRID_DIMS][GRID_DIMS][256];

static inline int grid_gain(grid_cover cov, const int *t, int d, int v)
{
    int g = 0;
    for (int e = 0; e < GRID_DIMS; e++) {
        if (e == d || t[e] < 0)
            continue;
        int lo = e < d ? e : d, hi = e < d ? d : e;
        int vl = e < d ? t[e] : v, vh = e < d ? v : t[e];
        g += !cov[lo][hi][vl * 16 + vh];
    }
    return g;
}

/* Appends the pairwise tests of one grid to out[*n]. */
static inline void grid_build(bool spirv, gg_variant *out, int *n)
{
    static grid_cover cov;
    memset(cov, 0, sizeof cov);
    int used[GRID_DIMS][16];
    memset(used, 0, sizeof used);
    for (;;) {
        int t[GRID_DIMS];
        for (int d = 0; d < GRID_DIMS; d++)
            t[d] = -1;
        /* The first uncovered pair seeds the test. */
        bool found = false;
        for (int d1 = 0; d1 < GRID_DIMS && !found; d1++)
            for (int d2 = d1 + 1; d2 < GRID_DIMS && !found; d2++)
                for (int v1 = 0; v1 < grid_dim_size(d1, spirv) && !found; v1++)
                    for (int v2 = 0; v2 < grid_dim_size(d2, spirv) && !found; v2++)
                        if (!cov[d1][d2][v1 * 16 + v2]) {
                            t[d1] = v1;
                            t[d2] = v2;
                            found = true;
                        }
        if (!found)
            return;
        for (int d = 0; d < GRID_DIMS; d++) {
            if (t[d] >= 0)
                continue;
            /* Most new pairs; ties go to the value used least so far, so
             * values with nothing left to cover still spread evenly. */
            int best = 0, best_gain = -1;
            for (int v = 0; v < grid_dim_size(d, spirv); v++) {
                int g = grid_gain(cov, t, d, v);
                if (g > best_gain || (g == best_gain && used[d][v] < used[d][best])) {
                    best_gain = g;
                    best = v;
                }
            }
            t[d] = best;
        }
        for (int d1 = 0; d1 < GRID_DIMS; d1++) {
            used[d1][t[d1]]++;
            for (int d2 = d1 + 1; d2 < GRID_DIMS; d2++)
                cov[d1][d2][t[d1] * 16 + t[d2]] = 1;
        }
        gg_variant v;
        gen_variant_default(&v);
        v.profile = spirv ? GG_PROFILE_330 : (gg_profile)t[GRID_PROFILE];
        v.compiler = spirv ? GG_COMPILER_SPIRV : GG_COMPILER_GLSL;
        v.mc = grid_mcs[t[GRID_MC]];
        v.mrt = grid_mrts[spirv ? grid_spirv_mrts[t[GRID_MRT]] : t[GRID_MRT]];
        v.np = grid_nps[t[GRID_NP]];
        v.unroll = t[GRID_UNROLL];
        v.acc = (gg_acc)t[GRID_ACC];
        out[(*n)++] = v;
    }
}

/* The GLSL grid then the SPIR-V grid, malloc'd into *out; returns the count.
 * *glsl_count (may be NULL) gets how many come first with compiler=glsl. */
static inline int gg_grid_pairwise_split(gg_variant **out, int *glsl_count)
{
    /* Never more tests than the product of the two largest dimensions times
     * the others' sizes; 14*8*3*3*2*3 bounds both grids generously. */
    gg_variant *v = malloc(2 * 14 * 8 * 3 * 3 * 2 * 3 * sizeof *v);
    int n = 0;
    *out = NULL;
    if (glsl_count)
        *glsl_count = 0;
    if (!v)
        return 0;
    grid_build(false, v, &n);
    if (glsl_count)
        *glsl_count = n;
    grid_build(true, v, &n);
    *out = v;
    return n;
}

static inline int gg_grid_pairwise(gg_variant **out) { return gg_grid_pairwise_split(out, NULL); }

/* ---- the grid past the 32-output cap ----
 * Profiles 430 and 310es x every packing x 5 sizes (out=rt: mrt 1x1, 2x2,
 * 4x2, 2x4, 1x8; out=image: blk of mc x 1x1, 2x2, 4x2, 2x4, 4x4 texels) x
 * every fetch path x np {1, odd, all} x both unrolls x acc x out, sampled
 * pairwise the same greedy way.  A pair no card can run (acc=blend with
 * out=image, fetch=image with 3 channels, ...) is mended to the nearest
 * valid variant (acc pingpong, then fetch texelfetch, then profile 430), so
 * every variant of the grid must compile. */
enum { MG_PROFILE, MG_MC, MG_SIZE, MG_FETCH, MG_NP, MG_UNROLL, MG_ACC, MG_OUT, MG_DIMS };

static inline int mg_dim_size(int d)
{
    static const int sizes[MG_DIMS] = {2, 8, 5, GG_FETCH_COUNT, 3, 2, 3, 2};
    return sizes[d];
}

static inline gg_variant mg_variant(const int *t)
{
    static const gg_shape mrts[] = {{1, 1}, {2, 2}, {4, 2}, {2, 4}, {1, 8}};
    static const gg_shape mults[] = {{1, 1}, {2, 2}, {4, 2}, {2, 4}, {4, 4}};
    gg_variant v;
    gen_variant_default(&v);
    v.profile = t[MG_PROFILE] ? GG_PROFILE_310ES : GG_PROFILE_430;
    v.mc = grid_mcs[t[MG_MC]];
    v.fetch = (gg_fetch)t[MG_FETCH];
    v.np = grid_nps[t[MG_NP]];
    v.unroll = t[MG_UNROLL];
    v.acc = (gg_acc)t[MG_ACC];
    v.out = (gg_out)t[MG_OUT];
    if (v.out == GG_OUT_IMAGE) {
        v.blk.rows = v.mc.rows * mults[t[MG_SIZE]].rows;
        v.blk.cols = v.mc.cols * mults[t[MG_SIZE]].cols;
    } else {
        v.mrt = mrts[t[MG_SIZE]];
    }
    gg_card_limits lim = {.max_draw_buffers = 8, .max_texture_size = 16384, .float_blend = true,
                          .max_fragment_images = 8, .max_texture_buffer = 1L << 27,
                          .max_fragment_ssbos = 8};
    for (int fix = 0; fix < 4; fix++) {
        lim.es = v.profile == GG_PROFILE_310ES;
        lim.gl_version = lim.es ? 32 : 46;
        if (gen_variant_check_card(&v, &lim, NULL, 0) == GG_CARD_OK)
            break;
        if (fix == 0)
            v.acc = GG_ACC_PINGPONG;
        else if (fix == 1)
            v.fetch = GG_FETCH_TEXELFETCH;
        else
            v.profile = GG_PROFILE_430;
    }
    return v;
}

/* The pairwise grid past the cap, malloc'd into *out; returns the count. */
static inline int gg_grid_modern(gg_variant **out)
{
    static unsigned char cov[MG_DIMS][MG_DIMS][256];
    memset(cov, 0, sizeof cov);
    int used[MG_DIMS][16];
    memset(used, 0, sizeof used);
    gg_variant *v = malloc(8 * 8 * 5 * 3 * 2 * 3 * 2 * sizeof *v);
    int n = 0;
    *out = v;
    if (!v)
        return 0;
    for (;;) {
        int t[MG_DIMS];
        for (int d = 0; d < MG_DIMS; d++)
            t[d] = -1;
        bool found = false;
        for (int d1 = 0; d1 < MG_DIMS && !found; d1++)
            for (int d2 = d1 + 1; d2 < MG_DIMS && !found; d2++)
                for (int v1 = 0; v1 < mg_dim_size(d1) && !found; v1++)
                    for (int v2 = 0; v2 < mg_dim_size(d2) && !found; v2++)
                        if (!cov[d1][d2][v1 * 16 + v2]) {
                            t[d1] = v1;
                            t[d2] = v2;
                            found = true;
                        }
        if (!found)
            return n;
        for (int d = 0; d < MG_DIMS; d++) {
            if (t[d] >= 0)
                continue;
            int best = 0, best_gain = -1;
            for (int x = 0; x < mg_dim_size(d); x++) {
                int g = 0;
                for (int e = 0; e < MG_DIMS; e++) {
                    if (e == d || t[e] < 0)
                        continue;
                    int lo = e < d ? e : d, hi = e < d ? d : e;
                    g += !cov[lo][hi][(e < d ? t[e] : x) * 16 + (e < d ? x : t[e])];
                }
                if (g > best_gain || (g == best_gain && used[d][x] < used[d][best])) {
                    best_gain = g;
                    best = x;
                }
            }
            t[d] = best;
        }
        for (int d1 = 0; d1 < MG_DIMS; d1++) {
            used[d1][t[d1]]++;
            for (int d2 = d1 + 1; d2 < MG_DIMS; d2++)
                cov[d1][d2][t[d1] * 16 + t[d2]] = 1;
        }
        v[n++] = mg_variant(t);
    }
}

#endif
