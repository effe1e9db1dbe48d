/* lib/inspect: what the tests may read of a context's insides (not part of
 * glgemm.h; the library's own state, read without changing it). */
#ifndef GLGEMM_LIB_INSPECT_H
#define GLGEMM_LIB_INSPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "glgemm.h"

/* Staging buffers made in ctx's current GL context so far (its reserve's
 * two, then one a growth; glhost/run_cache.h host_rc_staging_made); 0 for
 * a NULL ctx or none. */
long lib_inspect_staging_made(const glgemm_context *ctx);

/* The draw calls of ctx's last GPU run (its measurement's draws) and the
 * estimate of its draws' time it was given (glhost/run.h expect_s, 0
 * none); 0 for a NULL ctx or before any. */
long lib_inspect_last_draws(const glgemm_context *ctx);
double lib_inspect_last_expect_s(const glgemm_context *ctx);

/* Rows of the last GPU run's C put into the caller's array before the
 * verdict, as their band's checks passed (lib/run.c band_check; put back
 * if the call failed). */
long lib_inspect_last_early_rows(const glgemm_context *ctx);

/* A context of several devices (glgemm_open_devices): the tiles of its
 * last call that the device in position slot of its list served (slot -1:
 * the CPU route, once no device was left); and how many of its devices
 * are in service (not retired).  0 for a one-device context or NULL. */
long lib_inspect_split_tiles(const glgemm_context *ctx, int slot);
int lib_inspect_split_live(const glgemm_context *ctx);

/* bench's measure of the kernel the library would run for a row-major
 * m x n x k problem (A m x k, B k x n, alpha 1, beta 0), on ctx's own GL
 * context: the variant glgemm_variant_for names, the inputs uploaded once,
 * a warm-up run, then the median of reps runs of its draws, each timed to
 * its glFinish (what `glgemm bench` and `glgemm run` report), with ctx's
 * long-draw bound.  Unverified (the timing only).  Seconds, or -1 (a NULL
 * ctx or argument, sizes < 1, reps < 1, or the run failed: glgemm_last_error
 * says why).  So a program can time the library's calls and the bare
 * kernel in turn, in one process, on a machine whose speed changes. */
double lib_inspect_kernel_s(glgemm_context *ctx, int m, int n, int k, const float *a,
                            const float *b, int reps);

/* glgemm_dgemm's check of a C (lib/dverify.c) at a GLGEMM_VERIFY_* level,
 * row-major: c (m x n, n a row) against alpha op(A) op(B) + beta c0 (c0
 * m x n, or NULL for beta 0).  0 passed, 1 failed (why gets where), -1 out
 * of memory.  So the tests see that a C carried in fp32 anywhere fails it. */
int lib_inspect_dverify(int level, bool transa, bool transb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        const double *c0, const double *c, char *why, size_t len);

#endif
