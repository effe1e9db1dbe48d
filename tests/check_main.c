/* The one test main: every suite of tests/suites.h's GG_SUITES, Check's
 * summary at the end.
 * Programs built by the suites (and the glgemm processes they start) go
 * into a program cache (glhost/progcache.h) of their own: a fresh folder
 * under /tmp, removed at the end, unless GLGEMM_CACHE_DIR is set.  The
 * per-user records folder (store/records.h's store_user_results, which the
 * library reads and tune writes) is a fresh XDG_DATA_HOME likewise, so the
 * suite neither reads nor changes the records of the user running it. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"

/* The run's own cache folder (flat: entries and temporary files). */
static char cache_dir[] = "/tmp/glgemm-check-cache-XXXXXX";

static void remove_cache_dir(void)
{
    DIR *d = opendir(cache_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[sizeof cache_dir + 256];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(cache_dir);
}

static char data_dir[] = "/tmp/glgemm-check-data-XXXXXX";

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Every tests/check_<name>.c but this one must be in GG_SUITES (a suite
 * left out of the list would build and never run).  Checked where the
 * suite runs from the repository root; elsewhere there is nothing to see. */
static const char *const suite_names[] = {
#define GG_SUITE_NAME(name) #name,
    GG_SUITES(GG_SUITE_NAME)
#undef GG_SUITE_NAME
};

static bool all_suites_listed(void)
{
    DIR *d = opendir("tests");
    if (!d)
        return true;
    bool ok = true;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "check_", 6) || n < 9 || strcmp(e->d_name + n - 2, ".c") ||
            !strcmp(e->d_name, "check_main.c"))
            continue;
        bool found = false;
        for (size_t i = 0; i < sizeof suite_names / sizeof *suite_names && !found; i++)
            found = strlen(suite_names[i]) == n - 8 && !strncmp(e->d_name + 6, suite_names[i], n - 8);
        if (!found) {
            fprintf(stderr, "check_glgemm: tests/%s has no X(%.*s) in tests/suites.h's GG_SUITES\n",
                    e->d_name, (int)(n - 8), e->d_name + 6);
            ok = false;
        }
    }
    closedir(d);
    return ok;
}

int main(int argc, char **argv)
{
    /* --list: the suites' names, one a line (for CK_RUN_SUITE). */
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < sizeof suite_names / sizeof *suite_names; i++)
            puts(suite_names[i]);
        return EXIT_SUCCESS;
    }
    if (!all_suites_listed())
        return EXIT_FAILURE;
    /* The binary the CLI cases run (tests/cli_util.h): $GLGEMM_BIN, else
     * ./glgemm, made absolute here once, since cases change folders. */
    const char *bin = getenv("GLGEMM_BIN");
    char abs_bin[PATH_MAX];
    if (realpath(bin && *bin ? bin : "./glgemm", abs_bin))
        setenv("GLGEMM_BIN", abs_bin, 1);
    else if (bin && *bin)
        fprintf(stderr, "check_glgemm: GLGEMM_BIN=%s: %s (the CLI cases will fail)\n", bin,
                strerror(errno));
    if (!mkdtemp(data_dir)) {
        perror("check_glgemm: mkdtemp for XDG_DATA_HOME");
        return EXIT_FAILURE;
    }
    setenv("XDG_DATA_HOME", data_dir, 1);
    /* Calls go to the GPU unless a case sets a crossover (the committed
     * results/<card>/crossover.txt would send small ones to the CPU). */
    setenv("GLGEMM_CROSSOVER", "0", 1);
    const char *dir = getenv("GLGEMM_CACHE_DIR");
    bool own_cache = !dir || !*dir;
    if (own_cache) {
        if (!mkdtemp(cache_dir)) {
            perror("check_glgemm: mkdtemp for the program cache");
            return EXIT_FAILURE;
        }
        setenv("GLGEMM_CACHE_DIR", cache_dir, 1);
    }
    SRunner *sr = srunner_create(NULL);
#define GG_ADD_SUITE(name) srunner_add_suite(sr, make_##name##_suite());
    GG_SUITES(GG_ADD_SUITE)
#undef GG_ADD_SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (own_cache)
        remove_cache_dir();
    nftw(data_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
