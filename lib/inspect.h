/* lib/inspect: what the tests may read of a context's insides (not part of
 * glgemm.h; the library's own state, read without changing it). */
#ifndef GLGEMM_LIB_INSPECT_H
#define GLGEMM_LIB_INSPECT_H

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

/* Rows of the last GPU run's C put into the caller's array while the card
 * drew later bands (lib/api.c band_check; put back if the call failed). */
long lib_inspect_last_early_rows(const glgemm_context *ctx);

#endif
