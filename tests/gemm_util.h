/* Helpers the gemm and half suites share: one GEMM case (variant, shape,
 * transposes, alpha, beta), its inputs, the reference of the inputs as the
 * variant's store holds them, a run on an EGL context, and C checked
 * element by element against a naive double loop.  Header-only (static),
 * test code only. */
#ifndef GLGEMM_TEST_GEMM_UTIL_H
#define GLGEMM_TEST_GEMM_UTIL_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/half.h"
#include "base/inputs.h"
#include "gen/pack.h"
#include "base/reference.h"
#include "glhost/run.h"

typedef struct {
    const char *variant;
    int m, n, k;
    int transa, transb;
    float alpha, beta;
} gemm_case;

/* The inputs, the reference and the result of one run. */
typedef struct {
    gg_problem p;
    gg_variant v;
    gg_inputs in;
    gg_reference ref;
    gg_measurement m;
    float *c;
} gemm_run;

/* 2 reps; the reference is of the variant's store (store=f16: of the
 * inputs rounded to halves). */
static inline void setup_case(gemm_run *r, const gemm_case *gc, unsigned seed)
{
    char err[512];
    memset(r, 0, sizeof *r);
    base_problem_default(&r->p);
    r->p.m = gc->m;
    r->p.n = gc->n;
    r->p.k = gc->k;
    r->p.transa = gc->transa;
    r->p.transb = gc->transb;
    r->p.alpha = gc->alpha;
    r->p.beta = gc->beta;
    r->p.seed = seed;
    r->p.reps = 2;
    ck_assert_msg(gen_variant_parse(gc->variant, NULL, &r->v, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(base_inputs_make(&r->p, &r->in, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(base_reference_compute_store(&r->in, r->p.alpha, r->p.beta, r->v.store, &r->ref,
                                             err, sizeof err) == 0,
                  "%s", err);
    r->c = malloc((size_t)gc->m * gc->n * sizeof *r->c);
    ck_assert_ptr_nonnull(r->c);
}

static inline void free_case(gemm_run *r)
{
    free(r->c);
    base_reference_free(&r->ref);
    base_inputs_free(&r->in);
}

/* One run in a session of its own (a context made and destroyed): the
 * variant against ref, o may be NULL.  0, or -1 with err (no context). */
static inline int run_once(gg_backend backend, const gg_variant *v, const gg_problem *p,
                           const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                           gg_measurement *out, float *c, char *err, size_t errlen)
{
    gg_session *s = host_session_new(backend, 0);
    ck_assert_ptr_nonnull(s);
    int rc = host_session_run(s, v, p, in, ref, o, out, c, NULL, err, errlen, NULL);
    host_session_free(s);
    return rc;
}

/* One run against r->ref (o may be NULL). */
static inline void evaluate(gemm_run *r, const gg_run_opts *o)
{
    char err[512] = "";
    int rc = run_once(GG_BACKEND_EGL, &r->v, &r->p, &r->in, &r->ref, o, &r->m, r->c, err,
                      sizeof err);
    ck_assert_msg(rc == 0, "no context: %s", err);
}

/* C checked element by element by a naive double loop over the inputs as
 * the variant's store holds them (store=f16, f16x8: rounded to halves), not by
 * base_verify alone: |C - R| <= k 2^-23 (|alpha| sum |a b| + |beta c0|). */
static inline void check_against_naive(const gemm_run *r, const char *what)
{
    const gg_inputs *in = &r->in;
    bool half = gen_store_inputs(r->v.store) == GG_STORE_F16; /* f16, f16x8 */
    double bound = in->k * ldexp(1.0, -23);
    for (int i = 0; i < in->m; i++)
        for (int j = 0; j < in->n; j++) {
            double sum = 0, scale = 0;
            for (int kk = 0; kk < in->k; kk++) {
                float a = gg_op_a(in, i, kk), b = gg_op_b(in, kk, j);
                double ab = half ? (double)gen_half_round(a) * gen_half_round(b) : (double)a * b;
                sum += ab;
                scale += fabs(ab);
            }
            double c0 = r->p.beta != 0.0f ? (double)r->p.beta * in->c0[(size_t)i * in->n + j] : 0;
            double want = r->p.alpha * sum + c0;
            scale = fabs(r->p.alpha) * scale + fabs(c0);
            double got = r->c[(size_t)i * in->n + j];
            ck_assert_msg(fabs(got - want) <= bound * scale + 1e-30,
                          "%s: C(%d,%d) = %.9g, want %.9g", what, i, j, got, want);
        }
}

/* A run that must have succeeded: ok, rel_err within the bound, a rate,
 * and every element against the naive loop. */
static inline void expect_gemm_ok(const gemm_run *r, const char *what)
{
    ck_assert_msg(r->m.status == GG_OK, "%s %dx%dx%d: status %s: %s", what, r->in.m, r->in.n,
                  r->in.k, base_status_name(r->m.status), r->m.detail);
    ck_assert_msg(r->m.rel_err >= 0 && r->m.rel_err <= base_verify_bound(r->in.k),
                  "%s: rel_err %g", what, r->m.rel_err);
    ck_assert(r->m.seconds > 0);
    ck_assert(r->m.gflops > 0);
    ck_assert(r->m.compile_s > 0);
    check_against_naive(r, what);
}

/* One case of a grid that does not split: right, and as many passes as
 * its layout (more than one unless np=all).  check_image.c's and
 * check_ssbo.c's grids. */
static inline void run_grid_case(const gemm_case *gc, unsigned seed)
{
    gemm_run r;
    setup_case(&r, gc, seed);
    evaluate(&r, NULL);
    expect_gemm_ok(&r, gc->variant);
    gg_layout L;
    ck_assert_int_eq(gen_layout_compute(&r.v, r.in.m, r.in.n, r.in.k, &L), 0);
    ck_assert_int_eq(r.m.passes, L.passes);
    ck_assert_msg(L.passes > 1 || r.v.np == GG_NP_ALL, "%s: one pass", gc->variant);
    free_case(&r);
}

/* One case cut into blocks by a texture limit of max_tex (it must split):
 * right, and its passes those of every K block. */
static inline void run_split_case(const gemm_case *gc, int max_tex, unsigned seed)
{
    gemm_run r;
    setup_case(&r, gc, seed);
    gg_split sp;
    ck_assert_int_eq(gen_split_plan(&r.v, gc->m, gc->n, gc->k, max_tex, &sp), 0);
    ck_assert_msg(sp.mblocks * sp.nblocks * sp.kblocks > 1, "%s does not split", gc->variant);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = max_tex;
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert_int_eq(r.m.passes, sp.L.passes * sp.kblocks);
    free_case(&r);
}

#endif
