/* glhost/progcache and the split build of glhost/program: on llvmpipe
 * (EGL), a variant compiled once is loaded from disk the next time and
 * still computes the right GEMM; bad entries (a flipped byte, cut short,
 * another renderer's, another key's) are rejected, compiled around and
 * written again; a folder that cannot be written costs one warning line and
 * nothing else; GLGEMM_CACHE=off writes nothing; start + ready + finish
 * gives the program build gives.
 *
 * Every case has its own cache folder under /tmp (GLGEMM_CACHE_DIR, then
 * host_progcache_reset()) and makes its context in Check's child. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glhost/context.h"
#include "glhost/progcache.h"
#include "glhost/program.h"
#include "glhost/run.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

#define M 37
#define N 29
#define K 41

static const char *const var_a = "mrt=2x2,mc=2x2,np=2,profile=330";
static const char *const var_b = "mrt=1x2,mc=1x1,np=all,profile=330,acc=copy";
static const char *const var_c = "mrt=1x4,mc=2x1,np=3,profile=330,acc=blend";

static const char vs330[] = "#version 330\nlayout(location = 0) in vec2 aPos;\n"
                            "void main()\n{\n    gl_Position = vec4(aPos, 0.0, 1.0);\n}\n";
static const char fs330[] = "#version 330\nuniform float uAlpha;\nout vec4 o;\n"
                            "void main()\n{\n    o = vec4(uAlpha);\n}\n";

typedef struct {
    int hits, misses, writes, rejected;
} counts;

static counts stats(void)
{
    counts c;
    host_progcache_stats(&c.hits, &c.misses, &c.writes, &c.rejected);
    return c;
}

#define ck_counts(c, h, m, w, r)                                                                 \
    ck_assert_msg((c).hits == (h) && (c).misses == (m) && (c).writes == (w) &&                  \
                      (c).rejected == (r),                                                      \
                  "hits %d misses %d writes %d rejected %d, want %d %d %d %d", (c).hits,        \
                  (c).misses, (c).writes, (c).rejected, h, m, w, r)

/* A fresh folder under /tmp, in dir (at least 64 bytes). */
static void fresh_dir(char *dir)
{
    snprintf(dir, 64, "/tmp/glgemm-progcache-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* GLGEMM_CACHE_DIR=dir, the cache on, read again. */
static void use_cache(const char *dir)
{
    setenv("GLGEMM_CACHE_DIR", dir, 1);
    unsetenv("GLGEMM_CACHE");
    host_progcache_reset();
}

/* The entries in dir (names in names[i] when given); no other file there
 * (no temporary file left behind).  A folder that is not there has none. */
#define NAME_LEN 512

static int entries(const char *dir, char names[][NAME_LEN], int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t len = strlen(e->d_name);
        ck_assert_msg(len == 20 && !strcmp(e->d_name + 16, ".bin") &&
                          strspn(e->d_name, "0123456789abcdef") == 16,
                      "%s: unexpected file %s", dir, e->d_name);
        if (names && n < max) {
            int w = snprintf(names[n], NAME_LEN, "%s/%s", dir, e->d_name);
            ck_assert(w > 0 && w < NAME_LEN);
        }
        n++;
    }
    closedir(d);
    return n;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_gt(n, 0);
    rewind(f);
    unsigned char *buf = malloc((size_t)n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void write_file(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static gg_ctx *core_ctx(gg_ctx_info *info)
{
    char err[512];
    gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, 0, GG_CTX_CORE, err, sizeof err, NULL);
    ck_assert_msg(ctx != NULL, "no core context: %s", err);
    host_ctx_query(ctx, info);
    return ctx;
}

static void parse(const char *text, gg_variant *v)
{
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, v, err, sizeof err) == 0, "%s: %s", text, err);
}

/* host_program_build of a variant for the M x N x K problem: must be ok;
 * whether it came from the cache. */
static bool build_ok(const char *variant)
{
    gg_variant v;
    parse(variant, &v);
    gg_program p;
    gg_status st = host_program_build(&p, &v, M, N, K);
    if (st != GG_OK)
        host_program_print_failure(&p, stderr);
    ck_assert_msg(st == GG_OK, "%s: %s: %s", variant, base_status_name(st), p.detail);
    ck_assert_uint_ne(p.prog, 0);
    ck_assert_int_ge(p.loc_kbase, 0);
    ck_assert_int_ge(p.loc_alpha, 0);
    ck_assert(p.compile_s > 0);
    bool cached = p.cached;
    if (cached)
        ck_assert_ptr_null(p.log); /* nothing compiled, so no compiler said anything */
    host_program_free(&p);
    return cached;
}

/* The M x N x K GEMM (transb, alpha 2, beta 0.5) with the variant on the
 * current context, verified by host_run_current and element by element. */
static void gemm_ok(const gg_ctx_info *info, const char *variant, const char *what)
{
    gemm_case gc = {variant, M, N, K, 0, 0, 2.0f, 0.5f};
    gemm_run r;
    setup_case(&r, &gc, 11);
    gg_run_opts o;
    host_run_opts_default(&o);
    host_run_current(info, &r.v, &r.p, &r.in, &r.ref, &o, &r.m, r.c, NULL);
    ck_assert_msg(r.m.status == GG_OK, "%s: %s: %s", what, base_status_name(r.m.status), r.m.detail);
    check_against_naive(&r, what);
    free_case(&r);
}

/* (a) The first build misses and writes one entry, in a folder it makes;
 * the next one loads it (nothing compiled) and a GEMM with it is right. */
START_TEST(miss_then_hit)
{
    char base[64], dir[128];
    fresh_dir(base);
    snprintf(dir, sizeof dir, "%s/not/yet", base);
    use_cache(dir);
    gg_ctx_info info;
    gg_ctx *ctx = core_ctx(&info);
    ck_assert_str_eq(host_progcache_dir(), dir);
    struct stat st;
    ck_assert_int_ne(stat(dir, &st), 0);

    ck_assert(!build_ok(var_a));
    ck_counts(stats(), 0, 1, 1, 0);
    ck_assert_int_eq(stat(dir, &st), 0); /* made on the first write */
    ck_assert_int_eq(entries(dir, NULL, 0), 1);

    ck_assert(build_ok(var_a));
    ck_counts(stats(), 1, 1, 1, 0);
    ck_assert_int_eq(entries(dir, NULL, 0), 1);

    /* host_run_current builds the same program: a hit, and a right GEMM. */
    gemm_ok(&info, var_a, "from the cache");
    ck_counts(stats(), 2, 1, 1, 0);

    /* Another variant is another entry. */
    ck_assert(!build_ok(var_b));
    ck_counts(stats(), 2, 2, 2, 0);
    ck_assert_int_eq(entries(dir, NULL, 0), 2);
    gemm_ok(&info, var_b, "second variant from the cache");
    ck_counts(stats(), 3, 2, 2, 0);
    host_ctx_destroy(ctx);
    tu_rm_rf(base);
}
END_TEST

/* The same sources on another kind of context (its GL_VERSION string
 * differs) are another key; a later process (a reset) hits. */
START_TEST(key_has_context)
{
    char dir[64];
    fresh_dir(dir);
    use_cache(dir);
    char err[512];
    gg_ctx *core = host_ctx_create(GG_BACKEND_EGL, 0, GG_CTX_CORE, err, sizeof err, NULL);
    ck_assert_msg(core != NULL, "%s", err);
    gg_program p;
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs330, false), GG_OK);
    ck_assert(!p.cached);
    host_program_free(&p);
    gg_ctx *compat = host_ctx_create(GG_BACKEND_EGL, 0, GG_CTX_COMPAT, err, sizeof err, NULL);
    ck_assert_msg(compat != NULL, "%s", err);
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs330, false), GG_OK);
    ck_assert(!p.cached);
    host_program_free(&p);
    ck_counts(stats(), 0, 2, 2, 0);
    ck_assert_int_eq(entries(dir, NULL, 0), 2);

    host_progcache_reset(); /* as a new process would */
    ck_assert_int_eq(host_ctx_make_current(core, err, sizeof err), 0);
    ck_assert_int_eq(host_program_build_text(&p, vs330, fs330, false), GG_OK);
    ck_assert(p.cached);
    ck_assert_int_ge(p.loc_alpha, 0);
    host_program_free(&p);
    ck_counts(stats(), 1, 0, 0, 0);
    host_ctx_destroy(compat);
    host_ctx_destroy(core);
    tu_rm_rf(dir);
}
END_TEST

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* var_a with another np whose fragment shader has var_a's length (the
 * vertex shader is the same): a key that only the hashes tell apart. */
static void same_lengths_as_a(char *out, size_t len)
{
    gg_variant v;
    parse(var_a, &v);
    char *fa = gen_emit_fragment(&v, M, N, K), *va = gen_emit_vertex(&v);
    ck_assert_ptr_nonnull(fa);
    int want = v.np;
    for (int np = 1; np <= 9; np++) {
        if (np == want)
            continue;
        snprintf(out, len, "mrt=2x2,mc=2x2,np=%d,profile=330", np);
        gg_variant w;
        parse(out, &w);
        char *fw = gen_emit_fragment(&w, M, N, K), *vw = gen_emit_vertex(&w);
        bool same = fw && vw && strlen(fw) == strlen(fa) && strcmp(fw, fa) && !strcmp(vw, va);
        free(fw);
        free(vw);
        if (same) {
            free(fa);
            free(va);
            return;
        }
    }
    ck_abort_msg("no np gives a fragment shader of %s's length", var_a);
}

/* (b, c, d) Bad entries, one kind per iteration: rejected, the program
 * still builds and computes, and the entry is written again (the next build
 * hits). */
enum {
    BAD_BINARY_BYTE,  /* one byte of the binary flipped */
    BAD_MAGIC,        /* the first byte flipped */
    BAD_CUT_ONE,      /* truncated: the last byte gone */
    BAD_CUT_HALF,     /* truncated to half */
    BAD_CUT_HEADER,   /* truncated inside the header */
    BAD_EMPTY,        /* zero bytes */
    BAD_EXTRA,        /* one byte too many */
    BAD_RENDERER,     /* foreign: another renderer string in the header */
    BAD_OTHER_KEY,    /* foreign: another key's whole entry under this name */
    BAD_DRIVER,       /* a binary byte flipped, the checksum made to match:
                         the driver refuses it */
    BAD_SUM,          /* the binary whole, its checksum wrong (the driver
                         would take it: the checksum must refuse it) */
    BAD_KINDS
};

static const char *const bad_names[] = {"binary byte", "magic", "cut by one", "cut to half",
                                        "cut in the header", "empty", "extra byte", "renderer",
                                        "other key", "driver refuses", "checksum"};

START_TEST(bad_entry_rejected)
{
    char dir[64];
    fresh_dir(dir);
    use_cache(dir);
    gg_ctx_info info;
    gg_ctx *ctx = core_ctx(&info);
    ck_assert(!build_ok(var_a));
    char names[2][NAME_LEN];
    ck_assert_int_eq(entries(dir, names, 2), 1);
    char entry[NAME_LEN];
    snprintf(entry, sizeof entry, "%s", names[0]);
    int writes = 1;
    size_t len;
    unsigned char *buf = read_file(entry, &len);
    ck_assert_uint_gt(len, 64 + strlen(info.renderer) + 100);
    switch (_i) {
    case BAD_BINARY_BYTE:
        buf[len - 1 - len / 8] ^= 0x10; /* well inside the binary, after the strings */
        write_file(entry, buf, len);
        break;
    case BAD_MAGIC:
        buf[0] ^= 0x01;
        write_file(entry, buf, len);
        break;
    case BAD_CUT_ONE:
        write_file(entry, buf, len - 1);
        break;
    case BAD_CUT_HALF:
        write_file(entry, buf, len / 2);
        break;
    case BAD_CUT_HEADER:
        write_file(entry, buf, 20);
        break;
    case BAD_EMPTY:
        write_file(entry, buf, 0);
        break;
    case BAD_EXTRA: {
        unsigned char *more = malloc(len + 1);
        ck_assert_ptr_nonnull(more);
        memcpy(more, buf, len);
        more[len] = 0;
        write_file(entry, more, len + 1);
        free(more);
        break;
    }
    case BAD_RENDERER: {
        size_t rl = strlen(info.renderer), at = 0;
        while (at + rl <= len && memcmp(buf + at, info.renderer, rl))
            at++;
        ck_assert_msg(at + rl <= len, "the renderer string is not in the entry");
        buf[at] ^= 0x20; /* "llvmpipe" -> "Llvmpipe": the same lengths */
        write_file(entry, buf, len);
        break;
    }
    case BAD_OTHER_KEY: {
        /* Another variant's entry, whole and valid, copied under this name:
         * glProgramBinary would take it and run the wrong shader.  Its
         * sources have var_a's lengths, so only the key's hash tells. */
        char other_var[64];
        same_lengths_as_a(other_var, sizeof other_var);
        ck_assert(!build_ok(other_var));
        writes++;
        ck_assert_int_eq(entries(dir, names, 2), 2);
        const char *other = strcmp(names[0], entry) ? names[0] : names[1];
        size_t olen;
        unsigned char *obuf = read_file(other, &olen);
        write_file(entry, obuf, olen);
        free(obuf);
        break;
    }
    case BAD_DRIVER: {
        /* The header's layout (progcache.h): the binary after the strings. */
        size_t at = 64 + get32(buf + 24) + get32(buf + 28);
        ck_assert_uint_lt(at + 64, len);
        buf[at + (len - at) / 2] ^= 0x10;
        unsigned long long sum = host_progcache_checksum(buf + at, len - at);
        for (int i = 0; i < 8; i++)
            buf[56 + i] = (unsigned char)(sum >> (8 * i));
        write_file(entry, buf, len);
        break;
    }
    case BAD_SUM:
        buf[60] ^= 0x04;
        write_file(entry, buf, len);
        break;
    }
    free(buf);
    int ne = entries(dir, NULL, 0);
    ck_counts(stats(), 0, writes, writes, 0);

    /* The run builds var_a: the entry is rejected, the program compiled. */
    gemm_ok(&info, var_a, bad_names[_i]);
    ck_counts(stats(), 0, writes + 1, writes + 1, 1);
    ck_assert_int_eq(entries(dir, NULL, 0), ne);
    /* Written again: whole, so the next build loads it. */
    ck_assert_msg(build_ok(var_a), "%s: the entry was not written again", bad_names[_i]);
    ck_counts(stats(), 1, writes + 1, writes + 1, 1);
    if (_i == BAD_OTHER_KEY) { /* and the other variant's own entry is untouched */
        char other_var[64];
        same_lengths_as_a(other_var, sizeof other_var);
        ck_assert(build_ok(other_var));
    }
    host_ctx_destroy(ctx);
    tu_rm_rf(dir);
}
END_TEST

/* stderr into a file while f runs. */
static char *stderr_of(void (*f)(const gg_ctx_info *), const gg_ctx_info *info)
{
    char path[] = "/tmp/glgemm-progcache-err-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    int saved = dup(2);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fd, 2), 0);
    close(fd);
    f(info);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t len;
    FILE *t = fopen(path, "rb");
    ck_assert_ptr_nonnull(t);
    char *text = calloc(1, 65536);
    ck_assert_ptr_nonnull(text);
    len = fread(text, 1, 65535, t);
    text[len] = '\0';
    fclose(t);
    unlink(path);
    return text;
}

/* Two builds and a GEMM: all fine, nothing from the cache. */
static void builds_without_cache(const gg_ctx_info *info)
{
    ck_assert(!build_ok(var_a));
    ck_assert(!build_ok(var_a));
    gemm_ok(info, var_a, "no cache");
    ck_assert(!build_ok(var_b));
}

/* (e) A folder that cannot be written: one warning line, the builds work.
 * 0: the folder would be under a regular file; 1: a read-only folder (as
 * root, whom chmod does not stop, under a file again); 2: no folder at all
 * (no GLGEMM_CACHE_DIR, XDG_CACHE_HOME or HOME). */
START_TEST(unwritable_folder)
{
    char base[64], dir[160];
    fresh_dir(base);
    bool readonly = _i == 1 && geteuid() != 0;
    if (_i == 1 && !readonly)
        fprintf(stderr, "progcache: unwritable_folder 1: running as root, whom a read-only folder "
                        "does not stop: the folder is under a regular file instead\n");
    if (readonly) {
        snprintf(dir, sizeof dir, "%s/ro", base);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        ck_assert_int_eq(chmod(dir, 0555), 0);
    } else {
        char file[128];
        snprintf(file, sizeof file, "%s/file", base);
        write_file(file, (const unsigned char *)"x", 1);
        snprintf(dir, sizeof dir, "%s/sub/programs", file);
    }
    use_cache(dir);
    if (_i == 2) {
        unsetenv("GLGEMM_CACHE_DIR");
        unsetenv("XDG_CACHE_HOME");
        unsetenv("HOME");
        host_progcache_reset();
        ck_assert_ptr_null(host_progcache_dir());
    }
    gg_ctx_info info;
    gg_ctx *ctx = core_ctx(&info);
    char *err = stderr_of(builds_without_cache, &info);
    int warnings = 0;
    for (const char *s = err; (s = strstr(s, "glgemm: program cache: ")) != NULL; s++)
        warnings++;
    ck_assert_msg(warnings == 1, "%d warnings in:\n%s", warnings, err);
    char *line = strstr(err, "glgemm: program cache: ");
    char *end = strchr(line, '\n');
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    const char *folder = _i == 2 ? "~/.cache/glgemm/programs" : dir;
    ck_assert_msg(!strncmp(line + 23, folder, strlen(folder)) && line[23 + strlen(folder)] == ':',
                  "%s", line);
    const char *tail = "; going on without it";
    ck_assert_msg(strlen(line) > strlen(tail) && !strcmp(end - strlen(tail), tail), "%s", line);
    free(err);
    /* One lookup before the failed write; off after it. */
    ck_counts(stats(), 0, 1, 0, 0);
    ck_assert_ptr_null(host_progcache_dir());
    if (readonly) {
        ck_assert_int_eq(entries(dir, NULL, 0), 0);
        chmod(dir, 0755);
    }
    host_ctx_destroy(ctx);
    tu_rm_rf(base);
}
END_TEST

/* (f) GLGEMM_CACHE=off: nothing read, nothing written, no folder made. */
START_TEST(cache_off)
{
    char base[64], dir[128];
    fresh_dir(base);
    snprintf(dir, sizeof dir, "%s/programs", base);
    use_cache(dir);
    setenv("GLGEMM_CACHE", "off", 1);
    host_progcache_reset();
    ck_assert_ptr_null(host_progcache_dir());
    gg_ctx_info info;
    gg_ctx *ctx = core_ctx(&info);
    ck_assert(!build_ok(var_a));
    ck_assert(!build_ok(var_a));
    gemm_ok(&info, var_a, "cache off");
    ck_counts(stats(), 0, 0, 0, 0);
    struct stat st;
    ck_assert_int_ne(stat(dir, &st), 0);
    /* On again (a later process): the first build writes. */
    unsetenv("GLGEMM_CACHE");
    host_progcache_reset();
    ck_assert(!build_ok(var_a));
    ck_counts(stats(), 0, 1, 1, 0);
    ck_assert_int_eq(entries(dir, NULL, 0), 1);
    host_ctx_destroy(ctx);
    tu_rm_rf(base);
}
END_TEST

/* (g) Three programs started before any is finished, polled with
 * host_program_ready, finished: the programs host_program_build gives (the
 * same locations; their entries load and compute the right GEMM). */
START_TEST(start_ready_finish)
{
    char dir[64];
    fresh_dir(dir);
    use_cache(dir);
    gg_ctx_info info;
    gg_ctx *ctx = core_ctx(&info);
    const char *const vars[3] = {var_a, var_b, var_c};
    gg_program p[3];
    for (int i = 0; i < 3; i++) {
        gg_variant v;
        parse(vars[i], &v);
        ck_assert_int_eq(host_program_start(&p[i], &v, M, N, K), GG_OK);
        ck_assert_uint_eq(p[i].prog, 0); /* not before finish */
    }
    for (int i = 0; i < 3; i++) {
        int polls = 0;
        while (!host_program_ready(&p[i])) {
            ck_assert_msg(++polls < 20000, "%s: not ready after 20 s", vars[i]);
            usleep(1000);
        }
        ck_assert_int_eq(host_program_finish(&p[i]), GG_OK);
        ck_assert(host_program_ready(&p[i]));
        ck_assert_uint_ne(p[i].prog, 0);
        ck_assert(!p[i].cached);
        ck_assert(p[i].compile_s > 0);
        ck_assert_int_eq(host_program_finish(&p[i]), GG_OK); /* again: the same */
    }
    ck_counts(stats(), 0, 3, 3, 0);
    ck_assert_int_eq(entries(dir, NULL, 0), 3);

    /* host_program_build of the same variants, compiled (cache off for it):
     * the same uniform locations. */
    setenv("GLGEMM_CACHE", "off", 1);
    host_progcache_reset();
    for (int i = 0; i < 3; i++) {
        gg_variant v;
        parse(vars[i], &v);
        gg_program q;
        ck_assert_int_eq(host_program_build(&q, &v, M, N, K), GG_OK);
        ck_assert_int_eq(q.loc_kbase, p[i].loc_kbase);
        ck_assert_int_eq(q.loc_alpha, p[i].loc_alpha);
        ck_assert_str_eq(q.frag_src, p[i].frag_src);
        host_program_free(&q);
        host_program_free(&p[i]);
    }
    /* What start + finish wrote loads and computes. */
    unsetenv("GLGEMM_CACHE");
    host_progcache_reset();
    for (int i = 0; i < 3; i++)
        gemm_ok(&info, vars[i], vars[i]);
    ck_counts(stats(), 3, 0, 0, 0);

    /* A compile error comes from finish, as from build; nothing written. */
    const char *bad = "#version 330\nout vec4 o;\nvoid main()\n{\n    o = nothing_here;\n}\n";
    gg_program q;
    ck_assert_int_eq(host_program_start_text(&q, vs330, bad, false), GG_OK);
    ck_assert_int_eq(host_program_finish(&q), GG_COMPILE_ERROR);
    ck_assert_str_eq(q.failed_stage, "fragment");
    ck_assert_msg(strstr(q.detail, "nothing_here"), "%s", q.detail);
    ck_assert_uint_eq(q.prog, 0);
    host_program_free(&q);
    ck_counts(stats(), 3, 1, 0, 0);
    /* Started, never finished: free lets it go. */
    ck_assert_int_eq(host_program_start_text(&q, vs330, fs330, false), GG_OK);
    host_program_free(&q);
    ck_assert_int_eq(entries(dir, NULL, 0), 3);
    host_ctx_destroy(ctx);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_progcache_suite(void)
{
    Suite *s = suite_create("progcache");
    TCase *tc = tcase_create("cache");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, miss_then_hit);
    tcase_add_test(tc, key_has_context);
    tcase_add_loop_test(tc, bad_entry_rejected, 0, BAD_KINDS);
    tcase_add_loop_test(tc, unwritable_folder, 0, 3);
    tcase_add_test(tc, cache_off);
    suite_add_tcase(s, tc);

    tc = tcase_create("split");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, start_ready_finish);
    suite_add_tcase(s, tc);
    return s;
}
