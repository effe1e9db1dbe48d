/* Fuzz target: the crossover record (store_crossover_parse and
 * store_crossover_read_path, store/records.c), the file
 * results/<card>/crossover.txt that `glgemm bench --crossover` writes and
 * glgemm_open reads.
 * Invariants: the parser's answer agrees with a plain reading of the
 * grammar (records.h): no line starting "crossover:" gives 1, two give -1,
 * one gives 0 exactly when it is "crossover:", blanks, digits of a number
 * <= 2^20, blanks; an accepted N is in range and its line as bench writes
 * it (store_crossover_line) reads back as N, alone and with the input's
 * other lines around it; a refusal leaves one line in why, also when why
 * is short; the file reader (the input written as a file) gives the same
 * answer, and store_crossover_read the same N or -1. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/records.h"
#include "tests/fuzz/fuzz.h"

#define CARD "fuzz-card"

static char dir[128], path[256];

static char folder[200];

static void cleanup(void) /* at exit: nothing left in /dev/shm */
{
    unlink(path);
    rmdir(path); /* never a folder, but rmdir costs nothing */
    rmdir(folder);
    rmdir(dir);
}

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/dev/shm/glgemm-fuzz-crossover-%ld", (long)getpid());
    snprintf(folder, sizeof folder, "%s/" CARD, dir);
    mkdir(dir, 0755);
    FUZZ_CHECK(mkdir(folder, 0755) == 0 || errno == EEXIST, "mkdir %s", folder);
    store_crossover_path(path, sizeof path, dir, CARD);
    atexit(cleanup);
}

static int blank(char c) { return c == ' ' || c == '\t'; }

/* The grammar read plainly: 0 / 1 / -1 as store_crossover_parse. */
static int oracle(const uint8_t *d, size_t size, long *x)
{
    int lines = 0, rc = 1;
    for (size_t pos = 0; pos < size;) {
        size_t end = pos;
        while (end < size && d[end] != '\n')
            end++;
        size_t n = end - pos;
        const char *s = (const char *)d + pos;
        pos = end + 1;
        if (n && s[n - 1] == '\r')
            n--;
        if (n < 10 || memcmp(s, "crossover:", 10))
            continue;
        if (++lines > 1)
            return -1;
        size_t i = 10, nb = 0;
        while (i < n && blank(s[i]))
            i++, nb++;
        size_t d0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        size_t nd = i - d0, lead = 0; /* leading zeros: not significant */
        while (lead + 1 < nd && s[d0 + lead] == '0')
            lead++;
        while (i < n && blank(s[i]))
            i++;
        if (!nb || !nd || i != n || nd - lead > 7) {
            rc = -1;
            continue;
        }
        char digits[8] = {0};
        memcpy(digits, s + d0 + lead, nd - lead);
        long v = strtol(digits, NULL, 10);
        if (v > GG_CROSSOVER_MAX) {
            rc = -1;
            continue;
        }
        *x = v;
        rc = 0;
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    setup();
    const char *text = (const char *)data;
    char why[256], why2[1024];
    long x = -7, y = -7, want = -7;
    int rc = store_crossover_parse(text, size, &x, why, sizeof why);
    int orc = oracle(data, size, &want);
    FUZZ_CHECK(rc == orc, "parse %d, the grammar says %d (%s)", rc, orc, rc ? why : "");
    if (rc == 0) {
        FUZZ_CHECK(x == want && x >= 0 && x <= GG_CROSSOVER_MAX, "N %ld, want %ld", x, want);
        char line[64];
        store_crossover_line(line, sizeof line, x);
        FUZZ_CHECK(store_crossover_parse(line, strlen(line), &y, why, sizeof why) == 0 && y == x,
                   "'%s' read back as %ld", line, y);
        /* The line, with every line of the input that is no crossover line. */
        char *both = malloc(size + 80);
        size_t o = 0;
        for (size_t pos = 0; pos < size;) {
            const uint8_t *nl = memchr(data + pos, '\n', size - pos);
            size_t n = nl ? (size_t)(nl - data) - pos + 1 : size - pos;
            if (n < 10 || memcmp(data + pos, "crossover:", 10)) {
                memcpy(both + o, data + pos, n);
                o += n;
                if (!nl)
                    both[o++] = '\n';
            }
            pos += n;
        }
        memcpy(both + o, line, strlen(line));
        o += strlen(line);
        y = -7;
        FUZZ_CHECK(store_crossover_parse(both, o, &y, why, sizeof why) == 0 && y == x,
                   "the record rewritten read %ld: %s", y, why);
        free(both);
    } else {
        FUZZ_CHECK(x == -7, "*x written on a refusal");
        FUZZ_CHECK(fuzz_one_line(why), "message '%s'", why);
        char tiny[9];
        FUZZ_CHECK(store_crossover_parse(text, size, &y, tiny, sizeof tiny) == rc, "short why");
        FUZZ_CHECK(strlen(tiny) < sizeof tiny, "short why overrun");
    }

    /* The file: the same answer. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FUZZ_CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size, "write %s", path);
    close(fd);
    y = -7;
    int frc = store_crossover_read_path(path, &y, why2, sizeof why2);
    FUZZ_CHECK(frc == (rc ? -1 : 0), "file: %d, text: %d", frc, rc);
    if (frc == 0)
        FUZZ_CHECK(y == x, "file: %ld, text: %ld", y, x);
    else
        FUZZ_CHECK(fuzz_one_line(why2) && strstr(why2, path), "file message '%s'", why2);
    FUZZ_CHECK(store_crossover_read(dir, CARD) == (rc ? -1 : x), "store_crossover_read");
    return 0;
}
