/* eval/remote: the messages between rank 0's pool (eval/pool.h) and the
 * ranks that serve it (eval/serve.h), over a gg_transport, and the one wait
 * for them: messages are polled, with naps growing from 20 us between empty
 * polls, never waited for in a blocking call.  No GL here; inside eval/
 * only.
 *
 * Every rank runs the same glgemm-mpi build, so the messages carry the
 * structs as bytes, checked once by the hello (a magic, the sizes of the
 * structs, the problems' shapes and a fingerprint of their inputs):
 *  - hello (rank r -> 0, after its devices answered): the problems it
 *    made, then per device its index, whether its contexts were made, and
 *    its gg_device_info (about 4.5 KiB a device);
 *  - eval (0 -> r, the tag names the device's place in r's list): the
 *    problem, the evaluation's options and the variant's canonical text;
 *  - result (r -> 0, the same place): the evaluator's return, its wall time
 *    there, and the gg_measurement up to the end of its detail;
 *  - quit (0 -> r): leave. */
#ifndef GLGEMM_REMOTE_H
#define GLGEMM_REMOTE_H

#include <stdatomic.h>

#include "eval/pool.h"

/* Rank r's hello: each of its devices into slots[*n ..] (rank, device,
 * index, ok, info, err), *n grown.  Waits up to wait_s.  0, or -1 with one
 * line in err (no hello, or one from another build or other problems). */
int eval_remote_hello_recv(const gg_transport *t, int r, const gg_pool_config *cfg, double wait_s,
                           gg_pool_slot *slots, int max, int *n, char *err, size_t errlen);

/* What crossed the transport for one evaluation. */
typedef struct {
    double sent, received;  /* bytes */
    double remote_s;        /* the remote's wall time for it */
} gg_remote_cost;

/* One evaluation on rank s->rank's device s->index: sends it, then waits
 * for the result until deadline (base_now_s seconds) or *quit.  0 with out
 * and rc (the remote evaluator's return) filled, -1 with no answer. */
int eval_remote_eval(const gg_transport *t, const gg_pool_slot *s, int problem,
                     const gg_variant *v, const gg_eval_opts *o, double deadline,
                     const atomic_bool *quit, gg_measurement *out, int *rc,
                     gg_remote_cost *cost);

/* Tells rank r to leave. */
void eval_remote_quit(const gg_transport *t, int r);

/* The deadline for an answer from a remote evaluator of cfg. */
double eval_remote_wait_s(const gg_evaluator_config *cfg);

/* ---- a serving rank's side ---- */

/* This rank's hello to rank 0: cfg's problems, then slots[0..n) (device,
 * ok, err, info; their place in the list is their index).  0, or -1 with
 * one line in err. */
int eval_remote_hello_send(const gg_transport *t, const gg_pool_config *cfg,
                           const gg_pool_slot *slots, int n, char *err, size_t errlen);

/* Measures a variant for a request: as eval_evaluator_eval. */
typedef int (*gg_remote_eval_fn)(void *user, int problem, const gg_variant *v,
                                 const gg_eval_opts *o, gg_measurement *out);

/* Answers rank 0's requests for this rank's device at index, each measured
 * through eval (a request that does not read, or names no problem of
 * nproblems, is answered invalid), until *quit. */
void eval_remote_serve_device(const gg_transport *t, int index, int nproblems,
                              const atomic_bool *quit, gg_remote_eval_fn eval, void *user);

/* Waits until rank 0 says to leave. */
void eval_remote_await_quit(const gg_transport *t);

#endif
