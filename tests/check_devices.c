/* --devices and glgemm-mpi (eval/pool.h; issue 32) on llvmpipe, which is
 * one EGL device: `--devices 0,0` puts two workers on it.
 *  - bad --devices and --sizes values: one line, exit 2, no output;
 *  - the pool itself: a hinted variant is measured once, its ask takes
 *    that measurement;
 *  - tune --devices 0,0: the same records as one device, each variant
 *    once, both workers measuring; --sizes; run and bench;
 *  - a worker that crashes or hangs costs its variant only (a status),
 *    the other goes on;
 *  - glgemm-mpi under mpirun -np 2 (GLGEMM_MPI_BIN, set by make check):
 *    the same records as one device, rank 1's device measuring; rank 1
 *    killed mid-tune: the records whole, nothing printed lost but the
 *    evaluation in flight, and the next tune completes them. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/inputs.h"
#include "base/reference.h"
#include "eval/pool.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

/* ---- bad input ---- */

/* The end of a long text, short enough for one Check message (past about
 * 4 KiB Check gives up on the message and the case only "exits early"). */
static const char *tail_of(const char *text)
{
    size_t len = text ? strlen(text) : 0;
    return !text ? "(none)" : len > 2000 ? text + len - 2000 : text;
}

static const struct {
    const char *args[8];
    const char *msg;
} bad[] = {
    {{"tune", "--devices", ""}, "--devices needs device indices"},
    {{"tune", "--devices", "x"}, "--devices must be all, local or device indices"},
    {{"run", "nv-multi", "--devices", "0,,1"}, "--devices must be all, local or device indices"},
    {{"bench", "--devices", "0,"}, "--devices must be all, local or device indices"},
    {{"tune", "--devices", "-1"}, "--devices must be all, local or device indices"},
    {{"tune", "--devices", "0", "--device", "0"}, "--device and --devices: give one of them"},
    {{"run", "nv-multi", "--devices", "0", "--backend", "glfw"}, "it takes --backend egl"},
    {{"run", "nv-multi", "--devices", "0,0", "--out", "/tmp/c.npy"}, "not --devices with several"},
    {{"run", "nv-multi", "--devices", "local", "--out", "/tmp/c.npy"}, "not --devices local"},
    {{"tune", "--sizes", "16,x"}, "--sizes must be sizes from 1 to"},
    {{"tune", "--sizes", ""}, "--sizes must be sizes from 1 to"},
    {{"tune", "--sizes", "16", "--size", "16"}, "--sizes takes the place of --size"},
};

/* A device EGL does not list: found before any work, in a child. */
static const struct {
    const char *args[8];
    const char *msg;
} out_of_range[] = {
    {{"tune", "--size", "16", "--devices", "7"}, "--devices: no device 7: EGL lists"},
    {{"run", "nv-multi", "--size", "16", "--devices", "0,9"}, "--devices: no device 9: EGL lists"},
    {{"bench", "--size", "16", "--devices", "1023,0"}, "--devices: no device 1023: EGL lists"},
};

static void check_bad(const char *const *args, const char *msg)
{
    tu_result r;
    tu_exec(NULL, NULL, args, &r);
    ck_assert_msg(r.status == 2, "%s ...: exit %d, stderr %s", args[0], r.status, tail_of(r.err));
    ck_assert_msg(strstr(r.err, msg) != NULL, "stderr '%s', want '%s'", r.err, msg);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "not one line: '%s'", r.err);
    ck_assert_str_eq(r.out, "");
    tu_result_free(&r);
}

START_TEST(test_bad_devices) { check_bad(bad[_i].args, bad[_i].msg); }
END_TEST

START_TEST(test_devices_out_of_range) { check_bad(out_of_range[_i].args, out_of_range[_i].msg); }
END_TEST

/* ---- the records ---- */

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The variant columns of every row of a tuning record (the columns before
 * `passes`), sorted, one a line; *rows the rows, *dups those seen twice. */
static char *record_keys(const char *path, int *rows, int *dups, int *status_count,
                         const char *status)
{
    char *text = tu_read(path);
    ck_assert_msg(text != NULL, "no records %s", path);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    ck_assert_ptr_nonnull(line);
    int passes = -1, col = 0, st_col = -1;
    for (char *p = line, *q; p; p = q ? q + 1 : NULL, col++) {
        q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 6 && !strncmp(p, "passes", 6))
            passes = col;
        if (len == 6 && !strncmp(p, "status", 6))
            st_col = col;
    }
    ck_assert_int_gt(passes, 4);
    char **keys = NULL;
    int n = 0;
    *status_count = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        keys = realloc(keys, (size_t)(n + 1) * sizeof *keys);
        char *p = line;
        for (int c = 0; c < 4; c++)
            p = strchr(p, ',') + 1;
        char *end = p;
        for (int c = 4; c < passes; c++)
            end = strchr(end, ',') + 1;
        keys[n++] = strndup(p, (size_t)(end - p));
        char *s = line;
        for (int c = 0; c < st_col; c++)
            s = strchr(s, ',') + 1;
        *status_count += !strncmp(s, status, strlen(status)) && s[strlen(status)] == ',';
    }
    qsort(keys, (size_t)n, sizeof *keys, by_text);
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(keys[i]) + 1;
    char *all = calloc(1, len);
    *dups = 0;
    for (int i = 0; i < n; i++) {
        *dups += i > 0 && !strcmp(keys[i], keys[i - 1]);
        strcat(strcat(all, keys[i]), "\n");
    }
    for (int i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(text);
    *rows = n;
    return all;
}

/* The one card folder under dir (llvmpipe here), into card. */
static void card_of(const char *dir, char *card, size_t len)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(fgets(card, (int)len, p));
    pclose(p);
    card[strcspn(card, "\n")] = '\0';
}

static long count_of(const char *text, const char *what)
{
    long n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* "device: LABEL (card): N evaluations" of each device line, in order. */
static int device_evals(const char *out, long *evals, int max)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, "\ndevice: ")) && n < max; p++) {
        const char *e = strstr(p, "): ");
        ck_assert_ptr_nonnull(e);
        evals[n++] = strtol(e + 3, NULL, 10);
    }
    return n;
}

#define SPACE "profile=330,compiler=glsl,unroll=0,acc=pingpong,mc=2x2"

/* An exhaustive tune's first 40 points at 16^3 with the given devices
 * option (NULL: none), into dir; its stdout. */
static char *small_tune(const char *dir, const char *env, const char *devices, int want_status)
{
    /* A short deadline where a worker is made to hang, else a long one. */
    const char *deadline = env && strstr(env, "hang") ? "4" : "30";
    const char *args[] = {"tune", "--size", "16", "--reps", "1", "--search", "exhaustive",
                          "--budget", "40", "--fix", SPACE, "--finalists", "0", "--results", dir,
                          "--timeout", deadline, devices ? "--devices" : NULL, devices, NULL};
    tu_result r;
    tu_exec(NULL, env, args, &r);
    ck_assert_msg(r.status == want_status, "tune --devices %s: exit %d; stderr %s", devices,
                  r.status, tail_of(r.err));
    free(r.err);
    return r.out;
}

/* small_tune's records in one (one device) and two: the budget's 40 and
 * the two presets, each once, the same variants, all ok. */
static void same_records(const char *one, const char *two)
{
    char card[64], path[400];
    card_of(one, card, sizeof card);
    int rows[2], dups[2], ok[2];
    char *keys[2];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s/tune-16x16x16.csv", i ? two : one, card);
        keys[i] = record_keys(path, &rows[i], &dups[i], &ok[i], "ok");
        ck_assert_int_eq(rows[i], 42);
        ck_assert_int_eq(dups[i], 0);
        if (ok[i] != 42) {
            char *text = tu_read(path);
            ck_abort_msg("%d of 42 rows ok in %s:\n%s", ok[i], path, tail_of(text));
        }
    }
    ck_assert_str_eq(keys[0], keys[1]);
    free(keys[0]);
    free(keys[1]);
}

START_TEST(test_tune_two_workers)
{
    char one[128], two[128];
    tu_mkdtemp(one, sizeof one, "dev1");
    tu_mkdtemp(two, sizeof two, "dev2");
    free(small_tune(one, NULL, NULL, 0));
    char *out = small_tune(two, NULL, "0,0", 0);
    same_records(one, two);
    /* both workers measured, and said so */
    long ev[4];
    ck_assert_int_eq(device_evals(out, ev, 4), 2);
    ck_assert_msg(ev[0] > 0 && ev[1] > 0 && ev[0] + ev[1] >= 42, "evaluations %ld, %ld; %s", ev[0],
                  ev[1], out);
    ck_assert_ptr_nonnull(strstr(out, "device: device 0 (worker 2)"));
    ck_assert_ptr_nonnull(strstr(out, "search: exhaustive"));
    free(out);
    tu_rm_rf(one);
    tu_rm_rf(two);
}
END_TEST

/* A worker that crashes, or hangs past its deadline, costs that variant (a
 * status in the records) and a new worker; the tune goes on to the end. */
START_TEST(test_tune_worker_fault)
{
    static const char *const env[] = {"GLGEMM_FAULT=crash:5", "GLGEMM_FAULT=hang:5"};
    static const char *const status[] = {"context_lost", "timeout"};
    static const char *const line[] = {"started, 1 lost,", " lost, 1 timeouts\n"};
    char dir[128], card[64], path[400];
    tu_mkdtemp(dir, sizeof dir, "devfault");
    char *out = small_tune(dir, env[_i], "0,0", 0);
    card_of(dir, card, sizeof card);
    snprintf(path, sizeof path, "%s/%s/tune-16x16x16.csv", dir, card);
    int rows, dups, hit;
    char *k = record_keys(path, &rows, &dups, &hit, status[_i]);
    ck_assert_int_eq(rows, 42);
    ck_assert_int_eq(dups, 0);
    ck_assert_msg(hit == 1, "%d rows %s; %s", hit, status[_i], out);
    /* one worker met it, the other measured too */
    ck_assert_int_eq(count_of(out, line[_i]), 1);
    long ev[4];
    ck_assert_int_eq(device_evals(out, ev, 4), 2);
    ck_assert_msg(ev[0] > 0 && ev[1] > 0, "evaluations %ld, %ld", ev[0], ev[1]);
    free(k);
    free(out);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_tune_sizes)
{
    char dir[128], card[64], path[400], name[128];
    tu_mkdtemp(dir, sizeof dir, "devsizes");
    /* one device (the tunes one after another) and two workers (at once) */
    const char *args[] = {"tune", "--sizes", "16,24", "--reps", "1", "--fix",
                          SPACE ",mrt=1x2", "--finalists", "0", "--results", dir,
                          _i ? "--devices" : NULL, "0,0", NULL};
    tu_result r;
    tu_exec(NULL, NULL, args, &r);
    ck_assert_msg(r.status == 0, "exit %d; stderr %s", r.status, tail_of(r.err));
    card_of(dir, card, sizeof card);
    for (int s = 16; s <= 24; s += 8) {
        snprintf(path, sizeof path, "%s/%s/tune-%dx%dx%d.csv", dir, card, s, s, s);
        int rows, dups, ok;
        char *k = record_keys(path, &rows, &dups, &ok, "ok");
        ck_assert_int_ge(rows, 4);
        ck_assert_int_eq(dups, 0);
        free(k);
        snprintf(name, sizeof name, "== %s %dx%dx%d\nbest: ", card, s, s, s);
        ck_assert_msg(strstr(r.out, name) != NULL, "no '%s' in %s", name, r.out);
    }
    ck_assert_int_eq(count_of(r.out, "\ndevice: "), _i ? 2 : 0);
    tu_result_free(&r);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_run_and_bench)
{
    const char *run[] = {"run", "nv-multi", "--size", "32", "--devices", "0,0", NULL};
    tu_result r;
    tu_exec(NULL, NULL, run, &r);
    ck_assert_msg(r.status == 0, "run: exit %d; stderr %s", r.status, tail_of(r.err));
    ck_assert_msg(!strncmp(r.out, "device 0 (worker 1): mrt=1x1,mc=1x4,np=", 39), "%s", r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "\ndevice 0 (worker 2): mrt=1x1,mc=1x4,"));
    ck_assert_int_eq(count_of(r.out, ": ok, "), 2);
    tu_result_free(&r);
    char dir[128], card[64], path[400];
    tu_mkdtemp(dir, sizeof dir, "devbench");
    const char *bench[] = {"bench", "--size", "32", "--reps", "2", "--results", dir, "--devices",
                           "0,0", NULL};
    tu_exec(NULL, NULL, bench, &r);
    ck_assert_msg(r.status == 0, "bench: exit %d; stderr %s", r.status, tail_of(r.err));
    ck_assert_ptr_nonnull(strstr(r.out, "nv-single"));
    card_of(dir, card, sizeof card);
    snprintf(path, sizeof path, "%s/%s/bench-32x32x32.csv", dir, card);
    char *b = tu_read(path);
    ck_assert_msg(b && strstr(b, "\ncpu-blas,"), "%s", b ? b : "no bench file");
    free(b);
    tu_result_free(&r);
    tu_rm_rf(dir);
}
END_TEST

/* ---- the pool itself ---- */

START_TEST(test_pool_hint_measured_once)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = p.n = p.k = 16;
    p.reps = 1;
    gg_inputs in;
    gg_reference ref = {0};
    char err[256];
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), 0);
    ck_assert_int_eq(base_reference_compute(&in, p.alpha, p.beta, &ref, err, sizeof err), 0);
    /* Generous deadlines: two workers build at once, and under ASan (make
     * sanitize-ci) on two loaded cores a build took past the default 15 s. */
    gg_evaluator_config c = {.backend = GG_BACKEND_EGL, .prob = &p, .in = &in, .ref = &ref,
                             .timeout_s = 120, .compile_timeout_s = 120};
    int devs[2] = {0, 0};
    gg_pool_config pc = {.problems = &c, .nproblems = 1, .devices = devs, .ndevices = 2};
    gg_pool *pool = eval_pool_new(&pc, err, sizeof err);
    ck_assert_msg(pool != NULL, "%s", err);
    ck_assert_int_eq(eval_pool_nslots(pool), 2);
    ck_assert(eval_pool_slot(pool, 0)->ok && eval_pool_slot(pool, 1)->ok);
    int client = eval_pool_client(pool, 0, 0);
    gg_variant v[3];
    for (int i = 0; i < 3; i++) {
        gen_variant_default(&v[i]);
        v[i].mc = (gg_shape){1, 4};
        v[i].np = i + 1;
    }
    eval_pool_hint(pool, client, &v[1], 2, NULL);
    gg_measurement m;
    for (int i = 0; i < 3; i++) { /* v[1] and v[2] were hinted: measured ahead */
        ck_assert_int_eq(eval_pool_eval(pool, client, &v[i], NULL, &m), 0);
        ck_assert_msg(m.status == GG_OK, "%s", m.detail);
        ck_assert_int_eq(m.passes, (4 + i) / (i + 1));
    }
    long evals = 0, asked = 0, used = 0;
    for (int i = 0; i < 2; i++) {
        gg_pool_slot_stats st;
        eval_pool_slot_stats(pool, i, &st);
        evals += st.evaluations;
        asked += st.asked;
        used += st.used;
    }
    /* three asks, three measurements: each one once */
    ck_assert_int_eq(evals, 3);
    ck_assert_int_eq(asked + used, 3);
    ck_assert_int_ge(used, 1);
    gg_evaluator_stats es;
    eval_pool_client_stats(pool, client, &es);
    ck_assert_int_eq(es.evaluations, 3);
    eval_pool_client_end(pool, client);
    eval_pool_free(pool);
    base_reference_free(&ref);
    base_inputs_free(&in);
}
END_TEST

/* ---- glgemm-mpi ---- */

static const char *mpi_bin(void) { return getenv("GLGEMM_MPI_BIN"); }

/* mpirun -np 2 [--allow-run-as-root] --oversubscribe GLGEMM_MPI_BIN args... */
static void mpi_args(const char **argv, const char *const *args)
{
    int n = 0;
    argv[n++] = "-np";
    argv[n++] = "2";
    argv[n++] = "--oversubscribe";
    if (getuid() == 0)
        argv[n++] = "--allow-run-as-root";
    argv[n++] = mpi_bin();
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
}

static const char *mpirun_path(void)
{
    static char path[256];
    FILE *p = popen("command -v mpirun", "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(fgets(path, sizeof path, p) != NULL, "no mpirun on PATH (make deps)");
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    return path;
}

START_TEST(test_mpi_tune)
{
    ck_assert_msg(access(mpi_bin(), X_OK) == 0, "GLGEMM_MPI_BIN=%s: no such program", mpi_bin());
    char one[128], two[128];
    tu_mkdtemp(one, sizeof one, "mpi1");
    tu_mkdtemp(two, sizeof two, "mpi2");
    free(small_tune(one, NULL, NULL, 0));
    const char *args[] = {"tune", "--size", "16", "--reps", "1", "--search", "exhaustive",
                          "--budget", "40", "--fix", SPACE, "--finalists", "0", "--results", two,
                          "--timeout", "30", NULL};
    const char *argv[40];
    mpi_args(argv, args);
    tu_proc pr;
    tu_result r;
    tu_spawn(mpirun_path(), NULL, NULL, argv, &pr);
    tu_wait(&pr, NULL, 300, &r);
    ck_assert_msg(r.status == 0, "mpirun: exit %d; stderr %s", r.status, tail_of(r.err));
    same_records(one, two);
    /* rank 1's device measured; what crossed MPI is counted */
    const char *d1 = strstr(r.out, "device: rank 1 device 0 (");
    ck_assert_msg(d1 != NULL, "%s", r.out);
    ck_assert_int_gt(strtol(strstr(d1, "): ") + 3, NULL, 10), 0);
    ck_assert_ptr_nonnull(strstr(d1, " messages, "));
    ck_assert_ptr_nonnull(strstr(r.err, "glgemm-mpi: rank 1 (pid "));
    tu_result_free(&r);
    tu_rm_rf(one);
    tu_rm_rf(two);
}
END_TEST

/* Rank 1 killed (SIGKILL) mid-tune: Open MPI ends the job; the records
 * are whole rows, each variant once, and every evaluation rank 0 printed
 * (--verbose) is among them but at most the one in flight; the same tune
 * again resumes and completes them, the earlier rows kept. */
START_TEST(test_mpi_rank_killed)
{
    ck_assert_msg(access(mpi_bin(), X_OK) == 0, "GLGEMM_MPI_BIN=%s: no such program", mpi_bin());
    char dir[128], path[400];
    tu_mkdtemp(dir, sizeof dir, "mpikill");
    const char *args[] = {"tune", "--size", "16", "--reps", "1", "--search", "exhaustive", "--fix",
                          SPACE, "--finalists", "0", "--results", dir, "--verbose", NULL};
    const char *argv[40];
    mpi_args(argv, args);
    tu_proc pr;
    tu_result r;
    tu_spawn(mpirun_path(), NULL, NULL, argv, &pr);
    /* the card's folder is llvmpipe's: wait for 30 rows, then kill rank 1 */
    char card[64] = "";
    long rank1 = 0;
    for (int t = 0; t < 1200 && !rank1; t++) {
        usleep(100000);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "cat %s/*/tune-16x16x16.csv 2>/dev/null | wc -l", dir);
        FILE *p = popen(cmd, "r");
        int rows = 0;
        ck_assert_int_eq(fscanf(p, "%d", &rows), 1);
        pclose(p);
        if (rows < 31)
            continue;
        char *err = tu_slurp_fd(dup(pr.fe));
        const char *at = strstr(err, "glgemm-mpi: rank 1 (pid ");
        ck_assert_msg(at != NULL, "no rank 1 pid in %s", err);
        rank1 = strtol(at + strlen("glgemm-mpi: rank 1 (pid "), NULL, 10);
        free(err);
    }
    ck_assert_msg(rank1 > 0, "the tune did not get to 30 rows");
    ck_assert_int_eq(kill((pid_t)rank1, SIGKILL), 0);
    tu_wait(&pr, NULL, 120, &r);
    ck_assert_msg(r.status != 0, "mpirun ended well after rank 1 was killed: %s", r.out);
    card_of(dir, card, sizeof card);
    snprintf(path, sizeof path, "%s/%s/tune-16x16x16.csv", dir, card);
    int rows, dups, ok;
    char *keys = record_keys(path, &rows, &dups, &ok, "ok");
    ck_assert_int_eq(dups, 0);
    ck_assert_int_lt(rows, 160);
    ck_assert_int_eq(ok, rows);
    /* what rank 0 printed measured is recorded, but for one in flight */
    int missing = 0, printed = 0;
    for (const char *p = r.err; (p = strstr(p, "eval: ")); p++) {
        char v[GG_VARIANT_TEXT];
        ck_assert_int_eq(sscanf(p + 6, "%199s", v), 1);
        gg_variant var;
        char perr[256];
        ck_assert_int_eq(gen_variant_parse(v, NULL, &var, perr, sizeof perr), 0);
        /* the record's variant columns: mrt,mc,np,unroll,profile,compiler,acc,... */
        char want[64];
        snprintf(want, sizeof want, "%dx%d,%dx%d,", var.mrt.rows, var.mrt.cols, var.mc.rows,
                 var.mc.cols);
        char *np = strstr(v, "np=") + 3;
        size_t at = strlen(want);
        snprintf(want + at, sizeof want - at, "%.*s,", (int)strcspn(np, ","), np);
        bool found = false;
        for (const char *k = keys; *k && !found; k = strchr(k, '\n') + 1)
            found = !strncmp(k, want, strlen(want));
        missing += !found;
        printed++;
    }
    ck_assert_int_ge(printed, 30);
    ck_assert_msg(missing <= 1, "%d of %d printed evaluations not recorded", missing, printed);
    char *before = tu_read(path);
    tu_result_free(&r);

    /* resumed: completes, the earlier rows the start of the file */
    tu_spawn(mpirun_path(), NULL, NULL, argv, &pr);
    tu_wait(&pr, NULL, 300, &r);
    ck_assert_msg(r.status == 0, "resumed: exit %d; stderr %s", r.status, tail_of(r.err));
    ck_assert_ptr_nonnull(strstr(r.err, "resuming: "));
    char *after = tu_read(path);
    ck_assert(!strncmp(after, before, strlen(before)));
    free(keys);
    keys = record_keys(path, &rows, &dups, &ok, "ok");
    ck_assert_int_eq(rows, 160 + 2);
    ck_assert_int_eq(dups, 0);
    free(keys);
    free(before);
    free(after);
    tu_result_free(&r);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_devices_suite(void)
{
    Suite *s = suite_create("devices");
    TCase *cli = tcase_create("devices_cli");
    tcase_add_loop_test(cli, test_bad_devices, 0, (int)(sizeof bad / sizeof *bad));
    suite_add_tcase(s, cli);
    TCase *gl = tcase_create("devices_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 300);
    tcase_add_loop_test(gl, test_devices_out_of_range, 0,
                        (int)(sizeof out_of_range / sizeof *out_of_range));
    suite_add_tcase(s, gl);
    /* Evaluation workers forked from several threads at once: not under
     * ASan (tag forkthreads, Makefile SAN_SKIP_TAGS, tests/SANITIZE.md):
     * GCC 12's ASan does not hold its allocator across fork, so a worker
     * forked while another thread refilled its cache waits forever. */
    TCase *th = tcase_create("devices_threads");
    tcase_set_tags(th, "gl forkthreads");
    tcase_set_timeout(th, 300);
    tcase_add_test(th, test_pool_hint_measured_once);
    tcase_add_test(th, test_tune_two_workers);
    tcase_add_loop_test(th, test_tune_worker_fault, 0, 2);
    tcase_add_loop_test(th, test_tune_sizes, 0, 2);
    tcase_add_test(th, test_run_and_bench);
    suite_add_tcase(s, th);
    /* glgemm-mpi: make check sets GLGEMM_MPI_BIN (make mpi) */
    if (mpi_bin() && *mpi_bin()) {
        TCase *mpi = tcase_create("devices_mpi");
        tcase_set_tags(mpi, "gl slow forkthreads"); /* rank 0: a thread per rank */
        tcase_set_timeout(mpi, 600);
        tcase_add_test(mpi, test_mpi_tune);
        tcase_add_test(mpi, test_mpi_rank_killed);
        suite_add_tcase(s, mpi);
    }
    return s;
}
