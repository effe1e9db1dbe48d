/* 2-D float32 .npy reader and atomic writer: see npy.h. */
#include "base/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "gen/util.h"

static const unsigned char MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
#define MAX_HEADER (1u << 20) /* NumPy itself refuses headers past 10000 bytes */
#define MAX_DIMS 32

static int little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void swap4(void *p, size_t count)
{
    unsigned char *b = p;
    for (size_t i = 0; i < count; i++, b += 4) {
        unsigned char t = b[0];
        b[0] = b[3];
        b[3] = t;
        t = b[1];
        b[1] = b[2];
        b[2] = t;
    }
}

/* ---- reading ---------------------------------------------------------- */

/* Magic, version and header length.  buf holds the first `have` bytes of a
 * `total`-byte file (have >= min(total, 12)).  Sets the header's offset and
 * length. */
static int parse_preamble(const unsigned char *buf, size_t have, size_t total,
                          size_t *hoff, size_t *hlen, char *err, size_t n)
{
    if (have < sizeof MAGIC || memcmp(buf, MAGIC, sizeof MAGIC) != 0)
        return gen_fail(err, n, "not a .npy file (bad magic)");
    if (have < 8)
        return gen_fail(err, n, "truncated .npy header (%zu bytes)", total);
    int major = buf[6], minor = buf[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return gen_fail(err, n, "unsupported .npy format version %d.%d (need 1.0, 2.0 or 3.0)",
                       major, minor);
    size_t off = major == 1 ? 10 : 12;
    if (have < off)
        return gen_fail(err, n, "truncated .npy header (%zu bytes)", total);
    size_t len = major == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8
                            : (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
                                  (size_t)buf[11] << 24;
    if (len > MAX_HEADER)
        return gen_fail(err, n, "header length %zu is absurd (more than %u bytes)", len, MAX_HEADER);
    if (len > total - off)
        return gen_fail(err, n, "header length %zu runs past the end of the file (%zu bytes)", len,
                       total);
    *hoff = off;
    *hlen = len;
    return 0;
}

/* A cursor over the header text. */
typedef struct {
    const char *s;
    size_t n, i;
} cursor;

static void skip_space(cursor *c)
{
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
        c->i++;
}

static int accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->i < c->n && c->s[c->i] == ch) {
        c->i++;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes, into out (NUL-terminated, cap bytes). */
static int string_lit(cursor *c, char *out, size_t cap)
{
    skip_space(c);
    if (c->i >= c->n || (c->s[c->i] != '\'' && c->s[c->i] != '"'))
        return -1;
    char q = c->s[c->i++];
    size_t len = 0;
    while (c->i < c->n && c->s[c->i] != q) {
        unsigned char ch = (unsigned char)c->s[c->i++];
        if (ch == '\\' || ch < 0x20 || ch >= 0x7f || len + 1 >= cap)
            return -1;
        out[len++] = (char)ch;
    }
    if (c->i >= c->n)
        return -1;
    c->i++;
    out[len] = '\0';
    return 0;
}

static int word(cursor *c, const char *w)
{
    skip_space(c);
    size_t len = strlen(w);
    if (c->n - c->i < len || memcmp(c->s + c->i, w, len) != 0)
        return 0;
    size_t e = c->i + len;
    if (e < c->n && (c->s[e] == '_' || (c->s[e] >= 'a' && c->s[e] <= 'z') ||
                     (c->s[e] >= 'A' && c->s[e] <= 'Z') || (c->s[e] >= '0' && c->s[e] <= '9')))
        return 0;
    c->i = e;
    return 1;
}

typedef struct {
    char descr[64];
    int fortran;
    int ndims;
    unsigned long long dims[MAX_DIMS];
    int dim_overflow;
    char shape_text[96]; /* the tuple as written, for messages */
} header_fields;

static int shape_tuple(cursor *c, header_fields *h)
{
    skip_space(c);
    size_t start = c->i;
    if (!accept(c, '('))
        return -1;
    h->ndims = 0;
    for (;;) {
        if (accept(c, ')'))
            break;
        skip_space(c);
        if (c->i >= c->n || c->s[c->i] < '0' || c->s[c->i] > '9')
            return -1;
        unsigned long long v = 0;
        while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
            unsigned d = (unsigned)(c->s[c->i++] - '0');
            if (v > (ULLONG_MAX - d) / 10)
                h->dim_overflow = 1;
            else
                v = v * 10 + d;
        }
        if (h->ndims >= MAX_DIMS)
            return -1;
        h->dims[h->ndims++] = v;
        if (accept(c, ','))
            continue;
        if (accept(c, ')'))
            break;
        return -1;
    }
    size_t len = c->i - start;
    if (len >= sizeof h->shape_text) {
        memcpy(h->shape_text, c->s + start, sizeof h->shape_text - 4);
        strcpy(h->shape_text + sizeof h->shape_text - 4, "...");
    } else {
        memcpy(h->shape_text, c->s + start, len);
        h->shape_text[len] = '\0';
    }
    return 0;
}

/* The dict literal: exactly the three keys, each once, then spaces and '\n'. */
static int parse_dict(const char *s, size_t len, header_fields *h, char *err, size_t n)
{
    cursor c = {s, len, 0};
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
    memset(h, 0, sizeof *h);
    if (len == 0 || s[len - 1] != '\n')
        return gen_fail(err, n, "malformed .npy header: it does not end with a newline");
    c.n = len - 1;
    if (!accept(&c, '{'))
        return gen_fail(err, n, "malformed .npy header: not a dict");
    for (;;) {
        if (accept(&c, '}'))
            break;
        char key[32];
        if (string_lit(&c, key, sizeof key) || !accept(&c, ':'))
            return gen_fail(err, n, "malformed .npy header: expected 'key': value at byte %zu",
                           c.i);
        if (!strcmp(key, "descr")) {
            if (seen_descr++)
                return gen_fail(err, n, "malformed .npy header: duplicate key 'descr'");
            if (string_lit(&c, h->descr, sizeof h->descr))
                return gen_fail(err, n, "unsupported dtype: 'descr' is not a simple type string "
                                    "(need '<f4', little-endian float32)");
        } else if (!strcmp(key, "fortran_order")) {
            if (seen_fortran++)
                return gen_fail(err, n, "malformed .npy header: duplicate key 'fortran_order'");
            if (word(&c, "True"))
                h->fortran = 1;
            else if (word(&c, "False"))
                h->fortran = 0;
            else
                return gen_fail(err, n, "malformed .npy header: fortran_order is not True or False");
        } else if (!strcmp(key, "shape")) {
            if (seen_shape++)
                return gen_fail(err, n, "malformed .npy header: duplicate key 'shape'");
            if (shape_tuple(&c, h))
                return gen_fail(err, n, "malformed .npy header: shape is not a tuple of integers");
        } else {
            return gen_fail(err, n, "malformed .npy header: unexpected key '%s'", key);
        }
        if (accept(&c, ','))
            continue;
        if (accept(&c, '}'))
            break;
        return gen_fail(err, n, "malformed .npy header: expected ',' or '}' at byte %zu", c.i);
    }
    while (c.i < c.n && c.s[c.i] == ' ')
        c.i++;
    if (c.i != c.n)
        return gen_fail(err, n, "malformed .npy header: unexpected text after the dict at byte %zu",
                       c.i);
    if (!seen_descr || !seen_fortran || !seen_shape)
        return gen_fail(err, n, "malformed .npy header: missing key '%s'",
                       !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
    return 0;
}

/* Checks the fields; sets rows, cols. */
static int check_fields(const header_fields *h, int *rows, int *cols, char *err, size_t n)
{
    if (strcmp(h->descr, "<f4") != 0)
        return gen_fail(err, n, "unsupported dtype '%s' (need '<f4', little-endian float32)",
                       h->descr);
    if (h->fortran)
        return gen_fail(err, n, "Fortran-order arrays are not supported (fortran_order is True)");
    if (h->ndims != 2)
        return gen_fail(err, n, "array is %d-D with shape %s; need a 2-D matrix", h->ndims,
                       h->shape_text);
    if (h->dims[0] == 0 || h->dims[1] == 0)
        return gen_fail(err, n, "shape %s has a zero dimension", h->shape_text);
    if (h->dim_overflow || h->dims[0] > GG_NPY_MAX_ELEMS || h->dims[1] > GG_NPY_MAX_ELEMS ||
        h->dims[0] * h->dims[1] > (unsigned long long)GG_NPY_MAX_ELEMS)
        return gen_fail(err, n, "shape %s is absurd (more than %lld elements)", h->shape_text,
                       GG_NPY_MAX_ELEMS);
    *rows = (int)h->dims[0];
    *cols = (int)h->dims[1];
    return 0;
}

/* Data length against the file: exactly rows*cols*4 bytes after the header. */
static int check_data(size_t data_off, int rows, int cols, size_t total, char *err, size_t n)
{
    size_t need = (size_t)rows * (size_t)cols * 4;
    size_t have = total - data_off;
    if (have < need)
        return gen_fail(err, n, "truncated data: shape (%d, %d) needs %zu bytes, the file has %zu",
                       rows, cols, need, have);
    if (have > need)
        return gen_fail(err, n, "%zu bytes of trailing data after the (%d, %d) array", have - need,
                       rows, cols);
    return 0;
}

/* Everything but the data: preamble, header, sizes. */
static int parse_meta(const unsigned char *buf, size_t have, size_t total, size_t *data_off,
                      int *rows, int *cols, char *err, size_t n)
{
    size_t hoff, hlen;
    header_fields h;
    if (parse_preamble(buf, have, total, &hoff, &hlen, err, n))
        return -1;
    if (have < hoff + hlen)
        return gen_fail(err, n, "internal: header not read");
    if (parse_dict((const char *)buf + hoff, hlen, &h, err, n) ||
        check_fields(&h, rows, cols, err, n))
        return -1;
    *data_off = hoff + hlen;
    return check_data(*data_off, *rows, *cols, total, err, n);
}

int base_npy_parse(const unsigned char *buf, size_t len, float **data, int *rows, int *cols,
                 char *err, size_t errlen)
{
    size_t off;
    int r, c;
    *data = NULL;
    if (parse_meta(buf, len, len, &off, &r, &c, err, errlen))
        return -1;
    size_t count = (size_t)r * (size_t)c;
    float *d = malloc(count * sizeof *d);
    if (!d)
        return gen_fail(err, errlen, "out of memory for a (%d, %d) array", r, c);
    memcpy(d, buf + off, count * sizeof *d);
    if (!little_endian())
        swap4(d, count);
    *data = d;
    *rows = r;
    *cols = c;
    return 0;
}

/* Reads up to len bytes; returns how many (short only at end of file), or
 * -1 on an error. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int base_npy_read(const char *path, float **data, int *rows, int *cols, char *err,
                size_t errlen)
{
    char msg[256];
    unsigned char *head = NULL;
    float *d = NULL;
    *data = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gen_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gen_fail(err, errlen, "%s: not a regular file", path);
    }
    size_t total = (size_t)st.st_size;
    unsigned char pre[12];
    size_t npre = total < sizeof pre ? total : sizeof pre;
    size_t hoff, hlen, off;
    int r, c;
    if (read_full(fd, pre, npre) != (ssize_t)npre)
        goto io_error;
    if (parse_preamble(pre, npre, total, &hoff, &hlen, msg, sizeof msg))
        goto bad;
    head = malloc(hoff + hlen);
    if (!head) {
        snprintf(msg, sizeof msg, "out of memory for the header");
        goto bad;
    }
    memcpy(head, pre, hoff);
    if (lseek(fd, (off_t)hoff, SEEK_SET) != (off_t)hoff ||
        read_full(fd, head + hoff, hlen) != (ssize_t)hlen)
        goto io_error;
    if (parse_meta(head, hoff + hlen, total, &off, &r, &c, msg, sizeof msg))
        goto bad;
    size_t bytes = (size_t)r * (size_t)c * sizeof(float);
    d = malloc(bytes);
    if (!d) {
        snprintf(msg, sizeof msg, "out of memory for a (%d, %d) array", r, c);
        goto bad;
    }
    ssize_t got = read_full(fd, d, bytes);
    if (got < 0)
        goto io_error;
    unsigned char extra;
    ssize_t more = read_full(fd, &extra, 1);
    if (more < 0)
        goto io_error;
    /* The file changed under us since fstat: judge what was actually read. */
    if ((size_t)got != bytes || more) {
        check_data(off, r, c, off + (size_t)got + (size_t)more, msg, sizeof msg);
        goto bad;
    }
    if (!little_endian())
        swap4(d, (size_t)r * (size_t)c);
    close(fd);
    free(head);
    *data = d;
    *rows = r;
    *cols = c;
    return 0;
io_error:
    snprintf(msg, sizeof msg, "read error: %s", strerror(errno));
bad:
    close(fd);
    free(head);
    free(d);
    return gen_fail(err, errlen, "%s: %s", path, msg);
}

/* ---- writing ---------------------------------------------------------- */

/* The version 1.0 preamble and header, padded with spaces to a multiple of
 * 64 bytes and ending in '\n'.  Returns its length (at most cap). */
static size_t build_header(unsigned char *out, size_t cap, int rows, int cols)
{
    char dict[128];
    int dl = snprintf(dict, sizeof dict,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols);
    size_t total = 10 + (size_t)dl + 1;
    total = (total + 63) / 64 * 64;
    if (total > cap)
        return 0;
    size_t hlen = total - 10;
    memcpy(out, MAGIC, sizeof MAGIC);
    out[6] = 1;
    out[7] = 0;
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)dl);
    memset(out + 10 + dl, ' ', hlen - (size_t)dl - 1);
    out[total - 1] = '\n';
    return total;
}

static int size_ok(int rows, int cols)
{
    return rows >= 1 && cols >= 1 && (long long)rows * cols <= GG_NPY_MAX_ELEMS;
}

unsigned char *base_npy_encode(const float *data, int rows, int cols, size_t *len)
{
    unsigned char head[256];
    if (!size_ok(rows, cols))
        return NULL;
    size_t hl = build_header(head, sizeof head, rows, cols);
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(float);
    unsigned char *out = malloc(hl + bytes);
    if (!out)
        return NULL;
    memcpy(out, head, hl);
    memcpy(out + hl, data, bytes);
    if (!little_endian())
        swap4(out + hl, (size_t)rows * (size_t)cols);
    *len = hl + bytes;
    return out;
}

typedef struct {
    const float *data;
    int rows, cols;
} image;

/* Header then data (converted to little-endian in chunks when needed). */
static int write_image(int fd, void *user)
{
    const image *im = user;
    const float *data = im->data;
    int rows = im->rows, cols = im->cols;
    unsigned char head[256];
    size_t hl = build_header(head, sizeof head, rows, cols);
    size_t count = (size_t)rows * (size_t)cols;
    if (base_write_full(fd, head, hl))
        return -1;
    if (little_endian())
        return base_write_full(fd, data, count * sizeof *data);
    float chunk[4096];
    for (size_t i = 0; i < count; i += 4096) {
        size_t c = count - i < 4096 ? count - i : 4096;
        memcpy(chunk, data + i, c * sizeof *chunk);
        swap4(chunk, c);
        if (base_write_full(fd, chunk, c * sizeof *chunk))
            return -1;
    }
    return 0;
}

int base_npy_write(const char *path, const float *data, int rows, int cols, char *err,
                 size_t errlen)
{
    if (!size_ok(rows, cols))
        return gen_fail(err, errlen, "%s: cannot write a (%d, %d) array", path, rows, cols);
    size_t plen = strlen(path);
    if (plen == 0 || path[plen - 1] == '/')
        return gen_fail(err, errlen, "'%s' is not a file name", path);

    mode_t mode;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return gen_fail(err, errlen, "%s: exists and is not a regular file; not replaced", path);
        if ((st.st_mode & 0222) == 0)
            return gen_fail(err, errlen, "%s: exists and is read-only; not replaced", path);
        mode = st.st_mode & 07777;
    } else if (errno == ENOENT) {
        mode_t mask = umask(022);
        umask(mask);
        mode = 0666 & ~mask;
    } else {
        return gen_fail(err, errlen, "%s: %s", path, strerror(errno));
    }

    image im = {data, rows, cols};
    const char *step;
    int e;
    if (base_write_atomic_fill(path, (int)mode, write_image, &im, &step, &e) == 0)
        return 0;
    if (!strcmp(step, "create"))
        return gen_fail(err, errlen, "%s: cannot create a temporary file beside it: %s", path,
                       strerror(e));
    return gen_fail(err, errlen, "%s: %s failed: %s; file not written", path, step, strerror(e));
}
