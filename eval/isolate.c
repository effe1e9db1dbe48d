/* Work in a child process under a watchdog: see isolate.h. */
#include "eval/isolate.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/clock.h"
#include "base/fault.h"

int eval_iso_read(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - base_now_s();
            if (left <= 0)
                return 0;
            ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        int pr = poll(&pfd, 1, ms);
        if (pr < 0 && errno != EINTR)
            return -1;
        if (pr <= 0)
            continue; /* EINTR or the poll's own timeout: the deadline check ends it */
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 1;
}

static void child_main(int wfd, gg_child_fn fn, void *user, void *out, size_t outlen)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed tune leaves no evaluation running */
#endif
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    fn(user, out, outlen);
    const char *p = out;
    size_t left = outlen;
    while (left) {
        ssize_t w = write(wfd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(120);
        p += w;
        left -= (size_t)w;
    }
    close(wfd);
    fflush(NULL);
    _exit(0);
}

/* Waits for pid until the deadline; 1 reaped (status in *st), 0 not yet. */
static int reap_until(pid_t pid, double deadline, int *st)
{
    for (;;) {
        pid_t r = waitpid(pid, st, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1; /* not ours any more: nothing to wait for */
        if (base_now_s() >= deadline)
            return 0;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void eval_iso_kill_reap(pid_t pid, int *st)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, st, 0) < 0 && errno == EINTR)
        ;
}

void eval_iso_describe_death(int st, char *detail, size_t detlen)
{
    if (WIFSIGNALED(st))
        snprintf(detail, detlen, "the evaluation process died of signal %d (%s) before sending its "
                                 "result", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(detail, detlen, "the evaluation process exited with status %d before sending its "
                                 "result", WEXITSTATUS(st));
    else
        snprintf(detail, detlen, "the evaluation process ended before sending its result");
}

gg_iso_result eval_isolate_run(gg_child_fn fn, void *user, void *out, size_t outlen,
                             double timeout_s, char *detail, size_t detlen)
{
    if (detlen)
        detail[0] = '\0';
    int fds[2];
    if (pipe(fds)) {
        snprintf(detail, detlen, "cannot make a pipe for the evaluation: %s", strerror(errno));
        return GG_ISO_ERROR;
    }
    fflush(NULL); /* nothing buffered is written twice */
    double deadline = base_now_s() + timeout_s;
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(detail, detlen, "cannot fork an evaluation process: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return GG_ISO_ERROR;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], fn, user, out, outlen);
    }
    setpgid(pid, pid); /* also here: no race with a kill of the group */
    close(fds[1]);
    int got = eval_iso_read(fds[0], out, outlen, deadline);
    close(fds[0]);
    int st = 0;
    if (got == 0) {
        eval_iso_kill_reap(pid, &st);
        snprintf(detail, detlen, "no result within %.3g s: the evaluation process was killed "
                                 "(SIGKILL)", timeout_s);
        return GG_ISO_TIMEOUT;
    }
    /* A child that sent everything may still hang in its teardown: give it a
     * moment, then kill it; the result stands. */
    double grace = got == 1 ? base_now_s() + 2.0 : deadline;
    if (!reap_until(pid, grace, &st)) {
        eval_iso_kill_reap(pid, &st);
        if (got != 1) {
            snprintf(detail, detlen, "no result within %.3g s: the evaluation process was killed "
                                     "(SIGKILL)", timeout_s);
            return GG_ISO_TIMEOUT;
        }
        return GG_ISO_OK;
    }
    if (got != 1) {
        eval_iso_describe_death(st, detail, detlen);
        return GG_ISO_CRASHED;
    }
    return GG_ISO_OK;
}
