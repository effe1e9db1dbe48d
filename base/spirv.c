/* GLSL -> SPIR-V through glslangValidator (see base/spirv.h). */
#include "base/spirv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/fileio.h"

/* The validator's messages and binary are read whole; no real limit. */
#define MAX_READ ((size_t)1 << 30)

#define VALIDATOR "glslangValidator"

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

static int write_all(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The files a compile leaves in its folder (removed after it). */
static const char *const folder_files[] = {"shader.vert", "shader.frag", "shader.spv", "log.txt"};

/* Removes the folder TMP/name and the files a compile puts in it. */
static void remove_folder(const char *tmp, const char *name)
{
    char p[4400];
    for (size_t i = 0; i < sizeof folder_files / sizeof *folder_files; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", tmp, name, folder_files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    rmdir(p);
}

static const char *tmp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

/* A process killed while glslangValidator ran (kill -9 of a tune takes its
 * evaluation worker with it) cannot remove its folder.  Folders are named
 * glgemm-spirv-<pid>-XXXXXX; the first look-up of the validator in each
 * process (every GL context asks, compiling or not) removes those whose
 * process is gone (kill(pid, 0): ESRCH).  A folder of a live process, or of
 * another user's, is left alone. */
static void sweep_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = 0;
        int used = 0;
        if (sscanf(e->d_name, "glgemm-spirv-%ld-%n", &pid, &used) != 1 || used == 0 || pid <= 0 ||
            strlen(e->d_name + used) != 6)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        remove_folder(tmp, e->d_name);
    }
    closedir(d);
}

/* Looked up once a process (pthread_once: threads building programs at
 * once ask together). */
static bool available;

static void find_validator(void)
{
    bool cached = false;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path && !cached) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        char full[4096];
        if (n > 0 && n + sizeof VALIDATOR + 2 < sizeof full) {
            snprintf(full, sizeof full, "%.*s/%s", (int)n, path, VALIDATOR);
            cached = access(full, X_OK) == 0;
        }
        path += n + (end ? 1 : 0);
    }
    available = cached;
    sweep_stale(tmp_dir());
}

bool base_spirv_available(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_validator);
    return available;
}

gg_spirv_result base_spirv_compile(const char *glsl, gg_stage stage, void **spv, size_t *spv_len,
                                 char **log)
{
    *spv = NULL;
    *spv_len = 0;
    if (log)
        *log = NULL;
    if (!base_spirv_available()) {
        if (log)
            *log = dup_printf("%s: not found on PATH (install glslang-tools)", VALIDATOR);
        return GG_SPIRV_NO_COMPILER;
    }
    const char *tmp = tmp_dir();
    char dir[4096], src[4200], out[4200], msg[4200];
    snprintf(dir, sizeof dir, "%s/glgemm-spirv-%ld-XXXXXX", tmp, (long)getpid());
    if (!mkdtemp(dir)) {
        if (log)
            *log = dup_printf("cannot make a temporary folder in %s: %s", tmp, strerror(errno));
        return GG_SPIRV_SYSTEM_ERROR;
    }
    const char *ext = stage == GG_STAGE_VERTEX ? "vert" : "frag";
    snprintf(src, sizeof src, "%s/shader.%s", dir, ext);
    snprintf(out, sizeof out, "%s/shader.spv", dir);
    snprintf(msg, sizeof msg, "%s/log.txt", dir);

    gg_spirv_result res = GG_SPIRV_SYSTEM_ERROR;
    char *text = NULL;
    if (write_all(src, glsl)) {
        if (log)
            *log = dup_printf("cannot write %s: %s", src, strerror(errno));
        goto done;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        if (log)
            *log = dup_printf("fork failed: %s", strerror(errno));
        goto done;
    }
    if (pid == 0) {
#ifdef __linux__
        /* It dies with its caller: a caller killed while it was stopped (the
         * evaluator's warm worker, SIGSTOPped with its group during timed
         * reps) left it stopped forever. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
#endif
        int fd = open(msg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp(VALIDATOR, VALIDATOR, "-G", "-S", ext, "-o", out, src, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            if (log)
                *log = dup_printf("waitpid failed: %s", strerror(errno));
            goto done;
        }
    }
    text = base_read_text(msg, MAX_READ, NULL, NULL, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        if (log)
            *log = dup_printf("%s could not be run", VALIDATOR);
        res = GG_SPIRV_NO_COMPILER;
        goto done;
    }
    if (!WIFEXITED(status)) {
        if (log)
            *log = dup_printf("%s was killed by a signal", VALIDATOR);
        goto done;
    }
    if (WEXITSTATUS(status) != 0) {
        res = GG_SPIRV_REJECTED;
        if (log) {
            *log = text;
            text = NULL;
        }
        goto done;
    }
    size_t n = 0;
    char *bin = base_read_text(out, MAX_READ, &n, NULL, 0);
    if (!bin || n == 0 || n % 4 != 0) {
        free(bin);
        if (log)
            *log = dup_printf("%s succeeded but wrote no SPIR-V binary", VALIDATOR);
        goto done;
    }
    *spv = bin;
    *spv_len = n;
    res = GG_SPIRV_OK;
    if (log) {
        *log = text;
        text = NULL;
    }
done:
    free(text);
    unlink(src);
    unlink(out);
    unlink(msg);
    rmdir(dir);
    return res;
}
