/* tests/stress/conc_worker.c: one process of tests/stress/conc.sh.
 *
 *   conc_api THREADS CALLS SEED     (built with -DCONC_API against libglgemm.a)
 *       THREADS threads, a glgemm context each (a new one every 4 calls,
 *       so programs come from the disk cache), CALLS glgemm_sgemm /
 *       glgemm_sgemm_variant calls each; odd threads with the library's
 *       verification off, so the double loop alone judges the raw result.
 *   conc_blas THREADS CALLS SEED    (plain, run under LD_PRELOAD=libglgemm_blas.so)
 *       THREADS threads calling sgemm_ (column-major) and cblas_sgemm (both
 *       layouts), CALLS each.
 *   conc_blas vandal DIR STOPFILE   (either build)
 *       Until STOPFILE exists: round after round over DIR's *.bin entries
 *       (each kept as first seen, whole: writers rename whole files into
 *       place), all at once torn mid-write, truncated, a byte flipped or
 *       another entry's bytes, written in place and left 20 ms, then put
 *       back for 20 ms.
 *
 * Every result against a double loop (tests/stress/conc_util.h).  One line
 * on stdout: what was checked; exit 1 on any wrong or failed call. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/stress/conc_util.h"

#ifdef CONC_API
#include "glgemm.h"
#include "glhost/progcache.h"
#else
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
#endif

typedef struct {
    int id, calls;
    uint64_t seed;
    long checked, wrong, failed;
    char why[400];
} worker;

static void note(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(worker *w, const char *fmt, ...)
{
    if (w->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof w->why, fmt, ap);
    va_end(ap);
}

/* The shapes every process draws from (odd, flat, one-wide): processes
 * and threads build the same programs at once and share their entries. */
static const int shapes[][3] = {{33, 17, 29}, {65, 100, 7}, {1, 64, 65},
                                {97, 5, 47}, {100, 100, 100}, {13, 127, 31}};
#define NSHAPES ((int)(sizeof shapes / sizeof *shapes))

static bool make_call(cu_call *c, uint64_t *s)
{
    const int *d = shapes[cu_next(s) % NSHAPES];
    return cu_make_dims(c, s, d[0], d[1], d[2]);
}

static void judge(worker *w, const cu_call *c, const char *route)
{
    long bad = cu_wrong(c);
    w->checked++;
    if (bad) {
        w->wrong++;
        char what[300];
        snprintf(what, sizeof what, "%s %c%c %dx%dx%d alpha %g beta %g ldc %d (%s)",
                 c->layout == CU_ROW ? "row" : "col", c->transa == CU_NOTRANS ? 'N' : 'T',
                 c->transb == CU_NOTRANS ? 'N' : 'T', c->m, c->n, c->k, c->alpha, c->beta,
                 c->ldc, route);
        note(w, "wrong: %s: %ld elements", what, bad);
    }
}

#ifdef CONC_API
static const char *const variants[] = {
    NULL, /* the card's choice (the records a tune beside may just have written) */
    "mrt=1x2,mc=2x2,np=8,profile=300es",
    "mrt=2x1,mc=4x1,np=4,profile=330,acc=copy",
    "mc=1x4,np=8,profile=430,out=image,blk=8x4,fetch=buffer",
};
#define NVARIANTS ((int)(sizeof variants / sizeof *variants))

static glgemm_context *open_ctx(worker *w)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        w->failed++;
        note(w, "glgemm_open: %s", glgemm_last_error());
        return NULL;
    }
    glgemm_set_crossover(g, 0);
    if (w->id % 2)
        glgemm_set_verify(g, GLGEMM_VERIFY_NONE);
    return g;
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    glgemm_context *g = NULL;
    for (int i = 0; i < w->calls; i++) {
        if (i % 4 == 0) {
            glgemm_close(g);
            if (!(g = open_ctx(w)))
                return NULL;
        }
        cu_call c;
        if (!make_call(&c, &w->seed)) {
            w->failed++;
            cu_free(&c);
            break;
        }
        const char *v = variants[(w->id + i) % NVARIANTS];
        int rc = v ? glgemm_sgemm_variant(g, v, (glgemm_layout)c.layout, (glgemm_op)c.transa,
                                          (glgemm_op)c.transb, c.m, c.n, c.k, c.alpha, c.a,
                                          c.lda, c.b, c.ldb, c.beta, c.c, c.ldc)
                   : glgemm_sgemm(g, (glgemm_layout)c.layout, (glgemm_op)c.transa,
                                  (glgemm_op)c.transb, c.m, c.n, c.k, c.alpha, c.a, c.lda, c.b,
                                  c.ldb, c.beta, c.c, c.ldc);
        if (rc) {
            w->failed++;
            note(w, "glgemm: %s (%d)", glgemm_last_error(), rc);
        } else {
            judge(w, &c, glgemm_last_route(g));
        }
        cu_free(&c);
    }
    glgemm_close(g);
    return NULL;
}
#else
static void *thread_main(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->calls; i++) {
        cu_call c;
        if (!make_call(&c, &w->seed)) {
            w->failed++;
            cu_free(&c);
            break;
        }
        /* Column-major calls alternate between the two routines. */
        if (c.layout == CU_COL && i % 2) {
            char ta = c.transa == CU_NOTRANS ? 'N' : c.transa == CU_TRANS ? 'T' : 'C';
            char tb = c.transb == CU_NOTRANS ? 'N' : c.transb == CU_TRANS ? 't' : 'c';
            sgemm_(&ta, &tb, &c.m, &c.n, &c.k, &c.alpha, c.a, &c.lda, c.b, &c.ldb, &c.beta, c.c,
                   &c.ldc);
            judge(w, &c, "sgemm_");
        } else {
            cblas_sgemm(c.layout, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.a, c.lda, c.b,
                        c.ldb, c.beta, c.c, c.ldc);
            judge(w, &c, "cblas_sgemm");
        }
        cu_free(&c);
    }
    return NULL;
}
#endif

/* ---- the vandal ---- */

typedef struct {
    char name[256];
    char *data;
    size_t len;
} entry;


static char *read_whole(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *d = malloc((size_t)st.st_size);
    if (d && read(fd, d, (size_t)st.st_size) != st.st_size) {
        free(d);
        d = NULL;
    }
    close(fd);
    *len = (size_t)st.st_size;
    return d;
}

static int vandal(const char *dir, const char *stopfile)
{
    enum { MAX = 256 };
    static entry e[MAX];
    int n = 0;
    long mangled = 0;
    char path[600];
    for (long r = 0; access(stopfile, F_OK) != 0; r++) {
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && n < MAX && (de = readdir(d)) != NULL) {
            size_t len = strlen(de->d_name);
            if (de->d_name[0] == '.' || len < 5 || len >= sizeof e[0].name ||
                strcmp(de->d_name + len - 4, ".bin"))
                continue;
            bool known = false;
            for (int i = 0; i < n && !known; i++)
                known = !strcmp(e[i].name, de->d_name);
            if (known)
                continue;
            snprintf(path, sizeof path, "%.300s/%.255s", dir, de->d_name);
            entry *x = &e[n];
            if ((x->data = read_whole(path, &x->len)) != NULL) {
                snprintf(x->name, sizeof x->name, "%s", de->d_name);
                n++;
            }
        }
        if (d)
            closedir(d);
        if (n == 0) {
            usleep(20000);
            continue;
        }
        /* Every entry mangled at once, a kind each, for 20 ms; then all
         * put back for 20 ms: about half the loads meet a mangled entry. */
        for (int i = 0; i < n; i++) {
            entry *x = &e[i];
            snprintf(path, sizeof path, "%.300s/%.255s", dir, x->name);
            switch ((r + i) % 4) {
            case 0: /* torn: the first half now, the rest when put back */
            case 1: /* truncated */
                cu_write_in_place(path, x->data, x->len / 2, 0);
                break;
            case 2: { /* a byte of the binary (at the end of the entry) */
                char *m = malloc(x->len);
                if (!m)
                    break;
                memcpy(m, x->data, x->len);
                m[x->len - 7] ^= 0x5a;
                cu_write_in_place(path, m, x->len, 0);
                free(m);
                break;
            }
            default: /* foreign: another program's whole entry */
                cu_write_in_place(path, e[(i + 1) % n].data, e[(i + 1) % n].len, 0);
                break;
            }
            mangled++;
        }
        usleep(20000);
        for (int i = 0; i < n; i++) {
            entry *x = &e[i];
            snprintf(path, sizeof path, "%.300s/%.255s", dir, x->name);
            if ((r + i) % 4 == 0) { /* the torn write goes on where it stopped */
                int fd = open(path, O_WRONLY | O_CLOEXEC);
                if (fd >= 0) {
                    size_t half = x->len / 2;
                    ssize_t w = pwrite(fd, x->data + half, x->len - half, (off_t)half);
                    (void)w;
                    close(fd);
                }
            } else {
                cu_write_in_place(path, x->data, x->len, 0);
            }
        }
        usleep(20000);
    }
    printf("vandal: %d entries mangled %ld times in place (torn, truncated, a byte flipped, "
           "another entry's), each put back\n", n, mangled);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "vandal"))
        return vandal(argv[2], argv[3]);
    if (argc != 4) {
        fprintf(stderr, "usage: %s THREADS CALLS SEED | vandal DIR STOPFILE\n", argv[0]);
        return 2;
    }
    int nt = atoi(argv[1]), calls = atoi(argv[2]);
    unsigned long long seed = strtoull(argv[3], NULL, 10);
    if (nt < 1 || nt > 64 || calls < 1)
        return 2;
    worker w[64];
    pthread_t th[64];
    for (int i = 0; i < nt; i++) {
        w[i] = (worker){.id = i, .calls = calls, .seed = seed * 1000 + (uint64_t)i};
        if (pthread_create(&th[i], NULL, thread_main, &w[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    long checked = 0, wrong = 0, failed = 0;
    for (int i = 0; i < nt; i++) {
        pthread_join(th[i], NULL);
        checked += w[i].checked;
        wrong += w[i].wrong;
        failed += w[i].failed;
        if (w[i].why[0])
            fprintf(stderr, "%s: thread %d: %s\n", argv[0], i, w[i].why);
    }
#ifdef CONC_API
    int hits, misses, writes, rejected;
    host_progcache_stats(&hits, &misses, &writes, &rejected);
    printf("api %ld: %d threads x %d calls: checked %ld wrong %ld failed %ld; cache hits %d "
           "misses %d rejected %d writes %d\n",
           (long)getpid(), nt, calls, checked, wrong, failed, hits, misses, rejected, writes);
#else
    printf("blas %ld: %d threads x %d calls: checked %ld wrong %ld failed %ld\n", (long)getpid(),
           nt, calls, checked, wrong, failed);
#endif
    return wrong || failed || checked != (long)nt * calls ? 1 : 0;
}
