/* Fault injection (base/fault.h, tests only): each fault, injected where
 * it would really happen, gives its SPEC status; a tune goes on past it and
 * its records stay whole rows; a full disk stops the tune with one line, no
 * torn row, and the next tune resumes. */
#define _GNU_SOURCE /* unshare */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/csv.h"
#include "base/fault.h"
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
    suite_add_tcase(s, gl);
    return s;
}
