/* The messages between rank 0's pool and the serving ranks: see remote.h. */
#include "eval/remote.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/hash.h"
#include "gen/util.h"

#define MAGIC 0x676c676dU /* "glgm" */
#define VERSION 1
/* Tags: a device's messages carry its place in its rank's list. */
enum { TAG_HELLO = 1, TAG_QUIT = 2, TAG_EVAL = 1000, TAG_RESULT = 2000 };

typedef struct {
    unsigned magic, version;
    unsigned sz_measurement, sz_device_info, sz_opts;
    int nproblems, ndevices;
} hello_head;

typedef struct {
    int m, n, k;
    unsigned long long fingerprint; /* of the inputs, alpha and beta */
} hello_problem;

typedef struct {
    int device;
    int ok;
    char err[256];
    gg_device_info info;
} hello_device;

typedef struct {
    unsigned magic;
    int problem;
    long seq;
    gg_eval_opts o;
    char text[GG_VARIANT_TEXT]; /* sent up to its end */
} eval_msg;

typedef struct {
    long seq;
    int rc;
    double wall_s;
    gg_measurement m;           /* sent up to the end of its detail */
} result_msg;

/* The longest nap between polls while an answer is due, and while a rank
 * only waits to be told to leave. */
#define NAP_MAX_S 250e-6
#define NAP_IDLE_S 5e-3

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The one wait for a message: from rank `from` with `tag`, into buf (cap
 * bytes).  Polls, napping between empty polls from 20 us doubling up to
 * max_nap_s (a blocking MPI receive spins a core, which llvmpipe's
 * rasteriser needs).  Its length, or -1 once deadline (base_now_s()
 * seconds; 0: none) has passed or *quit (NULL: none) is set. */
static long wait_msg(const gg_transport *t, int from, int tag, void *buf, size_t cap,
                     double deadline, const atomic_bool *quit, double max_nap_s)
{
    double nap_s = 0;
    for (;;) {
        long n = t->poll(t->self, from, tag, buf, cap);
        if (n >= 0)
            return n;
        if ((quit && atomic_load(quit)) || (deadline > 0 && base_now_s() > deadline))
            return -1;
        nap_s = nap_s <= 0 ? 20e-6 : nap_s * 2 < max_nap_s ? nap_s * 2 : max_nap_s;
        nap(nap_s);
    }
}

static unsigned long long fnv(unsigned long long h, const void *p, size_t len)
{
    return base_fnv1a(h, p, len);
}

static unsigned long long words(unsigned long long h, const float *a, size_t n)
{
    return base_fnv1a_words(h, (const uint32_t *)a, n); /* the floats' bits */
}

static void describe(const gg_evaluator_config *c, hello_problem *hp)
{
    const gg_inputs *in = c->in;
    memset(hp, 0, sizeof *hp);
    if (!in)
        return;
    hp->m = in->m;
    hp->n = in->n;
    hp->k = in->k;
    unsigned long long h = BASE_FNV1A_BASIS;
    h = words(h, in->a, (size_t)in->m * in->k);
    h = words(h, in->b, (size_t)in->k * in->n);
    if (in->c0)
        h = words(h, in->c0, (size_t)in->m * in->n);
    if (c->prob) {
        h = fnv(h, &c->prob->alpha, sizeof c->prob->alpha);
        h = fnv(h, &c->prob->beta, sizeof c->prob->beta);
        h = fnv(h, &c->prob->reps, sizeof c->prob->reps);
    }
    hp->fingerprint = h;
}

double eval_remote_wait_s(const gg_evaluator_config *cfg)
{
    double run = cfg->timeout_s > 0 ? cfg->timeout_s
                 : cfg->prob       ? eval_evaluator_default_timeout(cfg->prob)
                                   : 60.0;
    double build = cfg->compile_timeout_s > 0 ? cfg->compile_timeout_s : GG_COMPILE_TIMEOUT_S;
    return build + 2 * run + GG_POOL_GRACE_S;
}

/* ---- rank 0's side ---- */

int eval_remote_hello_recv(const gg_transport *t, int r, const gg_pool_config *cfg, double wait_s,
                           gg_pool_slot *slots, int max, int *n, char *err, size_t errlen)
{
    size_t cap = sizeof(hello_head) + GG_POOL_MAX_SLOTS * sizeof(hello_device) +
                 (size_t)cfg->nproblems * sizeof(hello_problem);
    char *buf = malloc(cap);
    if (!buf)
        return gen_fail(err, errlen, "out of memory");
    long got = wait_msg(t, r, TAG_HELLO, buf, cap, base_now_s() + wait_s, NULL, NAP_MAX_S);
    if (got < 0) {
        free(buf);
        return gen_fail(err, errlen, "rank %d did not say which devices it serves within %.0f s", r,
                        wait_s);
    }
    hello_head h;
    memcpy(&h, buf, got >= (long)sizeof h ? sizeof h : 0);
    if (got < (long)sizeof h || h.magic != MAGIC || h.version != VERSION ||
        h.sz_measurement != sizeof(gg_measurement) || h.sz_device_info != sizeof(gg_device_info) ||
        h.sz_opts != sizeof(gg_eval_opts) || h.ndevices < 0 || h.ndevices > GG_POOL_MAX_SLOTS ||
        h.nproblems != cfg->nproblems ||
        (size_t)got != sizeof h + (size_t)h.nproblems * sizeof(hello_problem) +
                           (size_t)h.ndevices * sizeof(hello_device)) {
        free(buf);
        return gen_fail(err, errlen, "rank %d runs another glgemm-mpi build (its hello does not "
                                     "match this one's): run the same build on every host", r);
    }
    const char *at = buf + sizeof h;
    for (int q = 0; q < cfg->nproblems; q++, at += sizeof(hello_problem)) {
        hello_problem mine, theirs;
        describe(&cfg->problems[q], &mine);
        memcpy(&theirs, at, sizeof theirs);
        if (memcmp(&mine, &theirs, sizeof mine)) {
            free(buf);
            return gen_fail(err, errlen, "rank %d made other inputs for problem %dx%dx%d (%dx%dx%d "
                                         "there): run the same command, with the same input files, "
                                         "on every rank", r, mine.m, mine.n, mine.k, theirs.m,
                            theirs.n, theirs.k);
        }
    }
    for (int i = 0; i < h.ndevices; i++, at += sizeof(hello_device)) {
        if (*n >= max) {
            free(buf);
            return gen_fail(err, errlen, "more than %d devices in all", max);
        }
        hello_device d;
        memcpy(&d, at, sizeof d);
        gg_pool_slot *s = &slots[(*n)++];
        memset(s, 0, sizeof *s);
        s->rank = r;
        s->device = d.device;
        s->index = i;
        s->ok = d.ok;
        s->info = d.info;
        for (int k = 0; k < 3; k++)
            s->info.err[k][sizeof s->info.err[k] - 1] = '\0';
        snprintf(s->err, sizeof s->err, "%.*s", (int)sizeof d.err - 1, d.err);
    }
    free(buf);
    return 0;
}

int eval_remote_eval(const gg_transport *t, const gg_pool_slot *s, int problem,
                     const gg_variant *v, const gg_eval_opts *o, double deadline,
                     const atomic_bool *quit, gg_measurement *out, int *rc, gg_remote_cost *cost)
{
    static atomic_long seq;
    eval_msg q;
    memset(&q, 0, sizeof q);
    q.magic = MAGIC;
    q.problem = problem;
    q.seq = atomic_fetch_add(&seq, 1) + 1;
    if (o)
        q.o = *o;
    gen_variant_format(v, q.text, sizeof q.text);
    size_t len = offsetof(eval_msg, text) + strlen(q.text) + 1;
    if (t->send(t->self, s->rank, TAG_EVAL + s->index, &q, len))
        return -1;
    cost->sent += (double)len;
    result_msg got;
    for (;;) { /* an answer to an earlier ask (of a slot since dropped) is passed over */
        memset(&got, 0, sizeof got);
        long n = wait_msg(t, s->rank, TAG_RESULT + s->index, &got, sizeof got, deadline, quit,
                          NAP_MAX_S);
        if (n < 0)
            return -1;
        if (n >= (long)offsetof(result_msg, m.detail) && got.seq == q.seq) {
            cost->received += (double)n;
            cost->remote_s = got.wall_s;
            got.m.detail[sizeof got.m.detail - 1] = '\0';
            *out = got.m;
            *rc = got.rc;
            return 0;
        }
    }
}

void eval_remote_quit(const gg_transport *t, int r)
{
    int q = 0;
    (void)t->send(t->self, r, TAG_QUIT, &q, sizeof q); /* a rank gone needs no telling */
}

/* ---- a serving rank ---- */

int eval_remote_hello_send(const gg_transport *t, const gg_pool_config *cfg,
                           const gg_pool_slot *slots, int n, char *err, size_t errlen)
{
    size_t hlen = sizeof(hello_head) + (size_t)cfg->nproblems * sizeof(hello_problem) +
                  (size_t)n * sizeof(hello_device);
    char *hello = calloc(1, hlen);
    if (!hello)
        return gen_fail(err, errlen, "out of memory");
    hello_head h = {MAGIC, VERSION, sizeof(gg_measurement), sizeof(gg_device_info),
                    sizeof(gg_eval_opts), cfg->nproblems, n};
    char *at = hello;
    memcpy(at, &h, sizeof h);
    at += sizeof h;
    for (int q = 0; q < cfg->nproblems; q++, at += sizeof(hello_problem)) {
        hello_problem hp;
        describe(&cfg->problems[q], &hp);
        memcpy(at, &hp, sizeof hp);
    }
    for (int i = 0; i < n; i++, at += sizeof(hello_device)) {
        hello_device d;
        memset(&d, 0, sizeof d);
        d.device = slots[i].device;
        d.ok = slots[i].ok;
        snprintf(d.err, sizeof d.err, "%s", slots[i].err);
        d.info = slots[i].info;
        memcpy(at, &d, sizeof d);
    }
    int rc = t->send(t->self, 0, TAG_HELLO, hello, hlen);
    free(hello);
    return rc ? gen_fail(err, errlen, "rank %d could not reach rank 0", t->rank) : 0;
}

/* One request read and answered: the variant measured through eval. */
static void answer(const gg_transport *t, int index, int nproblems, const eval_msg *q, long len,
                   gg_remote_eval_fn eval, void *user)
{
    result_msg r;
    memset(&r, 0, sizeof r);
    r.seq = q->seq;
    double t0 = base_now_s();
    base_measurement_init(&r.m);
    gg_variant v;
    char err[512];
    if (len < (long)offsetof(eval_msg, text) + 1 || q->magic != MAGIC || q->problem < 0 ||
        q->problem >= nproblems) {
        r.m.status = GG_INVALID;
        snprintf(r.m.detail, sizeof r.m.detail, "rank %d: a request it cannot read", t->rank);
    } else if (gen_variant_parse(q->text, NULL, &v, err, sizeof err)) {
        r.m.status = GG_INVALID;
        snprintf(r.m.detail, sizeof r.m.detail, "rank %d: %.480s", t->rank, err);
    } else {
        r.rc = eval(user, q->problem, &v, &q->o, &r.m);
    }
    r.wall_s = base_now_s() - t0;
    r.m.detail[sizeof r.m.detail - 1] = '\0';
    size_t n = offsetof(result_msg, m.detail) + strlen(r.m.detail) + 1;
    /* rank 0 gone: its MPI job ends this rank too */
    (void)t->send(t->self, 0, TAG_RESULT + index, &r, n);
}

void eval_remote_serve_device(const gg_transport *t, int index, int nproblems,
                              const atomic_bool *quit, gg_remote_eval_fn eval, void *user)
{
    eval_msg *q = malloc(sizeof *q);
    while (q && !atomic_load(quit)) {
        memset(q, 0, sizeof *q);
        long len = wait_msg(t, 0, TAG_EVAL + index, q, sizeof *q - 1, 0, quit, NAP_MAX_S);
        if (len >= 0)
            answer(t, index, nproblems, q, len, eval, user);
    }
    free(q);
}

void eval_remote_await_quit(const gg_transport *t)
{
    int q;
    (void)wait_msg(t, 0, TAG_QUIT, &q, sizeof q, 0, NULL, NAP_IDLE_S); /* no deadline: -1 never */
}
