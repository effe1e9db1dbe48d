/* glhost/pack: packing against the geometry written the other way round
 * (from each matrix element to its texel), round trips, and split plans. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pool.h"
#include "gen/pack.h"
#include "tests/suites.h"

static const gg_shape packings[] = {{1, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1},
                                    {1, 4}, {4, 1}, {2, 2}};
#define NPACK ((int)(sizeof packings / sizeof *packings))
static const gg_shape mrts[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 8}, {2, 4}, {3, 1}, {1, 3}};
#define NMRT ((int)(sizeof mrts / sizeof *mrts))
static const int sizes[][3] = {{1, 1, 1}, {7, 13, 5}, {13, 7, 11}, {9, 3, 17}};
#define NSIZE ((int)(sizeof sizes / sizeof *sizes))
static const int nps[] = {1, 3, GG_NP_ALL};
#define NNP ((int)(sizeof nps / sizeof *nps))

/* A distinct non-zero value for every element of a stored matrix. */
static float *numbered(int rows, int cols, float base)
{
    float *x = malloc((size_t)rows * cols * sizeof *x);
    for (int i = 0; i < rows * cols; i++)
        x[i] = base + (float)i + 1.0f;
    return x;
}

static void variant(gg_variant *v, gg_shape mrt, gg_shape mc, int np)
{
    memset(v, 0, sizeof *v); /* the fields pack reads; acc etc. do not matter here */
    v->profile = GG_PROFILE_330;
    v->compiler = GG_COMPILER_GLSL;
    v->acc = GG_ACC_PINGPONG;
    v->mrt = mrt;
    v->mc = mc;
    v->np = np;
}

/* Every element of op(X) (rows x cols) sits where gen.h says, and every
 * other float of the texture is zero. */
static void check_texture(const float *tex, int w, int h, int r, int c, const float *x,
                          int ld, bool trans, int rows, int cols)
{
    int ch = r * c;
    size_t total = (size_t)w * h * ch;
    char *seen = calloc(total, 1);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int tx = j / c, ty = i / r, chan = (i % r) * c + j % c;
            ck_assert_int_lt(tx, w);
            ck_assert_int_lt(ty, h);
            size_t at = ((size_t)ty * w + tx) * ch + chan;
            float want = trans ? x[(size_t)j * ld + i] : x[(size_t)i * ld + j];
            ck_assert_msg(tex[at] == want, "element (%d,%d): texel (%d,%d) ch %d has %g, want %g",
                          i, j, tx, ty, chan, tex[at], want);
            seen[at] = 1;
        }
    for (size_t at = 0; at < total; at++)
        if (!seen[at])
            ck_assert_msg(tex[at] == 0.0f, "padding float %zu is %g", at, tex[at]);
    free(seen);
}

START_TEST(pack_inputs)
{
    /* _i runs over packings x mrt x sizes x transposes. */
    int pi = _i % NPACK, rest = _i / NPACK;
    int mi = rest % NMRT;
    rest /= NMRT;
    int si = rest % NSIZE;
    int tr = rest / NSIZE; /* 0..3: transa, transb bits */
    bool ta = tr & 1, tb = tr & 2;
    int m = sizes[si][0], n = sizes[si][1], k = sizes[si][2];
    gg_variant v;
    variant(&v, mrts[mi], packings[pi], nps[_i % NNP]);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, m, n, k, &L), 0);

    /* Stored A is m x k, or k x m when transposed; likewise B. */
    float *a = numbered(m, k, 0), *b = numbered(k, n, 10000);
    gg_src sa = {a, ta ? m : k, ta}, sb = {b, tb ? k : n, tb};
    gg_block whole = gen_block_whole(&L);
    float *ta_ = malloc(gen_pack_a_floats(&L) * sizeof(float));
    float *tb_ = malloc(gen_pack_b_floats(&L) * sizeof(float));
    memset(ta_, 0x7f, gen_pack_a_floats(&L) * sizeof(float)); /* garbage the packer must clear */
    memset(tb_, 0x7f, gen_pack_b_floats(&L) * sizeof(float));
    gen_pack_a(&L, sa, &whole, ta_);
    gen_pack_b(&L, sb, &whole, tb_);
    check_texture(ta_, L.a_w, L.a_h, L.r, L.c, a, sa.ld, ta, m, k);
    check_texture(tb_, L.b_w, L.b_h, L.r, L.c, b, sb.ld, tb, k, n);
    free(a);
    free(b);
    free(ta_);
    free(tb_);
}
END_TEST

/* C0 -> targets -> C, with the index formula checked on the way. */
START_TEST(pack_targets_round_trip)
{
    int pi = _i % NPACK, rest = _i / NPACK;
    int mi = rest % NMRT, si = (rest / NMRT) % NSIZE;
    int stride_kind = rest / (NMRT * NSIZE); /* 0: as uploaded, 1: RGBA read-back */
    int m = sizes[si][0] + 2, n = sizes[si][1] + 4, k = 3;
    gg_variant v;
    variant(&v, mrts[mi], packings[pi], GG_NP_ALL);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, m, n, k, &L), 0);
    int stride = stride_kind ? 4 : gen_target_channels(&L);
    ck_assert_int_ge(stride, L.channels);

    float *c0 = numbered(m, n, 0);
    float *tg[GG_MAX_TARGETS];
    size_t tf = gen_target_floats(&L, stride);
    for (int t = 0; t < L.targets; t++) {
        tg[t] = malloc(tf * sizeof(float));
        memset(tg[t], 0x7f, tf * sizeof(float));
    }
    gg_block whole = gen_block_whole(&L);
    gen_pack_c0(&L, c0, n, 2.0f, &whole, stride, tg);

    /* Element (i, j) lies in target ((i/r) % R)*C + (j/c) % C, fragment
     * (j/c/C, i/r/R), channel (i%r)*c + j%c. */
    size_t nonzero = 0;
    for (int t = 0; t < L.targets; t++)
        for (size_t f = 0; f < tf; f++)
            nonzero += tg[t][f] != 0.0f;
    ck_assert_uint_eq(nonzero, (size_t)m * n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            int ti = (i / L.r) % L.tr, tj = (j / L.c) % L.tc;
            int fx = j / L.c / L.tc, fy = i / L.r / L.tr;
            int chan = (i % L.r) * L.c + j % L.c;
            float got = tg[ti * L.tc + tj][((size_t)fy * L.tgt_w + fx) * stride + chan];
            ck_assert_msg(got == 2.0f * c0[i * n + j], "C0(%d,%d) misplaced", i, j);
        }

    float *c = calloc((size_t)m * n, sizeof *c);
    gen_unpack_c(&L, (const float *const *)tg, stride, &whole, c, n);
    for (int i = 0; i < m * n; i++)
        ck_assert_float_eq(c[i], 2.0f * c0[i]);

    /* beta == 0: zeros, and C0 is not read (NULL must be fine). */
    gen_pack_c0(&L, NULL, n, 0.0f, &whole, stride, tg);
    for (int t = 0; t < L.targets; t++)
        for (size_t f = 0; f < tf; f++)
            ck_assert(tg[t][f] == 0.0f);
    /* beta == 0 also ignores NaN in C0 (BLAS semantics). */
    c0[0] = NAN;
    gen_pack_c0(&L, c0, n, 0.0f, &whole, stride, tg);
    ck_assert(tg[0][0] == 0.0f);

    for (int t = 0; t < L.targets; t++)
        free(tg[t]);
    free(c0);
    free(c);
}
END_TEST

/* A block of a larger matrix packs exactly that part, and unpacking blocks
 * one by one rebuilds the whole C. */
START_TEST(pack_blocks_of_split)
{
    int pi = _i % NPACK, mi = (_i / NPACK) % NMRT;
    bool ta = (_i / (NPACK * NMRT)) & 1;
    int m = 37, n = 41, k = 43, max_tex = 8; /* 8: 1x8 targets need 8 texels a row */
    gg_variant v;
    variant(&v, mrts[mi], packings[pi], 2);
    gg_split s;
    ck_assert_int_eq(gen_split_plan(&v, m, n, k, max_tex, &s), 0);
    ck_assert(s.L.a_w <= max_tex && s.L.a_h <= max_tex && s.L.b_w <= max_tex &&
              s.L.b_h <= max_tex && s.L.tgt_w <= max_tex && s.L.tgt_h <= max_tex);
    ck_assert(s.mblocks > 1 || s.nblocks > 1 || s.kblocks > 1);
    ck_assert_int_ge((long)s.mb * s.mblocks, m);
    ck_assert_int_lt((long)s.mb * (s.mblocks - 1), m);
    ck_assert_int_ge((long)s.kb * s.kblocks, k);
    ck_assert_int_lt((long)s.kb * (s.kblocks - 1), k);

    float *a = numbered(m, k, 0);
    gg_src sa = {a, ta ? m : k, ta};
    float *tex = malloc(gen_pack_a_floats(&s.L) * sizeof(float));
    float *c0 = numbered(m, n, 0), *c = calloc((size_t)m * n, sizeof(float));
    float *tg[GG_MAX_TARGETS];
    for (int t = 0; t < s.L.targets; t++)
        tg[t] = malloc(gen_target_floats(&s.L, 4) * sizeof(float));
    for (int bi = 0; bi < s.mblocks; bi++)
        for (int bk = 0; bk < s.kblocks; bk++) {
            gg_block blk = gen_split_block(&s, m, n, k, bi, 0, bk);
            gen_pack_a(&s.L, sa, &blk, tex);
            /* The block's sub-matrix of op(A): rows i0.., columns k0.. */
            const float *sub = ta ? a + (size_t)blk.k0 * m + blk.i0 : a + (size_t)blk.i0 * k + blk.k0;
            check_texture(tex, s.L.a_w, s.L.a_h, s.L.r, s.L.c, sub, sa.ld, ta, blk.m, blk.k);
        }
    for (int bi = 0; bi < s.mblocks; bi++)
        for (int bj = 0; bj < s.nblocks; bj++) {
            gg_block blk = gen_split_block(&s, m, n, k, bi, bj, 0);
            gen_pack_c0(&s.L, c0, n, 1.0f, &blk, 4, tg);
            gen_unpack_c(&s.L, (const float *const *)tg, 4, &blk, c, n);
        }
    ck_assert_mem_eq(c, c0, (size_t)m * n * sizeof(float));
    for (int t = 0; t < s.L.targets; t++)
        free(tg[t]);
    free(a);
    free(tex);
    free(c0);
    free(c);
}
END_TEST

/* Row ranges: A and B packed in pieces of texel rows (1, 2, 3 rows and
 * uneven) over garbage equal the whole packing bit for bit; C unpacked in
 * pieces of target rows equals the whole unpacking; and base/pool runs
 * every task exactly once with 1 to 8 threads (and none). */
START_TEST(pack_rows_pieces)
{
    int pi = _i % NPACK, mi = (_i / NPACK) % NMRT;
    int m = 37, n = 29, k = 41;
    gg_variant v;
    variant(&v, mrts[mi], packings[pi], nps[_i % NNP]);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&v, m, n, k, &L), 0);
    float *a = numbered(m, k, 0), *b = numbered(k, n, 10000);
    gg_src sa = {a, k, false}, sb = {b, n, false};
    gg_block whole = gen_block_whole(&L);
    size_t na = gen_pack_a_floats(&L), nb = gen_pack_b_floats(&L);
    float *wa = malloc(na * sizeof(float)), *wb = malloc(nb * sizeof(float));
    float *pa = malloc(na * sizeof(float)), *pb = malloc(nb * sizeof(float));
    ck_assert(wa && wb && pa && pb);
    gen_pack_a(&L, sa, &whole, wa);
    gen_pack_b(&L, sb, &whole, wb);
    for (int per = 1; per <= 4; per++) {
        memset(pa, 0x7f, na * sizeof(float));
        memset(pb, 0x7f, nb * sizeof(float));
        for (int y = 0; y < L.a_h; y += per)
            gen_pack_a_rows(&L, sa, &whole, y, y + per, pa);
        for (int y = 0; y < L.b_h; y += per + 1) /* other cuts for B */
            gen_pack_b_rows(&L, sb, &whole, y, y + per + 1, pb);
        ck_assert_msg(!memcmp(pa, wa, na * sizeof(float)), "A in pieces of %d rows", per);
        ck_assert_msg(!memcmp(pb, wb, nb * sizeof(float)), "B in pieces of %d rows", per + 1);
    }
    /* C: targets from C0, unpacked whole and in pieces */
    int stride = 4;
    float *c0 = numbered(m, n, 500), *cw = calloc((size_t)m * n, sizeof(float)),
          *cp = calloc((size_t)m * n, sizeof(float));
    float *tg[GG_MAX_TARGETS];
    for (int t = 0; t < L.targets; t++)
        tg[t] = malloc(gen_target_floats(&L, stride) * sizeof(float));
    gen_pack_c0(&L, c0, n, 1.0f, &whole, stride, tg);
    gen_unpack_c(&L, (const float *const *)tg, stride, &whole, cw, n);
    for (int y = 0; y < L.tgt_h; y += 3)
        gen_unpack_c_rows(&L, (const float *const *)tg, stride, &whole, y, y + 3, cp, n);
    ck_assert(!memcmp(cw, cp, (size_t)m * n * sizeof(float)));
    ck_assert(!memcmp(cw, c0, (size_t)m * n * sizeof(float)));
    for (int t = 0; t < L.targets; t++)
        free(tg[t]);
    free(c0), free(cw), free(cp), free(a), free(b), free(wa), free(wb), free(pa), free(pb);
}
END_TEST

static void count_task(void *arg, int t) { __atomic_add_fetch(&((int *)arg)[t], 1, __ATOMIC_RELAXED); }

START_TEST(pool_runs_every_task_once)
{
    for (int threads = 0; threads <= 8; threads++) {
        base_pool *p = threads ? base_pool_new(threads) : NULL;
        ck_assert(threads == 0 || p != NULL);
        for (int tasks = 0; tasks <= 67; tasks += 1 + tasks / 3) {
            int seen[68] = {0};
            base_pool_run(p, tasks, count_task, seen);
            for (int t = 0; t < 68; t++)
                ck_assert_msg(seen[t] == (t < tasks ? 1 : 0), "%d threads, %d tasks: task %d ran %d times",
                              threads, tasks, t, seen[t]);
        }
        ck_assert_int_eq(base_pool_threads(p), threads ? threads : 1);
        base_pool_free(p);
    }
}
END_TEST

/* base_pool_default_threads: GLGEMM_THREADS when it is a whole number
 * 1..64, else the online CPUs but one, 2 to 16. */
START_TEST(pool_default_threads)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cpus < 3 ? 2 : cpus > 17 ? 16 : (int)cpus - 1;
    const char *was = getenv("GLGEMM_THREADS");
    char keep[32] = "";
    if (was)
        snprintf(keep, sizeof keep, "%s", was);
    unsetenv("GLGEMM_THREADS");
    ck_assert_int_eq(base_pool_default_threads(), want);
    static const char *bad[] = {"", "0", "65", "3x", "-2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("GLGEMM_THREADS", bad[i], 1);
        ck_assert_msg(base_pool_default_threads() == want, "GLGEMM_THREADS='%s'", bad[i]);
    }
    setenv("GLGEMM_THREADS", "3", 1);
    ck_assert_int_eq(base_pool_default_threads(), 3);
    setenv("GLGEMM_THREADS", "64", 1);
    ck_assert_int_eq(base_pool_default_threads(), 64);
    if (was)
        setenv("GLGEMM_THREADS", keep, 1);
    else
        unsetenv("GLGEMM_THREADS");
}
END_TEST

START_TEST(split_plan_cases)
{
    gg_variant v;
    gg_split s;
    variant(&v, (gg_shape){2, 4}, (gg_shape){1, 4}, 8);
    /* Fits: one block, the plain layout. */
    ck_assert_int_eq(gen_split_plan(&v, 1024, 1024, 1024, 16384, &s), 0);
    ck_assert_int_eq(s.mblocks * s.nblocks * s.kblocks, 1);
    ck_assert_int_eq(s.mb, 1024);
    /* Too wide in k only: k blocks, m and n whole. */
    ck_assert_int_eq(gen_split_plan(&v, 100, 100, 1000, 128, &s), 0);
    ck_assert_int_eq(s.mblocks, 1);
    ck_assert_int_eq(s.nblocks, 1);
    ck_assert_int_gt(s.kblocks, 1);
    ck_assert_int_le(s.L.a_w, 128);
    ck_assert_int_le(s.L.b_h, 128);
    ck_assert_int_gt(s.L.b_h, 64); /* not cut finer than needed */
    /* A limit smaller than one k-step can never fit. */
    variant(&v, (gg_shape){1, 1}, (gg_shape){2, 2}, 1);
    ck_assert_int_eq(gen_split_plan(&v, 10, 10, 10, 0, &s), -1);
    variant(&v, (gg_shape){1, 8}, (gg_shape){1, 4}, 1);
    ck_assert_int_eq(gen_split_plan(&v, 100, 100, 10, 1, &s), -1);
    /* Block sizes are multiples of the padding granularity except the last. */
    variant(&v, (gg_shape){2, 2}, (gg_shape){2, 2}, 1);
    ck_assert_int_eq(gen_split_plan(&v, 101, 99, 37, 8, &s), 0);
    ck_assert_int_eq(s.mb % 4, 0);
    ck_assert_int_eq(s.nb % 4, 0);
    ck_assert_int_eq(s.kb % 2, 0);
    ck_assert_int_eq(s.L.mpad, s.mb);
}
END_TEST

Suite *make_pack_suite(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = tcase_create("pack");
    /* "pure": no state outside the case (environment, folders, files), so
     * the cases may run without a fork of their own (make sanitize-ci runs
     * them so, sparing a leak check per case). */
    tcase_set_tags(tc, "pure");
    tcase_add_loop_test(tc, pack_inputs, 0, NPACK * NMRT * NSIZE * 4);
    tcase_add_loop_test(tc, pack_targets_round_trip, 0, NPACK * NMRT * NSIZE * 2);
    tcase_add_loop_test(tc, pack_blocks_of_split, 0, NPACK * NMRT * 2);
    tcase_add_test(tc, split_plan_cases);
    tcase_add_loop_test(tc, pack_rows_pieces, 0, NPACK * NMRT);
    tcase_add_test(tc, pool_runs_every_task_once);
    suite_add_tcase(s, tc);
    TCase *env = tcase_create("pack_env"); /* sets GLGEMM_THREADS: not pure */
    tcase_add_test(env, pool_default_threads);
    suite_add_tcase(s, env);
    return s;
}
