/* The evaluator, the parent's side: its worker processes, the requests
 * and their deadlines; see evaluator.h (the worker: eval/worker.c). */
#include "eval/evaluator_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/clock.h"
#include "gen/util.h"
#include "base/fault.h"
#include "glhost/run.h"
#include "store/draw.h"
#include "eval/browser.h"
#include "eval/isolate.h"

/* An unrolled shader's text grows with the work of one pass. */
static long unrolled_size(const gg_evaluator *e, const gg_variant *v)
{
    gg_layout L;
    if (!v->unroll || gen_layout_compute(v, e->cfg.in->m, e->cfg.in->n, e->cfg.in->k, &L))
        return 0;
    return L.mads_per_frag_pass;
}

/* ---- the parent's side ---- */

/* Evaluators made and not freed yet (eval_evaluator_live). */
static atomic_int live;

int eval_evaluator_live(void) { return atomic_load(&live); }

const gg_timeout_rule GG_TIMEOUT_MEASURE = {60.0, 1e8, 1800.0, true};
/* 60 s for 1024^3 multiply-adds x 10 reps: 2 x 2^30 x 10 flop in 60 s. */
const gg_timeout_rule GG_TIMEOUT_TUNE = {10.0, 1073741824.0 / 3.0, 600.0, false};

double eval_evaluator_timeout(const gg_problem *p, const gg_timeout_rule *r)
{
    double reps = (double)(p->reps > 0 ? p->reps : 1) + (r->warmup ? 1 : 0);
    double flop = 2.0 * p->m * (double)p->n * p->k * reps;
    double t = r->floor_s + flop / r->flops_per_s;
    return t < r->cap_s ? t : r->cap_s;
}

double eval_evaluator_default_timeout(const gg_problem *p)
{
    return eval_evaluator_timeout(p, &GG_TIMEOUT_MEASURE);
}

gg_evaluator *eval_evaluator_new(const gg_evaluator_config *cfg, char *err, size_t errlen)
{
    gg_evaluator *e = calloc(1, sizeof *e);
    if (!e) {
        gen_fail(err, errlen, "out of memory");
        return NULL;
    }
    atomic_fetch_add(&live, 1);
    e->cfg = *cfg;
    e->fd = -1;
    e->wfd = -1;
    if (e->cfg.timeout_s <= 0)
        e->cfg.timeout_s = cfg->prob ? eval_evaluator_default_timeout(cfg->prob) : 60.0;
    if (e->cfg.compile_timeout_s <= 0)
        e->cfg.compile_timeout_s = GG_COMPILE_TIMEOUT_S;
    if (cfg->want_c && cfg->in) {
        e->c_bytes = (size_t)cfg->in->m * (size_t)cfg->in->n * sizeof(float);
        void *p = mmap(NULL, e->c_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            gen_fail(err, errlen, "no shared memory for C (%zu bytes): %s", e->c_bytes,
                    strerror(errno));
            eval_evaluator_free(e);
            return NULL;
        }
        e->c = p;
    }
    return e;
}

/* Kills the worker's group and reaps it; *st gets its wait status. */
static void drop_worker(gg_evaluator *e, int *st)
{
    int dummy;
    if (!st)
        st = &dummy;
    *st = 0;
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
    if (e->pid > 0)
        eval_iso_kill_reap(e->pid, st);
    e->pid = 0;
}

/* Evaluators in other threads (eval/pool.h) fork too: one socketpair to
 * fork to closing the worker's end at a time, so that no worker inherits
 * another's end (its death would then not end its socket: a crash would
 * read as a hang). */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

static int fork_worker(gg_evaluator *e, bool warm, pid_t *wpid, int *wfd, char *err,
                       size_t errlen)
{
    int sv[2];
    pthread_mutex_lock(&fork_lock);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        pthread_mutex_unlock(&fork_lock);
        return gen_fail(err, errlen, "cannot make a socket for the evaluation worker: %s",
                       strerror(errno));
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        pthread_mutex_unlock(&fork_lock);
        return gen_fail(err, errlen, "cannot fork an evaluation worker: %s", strerror(errno));
    }
    if (pid == 0) {
        close(sv[0]);
        if (e->fd >= 0) /* the parent's ends of the other worker's socket */
            close(e->fd);
        if (e->wfd >= 0)
            close(e->wfd);
        eval_worker_main(e, sv[1], warm);
    }
    setpgid(pid, pid); /* also here: no race with a kill of the group */
    close(sv[1]);
    pthread_mutex_unlock(&fork_lock);
    *wpid = pid;
    *wfd = sv[0];
    return 0;
}

static int start_worker(gg_evaluator *e, char *err, size_t errlen)
{
    if (fork_worker(e, false, &e->pid, &e->fd, err, errlen))
        return -1;
    e->st.workers++;
    return 0;
}

/* ---- the warm worker ---- */

static void warm_drop(gg_evaluator *e)
{
    int st;
    if (e->wfd >= 0)
        close(e->wfd);
    if (e->wpid > 0)
        eval_iso_kill_reap(e->wpid, &st);
    e->wfd = -1;
    e->wpid = 0;
    e->wbusy = false;
}

/* Whether v was warmed or evaluated lately; else it is noted as such. */
static bool warm_seen(gg_evaluator *e, const gg_variant *v, bool note)
{
    for (int i = 0; i < e->nseen; i++)
        if (gen_variant_equal(&e->seen[i], v))
            return true;
    if (note) {
        e->seen[e->seen_at] = *v;
        e->seen_at = (e->seen_at + 1) % WARM_SEEN;
        e->nseen += e->nseen < WARM_SEEN;
    }
    return false;
}

/* Its answer, if it has one (no wait); a worker that died, or has been at
 * one variant past both deadlines, is dropped (made again when needed). */
static void warm_poll(gg_evaluator *e)
{
    int st;
    if (e->wpid > 0 && waitpid(e->wpid, &st, WNOHANG) == e->wpid) { /* reaped: gone */
        e->wpid = 0;
        warm_drop(e);
        e->st.warm_lost++;
        return;
    }
    if (e->wpid <= 0 || !e->wbusy)
        return;
    struct pollfd pfd = {e->wfd, POLLIN, 0};
    if (poll(&pfd, 1, 0) > 0) {
        reply r;
        if (eval_iso_read(e->wfd, &r, sizeof r, base_now_s() + 5.0) == 1 && r.type == MSG_WARMED) {
            e->wbusy = false;
            e->st.warm_done++;
        } else {
            warm_drop(e);
            e->st.warm_lost++;
        }
    } else if (base_now_s() - e->wsince > e->cfg.compile_timeout_s + e->cfg.timeout_s) {
        warm_drop(e);
        e->st.warm_lost++;
    }
}

/* v to the warm worker (made when there is none; one more try with a new
 * one when the old does not take it); false when none can be had. */
static bool warm_send(gg_evaluator *e, const gg_variant *v)
{
    request *w = &e->wreq;
    memset(w, 0, sizeof *w);
    w->op = OP_WARM;
    w->v = *v;
    char err[256];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (e->wpid <= 0 && fork_worker(e, true, &e->wpid, &e->wfd, err, sizeof err))
            return false; /* no warm worker: the evaluations go on without */
        if (eval_send_all(e->wfd, w, sizeof *w)) {
            e->wbusy = true;
            e->wsince = base_now_s();
            e->st.warmed++;
            return true;
        }
        warm_drop(e);
    }
    return false;
}

/* Before evaluating v: v noted, and the warm worker, when idle, given the
 * first hint it has not seen but the very next one: that one the evaluation
 * worker starts on as soon as v is done, before the warm worker could be
 * (they would compile it side by side), so the two take turns. */
static void warm_next(gg_evaluator *e, const gg_variant *v, const request *q)
{
    warm_poll(e);
    warm_seen(e, v, true);
    if (e->wbusy)
        return;
    for (int i = q->nhints > 1 ? 1 : 0; i < q->nhints; i++) {
        const gg_variant *h = &q->hints[i];
        long size = unrolled_size(e, h), limit = e->too_big[h->compiler][h->profile];
        if (size > 0 && limit > 0 && size >= limit)
            continue; /* the evaluation will not build it either */
        if (!warm_seen(e, h, false)) {
            if (warm_send(e, h))
                warm_seen(e, h, true);
            return;
        }
    }
}

int eval_evaluator_warm_pid(const gg_evaluator *e) { return e->wpid; }

void eval_evaluator_warm(gg_evaluator *e, bool on)
{
    e->warm = on && e->cfg.backend != GG_BACKEND_BROWSER; /* one browser is enough */
    if (!on)
        warm_drop(e);
}

void eval_evaluator_free(gg_evaluator *e)
{
    if (!e)
        return;
    if (e->pid > 0) {
        request q = {.op = OP_QUIT};
        int st;
        if (eval_send_all(e->fd, &q, sizeof q)) {
            /* A moment to leave on its own, then the group is killed. */
            double until = base_now_s() + 2.0;
            while (base_now_s() < until && waitpid(e->pid, &st, WNOHANG) == 0) {
                struct timespec ts = {0, 2 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
        drop_worker(e, NULL);
    }
    warm_drop(e);
    if (e->c)
        munmap(e->c, e->c_bytes);
    free(e->log);
    free(e);
    atomic_fetch_sub(&live, 1);
}

void eval_evaluator_hint(gg_evaluator *e, const gg_variant *next, int n)
{
    e->nhints = n < 0 ? 0 : n > GG_EVAL_HINTS ? GG_EVAL_HINTS : n;
    for (int i = 0; i < e->nhints; i++)
        e->hints[i] = next[i];
}

/* The worker died or hung: its status, and the worker replaced next time. */
static void lost_worker(gg_evaluator *e, gg_measurement *out, int got, bool building)
{
    int st = 0;
    drop_worker(e, &st);
    double compile_s = out->compile_s;
    base_measurement_init(out);
    out->compile_s = compile_s;
    if (got == 0) {
        out->status = building ? GG_COMPILE_TIMEOUT : GG_TIMEOUT;
        snprintf(out->detail, sizeof out->detail,
                 "%s within %.3g s: the evaluation worker was killed (SIGKILL)",
                 building ? "no program built" : "no result",
                 building ? e->cfg.compile_timeout_s : e->cfg.timeout_s);
        if (building)
            e->st.compile_timeouts++;
        else
            e->st.timeouts++;
    } else {
        out->status = GG_CONTEXT_LOST;
        eval_iso_describe_death(st, out->detail, sizeof out->detail);
        e->st.lost++;
    }
}

void eval_evaluator_stats_add(gg_evaluator_stats *s, const gg_measurement *m, double wall)
{
    s->evaluations++;
    s->wall_s += wall;
    s->compile_s += m->compile_s + m->ahead_s;
    s->upload_s += m->upload_s;
    s->run_s += m->run_s;
    s->readback_s += m->readback_s;
    s->verify_s += m->verify_s;
    if (m->program_cached)
        s->programs_cached++;
}

static void account(gg_evaluator *e, const gg_measurement *m, double wall)
{
    eval_evaluator_stats_add(&e->st, m, wall);
}

static int eval_once(gg_evaluator *e, int op, const gg_variant *v, const gg_eval_opts *o,
                     gg_measurement *out);

/* The warm worker goes on after each evaluation, whatever became of the
 * evaluation worker that paused it. */
int eval_evaluator_eval(gg_evaluator *e, const gg_variant *v, const gg_eval_opts *o,
                      gg_measurement *out)
{
    int rc = eval_once(e, OP_EVAL, v, o, out);
    if (e->wpid > 0) {
        kill(-e->wpid, SIGCONT);
        if (e->wbusy) /* its deadline does not count the reps it was stopped for */
            e->wsince += out->run_s;
    }
    return rc;
}

int eval_evaluator_tfjs(gg_evaluator *e, bool webgpu, int reps, gg_measurement *out)
{
    gg_variant v;
    gen_variant_default(&v);
    gg_eval_opts o = {.reps = reps};
    return eval_once(e, webgpu ? OP_TFJS_WEBGPU : OP_TFJS, &v, &o, out);
}

int eval_evaluator_model(gg_evaluator *e, int model, bool small, const gg_variant *v, int reps,
                         gg_measurement *out)
{
    gg_variant d;
    gen_variant_default(&d);
    gg_eval_opts o = {.reps = reps};
    e->model = model;
    e->model_small = small;
    e->model_glgemm = v != NULL;
    int rc = eval_once(e, OP_MODEL, v ? v : &d, &o, out);
    e->model_glgemm = false;
    return rc;
}

static int eval_once(gg_evaluator *e, int op, const gg_variant *v, const gg_eval_opts *o,
                     gg_measurement *out)
{
    double t0 = base_now_s();
    base_measurement_init(out);
    if (!e->cfg.prob || !e->cfg.in) {
        out->status = GG_CONTEXT_LOST;
        snprintf(out->detail, sizeof out->detail, "internal: an evaluator without a problem");
        return -1;
    }
    long eval_no = base_fault_next_eval(); /* tests only: which evaluation GLGEMM_FAULT=name:n hits */
    request *q = &e->req;
    memset(q, 0, sizeof *q);
    q->op = op;
    q->eval_no = eval_no;
    q->v = *v;
    if (o)
        q->o = *o;
    q->nhints = e->nhints;
    memcpy(q->hints, e->hints, sizeof q->hints);
    q->model = e->model;
    q->model_small = e->model_small;
    q->model_glgemm = e->model_glgemm;
    e->nhints = 0;
    if (e->warm && op == OP_EVAL) {
        warm_next(e, v, q);
        q->warm_pid = e->wpid;
    }
    e->have_c = false;
    free(e->log);
    e->log = NULL;
    long size = unrolled_size(e, v);
    long limit = e->too_big[v->compiler][v->profile];
    if (size > 0 && limit > 0 && size >= limit) {
        out->status = GG_COMPILE_TIMEOUT;
        snprintf(out->detail, sizeof out->detail,
                 "not built: an unrolled shader of %ld multiply-adds a pass (this one: %ld) already "
                 "took more than the %.3g s compile deadline with compiler=%s, profile=%s",
                 limit, size, e->cfg.compile_timeout_s, gen_compiler_name(v->compiler),
                 gen_profile_name(v->profile));
        e->st.compile_timeouts++;
        e->st.predicted++;
        account(e, out, base_now_s() - t0);
        return 0;
    }
    char err[256];
    /* A worker that died while idle shows only now: one fresh try. */
    for (int attempt = 0;; attempt++) {
        if (e->pid <= 0 && start_worker(e, err, sizeof err)) {
            out->status = GG_CONTEXT_LOST;
            snprintf(out->detail, sizeof out->detail, "%s", err);
            return -1;
        }
        if (eval_send_all(e->fd, q, sizeof *q))
            break;
        drop_worker(e, NULL);
        if (attempt) {
            out->status = GG_CONTEXT_LOST;
            snprintf(out->detail, sizeof out->detail, "the evaluation worker does not take work");
            return -1;
        }
    }
    reply r;
    /* The compile deadline, held while the worker makes a reference (which
     * has the run's deadline instead). */
    bool in_ref = false;
    double deadline = base_now_s() + e->cfg.compile_timeout_s;
    int got;
    for (;;) {
        got = eval_iso_read(e->fd, &r, sizeof r, deadline);
        if (got != 1 || (r.type != MSG_REF_START && r.type != MSG_REF_DONE))
            break;
        in_ref = r.type == MSG_REF_START;
        deadline = base_now_s() + (in_ref ? e->cfg.timeout_s : e->cfg.compile_timeout_s);
    }
    /* A variant that ends before any build (the card cannot run it, its
     * split fails, no context) sends its result first. */
    bool ended = got == 1 && r.type == MSG_DONE;
    if (!ended && (got != 1 || r.type != MSG_BUILT)) {
        lost_worker(e, out, got == 1 ? -1 : got, !in_ref);
        if (out->status == GG_COMPILE_TIMEOUT && size > 0 && (limit == 0 || size < limit))
            e->too_big[v->compiler][v->profile] = size;
        account(e, out, base_now_s() - t0);
        return 0;
    }
    out->compile_s = r.m.compile_s;
    if (!ended)
        got = eval_iso_read(e->fd, &r, sizeof r,
                            base_now_s() + (op == OP_MODEL ? GG_MODEL_TIMEOUT_S : e->cfg.timeout_s));
    if (got != 1 || r.type != MSG_DONE) {
        lost_worker(e, out, got == 1 ? -1 : got, false);
        account(e, out, base_now_s() - t0);
        return 0;
    }
    *out = r.m;
    out->detail[sizeof out->detail - 1] = '\0';
    if (e->cfg.want_log) {
        unsigned n = 0;
        char *text = NULL;
        double until = base_now_s() + 10.0;
        if (eval_iso_read(e->fd, &n, sizeof n, until) != 1 || n > (64u << 20) ||
            (n && (!(text = calloc(1, (size_t)n + 1)) || eval_iso_read(e->fd, text, n, until) != 1))) {
            free(text);
            text = NULL;
            drop_worker(e, NULL); /* out of step: a new worker next time */
        }
        free(e->log);
        e->log = text;
    }
    /* Its contexts (or its page) are gone: a new worker next time. */
    bool gone = out->status == GG_CONTEXT_LOST || out->status == GG_PAGE_CRASH;
    if (gone)
        drop_worker(e, NULL);
    e->have_c = e->c && out->passes > 0 && !gone;
    account(e, out, base_now_s() - t0);
    return 0;
}

int eval_evaluator_device(gg_evaluator *e, gg_device_info *d, char *err, size_t errlen)
{
    request *q = &e->req;
    memset(q, 0, sizeof *q);
    q->op = OP_DEVICE;
    if (e->pid <= 0 && start_worker(e, err, errlen))
        return -1;
    if (!eval_send_all(e->fd, q, sizeof *q)) {
        drop_worker(e, NULL);
        return gen_fail(err, errlen, "the evaluation worker does not take work");
    }
    device_reply *r = malloc(sizeof *r); /* large: off the stack */
    if (!r)
        return gen_fail(err, errlen, "out of memory");
    int got = eval_iso_read(e->fd, r, sizeof *r, base_now_s() + 120.0);
    if (got != 1 || r->type != MSG_DEVICE) {
        free(r);
        int st = 0;
        drop_worker(e, &st);
        if (got == 0)
            return gen_fail(err, errlen, "making the contexts took more than 120 s: the worker was "
                                        "killed");
        char why[256];
        eval_iso_describe_death(st, why, sizeof why);
        return gen_fail(err, errlen, "making the contexts: %s", why);
    }
    for (int k = 0; k < 3; k++)
        r->d.err[k][sizeof r->d.err[k] - 1] = '\0';
    *d = r->d;
    free(r);
    return 0;
}

const float *eval_evaluator_c(const gg_evaluator *e) { return e->have_c ? e->c : NULL; }

const char *eval_evaluator_log(const gg_evaluator *e) { return e->log; }

const gg_evaluator_stats *eval_evaluator_get_stats(const gg_evaluator *e) { return &e->st; }
