/* base/pool: a few threads kept for the host's data-parallel copies (packing
 * A and B, unpacking and checking C), so that a call does not pay for
 * making threads.  No GL.
 *
 * Contract:
 *  - base_pool_new(threads): threads - 1 workers (the caller is the last
 *    one); threads <= 0 picks base_pool_default_threads().  NULL when out of
 *    memory or no thread could be made (callers then run the work alone).
 *  - base_pool_run(pool, tasks, fn, arg) calls fn(arg, t) once for every t
 *    in 0 .. tasks-1, spread over the workers and the caller, and returns
 *    when every call has returned.  Calls of fn may run at the same time:
 *    they must touch disjoint data.  A NULL pool runs them in order on the
 *    caller.  One base_pool_run at a time a pool (not reentrant).
 *  - base_pool_default_threads(): GLGEMM_THREADS when set (1 .. 64), else
 *    the online CPUs but one (at least 2, at most 16).
 *  - base_pool_free joins the workers. */
#ifndef GLGEMM_BASE_POOL_H
#define GLGEMM_BASE_POOL_H

typedef struct base_pool base_pool;
typedef void (*base_pool_fn)(void *arg, int task);

base_pool *base_pool_new(int threads);
void base_pool_free(base_pool *p);
int base_pool_threads(const base_pool *p); /* 1 for NULL */
void base_pool_run(base_pool *p, int tasks, base_pool_fn fn, void *arg);
int base_pool_default_threads(void);

#endif
