/* A kept thread team: see pool.h. */
#include "base/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct base_pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t *thr;
    int nthr;            /* workers made */
    unsigned long round; /* bumped by each run */
    bool quit;
    /* the current run, under mu */
    base_pool_fn fn;
    void *arg;
    int tasks, next, busy;
};

/* Takes tasks until none is left; called with mu held, returns with it. */
static void take(base_pool *p)
{
    while (p->next < p->tasks) {
        int t = p->next++;
        p->busy++;
        base_pool_fn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(arg, t);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0 && p->next >= p->tasks)
            pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *vp)
{
    base_pool *p = vp;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->round == seen)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->round;
        take(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* By default the CPUs but one (the GL driver's own threads submit the
 * work the host queues), at least 2 and at most 16: on an H100's 16-CPU
 * host a 1024^3 library call was 4-6% faster with 16 threads (and 64 KiB
 * tasks) than with 8, and 15 threads 2-4% faster again, every round; a
 * 4096^3 call 0.5% (results/nvidia-h100-80gb-hbm3/library-speed/
 * threads-tasks.txt). */
#define POOL_DEFAULT_MAX 16

int base_pool_default_threads(void)
{
    const char *e = getenv("GLGEMM_THREADS");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 64)
            return (int)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;
    return n < 2 ? 2 : n > POOL_DEFAULT_MAX ? POOL_DEFAULT_MAX : (int)n;
}

base_pool *base_pool_new(int threads)
{
    if (threads <= 0)
        threads = base_pool_default_threads();
    base_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->thr = calloc((size_t)(threads > 1 ? threads - 1 : 1), sizeof *p->thr);
    if (!p->thr || pthread_mutex_init(&p->mu, NULL)) {
        free(p->thr);
        free(p);
        return NULL;
    }
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&p->thr[i], NULL, worker, p))
            break;
        p->nthr++;
    }
    return p;
}

void base_pool_free(base_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthr; i++)
        pthread_join(p->thr[i], NULL);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->thr);
    free(p);
}

int base_pool_threads(const base_pool *p) { return p ? p->nthr + 1 : 1; }

void base_pool_run(base_pool *p, int tasks, base_pool_fn fn, void *arg)
{
    if (!p || p->nthr == 0 || tasks <= 1) {
        for (int t = 0; t < tasks; t++)
            fn(arg, t);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->tasks = tasks;
    p->next = 0;
    p->busy = 0;
    p->round++;
    pthread_cond_broadcast(&p->go);
    take(p);
    while (p->busy > 0 || p->next < p->tasks)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
