/* glgemm tune through the binary: bad input is exit 2 with one line and no
 * GL; a tiny real tune (llvmpipe) writes its records and best file, and a
 * second one resumes from them without measuring anything again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli_util.h"
#include "tests/suites.h"

/* Runs `glgemm tune ARGS` (tests/cli_util.h); stdout and stderr into the
 * buffers (cut to fit). */
static int run(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
    char full[2048], *o, *e;
    snprintf(full, sizeof full, "tune %s", args);
    int rc = tu_run(NULL, NULL, full, &o, &e);
    snprintf(out, outlen, "%s", o);
    snprintf(err, errlen, "%s", e);
    free(o);
    free(e);
    return rc;
}

static const struct {
    const char *args;
    const char *msg;
} bad[] = {
    {"--search sideways", "--search must be phase, exhaustive or random"},
    {"--fix colour=red", "unknown key 'colour'"},
    {"--fix acc=blend,acc=copy", "twice"},
    {"--fix mc=3x3", "mc"},
    {"--search random", "needs --budget"},
    {"--budget 0", "--budget"},
    {"--timeout -1", "--timeout"},
    {"--keep 99", "--keep"},
    {"--finalists 17", "--finalists must be an integer from 0 to 16"},
    {"--max-time 0", "--max-time must be seconds"},
    {"--compile-timeout never", "--compile-timeout must be seconds"},
    {"--verbose=yes", "--verbose takes no value"},
    {"--size 0", "--size"},
    {"extra", "unexpected argument"},
};

START_TEST(test_bad_input)
{
    char out[4096], err[4096];
    int rc = run(bad[_i].args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 2, "'%s': exit %d", bad[_i].args, rc);
    ck_assert_msg(strstr(err, bad[_i].msg) != NULL, "'%s': stderr '%s'", bad[_i].args, err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "'%s': not one line: '%s'",
                  bad[_i].args, err);
    ck_assert_str_eq(out, "");
}
END_TEST

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

START_TEST(test_real_tune_and_resume)
{
    char dir[] = "/tmp/glgemm-tune-res-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char args[512], out[16384], err[16384];
    snprintf(args, sizeof args, "--size 16 --reps 1 --results %s "
                                "--fix profile=330,compiler=glsl,unroll=0,acc=pingpong,mc=2x2,mrt=1x2,ku=1",
             dir);
    int rc = run(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d; stdout %s; stderr %s", rc, out, err);
    ck_assert_msg(!strncmp(out, "best: mrt=1x2,mc=2x2,np=", 24), "stdout: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32\n"));
    ck_assert_ptr_nonnull(strstr(out, "vs nv-single"));
    ck_assert_ptr_nonnull(strstr(out, "vs nv-multi"));
    /* 2x2 at k=16: 8 k-steps, np 1..8: phase looks at most at all 8. */
    long visited = 0, measured = 0, memo = 0;
    const char *sl = strstr(out, "search: phase");
    ck_assert_ptr_nonnull(sl);
    const char *counts = strstr(sl + strlen("search: phase"), ": "); /* after the --fix text */
    ck_assert_ptr_nonnull(counts);
    ck_assert_int_eq(sscanf(counts + 2, "%ld variants: %ld measured now, %ld from the records",
                            &visited, &measured, &memo), 3);
    ck_assert(visited >= 4 && visited <= 8 && measured == visited && memo == 0);
    /* The slug folder: the one folder under dir. */
    char cmd[700], slugdir[600] = "";
    snprintf(cmd, sizeof cmd, "ls -d %s/*/", dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(fgets(slugdir, sizeof slugdir, p));
    pclose(p);
    slugdir[strcspn(slugdir, "\n")] = '\0';
    char rec[700], best[700];
    snprintf(rec, sizeof rec, "%stune-16x16x16.csv", slugdir);
    snprintf(best, sizeof best, "%sbest-16x16x16.txt", slugdir);
    /* header + the search's rows + the two presets */
    ck_assert_int_eq(count_lines(rec), 1 + (int)visited + 2);
    ck_assert_int_ge(count_lines(best), 2);
    /* The best file is also in the per-user records folder (the suite's own
     * XDG_DATA_HOME, tests/check_main.c), the same text. */
    {
        char slug[200], user[1200];
        snprintf(slug, sizeof slug, "%s", slugdir + strlen(dir) + 1);
        slug[strcspn(slug, "/")] = '\0';
        snprintf(user, sizeof user, "%s/glgemm/results/%s/best-16x16x16.txt",
                 getenv("XDG_DATA_HOME"), slug);
        char *u = tu_read(user), *b = tu_read(best);
        ck_assert_msg(u != NULL, "no user copy %s", user);
        ck_assert_str_eq(u, b);
        ck_assert_ptr_nonnull(strstr(out, "user records: "));
        free(u);
        free(b);
    }

    /* Again: everything from the records, nothing measured, nothing added. */
    rc = run(args, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d; stderr %s", rc, err);
    ck_assert_ptr_nonnull(strstr(out, "0 measured now"));
    ck_assert_ptr_nonnull(strstr(err, "resuming"));
    ck_assert_int_eq(count_lines(rec), 1 + (int)visited + 2);

    /* --fresh: measured again, the old records moved aside. */
    char fresh[600];
    snprintf(fresh, sizeof fresh, "%s --fresh", args);
    rc = run(fresh, out, sizeof out, err, sizeof err);
    ck_assert_msg(rc == 0, "exit %d; stderr %s", rc, err);
    ck_assert_ptr_nonnull(strstr(err, ".old"));
    ck_assert_ptr_null(strstr(out, " 0 measured now"));

    /* A records file that is not ours: exit 2, untouched. */
    FILE *f = fopen(rec, "w");
    fputs("name,value\n", f);
    fclose(f);
    rc = run(args, out, sizeof out, err, sizeof err);
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(err, "header"));
    ck_assert_int_eq(count_lines(rec), 1);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_tune_suite(void)
{
    Suite *s = suite_create("tune");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_bad_input, 0, (int)(sizeof bad / sizeof *bad));
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("cli_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 300);
    tcase_add_test(gl, test_real_tune_and_resume);
    suite_add_tcase(s, gl);
    return s;
}
