/* The GL-free half of the host: .npy files, inputs, the double reference,
 * verification (and CSV rows, in check_csv.c). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/inputs.h"
#include "base/npy.h"
#include "base/reference.h"
#include "tests/suites.h"

/* ---- helpers ---------------------------------------------------------- */

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/glgemm-ref-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* Removes every entry of tmpdir (one level), then the folder. */
static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        chmod(p, 0700);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
    rmdir(tmpdir);
}

static const char *in_tmp(const char *name)
{
    static char p[4][400];
    static int next;
    char *s = p[next++ % 4];
    snprintf(s, 400, "%s/%s", tmpdir, name);
    return s;
}

/* Entries of tmpdir other than `keep` (NULL: none kept). */
static int stray_entries(const char *keep, char *first, size_t n)
{
    DIR *d = opendir(tmpdir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (keep && !strcmp(e->d_name, keep)))
            continue;
        if (count++ == 0 && first)
            snprintf(first, n, "%s", e->d_name);
    }
    closedir(d);
    return count;
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, r;
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
    } while (r > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* A .npy image with the given version, header text (used as is) and `data`
 * bytes of payload (values 0, 1, 2, ... as floats, truncated to the length). */
static unsigned char *craft(int major, int minor, const char *header, size_t data,
                            size_t *len)
{
    size_t hl = strlen(header), off = major == 1 ? 10 : 12;
    unsigned char *b = calloc(1, off + hl + data + 4);
    ck_assert_ptr_nonnull(b);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = (unsigned char)minor;
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8);
    if (off == 12) {
        b[10] = (unsigned char)(hl >> 16);
        b[11] = (unsigned char)(hl >> 24);
    }
    memcpy(b + off, header, hl);
    for (size_t i = 0; i < data; i += 4) {
        float v = (float)(i / 4);
        memcpy(b + off + hl + i, &v, data - i < 4 ? data - i : 4);
    }
    *len = off + hl + data;
    return b;
}

#define HDR(shape) "{'descr': '<f4', 'fortran_order': False, 'shape': " shape ", }    \n"

/* ---- .npy: round trip ------------------------------------------------- */

static const int rt_shapes[][2] = {{1, 1}, {3, 5}, {17, 1}, {1, 300}, {64, 64}, {123, 45}};

START_TEST(npy_round_trip)
{
    int r = rt_shapes[_i][0], c = rt_shapes[_i][1];
    size_t count = (size_t)r * (size_t)c;
    float *d = malloc(count * sizeof *d);
    ck_assert_ptr_nonnull(d);
    base_fill_uniform(d, count, 42u + (unsigned)_i, 0);
    d[0] = -0.0f;
    if (count > 3) {
        d[1] = NAN;
        d[2] = INFINITY;
        d[3] = -INFINITY;
    }
    make_tmpdir();
    const char *path = in_tmp("m.npy");
    char err[256] = "";
    ck_assert_msg(base_npy_write(path, d, r, c, err, sizeof err) == 0, "%s", err);
    /* The file is exactly the encoded image, its header 64-byte aligned. */
    size_t flen, elen;
    unsigned char *file = read_bytes(path, &flen);
    unsigned char *enc = base_npy_encode(d, r, c, &elen);
    ck_assert_ptr_nonnull(file);
    ck_assert_ptr_nonnull(enc);
    ck_assert_uint_eq(flen, elen);
    ck_assert_int_eq(memcmp(file, enc, flen), 0);
    ck_assert_uint_eq((flen - count * 4) % 64, 0);
    float *back = NULL;
    int br = 0, bc = 0;
    ck_assert_msg(base_npy_read(path, &back, &br, &bc, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(br, r);
    ck_assert_int_eq(bc, c);
    ck_assert_int_eq(memcmp(back, d, count * sizeof *d), 0); /* bit for bit, NaN and -0 too */
    free(back);
    back = NULL;
    ck_assert_msg(base_npy_parse(enc, elen, &back, &br, &bc, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(memcmp(back, d, count * sizeof *d), 0);
    ck_assert_int_eq(stray_entries("m.npy", NULL, 0), 0);
    free(back);
    free(file);
    free(enc);
    free(d);
    remove_tmpdir();
}
END_TEST

/* Headers other writers produce, all of which mean a 2 x 3 '<f4' matrix. */
static const struct {
    int major;
    const char *header;
} good_headers[] = {
    {1, HDR("(2, 3)")},
    {2, HDR("(2, 3)")},
    {3, HDR("(2, 3)")},
    {1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}\n"},
    {1, "{'shape': (2,3), 'fortran_order': False, 'descr': '<f4'}  \n"},
    {1, "{'descr':'<f4','fortran_order':False,'shape':(2,3,),}\n"},
};

START_TEST(npy_accepts)
{
    size_t len;
    unsigned char *b = craft(good_headers[_i].major, 0, good_headers[_i].header, 24, &len);
    float *d = NULL;
    int r = 0, c = 0;
    char err[256] = "";
    ck_assert_msg(base_npy_parse(b, len, &d, &r, &c, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r, 2);
    ck_assert_int_eq(c, 3);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(d[i], (float)i);
    free(d);
    free(b);
}
END_TEST

/* ---- .npy: every rejection -------------------------------------------- */

typedef struct {
    const char *what;
    int major, minor;
    const char *header;
    size_t data;          /* payload bytes */
    long hlen_override;   /* >= 0: header length field says this instead */
    size_t cut;           /* > 0: keep only the first `cut` bytes of the image */
    const char *expect;   /* the message names this */
} bad_npy;

static const bad_npy bad_files[] = {
    {"empty file", 1, 0, HDR("(2, 3)"), 24, -1, 1, "bad magic"},
    {"bad magic", 1, 0, HDR("(2, 3)"), 24, -1, 0, "bad magic"}, /* patched below */
    {"cut in version", 1, 0, HDR("(2, 3)"), 24, -1, 7, "truncated .npy header"},
    {"cut in header length", 2, 0, HDR("(2, 3)"), 24, -1, 11, "truncated .npy header"},
    {"version 4.0", 4, 0, HDR("(2, 3)"), 24, -1, 0, "version 4.0"},
    {"version 1.1", 1, 1, HDR("(2, 3)"), 24, -1, 0, "version 1.1"},
    {"version 0.0", 0, 0, HDR("(2, 3)"), 24, -1, 0, "version 0.0"},
    {"header past end", 1, 0, HDR("(2, 3)"), 24, 5000, 0, "runs past the end"},
    {"huge v2 header", 2, 0, HDR("(2, 3)"), 24, 0x7fffffff, 0, "absurd"},
    {"header is a list", 1, 0, "['<f4', False, (2, 3)]\n", 24, -1, 0, "not a dict"},
    {"no newline", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   ", 24,
     -1, 0, "newline"},
    {"unclosed dict", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), \n", 24,
     -1, 0, "malformed"},
    {"unterminated string", 1, 0, "{'descr: '<f4', 'fortran_order': False, 'shape': (2, 3)}\n",
     24, -1, 0, "malformed"},
    {"escape in string", 1, 0, "{'de\\scr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\n",
     24, -1, 0, "malformed"},
    {"unknown key", 1, 0,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}\n", 24, -1, 0,
     "unexpected key 'x'"},
    {"duplicate key", 1, 0,
     "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\n", 24, -1, 0,
     "duplicate key 'descr'"},
    {"missing shape", 1, 0, "{'descr': '<f4', 'fortran_order': False}\n", 24, -1, 0,
     "missing key 'shape'"},
    {"missing descr", 1, 0, "{'fortran_order': False, 'shape': (2, 3)}\n", 24, -1, 0,
     "missing key 'descr'"},
    {"text after dict", 1, 0,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x\n", 24, -1, 0,
     "unexpected text"},
    {"missing comma", 1, 0, "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}\n", 24,
     -1, 0, "expected ','"},
    {"fortran_order string", 1, 0,
     "{'descr': '<f4', 'fortran_order': 'False', 'shape': (2, 3)}\n", 24, -1, 0,
     "fortran_order is not True or False"},
    {"fortran_order Falsey", 1, 0,
     "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3)}\n", 24, -1, 0,
     "fortran_order is not True or False"},
    {"negative dim", 1, 0, HDR("(2, -3)"), 24, -1, 0, "shape is not a tuple"},
    {"shape list", 1, 0, HDR("[2, 3]"), 24, -1, 0, "shape is not a tuple"},
    {"shape float", 1, 0, HDR("(2.0, 3)"), 24, -1, 0, "shape is not a tuple"},
    {"dtype >f4", 1, 0, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }\n", 24, -1,
     0, "dtype '>f4'"},
    {"dtype <f8", 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n", 48, -1,
     0, "dtype '<f8'"},
    {"dtype <i4", 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n", 24, -1,
     0, "dtype '<i4'"},
    {"dtype <f2", 1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }\n", 12, -1,
     0, "dtype '<f2'"},
    {"dtype structured", 1, 0,
     "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2, 3), }\n", 24, -1, 0,
     "not a simple type"},
    {"fortran order", 1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", 24,
     -1, 0, "Fortran"},
    {"0-D", 1, 0, HDR("()"), 4, -1, 0, "0-D"},
    {"1-D", 1, 0, HDR("(6,)"), 24, -1, 0, "1-D with shape (6,)"},
    {"3-D", 1, 0, HDR("(1, 2, 3)"), 24, -1, 0, "3-D with shape (1, 2, 3)"},
    {"zero rows", 1, 0, HDR("(0, 3)"), 0, -1, 0, "zero dimension"},
    {"zero cols", 1, 0, HDR("(3, 0)"), 0, -1, 0, "zero dimension"},
    {"dim overflows 64 bits", 1, 0, HDR("(99999999999999999999999, 2)"), 24, -1, 0, "absurd"},
    {"product overflows int", 1, 0, HDR("(65536, 65536)"), 24, -1, 0, "absurd"},
    {"product overflows 64 bits", 1, 0, HDR("(4294967296, 4294967296)"), 24, -1, 0, "absurd"},
    {"data missing", 1, 0, HDR("(1000, 1000)"), 24, -1, 0, "truncated data"},
    {"data one byte short", 1, 0, HDR("(2, 3)"), 23, -1, 0, "truncated data"},
    {"no data", 1, 0, HDR("(2, 3)"), 0, -1, 0, "truncated data"},
    {"trailing byte", 1, 0, HDR("(2, 3)"), 25, -1, 0, "1 bytes of trailing data"},
    {"trailing array", 1, 0, HDR("(2, 3)"), 48, -1, 0, "24 bytes of trailing data"},
};

static unsigned char *bad_image(const bad_npy *t, size_t *len)
{
    unsigned char *b = craft(t->major, t->minor, t->header, t->data, len);
    if (t->hlen_override >= 0) {
        unsigned long v = (unsigned long)t->hlen_override;
        b[8] = (unsigned char)(v & 0xff);
        b[9] = (unsigned char)(v >> 8);
        if (t->major != 1) {
            b[10] = (unsigned char)(v >> 16);
            b[11] = (unsigned char)(v >> 24);
        }
    }
    if (!strcmp(t->what, "bad magic"))
        b[3] = 'X';
    if (!strcmp(t->what, "empty file"))
        *len = 0;
    else if (t->cut)
        *len = t->cut;
    return b;
}

START_TEST(npy_rejects)
{
    const bad_npy *t = &bad_files[_i];
    size_t len;
    unsigned char *b = bad_image(t, &len);
    float *d = (float *)&len; /* must come back NULL */
    int r = -7, c = -7;
    char err[256] = "";
    /* From memory. */
    ck_assert_msg(base_npy_parse(b, len, &d, &r, &c, err, sizeof err) == -1, "%s: accepted",
                  t->what);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(err, t->expect) != NULL, "%s: message '%s' lacks '%s'", t->what, err,
                  t->expect);
    ck_assert_ptr_null(strchr(err, '\n'));
    /* From a file: the same message, after the path. */
    make_tmpdir();
    const char *path = in_tmp("bad.npy");
    write_bytes(path, b, len);
    d = (float *)&len;
    err[0] = '\0';
    ck_assert_msg(base_npy_read(path, &d, &r, &c, err, sizeof err) == -1, "%s: file accepted",
                  t->what);
    ck_assert_ptr_null(d);
    ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "%s: '%s' does not name the file",
                  t->what, err);
    ck_assert_msg(strstr(err, t->expect) != NULL, "%s: file message '%s' lacks '%s'", t->what,
                  err, t->expect);
    ck_assert_int_eq(r, -7);
    ck_assert_int_eq(c, -7);
    free(b);
    remove_tmpdir();
}
END_TEST

START_TEST(npy_read_not_a_file)
{
    float *d = NULL;
    int r, c;
    char err[256];
    make_tmpdir();
    ck_assert_int_eq(base_npy_read(tmpdir, &d, &r, &c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    ck_assert_int_eq(base_npy_read(in_tmp("absent.npy"), &d, &r, &c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open"));
    ck_assert_ptr_nonnull(strstr(err, "absent.npy"));
    ck_assert_ptr_null(d);
    remove_tmpdir();
}
END_TEST

/* ---- .npy: atomic writes ---------------------------------------------- */

static float *pattern(int r, int c, float base)
{
    float *d = malloc((size_t)r * (size_t)c * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (long i = 0; i < (long)r * c; i++)
        d[i] = base + (float)(i % 1000);
    return d;
}

/* The file at path holds exactly r x c of pattern(base). */
static int holds(const char *path, int r, int c, float base)
{
    float *d = NULL;
    int rr, cc;
    char err[256];
    if (base_npy_read(path, &d, &rr, &cc, err, sizeof err) != 0)
        return 0;
    int ok = rr == r && cc == c;
    for (long i = 0; ok && i < (long)r * c; i++)
        ok = d[i] == base + (float)(i % 1000);
    free(d);
    return ok;
}

START_TEST(npy_write_refuses_read_only)
{
    make_tmpdir();
    const char *path = in_tmp("old.npy");
    float *old = pattern(2, 2, 0), *new = pattern(3, 3, 5000);
    char err[256];
    ck_assert_int_eq(base_npy_write(path, old, 2, 2, err, sizeof err), 0);
    ck_assert_int_eq(chmod(path, 0444), 0);
    ck_assert_int_eq(base_npy_write(path, new, 3, 3, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "read-only") != NULL, "%s", err);
    ck_assert(holds(path, 2, 2, 0));
    ck_assert_int_eq(stray_entries("old.npy", NULL, 0), 0);
    free(old);
    free(new);
    remove_tmpdir();
}
END_TEST

START_TEST(npy_write_refuses_non_files)
{
    make_tmpdir();
    float *d = pattern(2, 2, 0);
    char err[256], first[256];
    /* The destination is a folder. */
    ck_assert_int_eq(mkdir(in_tmp("dir.npy"), 0755), 0);
    ck_assert_int_eq(base_npy_write(in_tmp("dir.npy"), d, 2, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
    ck_assert_int_eq(stray_entries("dir.npy", first, sizeof first), 0);
    /* The folder does not exist: nothing is created. */
    ck_assert_int_eq(base_npy_write(in_tmp("nodir/x.npy"), d, 2, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "temporary file") != NULL, "%s", err);
    ck_assert_int_eq(stray_entries("dir.npy", first, sizeof first), 0);
    /* A symbolic link is not followed nor replaced. */
    ck_assert_int_eq(base_npy_write(in_tmp("target.npy"), d, 2, 2, err, sizeof err), 0);
    ck_assert_int_eq(symlink("target.npy", in_tmp("link.npy")), 0);
    ck_assert_int_eq(base_npy_write(in_tmp("link.npy"), d, 2, 2, err, sizeof err), -1);
    struct stat st;
    ck_assert_int_eq(lstat(in_tmp("link.npy"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    /* Bad shapes. */
    ck_assert_int_eq(base_npy_write(in_tmp("z.npy"), d, 0, 2, err, sizeof err), -1);
    ck_assert_int_eq(access(in_tmp("z.npy"), F_OK), -1);
    free(d);
    remove_tmpdir();
}
END_TEST

START_TEST(npy_write_keeps_mode)
{
    make_tmpdir();
    const char *path = in_tmp("m.npy");
    float *d = pattern(4, 4, 1);
    char err[256];
    mode_t mask = umask(022);
    ck_assert_int_eq(base_npy_write(path, d, 4, 4, err, sizeof err), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    ck_assert_int_eq(chmod(path, 0640), 0);
    ck_assert_int_eq(base_npy_write(path, d, 4, 4, err, sizeof err), 0);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0640);
    umask(mask);
    free(d);
    remove_tmpdir();
}
END_TEST

/* A write that fails midway (the file size limit) leaves the old file. */
START_TEST(npy_write_fails_midway)
{
    make_tmpdir();
    const char *path = in_tmp("old.npy");
    float *old = pattern(2, 2, 0);
    char err[256];
    ck_assert_int_eq(base_npy_write(path, old, 2, 2, err, sizeof err), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {8192, 8192};
        setrlimit(RLIMIT_FSIZE, &rl);
        float *big = pattern(100, 100, 7); /* 40 KB */
        int rc = base_npy_write(path, big, 100, 100, err, sizeof err);
        _exit(rc == -1 && strstr(err, "write failed") ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert(holds(path, 2, 2, 0));
    char first[256] = "";
    ck_assert_msg(stray_entries("old.npy", first, sizeof first) == 0, "left %s", first);
    free(old);
    remove_tmpdir();
}
END_TEST

/* A writer killed while its temporary file exists: the destination, which
 * held a complete image before, still holds one of the complete images (the
 * old or a new one), never a partial one, and is never absent.  Leftover
 * temporaries carry the documented name and are removed here. */
START_TEST(npy_write_killed)
{
    make_tmpdir();
    char path[400];
    snprintf(path, sizeof path, "%s", in_tmp("out.npy"));
    const int R = 512, C = 512; /* 1 MiB per image */
    {
        float *a = pattern(R, C, 0);
        char e[256];
        ck_assert_msg(base_npy_write(path, a, R, C, e, sizeof e) == 0, "%s", e);
        free(a);
    }
    for (int round = 0; round < 6; round++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            float *a = pattern(R, C, 0), *b = pattern(R, C, 5000);
            char e[256];
            for (unsigned i = 0;; i++)
                base_npy_write(path, i % 2 ? b : a, R, C, e, sizeof e);
        }
        /* Wait until a temporary file exists, then kill. */
        struct timespec nap = {0, 200000};
        int found = 0;
        for (int tries = 0; tries < 50000 && !found; tries++) {
            DIR *d = opendir(tmpdir);
            struct dirent *e;
            while (d && (e = readdir(d)) != NULL)
                if (!strncmp(e->d_name, ".out.npy.tmp-", 13))
                    found = 1;
            if (d)
                closedir(d);
            if (!found)
                nanosleep(&nap, NULL);
        }
        /* Some rounds let it run a little past the temp file's creation. */
        struct timespec extra = {0, (long)round * 700000L};
        nanosleep(&extra, NULL);
        kill(pid, SIGKILL);
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(found, "round %d: the writer made no temporary file", round);
        ck_assert_msg(access(path, F_OK) == 0, "round %d: the destination is gone", round);
        ck_assert_msg(holds(path, R, C, 0) || holds(path, R, C, 5000),
                      "round %d: destination is not a complete image", round);
        /* Only the destination and clearly named temporaries remain. */
        DIR *d = opendir(tmpdir);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
                !strcmp(e->d_name, "out.npy"))
                continue;
            ck_assert_msg(!strncmp(e->d_name, ".out.npy.tmp-", 13), "stray file %s",
                          e->d_name);
            unlink(in_tmp(e->d_name));
        }
        closedir(d);
    }
    remove_tmpdir();
}
END_TEST

/* ---- inputs ----------------------------------------------------------- */

static gg_problem small_problem(int m, int n, int k)
{
    gg_problem p;
    base_problem_default(&p);
    p.m = m;
    p.n = n;
    p.k = k;
    return p;
}

START_TEST(inputs_seeded)
{
    gg_problem p = small_problem(37, 41, 29);
    p.seed = 7;
    gg_inputs x, y;
    char err[256];
    ck_assert_int_eq(base_inputs_make(&p, &x, err, sizeof err), 0);
    ck_assert_int_eq(base_inputs_make(&p, &y, err, sizeof err), 0);
    ck_assert_int_eq(x.m, 37);
    ck_assert_int_eq(x.n, 41);
    ck_assert_int_eq(x.k, 29);
    ck_assert_int_eq(x.lda, 29);
    ck_assert_int_eq(x.ldb, 41);
    ck_assert_ptr_null(x.c0); /* beta 0: no C0 */
    ck_assert_int_eq(memcmp(x.a, y.a, 37 * 29 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(x.b, y.b, 29 * 41 * sizeof(float)), 0);
    /* In [-1, 1), on the 2^-23 grid, spread out, A and B not the same stream. */
    double sum = 0, lo = 1, hi = -1;
    for (int i = 0; i < 37 * 29; i++) {
        float v = x.a[i];
        ck_assert(v >= -1.0f && v < 1.0f);
        ck_assert_float_eq(v * 8388608.0f, nearbyintf(v * 8388608.0f));
        sum += v;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    ck_assert_double_lt(fabs(sum / (37 * 29)), 0.1);
    ck_assert_double_lt(lo, -0.9);
    ck_assert_double_gt(hi, 0.9);
    ck_assert_int_ne(memcmp(x.a, x.b, 16 * sizeof(float)), 0);
    base_inputs_free(&y);
    /* Another seed, other numbers; beta != 0 draws C0. */
    p.seed = 8;
    p.beta = 0.5f;
    ck_assert_int_eq(base_inputs_make(&p, &y, err, sizeof err), 0);
    ck_assert_int_ne(memcmp(x.a, y.a, 37 * 29 * sizeof(float)), 0);
    ck_assert_ptr_nonnull(y.c0);
    for (int i = 0; i < 37 * 41; i++)
        ck_assert(y.c0[i] >= -1.0f && y.c0[i] < 1.0f);
    base_inputs_free(&x);
    base_inputs_free(&y);
    /* Transposes change the storage shape. */
    p.transa = p.transb = true;
    ck_assert_int_eq(base_inputs_make(&p, &x, err, sizeof err), 0);
    ck_assert_int_eq(x.lda, 37);
    ck_assert_int_eq(x.ldb, 29);
    base_inputs_free(&x);
}
END_TEST

/* The generator's bits are fixed: the same on every machine and release. */
START_TEST(inputs_seed_is_pinned)
{
    float v[4];
    base_fill_uniform(v, 4, 1, 0);
    uint32_t bits[4];
    memcpy(bits, v, sizeof v);
    /* Recomputed from the splitmix64 definition, independently of the code. */
    uint64_t st = 1 ^ (1ull << 56);
    uint64_t z = (st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    st = z ^ (z >> 31);
    for (int i = 0; i < 4; i++) {
        z = (st += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        float want = (float)((int32_t)(z >> 40) - (1 << 23)) / 8388608.0f;
        ck_assert_float_eq(v[i], want);
    }
    /* And a checksum over a longer run, pinned. */
    float w[1000];
    base_fill_uniform(w, 1000, 12345, 1);
    double s = 0;
    for (int i = 0; i < 1000; i++)
        s += w[i] * (i + 1);
    ck_assert_msg(s == 7522.8896241188049, "checksum %.17g", s);
    (void)bits;
}
END_TEST

static void write_matrix(const char *path, int r, int c, unsigned seed)
{
    float *d = malloc((size_t)r * c * sizeof *d);
    base_fill_uniform(d, (size_t)r * c, seed, 0);
    char err[256];
    ck_assert_msg(base_npy_write(path, d, r, c, err, sizeof err) == 0, "%s", err);
    free(d);
}

START_TEST(inputs_from_files)
{
    make_tmpdir();
    write_matrix(in_tmp("a.npy"), 3, 4, 1);
    write_matrix(in_tmp("at.npy"), 4, 3, 1);
    write_matrix(in_tmp("b.npy"), 4, 5, 2);
    write_matrix(in_tmp("c.npy"), 3, 5, 3);
    gg_problem p = small_problem(1024, 1024, 1024);
    p.a_path = in_tmp("a.npy");
    p.b_path = in_tmp("b.npy");
    gg_inputs in;
    char err[256];
    ck_assert_msg(base_inputs_make(&p, &in, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(in.m, 3);
    ck_assert_int_eq(in.n, 5);
    ck_assert_int_eq(in.k, 4);
    ck_assert_ptr_null(in.c0);
    float want[20];
    base_fill_uniform(want, 20, 2, 0);
    ck_assert_int_eq(memcmp(in.b, want, 20 * sizeof(float)), 0);
    base_inputs_free(&in);
    /* transa: the A file is k x m. */
    p.a_path = in_tmp("at.npy");
    p.transa = true;
    p.c_path = in_tmp("c.npy");
    p.beta = 2;
    ck_assert_msg(base_inputs_make(&p, &in, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(in.m, 3);
    ck_assert_int_eq(in.k, 4);
    ck_assert_int_eq(in.lda, 3);
    ck_assert_ptr_nonnull(in.c0);
    base_fill_uniform(want, 12, 1, 0);
    ck_assert_float_eq(gg_op_a(&in, 2, 1), want[1 * 3 + 2]);
    base_inputs_free(&in);
    remove_tmpdir();
}
END_TEST

static const struct {
    const char *a, *b, *c;
    bool transa, transb;
    float beta;
    const char *expect[2];
} bad_inputs[] = {
    {"a.npy", "a.npy", NULL, false, false, 0, {"inner dimensions differ", "3x4"}},
    {"a.npy", "b.npy", NULL, true, false, 0, {"inner dimensions differ", "(transposed)"}},
    {"a.npy", "b.npy", NULL, false, true, 0, {"k 4 vs 5", "b.npy is 4x5 (transposed)"}},
    {"a.npy", "b.npy", "b.npy", false, false, 1, {"b.npy is 4x5", "is 3x5"}},
    {"a.npy", "b.npy", NULL, false, false, 1, {"needs --c", "--beta 1"}},
    {"a.npy", NULL, NULL, false, false, 0, {"--a and --b go together", ""}},
    {NULL, NULL, "c.npy", false, false, 0, {"--c needs --a and --b", ""}},
    {"bad.npy", "b.npy", NULL, false, false, 0, {"bad.npy", "dtype '<f8'"}},
    {"a.npy", "absent.npy", NULL, false, false, 0, {"absent.npy", "cannot open"}},
};

START_TEST(inputs_rejects)
{
    make_tmpdir();
    write_matrix(in_tmp("a.npy"), 3, 4, 1);
    write_matrix(in_tmp("b.npy"), 4, 5, 2);
    write_matrix(in_tmp("c.npy"), 3, 5, 3);
    size_t len;
    unsigned char *bad = craft(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}\n",
                               96, &len);
    write_bytes(in_tmp("bad.npy"), bad, len);
    free(bad);
    gg_problem p = small_problem(8, 8, 8);
    p.a_path = bad_inputs[_i].a ? in_tmp(bad_inputs[_i].a) : NULL;
    p.b_path = bad_inputs[_i].b ? in_tmp(bad_inputs[_i].b) : NULL;
    p.c_path = bad_inputs[_i].c ? in_tmp(bad_inputs[_i].c) : NULL;
    p.transa = bad_inputs[_i].transa;
    p.transb = bad_inputs[_i].transb;
    p.beta = bad_inputs[_i].beta;
    gg_inputs in;
    char err[256] = "";
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), -1);
    for (int j = 0; j < 2; j++)
        ck_assert_msg(strstr(err, bad_inputs[_i].expect[j]) != NULL, "'%s' lacks '%s'", err,
                      bad_inputs[_i].expect[j]);
    ck_assert_ptr_null(in.a);
    ck_assert_ptr_null(in.b);
    ck_assert_ptr_null(in.c0);
    base_inputs_free(&in);
    remove_tmpdir();
}
END_TEST

/* ---- the reference ---------------------------------------------------- */

static const struct {
    int m, n, k;
    bool ta, tb;
    float alpha, beta;
} ref_cases[] = {
    {1, 1, 1, false, false, 1, 0},     {7, 13, 5, false, false, 1, 0},
    {5, 3, 11, true, false, 1, 0},     {9, 4, 6, false, true, -1, 0},
    {6, 7, 8, true, true, -2.5f, 0.75f}, {13, 1, 17, false, false, 1, 1},
    {1, 9, 1, true, true, 0.5f, -3},   {33, 31, 29, false, true, 1000, 0},
};

START_TEST(reference_matches_naive)
{
    gg_problem p = small_problem(ref_cases[_i].m, ref_cases[_i].n, ref_cases[_i].k);
    p.transa = ref_cases[_i].ta;
    p.transb = ref_cases[_i].tb;
    p.alpha = ref_cases[_i].alpha;
    p.beta = ref_cases[_i].beta;
    p.seed = 100 + (unsigned)_i;
    gg_inputs in;
    gg_reference ref;
    char err[256];
    ck_assert_int_eq(base_inputs_make(&p, &in, err, sizeof err), 0);
    ck_assert_msg(base_reference_compute(&in, p.alpha, p.beta, &ref, err, sizeof err) == 0, "%s",
                  err);
    for (int i = 0; i < p.m; i++)
        for (int j = 0; j < p.n; j++) {
            long double r = 0, s = 0;
            for (int kk = 0; kk < p.k; kk++) {
                long double t = (long double)gg_op_a(&in, i, kk) * gg_op_b(&in, kk, j);
                r += t;
                s += fabsl(t);
            }
            r *= p.alpha;
            s *= fabsl((long double)p.alpha);
            if (p.beta != 0) {
                r += (long double)p.beta * in.c0[i * p.n + j];
                s += fabsl((long double)p.beta * in.c0[i * p.n + j]);
            }
            double gr = ref.r[i * p.n + j], gs = ref.s[i * p.n + j];
            ck_assert_msg(fabsl(gr - r) <= 1e-13L * s, "R[%d][%d] %.17g vs %.17Lg", i, j, gr, r);
            ck_assert_msg(fabsl(gs - s) <= 1e-13L * s, "S[%d][%d] %.17g vs %.17Lg", i, j, gs, s);
        }
    base_reference_free(&ref);
    base_inputs_free(&in);
}
END_TEST

/* IEEE classes: beta 0 ignores NaN in C0; NaN and Inf in A or B propagate,
 * even with alpha 0 (0 * NaN is NaN). */
START_TEST(reference_special_values)
{
    float a[2 * 2] = {1, 2, 3, 4}, b[2 * 2] = {1, 0, 0, 1}, c0[4] = {NAN, NAN, NAN, NAN};
    gg_inputs in = {.m = 2, .n = 2, .k = 2, .a = a, .b = b, .c0 = c0, .lda = 2, .ldb = 2};
    gg_reference ref;
    char err[256];
    ck_assert_int_eq(base_reference_compute(&in, 1, 0, &ref, err, sizeof err), 0);
    ck_assert_double_eq(ref.r[0], 1);
    ck_assert_double_eq(ref.r[3], 4);
    ck_assert_double_eq(ref.s[1], 2);
    base_reference_free(&ref);
    /* beta != 0 reads C0. */
    ck_assert_int_eq(base_reference_compute(&in, 1, 1, &ref, err, sizeof err), 0);
    ck_assert(isnan(ref.r[0]));
    base_reference_free(&ref);
    /* A[0][0] = +Inf: C[0][0] = Inf*1 + 2*0 = +Inf, C[0][1] = Inf*0 + 2*1 = NaN. */
    a[0] = INFINITY;
    ck_assert_int_eq(base_reference_compute(&in, -1, 0, &ref, err, sizeof err), 0);
    ck_assert(isinf(ref.r[0]) && ref.r[0] < 0);
    ck_assert(isnan(ref.r[1]));
    ck_assert_double_eq(ref.r[2], -3);
    base_reference_free(&ref);
    /* alpha 0 still propagates NaN from the product. */
    a[0] = NAN;
    ck_assert_int_eq(base_reference_compute(&in, 0, 0, &ref, err, sizeof err), 0);
    ck_assert(isnan(ref.r[0]) && isnan(ref.r[1]));
    ck_assert_double_eq(ref.r[2], 0);
    base_reference_free(&ref);
    /* C0 missing while beta != 0 is an error, not a crash. */
    in.c0 = NULL;
    ck_assert_int_eq(base_reference_compute(&in, 1, 1, &ref, err, sizeof err), -1);
    ck_assert_ptr_null(ref.r);
}
END_TEST

/* ---- verification ----------------------------------------------------- */

/* A 3 x 4 product of seeded inputs, k = 5, alpha -1.5, beta 0.5. */
static void seeded_reference(gg_inputs *in, gg_reference *ref, float *c)
{
    gg_problem p = small_problem(3, 4, 5);
    p.alpha = -1.5f;
    p.beta = 0.5f;
    char err[256];
    ck_assert_int_eq(base_inputs_make(&p, in, err, sizeof err), 0);
    ck_assert_int_eq(base_reference_compute(in, p.alpha, p.beta, ref, err, sizeof err), 0);
    for (int i = 0; i < 12; i++)
        c[i] = (float)ref->r[i];
}

START_TEST(verify_exact_and_perturbed)
{
    gg_inputs in;
    gg_reference ref;
    float c[12];
    gg_verdict v;
    seeded_reference(&in, &ref, c);
    base_verify(&ref, c, &v);
    ck_assert_msg(v.pass, "%s", v.detail);
    ck_assert_int_eq(v.bad, 0);
    ck_assert_double_le(v.rel_err, ldexp(1, -24)); /* rounding R to float only */
    ck_assert_double_eq(v.bound, 5 * ldexp(1, -23));
    /* One element off by 1e-3 of its scale. */
    c[6] = (float)(ref.r[6] + 1e-3 * ref.s[6]);
    base_verify(&ref, c, &v);
    ck_assert(!v.pass);
    ck_assert_int_eq(v.bad, 1);
    ck_assert_int_eq(v.worst_i, 1);
    ck_assert_int_eq(v.worst_j, 2);
    ck_assert_double_gt(v.rel_err, 0.9e-3);
    ck_assert_double_lt(v.rel_err, 1.1e-3);
    ck_assert_msg(strstr(v.detail, "C[1][2] = ") && strstr(v.detail, "expected"), "%s",
                  v.detail);
    /* A NaN where the reference is finite fails even though rel_err is small. */
    c[6] = (float)ref.r[6];
    c[11] = NAN;
    base_verify(&ref, c, &v);
    ck_assert(!v.pass);
    ck_assert_double_le(v.rel_err, ldexp(1, -24));
    ck_assert_msg(strstr(v.detail, "C[2][3] = nan where the reference is finite"), "%s",
                  v.detail);
    c[11] = INFINITY;
    base_verify(&ref, c, &v);
    ck_assert(!v.pass);
    ck_assert_msg(strstr(v.detail, "C[2][3] = inf where the reference is finite"), "%s",
                  v.detail);
    base_reference_free(&ref);
    base_inputs_free(&in);
}
END_TEST

/* The bound is k * 2^-23 of S: R = 1, S = 1 (or 4), k = 8: bound 2^-20. */
static const struct {
    double r, s, c;
    bool pass;
} bound_cases[] = {
    {1, 1, 1, true},
    {1, 1, 1 + 0x1p-21, true},    /* 0.5 x the bound */
    {1, 1, 1 - 0x1p-21, true},
    {1, 1, 1 + 0x1p-20, true},    /* exactly the bound */
    {1, 1, 1 + 0x1p-19, false},   /* 2 x the bound */
    {1, 1, 1 - 0x1p-19, false},
    {1, 4, 1 + 0x1p-19, true},    /* a larger scale allows more */
    {1, 4, 1 + 0x1p-17, false},
    {0, 0, 0, true},              /* S == 0: exact only */
    {0, 0, -0.0, true},
    {0, 0, 0x1p-140, false},
    {NAN, NAN, NAN, true},        /* classes */
    {NAN, NAN, 1, false},
    {NAN, NAN, INFINITY, false},
    {INFINITY, INFINITY, INFINITY, true},
    {INFINITY, INFINITY, -INFINITY, false},
    {-INFINITY, INFINITY, -INFINITY, true},
    {INFINITY, INFINITY, NAN, false},
    {INFINITY, INFINITY, 3e38, false},
    {2, 2, NAN, false},
    {2, 2, -INFINITY, false},
};

START_TEST(verify_bound_and_classes)
{
    /* The case's element sits at [1][0] of a 2 x 2 result whose other
     * elements are exact. */
    double r[4] = {0.5, 0.25, bound_cases[_i].r, -1}, s[4] = {1, 1, bound_cases[_i].s, 1};
    float c[4] = {0.5f, 0.25f, (float)bound_cases[_i].c, -1};
    gg_reference ref = {.m = 2, .n = 2, .k = 8, .r = r, .s = s};
    gg_verdict v;
    base_verify(&ref, c, &v);
    ck_assert_double_eq(v.bound, 0x1p-20);
    ck_assert_msg(v.pass == bound_cases[_i].pass, "case %d: pass %d, %s", _i, v.pass, v.detail);
    ck_assert_int_eq(v.bad, bound_cases[_i].pass ? 0 : 1);
    ck_assert(isfinite(v.rel_err) || bound_cases[_i].s == 0);
    if (!v.pass) {
        ck_assert_int_eq(v.worst_i, 1);
        ck_assert_int_eq(v.worst_j, 0);
        ck_assert_msg(strstr(v.detail, "C[1][0]") != NULL, "%s", v.detail);
    }
    if (isfinite(bound_cases[_i].r) && isfinite(bound_cases[_i].c) && bound_cases[_i].s > 0)
        ck_assert_double_eq_tol(v.rel_err,
                                fabs(bound_cases[_i].c - bound_cases[_i].r) / bound_cases[_i].s,
                                1e-18);
}
END_TEST

/* ---- suite ------------------------------------------------------------ */

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

Suite *make_ref_suite(void)
{
    Suite *s = suite_create("ref");
    TCase *tc = tcase_create("npy");
    tcase_add_loop_test(tc, npy_round_trip, 0, N(rt_shapes));
    tcase_add_loop_test(tc, npy_accepts, 0, N(good_headers));
    tcase_add_loop_test(tc, npy_rejects, 0, N(bad_files));
    tcase_add_test(tc, npy_read_not_a_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("npy_write");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, npy_write_refuses_read_only);
    tcase_add_test(tc, npy_write_refuses_non_files);
    tcase_add_test(tc, npy_write_keeps_mode);
    tcase_add_test(tc, npy_write_fails_midway);
    tcase_add_test(tc, npy_write_killed);
    suite_add_tcase(s, tc);

    tc = tcase_create("inputs");
    tcase_add_test(tc, inputs_seeded);
    tcase_add_test(tc, inputs_seed_is_pinned);
    tcase_add_test(tc, inputs_from_files);
    tcase_add_loop_test(tc, inputs_rejects, 0, N(bad_inputs));
    suite_add_tcase(s, tc);

    tc = tcase_create("reference");
    tcase_add_loop_test(tc, reference_matches_naive, 0, N(ref_cases));
    tcase_add_test(tc, reference_special_values);
    tcase_add_test(tc, verify_exact_and_perturbed);
    tcase_add_loop_test(tc, verify_bound_and_classes, 0, N(bound_cases));
    suite_add_tcase(s, tc);
    return s;
}
