/* GL work in child processes: see gpu.h. */
#include "search/gpu.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "glhost/cpublas.h"
#include "search/records.h"
#include "search/isolate.h"

int gg_gpu_eval(void *user, const gg_variant *v, gg_measurement *out)
{
    gg_gpu *g = user;
    if (!g->ev) {
        gg_evaluator_config c = {.backend = g->backend, .device = g->device, .prob = g->prob,
                                 .in = g->in, .ref = g->ref, .timeout_s = g->timeout_s};
        char err[256];
        if (!(g->ev = gg_evaluator_new(&c, err, sizeof err))) {
            gg_measurement_init(out);
            out->status = GG_CONTEXT_LOST;
            snprintf(out->detail, sizeof out->detail, "%s", err);
            return -1;
        }
    }
    return gg_evaluator_eval(g->ev, v, NULL, out);
}

void gg_gpu_close(gg_gpu *g)
{
    gg_evaluator_free(g->ev);
    g->ev = NULL;
}

typedef struct {
    int ok;
    bool no_device;
    char err[512];
    gg_ctx_info info;
} info_reply;

typedef struct {
    gg_backend backend;
    int device;
    gg_ctx_kind kind;
} info_job;

static void info_child(void *user, void *out, size_t outlen)
{
    const info_job *j = user;
    info_reply *r = out;
    (void)outlen;
    memset(r, 0, sizeof *r);
    gg_ctx *ctx = gg_ctx_create(j->backend, j->device, j->kind, r->err, sizeof r->err,
                                &r->no_device);
    if (!ctx)
        return;
    gg_ctx_query(ctx, &r->info);
    gg_ctx_destroy(ctx);
    r->ok = 1;
}

int gg_gpu_info(gg_backend backend, int device, gg_ctx_kind kind, gg_ctx_info *info,
                char *err, size_t errlen, bool *no_device)
{
    info_job j = {backend, device, kind};
    static info_reply r; /* big: keep it off the stack */
    memset(&r, 0, sizeof r);
    char detail[256] = "";
    if (no_device)
        *no_device = false;
    gg_iso_result res = gg_isolate_run(info_child, &j, &r, sizeof r, 60.0, detail, sizeof detail);
    if (res != GG_ISO_OK) {
        snprintf(err, errlen, "making a %s context: %s", gg_ctx_kind_name(kind),
                 detail[0] ? detail : "the child failed");
        return -1;
    }
    r.err[sizeof r.err - 1] = '\0';
    if (!r.ok) {
        snprintf(err, errlen, "%s", r.err);
        if (no_device)
            *no_device = r.no_device;
        return -1;
    }
    *info = r.info;
    return 0;
}

int gg_gpu_info_all(gg_backend backend, int device, gg_ctx_info info[3], bool ok[3],
                    char *err, size_t errlen, bool *no_device)
{
    static const gg_ctx_kind kinds[3] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
    int any = 0;
    char first[512] = "";
    for (int i = 0; i < 3; i++) {
        char e[512];
        bool nd = false;
        ok[kinds[i]] = gg_gpu_info(backend, device, kinds[i], &info[kinds[i]], e, sizeof e, &nd) == 0;
        if (ok[kinds[i]]) {
            any = 1;
        } else {
            if (!first[0])
                snprintf(first, sizeof first, "%s", e);
            if (nd) {
                if (no_device)
                    *no_device = true;
                snprintf(err, errlen, "%s", e);
                return -1;
            }
        }
    }
    if (!any) {
        snprintf(err, errlen, "%s", first);
        return -1;
    }
    return 0;
}

typedef struct {
    gg_backend backend;
    int device;
    const gg_probe_opts *o;
} probe_job;

typedef struct {
    int ok;
    char err[512];
    gg_probe_result r;
} probe_reply;

static void probe_child(void *user, void *out, size_t outlen)
{
    const probe_job *j = user;
    probe_reply *p = out;
    (void)outlen;
    memset(p, 0, sizeof *p);
    gg_ctx *ctx = gg_ctx_create(j->backend, j->device, GG_CTX_CORE, p->err, sizeof p->err, NULL);
    if (!ctx)
        return;
    gg_probe_opts o = *j->o;
    o.progress = NULL; /* the parent cannot see the child's stdout order: quiet */
    gg_probe_run(&o, &p->r);
    gg_ctx_destroy(ctx);
    p->ok = 1;
}

int gg_gpu_probe(gg_backend backend, int device, const gg_probe_opts *o, double timeout_s,
                 gg_probe_result *r, char *err, size_t errlen)
{
    probe_job j = {backend, device, o};
    static probe_reply p;
    memset(&p, 0, sizeof p);
    char detail[256] = "";
    gg_iso_result res = gg_isolate_run(probe_child, &j, &p, sizeof p, timeout_s, detail,
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
    return 0;
}

typedef struct {
    gg_gpu *g;
    char err[512];
} cpu_job;

static int cpu_here(void *user, gg_measurement *out)
{
    cpu_job *j = user;
    return gg_cpu_sgemm(j->g->prob, j->g->in, j->g->ref, out, j->err, sizeof j->err);
}

int gg_gpu_bench(gg_gpu *g, const char *results_dir, const char *card, gg_bench *b,
                 gg_bench_progress progress, void *progress_user, char *err, size_t errlen)
{
    const gg_inputs *in = g->in;
    gg_variant best[GG_STORE_COUNT];
    bool have[GG_STORE_COUNT];
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        char path[1024];
        gg_best_path_store(path, sizeof path, results_dir, card, in->m, in->n, in->k, (gg_store)st);
        have[st] = access(path, F_OK) == 0;
        if (have[st] && gg_best_read_store(results_dir, card, in->m, in->n, in->k, (gg_store)st,
                                           &best[st], NULL, err, errlen))
            return -1;
    }
    cpu_job cj = {.g = g};
    if (gg_bench_run(b, card, in->m, in->n, in->k, have[GG_STORE_F32] ? &best[GG_STORE_F32] : NULL,
                     have[GG_STORE_F16] ? &best[GG_STORE_F16] : NULL, gg_gpu_eval, g, cpu_here,
                     &cj, progress, progress_user)) {
        if (cj.err[0])
            snprintf(err, errlen, "%s", cj.err);
        else
            snprintf(err, errlen, "bench stopped: no child process for a GPU row");
        return -1;
    }
    return 0;
}
