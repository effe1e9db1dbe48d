/* The evaluator and its worker process: see evaluator.h. */
#include "eval/evaluator.h"

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

/* An unrolled shader's text grows with the work of one pass. */
static long unrolled_size(const gg_evaluator *e, const gg_variant *v)
{
    gg_layout L;
    if (!v->unroll || gen_layout_compute(v, e->cfg.in->m, e->cfg.in->n, e->cfg.in->k, &L))
        return 0;
    return L.mads_per_frag_pass;
}

static bool send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

/* ---- the worker ---- */

typedef struct {
    const gg_evaluator *e;
    int fd;
    gg_session *s;
    const request *req;
    double ahead_s;      /* this evaluation's time building hinted programs */
    bool sync_compile;   /* starting a build took long: the driver compiles in the calling
                            thread whatever it says, so hints would only move (and waste) work */
    gg_reference refs[GG_STORE_COUNT];
    bool have_ref[GG_STORE_COUNT];
    bool have_draw;      /* draw_ms is the card's bound (store/draw.h), read once */
    double draw_ms;
    /* The browser backend (eval/browser.h): Node and its page instead of
     * contexts, started on first use; whether the inputs went; C's room. */
    gg_browser *br;
    bool br_inputs;
    float *br_c;
} worker;

/* The timed reps of an evaluation: the warm worker paused meanwhile, with
 * its process group (a glslangValidator it runs). */
static void on_timing(void *user, bool timed)
{
    const request *q = user;
    if (q->warm_pid > 0)
        kill(-q->warm_pid, timed ? SIGSTOP : SIGCONT);
}

static _Noreturn void worker_exit(int code)
{
    fflush(NULL);
    _exit(code);
}

/* A build started in the background returns at once; one that takes this
 * long compiled in the calling thread. */
#define SYNC_START_S 0.05

/* After the build: tell the parent (its compile deadline ends), then start
 * the hinted programs so the driver compiles them while this one runs. */
static void on_built(void *user, const gg_measurement *m)
{
    worker *w = user;
    reply r = {.type = MSG_BUILT, .m = *m};
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0); /* the parent is gone */
    const gg_inputs *in = w->e->cfg.in;
    gg_ctx_kind kind = host_ctx_kind_for(w->req->v.profile);
    gg_ctx_info info;
    char err[256];
    if (w->sync_compile || host_session_context(w->s, kind, &info, err, sizeof err, NULL) ||
        !info.parallel_compile)
        return;
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = w->e->cfg.max_texture_size;
    double t0 = base_now_s();
    for (int i = 0; i < w->req->nhints; i++) {
        const gg_variant *h = &w->req->hints[i];
        if (host_ctx_kind_for(h->profile) != kind || h->compiler != GG_COMPILER_GLSL)
            continue; /* the same context only (no switch mid-run); SPIR-V runs glslang here */
        double s0 = base_now_s();
        host_run_cache_prepare(host_session_cache(w->s, kind), &info, h, in->m, in->n, in->k, &o);
        if (base_now_s() - s0 > SYNC_START_S) {
            w->sync_compile = true;
            break;
        }
    }
    w->ahead_s = base_now_s() - t0;
}

/* The reference of this store, made once; NULL with the reason in err when
 * it cannot be made (out of memory: two m x n arrays of doubles).  A run
 * given no reference verifies nothing (glhost/run.h), so then nothing runs. */
/* Tells the evaluator that a long step under the run's deadline starts
 * (MSG_REF_START) or ended (MSG_REF_DONE): a reference, the browser's start,
 * the page's inputs. */
static void worker_long_step(worker *w, int type)
{
    reply r = {.type = type};
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
}

static const gg_reference *worker_ref(worker *w, gg_store store, char *err, size_t errlen)
{
    const gg_reference *given = w->e->cfg.ref;
    store = gen_store_inputs(store); /* f16x8: f16's reference (the same halves) */
    if (given && given->store == store)
        return given;
    if (!w->have_ref[store]) {
        const gg_problem *p = w->e->cfg.prob;
        worker_long_step(w, MSG_REF_START);
        int rc = base_reference_compute_store(w->e->cfg.in, p->alpha, p->beta, store,
                                              &w->refs[store], err, errlen);
        worker_long_step(w, MSG_REF_DONE);
        if (rc)
            return NULL;
        w->have_ref[store] = true;
    }
    return &w->refs[store];
}

/* The bound on one draw, seconds (0: none): the configuration's, or the
 * card's, which needs the slug of a context of that kind. */
static double worker_max_draw_s(worker *w, gg_ctx_kind kind)
{
    const gg_evaluator_config *cfg = &w->e->cfg;
    if (cfg->max_draw_set)
        return cfg->max_draw_ms / 1000.0;
    if (!w->have_draw) {
        gg_ctx_info info;
        char err[256];
        if (host_session_context(w->s, kind, &info, err, sizeof err, NULL))
            return GG_MAX_DRAW_MS_DEFAULT / 1000.0; /* no context: the run says why */
        char slug[GG_CARD_MAX];
        base_slug(info.renderer, slug, sizeof slug);
        const char *dirs[1] = {cfg->results ? cfg->results : "results"};
        w->draw_ms = store_draw_bound_ms(dirs, 1, slug, NULL, 0);
        w->have_draw = true;
    }
    return w->draw_ms / 1000.0;
}

static void worker_eval(worker *w, const request *q)
{
    const gg_evaluator *e = w->e;
    base_fault_set_eval(q->eval_no);
    gg_problem p = *e->cfg.prob;
    if (q->o.reps > 0)
        p.reps = q->o.reps;
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = e->cfg.max_texture_size;
    o.min_reps = q->o.min_reps;
    o.tight = q->o.tight;
    o.screen_s = q->o.screen_s;
    o.same_inputs = true;
    o.max_draw_s = worker_max_draw_s(w, host_ctx_kind_for(q->v.profile));
    o.built = on_built;
    o.built_user = w;
    o.timing = on_timing;
    o.timing_user = (void *)q;
    w->req = q;
    w->ahead_s = 0;
    reply r = {.type = MSG_DONE};
    char err[256] = "", rerr[200] = "";
    bool no_device = false;
    gg_run_log log = {0};
    const gg_reference *ref = worker_ref(w, q->v.store, rerr, sizeof rerr);
    if (!ref) {
        /* Unverified is never ok: the status of run.c's other host
         * allocations that fail. */
        base_measurement_init(&r.m);
        r.m.status = GG_GL_ERROR;
        snprintf(r.m.detail, sizeof r.m.detail,
                 "out of host memory: the reference of %dx%d (%.0f MiB of doubles) could not be "
                 "made (%s); not run", e->cfg.in->m, e->cfg.in->n,
                 2.0 * sizeof(double) * e->cfg.in->m * (double)e->cfg.in->n / 1048576.0, rerr);
    } else if (host_session_run(w->s, &q->v, &p, e->cfg.in, ref, &o, &r.m, e->c,
                              e->cfg.want_log ? &log : NULL, err, sizeof err, &no_device)) {
        base_measurement_init(&r.m);
        r.m.status = GG_CONTEXT_LOST;
        snprintf(r.m.detail, sizeof r.m.detail, "no context for this variant: %s", err);
    }
    r.m.ahead_s = w->ahead_s;
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
    if (e->cfg.want_log) { /* its length, then the text */
        char *text = NULL;
        size_t len = 0;
        if (log.failed) {
            FILE *f = open_memstream(&text, &len);
            if (f) {
                host_program_print_failure(&log.program, f);
                fclose(f);
            }
        }
        unsigned n = text ? (unsigned)len : 0;
        if (!send_all(w->fd, &n, sizeof n) || (n && !send_all(w->fd, text, n)))
            worker_exit(0);
        free(text);
        host_run_log_free(&log);
    }
}

/* ---- the browser backend in the worker (eval/browser.h) ---- */

/* Node, Chromium and the page, started once (and again after a crash: a
 * worker whose page died is replaced, so that is a new worker).  In an
 * evaluation the start counts against the run's deadline, not the
 * compile deadline: the messages of a reference in the making say so. */
static gg_browser *browser_up(worker *w, bool in_eval, char *err, size_t errlen)
{
    if (w->br && eval_browser_alive(w->br))
        return w->br;
    if (w->br) {
        snprintf(err, errlen, "the browser is gone");
        return NULL;
    }
    if (in_eval)
        worker_long_step(w, MSG_REF_START);
    w->br = eval_browser_start(err, errlen);
    if (in_eval)
        worker_long_step(w, MSG_REF_DONE);
    return w->br;
}

/* The problem's inputs to the page, once a browser: under the run's
 * deadline, not the compile deadline (as browser_up's start): at 4096^3
 * A and B are 128 MB through Node and the page's fetch and upload. */
static int browser_inputs(worker *w, gg_browser *br, const gg_inputs *in, char *err, size_t errlen)
{
    worker_long_step(w, MSG_REF_START);
    int rc = eval_browser_inputs(br, in, err, errlen);
    worker_long_step(w, MSG_REF_DONE);
    return rc;
}

/* OP_EVAL and OP_TFJS with the browser backend: the page runs, this
 * process judges (eval/browser.c). */
static void worker_eval_browser(worker *w, const request *q)
{
    const gg_evaluator *e = w->e;
    const gg_inputs *in = e->cfg.in;
    base_fault_set_eval(q->eval_no);
    reply r = {.type = MSG_DONE};
    base_measurement_init(&r.m);
    char err[256] = "", rerr[200] = "";
    bool tfjs = q->op == OP_TFJS || q->op == OP_TFJS_WEBGPU;
    gg_store store = tfjs ? GG_STORE_F32 : q->v.store;
    gg_browser *br = browser_up(w, true, err, sizeof err);
    const gg_reference *ref = NULL;
    if (!br) {
        r.m.status = GG_CONTEXT_LOST;
        snprintf(r.m.detail, sizeof r.m.detail, "no browser for this variant: %s", err);
    } else if (q->op == OP_EVAL && host_ctx_kind_for(q->v.profile) != GG_CTX_ES3) {
        r.m.status = GG_UNSUPPORTED;
        snprintf(r.m.detail, sizeof r.m.detail, "profile=%s: %s", gen_profile_name(q->v.profile),
                 EVAL_BROWSER_ES_ONLY);
    } else if (!w->br_c && !(w->br_c = e->c ? e->c : malloc((size_t)in->m * in->n * sizeof(float)))) {
        r.m.status = GG_GL_ERROR;
        snprintf(r.m.detail, sizeof r.m.detail, "out of host memory for C; not run");
    } else if (!w->br_inputs && browser_inputs(w, br, in, err, sizeof err)) {
        r.m.status = eval_browser_alive(br) ? GG_GL_ERROR : GG_PAGE_CRASH;
        snprintf(r.m.detail, sizeof r.m.detail, "%s", err);
    } else if (!(w->br_inputs = true) || !(ref = worker_ref(w, store, rerr, sizeof rerr))) {
        r.m.status = GG_GL_ERROR;
        snprintf(r.m.detail, sizeof r.m.detail,
                 "out of host memory: the reference could not be made (%s); not run", rerr);
    } else {
        reply built = {.type = MSG_BUILT}; /* the page builds and runs in one go: the run's deadline */
        base_measurement_init(&built.m);
        if (!send_all(w->fd, &built, sizeof built))
            worker_exit(0);
        int reps = q->o.reps > 0 ? q->o.reps : e->cfg.prob->reps;
        if (tfjs)
            eval_browser_tfjs(br, q->op == OP_TFJS_WEBGPU, e->cfg.prob, in, ref, reps, &r.m,
                              w->br_c);
        else
            eval_browser_run(br, &q->v, e->cfg.prob, in, ref, reps, &r.m, w->br_c);
        if (e->c && w->br_c != e->c && r.m.passes > 0)
            memcpy(e->c, w->br_c, (size_t)in->m * in->n * sizeof(float));
    }
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
    if (e->cfg.want_log) { /* no build log from the page */
        unsigned n = 0;
        if (!send_all(w->fd, &n, sizeof n))
            worker_exit(0);
    }
}

/* OP_MODEL: one model row in the page (no inputs, no reference). */
static void worker_model_browser(worker *w, const request *q)
{
    reply r = {.type = MSG_DONE};
    base_measurement_init(&r.m);
    char err[256] = "";
    gg_browser *br = browser_up(w, true, err, sizeof err);
    if (!br) {
        r.m.status = GG_CONTEXT_LOST;
        snprintf(r.m.detail, sizeof r.m.detail, "no browser for the model: %s", err);
    } else {
        reply built = {.type = MSG_BUILT};
        base_measurement_init(&built.m);
        if (!send_all(w->fd, &built, sizeof built))
            worker_exit(0);
        int reps = q->o.reps > 0 ? q->o.reps : 3;
        eval_browser_model(br, q->model, q->model_small, q->model_glgemm ? &q->v : NULL, reps, &r.m);
    }
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
    if (w->e->cfg.want_log) {
        unsigned n = 0;
        if (!send_all(w->fd, &n, sizeof n))
            worker_exit(0);
    }
}

static void worker_device_browser(worker *w)
{
    static device_reply r;
    memset(&r, 0, sizeof r);
    r.type = MSG_DEVICE;
    char err[256];
    gg_browser *br = browser_up(w, false, err, sizeof err);
    for (int k = 0; k < 3; k++) {
        r.d.ok[k] = br && k == GG_CTX_ES3;
        if (r.d.ok[k])
            r.d.info[k] = *eval_browser_info(br);
        else
            snprintf(r.d.err[k], sizeof r.d.err[k], "%s", br ? EVAL_BROWSER_ES_ONLY : err);
    }
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
}

/* The warm worker's one variant: built and run once, unjudged and
 * untimed, so that what the driver makes of it on the way (its program in
 * the program cache, llvmpipe's JIT code in Mesa's disk cache) is there when
 * the evaluation worker comes to it. */
static void worker_warm(worker *w, const request *q)
{
    const gg_evaluator *e = w->e;
    gg_problem p = *e->cfg.prob;
    p.reps = 1;
    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = e->cfg.max_texture_size;
    o.once = true;
    o.same_inputs = true;
    o.max_draw_s = worker_max_draw_s(w, host_ctx_kind_for(q->v.profile));
    gg_measurement m;
    char err[256];
    /* untimed, unjudged: what fails the evaluation worker meets and says */
    (void)host_session_run(w->s, &q->v, &p, e->cfg.in, NULL, &o, &m, NULL, NULL, err, sizeof err,
                           NULL);
    reply r = {.type = MSG_WARMED};
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
}

static void worker_device(worker *w)
{
    static device_reply r; /* large: off the stack */
    memset(&r, 0, sizeof r);
    r.type = MSG_DEVICE;
    static const gg_ctx_kind kinds[3] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
    for (int i = 0; i < 3; i++) {
        gg_ctx_kind k = kinds[i];
        bool nd = false;
        r.d.ok[k] = host_session_context(w->s, k, &r.d.info[k], r.d.err[k], sizeof r.d.err[k],
                                       &nd) == 0;
        r.d.no_device |= nd;
    }
    if (!send_all(w->fd, &r, sizeof r))
        worker_exit(0);
}

static _Noreturn void worker_main(const gg_evaluator *e, int fd, bool warm)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed tune leaves no worker behind */
#endif
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    if (warm) { /* a test's fault is for the evaluations; the evaluations come first */
        base_fault_off();
        setpriority(PRIO_PROCESS, 0, 10); /* its threads, made later, inherit it */
        /* It says nothing: its work only ever saves time, and what fails
         * there (a full disk for the program cache, a driver's complaint)
         * the evaluation worker meets and says itself. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 2);
            close(null);
        }
    }
    worker w = {.e = e, .fd = fd};
    static request q; /* the hook reads it during the run */
    if (e->cfg.backend == GG_BACKEND_BROWSER) {
        for (;;) {
            int got = eval_iso_read(fd, &q, sizeof q, 0);
            if (got <= 0 || q.op == OP_QUIT)
                break;
            if (q.op == OP_EVAL || q.op == OP_TFJS || q.op == OP_TFJS_WEBGPU)
                worker_eval_browser(&w, &q);
            else if (q.op == OP_MODEL)
                worker_model_browser(&w, &q);
            else if (q.op == OP_DEVICE)
                worker_device_browser(&w);
        }
        eval_browser_free(w.br); /* node ends its browser */
        close(fd);
        worker_exit(0);
    }
    w.s = host_session_new(e->cfg.backend, e->cfg.device);
    if (!w.s)
        worker_exit(121);
    for (;;) {
        int got = eval_iso_read(fd, &q, sizeof q, 0);
        if (got <= 0 || q.op == OP_QUIT)
            break;
        if (q.op == OP_TFJS || q.op == OP_TFJS_WEBGPU || q.op == OP_MODEL) { /* the browser's only */
            reply r = {.type = MSG_DONE};
            base_measurement_init(&r.m);
            r.m.status = GG_UNSUPPORTED;
            snprintf(r.m.detail, sizeof r.m.detail, "%s runs with --backend browser only",
                     q.op == OP_MODEL ? "a TensorFlow.js model" : "tf.matMul");
            if (!send_all(fd, &r, sizeof r))
                worker_exit(0);
            if (e->cfg.want_log) {
                unsigned n = 0;
                if (!send_all(fd, &n, sizeof n))
                    worker_exit(0);
            }
        } else if (q.op == OP_EVAL)
            worker_eval(&w, &q);
        else if (q.op == OP_WARM)
            worker_warm(&w, &q);
        else if (q.op == OP_DEVICE)
            worker_device(&w);
    }
    /* No teardown of the contexts: the parent may already have killed the
     * group, and the driver's exit handlers free them. */
    close(fd);
    worker_exit(0);
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
        worker_main(e, sv[1], warm);
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
        if (send_all(e->wfd, w, sizeof *w)) {
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
        if (send_all(e->fd, &q, sizeof q)) {
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
        if (send_all(e->fd, q, sizeof *q))
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
    if (!send_all(e->fd, q, sizeof *q)) {
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
