/* Concurrency inside one process (docs/notes/library.md, "Threads"; the processes, the
 * drop-in and a tune at once are tests/stress/conc.sh):
 *  - threads with a context each calling glgemm_sgemm and
 *    glgemm_sgemm_variant at once: odd shapes, both layouts, transposes,
 *    alpha and beta, padded leading dimensions, a context kind switch
 *    (an ES variant) and a context closed and opened again mid-run, every
 *    result against a double loop (tests/stress/conc_util.h);
 *  - the program cache read by threads while another thread tears,
 *    truncates, corrupts and swaps its entries in place: every result
 *    right with the library's own verification off (so a wrong program
 *    would show), torn entries seen and rejected, whole ones used;
 *  - a context called from a thread other than its own fails cleanly;
 *  - atomic writes from several threads keep the process's umask and give
 *    every file its mode.
 * Each case prints its figures (threads x calls checked).  `make tsan`
 * runs this suite under ThreadSanitizer. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "glgemm.h"
#include "base/clock.h"
#include "base/fileio.h"
#include "glhost/progcache.h"
#include "tests/cli_util.h"
#include "tests/stress/conc_util.h"
#include "tests/suites.h"

/* Variants beside the card's choice: one on an ES context (the thread's
 * context changes kind), a copy-accumulating one, an image-output one,
 * one through SPIR-V (glslang; the process keeps its vertex binary). */
static const char *const other_variants[] = {
    "mrt=1x2,mc=2x2,np=8,profile=300es",
    "mrt=2x1,mc=4x1,np=4,profile=330,acc=copy",
    "mc=1x4,np=8,profile=430,out=image,blk=8x4,fetch=buffer",
    "mrt=1x4,mc=1x1,np=6,profile=330,compiler=spirv",
};
#define NOTHER ((int)(sizeof other_variants / sizeof *other_variants))

typedef struct {
    int id, calls;
    pthread_barrier_t *start;
    long checked, wrong, failed;
    char why[400];
} worker;

static void note_failure(worker *w, const char *what)
{
    if (!w->why[0])
        snprintf(w->why, sizeof w->why, "%s", what);
}

/* One call: variant NULL is glgemm_sgemm (the card's choice). */
static void one_call(worker *w, glgemm_context *g, const char *variant, cu_call *c)
{
    int rc = variant ? glgemm_sgemm_variant(g, variant, (glgemm_layout)c->layout,
                                            (glgemm_op)c->transa, (glgemm_op)c->transb, c->m,
                                            c->n, c->k, c->alpha, c->a, c->lda, c->b, c->ldb,
                                            c->beta, c->c, c->ldc)
                     : glgemm_sgemm(g, (glgemm_layout)c->layout, (glgemm_op)c->transa,
                                    (glgemm_op)c->transb, c->m, c->n, c->k, c->alpha, c->a,
                                    c->lda, c->b, c->ldb, c->beta, c->c, c->ldc);
    if (rc != GLGEMM_OK) {
        w->failed++;
        char e[400];
        snprintf(e, sizeof e, "%s: %.300s", glgemm_strerror(rc), glgemm_last_error());
        note_failure(w, e);
        return;
    }
    long bad = cu_wrong(c);
    w->checked++;
    if (bad) {
        w->wrong++;
        char e[400];
        snprintf(e, sizeof e, "%ld elements wrong: %s %c%c %dx%dx%d alpha %g beta %g (%s)", bad,
                 c->layout == CU_ROW ? "row" : "col", c->transa == CU_NOTRANS ? 'N' : 'T',
                 c->transb == CU_NOTRANS ? 'N' : 'T', c->m, c->n, c->k, c->alpha, c->beta,
                 glgemm_last_route(g));
        note_failure(w, e);
    }
}

static glgemm_context *open_for(worker *w)
{
    glgemm_context *g = glgemm_open(NULL, 0);
    if (!g) {
        w->failed++;
        note_failure(w, glgemm_last_error());
        return NULL;
    }
    glgemm_set_crossover(g, 0);
    /* Odd threads see raw GPU results (no checksums, no fallback): the
     * double loop is then the only judge. */
    if (w->id % 2)
        glgemm_set_verify(g, GLGEMM_VERIFY_NONE);
    return g;
}

static void *thread_calls(void *arg)
{
    worker *w = arg;
    uint64_t seed = 0x5eed0000u + (uint64_t)w->id;
    glgemm_context *g = open_for(w);
    pthread_barrier_wait(w->start); /* the first calls (cold programs) at once */
    for (int i = 0; i < w->calls && g; i++) {
        if (w->id == 0 && i == w->calls / 2) { /* a context ends and another starts */
            glgemm_close(g);
            if (!(g = open_for(w)))
                break;
        }
        cu_call c;
        if (!cu_make(&c, &seed, 100)) {
            w->failed++;
            note_failure(w, "out of memory");
            cu_free(&c);
            break;
        }
        /* The first call of every thread at once through SPIR-V (the
         * process's vertex binary made by several threads together); then
         * every third call another variant, the rest the card's choice. */
        const char *v = i == 0 ? other_variants[NOTHER - 1]
                        : i % 3 == 1 ? other_variants[(w->id + i) % NOTHER] : NULL;
        one_call(w, g, v, &c);
        cu_free(&c);
    }
    glgemm_close(g);
    return NULL;
}

START_TEST(conc_threads)
{
    enum { T = 4, CALLS = 9 };
    pthread_barrier_t start;
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, T), 0);
    worker w[T];
    pthread_t th[T];
    double t0 = base_now_s();
    for (int i = 0; i < T; i++) {
        w[i] = (worker){.id = i, .calls = CALLS, .start = &start};
        ck_assert_int_eq(pthread_create(&th[i], NULL, thread_calls, &w[i]), 0);
    }
    long checked = 0, wrong = 0, failed = 0;
    for (int i = 0; i < T; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        checked += w[i].checked;
        wrong += w[i].wrong;
        failed += w[i].failed;
    }
    pthread_barrier_destroy(&start);
    printf("concurrency: %d threads x %d calls at once (a context each): %ld results checked "
           "against the double loop, %ld wrong, %ld failed (%.1f s)\n",
           T, CALLS, checked, wrong, failed, base_now_s() - t0);
    for (int i = 0; i < T; i++)
        ck_assert_msg(w[i].wrong == 0 && w[i].failed == 0, "thread %d: %ld wrong, %ld failed: %s",
                      i, w[i].wrong, w[i].failed, w[i].why);
    ck_assert_int_eq(checked, T * CALLS);
}
END_TEST

/* A context stays with the thread that opened it (its GL context is left
 * current there): a call from another thread fails cleanly, C untouched,
 * and the owner's next call works. */
typedef struct {
    glgemm_context *g;
    cu_call *c;
    int rc;
} borrow;

static void *call_from_other(void *arg)
{
    borrow *b = arg;
    cu_call *c = b->c;
    b->rc = glgemm_sgemm(b->g, (glgemm_layout)c->layout, (glgemm_op)c->transa,
                         (glgemm_op)c->transb, c->m, c->n, c->k, c->alpha, c->a, c->lda, c->b,
                         c->ldb, c->beta, c->c, c->ldc);
    return NULL;
}

START_TEST(conc_context_other_thread)
{
    worker w = {.id = 0};
    glgemm_context *g = open_for(&w);
    ck_assert_msg(g != NULL, "%s", w.why);
    uint64_t seed = 77;
    cu_call c;
    ck_assert(cu_make_dims(&c, &seed, 40, 30, 20));
    borrow b = {g, &c, 0};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, call_from_other, &b), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_int_eq(b.rc, GLGEMM_ENOCONTEXT);
    ck_assert_msg(!memcmp(c.c, c.c0, c.nc * sizeof *c.c), "C written by a failed call");
    one_call(&w, g, NULL, &c);
    ck_assert_msg(w.checked == 1 && !w.wrong && !w.failed, "%s", w.why);
    cu_free(&c);
    glgemm_close(g);
}
END_TEST

/* ---- the program cache torn under readers ---- */

typedef struct {
    char *path;
    char *data;
    size_t len;
} entry;


typedef struct {
    entry *e;
    int n;
    atomic_int stop;
    long mangled;
} vandal_state;

/* Round after round over the entries: torn mid-write, truncated, a byte
 * of the binary flipped, another entry's bytes under this name; each left
 * so a moment, then the original put back. */
static void *vandal(void *arg)
{
    vandal_state *v = arg;
    for (long r = 0; !atomic_load(&v->stop); r++)
        for (int i = 0; i < v->n && !atomic_load(&v->stop); i++) {
            entry *e = &v->e[i];
            switch ((r + i) % 4) {
            case 0: /* torn: a reader may find the first half only */
                cu_write_in_place(e->path, e->data, e->len, 3000);
                break;
            case 1: /* truncated */
                cu_write_in_place(e->path, e->data, e->len / 2, 0);
                usleep(3000);
                cu_write_in_place(e->path, e->data, e->len, 0);
                break;
            case 2: { /* one byte of the binary (at the end of the entry) */
                char *d = malloc(e->len);
                if (!d)
                    break;
                memcpy(d, e->data, e->len);
                d[e->len - 7] ^= 0x5a;
                cu_write_in_place(e->path, d, e->len, 0);
                free(d);
                usleep(3000);
                cu_write_in_place(e->path, e->data, e->len, 0);
                break;
            }
            default: { /* foreign: another program's whole entry */
                const entry *o = &v->e[(i + 1) % v->n];
                cu_write_in_place(e->path, o->data, o->len, 0);
                usleep(3000);
                cu_write_in_place(e->path, e->data, e->len, 0);
                break;
            }
            }
            v->mangled++;
        }
    return NULL;
}

typedef struct {
    worker w;
    atomic_int *stop;
    atomic_long *calls;
} reader;

/* The three programs the readers run, each at its own fixed call (the
 * same shape gives the same shader, hence the same cache entry). */
static const char *cached_variant(int i) { return i == 0 ? NULL : other_variants[i - 1]; }
#define NCACHED 3

static bool cached_call(cu_call *c, int i)
{
    uint64_t seed = 0xcac4e000u + (uint64_t)i;
    return cu_make(c, &seed, 65);
}

/* A fresh context each call (a context keeps what it built): every call
 * loads its program from the disk cache, or compiles it. */
static void *reader_calls(void *arg)
{
    reader *r = arg;
    for (int it = 0; !atomic_load(r->stop); it++) {
        glgemm_context *g = glgemm_open(NULL, 0);
        if (!g) {
            r->w.failed++;
            note_failure(&r->w, glgemm_last_error());
            break;
        }
        glgemm_set_crossover(g, 0);
        glgemm_set_verify(g, GLGEMM_VERIFY_NONE); /* a wrong program would show */
        int v = (r->w.id + it) % NCACHED;
        cu_call c;
        if (cached_call(&c, v))
            one_call(&r->w, g, cached_variant(v), &c);
        cu_free(&c);
        glgemm_close(g);
        atomic_fetch_add(r->calls, 1);
    }
    return NULL;
}

static void list_entries(const char *dir, entry *e, int max, int *n)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    *n = 0;
    while (*n < max && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".bin") || de->d_name[0] == '.')
            continue;
        entry *x = &e[(*n)++];
        ck_assert_int_ne(asprintf(&x->path, "%s/%s", dir, de->d_name), -1);
        struct stat st;
        ck_assert_int_eq(stat(x->path, &st), 0);
        x->len = (size_t)st.st_size;
        x->data = malloc(x->len);
        ck_assert_ptr_nonnull(x->data);
        int fd = open(x->path, O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(read(fd, x->data, x->len), (ssize_t)x->len);
        close(fd);
    }
    closedir(d);
}

START_TEST(conc_cache_torn)
{
    enum { READERS = 3, MIN_CALLS = 60, MAX_ENTRIES = 16 };
    const double limit_s = 60;
    char dir[200];
    tu_mkdtemp(dir, sizeof dir, "conc-cache");
    setenv("GLGEMM_CACHE_DIR", dir, 1);
    host_progcache_reset();
    /* The entries, written by one context first. */
    worker w0 = {.id = 0};
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    glgemm_set_crossover(g, 0);
    for (int i = 0; i < NCACHED; i++) {
        cu_call c;
        ck_assert(cached_call(&c, i));
        one_call(&w0, g, cached_variant(i), &c);
        cu_free(&c);
    }
    glgemm_close(g);
    ck_assert_msg(w0.checked == NCACHED && !w0.wrong && !w0.failed, "%s", w0.why);
    entry e[MAX_ENTRIES];
    int n = 0;
    list_entries(dir, e, MAX_ENTRIES, &n);
    ck_assert_msg(n >= NCACHED, "%d cache entries for %d programs", n, NCACHED);

    int hits0, misses0, writes0, rejected0;
    host_progcache_stats(&hits0, &misses0, &writes0, &rejected0);
    vandal_state vs = {.e = e, .n = n};
    atomic_init(&vs.stop, 0);
    atomic_int stop;
    atomic_init(&stop, 0);
    atomic_long calls;
    atomic_init(&calls, 0);
    reader r[READERS];
    pthread_t th[READERS], vt;
    double t0 = base_now_s();
    ck_assert_int_eq(pthread_create(&vt, NULL, vandal, &vs), 0);
    for (int i = 0; i < READERS; i++) {
        r[i] = (reader){.w = {.id = i}, .stop = &stop, .calls = &calls};
        ck_assert_int_eq(pthread_create(&th[i], NULL, reader_calls, &r[i]), 0);
    }
    /* Until torn entries were met and whole ones used, after enough calls. */
    int hits = 0, misses = 0, writes = 0, rejected = 0;
    for (;;) {
        usleep(50000);
        host_progcache_stats(&hits, &misses, &writes, &rejected);
        if ((hits > hits0 && rejected > rejected0 && atomic_load(&calls) >= MIN_CALLS) ||
            base_now_s() - t0 > limit_s)
            break;
    }
    atomic_store(&stop, 1);
    long checked = 0, wrong = 0, failed = 0;
    for (int i = 0; i < READERS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        checked += r[i].w.checked;
        wrong += r[i].w.wrong;
        failed += r[i].w.failed;
    }
    atomic_store(&vs.stop, 1);
    ck_assert_int_eq(pthread_join(vt, NULL), 0);
    host_progcache_stats(&hits, &misses, &writes, &rejected);
    printf("concurrency: program cache: %d reader threads x %ld calls (a fresh context each) "
           "while a thread mangled its %d entries %ld times: %ld results checked against the "
           "double loop with the library's verification off, %ld wrong, %ld failed; %d entries "
           "loaded whole, %d rejected (torn, truncated, corrupt, foreign), %d written again "
           "(%.1f s)\n",
           READERS, (long)atomic_load(&calls), n, vs.mangled, checked, wrong, failed,
           hits - hits0, rejected - rejected0, writes - writes0, base_now_s() - t0);
    for (int i = 0; i < READERS; i++)
        ck_assert_msg(!r[i].w.wrong && !r[i].w.failed, "reader %d: %ld wrong, %ld failed: %s",
                      i, r[i].w.wrong, r[i].w.failed, r[i].w.why);
    ck_assert_msg(hits > hits0, "no whole entry was used in %.0f s", limit_s);
    ck_assert_msg(rejected > rejected0, "no mangled entry was met in %.0f s", limit_s);
    for (int i = 0; i < n; i++)
        free(e[i].path), free(e[i].data);
    tu_rm_rf(dir);
}
END_TEST

/* ---- atomic writes and the umask ---- */

typedef struct {
    const char *dir;
    int id, files, bad;
    pthread_barrier_t *start;
} writer;

static void *write_files(void *arg)
{
    writer *w = arg;
    pthread_barrier_wait(w->start);
    for (int i = 0; i < w->files; i++) {
        char path[300], err[300];
        snprintf(path, sizeof path, "%s/t%d-%d", w->dir, w->id, i);
        struct stat st;
        if (base_write_atomic(path, "x", 1, err, sizeof err) != 0 || stat(path, &st) != 0 ||
            (st.st_mode & 0777) != 0644)
            w->bad++;
    }
    return NULL;
}

/* base_write_atomic gives a new file the umask's mode.  It read the umask
 * by setting it to 0 and back, so a thread writing at the same moment made
 * a file 0666, or read the 0 and left the process's umask 0 for good (the
 * program cache, written by each thread that compiles).  Four threads x
 * 1000 files (a fraction of a second in /dev/shm; before the fix about
 * half were 0666 and the umask ended 000): every one 0644 under umask 022,
 * and the umask still 022. */
START_TEST(conc_write_atomic_mode)
{
    enum { T = 4, FILES = 1000 };
    char dir[200];
    const char *shm = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"; /* fsync costs nothing */
    snprintf(dir, sizeof dir, "%s/glgemm-conc-umask-XXXXXX", shm);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    mode_t old = umask(022);
    writer w[T];
    pthread_t th[T];
    pthread_barrier_t start;
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, T), 0);
    for (int i = 0; i < T; i++) {
        w[i] = (writer){dir, i, FILES, 0, &start};
        ck_assert_int_eq(pthread_create(&th[i], NULL, write_files, &w[i]), 0);
    }
    int bad = 0;
    for (int i = 0; i < T; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        bad += w[i].bad;
    }
    pthread_barrier_destroy(&start);
    mode_t now = umask(old);
    printf("concurrency: %d threads x %d atomic writes: %d files not 0644, umask after %03o\n", T,
           FILES, bad, (unsigned)now);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(now, 022);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_concurrency_suite(void)
{
    Suite *s = suite_create("concurrency");
    TCase *gl = tcase_create("concurrency_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 300); /* under ThreadSanitizer; about 10 s plain */
    tcase_add_test(gl, conc_threads);
    tcase_add_test(gl, conc_cache_torn);
    tcase_add_test(gl, conc_context_other_thread);
    suite_add_tcase(s, gl);
    TCase *files = tcase_create("concurrency_files");
    tcase_add_test(files, conc_write_atomic_mode);
    suite_add_tcase(s, files);
    return s;
}
