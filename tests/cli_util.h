/* Helpers the bench and report suites share: a temporary folder, running
 * the glgemm binary ($GLGEMM_BIN, else ./glgemm) with its output captured,
 * reading a file whole.  Header-only (static), test code only. */
#ifndef GLGEMM_TEST_CLI_UTIL_H
#define GLGEMM_TEST_CLI_UTIL_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *tu_bin(void)
{
    const char *b = getenv("GLGEMM_BIN");
    static char abs_path[4096];
    if (b && *b)
        return b;
    ck_assert_msg(realpath("./glgemm", abs_path) != NULL, "set GLGEMM_BIN to the glgemm binary");
    return abs_path;
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

/* Runs `[env] glgemm ARGS` in dir; stdout and stderr into *out / *err
 * (malloc'd, caller frees; may be NULL to drop them).  Returns the exit
 * status. */
static inline int tu_run(const char *dir, const char *env, const char *args, char **out, char **err)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >.stdout 2>.stderr", dir, env ? env : "",
             tu_bin(), args);
    int st = system(cmd);
    ck_assert_msg(st != -1 && WIFEXITED(st), "could not run %s", cmd);
    char p[700];
    snprintf(p, sizeof p, "%s/.stdout", dir);
    char *o = tu_read(p);
    unlink(p);
    snprintf(p, sizeof p, "%s/.stderr", dir);
    char *e = tu_read(p);
    unlink(p);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = e;
    else
        free(e);
    return WEXITSTATUS(st);
}

static inline int tu_count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

#endif
