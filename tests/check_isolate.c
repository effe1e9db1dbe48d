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

#include "eval/isolate.h"
#include "base/clock.h"
#include "tests/suites.h"

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
    double t0 = base_now_s();
    gg_iso_result r = eval_isolate_run(work, &what, &p, sizeof p, cases[_i].timeout, detail,
                                     sizeof detail);
    double dt = base_now_s() - t0;
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
        eval_isolate_run(work, &what, &p, sizeof p, 60, detail, sizeof detail);
        _exit(0);
    }
    pid_t child;
    ck_assert_int_eq(read(pidpipe[0], &child, sizeof child), sizeof child);
    ck_assert_int_eq(kill(child, 0), 0);
    kill(mid, SIGKILL);
    waitpid(mid, NULL, 0);
    double t0 = base_now_s();
    while (kill(child, 0) == 0 && base_now_s() - t0 < 3)
        usleep(10000); /* killed, then reaped by init */
    ck_assert_msg(kill(child, 0) == -1, "the evaluation outlived the tune");
    close(pidpipe[0]);
    close(pidpipe[1]);
}
END_TEST

Suite *make_isolate_suite(void)
{
    Suite *s = suite_create("isolate");
    TCase *tc = tcase_create("watchdog");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_watchdog, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_parent_killed);
    suite_add_tcase(s, tc);
    return s;
}
