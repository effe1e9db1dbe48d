/* search/isolate: the watchdog.  Work that hangs is killed (timeout), work
 * that crashes is reported with its signal (context_lost), and a search
 * through it goes on. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "search/isolate.h"
#include "tests/suites.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int value;
    char text[64];
} payload;

/* The child's pid goes through a pipe made before the fork, so the test can
 * check that a killed child is gone. */
static int pidpipe[2];

static void tell_pid(void)
{
    pid_t p = getpid();
    if (write(pidpipe[1], &p, sizeof p) != sizeof p)
        _exit(99);
}

enum { JOB_OK, JOB_HANG, JOB_ABORT, JOB_SEGV, JOB_EXIT3, JOB_HALF, JOB_SLOW_OK };

static void work(void *user, void *out, size_t outlen)
{
    int what = *(int *)user;
    payload *p = out;
    (void)outlen;
    tell_pid();
    switch (what) {
    case JOB_OK:
        p->value = 42;
        strcpy(p->text, "from the child");
        return;
    case JOB_SLOW_OK:
        usleep(200 * 1000);
        p->value = 7;
        return;
    case JOB_HANG:
        for (;;)
            pause();
    case JOB_ABORT:
        abort();
    case JOB_SEGV:
        signal(SIGSEGV, SIG_DFL); /* ASan's handler would make it exit 1 */
        raise(SIGSEGV);
        _exit(98);
    case JOB_EXIT3:
        _exit(3);
    case JOB_HALF:
        /* Half a result, then death: not a result. */
        p->value = 1;
        _exit(0);
    }
}

static const struct {
    int what;
    gg_iso_result want;
    const char *detail; /* part of the detail */
    double timeout;
} cases[] = {
    {JOB_OK, GG_ISO_OK, "", 5},
    {JOB_SLOW_OK, GG_ISO_OK, "", 5},
    {JOB_HANG, GG_ISO_TIMEOUT, "killed", 0.3},
    {JOB_SLOW_OK, GG_ISO_TIMEOUT, "no result within 0.05 s", 0.05},
    {JOB_ABORT, GG_ISO_CRASHED, "signal 6", 5},
    {JOB_SEGV, GG_ISO_CRASHED, "signal 11", 5},
    {JOB_EXIT3, GG_ISO_CRASHED, "exited with status 3", 5},
    {JOB_HALF, GG_ISO_CRASHED, "exited with status 0", 5},
};

START_TEST(test_watchdog)
{
    ck_assert_int_eq(pipe(pidpipe), 0);
    int what = cases[_i].what;
    payload p;
    memset(&p, 0, sizeof p);
    char detail[256];
    double t0 = now();
    gg_iso_result r = gg_isolate_run(work, &what, &p, sizeof p, cases[_i].timeout, detail,
                                     sizeof detail);
    double dt = now() - t0;
    ck_assert_msg(r == cases[_i].want, "case %d: got %d (%s)", _i, r, detail);
    ck_assert_msg(strstr(detail, cases[_i].detail) != NULL, "case %d: detail '%s'", _i, detail);
    if (r == GG_ISO_OK) {
        ck_assert_int_eq(p.value, what == JOB_OK ? 42 : 7);
        if (what == JOB_OK)
            ck_assert_str_eq(p.text, "from the child");
    }
    if (r == GG_ISO_TIMEOUT)
        ck_assert_msg(dt >= cases[_i].timeout && dt < cases[_i].timeout + 1.5, "took %.3f s", dt);
    /* The child is gone (reaped, not a zombie). */
    pid_t child;
    ck_assert_int_eq(read(pidpipe[0], &child, sizeof child), sizeof child);
    ck_assert_int_eq(kill(child, 0), -1);
    ck_assert_int_eq(errno, ESRCH);
    close(pidpipe[0]);
    close(pidpipe[1]);
}
END_TEST

/* If the tune itself is killed, its evaluation dies with it. */
START_TEST(test_parent_killed)
{
    ck_assert_int_eq(pipe(pidpipe), 0);
    pid_t mid = fork();
    ck_assert_int_ge(mid, 0);
    if (mid == 0) {
        int what = JOB_HANG;
        payload p;
        char detail[256];
        gg_isolate_run(work, &what, &p, sizeof p, 60, detail, sizeof detail);
        _exit(0);
    }
    pid_t child;
    ck_assert_int_eq(read(pidpipe[0], &child, sizeof child), sizeof child);
    ck_assert_int_eq(kill(child, 0), 0);
    kill(mid, SIGKILL);
    waitpid(mid, NULL, 0);
    double t0 = now();
    while (kill(child, 0) == 0 && now() - t0 < 3)
        usleep(10000); /* killed, then reaped by init */
    ck_assert_msg(kill(child, 0) == -1, "the evaluation outlived the tune");
    close(pidpipe[0]);
    close(pidpipe[1]);
}
END_TEST

/* ---- an evaluation function through the watchdog, inside a search ---- */

static int hostile_eval(void *user, const gg_variant *v, gg_measurement *m)
{
    (void)user;
    if (v->np == 3)
        for (;;)
            pause();          /* a hung driver */
    if (v->np == 5) {
        signal(SIGSEGV, SIG_DFL); /* as without ASan, whose handler would exit 1 */
        raise(SIGSEGV);       /* a crashing driver */
    }
    m->status = GG_OK;
    m->gflops = v->np == GG_NP_ALL ? 8 : v->np;
    m->seconds = 1 / m->gflops;
    snprintf(m->detail, sizeof m->detail, "np %d", v->np);
    return 0;
}

typedef struct {
    double timeout;
} iso_user;

static int isolated(void *user, const gg_variant *v, gg_measurement *out)
{
    iso_user *u = user;
    return gg_isolate_eval(hostile_eval, NULL, v, u->timeout, out);
}

START_TEST(test_eval_statuses)
{
    gg_variant v;
    gg_variant_default(&v);
    gg_measurement m;
    v.np = 3;
    ck_assert_int_eq(gg_isolate_eval(hostile_eval, NULL, &v, 0.2, &m), 0);
    ck_assert_int_eq(m.status, GG_TIMEOUT);
    ck_assert_double_eq(m.gflops, 0);
    v.np = 5;
    ck_assert_int_eq(gg_isolate_eval(hostile_eval, NULL, &v, 5, &m), 0);
    ck_assert_int_eq(m.status, GG_CONTEXT_LOST);
    ck_assert_ptr_nonnull(strstr(m.detail, "signal 11"));
    v.np = 6;
    ck_assert_int_eq(gg_isolate_eval(hostile_eval, NULL, &v, 5, &m), 0);
    ck_assert_int_eq(m.status, GG_OK);
    ck_assert_double_eq(m.gflops, 6);
    ck_assert_str_eq(m.detail, "np 6");
}
END_TEST

START_TEST(test_search_goes_on)
{
    /* k = 8, mc 1x1: np 1..8 (8 is all). */
    gg_search_config c;
    gg_search_config_default(&c, 8, 8, 8);
    c.strategy = GG_SEARCH_EXHAUSTIVE;
    char err[256];
    ck_assert_int_eq(gg_fix_parse("mrt=1x1,mc=1x1,unroll=0,profile=330,compiler=glsl,acc=copy",
                                  &c.fix, err, sizeof err), 0);
    iso_user u = {0.3};
    c.eval = isolated;
    c.user = &u;
    gg_search *s = gg_search_new(&c, err, sizeof err);
    ck_assert_int_eq(gg_search_run(s), 0);
    const gg_search_stats *st = gg_search_get_stats(s);
    ck_assert_int_eq(st->visited, 8);
    ck_assert_int_eq(st->by_status[GG_TIMEOUT], 1);
    ck_assert_int_eq(st->by_status[GG_CONTEXT_LOST], 1);
    ck_assert_int_eq(st->by_status[GG_OK], 6);
    ck_assert_int_eq(st->best.np, GG_NP_ALL);
    ck_assert_double_eq(st->best_outcome.gflops, 8);
    gg_search_free(s);
}
END_TEST

Suite *make_isolate_suite(void)
{
    Suite *s = suite_create("isolate");
    TCase *tc = tcase_create("watchdog");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_watchdog, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_parent_killed);
    tcase_add_test(tc, test_eval_statuses);
    tcase_add_test(tc, test_search_goes_on);
    suite_add_tcase(s, tc);
    return s;
}
