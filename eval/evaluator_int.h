/* eval/evaluator_int.h: what the evaluator's two sides share
 * (eval/evaluator.c, the parent's side; eval/worker.c, the worker process):
 * the messages on their socket and the evaluator itself.  Not for other
 * rooms: eval/evaluator.h is the contract. */
#ifndef GLGEMM_EVALUATOR_INT_H
#define GLGEMM_EVALUATOR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "eval/evaluator.h"

/* ---- the messages ---- */

/* OP_TFJS, OP_TFJS_WEBGPU: the browser backend's tf.matMul rows (bench);
 * OP_MODEL: its model rows. */
enum { OP_EVAL = 1, OP_DEVICE, OP_QUIT, OP_WARM, OP_TFJS, OP_TFJS_WEBGPU, OP_MODEL };
/* MSG_REF_START / MSG_REF_DONE: the worker makes a reference (once per
 * store; minutes at 8192^3), which the compile deadline must not count. */
/* MSG_WARMED: the warm worker is done with its variant. */
enum { MSG_BUILT = 1, MSG_DONE, MSG_DEVICE, MSG_REF_START, MSG_REF_DONE, MSG_WARMED };

typedef struct {
    int op;
    long eval_no;        /* fault injection's count (base/fault.h) */
    gg_variant v;
    gg_eval_opts o;
    int nhints;
    gg_variant hints[GG_EVAL_HINTS];
    pid_t warm_pid;      /* OP_EVAL: the warm worker to pause while timing, 0 none */
    int model;           /* OP_MODEL: GG_MODEL_DENSE or GG_MODEL_ENCODER */
    bool model_small;    /* OP_MODEL: the tests' sizes */
    bool model_glgemm;   /* OP_MODEL: with glgemm-tfjs.js registered with v */
} request;

typedef struct {
    int type;
    gg_measurement m;    /* MSG_BUILT: status and compile_s so far; MSG_DONE: all */
} reply;

typedef struct {
    int type;
    gg_device_info d;
} device_reply;

#define WARM_SEEN 64

struct gg_evaluator {
    gg_evaluator_config cfg;
    pid_t pid;           /* the worker, 0 none */
    int fd;              /* our end of its socket */
    float *c;            /* shared with the workers (want_c), m*n floats */
    size_t c_bytes;
    bool have_c;
    char *log;           /* want_log: the last failed build's text */
    int nhints;
    gg_variant hints[GG_EVAL_HINTS];
    int model;           /* the next OP_MODEL's (eval_evaluator_model) */
    bool model_small, model_glgemm;
    /* The smallest unrolled body (multiply-adds a fragment a pass) whose
     * build ran past the compile deadline, by compiler and profile; 0 none. */
    long too_big[2][GG_PROFILE_COUNT];
    gg_evaluator_stats st;
    /* The warm worker (eval_evaluator_warm): its process and socket, whether
     * it has a variant, since when; the variants it had or the evaluations
     * ran, newest WARM_SEEN. */
    bool warm;
    pid_t wpid;
    int wfd;
    bool wbusy;
    double wsince;
    gg_variant seen[WARM_SEEN];
    int nseen, seen_at;
    /* The requests being sent (here, not static: evaluators may serve
     * from several threads, one each; eval/pool.h). */
    request req, wreq;
};

/* Sends all of buf on the socket fd (no SIGPIPE); false when it closed. */
bool eval_send_all(int fd, const void *buf, size_t len);

/* The worker process's life (eval/worker.c): serves the requests on fd
 * (warm: the warm worker, building ahead only) and exits. */
_Noreturn void eval_worker_main(const gg_evaluator *e, int fd, bool warm);

#endif
