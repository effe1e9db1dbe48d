/* The device pool: see pool.h.  One mutex guards the jobs, the clients and
 * the slots' state; slot threads measure outside it. */
#include "eval/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "gen/util.h"
#include "eval/remote.h"
#include "eval/slot.h"

const gg_transport *eval_pool_transport;
static atomic_bool released;

bool eval_pool_released(void) { return atomic_load(&released); }

typedef enum { J_QUEUED, J_RUNNING, J_DONE } job_state;

typedef struct job {
    struct job *next;
    int client;          /* -1: eval_pool_eval_on's */
    int problem, pin;    /* pin: the one slot it may run on, -1 any */
    gg_variant v;
    gg_eval_opts o;
    job_state state;
    bool asked;          /* somebody waits, or will, for its measurement */
    bool pre;            /* eval_pool_prefetch's: will be asked, in queue order */
    bool spec;           /* it started from a hint, before anybody asked for it */
    int slot, rc;
    gg_measurement m;
} job;

typedef struct {
    int problem;
    unsigned long long mask;
    int nhints;
    gg_variant hints[GG_POOL_HINTS];
    gg_eval_opts hint_opts;
    gg_evaluator_stats st; /* threaded pools: its evaluations summed */
} pclient;

typedef struct {
    gg_pool *p;
    int i;
    gg_pool_slot s;
    gg_device_slot dev;  /* local: its evaluators (eval/slot.h) */
    pthread_t th;
    bool thread;         /* th was made */
    bool dead;           /* remote: dropped */
    gg_pool_slot_stats st;
} slot;

struct gg_pool {
    gg_pool_config cfg;
    gg_evaluator_config *problems;
    int nslots;
    slot *slots;
    bool direct;         /* one local slot: no thread, the evaluator in place */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    job *jobs;           /* in the order they were queued */
    pclient *clients;
    int nclients, capclients;
    atomic_bool quit;
    int answered;        /* local slots whose device answered */
};

/* ---- evaluators ---- */

static void slot_query(slot *sl)
{
    sl->s.ok = eval_slot_query(&sl->dev, &sl->s.info, sl->s.err, sizeof sl->s.err);
}

/* Sums an evaluation into a client's stats (as the evaluator's own, with
 * its failures by status). */
static void account(gg_evaluator_stats *s, const gg_measurement *m, double wall)
{
    eval_evaluator_stats_add(s, m, wall);
    s->lost += m->status == GG_CONTEXT_LOST;
    s->timeouts += m->status == GG_TIMEOUT;
    s->compile_timeouts += m->status == GG_COMPILE_TIMEOUT;
}

/* ---- jobs (under the mutex) ---- */

static job *find(gg_pool *p, int client, const gg_variant *v)
{
    for (job *j = p->jobs; j; j = j->next)
        if (j->client == client && client >= 0 && gen_variant_equal(&j->v, v))
            return j;
    return NULL;
}

static void unlink_job(gg_pool *p, job *j)
{
    for (job **q = &p->jobs; *q; q = &(*q)->next)
        if (*q == j) {
            *q = j->next;
            return;
        }
}

static job *add(gg_pool *p, int client, int problem, int pin, const gg_variant *v,
                const gg_eval_opts *o, bool asked)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->client = client;
    j->problem = problem;
    j->pin = pin;
    j->v = *v;
    if (o)
        j->o = *o;
    j->asked = asked;
    j->slot = -1;
    job **q = &p->jobs;
    while (*q)
        q = &(*q)->next;
    *q = j;
    return j;
}

static bool may_run(const gg_pool *p, const job *j, int i)
{
    if (j->pin >= 0)
        return j->pin == i;
    unsigned long long mask = p->clients[j->client].mask;
    return !mask || (mask >> i & 1);
}

/* The next job for slot i: asked ones first, each kind in queue order. */
static job *pick(gg_pool *p, int i)
{
    for (int pass = 0; pass < 2; pass++)
        for (job *j = p->jobs; j; j = j->next)
            if (j->state == J_QUEUED && (j->asked || j->pre) == (pass == 0) && may_run(p, j, i))
                return j;
    return NULL;
}

static bool slot_live(const gg_pool *p, int i)
{
    return p->slots[i].s.ok && !p->slots[i].dead;
}

static bool can_run(const gg_pool *p, const job *j)
{
    for (int i = 0; i < p->nslots; i++)
        if (slot_live(p, i) && may_run(p, j, i))
            return true;
    return false;
}

/* Measurements kept for nobody: the oldest go past GG_POOL_KEEP. */
static void evict(gg_pool *p)
{
    int kept = 0;
    for (job *j = p->jobs; j; j = j->next)
        kept += j->state == J_DONE && !j->asked && !j->pre;
    for (job *j = p->jobs, *nx; j && kept > GG_POOL_KEEP; j = nx) {
        nx = j->next;
        if (j->state == J_DONE && !j->asked && !j->pre) {
            unlink_job(p, j);
            free(j);
            kept--;
        }
    }
}

static void finish(gg_pool *p, slot *sl, job *j, int rc, const gg_measurement *m, double wall)
{
    j->m = *m;
    j->rc = rc;
    j->state = J_DONE;
    sl->st.evaluations++;
    sl->st.busy_s += wall;
    if (j->spec) {
        sl->st.speculative++;
        sl->st.used += j->asked;
    } else {
        sl->st.asked++;
    }
    if (j->client >= 0)
        account(&p->clients[j->client].st, m, wall);
    evict(p);
    pthread_cond_broadcast(&p->done);
}

/* Its evaluators' counts into its stats (the mutex held: the stats are
 * read under it while this slot's thread writes its evaluators'). */
static void slot_copy_stats(slot *sl)
{
    gg_evaluator_stats sum;
    eval_slot_counts(&sl->dev, &sum);
    sl->st.workers = sum.workers;
    sl->st.worker_lost = sum.lost;
    sl->st.timeouts = sum.timeouts + sum.compile_timeouts;
}

/* ---- the slots' threads ---- */

static void *slot_main(void *arg)
{
    slot *sl = arg;
    gg_pool *p = sl->p;
    bool remote = sl->s.rank != 0;
    if (!remote)
        slot_query(sl);
    pthread_mutex_lock(&p->mu);
    p->answered += !remote;
    pthread_cond_broadcast(&p->done);
    for (;;) {
        job *j = NULL;
        while (!p->quit && !(j = slot_live(p, sl->i) ? pick(p, sl->i) : NULL))
            pthread_cond_wait(&p->work, &p->mu);
        if (p->quit)
            break;
        j->state = J_RUNNING;
        j->slot = sl->i;
        j->spec = !j->asked && !j->pre;
        int problem = j->problem;
        gg_variant v = j->v;
        gg_eval_opts o = j->o;
        pthread_mutex_unlock(&p->mu);
        gg_measurement m;
        int rc = 0;
        double t0 = base_now_s();
        bool lost = false;
        gg_remote_cost cost = {0};
        if (remote) {
            double deadline = t0 + eval_remote_wait_s(&p->problems[problem]);
            lost = eval_remote_eval(p->cfg.transport, &sl->s, problem, &v, &o, deadline, &p->quit,
                                    &m, &rc, &cost) != 0;
        } else {
            rc = eval_slot_eval(&sl->dev, problem, &v, &o, NULL, 0, &m);
        }
        double wall = base_now_s() - t0;
        pthread_mutex_lock(&p->mu);
        if (remote) {
            sl->st.messages += 1 + !lost;
            sl->st.sent_bytes += cost.sent;
            sl->st.recv_bytes += cost.received;
            if (!lost)
                sl->st.overhead_s += wall - cost.remote_s;
        } else {
            slot_copy_stats(sl);
        }
        if (lost && atomic_load(&p->quit))
            break; /* left at eval_pool_free, which frees the job: nobody waits */
        if (lost) { /* another slot takes it */
            sl->dead = sl->st.lost = true;
            if (p->cfg.transport->lost)
                p->cfg.transport->lost(p->cfg.transport->self, sl->s.rank);
            j->state = J_QUEUED;
            j->slot = -1;
            j->spec = false;
            pthread_cond_broadcast(&p->work);
            pthread_cond_broadcast(&p->done);
            break;
        }
        finish(p, sl, j, rc, &m, wall);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ---- making and freeing ---- */

static int start_threads(gg_pool *p, char *err, size_t errlen)
{
    for (int i = 0; i < p->nslots; i++) {
        if (pthread_create(&p->slots[i].th, NULL, slot_main, &p->slots[i]))
            return gen_fail(err, errlen, "cannot make a thread for %s",
                            eval_pool_slot_label(p, i, (char[64]){0}, 64));
        p->slots[i].thread = true;
    }
    int local = 0;
    for (int i = 0; i < p->nslots; i++)
        local += p->slots[i].s.rank == 0;
    pthread_mutex_lock(&p->mu);
    while (p->answered < local)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

static int add_slot(gg_pool *p, const gg_pool_slot *s, char *err, size_t errlen)
{
    if (p->nslots >= GG_POOL_MAX_SLOTS)
        return gen_fail(err, errlen, "more than %d devices in all", GG_POOL_MAX_SLOTS);
    slot *sl = &p->slots[p->nslots];
    sl->p = p;
    sl->i = p->nslots++;
    sl->s = *s;
    return eval_slot_init(&sl->dev, p->problems, p->cfg.nproblems, s->device, err, errlen);
}

gg_pool *eval_pool_new(const gg_pool_config *cfg, char *err, size_t errlen)
{
    if (cfg->nproblems < 1 || cfg->ndevices < 1) {
        gen_fail(err, errlen, "internal: a pool needs a problem and a device");
        return NULL;
    }
    gg_pool *p = calloc(1, sizeof *p);
    if (!p) {
        gen_fail(err, errlen, "out of memory");
        return NULL;
    }
    p->cfg = *cfg;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->problems = calloc((size_t)cfg->nproblems, sizeof *p->problems);
    p->slots = calloc(GG_POOL_MAX_SLOTS, sizeof *p->slots);
    if (!p->problems || !p->slots) {
        gen_fail(err, errlen, "out of memory");
        goto fail;
    }
    memcpy(p->problems, cfg->problems, (size_t)cfg->nproblems * sizeof *p->problems);
    for (int i = 0; i < cfg->ndevices; i++) {
        gg_pool_slot s = {.rank = 0, .device = cfg->devices[i], .index = i};
        if (add_slot(p, &s, err, errlen))
            goto fail;
    }
    const gg_transport *t = cfg->transport;
    for (int r = 1; t && r < t->size; r++) {
        gg_pool_slot got[GG_POOL_MAX_SLOTS];
        int n = 0;
        if (eval_remote_hello_recv(t, r, cfg, eval_remote_wait_s(&cfg->problems[0]) + 600, got,
                                   GG_POOL_MAX_SLOTS, &n, err, errlen))
            goto fail;
        for (int i = 0; i < n; i++)
            if (add_slot(p, &got[i], err, errlen))
                goto fail;
    }
    p->direct = p->nslots == 1 && !t;
    if (p->direct)
        slot_query(&p->slots[0]);
    else if (start_threads(p, err, errlen))
        goto fail;
    return p;
fail:
    eval_pool_free(p);
    return NULL;
}

void eval_pool_free(gg_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nslots; i++)
        if (p->slots[i].thread)
            pthread_join(p->slots[i].th, NULL);
    for (int r = 1; p->cfg.transport && r < p->cfg.transport->size; r++)
        eval_remote_quit(p->cfg.transport, r);
    if (p->cfg.transport)
        atomic_store(&released, true);
    for (int i = 0; i < p->nslots; i++)
        eval_slot_free(&p->slots[i].dev);
    while (p->jobs) {
        job *j = p->jobs;
        p->jobs = j->next;
        free(j);
    }
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->clients);
    free(p->slots);
    free(p->problems);
    free(p);
}

/* ---- the slots ---- */

int eval_pool_nslots(const gg_pool *p) { return p->nslots; }

const gg_pool_slot *eval_pool_slot(const gg_pool *p, int i) { return &p->slots[i].s; }

char *eval_pool_slot_label(const gg_pool *p, int i, char *buf, size_t len)
{
    const gg_pool_slot *s = &p->slots[i].s;
    int nth = 1, of = 0; /* a device listed more than once: which worker */
    for (int k = 0; k < p->nslots; k++)
        if (p->slots[k].s.rank == s->rank && p->slots[k].s.device == s->device) {
            of++;
            nth += k < i;
        }
    char w[32] = "";
    if (of > 1)
        snprintf(w, sizeof w, " (worker %d)", nth);
    if (s->rank)
        snprintf(buf, len, "rank %d device %d%s", s->rank, s->device, w);
    else
        snprintf(buf, len, "device %d%s", s->device, w);
    return buf;
}

void eval_pool_slot_stats(gg_pool *p, int i, gg_pool_slot_stats *st)
{
    pthread_mutex_lock(&p->mu);
    slot *sl = &p->slots[i];
    if (p->direct)
        slot_copy_stats(sl);
    *st = sl->st;
    pthread_mutex_unlock(&p->mu);
}

gg_evaluator *eval_pool_evaluator(gg_pool *p, int slot, int problem)
{
    return p->slots[slot].s.rank ? NULL : eval_slot_made(&p->slots[slot].dev, problem);
}

bool eval_pool_warm(gg_pool *p, bool on)
{
    if (!p->direct) /* (tunes in threads of their own call it at once) */
        return false;
    eval_slot_warm(&p->slots[0].dev, on);
    return on;
}

/* ---- clients ---- */

int eval_pool_client(gg_pool *p, int problem, unsigned long long mask)
{
    pthread_mutex_lock(&p->mu);
    int id = -1;
    if (p->nclients == p->capclients) {
        int cap = p->capclients ? 2 * p->capclients : 8;
        pclient *c = realloc(p->clients, (size_t)cap * sizeof *c);
        if (c) {
            p->clients = c;
            p->capclients = cap;
        }
    }
    if (p->nclients < p->capclients) {
        id = p->nclients++;
        memset(&p->clients[id], 0, sizeof p->clients[id]);
        p->clients[id].problem = problem;
        p->clients[id].mask = mask;
    }
    pthread_mutex_unlock(&p->mu);
    return id;
}

void eval_pool_client_end(gg_pool *p, int client)
{
    pthread_mutex_lock(&p->mu);
    for (job *j = p->jobs, *nx; j; j = nx) {
        nx = j->next;
        if (j->client == client && j->state != J_RUNNING && !j->asked) {
            unlink_job(p, j);
            free(j);
        }
    }
    p->clients[client].nhints = 0;
    pthread_mutex_unlock(&p->mu);
}

void eval_pool_client_stats(gg_pool *p, int client, gg_evaluator_stats *st)
{
    pthread_mutex_lock(&p->mu);
    int q = p->clients[client].problem;
    const gg_evaluator *e = p->direct ? eval_slot_made(&p->slots[0].dev, q) : NULL;
    if (e)
        *st = *eval_evaluator_get_stats(e);
    else
        *st = p->clients[client].st;
    pthread_mutex_unlock(&p->mu);
}

void eval_pool_prefetch(gg_pool *p, int client, const gg_variant *v, int n, const gg_eval_opts *o)
{
    if (p->direct)
        return;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < n; i++) {
        job *j = add(p, client, p->clients[client].problem, -1, &v[i], o, false);
        if (j)
            j->pre = true;
    }
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

void eval_pool_hint(gg_pool *p, int client, const gg_variant *next, int n, const gg_eval_opts *o)
{
    pthread_mutex_lock(&p->mu);
    pclient *c = &p->clients[client];
    c->nhints = n < 0 ? 0 : n > GG_POOL_HINTS ? GG_POOL_HINTS : n;
    memcpy(c->hints, next, (size_t)c->nhints * sizeof *next);
    memset(&c->hint_opts, 0, sizeof c->hint_opts);
    if (o)
        c->hint_opts = *o;
    pthread_mutex_unlock(&p->mu);
}

/* ---- asking ---- */

/* The client's hints become queued jobs (those not known yet); queued
 * hinted jobs the hints no longer name are dropped. */
static void queue_hints(gg_pool *p, int cid)
{
    pclient *c = &p->clients[cid];
    for (job *j = p->jobs, *nx; j; j = nx) {
        nx = j->next;
        if (j->client != cid || j->state != J_QUEUED || j->asked || j->pre)
            continue;
        bool named = false;
        for (int i = 0; i < c->nhints && !named; i++)
            named = gen_variant_equal(&c->hints[i], &j->v);
        if (!named) {
            unlink_job(p, j);
            free(j);
        }
    }
    for (int i = 0; i < c->nhints; i++)
        if (!find(p, cid, &c->hints[i]))
            add(p, cid, c->problem, -1, &c->hints[i], &c->hint_opts, false);
    c->nhints = 0;
}

/* Waits for j (the mutex held) and takes its measurement. */
static int await(gg_pool *p, job *j, gg_measurement *out)
{
    while (j->state != J_DONE && (j->state == J_RUNNING || can_run(p, j)))
        pthread_cond_wait(&p->done, &p->mu);
    int rc;
    if (j->state == J_DONE) {
        *out = j->m;
        rc = j->rc;
    } else {
        base_measurement_init(out);
        out->status = GG_CONTEXT_LOST;
        snprintf(out->detail, sizeof out->detail, "no device is left to measure it");
        rc = -1;
    }
    unlink_job(p, j);
    free(j);
    return rc;
}

/* The slots told, then j's measurement (the mutex held); NULL: no memory. */
static int ask(gg_pool *p, job *j, gg_measurement *out)
{
    pthread_cond_broadcast(&p->work);
    if (j)
        return await(p, j, out);
    base_measurement_init(out);
    out->status = GG_CONTEXT_LOST;
    snprintf(out->detail, sizeof out->detail, "out of memory");
    return -1;
}

static int direct_eval(gg_pool *p, int problem, const pclient *c, const gg_variant *v,
                       const gg_eval_opts *o, gg_measurement *out)
{
    slot *sl = &p->slots[0];
    int nh = c ? c->nhints : 0; /* the evaluator keeps GG_EVAL_HINTS of them */
    double t0 = base_now_s();
    int rc = eval_slot_eval(&sl->dev, problem, v, o, c ? c->hints : NULL, nh, out);
    sl->st.evaluations++;
    sl->st.asked++;
    sl->st.busy_s += base_now_s() - t0;
    return rc;
}

int eval_pool_eval(gg_pool *p, int client, const gg_variant *v, const gg_eval_opts *o,
                   gg_measurement *out)
{
    if (p->direct) {
        pclient *c = &p->clients[client];
        int rc = direct_eval(p, c->problem, c, v, o, out);
        c->nhints = 0;
        return rc;
    }
    pthread_mutex_lock(&p->mu);
    job *j = find(p, client, v);
    if (j && !j->asked) {
        j->asked = true;
        if (j->state == J_DONE && j->spec)
            p->slots[j->slot].st.used++;
    }
    if (!j)
        j = add(p, client, p->clients[client].problem, -1, v, o, true);
    queue_hints(p, client);
    int rc = ask(p, j, out);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int eval_pool_eval_on(gg_pool *p, int slot, int problem, const gg_variant *v,
                      const gg_eval_opts *o, gg_measurement *out)
{
    if (p->direct)
        return direct_eval(p, problem, NULL, v, o, out);
    pthread_mutex_lock(&p->mu);
    int rc = ask(p, add(p, -1, problem, slot, v, o, true), out);
    pthread_mutex_unlock(&p->mu);
    return rc;
}
