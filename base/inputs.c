/* GEMM operands from a seed or from .npy files: see inputs.h. */
#include "base/inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/util.h"
#include "base/npy.h"

void base_fill_uniform(float *dst, size_t count, uint64_t seed, unsigned stream)
{
    /* Each stream starts from a scrambled (seed, stream) pair. */
    uint64_t st = seed ^ ((uint64_t)(stream + 1) << 56);
    st = gen_splitmix64(&st);
    for (size_t i = 0; i < count; i++) {
        /* 24 random bits -> (u - 2^23) / 2^23: exact in float, in [-1, 1). */
        int32_t u = (int32_t)(gen_splitmix64(&st) >> 40);
        dst[i] = (float)(u - (1 << 23)) * (1.0f / 8388608.0f);
    }
}

void base_inputs_free(gg_inputs *in)
{
    free(in->a);
    free(in->b);
    free(in->c0);
    memset(in, 0, sizeof *in);
}

static float *alloc_matrix(int rows, int cols)
{
    return malloc((size_t)rows * (size_t)cols * sizeof(float));
}

static int from_seed(const gg_problem *p, gg_inputs *in, char *err, size_t n)
{
    if (p->m < 1 || p->n < 1 || p->k < 1)
        return gen_fail(err, n, "problem size %dx%dx%d: m, n and k must be at least 1", p->m, p->n,
                       p->k);
    in->m = p->m;
    in->n = p->n;
    in->k = p->k;
    in->a = alloc_matrix(p->m, p->k);
    in->b = alloc_matrix(p->k, p->n);
    if (p->beta != 0.0f)
        in->c0 = alloc_matrix(p->m, p->n);
    if (!in->a || !in->b || (p->beta != 0.0f && !in->c0))
        return gen_fail(err, n, "out of memory for the %dx%dx%d inputs", p->m, p->n, p->k);
    in->seeded = true;
    in->seed = p->seed;
    base_fill_uniform(in->a, (size_t)p->m * (size_t)p->k, p->seed, 0);
    base_fill_uniform(in->b, (size_t)p->k * (size_t)p->n, p->seed, 1);
    if (in->c0)
        base_fill_uniform(in->c0, (size_t)p->m * (size_t)p->n, p->seed, 2);
    return 0;
}

static int from_files(const gg_problem *p, gg_inputs *in, char *err, size_t n)
{
    int ar, ac, br, bc, cr, cc;
    if (!p->a_path || !p->b_path)
        return gen_fail(err, n, "%s",
                       p->c_path && !p->a_path && !p->b_path ? "--c needs --a and --b"
                                                          : "--a and --b go together");
    if (base_npy_read(p->a_path, &in->a, &ar, &ac, err, n) ||
        base_npy_read(p->b_path, &in->b, &br, &bc, err, n))
        return -1;
    /* As stored: A is m x k (k x m with transa), B is k x n (n x k with transb). */
    int m = p->transa ? ac : ar, ka = p->transa ? ar : ac;
    int nn = p->transb ? br : bc, kb = p->transb ? bc : br;
    if (ka != kb)
        return gen_fail(err, n,
                       "inner dimensions differ: %s is %dx%d%s, %s is %dx%d%s (k %d vs %d)",
                       p->a_path, ar, ac, p->transa ? " (transposed)" : "", p->b_path, br, bc,
                       p->transb ? " (transposed)" : "", ka, kb);
    if (p->c_path) {
        if (base_npy_read(p->c_path, &in->c0, &cr, &cc, err, n))
            return -1;
        if (cr != m || cc != nn)
            return gen_fail(err, n, "%s is %dx%d but op(A)*op(B) is %dx%d", p->c_path, cr, cc, m,
                           nn);
    } else if (p->beta != 0.0f) {
        return gen_fail(err, n, "--beta %g needs --c FILE with the C input when --a/--b are given",
                       (double)p->beta);
    }
    in->m = m;
    in->n = nn;
    in->k = ka;
    return 0;
}

int base_inputs_make(const gg_problem *p, gg_inputs *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->transa = p->transa;
    in->transb = p->transb;
    int rc = (p->a_path || p->b_path || p->c_path) ? from_files(p, in, err, errlen)
                                      : from_seed(p, in, err, errlen);
    if (rc) {
        base_inputs_free(in);
        return -1;
    }
    in->lda = in->transa ? in->m : in->k;
    in->ldb = in->transb ? in->k : in->n;
    return 0;
}
