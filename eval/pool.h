/* eval/pool: evaluations spread over several devices (tune, bench and run
 * --devices): one evaluation worker per device, each the evaluator of
 * eval/evaluator.h, here or in another process reached through a
 * transport (MPI: eval/mpi.c, the glgemm-mpi binary).  No GL here.
 *
 * Contract:
 *  - A slot is one worker: an EGL device of this process (a list may name
 *    a device twice: two workers on it), or one of another rank's.  A local
 *    slot's evaluators are eval/slot.h's (one per problem, made on first
 *    use), driven from a thread of its own; a remote slot's thread sends
 *    the variant's text and waits for the measurement (eval/remote.h).  eval_pool_new() asks every slot for its
 *    device's info (contexts, renderer: the card's slug) at once.
 *  - A client is one problem on a set of slots (a tune: one card's devices,
 *    one size).  eval_pool_eval() measures a variant for a client and
 *    returns when it is measured; clients may ask at once, each from a
 *    thread of its own.  Asked variants go before speculative ones.
 *  - Speculation: eval_pool_hint() names the variants a client will likely
 *    ask next (at most GG_POOL_HINTS, likeliest first), with the options to
 *    measure them by.  At the client's next eval_pool_eval the asked variant
 *    is queued first, then the hinted ones that are not queued, running or
 *    done yet; a queued hinted variant the new hints no longer name is
 *    dropped unstarted.  Idle slots take queued variants.  An ask of a
 *    variant already running or done takes that measurement (waiting for
 *    it): a variant is measured at most once while it is kept.  Finished
 *    speculative measurements nobody asked for are kept (GG_POOL_KEEP at
 *    most, oldest dropped first) until eval_pool_client_end(), then dropped:
 *    never recorded, so the records hold what the search asked for, as with
 *    one device; the stats count them as wasted.  eval_pool_prefetch()
 *    queues what will surely be asked (the presets, the finalists' rounds)
 *    so that the slots share it.
 *  - One local slot and no transport: no thread at all; the evaluator is
 *    called in place (hints go to its build-ahead, eval_pool_warm to its
 *    warm worker), as glgemm did before the pool.
 *  - Failures: a local slot's evaluator meets crashes and hangs as ever (a
 *    status for that variant, a new worker), the other slots going on
 *    meanwhile.  A remote slot whose answer does not come within the
 *    compile deadline, twice the run deadline and GG_POOL_GRACE_S is
 *    dropped and its variant queued again for another slot; when a client
 *    has no slot left, its asks return -1.
 *  - eval_pool_free() stops the slots after the evaluations in flight (each
 *    under its evaluator's deadlines), tells remote ranks to leave and
 *    frees the evaluators.
 *  - Ranks other than 0 serve the same problems, made the same way from
 *    the same command line, on their own devices, through a pool of their
 *    own (eval/serve.h), until rank 0 says to leave. */
#ifndef GLGEMM_POOL_H
#define GLGEMM_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "eval/evaluator.h"

#define GG_POOL_HINTS 8
#define GG_POOL_MAX_SLOTS 64
#define GG_POOL_KEEP 64
#define GG_POOL_GRACE_S 60.0

/* Another way to reach workers: ranks 0 .. size - 1, this process being
 * rank; messages are bytes with a tag; every function may be called from
 * any thread. */
typedef struct {
    int rank, size;
    int local_rank;          /* this rank's number among those of its host */
    void *self;
    /* 0, or -1 when it could not be sent. */
    int (*send)(void *self, int to, int tag, const void *buf, size_t len);
    /* A message from rank `from` with `tag` if one has come (no wait): its
     * length, its first cap bytes in buf; -1 when none has. */
    long (*poll)(void *self, int from, int tag, void *buf, size_t cap);
    /* May be NULL: told that rank did not answer in time (and was dropped). */
    void (*lost)(void *self, int rank);
} gg_transport;

/* The transport of this process: glgemm-mpi's main sets it, NULL else. */
extern const gg_transport *eval_pool_transport;
/* Whether a pool of this process has told the other ranks to leave. */
bool eval_pool_released(void);

typedef struct {
    const gg_evaluator_config *problems; /* one per problem; their device is ignored */
    int nproblems;
    const int *devices;                  /* this process's devices, as listed */
    int ndevices;
    const gg_transport *transport;       /* NULL: this process only */
} gg_pool_config;

typedef struct {
    long evaluations;   /* measured on this slot */
    long asked;         /* of them, asked for when they started */
    long speculative;   /* started from a hint */
    long used;          /* of those, asked for later */
    double busy_s;      /* wall time spent measuring */
    /* Remote slots: what crossed the transport, and the time it added
     * (the round trip less the remote's own wall time). */
    long messages;
    double sent_bytes, recv_bytes, overhead_s;
    bool lost;          /* a remote slot dropped (it did not answer) */
    long workers, worker_lost, timeouts; /* local slots: their evaluators' */
} gg_pool_slot_stats;

typedef struct {
    int rank;           /* 0: this process */
    int device;         /* the EGL device index there */
    int index;          /* its place in that rank's list */
    bool ok;            /* its device answered (info filled); else err */
    gg_device_info info;
    char err[256];
} gg_pool_slot;

typedef struct gg_pool gg_pool;

/* NULL with one line in err (no memory, no thread, a rank that does not
 * answer or holds other problems).  A slot whose device does not answer is
 * still made (ok false): the caller decides. */
gg_pool *eval_pool_new(const gg_pool_config *cfg, char *err, size_t errlen);
void eval_pool_free(gg_pool *p);

int eval_pool_nslots(const gg_pool *p);
const gg_pool_slot *eval_pool_slot(const gg_pool *p, int i);
/* "device 0", "rank 1 device 0", "device 0 (worker 2)" for a device listed twice */
char *eval_pool_slot_label(const gg_pool *p, int i, char *buf, size_t len);
void eval_pool_slot_stats(gg_pool *p, int i, gg_pool_slot_stats *st);

/* A client: problem on the slots in mask (bit i: slot i; 0: all).
 * Returns its id, or -1 (no memory). */
int eval_pool_client(gg_pool *p, int problem, unsigned long long mask);
/* The client is done: its queued and kept measurements are dropped. */
void eval_pool_client_end(gg_pool *p, int client);

/* As eval_evaluator_eval, for a client (o may be NULL). */
int eval_pool_eval(gg_pool *p, int client, const gg_variant *v, const gg_eval_opts *o,
                   gg_measurement *out);
/* The same on one slot (run --devices: every device runs the variant). */
int eval_pool_eval_on(gg_pool *p, int slot, int problem, const gg_variant *v,
                      const gg_eval_opts *o, gg_measurement *out);
void eval_pool_hint(gg_pool *p, int client, const gg_variant *next, int n, const gg_eval_opts *o);
/* v[0..n) will be asked in this order, each ask a measurement of its own (a
 * variant may come more than once: the finalists' rounds): queued now, as
 * asked ones, on the client's slots; an ask takes the first such of its
 * variant.  Those never asked go at eval_pool_client_end.  With one slot:
 * nothing (the asks measure in turn). */
void eval_pool_prefetch(gg_pool *p, int client, const gg_variant *v, int n, const gg_eval_opts *o);

/* The client's evaluations summed (every one measured for it, speculative
 * too); with one slot, its evaluator's own stats. */
void eval_pool_client_stats(gg_pool *p, int client, gg_evaluator_stats *st);

/* The warm worker (eval/evaluator.h) of the one slot: with one local slot
 * only (false: not on). */
bool eval_pool_warm(gg_pool *p, bool on);

/* A local slot's evaluator for a problem (its C and build log after an
 * eval_pool_eval_on): NULL for a remote slot or one not made. */
gg_evaluator *eval_pool_evaluator(gg_pool *p, int slot, int problem);

#endif
