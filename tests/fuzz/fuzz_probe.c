/* Fuzz target: probe.csv (base_probe_read_csv, base/probe_data.c), the
 * rates `glgemm probe` writes and the report and the tuner's bound read.
 * Invariants: a refused file says why in one line; an accepted one has
 * status ok, at most GG_PROBE_MAX_ROWS rows of non-empty fields with no
 * comma, finite values, the summary rows it needs (mad max, write
 * targets-1, readback) and summary fields equal to those rows' values;
 * written back (base_probe_write_csv) it reads again with the same rows
 * (values to 6 digits) and the same summary, and writing that gives the
 * same bytes (write(read(write(read(x)))) == write(read(x))). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/probe_data.h"
#include "tests/fuzz/fuzz.h"

static char path[128], path2[128], path3[128];

static void cleanup(void) /* at exit: nothing left in /dev/shm */
{
    unlink(path);
    unlink(path2);
    unlink(path3);
}

static void setup(void)
{
    if (path[0])
        return;
    atexit(cleanup);
    snprintf(path, sizeof path, "/dev/shm/glgemm-fuzz-probe-%ld.csv", (long)getpid());
    snprintf(path2, sizeof path2, "/dev/shm/glgemm-fuzz-probe-%ld-2.csv", (long)getpid());
    snprintf(path3, sizeof path3, "/dev/shm/glgemm-fuzz-probe-%ld-3.csv", (long)getpid());
}

static gg_probe_result r1, r2;

static int six(double a, double b)
{
    char x[64];
    snprintf(x, sizeof x, "%.6g", a);
    return strtod(x, NULL) == b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    setup();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FUZZ_CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size, "write %s", path);
    close(fd);
    char err[1024];
    if (base_probe_read_csv(path, &r1, err, sizeof err)) {
        FUZZ_CHECK(fuzz_one_line(err), "message '%s'", err);
        return 0;
    }
    FUZZ_CHECK(r1.status == GG_OK && r1.nrows >= 3 && r1.nrows <= GG_PROBE_MAX_ROWS, "rows %d",
               r1.nrows);
    for (int i = 0; i < r1.nrows; i++) {
        const gg_probe_row *w = &r1.rows[i];
        FUZZ_CHECK(w->metric[0] && w->variant[0] && w->unit[0] && !strchr(w->metric, ',') &&
                       !strchr(w->variant, ',') && !strchr(w->unit, ','),
                   "row %d fields", i);
        FUZZ_CHECK(isfinite(w->value), "row %d value %g", i, w->value);
    }
    FUZZ_CHECK(r1.write_max_targets >= 1 && r1.write_max_targets <= GG_MAX_TARGETS, "targets %d",
               r1.write_max_targets);
    FUZZ_CHECK(isfinite(r1.mad_gflops) && isfinite(r1.readback_gbs), "summary not finite");

    FUZZ_CHECK(base_probe_write_csv(&r1, path2, err, sizeof err) == 0, "write: %s", err);
    FUZZ_CHECK(base_probe_read_csv(path2, &r2, err, sizeof err) == 0, "written file: %s", err);
    FUZZ_CHECK(r2.nrows == r1.nrows, "rows %d, then %d", r1.nrows, r2.nrows);
    for (int i = 0; i < r1.nrows; i++)
        FUZZ_CHECK(!strcmp(r1.rows[i].metric, r2.rows[i].metric) &&
                       !strcmp(r1.rows[i].variant, r2.rows[i].variant) &&
                       !strcmp(r1.rows[i].unit, r2.rows[i].unit) &&
                       six(r1.rows[i].value, r2.rows[i].value),
                   "row %d changed", i);
    FUZZ_CHECK(six(r1.mad_gflops, r2.mad_gflops) && six(r1.readback_gbs, r2.readback_gbs) &&
                   r1.write_max_targets == r2.write_max_targets &&
                   !strcmp(r1.mad_best, r2.mad_best),
               "summary changed");
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int p = 0; p < GG_FETCH_NPAT; p++)
            FUZZ_CHECK(six(r1.fetch_gtexels[f][p], r2.fetch_gtexels[f][p]), "fetch %d %d", f, p);

    FUZZ_CHECK(base_probe_write_csv(&r2, path3, err, sizeof err) == 0, "write: %s", err);
    size_t l2, l3;
    char *t2 = base_read_text(path2, 1 << 20, &l2, err, sizeof err);
    char *t3 = base_read_text(path3, 1 << 20, &l3, err, sizeof err);
    FUZZ_CHECK(t2 && t3 && l2 == l3 && !memcmp(t2, t3, l2), "written twice, not the same bytes");
    free(t2);
    free(t3);
    return 0;
}
