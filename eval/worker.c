/* The evaluator's worker process: it makes the contexts (or starts the
 * browser), measures what the parent sends and answers on its socket; see
 * evaluator.h and evaluator_int.h. */
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

bool eval_send_all(int fd, const void *buf, size_t len)
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

/* An evaluation's answer with no build log (the page's, a refused op):
 * the reply, then a log length of 0 where the parent wants logs. */
static void reply_no_log(const gg_evaluator *e, int fd, const reply *r)
{
    unsigned n = 0;
    if (!eval_send_all(fd, r, sizeof *r) || (e->cfg.want_log && !eval_send_all(fd, &n, sizeof n)))
        worker_exit(0);
}

/* After the build: tell the parent (its compile deadline ends), then start
 * the hinted programs so the driver compiles them while this one runs. */
static void on_built(void *user, const gg_measurement *m)
{
    worker *w = user;
    reply r = {.type = MSG_BUILT, .m = *m};
    if (!eval_send_all(w->fd, &r, sizeof r))
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
    if (!eval_send_all(w->fd, &r, sizeof r))
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
    if (!eval_send_all(w->fd, &r, sizeof r))
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
        if (!eval_send_all(w->fd, &n, sizeof n) || (n && !eval_send_all(w->fd, text, n)))
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
        if (!eval_send_all(w->fd, &built, sizeof built))
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
    reply_no_log(e, w->fd, &r); /* no build log from the page */
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
        if (!eval_send_all(w->fd, &built, sizeof built))
            worker_exit(0);
        int reps = q->o.reps > 0 ? q->o.reps : 3;
        eval_browser_model(br, q->model, q->model_small, q->model_glgemm ? &q->v : NULL, reps, &r.m);
    }
    reply_no_log(w->e, w->fd, &r);
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
    if (!eval_send_all(w->fd, &r, sizeof r))
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
    if (!eval_send_all(w->fd, &r, sizeof r))
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
    if (!eval_send_all(w->fd, &r, sizeof r))
        worker_exit(0);
}

_Noreturn void eval_worker_main(const gg_evaluator *e, int fd, bool warm)
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
            reply_no_log(e, fd, &r);
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
