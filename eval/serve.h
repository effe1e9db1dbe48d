/* eval/serve: a rank other than 0 (glgemm-mpi) serving its devices to rank
 * 0's pool.  No GL here.
 *
 * Contract:
 *  - eval_serve() makes a pool of this process (eval/pool.h) of cfg's
 *    problems on cfg's devices, without the transport: every slot's device
 *    answers first, and the slots measure as they do for a local tune.
 *  - It says hello to rank 0 (eval/remote.h: the problems, each device
 *    with its info), then answers rank 0's requests, a thread per device,
 *    each request measured on that device's slot (eval_pool_eval_on),
 *    until rank 0 says to leave; then the evaluations in flight end and
 *    the pool is freed.
 *  - A problem whose evaluator cannot be made there is answered
 *    context_lost with "rank R: " before the reason. */
#ifndef GLGEMM_SERVE_H
#define GLGEMM_SERVE_H

#include <stddef.h>

#include "eval/pool.h"

/* Serves cfg's problems on cfg's devices for rank 0 (cfg->transport, this
 * rank > 0) until it says to leave.  0, or -1 with one line in err. */
int eval_serve(const gg_pool_config *cfg, char *err, size_t errlen);

#endif
