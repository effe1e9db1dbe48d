/* GL work in child processes: see gpu.h. */
#include "eval/gpu.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cpublas.h"
#include "store/nearest.h"
#include "store/records.h"
#include "eval/browser.h"
#include "eval/isolate.h"

void eval_gpu_config(const gg_gpu *g, gg_evaluator_config *c)
{
    *c = (gg_evaluator_config){.backend = g->backend, .device = g->device, .prob = g->prob,
                               .in = g->in, .ref = g->ref, .timeout_s = g->timeout_s,
                               .max_draw_set = g->max_draw_set, .max_draw_ms = g->max_draw_ms,
                               .results = g->results};
}

/* g's evaluator, made on first use; NULL with err. */
static gg_evaluator *evaluator(gg_gpu *g, char *err, size_t errlen)
{
    if (!g->ev) {
        gg_evaluator_config c;
        eval_gpu_config(g, &c);
        g->ev = eval_evaluator_new(&c, err, errlen);
    }
    return g->ev;
}

/* g's evaluator, made on first use; false with out saying why. */
static bool ready(gg_gpu *g, gg_measurement *out)
{
    char err[256];
    if (evaluator(g, err, sizeof err))
        return true;
    base_measurement_init(out);
    out->status = GG_CONTEXT_LOST;
    snprintf(out->detail, sizeof out->detail, "%s", err);
    return false;
}

int eval_gpu_eval(void *user, const gg_variant *v, gg_measurement *out)
{
    gg_gpu *g = user;
    if (!ready(g, out))
        return -1;
    return eval_evaluator_eval(g->ev, v, NULL, out);
}

int eval_gpu_device(gg_gpu *g, gg_device_info *d, char *err, size_t errlen)
{
    return evaluator(g, err, errlen) ? eval_evaluator_device(g->ev, d, err, errlen) : -1;
}

void eval_gpu_close(gg_gpu *g)
{
    eval_evaluator_free(g->ev);
    g->ev = NULL;
}

int eval_gpu_info_all(gg_backend backend, int device, gg_ctx_info info[3], bool ok[3],
                    char *err, size_t errlen, bool *no_device)
{
    /* A worker of its own, without a problem: it only makes the contexts. */
    gg_evaluator_config c = {.backend = backend, .device = device};
    gg_evaluator *e = eval_evaluator_new(&c, err, errlen);
    if (!e)
        return -1;
    static gg_device_info d; /* big: keep it off the stack */
    int rc = eval_evaluator_device(e, &d, err, errlen);
    eval_evaluator_free(e);
    if (rc)
        return -1;
    if (no_device)
        *no_device = d.no_device;
    for (int kd = 0; kd < 3; kd++) {
        ok[kd] = d.ok[kd];
        if (ok[kd])
            info[kd] = d.info[kd];
    }
    if (d.no_device || (!ok[0] && !ok[1] && !ok[2])) {
        /* The first failure in the order compat, core, ES. */
        static const gg_ctx_kind kinds[3] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
        for (int i = 0; i < 3; i++)
            if (!ok[kinds[i]]) {
                snprintf(err, errlen, "%s", d.err[kinds[i]]);
                break;
            }
        return -1;
    }
    return 0;
}

typedef struct {
    gg_backend backend;
    int device;
    const gg_probe_opts *o;
    bool keep_progress;
} probe_job;

typedef struct {
    int ok;
    char err[512];
    gg_ctx_info info;
    gg_probe_result r;
} probe_reply;

static void probe_child(void *user, void *out, size_t outlen)
{
    const probe_job *j = user;
    probe_reply *p = out;
    (void)outlen;
    memset(p, 0, sizeof *p);
    gg_probe_opts o = *j->o;
    if (!j->keep_progress)
        o.progress = NULL; /* the parent cannot see the child's stdout order: quiet */
    if (j->backend == GG_BACKEND_BROWSER) {
        gg_browser *b = eval_browser_start(p->err, sizeof p->err);
        if (!b)
            return;
        p->info = *eval_browser_info(b);
        eval_browser_probe(b, &o, &p->r);
        eval_browser_free(b);
        p->ok = 1;
        return;
    }
    gg_ctx *ctx = host_ctx_create(j->backend, j->device, GG_CTX_CORE, p->err, sizeof p->err, NULL);
    if (!ctx)
        return;
    host_ctx_query(ctx, &p->info);
    host_probe_run(&o, &p->r);
    host_ctx_destroy(ctx);
    p->ok = 1;
}

static int probe_in_child(const probe_job *j, double timeout_s, gg_probe_result *r,
                          gg_ctx_info *info, char *err, size_t errlen)
{
    static probe_reply p;
    memset(&p, 0, sizeof p);
    char detail[256] = "";
    gg_iso_result res = eval_isolate_run(probe_child, (void *)j, &p, sizeof p, timeout_s, detail,
                                       sizeof detail);
    if (res != GG_ISO_OK) {
        snprintf(err, errlen, "probe: %s", detail[0] ? detail : "the child failed");
        return -1;
    }
    p.err[sizeof p.err - 1] = '\0';
    if (!p.ok) {
        snprintf(err, errlen, "probe: %s", p.err);
        return -1;
    }
    *r = p.r;
    if (info)
        *info = p.info;
    return 0;
}

int eval_gpu_probe(gg_backend backend, int device, const gg_probe_opts *o, double timeout_s,
                 gg_probe_result *r, char *err, size_t errlen)
{
    probe_job j = {backend, device, o, false};
    return probe_in_child(&j, timeout_s, r, NULL, err, errlen);
}

int eval_gpu_probe_card(gg_backend backend, int device, const gg_probe_opts *o, double timeout_s,
                        gg_probe_result *r, gg_ctx_info *info, char *err, size_t errlen)
{
    probe_job j = {backend, device, o, true};
    return probe_in_child(&j, timeout_s, r, info, err, errlen);
}

typedef struct {
    gg_gpu *g;
    char err[512];
} cpu_job;

static int cpu_here(void *user, gg_measurement *out)
{
    cpu_job *j = user;
    return base_cpu_sgemm(j->g->prob, j->g->in, j->g->ref, out, j->err, sizeof j->err);
}

/* cpu-dgemm: OpenBLAS's dgemm on the inputs as doubles, judged against
 * store=f64's reference (made here, for this row alone: the evaluator's
 * worker makes its own for the GPU's f64 row). */
static int cpu_dgemm_here(void *user, gg_measurement *out)
{
    cpu_job *j = user;
    gg_reference ref;
    if (base_reference_compute_store(j->g->in, j->g->prob->alpha, j->g->prob->beta, GG_STORE_F64,
                                      &ref, j->err, sizeof j->err))
        return -1;
    int rc = base_cpu_dgemm(j->g->prob, j->g->in, &ref, out, j->err, sizeof j->err);
    base_reference_free(&ref);
    return rc;
}

/* The browser's tfjs-webgl row: tf.matMul in the evaluator's page. */
static int tfjs_row(void *user, gg_measurement *out)
{
    gg_gpu *g = user;
    if (!ready(g, out))
        return -1;
    return eval_evaluator_tfjs(g->ev, false, 0, out);
}

/* tfjs-webgpu: the same with TensorFlow.js's WebGPU backend, where the page
 * has WebGPU (else the status unsupported, with the reason). */
static int tfjs_webgpu_row(void *user, gg_measurement *out)
{
    gg_gpu *g = user;
    if (!ready(g, out))
        return -1;
    return eval_evaluator_tfjs(g->ev, true, 0, out);
}

/* A model row: the model in the evaluator's page, alone or with glgemm. */
static int model_row(void *user, int model, const gg_variant *v, gg_measurement *out)
{
    gg_gpu *g = user;
    if (!ready(g, out))
        return -1;
    return eval_evaluator_model(g->ev, model, g->models == GG_MODELS_SMALL, v, 0, out);
}

int eval_gpu_bench(gg_gpu *g, const char *results_dir, const char *card, gg_bench *b,
                 gg_bench_progress progress, void *progress_user, char *err, size_t errlen)
{
    const gg_inputs *in = g->in;
    gg_variant best[GG_STORE_COUNT];
    bool have[GG_STORE_COUNT];
    char from[GG_STORE_COUNT][320];
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        char path[1024];
        store_best_path_store(path, sizeof path, results_dir, card, in->m, in->n, in->k, (gg_store)st);
        have[st] = access(path, F_OK) == 0;
        from[st][0] = '\0';
        if (have[st] && store_best_read_store(results_dir, card, in->m, in->n, in->k, (gg_store)st,
                                           &best[st], NULL, err, errlen))
            return -1;
        /* No record of this problem: the nearest recorded one's, as `best`
         * means in run and gen (store/nearest.h). */
        if (!have[st] && store_best_for(results_dir, card, in->m, in->n, in->k, st, &best[st],
                                        from[st], sizeof from[st], err, errlen) == 0)
            have[st] = true;
    }
    /* best-image: the fastest out=image variant the tuning records hold
     * (no file of its own: the tuner's best file holds the fastest of any
     * out). */
    gg_variant image;
    int found = store_records_fastest(results_dir, card, in->m, in->n, in->k, store_record_is_image_f32,
                                   NULL, &image, NULL, err, errlen);
    if (found < 0)
        return -1;
    cpu_job cj = {.g = g};
    /* With g->eval (a pool's devices) the tfjs rows alone make g's
     * evaluator: closed again below, whatever the rows did. */
    bool own_ev = g->eval && !g->ev;
    bool browser = g->backend == GG_BACKEND_BROWSER;
    gg_bench_extra x = {.es_presets = browser, .tfjs = browser ? tfjs_row : NULL,
                        .tfjs_webgpu = browser ? tfjs_webgpu_row : NULL, .tfjs_user = g,
                        .models = browser && g->models != GG_MODELS_OFF ? model_row : NULL,
                        .models_user = g, .dgemm = cpu_dgemm_here, .dgemm_user = &cj};
    /* The model rows' variant: the card's best nearest the dense model's
     * products, 512x2048x2048 (a WebGL2 card's records are all 300es). */
    gg_variant mv;
    char mfrom[320], merr[256];
    if (browser && store_best_for(results_dir, card, 512, 2048, 2048, GG_STORE_F32, &mv, mfrom,
                                  sizeof mfrom, merr, sizeof merr) == 0 &&
        mv.profile == GG_PROFILE_300ES)
        x.model_variant = &mv;
    gg_bench_recorded rec = {have[GG_STORE_F32] ? &best[GG_STORE_F32] : NULL, found ? &image : NULL,
                             have[GG_STORE_F16] ? &best[GG_STORE_F16] : NULL,
                             have[GG_STORE_F16X8] ? &best[GG_STORE_F16X8] : NULL,
                             have[GG_STORE_F64] ? &best[GG_STORE_F64] : NULL,
                             have[GG_STORE_DF] ? &best[GG_STORE_DF] : NULL};
    gg_eval_fn eval = g->eval ? g->eval : eval_gpu_eval;
    int rc = eval_bench_run_ex(b, card, in->m, in->n, in->k, &rec, eval, g->eval ? g->eval_user : g,
                               cpu_here, &cj, &x, progress, progress_user);
    if (own_ev)
        eval_gpu_close(g);
    if (rc) {
        if (cj.err[0])
            snprintf(err, errlen, "%s", cj.err);
        else
            snprintf(err, errlen, "bench stopped: no child process for a GPU row");
        return -1;
    }
    static const struct {
        int row;
        gg_store store;
    } from_rows[] = {{GG_BENCH_BEST, GG_STORE_F32},
                     {GG_BENCH_BEST_F16, GG_STORE_F16},
                     {GG_BENCH_BEST_F16X8, GG_STORE_F16X8},
                     {GG_BENCH_BEST_F64, GG_STORE_F64},
                     {GG_BENCH_BEST_DF, GG_STORE_DF}};
    for (size_t i = 0; i < sizeof from_rows / sizeof *from_rows; i++)
        snprintf(b->rows[from_rows[i].row].from, sizeof b->rows[0].from, "%s",
                 from[from_rows[i].store]);
    return 0;
}
