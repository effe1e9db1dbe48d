/* A serving rank through a pool of its own: see serve.h. */
#include "eval/serve.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/remote.h"
#include "gen/util.h"

typedef struct {
    gg_pool *pool;
    const gg_transport *t;
    int index;              /* the device's place in this rank's list: its slot */
    int nproblems;
    const atomic_bool *quit;
    pthread_t th;
    bool thread;
} device_server;

static int serve_eval(void *user, int problem, const gg_variant *v, const gg_eval_opts *o,
                      gg_measurement *out)
{
    device_server *d = user;
    int rc = eval_pool_eval_on(d->pool, d->index, problem, v, o, out);
    if (!eval_pool_evaluator(d->pool, d->index, problem)) { /* none could be made: say where */
        char why[sizeof out->detail];
        snprintf(why, sizeof why, "%s", out->detail);
        snprintf(out->detail, sizeof out->detail, "rank %d: %.480s", d->t->rank, why);
    }
    return rc;
}

static void *serve_main(void *arg)
{
    device_server *d = arg;
    eval_remote_serve_device(d->t, d->index, d->nproblems, d->quit, serve_eval, d);
    return NULL;
}

int eval_serve(const gg_pool_config *cfg, char *err, size_t errlen)
{
    const gg_transport *t = cfg->transport;
    if (!t || t->rank == 0 || cfg->ndevices < 1 || cfg->ndevices > GG_POOL_MAX_SLOTS)
        return gen_fail(err, errlen, "internal: eval_serve on rank 0 or without devices");
    gg_pool_config here = *cfg;
    here.transport = NULL;
    gg_pool *pool = eval_pool_new(&here, err, errlen);
    if (!pool)
        return -1;
    int n = eval_pool_nslots(pool), rc = 0;
    atomic_bool quit = false;
    device_server *ds = calloc((size_t)n, sizeof *ds);
    gg_pool_slot *slots = calloc((size_t)n, sizeof *slots);
    if (!ds || !slots) {
        rc = gen_fail(err, errlen, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        slots[i] = *eval_pool_slot(pool, i);
        ds[i] = (device_server){.pool = pool, .t = t, .index = i,
                                .nproblems = cfg->nproblems, .quit = &quit};
        if (pthread_create(&ds[i].th, NULL, serve_main, &ds[i])) {
            rc = gen_fail(err, errlen, "cannot make a thread for device %d", slots[i].device);
            goto out;
        }
        ds[i].thread = true;
    }
    if ((rc = eval_remote_hello_send(t, cfg, slots, n, err, errlen)))
        goto out;
    char host[256] = "?";
    (void)gethostname(host, sizeof host - 1); /* "?" where it has none */
    fprintf(stderr, "glgemm-mpi: rank %d (pid %ld, host %s) serves %d device%s for rank 0\n",
            t->rank, (long)getpid(), host, n, n == 1 ? "" : "s");
    eval_remote_await_quit(t);
out:
    atomic_store(&quit, true);
    for (int i = 0; ds && i < n; i++)
        if (ds[i].thread)
            pthread_join(ds[i].th, NULL);
    free(ds);
    free(slots);
    eval_pool_free(pool);
    return rc;
}
