/* The catalogue of bad command lines and files, run through the real binary
 * (GLGEMM_BIN, default ./glgemm).  Every case must end with exit status 2,
 * exactly one line on stderr that starts with "glgemm" and names the problem
 * (a substring given here), nothing on stdout, no signal, no sanitizer
 * report, and no file created or changed: each case runs in a fresh folder
 * holding the fixtures below, and the folder must hold exactly the same files
 * with the same bytes afterwards.  A case may name an output file that exists
 * beforehand (`pre`): it must come out unchanged.
 * Cases marked "fuzz:" replay what the fuzz targets in tests/fuzz/ found.
 *
 * The environment the CLI reads (GLGEMM_CACHE, GLGEMM_VERIFY,
 * GLGEMM_CROSSOVER) is checked the same way (BAD_ENV).  What the library
 * and the drop-in BLAS read has no exit status: the second part below
 * (lib_*) holds their bad values (lib/env.h: one line naming the variable;
 * glgemm_open fails on a bad GLGEMM_VERIFY or GLGEMM_CROSSOVER, the drop-in
 * passes its calls on), bad crossover records (one line on stderr, the
 * record not used: the next folder's, else no crossover), a bad
 * GLGEMM_CACHE (one line, the cache stays on) and bad program-cache
 * entries (refused, with a reason, GL-free: glhost/progcache_entry.h). */
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
#include "glgemm.h"
#include "glhost/progcache.h"
#include "glhost/progcache_entry.h"
#include "lib/env.h"
#include "store/records.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

#define PRE_TEXT "a file that was here before\n"

typedef struct {
    const char *args[16]; /* after the binary; NULL-terminated by the zeros */
    const char *expect;   /* substring of the one stderr line */
    const char *out;      /* an output path the case names, or NULL */
    int pre;              /* out exists beforehand with PRE_TEXT (2: and is read-only) */
    const char *env;      /* the child's environment, as tu_exec's (NULL: as ours) */
} bad_case;

/* BAD(expected text, args...); BAD_OUT(out path, pre, expected text, args...);
 * BAD_ENV(environment, expected text, args...). */
#define BAD(expect, ...) {{__VA_ARGS__}, expect, NULL, 0, NULL}
#define BAD_OUT(out, pre, expect, ...) {{__VA_ARGS__}, expect, out, pre, NULL}
#define BAD_ENV(env, expect, ...) {{__VA_ARGS__}, expect, NULL, 0, env}

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
    BAD("fetch: 'uniform' is not allowed; use texture, texelfetch, image, buffer, ubo, ssbo, "
        "texelfetch+ssbo or ssbo+texelfetch", "gen",
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
    BAD("--backend must be egl, glfw or browser, got 'vulkan'", "gen", "larsen", "--backend", "vulkan"),
    BAD("--backend must be egl, glfw or browser, got 'EGL'", "info", "--backend", "EGL"),
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
    BAD("--backend must be egl, glfw or browser, got 'vulkan'", "run", "larsen", "--backend", "vulkan"),
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

    /* the environment: checked before the command runs */
    BAD_ENV("GLGEMM_CACHE=maybe", "GLGEMM_CACHE=maybe is not on or off", "gen", "larsen"),
    BAD_ENV("GLGEMM_CACHE=OFF", "GLGEMM_CACHE=OFF is not on or off", "run", "larsen", "--size", "8"),
    BAD_ENV("GLGEMM_CACHE=0", "GLGEMM_CACHE=0 is not on or off", "tune", "--size", "8"),
    BAD_ENV("GLGEMM_VERIFY=sometimes", "GLGEMM_VERIFY=sometimes is not none, check or full", "bench",
            "--crossover", "--size", "16"),
    BAD_ENV("GLGEMM_VERIFY=FULL", "GLGEMM_VERIFY=FULL is not none, check or full", "info"),
    BAD_ENV("GLGEMM_CROSSOVER=12x", "GLGEMM_CROSSOVER=12x is not a whole number from 0 to 1048576",
            "bench", "--crossover", "--size", "16"),
    BAD_ENV("GLGEMM_CROSSOVER=-1", "GLGEMM_CROSSOVER=-1 is not a whole number", "bench", "--size",
            "8"),
    BAD_ENV("GLGEMM_CROSSOVER=1048577", "GLGEMM_CROSSOVER=1048577 is not a whole number", "report"),
    BAD_ENV("GLGEMM_CROSSOVER=+64", "GLGEMM_CROSSOVER=+64 is not a whole number", "probe"),
    BAD_ENV("GLGEMM_VERIFY=a\nb", "GLGEMM_VERIFY=a?b is not", "gen", "larsen"), /* fuzz: two lines */
    BAD_ENV("GLGEMM_STAGING=16MiB", "GLGEMM_STAGING=16MiB is not a whole number of MiB", "bench",
            "--crossover", "--size", "16"),
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

static void run_bin(const char *const *args, const char *env, result *r)
{
    tu_result t;
    tu_exec(NULL, env, args, &t);
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
    run_bin(bc->args, bc->env, &r);
    char what[512];
    describe(bc->args, what, sizeof what);
    if (bc->env)
        snprintf(what + strlen(what), sizeof what - strlen(what), " (env %s)", bc->env);

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
    run_bin(args, "GLGEMM_CACHE=on GLGEMM_VERIFY=full GLGEMM_CROSSOVER=0064 GLGEMM_STAGING=4096", &r);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");
    ck_assert_ptr_nonnull(strstr(r.out, "#version"));
}
END_TEST

/* ---- the library and the drop-in BLAS: no exit status, a fallback ---- */

/* What fd 2 got while a piece of code ran (malloc'd). */
typedef struct {
    int saved;
    FILE *f;
} capture;

static void capture_start(capture *c)
{
    fflush(stderr);
    c->f = tmpfile();
    ck_assert_ptr_nonnull(c->f);
    c->saved = dup(2);
    ck_assert_int_ge(c->saved, 0);
    ck_assert_int_ge(dup2(fileno(c->f), 2), 0);
}

static char *capture_end(capture *c)
{
    fflush(stderr);
    ck_assert_int_ge(dup2(c->saved, 2), 0);
    close(c->saved);
    long n = ftell(c->f);
    ck_assert_int_ge(n, 0);
    char *text = calloc(1, (size_t)n + 1);
    rewind(c->f);
    ck_assert_uint_eq(fread(text, 1, (size_t)n, c->f), (size_t)n);
    fclose(c->f);
    return text;
}

/* One line ending in a newline, starting with start, naming expect. */
static void assert_one_line(const char *text, const char *start, const char *expect,
                            const char *what)
{
    size_t len = strlen(text);
    ck_assert_msg(len > 0 && text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1,
                  "%s: not one line: '%s'", what, text);
    ck_assert_msg(!strncmp(text, start, strlen(start)), "%s: '%s' does not start with '%s'", what,
                  text, start);
    ck_assert_msg(strstr(text, expect) != NULL, "%s: '%s' does not say '%s'", what, text, expect);
}

/* Bad values of the library's and the drop-in's variables. */
static const struct {
    int var;
    const char *value, *expect;
} env_cases[] = {
    {LIB_ENV_VERIFY, "sometimes", "GLGEMM_VERIFY=sometimes is not none, check or full"},
    {LIB_ENV_VERIFY, "Check", "GLGEMM_VERIFY=Check is not"},
    {LIB_ENV_VERIFY, " full", "GLGEMM_VERIFY= full is not"},
    {LIB_ENV_CROSSOVER, "abc", "GLGEMM_CROSSOVER=abc is not a whole number from 0 to 1048576"},
    {LIB_ENV_CROSSOVER, "-1", "GLGEMM_CROSSOVER=-1 is not"},
    {LIB_ENV_CROSSOVER, "12x", "GLGEMM_CROSSOVER=12x is not"},
    {LIB_ENV_CROSSOVER, "99999999999", "GLGEMM_CROSSOVER=99999999999 is not"},
    {LIB_ENV_CROSSOVER, "1048577", "GLGEMM_CROSSOVER=1048577 is not"},
    {LIB_ENV_CROSSOVER, " 64", "GLGEMM_CROSSOVER= 64 is not"},
    {LIB_ENV_CROSSOVER, "6\n4", "GLGEMM_CROSSOVER=6?4 is not"}, /* fuzz: two lines */
    {LIB_ENV_BACKEND, "vulkan", "GLGEMM_BACKEND=vulkan is not egl or glfw"},
    {LIB_ENV_BACKEND, "EGL", "GLGEMM_BACKEND=EGL is not egl or glfw"},
    {LIB_ENV_BACKEND, "none", "GLGEMM_BACKEND=none is not egl or glfw"},
    {LIB_ENV_BACKEND, "browser", "GLGEMM_BACKEND=browser is not egl or glfw"},
    {LIB_ENV_DEVICE, "x", "GLGEMM_DEVICE=x is not a device index"},
    {LIB_ENV_DEVICE, "-1", "GLGEMM_DEVICE=-1 is not a device index"},
    {LIB_ENV_DEVICE, "1e3", "GLGEMM_DEVICE=1e3 is not a device index"},
    {LIB_ENV_DEVICE, "2147483648", "GLGEMM_DEVICE=2147483648 is not a device index"},
    {LIB_ENV_STAGING, "big", "GLGEMM_STAGING=big is not a whole number of MiB from 0 to 4096"},
    {LIB_ENV_STAGING, "4097", "GLGEMM_STAGING=4097 is not"},
    {LIB_ENV_STAGING, "-16", "GLGEMM_STAGING=-16 is not"},
    {LIB_ENV_STAGING, "16M", "GLGEMM_STAGING=16M is not"},
};

/* lib/env.h's parser: refused, *out untouched, one line naming it; and
 * for the library's own three, glgemm_open fails with that line (the
 * drop-in's three open no context: tests/blas/run.sh checks the hand-over). */
START_TEST(lib_bad_env)
{
    const char *name = lib_env_names[env_cases[_i].var];
    char err[256] = "", line[300];
    long x = -77;
    ck_assert_int_eq(lib_env_parse(env_cases[_i].var, env_cases[_i].value, &x, err, sizeof err), -1);
    ck_assert_int_eq(x, -77);
    snprintf(line, sizeof line, "%s\n", err);
    assert_one_line(line, name, env_cases[_i].expect, name);
    ck_assert_int_eq(setenv(name, env_cases[_i].value, 1), 0);
    ck_assert_int_eq(lib_env_get(env_cases[_i].var, &x, err, sizeof err), -1);
    unsetenv(name);
}
END_TEST

/* GLGEMM_WARMUP and GLGEMM_RESULTS, read through lib/env.h's table like the
 * others, have no bad value: "0" alone turns the warm-up off, and any text
 * names a records folder (the path read by lib_env_text); unset or "" is the
 * default (warm-up on, no folder of its own). */
START_TEST(lib_env_never_bad)
{
    static const struct {
        int var;
        const char *value;
        long want;
    } good[] = {
        {LIB_ENV_WARMUP, NULL, 1}, {LIB_ENV_WARMUP, "", 1},   {LIB_ENV_WARMUP, "0", 0},
        {LIB_ENV_WARMUP, "1", 1},  {LIB_ENV_WARMUP, "no", 1}, {LIB_ENV_WARMUP, "00", 1},
        {LIB_ENV_RESULTS, NULL, 0}, {LIB_ENV_RESULTS, "", 0}, {LIB_ENV_RESULTS, "/tmp/r", 1},
        {LIB_ENV_RESULTS, "results\n2", 1},
    };
    char err[256] = "";
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        long x = -77;
        ck_assert_int_eq(lib_env_parse(good[i].var, good[i].value, &x, err, sizeof err), 0);
        ck_assert_int_eq(x, good[i].want);
    }
    const char *was = getenv("GLGEMM_RESULTS");
    char *keep = was ? strdup(was) : NULL;
    ck_assert_int_eq(setenv("GLGEMM_RESULTS", "", 1), 0);
    ck_assert_ptr_null(lib_env_text(LIB_ENV_RESULTS));
    ck_assert_int_eq(setenv("GLGEMM_RESULTS", "/tmp/r", 1), 0);
    ck_assert_str_eq(lib_env_text(LIB_ENV_RESULTS), "/tmp/r");
    unsetenv("GLGEMM_RESULTS");
    ck_assert_ptr_null(lib_env_text(LIB_ENV_RESULTS));
    if (keep)
        setenv("GLGEMM_RESULTS", keep, 1);
    free(keep);
}
END_TEST

START_TEST(lib_bad_env_open)
{
    for (size_t i = 0; i < sizeof env_cases / sizeof *env_cases; i++) {
        if (env_cases[i].var != LIB_ENV_VERIFY && env_cases[i].var != LIB_ENV_CROSSOVER &&
            env_cases[i].var != LIB_ENV_STAGING)
            continue;
        const char *name = lib_env_names[env_cases[i].var];
        ck_assert_int_eq(setenv(name, env_cases[i].value, 1), 0);
        capture c;
        capture_start(&c);
        glgemm_context *g = glgemm_open(NULL, 0);
        char *said = capture_end(&c);
        unsetenv(name);
        ck_assert_msg(g == NULL, "%s=%s: glgemm_open succeeded", name, env_cases[i].value);
        ck_assert_msg(said[0] == '\0', "%s: glgemm_open wrote on stderr: %s", name, said);
        char line[600];
        snprintf(line, sizeof line, "%s\n", glgemm_last_error());
        assert_one_line(line, "glgemm_open: ", env_cases[i].expect, name);
        free(said);
    }
}
END_TEST

/* Bad crossover records: {text, what the line says}.  The parser's own
 * message first, then glgemm_open: the record not used, one line. */
static const char *const cross_cases[][2] = {
    {"crossover: abc\n", "line 1: 'crossover: abc' is not 'crossover: N'"},
    {"crossover: -1\n", "line 1: 'crossover: -1' is not"},
    {"crossover: 1048577\n", "line 1: 'crossover: 1048577' is not"},
    {"crossover: 99999999999999999999999\n", "is not 'crossover: N'"},
    {"crossover: 12x\n", "'crossover: 12x' is not"},
    {"crossover: 5.5\n", "'crossover: 5.5' is not"},
    {"crossover:64\n", "'crossover:64' is not"},
    {"crossover: \n", "is not 'crossover: N'"},
    {"# glgemm bench --crossover\nsize,gpu_s,cpu_s\ncrossover: 64\ncrossover: 128\n",
     "line 4: 'crossover: 128': a second crossover line (the first is line 3)"},
    {"crossover: 6\r4\n", "'crossover: 6?4' is not"}, /* fuzz: a control byte in the message */
    {"# glgemm bench --crossover\nsize,gpu_s,cpu_s\n16,0.1,0.01\n", "no line 'crossover: N'"},
    {"", "no line 'crossover: N'"},
};

START_TEST(lib_bad_crossover_record)
{
    const char *text = cross_cases[_i][0], *expect = cross_cases[_i][1];
    char why[512] = "", line[600];
    long x = -77;
    int rc = store_crossover_parse(text, strlen(text), &x, why, sizeof why);
    ck_assert_msg(rc != 0 && x == -77, "'%s' read as %ld", text, x);
    snprintf(line, sizeof line, "%s\n", why);
    assert_one_line(line, "", expect, "store_crossover_parse");

    /* The library: GLGEMM_RESULTS holds the bad record, the per-user folder
     * a good one (then it counts), or none (then no crossover). */
    char dir[200], user[200], path[700];
    tu_mkdtemp(dir, sizeof dir, "badinput-cross");
    tu_mkdtemp(user, sizeof user, "badinput-user");
    ck_assert_int_eq(chdir(dir), 0); /* no ./results */
    unsetenv("GLGEMM_CROSSOVER");
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("XDG_DATA_HOME", user, 1);
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    char card[64];
    snprintf(card, sizeof card, "%s", glgemm_card(g));
    glgemm_close(g);
    store_card_dir(path, sizeof path, dir, card);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    store_crossover_path(path, sizeof path, dir, card);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
    for (int good = 0; good < 2; good++) {
        if (good) {
            char upath[700];
            snprintf(upath, sizeof upath, "%s/glgemm/results/%s", user, card);
            char cmd[800];
            snprintf(cmd, sizeof cmd, "mkdir -p '%s'", upath);
            ck_assert_int_eq(system(cmd), 0);
            snprintf(upath + strlen(upath), sizeof upath - strlen(upath), "/crossover.txt");
            tu_write(upath, "crossover: 48\n");
        }
        capture c;
        capture_start(&c);
        g = glgemm_open(NULL, 0);
        char *said = capture_end(&c);
        ck_assert_msg(g != NULL, "%s", glgemm_last_error());
        ck_assert_int_eq(glgemm_crossover(g), good ? 48 : 0);
        glgemm_close(g);
        if (!good) { /* said once a process */
            assert_one_line(said, "glgemm: crossover record ", expect, text);
            ck_assert_msg(strstr(said, path) && strstr(said, "; not used\n"), "%s", said);
        } else {
            ck_assert_str_eq(said, "");
        }
        free(said);
    }
    unsetenv("GLGEMM_RESULTS");
    unsetenv("XDG_DATA_HOME");
    ck_assert_int_eq(chdir("/"), 0);
    tu_rm_rf(dir);
    tu_rm_rf(user);
}
END_TEST

/* GLGEMM_CACHE of another value: one line, the cache on (no GL needed to
 * read the environment). */
START_TEST(lib_bad_cache_env)
{
    static const char *const bad[] = {"maybe", "OFF", "0", "no", "off "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("GLGEMM_CACHE", bad[i], 1);
        setenv("GLGEMM_CACHE_DIR", "/tmp/glgemm-badinput-cache", 1);
        host_progcache_reset();
        capture c;
        capture_start(&c);
        const char *dir = host_progcache_dir();
        char *said = capture_end(&c);
        ck_assert_msg(dir && !strcmp(dir, "/tmp/glgemm-badinput-cache"), "GLGEMM_CACHE=%s: off",
                      bad[i]);
        char want[64];
        snprintf(want, sizeof want, "GLGEMM_CACHE=%s is not on or off", bad[i]);
        assert_one_line(said, "glgemm: ", want, bad[i]);
        ck_assert_ptr_nonnull(strstr(said, "the program cache stays on"));
        free(said);
    }
    unsetenv("GLGEMM_CACHE");
    unsetenv("GLGEMM_CACHE_DIR");
    host_progcache_reset();
}
END_TEST

/* Bad program-cache entries, spoilt from a good one: every one refused
 * with its reason (progcache then compiles and writes the entry again:
 * check_progcache.c runs that on llvmpipe). */
enum { E_SHORT, E_MAGIC, E_VERSION, E_KEYHASH, E_RLEN, E_SPIRV, E_RESERVED, E_BINLEN_0,
       E_BINLEN_BIG, E_LONGER, E_TRUNC, E_RENDERER, E_VERSIONSTR, E_SUM, E_BINFLIP, E_OTHERKEY,
       E_COUNT };
static const char *const entry_why[E_COUNT] = {
    "shorter than the header", "magic or version", "magic or version", "another key",
    "another key", "another key", "reserved word not zero", "length", "length", "length",
    "length", "another renderer or version", "another renderer or version", "checksum",
    "checksum", "another key",
};

START_TEST(lib_bad_cache_entry)
{
    static const char renderer[] = "llvmpipe (LLVM 15.0.6, 256 bits)", version[] = "4.5 Mesa";
    gg_pce_key k, other;
    ck_assert_int_eq(host_pce_key(&k, renderer, version, "vert", "frag", false), 0);
    ck_assert_int_eq(host_pce_key(&other, renderer, version, "vert", "frag2", false), 0);
    size_t off = host_pce_offset(&k), binlen = 40, n = off + binlen;
    unsigned char e[512];
    for (size_t i = 0; i < binlen; i++)
        e[off + i] = (unsigned char)(i * 7 + 1);
    host_pce_header(e, &k, 0x1234, binlen);
    uint32_t fmt;
    const unsigned char *bin;
    size_t blen;
    const char *why = NULL;
    ck_assert(host_pce_check(e, n, &k, &fmt, &bin, &blen, &why));
    ck_assert(fmt == 0x1234 && blen == binlen && bin == e + off);

    const gg_pce_key *key = &k;
    size_t len = n;
    switch (_i) {
    case E_SHORT: len = 63; break;
    case E_MAGIC: e[3] ^= 1; break;
    case E_VERSION: e[8] = 2; break;
    case E_KEYHASH: e[20] ^= 0x40; break;
    case E_RLEN: e[24] += 1; break;
    case E_SPIRV: e[40] = 1; break;
    case E_RESERVED: e[46] = 1; break;
    case E_BINLEN_0: memset(e + 48, 0, 8); break;
    case E_BINLEN_BIG: e[55] = 0x80; break;
    case E_LONGER: e[n] = 0; len = n + 1; break;
    case E_TRUNC: len = n - 1; break;
    case E_RENDERER: e[64] ^= 0x20; break;
    case E_VERSIONSTR: e[64 + strlen(renderer)] ^= 0x20; break;
    case E_SUM: e[57] ^= 1; break;
    case E_BINFLIP: e[off + 5] ^= 0x10; break;
    case E_OTHERKEY: key = &other; break;
    }
    why = NULL;
    ck_assert_msg(!host_pce_check(e, len, key, &fmt, &bin, &blen, &why), "case %d accepted", _i);
    ck_assert_msg(why && !strcmp(why, entry_why[_i]), "case %d: '%s', want '%s'", _i,
                  why ? why : "(none)", entry_why[_i]);
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
    TCase *lib = tcase_create("library");
    tcase_add_loop_test(lib, lib_bad_env, 0, sizeof env_cases / sizeof *env_cases);
    tcase_add_test(lib, lib_env_never_bad);
    tcase_add_test(lib, lib_bad_cache_env);
    tcase_add_loop_test(lib, lib_bad_cache_entry, 0, E_COUNT);
    suite_add_tcase(s, lib);
    TCase *gl = tcase_create("library_gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_test(gl, lib_bad_env_open);
    tcase_add_loop_test(gl, lib_bad_crossover_record, 0, sizeof cross_cases / sizeof *cross_cases);
    suite_add_tcase(s, gl);
    return s;
}
