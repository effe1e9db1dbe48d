/* The catalogue of bad command lines and files, run through the real binary
 * (GLGEMM_BIN, default ./glgemm).  Every case must end with exit status 2,
 * exactly one line on stderr that starts with "glgemm" and names the problem
 * (a substring given here), nothing on stdout, no signal, no sanitizer
 * report, and no file created or changed: each case runs in a fresh folder
 * holding the fixtures below, and the folder must hold exactly the same files
 * with the same bytes afterwards.  A case may name an output file that exists
 * beforehand (`pre`): it must come out unchanged.
 * Cases marked "fuzz:" replay what the fuzz targets in tests/fuzz/ found. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TU_RUN_TIMEOUT_S 60
#include "tests/cli_util.h"
#include "tests/suites.h"

#define PRE_TEXT "a file that was here before\n"

typedef struct {
    const char *args[16]; /* after the binary; NULL-terminated by the zeros */
    const char *expect;   /* substring of the one stderr line */
    const char *out;      /* an output path the case names, or NULL */
    int pre;              /* out exists beforehand with PRE_TEXT (2: and is read-only) */
} bad_case;

/* BAD(expected text, args...); BAD_OUT(out path, pre, expected text, args...). */
#define BAD(expect, ...) {{__VA_ARGS__}, expect, NULL, 0}
#define BAD_OUT(out, pre, expect, ...) {{__VA_ARGS__}, expect, out, pre}

static const bad_case cases[] = {
    /* the dispatcher */
    BAD("no command given", NULL),
    BAD("unknown command 'bogus'", "bogus"),
    BAD("unknown command '--bogus'", "--bogus"),
    BAD("unknown command 'RUN'", "RUN"),
    BAD("unknown command 'bad?cmd'", "bad\ncmd"), /* fuzz: a newline made two lines */

    /* options */
    BAD("unknown option '--bogus'", "gen", "larsen", "--bogus"),
    BAD("unknown option '-x'", "gen", "larsen", "-x"),
    BAD("unknown option '--x?y'", "gen", "larsen", "--x\ny"), /* fuzz */
    BAD("option --m needs a value", "gen", "larsen", "--m"),
    BAD("option --size needs a value", "gen", "larsen", "--size"),
    BAD("option --card needs a value", "gen", "larsen", "--card"),
    BAD("option -o needs a value", "gen", "larsen", "-o"),
    BAD("option --backend needs a value", "gen", "larsen", "--backend"),
    BAD("option --transa takes no value", "gen", "larsen", "--transa=yes"),
    BAD("option --vertex takes no value", "gen", "larsen", "--vertex=1"),
    BAD("unknown option '--size'", "info", "--size", "64"),
    BAD("unknown option '--m'", "devices", "--m", "8"),
    BAD("unknown option '--size'", "probe", "--size", "5"),
    BAD("--kind must be compat, core or es3, got 'vulkan'", "info", "--kind", "vulkan"),
    BAD("takes no arguments, got 'extra'", "devices", "extra"),

    /* numbers */
    BAD("--m must be an integer from 1 to 1048576, got '0'", "gen", "larsen", "--m", "0"),
    BAD("--m must be an integer from 1 to 1048576, got '-1'", "gen", "larsen", "--m", "-1"),
    BAD("--m must be an integer from 1 to 1048576, got 'abc'", "gen", "larsen", "--m", "abc"),
    BAD("--m must be an integer from 1 to 1048576, got ''", "gen", "larsen", "--m="),
    BAD("--n must be an integer from 1 to 1048576, got '12x'", "gen", "larsen", "--n", "12x"),
    BAD("--k must be an integer from 1 to 1048576", "gen", "larsen", "--k", "1048577"),
    BAD("--size must be an integer from 1 to 1048576, got '1e9'", "gen", "larsen", "--size", "1e9"),
    BAD("--size must be an integer", "gen", "larsen", "--size", "99999999999999999999"),
    BAD("--reps must be an integer from 1 to 100000, got '0'", "gen", "larsen", "--reps", "0"),
    BAD("--reps must be an integer from 1 to 100000", "gen", "larsen", "--reps", "-3"),
    BAD("--alpha must be a finite number, got 'nan'", "gen", "larsen", "--alpha", "nan"),
    BAD("--alpha must be a finite number, got 'inf'", "gen", "larsen", "--alpha", "inf"),
    BAD("--beta must be a finite number, got '1e39'", "gen", "larsen", "--beta", "1e39"),
    BAD("--beta must be a finite number, got 'two'", "gen", "larsen", "--beta", "two"),
    BAD("--seed must be a non-negative integer, got '-4'", "gen", "larsen", "--seed", "-4"),
    BAD("--seed must be a non-negative integer", "gen", "larsen", "--seed", "4294967296"),

    /* variants */
    BAD("empty variant", "gen", ""),
    BAD("give a variant", "gen"),
    BAD("one variant only, got 'larsen' and 'nv-multi'", "gen", "larsen", "nv-multi"),
    BAD("unknown key 'foo'", "gen", "mrt=2x2,foo=1"),
    BAD("mc: 'banana' is not allowed", "gen", "mc=banana"),
    BAD("mc: 3x2 packs 6 values; R*C must be at most 4", "gen", "mc=3x2"),
    BAD("mc: '0x1' is not allowed", "gen", "mc=0x1"),
    BAD("mc: '02x2' is not allowed", "gen", "mc=02x2"),
    BAD("mrt: 3x3 needs 9 render targets; R*C must be at most 8", "gen", "mrt=3x3"),
    BAD("np: '0' is not allowed", "gen", "np=0"),
    BAD("np: '-2' is not allowed", "gen", "np=-2"),
    BAD("np: '99999999999' is not allowed", "gen", "np=99999999999"),
    BAD("np given twice", "gen", "np=4,np=8"),
    BAD("np: empty value", "gen", "np="),
    BAD("np: missing '=value'", "gen", "np"),
    BAD("unroll: '2' is not allowed; use 0 or 1", "gen", "unroll=2"),
    BAD("profile: '400' is not allowed; use 120, 330, 300es, 430 or 310es", "gen", "profile=400"),
    BAD("compiler: 'dxil' is not allowed; use glsl or spirv", "gen", "compiler=dxil"),
    BAD("acc: 'add' is not allowed; use copy, pingpong or blend", "gen", "acc=add"),
    BAD("out: 'screen' is not allowed; use rt or image", "gen", "out=screen"),
    BAD("out=image needs blk=RxC", "gen", "out=image,profile=430"),
    BAD("blk: only with out=image", "gen", "blk=8x8"),
    BAD("blk: 8x9 is not whole texels of mc=1x4", "run", "out=image,blk=8x9,mc=1x4", "--size", "8"),
    BAD("blk: 64x64 is 4096 outputs a fragment; R*C must be at most 256", "gen",
        "out=image,blk=64x64"),
    BAD("mrt: out=image writes no render target", "run", "out=image,blk=8x8,mrt=2x1", "--size", "8"),
    BAD("fetch: 'uniform' is not allowed; use texture, texelfetch, image, buffer or ubo", "gen",
        "fetch=uniform"),
    BAD("fetch: empty value", "run", "fetch=", "--size", "8"),
    BAD("empty item in variant", "gen", "np=all,,mc=1x1"),
    BAD("empty item in variant", "gen", "np=all,"),
    BAD("whitespace is not allowed in a variant", "gen", "mrt=2x2, mc=1x4"),
    BAD("preset 'larsen' must come first", "gen", "mrt=2x2,larsen"),
    BAD("unknown preset 'fastest'", "gen", "fastest"),
    BAD("unknown preset 'NV-MULTI'", "gen", "NV-MULTI"),
    BAD("best: no results/no-such-card/best-8x8x8.txt", "gen", "best", "--card", "no-such-card",
        "--size", "8"),

    /* backend, device, card */
    BAD("--backend must be egl or glfw, got 'vulkan'", "gen", "larsen", "--backend", "vulkan"),
    BAD("--backend must be egl or glfw, got 'EGL'", "info", "--backend", "EGL"),
    BAD("--device must be a device index (0, 1, ...), got 'x'", "info", "--device", "x"),
    BAD("--device must be a device index (0, 1, ...), got '-1'", "info", "--device", "-1"),
    BAD("lists EGL devices only", "devices", "--backend", "glfw"),
    BAD("--card must be a card slug", "gen", "best", "--card", "../etc"),
    BAD("--card must be a card slug", "gen", "best", "--card", "Llvmpipe"),
    BAD("got 'a?b'", "gen", "larsen", "--card", "a\nb"), /* fuzz */

    /* run: the command line, the variant, the problem */
    BAD("a VARIANT is needed", "run"),
    BAD("one VARIANT only, got 'nv-multi' after 'larsen'", "run", "larsen", "nv-multi"),
    BAD("mc: 3x2 packs 6 values", "run", "mc=3x2", "--size", "8"),
    BAD("unknown key 'mcc'", "run", "mcc=2x2", "--size", "8"),
    BAD("option --csv takes no value", "run", "larsen", "--csv=1"),
    BAD("option --reps needs a value", "run", "larsen", "--reps"),
    BAD("--reps must be an integer from 1 to 100000, got '0'", "run", "larsen", "--reps", "0"),
    BAD("--size must be an integer from 1 to 1048576, got '1e9'", "run", "larsen", "--size", "1e9"),
    BAD("--m must be an integer from 1 to 1048576, got '-1'", "run", "larsen", "--m", "-1"),
    BAD("--alpha must be a finite number, got 'nan'", "run", "larsen", "--alpha", "nan"),
    BAD("--backend must be egl or glfw, got 'vulkan'", "run", "larsen", "--backend", "vulkan"),
    BAD("no device 1023", "run", "larsen", "--size", "8", "--device", "1023"),
    BAD("best: no variant recorded for card", "run", "best", "--size", "8", "--reps", "1"),

    /* run: .npy inputs */
    BAD("--a and --b go together", "run", "larsen", "--a", "a.npy"),
    BAD("--a and --b go together", "run", "larsen", "--b", "b.npy"),
    BAD("--c needs --a and --b", "run", "larsen", "--c", "c.npy"),
    BAD("nope.npy: cannot open", "run", "larsen", "--a", "nope.npy", "--b", "b.npy"),
    BAD("dir.npy: not a regular file", "run", "larsen", "--a", "dir.npy", "--b", "b.npy"),
    BAD("magic.npy: not a .npy file (bad magic)", "run", "larsen", "--a", "magic.npy", "--b", "b.npy"),
    BAD("empty.npy: not a .npy file", "run", "larsen", "--a", "a.npy", "--b", "empty.npy"),
    BAD("text.npy: not a .npy file", "run", "larsen", "--a", "text.npy", "--b", "b.npy"),
    BAD("f8.npy: unsupported dtype '<f8'", "run", "larsen", "--a", "f8.npy", "--b", "b.npy"),
    BAD("be.npy: unsupported dtype '>f4'", "run", "larsen", "--a", "be.npy", "--b", "b.npy"),
    BAD("fortran.npy: Fortran-order arrays are not supported", "run", "larsen", "--a",
        "fortran.npy", "--b", "b.npy"),
    BAD("1d.npy: array is 1-D", "run", "larsen", "--a", "1d.npy", "--b", "b.npy"),
    BAD("3d.npy: array is 3-D", "run", "larsen", "--a", "a.npy", "--b", "3d.npy"),
    BAD("zero.npy: shape (0, 3) has a zero dimension", "run", "larsen", "--a", "zero.npy", "--b",
        "b.npy"),
    BAD("trunc.npy: truncated data", "run", "larsen", "--a", "trunc.npy", "--b", "b.npy"),
    BAD("long.npy: 4 bytes of trailing data", "run", "larsen", "--a", "long.npy", "--b", "b.npy"),
    BAD("inner dimensions differ", "run", "larsen", "--a", "a.npy", "--b", "b-inner.npy"),
    BAD("inner dimensions differ", "run", "larsen", "--a", "a.npy", "--b", "b.npy", "--transa"),
    BAD("c-shape.npy is 5x4 but op(A)*op(B) is 4x5", "run", "larsen", "--a", "a.npy", "--b",
        "b.npy", "--c", "c-shape.npy"),
    BAD("f8.npy: unsupported dtype '<f8'", "run", "larsen", "--a", "a.npy", "--b", "b.npy", "--c",
        "f8.npy"),

    /* run --out: refused before any work, nothing written */
    BAD_OUT("missing-dir/o.npy", 0, "no folder 'missing-dir'", "run", "larsen", "--size", "8",
            "--out", "missing-dir/o.npy"),
    BAD_OUT("a.npy/o.npy", 0, "--out a.npy/o.npy", "run", "larsen", "--size", "8", "--out",
            "a.npy/o.npy"),
    BAD("--out dir.npy: exists and is not a regular file", "run", "larsen", "--size", "8", "--out",
        "dir.npy"),
    BAD("is not a file name", "run", "larsen", "--size", "8", "--out", "dir.npy/"),
    BAD_OUT("o.npy", 2, "--out o.npy: exists and is read-only", "run", "larsen", "--size", "8",
            "--out", "o.npy"),
    BAD_OUT("o.npy", 1, "mc: 3x2 packs 6 values", "run", "mc=3x2", "--size", "8", "--out", "o.npy"),
    BAD_OUT("o.npy", 0, "trunc.npy: truncated data", "run", "larsen", "--a", "trunc.npy", "--b",
            "b.npy", "--out", "o.npy"),
    BAD_OUT("o.npy", 1, "inner dimensions differ", "run", "larsen", "--a", "a.npy", "--b",
            "b-inner.npy", "--out", "o.npy"),

    /* tune: options checked before any GL, nothing written under results/ */
    BAD("--search must be phase, exhaustive or random, got 'bogus'", "tune", "--search", "bogus",
        "--size", "8"),
    BAD("option --search needs a value", "tune", "--search"),
    BAD("--search random needs --budget N", "tune", "--search", "random", "--size", "8"),
    BAD("--fix: 'garbage' is not key=value", "tune", "--fix", "garbage", "--size", "8"),
    BAD("--fix: np: '0' is not allowed", "tune", "--fix", "np=0", "--size", "8"),
    BAD("--fix: mrt: 9x9 needs 81 render targets", "tune", "--fix", "mrt=9x9", "--size", "8"),
    BAD("--fix: blk: '8x7x' is not allowed", "tune", "--fix", "blk=8x7x", "--size", "8"),
    BAD("--fix: out: 'both' is not allowed; use rt or image", "tune", "--fix", "out=both", "--size",
        "8"),
    BAD("--fix: fetch: 'sampler' is not allowed", "tune", "--fix", "fetch=sampler", "--size", "8"),
    BAD("--fix: blk=RxC is a block of out=image; it cannot go with out=rt", "tune", "--fix",
        "out=rt,blk=8x8", "--size", "8"),
    BAD("--fix: key 'profile' given twice", "tune", "--fix", "profile=300es,profile=120"),
    BAD("--fix: 'larsen' is not key=value", "tune", "--fix", "larsen", "--size", "8"),
    BAD("--fix: unknown key 'a?b'", "tune", "--fix", "a\nb=1", "--size", "8"), /* fuzz */
    BAD("--budget must be an integer from 1 to 100000000, got '-3'", "tune", "--budget", "-3"),
    BAD("--budget must be an integer from 1 to 100000000, got '0'", "tune", "--budget", "0"),
    BAD("--budget must be an integer from 1 to 100000000, got 'abc'", "tune", "--budget", "abc"),
    BAD("--timeout must be seconds, more than 0 and at most 86400, got '0'", "tune", "--timeout",
        "0"),
    BAD("--timeout must be seconds", "tune", "--timeout", "nan"),
    BAD("--keep must be an integer from 0 to 36, got '37'", "tune", "--keep", "37"),
    BAD("--results needs a folder", "tune", "--results", "", "--size", "8"),
    BAD("option --fresh takes no value", "tune", "--fresh=1"),
    BAD("unexpected argument 'larsen'", "tune", "larsen", "--size", "8"),
    BAD("--reps must be an integer from 1 to 100000, got '0'", "tune", "--reps", "0"),
    BAD("--size must be an integer from 1 to 1048576, got '0'", "tune", "--size", "0"),
    BAD("--a and --b go together", "tune", "--a", "a.npy", "--size", "8"),
    BAD("inner dimensions differ", "tune", "--a", "a.npy", "--b", "b-inner.npy"),
    BAD("magic.npy: not a .npy file", "tune", "--a", "magic.npy", "--b", "b.npy"),
    BAD_OUT("o.npy", 0, "--out is not an option of tune", "tune", "--size", "8", "--out", "o.npy"),

    /* bench, report, probe */
    BAD("takes no arguments, got 'larsen'", "bench", "larsen", "--size", "8"),
    BAD("option --csv takes no value", "bench", "--csv=1"),
    BAD("--crossover writes its own table; --csv does not apply", "bench", "--crossover", "--csv",
        "--size", "32"),
    BAD("--crossover measures square sizes up to --size S; got 32x16x32", "bench", "--crossover",
        "--m", "32", "--n", "16", "--k", "32"),
    BAD("--crossover needs --size of at least 16, got 8", "bench", "--crossover", "--size", "8"),
    BAD("--size must be an integer from 1 to 1048576, got '0'", "bench", "--size", "0"),
    BAD_OUT("o.npy", 0, "--out is not an option of bench", "bench", "--size", "8", "--out",
            "o.npy"),
    BAD("trunc.npy: truncated data", "bench", "--a", "trunc.npy", "--b", "b.npy"),
    BAD("inner dimensions differ", "bench", "--a", "a.npy", "--b", "b-inner.npy"),
    BAD("f8.npy: unsupported dtype '<f8'", "bench", "--a", "a.npy", "--b", "b.npy", "--c", "f8.npy"),
    BAD("takes no arguments, got 'extra'", "report", "extra"),
    BAD("reports are per problem size", "report", "--a", "a.npy", "--b", "b.npy"),
    BAD("--m must be an integer from 1 to 1048576, got 'x'", "report", "--m", "x"),
    BAD("unknown option '--bogus'", "report", "--bogus"),
    BAD("takes no arguments, got 'extra'", "probe", "extra"),
    BAD("unknown option '--bogus'", "probe", "--bogus"),

    /* output files: nothing created, nothing replaced */
    BAD_OUT("missing-dir/s.frag", 0, "cannot write missing-dir/s.frag", "gen", "larsen", "-o", "missing-dir/s.frag"),
    BAD_OUT("s.frag", 0, "mc: 3x2 packs 6 values", "gen", "mc=3x2", "-o", "s.frag"),
    BAD_OUT("s.frag", 1, "mc: 3x2 packs 6 values", "gen", "mc=3x2", "-o", "s.frag"),
    BAD_OUT("s.frag", 1, "--m must be an integer", "gen", "larsen", "--m", "0", "-o", "s.frag"),
    BAD_OUT("s.frag", 1, "unknown option '--bogus'", "gen", "larsen", "-o", "s.frag", "--bogus"),
    BAD_OUT("a.npy/s.frag", 0, "cannot write a.npy/s.frag", "gen", "larsen", "-o", "a.npy/s.frag"),
    BAD_OUT("d", 0, "--write-shaders DIR takes no variant", "gen", "--write-shaders", "d", "larsen"),
    BAD_OUT("a.npy/larsen.frag", 0, "cannot write a.npy/larsen.frag", "gen", "--write-shaders", "a.npy"),
};

/* ---- fixtures: .npy files good and bad, for the commands that read them ---- */

static size_t npy_image(unsigned char *buf, int major, const char *dict, int floats)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    if (major != 1)
        buf[10] = buf[11] = 0;
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', hlen - dl - 1);
    buf[total - 1] = '\n';
    for (int i = 0; i < floats; i++) {
        float x = (float)((i * 7 % 11) - 5) / 8.0f;
        memcpy(buf + total + 4 * (size_t)i, &x, 4);
    }
    return total + 4 * (size_t)floats;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create fixture %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void make_npy(const char *path, const char *descr, const char *fortran, const char *shape,
                     int floats)
{
    static unsigned char buf[1 << 16];
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
             fortran, shape);
    write_bytes(path, buf, npy_image(buf, 1, dict, floats));
}

/* A (4, 3), B (3, 5), C0 (4, 5) good; the rest each wrong in one way. */
static void make_fixtures(void)
{
    make_npy("a.npy", "<f4", "False", "(4, 3)", 12);
    make_npy("b.npy", "<f4", "False", "(3, 5)", 15);
    make_npy("c.npy", "<f4", "False", "(4, 5)", 20);
    make_npy("b-inner.npy", "<f4", "False", "(4, 5)", 20); /* inner 4 vs A's 3 */
    make_npy("c-shape.npy", "<f4", "False", "(5, 4)", 20);
    make_npy("f8.npy", "<f8", "False", "(4, 3)", 24);
    make_npy("be.npy", ">f4", "False", "(4, 3)", 12);
    make_npy("fortran.npy", "<f4", "True", "(4, 3)", 12);
    make_npy("1d.npy", "<f4", "False", "(12,)", 12);
    make_npy("3d.npy", "<f4", "False", "(2, 2, 3)", 12);
    make_npy("zero.npy", "<f4", "False", "(0, 3)", 0);
    make_npy("trunc.npy", "<f4", "False", "(4, 3)", 11);
    make_npy("long.npy", "<f4", "False", "(4, 3)", 13);
    unsigned char bad[80];
    memset(bad, ' ', sizeof bad);
    memcpy(bad, "\x93NUMPZ\x01\x00\x46\x00{}", 12);
    bad[sizeof bad - 1] = '\n';
    write_bytes("magic.npy", bad, sizeof bad);
    write_bytes("empty.npy", "", 0);
    write_bytes("text.npy", "1,2,3\n4,5,6\n", 12);
    ck_assert_int_eq(mkdir("dir.npy", 0755), 0);
}

/* ---- the folder before and after ---- */

typedef struct {
    char name[256];
    unsigned long long sum; /* FNV-1a of the bytes; ~0 for a folder */
    long long size;
} entry;

static unsigned long long file_sum(const char *path, long long *size)
{
    unsigned long long h = 1469598103934665603ULL;
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    int ch;
    *size = 0;
    while ((ch = fgetc(f)) != EOF) {
        h = (h ^ (unsigned char)ch) * 1099511628211ULL;
        ++*size;
    }
    fclose(f);
    return h;
}

/* The folder's entries, sorted; folders are listed one level down. */
static int snapshot(entry *out, int cap)
{
    int n = 0;
    const char *dirs[2] = {".", NULL};
    char sub[256] = "";
    for (int level = 0; level < 2 && dirs[level]; level++) {
        DIR *d = opendir(dirs[level]);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            ck_assert_int_lt(n, cap);
            char path[256];
            snprintf(path, sizeof path, "%.120s/%.120s", dirs[level], e->d_name);
            snprintf(out[n].name, sizeof out[n].name, "%s", path);
            struct stat st;
            ck_assert_int_eq(lstat(path, &st), 0);
            if (S_ISDIR(st.st_mode)) {
                out[n].sum = ~0ULL;
                out[n].size = -1;
                if (level == 0 && !dirs[1]) {
                    snprintf(sub, sizeof sub, "%s", path);
                    dirs[1] = sub;
                }
            } else {
                out[n].sum = file_sum(path, &out[n].size);
            }
            n++;
        }
        closedir(d);
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(out[j - 1].name, out[j].name) > 0; j--) {
            entry t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* ---- running the binary ---- */

typedef struct {
    int status, sig;
    char out[4096], err[8192];
} result;

static void run_bin(const char *const *args, result *r)
{
    tu_result t;
    tu_exec(NULL, NULL, args, &t);
    r->status = t.status;
    r->sig = t.sig;
    snprintf(r->out, sizeof r->out, "%s", t.out);
    snprintf(r->err, sizeof r->err, "%s", t.err);
    tu_result_free(&t);
}

static void describe(const char *const *args, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "glgemm");
    for (int i = 0; args[i] && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, " '%s'", args[i]);
}

/* Runs one case in a fresh folder and checks everything the header says. */
static void check_case(const bad_case *bc)
{
    char dir[] = "/tmp/glgemm-badinput-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chdir(dir), 0);
    make_fixtures();
    if (bc->pre)
        write_bytes(bc->out, PRE_TEXT, strlen(PRE_TEXT));
    if (bc->pre == 2)
        ck_assert_int_eq(chmod(bc->out, 0444), 0);
    static entry before[128], after[128];
    int nb = snapshot(before, 128);

    result r;
    run_bin(bc->args, &r);
    char what[512];
    describe(bc->args, what, sizeof what);

    ck_assert_msg(r.sig == 0, "%s: killed by signal %d; stderr: %s", what, r.sig, r.err);
    ck_assert_msg(r.status == 2, "%s: exit %d, want 2; stderr: %s", what, r.status, r.err);
    ck_assert_msg(!strstr(r.err, "Sanitizer") && !strstr(r.err, "runtime error"),
                  "%s: sanitizer report: %s", what, r.err);
    size_t len = strlen(r.err);
    ck_assert_msg(len > 0 && r.err[len - 1] == '\n' && strchr(r.err, '\n') == r.err + len - 1,
                  "%s: stderr is not one line: '%s'", what, r.err);
    ck_assert_msg(!strncmp(r.err, "glgemm", 6), "%s: message does not start with glgemm: %s",
                  what, r.err);
    ck_assert_msg(strstr(r.err, bc->expect) != NULL, "%s: stderr '%.*s' does not say '%s'", what,
                  (int)len - 1, r.err, bc->expect);
    ck_assert_msg(r.out[0] == '\0', "%s: printed on stdout: %s", what, r.out);

    int na = snapshot(after, 128);
    for (int i = 0; i < na || i < nb; i++) {
        ck_assert_msg(i < na && i < nb && !strcmp(before[i].name, after[i].name),
                      "%s: the folder changed: %s", what,
                      i < na && (i >= nb || strcmp(before[i].name, after[i].name) < 0)
                          ? after[i].name
                          : before[i].name);
        ck_assert_msg(before[i].sum == after[i].sum && before[i].size == after[i].size,
                      "%s: %s changed", what, before[i].name);
    }
    if (bc->out && !bc->pre) {
        struct stat st;
        ck_assert_msg(stat(bc->out, &st) != 0, "%s: %s was created", what, bc->out);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(chdir("/"), 0);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(bad_input)
{
    check_case(&cases[_i]);
}
END_TEST

/* The runner itself: a good command passes none of the checks above. */
START_TEST(good_input_is_not_bad)
{
    const char *args[] = {"gen", "larsen", "--size", "8", NULL};
    result r;
    run_bin(args, &r);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert_ptr_nonnull(strstr(r.out, "#version"));
}
END_TEST

Suite *make_badinput_suite(void)
{
    Suite *s = suite_create("badinput");
    TCase *tc = tcase_create("catalogue");
    tcase_set_timeout(tc, TU_RUN_TIMEOUT_S + 30);
    tcase_add_loop_test(tc, bad_input, 0, sizeof cases / sizeof *cases);
    tcase_add_test(tc, good_input_is_not_bad);
    suite_add_tcase(s, tc);
    return s;
}
