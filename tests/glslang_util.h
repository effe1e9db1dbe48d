/* Test support: glslangValidator, a compiler other than the driver, on a
 * shader text (header only, test code only). */
#ifndef GLGEMM_TEST_GLSLANG_UTIL_H
#define GLGEMM_TEST_GLSLANG_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs glslangValidator with the extra arguments on text (the stage by the
 * extension ext: "frag", "vert"), in a folder of its own (so that -G's
 * <stage>.spv lands there and goes with it); returns its exit status, its
 * output in log (if any). */
static inline int tu_glslang(const char *text, const char *ext, const char *extra, char *log,
                             size_t loglen)
{
    char dir[] = "/tmp/glgemm-check-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char src[128], out[128], spv[160], cmd[512];
    snprintf(src, sizeof src, "%s/s.%s", dir, ext);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && glslangValidator %s %s > %s 2>&1", dir, extra, src, out);
    int rc = system(cmd);
    if (log && loglen) {
        log[0] = '\0';
        f = fopen(out, "r");
        if (f) {
            size_t n = fread(log, 1, loglen - 1, f);
            log[n] = '\0';
            fclose(f);
        }
    }
    unlink(src);
    unlink(out);
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, ext);
    unlink(spv);
    rmdir(dir);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#endif
