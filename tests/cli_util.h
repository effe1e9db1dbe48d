/* Helpers the suites share: a temporary folder, running the glgemm binary
 * ($GLGEMM_BIN; tests/check_main.c makes it absolute, ./glgemm when unset)
 * with its output captured, reading and writing a file whole.  Header-only
 * (static), test code only.
 *
 * Every run of the binary in the tests goes through tu_exec (tu_run is the
 * same with the arguments in one string): fork + execv, no shell, stdin
 * /dev/null, stdout and stderr captured whole, a deadline. */
#ifndef GLGEMM_TEST_CLI_UTIL_H
#define GLGEMM_TEST_CLI_UTIL_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A run that takes longer is killed and the case fails (a file may set its
 * own before including this). */
#ifndef TU_RUN_TIMEOUT_S
#define TU_RUN_TIMEOUT_S 300
#endif

static inline const char *tu_bin(void)
{
    const char *b = getenv("GLGEMM_BIN");
    ck_assert_msg(b && *b && access(b, X_OK) == 0,
                  "no glgemm binary: set GLGEMM_BIN or run from the folder holding glgemm");
    return b;
}

static inline void tu_mkdtemp(char *dir, size_t len, const char *tag)
{
    snprintf(dir, len, "/tmp/glgemm-%s-XXXXXX", tag);
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static inline void tu_rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The whole file, malloc'd (NULL when unreadable). */
static inline char *tu_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf)
        buf[got] = '\0';
    return buf;
}

/* Writes text to path (replacing it); asserts it could. */
static inline void tu_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* A tuning record DIR/CARD/best-MxNxK.txt naming variant v at gflops (the
 * card's folder made if need be); asserts it could. */
static inline void tu_write_best(const char *dir, const char *card, int m, int n, int k,
                                 const char *v, double gflops)
{
    char path[700], text[400];
    snprintf(path, sizeof path, "%s/%s", dir, card);
    ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
                  strerror(errno));
    snprintf(path, sizeof path, "%s/%s/best-%dx%dx%d.txt", dir, card, m, n, k);
    snprintf(text, sizeof text, "%s\ngflops: %g\n", v, gflops);
    tu_write(path, text);
}

/* What one run of the binary did. */
typedef struct {
    int status;      /* the exit status; -1 when a signal ended it */
    int sig;         /* that signal, else 0 */
    char *out, *err; /* stdout and stderr whole, malloc'd (tu_result_free) */
} tu_result;

static inline void tu_result_free(tu_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* The rest of a file from its start, malloc'd; closes it. */
static inline char *tu_slurp_fd(int fd)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        ck_assert_msg(n >= 0, "reading a captured output: %s", strerror(errno));
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fd);
    return buf;
}

/* A run started by tu_spawn: its process, its captured outputs, what it is. */
typedef struct {
    pid_t pid;
    int fo, fe;
    char what[1024];
} tu_proc;

/* Starts bin with args (NULL-terminated, after the binary's name) in dir
 * (NULL: here), stdin /dev/null, stdout and stderr into unlinked files.
 * env: space-separated words, NAME=VALUE to set and NAME to unset in the
 * child (NULL or "": none).  Fails the case when it cannot start. */
static inline void tu_spawn(const char *bin, const char *dir, const char *env,
                            const char *const *args, tu_proc *pr)
{
    enum { MAXARGS = 64 };
    char *argv[MAXARGS + 2];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args && args[n - 1]; n++) {
        ck_assert_msg(n <= MAXARGS, "tu_exec: more than %d arguments", MAXARGS);
        argv[n] = (char *)args[n - 1];
    }
    argv[n] = NULL;
    const char *base = strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;
    size_t w = (size_t)snprintf(pr->what, sizeof pr->what, "%s", base);
    for (int i = 1; i < n && w < sizeof pr->what; i++)
        w += (size_t)snprintf(pr->what + w, sizeof pr->what - w, " '%s'", argv[i]);
    /* The child's environment, made here: after the fork only
     * async-signal-safe calls (the parent may have GL driver threads). */
    extern char **environ;
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char envbuf[1024];
    snprintf(envbuf, sizeof envbuf, "%s", env ? env : "");
    char **envp = calloc(nenv + 64 + 1, sizeof *envp);
    ck_assert_ptr_nonnull(envp);
    size_t ne = 0;
    for (size_t i = 0; i < nenv; i++)
        envp[ne++] = environ[i];
    for (char *save = NULL, *t = strtok_r(envbuf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        size_t name = eq ? (size_t)(eq - t) : strlen(t);
        size_t kept = 0;
        for (size_t i = 0; i < ne; i++)
            if (strncmp(envp[i], t, name) || envp[i][name] != '=')
                envp[kept++] = envp[i];
        ne = kept;
        if (eq) {
            ck_assert_msg(ne < nenv + 64, "tu_exec: too many variables in '%s'", env ? env : "");
            envp[ne++] = t;
        }
    }
    envp[ne] = NULL;
    char outp[] = "/tmp/glgemm-run-out-XXXXXX", errp[] = "/tmp/glgemm-run-err-XXXXXX";
    pr->fo = mkstemp(outp);
    pr->fe = mkstemp(errp);
    ck_assert_msg(pr->fo >= 0 && pr->fe >= 0, "mkstemp: %s", strerror(errno));
    unlink(outp);
    unlink(errp);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        static const char nodir[] = "tu_exec: cannot enter the folder\n",
                          noexec[] = "tu_exec: cannot execute the binary\n";
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(pr->fo, 1) < 0 || dup2(pr->fe, 2) < 0)
            _exit(126);
        if (dir && chdir(dir) != 0) {
            ssize_t ignored = write(2, nodir, sizeof nodir - 1);
            (void)ignored;
            _exit(126);
        }
        execve(bin, argv, envp);
        ssize_t ignored = write(2, noexec, sizeof noexec - 1);
        (void)ignored;
        _exit(127);
    }
    free(envp);
    pr->pid = pid;
}

/* Waits for a spawned run (at most timeout_s: then it is killed and the
 * case fails) and collects what it did into r. */
static inline void tu_wait(tu_proc *pr, const char *dir, int timeout_s, tu_result *r)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = 0;
    useconds_t nap = 200;
    for (;;) {
        pid_t got = waitpid(pr->pid, &st, WNOHANG);
        if (got == pr->pid)
            break;
        ck_assert_msg(got == 0 || errno == EINTR, "waitpid: %s", strerror(errno));
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec >= timeout_s) {
            kill(pr->pid, SIGKILL);
            waitpid(pr->pid, &st, 0);
            char *e = tu_slurp_fd(pr->fe);
            close(pr->fo);
            ck_abort_msg("%s did not finish in %d s; stderr: %s", pr->what, timeout_s, e);
        }
        usleep(nap);
        if (nap < 20000)
            nap *= 2;
    }
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    r->out = tu_slurp_fd(pr->fo);
    r->err = tu_slurp_fd(pr->fe);
    if ((r->status == 126 || r->status == 127) && strstr(r->err, "tu_exec: "))
        ck_abort_msg("%s in %s: %s", pr->what, dir ? dir : ".", r->err);
}

/* Runs the glgemm binary with args (NULL-terminated, after the binary's
 * name) in dir (NULL: here), env as tu_spawn's.  Fails the case when it
 * cannot run or runs past TU_RUN_TIMEOUT_S; an end by a signal is
 * reported in r for the caller to judge. */
static inline void tu_exec(const char *dir, const char *env, const char *const *args, tu_result *r)
{
    tu_proc pr;
    tu_spawn(tu_bin(), dir, env, args, &pr);
    tu_wait(&pr, dir, TU_RUN_TIMEOUT_S, r);
}

/* Runs `glgemm ARGS` in dir (NULL: here) with env as tu_exec's.  ARGS is
 * split into words at blanks; '...' and "..." quote (no other shell
 * syntax).  stdout and stderr into *out / *err (malloc'd, caller frees; may
 * be NULL to drop them).  Returns the exit status; an end by a signal fails
 * the case. */
static inline int tu_run(const char *dir, const char *env, const char *args, char **out, char **err)
{
    enum { MAXARGS = 64 };
    size_t len = strlen(args);
    char *words = malloc(len + 1);
    ck_assert_ptr_nonnull(words);
    const char *argv[MAXARGS + 1];
    int n = 0;
    char *o = words;
    for (const char *p = args;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        ck_assert_msg(n < MAXARGS, "tu_run: more than %d arguments", MAXARGS);
        argv[n++] = o;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q)
                    *o++ = *p++;
                ck_assert_msg(*p == q, "tu_run: unclosed %c in %s", q, args);
                p++;
            } else {
                *o++ = *p++;
            }
        }
        *o++ = '\0';
    }
    argv[n] = NULL;
    tu_result r;
    tu_exec(dir, env, argv, &r);
    free(words);
    ck_assert_msg(r.sig == 0, "glgemm %s: killed by signal %d; stderr: %s", args, r.sig, r.err);
    if (out)
        *out = r.out;
    else
        free(r.out);
    if (err)
        *err = r.err;
    else
        free(r.err);
    return r.status;
}

static inline int tu_count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

#endif
