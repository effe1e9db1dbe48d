/* Fault injection (base/fault.h, tests only): each fault, injected where
 * it would really happen, gives its SPEC status; a tune goes on past it and
 * its records stay whole rows, and a library call after it uses the tuned
 * best and computes right; a full disk stops the tune with one line, no
 * torn row, and the next tune resumes.  Resource faults as they really
 * happen: the library's context lost (then made again), GL and host memory
 * running out (RLIMIT_DATA: a clear error, C untouched, never an unverified
 * ok, the next call right), the program cache on a full disk (a tmpfs in a
 * mount namespace, or RLIMIT_FSIZE): one warning, no partial entry, every
 * call right. */
#define _GNU_SOURCE /* unshare */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glgemm.h"
#include "base/fault.h"
#include "base/fileio.h"
#include "base/inputs.h"
#include "glhost/progcache.h"
#include "store/csv.h"
#include "store/records.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

/* ---- the switch itself (no GL) ---- */

static const struct {
    const char *spec;
    const char *name;
    int evals;  /* base_fault_next_eval() calls before asking */
    bool want;
} sw[] = {
    {"gl_error", "gl_error", 0, true},   {"gl_error", "gl_error", 3, true},
    {"gl_error", "crash", 0, false},     {"crash", "gl_error", 0, false},
    {"gl_error:2", "gl_error", 1, false}, {"gl_error:2", "gl_error", 2, true},
    {"gl_error:2", "gl_error", 3, false}, {"gl_error:1", "gl_error", 0, true},
    {"gl_error:0", "gl_error", 2, false}, {"gl_error:x", "gl_error", 2, false},
    {"gl_error:2x", "gl_error", 2, false}, {"gl_err", "gl_error", 0, false},
    {"gl_errorx", "gl_error", 0, false},  {"bogus", "bogus", 0, false},
    {"", "hang", 0, false},
    /* base_fault_parse (fuzz_env): digits only, no leading zero, <= 10^9 */
    {"gl_error: 2", "gl_error", 2, false}, {"gl_error:+2", "gl_error", 2, false},
    {"gl_error:02", "gl_error", 2, false}, {"gl_error:", "gl_error", 0, false},
    {"gl_error:99999999999999999999", "gl_error", 0, false},
    {"gl_error:1000000000", "gl_error", 0, false},
};

START_TEST(test_switch)
{
    /* Check forks each test: the count and the variable stay in here. */
    ck_assert_int_eq(setenv("GLGEMM_FAULT", sw[_i].spec, 1), 0);
    for (int i = 0; i < sw[_i].evals; i++)
        base_fault_next_eval();
    ck_assert_msg(base_fault(sw[_i].name) == sw[_i].want, "GLGEMM_FAULT=%s, %s after %d: want %d",
                  sw[_i].spec, sw[_i].name, sw[_i].evals, sw[_i].want);
    unsetenv("GLGEMM_FAULT");
    ck_assert(!base_fault(sw[_i].name));
}
END_TEST

/* ---- records on a full disk (no GL) ---- */

/* Every line of text parses as a record row after the header, and the text
 * ends with its newline; returns the rows; status of row i (1-based) into
 * st[i-1] where st is not NULL. */
static int whole_rows(const char *text, gg_status *st, int maxst)
{
    ck_assert_ptr_nonnull(text);
    size_t len = strlen(text);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "the file does not end in a newline");
    char *copy = strdup(text), *save = NULL;
    int rows = -1;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (rows++ < 0) {
            ck_assert_msg(store_csv_is_header(line), "first line is not the header: %s", line);
            continue;
        }
        char card[GG_CARD_MAX], perr[256];
        gg_problem p;
        base_problem_default(&p);
        gg_variant v;
        gg_measurement m;
        ck_assert_msg(store_csv_parse(line, card, sizeof card, &p, &v, &m, perr, sizeof perr) == 0,
                      "row %d does not parse (%s): %s", rows, perr, line);
        if (st && rows <= maxst)
            st[rows - 1] = m.status;
    }
    free(copy);
    return rows;
}

START_TEST(test_records_disk_full)
{
    char dir[128], err[512];
    tu_mkdtemp(dir, sizeof dir, "fault-rec");
    gg_records *r = store_records_open(dir, "card", 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    gg_variant v;
    ck_assert_int_eq(gen_variant_parse("larsen", NULL, &v, err, sizeof err), 0);
    gg_measurement m;
    base_measurement_init(&m);
    m.status = GG_OK;
    m.seconds = 0.5;
    m.gflops = 1.0;
    m.rel_err = 1e-7;
    m.passes = 1;
    ck_assert_int_eq(store_records_append(r, &v, &m, err, sizeof err), 0);
    struct stat before, after;
    ck_assert_int_eq(stat(store_records_path(r), &before), 0);

    setenv("GLGEMM_FAULT", "disk_full", 1);
    ck_assert_int_eq(store_records_append(r, &v, &m, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "No space left on device") && strstr(err, store_records_path(r)),
                  "err: %s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert_int_eq(stat(store_records_path(r), &after), 0);
    ck_assert_int_eq((int)after.st_size, (int)before.st_size); /* the half row was cut off */
    unsetenv("GLGEMM_FAULT");

    ck_assert_int_eq(store_records_append(r, &v, &m, err, sizeof err), 0); /* space again */
    char *text = tu_read(store_records_path(r));
    ck_assert_int_eq(whole_rows(text, NULL, 0), 2);
    free(text);
    store_records_close(r);
    tu_rm_rf(dir);
}
END_TEST

/* One measurement of nv-single, the row the full-disk cases append. */
static void fill_row(gg_variant *v, gg_measurement *m)
{
    char err[256];
    ck_assert_msg(gen_variant_parse("nv-single", NULL, v, err, sizeof err) == 0, "%s", err);
    base_measurement_init(m);
    m->status = GG_OK;
    m->seconds = 0.123456789;
    m->gflops = 1.23456789;
    m->rel_err = 1.23456789e-7;
    m->passes = 1;
}

/* Enters a mount namespace of this test's own (Check forks each test), as
 * root or, not root, inside a user namespace of its own; the mount is gone
 * with the process whatever happens.  0, or -1 with the reason in why. */
static int own_mount_namespace(char *why, size_t whylen)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (uid != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        snprintf(why, whylen, "not root, and no user namespace: unshare: %s", strerror(errno));
        return -1;
    }
    if (uid == 0 && unshare(CLONE_NEWNS) != 0) {
        snprintf(why, whylen, "unshare(CLONE_NEWNS): %s", strerror(errno));
        return -1;
    }
    if (uid != 0) {
        char map[64];
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        FILE *f = fopen("/proc/self/setgroups", "w");
        if (f) {
            fputs("deny", f);
            fclose(f);
        }
        const char *files[2] = {"/proc/self/uid_map", "/proc/self/gid_map"};
        for (int i = 0; i < 2; i++) {
            if (i == 1)
                snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
            f = fopen(files[i], "w");
            if (!f || fputs(map, f) < 0 || fclose(f) != 0) {
                snprintf(why, whylen, "cannot write %s: %s", files[i], strerror(errno));
                return -1;
            }
        }
    }
    /* Nothing mounted here reaches the namespace this came from. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        snprintf(why, whylen, "cannot make the mounts private: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The same on a real full disk: a 4 KiB tmpfs, mounted in a mount namespace
 * of the test's own (root, or a user namespace where the kernel lends one;
 * skipped with the reason printed where neither is there: the next case
 * makes the kernel's short write without either).  The row that crosses
 * into a page the disk does not have is written short by the kernel and cut
 * off again. */
START_TEST(test_records_real_full_disk)
{
    char dir[128], err[512], why[256];
    tu_mkdtemp(dir, sizeof dir, "fault-tmpfs");
    if (own_mount_namespace(why, sizeof why) != 0 ||
        (mount("tmpfs", dir, "tmpfs", 0, "size=4k") != 0 &&
         snprintf(why, sizeof why, "cannot mount a tmpfs: %s", strerror(errno)) > 0)) {
        fprintf(stderr, "fault: real full-disk case skipped: %s\n", why);
        tu_rm_rf(dir);
        return;
    }
    gg_records *r = store_records_open(dir, "card", 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    gg_variant v;
    gg_measurement m;
    fill_row(&v, &m);
    int appended = 0, rc = 0;
    while (appended < 1000 && (rc = store_records_append(r, &v, &m, err, sizeof err)) == 0)
        appended++;
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(appended > 5 && strstr(err, "No space left on device"), "after %d: %s", appended,
                  err);
    char *text = tu_read(store_records_path(r));
    ck_assert_int_eq(whole_rows(text, NULL, 0), appended); /* no part of the failed row */
    free(text);
    ck_assert_msg(mount("tmpfs", dir, "tmpfs", MS_REMOUNT, "size=64k") == 0, "remount: %s",
                  strerror(errno));
    ck_assert_msg(store_records_append(r, &v, &m, err, sizeof err) == 0, "%s", err);
    text = tu_read(store_records_path(r));
    ck_assert_int_eq(whole_rows(text, NULL, 0), appended + 1);
    free(text);
    store_records_close(r);
    ck_assert_msg(umount(dir) == 0, "umount %s: %s", dir, strerror(errno));
    tu_rm_rf(dir);
}
END_TEST

/* A real short write without root or a namespace: the file size limit
 * (RLIMIT_FSIZE, SIGXFSZ ignored) set mid-row, in a child (the limit would
 * catch Check's own message file too).  The kernel writes the row up to the
 * limit; the append reports a full disk and cuts the part off again; with
 * the limit gone the next append is whole. */
START_TEST(test_records_file_size_limit)
{
    char dir[128], err[512];
    tu_mkdtemp(dir, sizeof dir, "fault-fsize");
    gg_records *r = store_records_open(dir, "card", 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    gg_variant v;
    gg_measurement m;
    fill_row(&v, &m);
    struct stat s0, s1;
    ck_assert_int_eq(stat(store_records_path(r), &s0), 0);
    ck_assert_msg(store_records_append(r, &v, &m, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(stat(store_records_path(r), &s1), 0);
    off_t row = s1.st_size - s0.st_size;
    ck_assert_int_gt(row, 10);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* Three more rows fit; the fourth stops half-way. */
        close(fds[0]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl;
        getrlimit(RLIMIT_FSIZE, &rl);
        rl.rlim_cur = (rlim_t)(s1.st_size + 3 * row + row / 2);
        char msg[600];
        int appended = 0, rc = 0;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
            snprintf(err, sizeof err, "setrlimit: %s", strerror(errno));
            rc = 1;
        }
        while (rc == 0 && appended < 100 && (rc = store_records_append(r, &v, &m, err, sizeof err)) == 0)
            appended++;
        int n = snprintf(msg, sizeof msg, "%d %d %s", rc, appended, err);
        ssize_t ignored = write(fds[1], msg, (size_t)n);
        (void)ignored;
        _exit(0);
    }
    close(fds[1]);
    char msg[600] = "";
    ssize_t got = read(fds[0], msg, sizeof msg - 1);
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0, "the child: %d",
                  status);
    msg[got] = '\0';
    int rc = 0, appended = 0, used = 0;
    ck_assert_int_eq(sscanf(msg, "%d %d %n", &rc, &appended, &used), 2);
    ck_assert_msg(rc == -1 && appended == 3, "rc %d after %d rows: %s", rc, appended, msg + used);
    ck_assert_msg(strstr(msg + used, "No space left on device") &&
                      !strstr(msg + used, "could not be cut off"),
                  "%s", msg + used);
    char *text = tu_read(store_records_path(r));
    ck_assert_int_eq(whole_rows(text, NULL, 0), 4); /* no part of the failed row */
    free(text);
    ck_assert_msg(store_records_append(r, &v, &m, err, sizeof err) == 0, "%s", err);
    text = tu_read(store_records_path(r));
    ck_assert_int_eq(whole_rows(text, NULL, 0), 5);
    free(text);
    store_records_close(r);
    tu_rm_rf(dir);
}
END_TEST

/* ---- glgemm run with a fault: its status, exit 1 ---- */

static const char *const run_variants[] = {
    "larsen", "acc=copy,profile=120", "mrt=2x2,acc=blend,profile=300es",
};

static const struct {
    const char *fault;
    const char *status; /* the row's status (run's GEMM runs in the evaluator's worker) */
    int exit;
} run_cases[] = {
    {"gl_error", "gl_error", 1},
    {"fbo_incomplete", "fbo_incomplete", 1},
    {"wrong_result", "wrong_result", 1},
    {"gl_error:2", "ok", 0}, /* run is evaluation 1: a fault for the 2nd does not fire */
    {"crash", "context_lost", 1}, /* the worker died: a status, not a dead run */
    {"no_memory", "gl_error", 1}, /* no reference: not run, never an unverified ok */
};

START_TEST(test_run_fault)
{
    int nv = (int)(sizeof run_variants / sizeof *run_variants);
    const char *variant = run_variants[_i % nv];
    int c = _i / nv;
    char dir[128], env[64], args[256];
    tu_mkdtemp(dir, sizeof dir, "fault-run");
    snprintf(env, sizeof env, "GLGEMM_FAULT=%s", run_cases[c].fault);
    snprintf(args, sizeof args, "run '%s' --size 17 --reps 1 --csv", variant);
    char *out, *err;
    int rc = tu_run(dir, env, args, &out, &err);
    ck_assert_msg(rc == run_cases[c].exit, "%s, %s: exit %d, want %d; stderr: %s",
                  run_cases[c].fault, variant, rc, run_cases[c].exit, err);
    gg_status st[1] = {GG_STATUS_COUNT};
    ck_assert_int_eq(whole_rows(out, st, 1), 1);
    ck_assert_msg(!strcmp(base_status_name(st[0]), run_cases[c].status), "%s, %s: status %s",
                  run_cases[c].fault, variant, base_status_name(st[0]));
    if (run_cases[c].exit)
        ck_assert_msg(strstr(err, run_cases[c].status) != NULL, "stderr: %s", err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST


/* ---- the library after a fault ---- */

typedef struct {
    int m, n, k;
    float *a, *b, *c;
} lprob;

#define SENTINEL 7.0f /* C before a call: a failed call leaves it */

static lprob lprob_make(int m, int n, int k, uint64_t seed)
{
    lprob p = {m, n, k, malloc(sizeof(float) * (size_t)m * k), malloc(sizeof(float) * (size_t)k * n),
               malloc(sizeof(float) * (size_t)m * n)};
    ck_assert(p.a && p.b && p.c);
    base_fill_uniform(p.a, (size_t)m * k, seed, 0);
    base_fill_uniform(p.b, (size_t)k * n, seed, 1);
    for (size_t i = 0; i < (size_t)m * n; i++)
        p.c[i] = SENTINEL;
    return p;
}

static void lprob_free(lprob *p) { free(p->a), free(p->b), free(p->c); }

/* C = A B (row-major, beta 0) on the GPU: variant, or the chosen one. */
static int lcall(glgemm_context *g, const char *variant, lprob *p)
{
    for (size_t i = 0; i < (size_t)p->m * p->n; i++)
        p->c[i] = SENTINEL;
    if (variant)
        return glgemm_sgemm_variant(g, variant, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS,
                                    p->m, p->n, p->k, 1, p->a, p->k, p->b, p->n, 0, p->c, p->n);
    return glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, p->m, p->n, p->k, 1,
                        p->a, p->k, p->b, p->n, 0, p->c, p->n);
}

/* Elements of C beyond SPEC's bound from the double product. */
static long lprob_wrong(const lprob *p)
{
    long bad = 0;
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            double r = 0, sc = 0;
            for (int q = 0; q < p->k; q++) {
                double x = (double)p->a[(size_t)i * p->k + q] * p->b[(size_t)q * p->n + j];
                r += x;
                sc += fabs(x);
            }
            bad += !(fabs(p->c[(size_t)i * p->n + j] - r) <= p->k * ldexp(1, -23) * sc + 1e-30);
        }
    return bad;
}

static bool lprob_untouched(const lprob *p)
{
    for (size_t i = 0; i < (size_t)p->m * p->n; i++)
        if (p->c[i] != SENTINEL)
            return false;
    return true;
}

/* A call that must work: right, on the GPU, by route (a prefix) when given. */
static void lcall_ok(glgemm_context *g, const char *variant, lprob *p, const char *route)
{
    int rc = lcall(g, variant, p);
    ck_assert_msg(rc == GLGEMM_OK, "%s: %s: %s", variant ? variant : "(chosen)",
                  glgemm_strerror(rc), glgemm_last_error());
    ck_assert_int_eq(lprob_wrong(p), 0);
    const char *r = glgemm_last_route(g);
    ck_assert_msg(!strncmp(r, "gpu ", 4) && (!route || !strncmp(r + 4, route, strlen(route))),
                  "route '%s', want 'gpu %s'", r, route ? route : "");
}

/* The library's own surroundings under dir: a cache, no records but
 * GLGEMM_RESULTS (results), no per-user records, the GPU whatever the
 * size, no fault. */
static void lib_env(const char *dir, const char *results)
{
    char path[300];
    snprintf(path, sizeof path, "%s/cache", dir);
    setenv("GLGEMM_CACHE_DIR", path, 1);
    snprintf(path, sizeof path, "%s/%s", dir, results ? results : "no-records");
    setenv("GLGEMM_RESULTS", path, 1);
    snprintf(path, sizeof path, "%s/data", dir);
    setenv("XDG_DATA_HOME", path, 1);
    setenv("GLGEMM_CROSSOVER", "0", 1);
    unsetenv("GLGEMM_FAULT");
    host_progcache_reset();
}

/* After a tune into dir/res: the best file's variant is the one a new
 * library context uses for 16^3, and it computes right. */
static void library_uses_best(const char *dir, const char *best_path, unsigned seed)
{
    char best[GG_VARIANT_TEXT] = "";
    char *bt = tu_read(best_path);
    ck_assert_msg(bt && sscanf(bt, "%199s", best) == 1, "no best file %s", best_path);
    free(bt);
    lib_env(dir, "res");
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    lprob p = lprob_make(16, 16, 16, seed);
    lcall_ok(g, NULL, &p, best);
    lprob_free(&p);
    glgemm_close(g);
}


/* ---- glgemm tune with a fault on its 2nd evaluation: it goes on ---- */

#define TUNE_ARGS "tune --size 16 --reps 1 --search random --budget 4 --timeout 3 --results res"

static const struct {
    const char *fault;
    const char *status;
    const char *detail; /* part of the progress line on stderr */
} tune_cases[] = {
    {"hang:2", "timeout", "killed (SIGKILL)"},
    {"crash:2", "context_lost", "signal 11"},
    {"gl_error:2", "gl_error", "GL_INVALID_ENUM"},
    {"fbo_incomplete:2", "fbo_incomplete", "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT"},
    {"wrong_result:2", "wrong_result", "beyond the bound"},
    {"lose_context:2", "context_lost", "the context was reset"},
};

static char *records_text(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/res/llvmpipe/tune-16x16x16.csv", dir);
    return tu_read(path);
}

START_TEST(test_tune_fault)
{
    char dir[128], env[64];
    tu_mkdtemp(dir, sizeof dir, "fault-tune");
    snprintf(env, sizeof env, "GLGEMM_FAULT=%s", tune_cases[_i].fault);
    char *out, *err;
    int rc = tu_run(dir, env, TUNE_ARGS, &out, &err);
    ck_assert_msg(rc == 0, "%s: exit %d; stderr: %s", tune_cases[_i].fault, rc, err);
    char line[256];
    snprintf(line, sizeof line, ": %s: ", tune_cases[_i].status);
    ck_assert_msg(strstr(err, line) && strstr(err, tune_cases[_i].detail), "stderr: %s", err);
    ck_assert_msg(strstr(out, "best: mrt="), "stdout: %s", out);
    char *text = records_text(dir);
    ck_assert_msg(text != NULL, "no records");
    gg_status st[8];
    int rows = whole_rows(text, st, 8);
    ck_assert_int_ge(rows, 4); /* the budget, then the presets not among them */
    for (int i = 0; i < rows && i < 8; i++) {
        const char *want = i == 1 ? tune_cases[_i].status : "ok";
        ck_assert_msg(!strcmp(base_status_name(st[i]), want), "%s: row %d is %s, want %s",
                      tune_cases[_i].fault, i + 1, base_status_name(st[i]), want);
    }
    /* The next library call: the tuned best, computed right. */
    char path[256];
    snprintf(path, sizeof path, "%s/res/llvmpipe/best-16x16x16.txt", dir);
    library_uses_best(dir, path, 5);
    free(text);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST

/* A full disk at the 2nd row: one line, exit 1, whole rows; then a tune
 * without the fault resumes from them and completes. */
START_TEST(test_tune_disk_full)
{
    char dir[128];
    tu_mkdtemp(dir, sizeof dir, "fault-disk");
    char *out, *err;
    int rc = tu_run(dir, "GLGEMM_FAULT=disk_full:2", TUNE_ARGS, &out, &err);
    ck_assert_msg(rc == 1, "exit %d; stderr: %s", rc, err);
    const char *stop = strstr(err, "glgemm tune: stopped: cannot append to ");
    ck_assert_msg(stop && strstr(stop, "tune-16x16x16.csv: No space left on device\n"),
                  "stderr: %s", err);
    ck_assert_int_eq(tu_count_lines(stop), 1);
    char *text = records_text(dir);
    gg_status st[1];
    ck_assert_int_eq(whole_rows(text, st, 1), 1); /* the first row, whole; no half row */
    ck_assert_int_eq(st[0], GG_OK);
    free(text);
    free(out);
    free(err);

    rc = tu_run(dir, NULL, TUNE_ARGS, &out, &err);
    ck_assert_msg(rc == 0, "resume: exit %d; stderr: %s", rc, err);
    ck_assert_msg(strstr(err, "resuming: 1 variants already in"), "stderr: %s", err);
    ck_assert_msg(strstr(out, "3 measured now, 1 from the records"), "stdout: %s", out);
    text = records_text(dir);
    gg_status all[8];
    int rows = whole_rows(text, all, 8);
    ck_assert_int_ge(rows, 4);
    for (int i = 0; i < rows && i < 8; i++)
        ck_assert_msg(all[i] == GG_OK, "row %d: %s", i + 1, base_status_name(all[i]));
    free(text);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST


/* ---- resource faults through the library and glgemm run ---- */

/* The library's context lost mid-call (a reset): the call fails with the
 * status and leaves C as it was; the next call makes the context again and
 * computes right.  The tuned best (a record) that was running when the
 * context went stays the one chosen: a reset is not the variant's fault. */
START_TEST(test_lib_lost_context)
{
    char dir[128], path[300];
    tu_mkdtemp(dir, sizeof dir, "fault-lost");
    lib_env(dir, "res");
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    const char *rec = "mrt=2x2,mc=1x4,np=2,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32";
    snprintf(path, sizeof path, "%s/res/%s", dir, glgemm_card(g));
    char err[256];
    ck_assert_msg(base_mkdirs(path, err, sizeof err) == 0, "%s", err);
    snprintf(path, sizeof path, "%s/res/%s/best-37x29x41.txt", dir, glgemm_card(g));
    char text[300];
    snprintf(text, sizeof text, "%s\ngflops: 1\n", rec);
    tu_write(path, text);
    lprob p = lprob_make(37, 29, 41, 11);
    lcall_ok(g, NULL, &p, rec);
    lcall_ok(g, "larsen", &p, "mrt=1x1,mc=1x1");

    setenv("GLGEMM_FAULT", "lose_context", 1);
    int rc = lcall(g, "larsen", &p);
    ck_assert_msg(rc == GLGEMM_EGPU && strstr(glgemm_last_error(), "context_lost") &&
                      strstr(glgemm_last_error(), "reset"),
                  "rc %d: %s", rc, glgemm_last_error());
    ck_assert(lprob_untouched(&p));
    rc = lcall(g, NULL, &p); /* the record, then the default: both lost */
    ck_assert_msg(rc == GLGEMM_EGPU && strstr(glgemm_last_error(), "context_lost") &&
                      strstr(glgemm_last_error(), "then the default"),
                  "rc %d: %s", rc, glgemm_last_error());
    ck_assert(lprob_untouched(&p));
    unsetenv("GLGEMM_FAULT");

    lcall_ok(g, "larsen", &p, "mrt=1x1,mc=1x1");
    lcall_ok(g, NULL, &p, rec); /* still the record, not the default */
    glgemm_close(g);
    lprob_free(&p);
    tu_rm_rf(dir);
}
END_TEST

/* Whether a sanitizer (or valgrind) runs: they reserve vast shadow memory
 * that a limit on the data segment would refuse. */
static bool sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#else
    return getenv("ASAN_OPTIONS") || getenv("GLGEMM_VALGRIND");
#endif
}

/* The limit on the data segment (RLIMIT_DATA: heap and private mappings,
 * where llvmpipe keeps its textures too) cut to the process's use now plus
 * room MiB; old into *old.  False (nothing done) under a sanitizer. */
static bool limit_data(long room_mib, struct rlimit *old)
{
    if (sanitized())
        return false;
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmData:", 7))
            kib = atol(line + 7);
    if (f)
        fclose(f);
    ck_assert_int_gt(kib, 0);
    ck_assert_int_eq(getrlimit(RLIMIT_DATA, old), 0);
    struct rlimit lo = *old;
    lo.rlim_cur = (rlim_t)kib * 1024 + (rlim_t)room_mib * 1048576;
    ck_assert_int_eq(setrlimit(RLIMIT_DATA, &lo), 0);
    return true;
}

/* GL and host memory running out under a 4096 x 4096 GEMM in the library
 * (RLIMIT_DATA at the use now plus 16 to 160 MiB: the library's result
 * buffer, then the render targets, do not fit): each call fails with a
 * code and a line, C untouched; with the limit back, the next calls in the
 * same context (that variant, the chosen one) compute right. */
START_TEST(test_lib_out_of_memory)
{
    char dir[128];
    tu_mkdtemp(dir, sizeof dir, "fault-oom");
    lib_env(dir, NULL);
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    const char *v = "mrt=1x1,mc=2x2,np=all,profile=330";
    lprob small = lprob_make(33, 35, 37, 3);
    lcall_ok(g, v, &small, "mrt=1x1,mc=2x2");
    lprob huge = lprob_make(4096, 4096, 4, 4);
    static const long room[] = {16, 96, 160};
    for (int i = 0; i < (int)(sizeof room / sizeof *room); i++) {
        struct rlimit old;
        if (!limit_data(room[i], &old)) {
            fprintf(stderr, "fault: out-of-memory case skipped under a sanitizer or valgrind\n");
            break;
        }
        int rc = lcall(g, i == 2 ? NULL : v, &huge);
        ck_assert_int_eq(setrlimit(RLIMIT_DATA, &old), 0);
        const char *e = glgemm_last_error();
        ck_assert_msg(rc == GLGEMM_ENOMEM || rc == GLGEMM_EGPU, "room %ld MiB: rc %d: %s", room[i], rc,
                      e);
        ck_assert_msg(strstr(e, "out of memory") || strstr(e, "out of host memory") ||
                          strstr(e, "GL_OUT_OF_MEMORY") || strstr(e, "GL_FRAMEBUFFER_UNSUPPORTED"),
                      "room %ld MiB: %s", room[i], e);
        ck_assert_ptr_null(strchr(e, '\n'));
        ck_assert_msg(lprob_untouched(&huge), "room %ld MiB: C written", room[i]);
        lcall_ok(g, v, &small, "mrt=1x1,mc=2x2");
        lcall_ok(g, NULL, &small, NULL);
    }
    lprob_free(&huge);
    lprob_free(&small);
    glgemm_close(g);
    tu_rm_rf(dir);
}
END_TEST

/* glgemm run of 4096 x 4096 x 4 with its data segment limited to 250 MiB
 * (RLIMIT_DATA): the reference alone (two 4096 x 4096 arrays of doubles,
 * 256 MiB) does not fit.  The worker used to run the variant without it and
 * print an ok it never verified (rel_err -1); now: exit 1, one status line
 * naming the memory, no --out file.  Then the same without the limit, at a
 * small size, is ok.  (Between that limit and one where all fits, the CPU
 * BLAS computing the reference waits for its buffer and the compile
 * deadline ends it: docs/reliability.md.) */
START_TEST(test_run_out_of_memory)
{
    if (sanitized()) {
        fprintf(stderr, "fault: run out-of-memory case skipped under a sanitizer\n");
        return;
    }
    char dir[128], npy[200];
    tu_mkdtemp(dir, sizeof dir, "fault-run-oom");
    struct rlimit old, lo;
    ck_assert_int_eq(getrlimit(RLIMIT_DATA, &old), 0);
    lo = old;
    lo.rlim_cur = (rlim_t)250 << 20;
    ck_assert_int_eq(setrlimit(RLIMIT_DATA, &lo), 0);
    char *out, *err;
    int rc = tu_run(dir, NULL, "run mrt=1x1,mc=2x2,acc=blend --m 4096 --n 4096 --k 4 --reps 1 "
                               "--out c.npy", &out, &err);
    ck_assert_int_eq(setrlimit(RLIMIT_DATA, &old), 0);
    ck_assert_msg(rc == 1, "exit %d: %s %s", rc, out, err);
    ck_assert_msg(tu_count_lines(out) == 1 && strstr(out, ": gl_error: out of host memory: the reference") &&
                      tu_count_lines(err) == 1 &&
                      strstr(err, "glgemm run: status gl_error: out of host memory: the reference"),
                  "stdout '%s' stderr '%s'", out, err);
    snprintf(npy, sizeof npy, "%s/c.npy", dir);
    ck_assert_msg(access(npy, F_OK) != 0, "c.npy written by a failed run");
    free(out);
    free(err);
    rc = tu_run(dir, NULL, "run mrt=1x1,mc=2x2,acc=blend --size 40 --reps 1", &out, &err);
    ck_assert_msg(rc == 0 && strstr(out, ": ok, "), "exit %d: %s %s", rc, out, err);
    free(out);
    free(err);
    tu_rm_rf(dir);
}
END_TEST

/* Whether every file of the cache folder is a whole entry (its name, the
 * lengths its header gives, the checksum of its binary); how many. */
static int whole_entries(const char *dir, char *why, size_t whylen)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        char *data = tu_read(path);
        struct stat sb;
        bool ok = len == 20 && !strcmp(e->d_name + 16, ".bin") &&
                  strspn(e->d_name, "0123456789abcdef") == 16 && data && stat(path, &sb) == 0 &&
                  sb.st_size >= 64 && !memcmp(data, "GGPROGBN", 8);
        if (ok) {
            const unsigned char *u = (const unsigned char *)data;
            uint64_t rlen = 0, vlen = 0, blen = 0, sum = 0;
            for (int i = 3; i >= 0; i--) {
                rlen = rlen << 8 | u[24 + i];
                vlen = vlen << 8 | u[28 + i];
            }
            for (int i = 7; i >= 0; i--) {
                blen = blen << 8 | u[48 + i];
                sum = sum << 8 | u[56 + i];
            }
            ok = (uint64_t)sb.st_size == 64 + rlen + vlen + blen &&
                 host_progcache_checksum(u + 64 + rlen + vlen, (size_t)blen) == sum;
        }
        free(data);
        if (!ok) {
            snprintf(why, whylen, "%.200s is not a whole entry", e->d_name);
            n = -1;
            break;
        }
        n++;
    }
    closedir(d);
    return n;
}

static const char *const cache_variants[] = {
    "mrt=2x2,mc=1x4,np=2,profile=330", "mrt=1x2,mc=2x2,np=all,profile=300es,acc=blend",
    "acc=copy,profile=120", "mrt=1x1,mc=1x4,np=all,profile=430,out=image,blk=8x8",
};
#define NCACHE ((int)(sizeof cache_variants / sizeof *cache_variants))

/* In a child (the file size limit would catch Check's own files): the four
 * variants through the library with the cache in dir/cache, stderr into
 * dir/stderr.txt; fsize > 0 limits files to that many bytes.  Returns how
 * many calls were right (-1: the child died). */
static int cache_calls_in_child(const char *dir, long fsize)
{
    char path[300];
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        snprintf(path, sizeof path, "%s/stderr.txt", dir);
        if (!freopen(path, "w", stderr))
            _exit(120);
        if (fsize > 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl;
            getrlimit(RLIMIT_FSIZE, &rl);
            rl.rlim_cur = (rlim_t)fsize;
            if (setrlimit(RLIMIT_FSIZE, &rl))
                _exit(121);
        }
        host_progcache_reset();
        setenv("GLGEMM_WARMUP", "0", 1); /* the entries are the calls' (its own is not small) */
        glgemm_context *g = glgemm_open(NULL, 0);
        int right = 0;
        for (int i = 0; g && i < NCACHE; i++) {
            lprob p = lprob_make(21 + i, 19, 23, 40 + (uint64_t)i);
            right += lcall(g, cache_variants[i], &p) == GLGEMM_OK && lprob_wrong(&p) == 0;
            lprob_free(&p);
        }
        glgemm_close(g);
        fflush(stderr);
        _exit(right);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The program cache on a full disk, as the kernel makes it: 0, a 12 KiB
 * tmpfs in a mount namespace of the test's own (the second entry finds no
 * room); 1, a file size limit of 3000 bytes (every entry written short).
 * Every call is right, one warning line names the reason, the folder holds
 * whole entries only (no temporary or partial file); with room again the
 * next process's calls are right and write their entries. */
START_TEST(test_lib_cache_full_disk)
{
    char dir[128], cache[200], why[400];
    tu_mkdtemp(dir, sizeof dir, "fault-cache-full");
    lib_env(dir, NULL);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    ck_assert_int_eq(mkdir(cache, 0755), 0);
    if (_i == 0 && (own_mount_namespace(why, sizeof why) != 0 ||
                    (mount("tmpfs", cache, "tmpfs", 0, "size=12k") != 0 &&
                     snprintf(why, sizeof why, "cannot mount a tmpfs: %s", strerror(errno)) > 0))) {
        fprintf(stderr, "fault: program cache on a full tmpfs skipped: %s\n", why);
        tu_rm_rf(dir);
        return;
    }
    int right = cache_calls_in_child(dir, _i == 1 ? 3000 : 0);
    ck_assert_int_eq(right, NCACHE);
    char path[300];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    char *text = tu_read(path);
    ck_assert_ptr_nonnull(text);
    const char *reason = _i == 0 ? "No space left on device" : "File too large";
    ck_assert_msg(tu_count_lines(text) == 1 && strstr(text, "glgemm: program cache: ") &&
                      strstr(text, reason) && strstr(text, "; going on without it\n"),
                  "stderr: '%s'", text);
    free(text);
    int n = whole_entries(cache, why, sizeof why);
    ck_assert_msg(n >= 0, "%s", why);
    ck_assert_msg(_i == 0 ? n >= 1 : n == 0, "%d entries", n);

    if (_i == 0)
        ck_assert_msg(mount("tmpfs", cache, "tmpfs", MS_REMOUNT, "size=4m") == 0, "remount: %s",
                      strerror(errno));
    right = cache_calls_in_child(dir, 0);
    ck_assert_int_eq(right, NCACHE);
    text = tu_read(path);
    ck_assert_msg(text && !*text, "stderr with room: '%s'", text);
    free(text);
    int n2 = whole_entries(cache, why, sizeof why);
    ck_assert_msg(n2 > n, "%d entries before, %d after: %s", n, n2, n2 < 0 ? why : "");
    if (_i == 0)
        ck_assert_msg(umount(cache) == 0, "umount: %s", strerror(errno));
    tu_rm_rf(dir);
}
END_TEST

/* Whether a folder holds a temporary file of an atomic write (a partial
 * file left behind); its name into why. */
static bool has_partial(const char *dir, char *why, size_t whylen)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp-")) {
            snprintf(why, whylen, "%.100s/%.100s", dir, e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

/* A tune whose records, best file and program cache share a 32 KiB tmpfs
 * (in a mount namespace of the test's own): the disk fills mid-tune.  The
 * cache gives up with one warning and the tune goes on; when a row or the
 * best file finds no room the tune stops with one line (exit 1); the
 * records are whole rows, no partial file is left, a best file is whole.
 * With room again the tune resumes, measures nothing twice and ends, and a
 * library call then runs its best, right. */
START_TEST(test_tune_real_full_disk)
{
    char dir[128], res[200], why[400], env[600];
    tu_mkdtemp(dir, sizeof dir, "fault-tune-full");
    snprintf(res, sizeof res, "%s/res", dir);
    ck_assert_int_eq(mkdir(res, 0755), 0);
    if (own_mount_namespace(why, sizeof why) != 0 ||
        (mount("tmpfs", res, "tmpfs", 0, "size=32k") != 0 &&
         snprintf(why, sizeof why, "cannot mount a tmpfs: %s", strerror(errno)) > 0)) {
        fprintf(stderr, "fault: tune on a full tmpfs skipped: %s\n", why);
        tu_rm_rf(dir);
        return;
    }
    snprintf(env, sizeof env, "GLGEMM_CACHE_DIR=%s/cache XDG_DATA_HOME=%s/data", res, dir);
    const char *args = "tune --size 16 --reps 1 --search random --budget 60 --seed 3 --timeout 5 "
                       "--finalists 0 --results res";
    char *out, *err;
    int rc = tu_run(dir, env, args, &out, &err);
    ck_assert_msg(rc == 0 || rc == 1, "exit %d: %s", rc, err);
    int warnings = 0;
    for (const char *w = err; (w = strstr(w, "glgemm: program cache: ")) != NULL; w++) {
        const char *nl = strchr(w, '\n');
        ck_assert_msg(nl && strstr(w, "No space left on device") < nl &&
                          strstr(w, "; going on without it\n") == nl - 21,
                      "stderr: %s", err);
        warnings++;
    }
    ck_assert_msg(warnings <= 1, "%d cache warnings: %s", warnings, err);
    if (rc == 1) {
        const char *stop = strstr(err, "glgemm tune: stopped: ");
        ck_assert_msg(stop && strstr(stop, "No space left on device\n") &&
                          tu_count_lines(stop) == 1,
                      "stderr: %s", err);
    }
    const char *last = strstr(err, "glgemm tune: stopped: ");
    fprintf(stderr, "fault: tune on a 32 KiB tmpfs: exit %d, %d cache warning; %s", rc, warnings,
            last ? last : "ran to its end\n");
    char card_dir[300], path[400];
    snprintf(card_dir, sizeof card_dir, "%s/llvmpipe", res);
    snprintf(path, sizeof path, "%s/tune-16x16x16.csv", card_dir);
    char *text = tu_read(path);
    int rows = whole_rows(text, NULL, 0);
    free(text);
    snprintf(path, sizeof path, "%s/cache", res);
    ck_assert_msg(!has_partial(card_dir, why, sizeof why) && !has_partial(path, why, sizeof why),
                  "a partial file: %s", why);
    ck_assert_msg(whole_entries(path, why, sizeof why) >= 1, "%s", why);
    snprintf(path, sizeof path, "%s/best-16x16x16.txt", card_dir);
    gg_variant v;
    char bwhy[256];
    int brc = store_best_read_path(path, &v, NULL, bwhy, sizeof bwhy);
    ck_assert_msg(brc == 0 || brc == GG_BEST_NONE, "best file: %d %s", brc, bwhy);
    free(out);
    free(err);

    ck_assert_msg(mount("tmpfs", res, "tmpfs", MS_REMOUNT, "size=4m") == 0, "remount: %s",
                  strerror(errno));
    rc = tu_run(dir, env, args, &out, &err);
    ck_assert_msg(rc == 0, "resume: exit %d: %s", rc, err);
    char want[64];
    snprintf(want, sizeof want, "resuming: %d variants already in", rows);
    ck_assert_msg(rows == 0 || strstr(err, want), "%d rows before; stderr: %s", rows, err);
    ck_assert_msg(!strstr(err, "warning") && !strstr(err, "program cache"), "stderr: %s", err);
    snprintf(path, sizeof path, "%s/tune-16x16x16.csv", card_dir);
    text = tu_read(path);
    int rows2 = whole_rows(text, NULL, 0);
    /* No variant twice: every row's variant columns differ. */
    char *copy = strdup(text), *save = NULL;
    int n = 0;
    char *keys[256];
    for (char *line = strtok_r(copy, "\n", &save); line && n < 256; line = strtok_r(NULL, "\n", &save)) {
        char *status = strstr(line, ",ok,");
        if (!status)
            status = line + strlen(line);
        for (int i = 0; i < n; i++)
            ck_assert_msg(strncmp(keys[i], line, (size_t)(status - line)) != 0 ||
                              keys[i][status - line] != ',',
                          "a variant twice: %s", line);
        keys[n++] = line;
    }
    free(copy);
    free(text);
    ck_assert_int_ge(rows2, rows);
    ck_assert_msg(strstr(out, "best: mrt="), "stdout: %s", out);
    free(out);
    free(err);

    snprintf(path, sizeof path, "%s/best-16x16x16.txt", card_dir);
    library_uses_best(dir, path, 9);
    ck_assert_msg(umount(res) == 0, "umount: %s", strerror(errno));
    tu_rm_rf(dir);
}
END_TEST

Suite *make_fault_suite(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("switch");
    tcase_add_loop_test(tc, test_switch, 0, (int)(sizeof sw / sizeof *sw));
    tcase_add_test(tc, test_records_disk_full);
    tcase_add_test(tc, test_records_real_full_disk);
    tcase_add_test(tc, test_records_file_size_limit);
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("fault_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, test_run_fault, 0,
                        (int)((sizeof run_cases / sizeof *run_cases) *
                              (sizeof run_variants / sizeof *run_variants)));
    tcase_add_loop_test(gl, test_tune_fault, 0, (int)(sizeof tune_cases / sizeof *tune_cases));
    tcase_add_test(gl, test_tune_disk_full);
    tcase_add_test(gl, test_lib_lost_context);
    tcase_add_test(gl, test_lib_out_of_memory);
    tcase_add_test(gl, test_run_out_of_memory);
    tcase_add_loop_test(gl, test_lib_cache_full_disk, 0, 2);
    tcase_add_test(gl, test_tune_real_full_disk);
    suite_add_tcase(s, gl);
    return s;
}
