/* Tiles of one GEMM over several devices' threads: see split.h. */
#include "lib/split.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PENDING, TAKEN, DONE }; /* a tile's state in a run */

typedef struct {
    lib_split *s;
    int slot, device;
    pthread_t thread;
    bool started;     /* the thread was made (joined at the end) */
    void *dev;        /* the context ops->open made, NULL before or on failure */
    int opened;       /* 0 not yet, 1 opened, -1 failed */
    bool retired;
    long retired_run; /* the run it was retired in */
    long served;      /* tiles of the last run */
    char why[512];    /* why it did not open, or was retired */
} worker;

struct lib_split {
    lib_split_ops ops;
    void *user;       /* ops->open's, during lib_split_open only */
    pthread_mutex_t mu;
    pthread_cond_t work; /* for the devices' threads: a run, a tile back, the end */
    pthread_cond_t done; /* for the caller: a tile done or failed, a device opened */
    worker *w;
    int n, live;
    bool quit;
    /* The run in progress (active) or the last one. */
    long run_no;
    bool active, stop;
    int mode;
    void *job;
    int m, ncols;
    lib_grid grid;
    int ntiles, ndone, inflight;
    unsigned char *state; /* PENDING, TAKEN, DONE a tile */
    int *keep;            /* the slot a tile is kept for (its first), -1 anyone's */
    int tiles_cap;
    long cpu_served;
    int fail_rc;
    char fail_why[512];
};

/* ---- the grid ---- */

lib_grid lib_split_grid(int m, int n, int tiles)
{
    lib_grid g = {1, 1, m, n};
    for (; tiles > 1; tiles--) {
        double best = -1;
        /* more rows first: of two grids as square, the one of row blocks */
        for (int r = tiles; r >= 1; r--) {
            int c = tiles / r;
            if (r * c != tiles || r > m || c > n)
                continue;
            double cost = fabs(log(((double)m / r) / ((double)n / c)));
            if (best < 0 || cost < best - 1e-12) {
                best = cost;
                g.rows = r;
                g.cols = c;
            }
        }
        if (best >= 0)
            break;
    }
    /* h x w each (rounded up), then as many as that needs: none empty */
    g.h = (m + g.rows - 1) / g.rows;
    g.w = (n + g.cols - 1) / g.cols;
    g.rows = (m + g.h - 1) / g.h;
    g.cols = (n + g.w - 1) / g.w;
    return g;
}

int lib_grid_count(const lib_grid *g) { return g->rows * g->cols; }

lib_tile lib_grid_tile(const lib_grid *g, int m, int n, int i)
{
    int r = i / g->cols, c = i % g->cols;
    lib_tile t = {r * g->h, (r + 1) * g->h, c * g->w, (c + 1) * g->w, i};
    if (t.r1 > m)
        t.r1 = m;
    if (t.c1 > n)
        t.c1 = n;
    return t;
}

/* ---- the devices' threads ---- */

/* A pending tile for slot (its own first, else one kept for nobody), -1 none. */
static int take(const lib_split *s, int slot)
{
    int any = -1;
    for (int i = 0; i < s->ntiles; i++) {
        if (s->state[i] != PENDING)
            continue;
        if (s->keep[i] == slot)
            return i;
        if (s->keep[i] < 0 && any < 0)
            any = i;
    }
    return any;
}

/* Under the lock: slot's device is out of service, its tiles anyone's. */
static void retire(lib_split *s, worker *w, const char *why)
{
    w->retired = true;
    w->retired_run = s->run_no;
    snprintf(w->why, sizeof w->why, "%s", why);
    s->live--;
    for (int i = 0; i < s->ntiles; i++)
        if (s->keep[i] == w->slot)
            s->keep[i] = -1;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    lib_split *s = w->s;
    char why[sizeof w->why] = "";
    void *dev = s->ops.open(s->user, w->slot, w->device, why, sizeof why);
    pthread_mutex_lock(&s->mu);
    w->dev = dev;
    w->opened = dev ? 1 : -1;
    if (!dev)
        snprintf(w->why, sizeof w->why, "%s", why[0] ? why : "cannot be opened");
    pthread_cond_broadcast(&s->done);
    while (dev && !s->quit) {
        int t = s->active && !w->retired && !s->stop ? take(s, w->slot) : -1;
        if (t < 0) {
            pthread_cond_wait(&s->work, &s->mu);
            continue;
        }
        s->state[t] = TAKEN;
        s->inflight++;
        lib_tile tile = lib_grid_tile(&s->grid, s->m, s->ncols, t);
        void *job = s->job;
        int mode = s->mode;
        pthread_mutex_unlock(&s->mu);
        why[0] = '\0';
        int rc = s->ops.run(dev, w->slot, job, &tile, why, sizeof why);
        pthread_mutex_lock(&s->mu);
        s->inflight--;
        if (rc == 0) {
            s->state[t] = DONE;
            s->ndone++;
            w->served++;
        } else {
            s->state[t] = PENDING;
            s->keep[t] = -1;
            if (mode == LIB_SPLIT_STRICT) {
                if (!s->stop) {
                    s->stop = true;
                    s->fail_rc = rc;
                    snprintf(s->fail_why, sizeof s->fail_why, "%s", why);
                }
            } else {
                retire(s, w, why);
                pthread_cond_broadcast(&s->work); /* its tiles are the others' now */
            }
        }
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
    if (dev)
        s->ops.close(dev);
    return NULL;
}

/* Stops and joins the threads (closing their contexts), frees s. */
static void shut(lib_split *s)
{
    pthread_mutex_lock(&s->mu);
    s->quit = true;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->n; i++)
        if (s->w[i].started)
            pthread_join(s->w[i].thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    free(s->state);
    free(s->keep);
    free(s->w);
    free(s);
}

lib_split *lib_split_open(const int *devices, int n, const lib_split_ops *ops, void *user,
                          char *err, size_t errlen)
{
    lib_split *s = calloc(1, sizeof *s);
    worker *w = s ? calloc((size_t)n, sizeof *w) : NULL;
    if (!w) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->ops = *ops;
    s->user = user;
    s->w = w;
    s->n = n;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    for (int i = 0; i < n; i++) {
        w[i] = (worker){.s = s, .slot = i, .device = devices[i]};
        int rc = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
        w[i].started = rc == 0;
        if (rc) {
            w[i].opened = -1;
            snprintf(w[i].why, sizeof w[i].why, "no thread for it: %s", strerror(rc));
        }
    }
    pthread_mutex_lock(&s->mu);
    int bad = -1;
    for (int i = 0; i < n; i++) {
        while (!w[i].opened)
            pthread_cond_wait(&s->done, &s->mu);
        if (w[i].opened < 0 && bad < 0)
            bad = i;
    }
    s->user = NULL;
    s->live = n;
    pthread_mutex_unlock(&s->mu);
    if (bad >= 0) {
        snprintf(err, errlen, "device %d (number %d of the list): %s", w[bad].device, bad + 1,
                 w[bad].why);
        shut(s);
        return NULL;
    }
    return s;
}

void lib_split_close(lib_split *s)
{
    if (s)
        shut(s);
}

int lib_split_run(lib_split *s, int mode, void *job, int m, int n, const lib_grid *grid,
                  char *why, size_t whylen)
{
    int nt = lib_grid_count(grid);
    pthread_mutex_lock(&s->mu);
    if (nt > s->tiles_cap) {
        unsigned char *st = realloc(s->state, (size_t)nt);
        if (st)
            s->state = st;
        int *kp = st ? realloc(s->keep, (size_t)nt * sizeof *kp) : NULL;
        if (kp)
            s->keep = kp;
        if (!st || !kp) {
            pthread_mutex_unlock(&s->mu);
            snprintf(why, whylen, "out of memory for %d tiles", nt);
            return -1;
        }
        s->tiles_cap = nt;
    }
    s->run_no++;
    s->mode = mode;
    s->job = job;
    s->m = m;
    s->ncols = n;
    s->grid = *grid;
    s->ntiles = nt;
    s->ndone = 0;
    s->stop = false;
    s->fail_rc = 0;
    s->fail_why[0] = '\0';
    s->cpu_served = 0;
    memset(s->state, PENDING, (size_t)nt);
    int first = 0;
    for (int i = 0; i < s->n; i++) {
        s->w[i].served = 0;
        if (!s->w[i].retired && first < nt)
            s->keep[first++] = i;
    }
    for (int i = first; i < nt; i++)
        s->keep[i] = -1;
    s->active = true;
    pthread_cond_broadcast(&s->work);
    for (;;) {
        if (s->ndone == nt || (s->stop && s->inflight == 0))
            break;
        int t = s->live == 0 ? take(s, -1) : -1; /* no device left: this thread */
        if (t < 0) {
            pthread_cond_wait(&s->done, &s->mu);
            continue;
        }
        s->state[t] = TAKEN;
        lib_tile tile = lib_grid_tile(grid, m, n, t);
        pthread_mutex_unlock(&s->mu);
        s->ops.cpu(job, &tile);
        pthread_mutex_lock(&s->mu);
        s->state[t] = DONE;
        s->ndone++;
        s->cpu_served++;
    }
    s->active = false;
    int rc = s->ndone == nt ? 0 : s->fail_rc;
    if (rc)
        snprintf(why, whylen, "%s", s->fail_why);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int lib_split_count(const lib_split *s) { return s ? s->n : 0; }
int lib_split_live(const lib_split *s) { return s ? s->live : 0; }
int lib_split_device(const lib_split *s, int slot) { return s->w[slot].device; }
void *lib_split_dev(const lib_split *s, int slot) { return s->w[slot].dev; }

int lib_split_state(const lib_split *s, int slot)
{
    const worker *w = &s->w[slot];
    return !w->retired ? LIB_SPLIT_LIVE
           : w->retired_run == s->run_no ? LIB_SPLIT_RETIRED_NOW
                                         : LIB_SPLIT_RETIRED;
}

const char *lib_split_why(const lib_split *s, int slot)
{
    return s->w[slot].retired ? s->w[slot].why : "";
}

long lib_split_served(const lib_split *s, int slot)
{
    if (!s || slot < -1 || slot >= s->n)
        return 0;
    return slot < 0 ? s->cpu_served : s->w[slot].served;
}
