/* Fuzz target: the best files (store_best_read_path, store/records.c; its
 * users store_best_read_store and store/nearest.c) with every line a tune
 * writes (variant, gflops, seconds, rel_err, card, problem, written,
 * remeasured), and best files' names (store_best_name_parse, store/paths.c).
 * The input is written as DIR/<card>/best-8x8x8.txt; its first line, with
 * the bytes after it, is also tried as a file name.
 * Invariants: a file is read (0) exactly when its first line up to the
 * first blank is a variant, which is then in range (its canonical form
 * parses back); gflops is a finite number >= 0 (0 when the second line
 * gives none); the lines past the second change nothing (cut them off:
 * the same answer); a refusal says why in one line; nearest finds this
 * file exactly when it reads (the folder has no other) and gives the same
 * variant; the file store_best_write writes for the variant and its
 * numbers (a `remeasured:` line when the input asks) reads back as the
 * same variant and the same gflops to 6 digits.  A name is a best file's
 * exactly when it is what store_best_path_store writes for the size and
 * store it parses to. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/nearest.h"
#include "store/records.h"
#include "tests/fuzz/fuzz.h"

#define CARD "fuzz-card"

static char dir[128], path[256];

static char folder[200];

static void cleanup(void) /* at exit: nothing left in /dev/shm */
{
    char f16[256];
    store_best_path_store(f16, sizeof f16, dir, CARD, 8, 8, 8, GG_STORE_F16);
    unlink(path);
    unlink(f16);
    rmdir(folder);
    rmdir(dir);
}

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/dev/shm/glgemm-fuzz-best-%ld", (long)getpid());
    snprintf(folder, sizeof folder, "%s/" CARD, dir);
    mkdir(dir, 0755);
    FUZZ_CHECK(mkdir(folder, 0755) == 0 || errno == EEXIST, "mkdir %s", folder);
    store_best_path(path, sizeof path, dir, CARD, 8, 8, 8);
    atexit(cleanup);
}

static void put(const char *p, const void *data, size_t size)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FUZZ_CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size, "write %s", p);
    close(fd);
}

static const char *canon(const gg_variant *v, char *buf)
{
    return gen_variant_format(v, buf, GG_VARIANT_TEXT);
}

static void names(const uint8_t *data, size_t size)
{
    char name[128];
    size_t n = size < sizeof name - 1 ? size : sizeof name - 1;
    memcpy(name, data, n);
    name[n] = '\0';
    name[strcspn(name, "\n")] = '\0';
    int m = -1, nn = -1, k = -1;
    gg_store st = GG_STORE_COUNT;
    char again[512], tail[512];
    if (store_best_name_parse(name, &m, &nn, &k, &st)) {
        FUZZ_CHECK(m >= 1 && nn >= 1 && k >= 1 && (unsigned)st < GG_STORE_COUNT, "%s: %d %d %d %d",
                   name, m, nn, k, st);
        store_best_path_store(again, sizeof again, "d", "c", m, nn, k, st);
        snprintf(tail, sizeof tail, "d/c/%s", name);
        FUZZ_CHECK(!strcmp(again, tail), "name '%s' is read as %s", name, again);
    } else {
        /* Had it been written for some size, it would parse: try the one
         * its digits would give. */
        int a, b, c;
        for (int s = 0; s < GG_STORE_COUNT; s++) {
            char prefix[32];
            size_t pl = strlen(store_best_prefix(prefix, sizeof prefix, (gg_store)s));
            if (strncmp(name, prefix, pl) || sscanf(name + pl, "%9dx%9dx%9d", &a, &b, &c) != 3 ||
                a < 1 || b < 1 || c < 1)
                continue;
            store_best_path_store(again, sizeof again, "d", "c", a, b, c, (gg_store)s);
            snprintf(tail, sizeof tail, "d/c/%s", name);
            FUZZ_CHECK(strcmp(again, tail), "'%s', as written for %dx%dx%d, refused", name, a, b, c);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    setup();
    names(data, size);
    put(path, data, size);
    gg_variant v, w;
    double g = -1, g2 = -1;
    char why[512], why2[512], c1[GG_VARIANT_TEXT], c2[GG_VARIANT_TEXT];
    int rc = store_best_read_path(path, &v, &g, why, sizeof why);
    FUZZ_CHECK(rc >= 0 && rc <= GG_BEST_BAD, "rc %d", rc);

    /* The first two lines alone: the same answer. */
    const uint8_t *nl1 = memchr(data, '\n', size);
    const uint8_t *nl2 = nl1 ? memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - data)) : NULL;
    if (nl2) {
        put(path, data, (size_t)(nl2 + 1 - data));
        int rc2 = store_best_read_path(path, &w, &g2, why2, sizeof why2);
        FUZZ_CHECK(rc2 == rc, "two lines: rc %d, whole file %d", rc2, rc);
        if (rc == 0)
            FUZZ_CHECK(!strcmp(canon(&v, c1), canon(&w, c2)) && !memcmp(&g, &g2, sizeof g),
                       "two lines: %s %g, whole file %s %g", c2, g2, c1, g);
        put(path, data, size);
    }

    gg_nearest near;
    int nrc = store_best_nearest(dir, CARD, 8, 8, 8, &near);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_one_line(why), "message '%s'", why);
        FUZZ_CHECK(nrc == -1, "nearest took a file that does not read");
        return 0;
    }
    FUZZ_CHECK(nrc == 0 && near.m == 8 && near.n == 8 && near.k == 8 &&
                   !strcmp(canon(&near.v, c1), canon(&v, c2)),
               "nearest %d", nrc);
    canon(&v, c1);
    FUZZ_CHECK(gen_variant_parse(c1, NULL, &w, why, sizeof why) == 0, "canonical %s: %s", c1, why);
    FUZZ_CHECK(isfinite(g) && g >= 0, "gflops %g", g);

    /* As a tune writes it, remeasured line and all. */
    gg_measurement m;
    base_measurement_init(&m);
    m.gflops = g;
    m.seconds = (double)size / 1000;
    m.rel_err = size % 3 ? 1e-7 : -1;
    m.reps = size % 4 ? (int)(size % 9) : 0;
    m.spread = (double)(size % 50) / 100;
    FUZZ_CHECK(store_best_write(dir, CARD, 8, 8, 8, &v, &m, why, sizeof why) == 0, "write: %s", why);
    char bpath[256];
    store_best_path_store(bpath, sizeof bpath, dir, CARD, 8, 8, 8, v.store);
    g2 = -1;
    FUZZ_CHECK(store_best_read_path(bpath, &w, &g2, why, sizeof why) == 0, "written file: %s", why);
    char six[64];
    snprintf(six, sizeof six, "%.6g", g);
    FUZZ_CHECK(!strcmp(canon(&w, c2), c1) && g2 == strtod(six, NULL), "wrote %s %s, read %s %g",
               c1, six, c2, g2);
    if (v.store != GG_STORE_F32)
        unlink(bpath);
    return 0;
}
