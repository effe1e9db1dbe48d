/* Fuzz target: the tuning-record file reader and the best file (resume in
 * store_records_open and store_best_read, store/records.c).  The input is written
 * as results/<card>/tune-8x8x8.csv and as best-8x8x8.txt in a folder under
 * /dev/shm, then read back.
 * Invariants: a refused records file is left byte for byte as it was and err
 * is one line; an accepted one is cut to a prefix of itself (or, when it had
 * no complete line, rewritten as the header alone) that starts with the
 * header line and ends with a newline; opening that again finds the same
 * rows, nothing torn and the same lines skipped; every row handed over is a
 * variant whose canonical form parses back; one appended row reads back as
 * one more row.  store_best_read accepts a file only with a variant in canonical
 * range, else one line in err. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/csv.h"
#include "store/records.h"
#include "tests/fuzz/fuzz.h"

#define CARD "fuzz-card"
#define SIZE 8

static char dir[128], tune_path[256], best_path[256];
static FILE *devnull;

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/dev/shm/glgemm-fuzz-records-%ld", (long)getpid());
    char folder[200];
    snprintf(folder, sizeof folder, "%s/" CARD, dir);
    mkdir(dir, 0755);
    FUZZ_CHECK(mkdir(folder, 0755) == 0 || errno == EEXIST, "mkdir %s", folder);
    snprintf(tune_path, sizeof tune_path, "%s/tune-%dx%dx%d.csv", folder, SIZE, SIZE, SIZE);
    store_best_path(best_path, sizeof best_path, dir, CARD, SIZE, SIZE, SIZE);
    devnull = fopen("/dev/null", "w");
    FUZZ_CHECK(devnull != NULL, "/dev/null");
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FUZZ_CHECK(fd >= 0, "open %s", path);
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write %s", path);
    close(fd);
}

static unsigned char *get(const char *path, size_t *len)
{
    static unsigned char buf[1 << 16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    FUZZ_CHECK(fd >= 0, "open %s", path);
    ssize_t n = read(fd, buf, sizeof buf);
    FUZZ_CHECK(n >= 0 && (size_t)n < sizeof buf, "read %s", path);
    close(fd);
    *len = (size_t)n;
    return buf;
}

static void each_row(void *user, const gg_variant *v, const gg_measurement *m)
{
    char canon[GG_VARIANT_TEXT], err[256];
    gg_variant w;
    gen_variant_format(v, canon, sizeof canon);
    FUZZ_CHECK(gen_variant_parse(canon, NULL, &w, err, sizeof err) == 0, "row variant %s", canon);
    FUZZ_CHECK((unsigned)m->status < GG_STATUS_COUNT, "status %d", m->status);
    ++*(long *)user;
}

/* Opens with stderr (the warnings) sent to /dev/null. */
static gg_records *open_quiet(long *rows, gg_records_info *info, char *err, size_t errlen)
{
    FILE *saved = stderr;
    stderr = devnull;
    *rows = 0;
    gg_records *r = store_records_open(dir, CARD, SIZE, SIZE, SIZE, false, each_row, rows, info, err,
                                    errlen);
    stderr = saved;
    return r;
}

/* What opening makes of a file from before some variant columns (its
 * first line GG_CSV_HEADER_V1, _V2 or _V3): today's header,
 * "f32,rt,-,texture,-,1,plain," after the eleventh comma of every whole
 * line of 16 fields, "rt,-,texture,-,1,plain," after the twelfth of every
 * whole line of 17 and "-,1,plain," after the fifteenth of every whole line
 * of 20, other lines as they were.  Anything else: the data itself.  Malloc'd. */
static unsigned char *migrated(const uint8_t *data, size_t size, size_t *out_len)
{
    unsigned char *m = malloc(3 * size + sizeof GG_CSV_HEADER + 8);
    size_t o = 0, ol = 0;
    const char *olds[3] = {GG_CSV_HEADER_V1 "\n", GG_CSV_HEADER_V2 "\n", GG_CSV_HEADER_V3 "\n"};
    for (int h = 0; h < 3 && !ol; h++)
        if (size > strlen(olds[h]) - 1 && !memcmp(data, olds[h], strlen(olds[h])))
            ol = strlen(olds[h]) - 1;
    if (!ol) {
        memcpy(m, data, size);
        *out_len = size;
        return m;
    }
    o = (size_t)sprintf((char *)m, "%s\n", GG_CSV_HEADER);
    for (size_t pos = ol + 1; pos < size;) {
        const uint8_t *end = memchr(data + pos, '\n', size - pos);
        size_t n = end ? (size_t)(end - (data + pos)) + 1 : size - pos, commas = 0, at11 = 0,
               at12 = 0, at15 = 0;
        for (size_t i = 0; i < n; i++)
            if (data[pos + i] == ',') {
                if (++commas == 11)
                    at11 = i + 1;
                if (commas == 12)
                    at12 = i + 1;
                if (commas == 15)
                    at15 = i + 1;
            }
        const char *ins = !end ? NULL : commas == 15 ? "f32,rt,-,texture,-,1,plain,"
                          : commas == 16 ? "rt,-,texture,-,1,plain,"
                          : commas == 19 ? "-,1,plain," : NULL;
        size_t at = commas == 15 ? at11 : commas == 16 ? at12 : at15;
        if (ins) {
            size_t il = strlen(ins);
            memcpy(m + o, data + pos, at);
            memcpy(m + o + at, ins, il);
            memcpy(m + o + at + il, data + pos + at, n - at);
            o += n + il;
        } else {
            memcpy(m + o, data + pos, n);
            o += n;
        }
        pos += n;
    }
    *out_len = o;
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    setup();
    char err[1024];
    long rows, rows2;
    gg_records_info info, info2;

    put(tune_path, data, size);
    gg_records *r = open_quiet(&rows, &info, err, sizeof err);
    size_t len;
    const unsigned char *now = get(tune_path, &len);
    if (!r) {
        FUZZ_CHECK(fuzz_one_line(err), "message '%s'", err);
        FUZZ_CHECK(len == size && !memcmp(now, data, size), "a refused file was changed");
    } else {
        FUZZ_CHECK(rows == info.rows && rows >= 0 && info.skipped >= 0, "rows %ld/%ld", rows,
                   info.rows);
        size_t hl = strlen(GG_CSV_HEADER);
        FUZZ_CHECK(len > hl && !memcmp(now, GG_CSV_HEADER "\n", hl + 1) && now[len - 1] == '\n',
                   "file after open is not header + lines (%zu bytes)", len);
        int had_line = memchr(data, '\n', size) != NULL;
        size_t msize;
        unsigned char *mig = migrated(data, size, &msize); /* an old file gains the store column */
        if (had_line)
            FUZZ_CHECK(len <= msize && !memcmp(now, mig, len), "not a prefix of the old file");
        else
            FUZZ_CHECK(len == hl + 1, "no-line file not rewritten as the header");
        FUZZ_CHECK(info.torn == (had_line ? len != msize : size > 0), "torn %ld (%zu -> %zu)",
                   info.torn, msize, len);
        free(mig);
        store_records_close(r);

        r = open_quiet(&rows2, &info2, err, sizeof err);
        FUZZ_CHECK(r != NULL, "second open: %s", err);
        FUZZ_CHECK(rows2 == rows && info2.torn == 0 && info2.skipped == info.skipped,
                   "second open: rows %ld/%ld torn %ld skipped %ld/%ld", rows2, rows, info2.torn,
                   info2.skipped, info.skipped);
        if (size % 7 == 0) { /* now and then, since it fsyncs */
            gg_variant v;
            gg_measurement m;
            gen_variant_default(&v);
            base_measurement_init(&m);
            m.seconds = 0.5;
            m.gflops = 1.25;
            FUZZ_CHECK(store_records_append(r, &v, &m, err, sizeof err) == 0, "append: %s", err);
            store_records_close(r);
            r = open_quiet(&rows2, &info2, err, sizeof err);
            FUZZ_CHECK(r && rows2 == rows + 1 && info2.torn == 0, "appended row not read back");
        }
        store_records_close(r);
    }

    put(best_path, data, size);
    gg_variant v;
    double gf = -1;
    if (store_best_read(dir, CARD, SIZE, SIZE, SIZE, &v, &gf, err, sizeof err) == 0) {
        char canon[GG_VARIANT_TEXT];
        gg_variant w;
        gen_variant_format(&v, canon, sizeof canon);
        FUZZ_CHECK(gen_variant_parse(canon, NULL, &w, err, sizeof err) == 0, "best %s", canon);
    } else {
        FUZZ_CHECK(fuzz_one_line(err), "best message '%s'", err);
    }
    return 0;
}
