/* The one test main: every layer's suite, Check's summary at the end.
 * Programs built by the suites (and the glgemm processes they start) go
 * into a program cache (glhost/progcache.h) of their own: a fresh folder
 * under /tmp, removed at the end, unless GLGEMM_CACHE_DIR is set.  The
 * per-user records folder (store/records.h's gg_user_results, which the
 * library reads and tune writes) is a fresh XDG_DATA_HOME likewise, so the
 * suite neither reads nor changes the records of the user running it. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
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

int main(void)
{
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
    SRunner *sr = srunner_create(make_gen_suite());
    srunner_add_suite(sr, make_program_suite());
    srunner_add_suite(sr, make_context_suite());
    srunner_add_suite(sr, make_search_suite());
    srunner_add_suite(sr, make_records_suite());
    srunner_add_suite(sr, make_isolate_suite());
    srunner_add_suite(sr, make_tune_suite());
    srunner_add_suite(sr, make_pack_suite());
    srunner_add_suite(sr, make_gemm_suite());
    srunner_add_suite(sr, make_ref_suite());
    srunner_add_suite(sr, make_csv_suite());
    srunner_add_suite(sr, make_probe_suite());
    srunner_add_suite(sr, make_badinput_suite());
    srunner_add_suite(sr, make_api_suite());
    srunner_add_suite(sr, make_bench_suite());
    srunner_add_suite(sr, make_report_suite());
    srunner_add_suite(sr, make_regress_suite());
    srunner_add_suite(sr, make_fault_suite());
    srunner_add_suite(sr, make_half_suite());
    srunner_add_suite(sr, make_bound_suite());
    srunner_add_suite(sr, make_evaluator_suite());
    srunner_add_suite(sr, make_progcache_suite());
    srunner_add_suite(sr, make_image_suite());
    srunner_add_suite(sr, make_lib_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (own_cache)
        remove_cache_dir();
    nftw(data_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
