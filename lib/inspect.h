/* lib/inspect: what the tests may read of a context's insides (not part of
 * glgemm.h; the library's own state, read without changing it). */
#ifndef GLGEMM_LIB_INSPECT_H
#define GLGEMM_LIB_INSPECT_H

#include "glgemm.h"

/* Staging buffers made in ctx's current GL context so far (its reserve's
 * two, then one a growth; glhost/run_cache.h host_rc_staging_made); 0 for
 * a NULL ctx or none. */
long lib_inspect_staging_made(const glgemm_context *ctx);

#endif
