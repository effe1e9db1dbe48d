/* Fuzz target: the .npy reader (base_npy_parse and base_npy_read, base/npy.c).
 * Invariants: an accepted image is a rows x cols float32 matrix whose data are
 * exactly the image's last rows*cols*4 bytes; base_npy_encode() of it parses
 * back to the same shape and bytes, and encoding that again gives the same
 * image; reading the same bytes from a file (base_npy_read) gives the same
 * verdict, shape and data, and the same message after the path; a rejected
 * image leaves *data NULL and one line in err. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "base/npy.h"
#include "tests/fuzz/fuzz.h"

static int memfd = -1;

/* The bytes as a file: the same memfd, truncated and rewritten each time. */
static const char *as_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (memfd < 0) {
        memfd = memfd_create("fuzz.npy", MFD_CLOEXEC);
        FUZZ_CHECK(memfd >= 0, "memfd_create");
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    FUZZ_CHECK(ftruncate(memfd, 0) == 0, "ftruncate");
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(memfd, data + done, size - done, (off_t)done);
        FUZZ_CHECK(w > 0, "pwrite");
        done += (size_t)w;
    }
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    float *d = (float *)&size, *d2 = NULL, *df = (float *)&size;
    int r = -7, c = -7, r2, c2, rf = -7, cf = -7;
    char err[256], ferr[512];
    int rc = base_npy_parse(data, size, &d, &r, &c, err, sizeof err);

    const char *path = as_file(data, size);
    int rcf = base_npy_read(path, &df, &rf, &cf, ferr, sizeof ferr);
    FUZZ_CHECK(rc == rcf, "parse %d, read %d (%s / %s)", rc, rcf, rc ? err : "", rcf ? ferr : "");

    if (rc != 0) {
        FUZZ_CHECK(rc == -1 && d == NULL && df == NULL, "rc %d data %p %p", rc, (void *)d,
                   (void *)df);
        FUZZ_CHECK(fuzz_one_line(err), "message '%s'", err);
        size_t pl = strlen(path);
        FUZZ_CHECK(!strncmp(ferr, path, pl) && !strncmp(ferr + pl, ": ", 2) &&
                       !strcmp(ferr + pl + 2, err),
                   "read says '%s', parse says '%s'", ferr, err);
        return 0;
    }
    FUZZ_CHECK(r >= 1 && c >= 1 && (long long)r * c <= GG_NPY_MAX_ELEMS, "shape %d x %d", r, c);
    size_t bytes = (size_t)r * (size_t)c * 4;
    FUZZ_CHECK(bytes + 10 <= size, "(%d, %d) from %zu bytes", r, c, size);
    FUZZ_CHECK(!memcmp(d, data + size - bytes, bytes), "data are not the file's last bytes");
    FUZZ_CHECK(rf == r && cf == c && !memcmp(df, d, bytes), "read differs from parse");

    size_t len, len2;
    unsigned char *img = base_npy_encode(d, r, c, &len);
    FUZZ_CHECK(img != NULL, "encode (%d, %d)", r, c);
    FUZZ_CHECK(len % 64 == bytes % 64 && len >= bytes + 64, "encoded length %zu", len);
    FUZZ_CHECK(base_npy_parse(img, len, &d2, &r2, &c2, err, sizeof err) == 0,
               "encoded image rejected: %s", err);
    FUZZ_CHECK(r2 == r && c2 == c && !memcmp(d2, d, bytes), "encoded image differs");
    unsigned char *img2 = base_npy_encode(d2, r2, c2, &len2);
    FUZZ_CHECK(img2 && len2 == len && !memcmp(img, img2, len), "encoding is not stable");
    free(img);
    free(img2);
    free(d);
    free(d2);
    free(df);
    return 0;
}
