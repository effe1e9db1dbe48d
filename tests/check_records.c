/* search/records and search/tune: the tuning records survive kills, resume
 * without re-measuring, drop torn rows with a warning, never hold a variant
 * twice; --fresh starts over; the best file is written atomically. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/csv.h"
#include "store/records.h"
#include "search/tune.h"
#include "tests/suites.h"

#define CARD "test-card"

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/glgemm-records-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[600];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            rm_rf(p);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 22);
    size_t n = fread(buf, 1, (1 << 22) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *records_path(char *buf, size_t len, int m, int n, int k)
{
    snprintf(buf, len, "%s/%s/tune-%dx%dx%d.csv", tmpdir, CARD, m, n, k);
    return buf;
}

/* stderr into a file for the duration of a call. */
typedef struct {
    int saved;
    char path[300];
} capture;

static void capture_begin(capture *c)
{
    fflush(stderr);
    snprintf(c->path, sizeof c->path, "%s/stderr.txt", tmpdir);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    c->saved = dup(2);
    dup2(fd, 2);
    close(fd);
}

static char *capture_end(capture *c)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    char *t = slurp(c->path, NULL);
    unlink(c->path);
    return t;
}

static gg_variant var(const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s", err);
    return v;
}

static gg_measurement meas(gg_status st, double gflops)
{
    gg_measurement m;
    base_measurement_init(&m);
    m.status = st;
    m.gflops = gflops;
    m.seconds = gflops > 0 ? 0.001 : 0;
    m.passes = 2;
    m.rel_err = st == GG_OK ? 1e-7 : -1;
    return m;
}

typedef struct {
    int n;
    char rows[64][GG_VARIANT_TEXT];
    double gflops[64];
    gg_status status[64];
} collected;

static void collect(void *user, const gg_variant *v, const gg_measurement *m)
{
    collected *c = user;
    if (c->n < 64) {
        gen_variant_format(v, c->rows[c->n], GG_VARIANT_TEXT);
        c->status[c->n] = m->status;
        c->gflops[c->n++] = m->gflops;
    }
}

START_TEST(test_roundtrip)
{
    make_tmpdir();
    char err[256], path[400];
    gg_records_info info;
    gg_records *r = store_records_open(tmpdir, CARD, 64, 32, 16, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(info.rows, 0);
    gg_variant a = var("mc=2x2,np=4"), b = var("mrt=2x4,acc=blend"), c = var("profile=120");
    gg_measurement ma = meas(GG_OK, 12.5), mb = meas(GG_COMPILE_ERROR, 0), mc = meas(GG_TIMEOUT, 0);
    mc.seconds = NAN;  /* written as 0, not as nan */
    mb.gflops = 99;    /* not ok: written as 0 */
    ck_assert_int_eq(store_records_append(r, &a, &ma, err, sizeof err), 0);
    ck_assert_int_eq(store_records_append(r, &b, &mb, err, sizeof err), 0);
    ck_assert_int_eq(store_records_append(r, &c, &mc, err, sizeof err), 0);
    store_records_close(r);

    char *text = slurp(records_path(path, sizeof path, 64, 32, 16), NULL);
    ck_assert_ptr_nonnull(text);
    const char *head = GG_CSV_HEADER "\n" CARD ",64,32,16,1x1,2x2,4,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,2,ok,";
    ck_assert_msg(!strncmp(text, head, strlen(head)), "records: '%s'", text);
    ck_assert_ptr_nonnull(strstr(text, ",compile_error,0,0,\n"));
    ck_assert_ptr_nonnull(strstr(text, ",timeout,0,0,\n"));
    free(text);

    collected got = {0};
    r = store_records_open(tmpdir, CARD, 64, 32, 16, false, collect, &got, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(info.rows, 3);
    ck_assert_int_eq(info.torn, 0);
    ck_assert_int_eq(got.n, 3);
    ck_assert_str_eq(got.rows[0], "mrt=1x1,mc=2x2,np=4,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32");
    ck_assert_double_eq(got.gflops[0], 12.5);
    ck_assert_double_eq(got.gflops[1], 0);
    store_records_close(r);
    rm_rf(tmpdir);
}
END_TEST

/* The tuning-speed statuses (compile_timeout, pruned_bound) are written by
 * name with gflops 0 and read back as themselves. */
START_TEST(test_new_statuses_roundtrip)
{
    make_tmpdir();
    char err[256], path[400];
    gg_records_info info;
    gg_records *r = store_records_open(tmpdir, CARD, 64, 32, 16, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    gg_variant a = var("mc=2x2,np=4"), b = var("mrt=2x4,acc=blend,store=f16");
    gg_measurement ma = meas(GG_COMPILE_TIMEOUT, 0), mb = meas(GG_PRUNED_BOUND, 0);
    mb.gflops = 42; /* not ok: written as 0 */
    mb.passes = 0;
    ck_assert_int_eq(store_records_append(r, &a, &ma, err, sizeof err), 0);
    ck_assert_int_eq(store_records_append(r, &b, &mb, err, sizeof err), 0);
    store_records_close(r);

    char *text = slurp(records_path(path, sizeof path, 64, 32, 16), NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, CARD ",64,32,16,1x1,2x2,4,0,330,glsl,pingpong,f32,rt,-,texture,-,1,plain,2,"
                                "compile_timeout,0,0,\n"),
                  "records: '%s'", text);
    ck_assert_msg(strstr(text, CARD ",64,32,16,2x4,1x1,all,0,330,glsl,blend,f16,rt,-,texture,-,1,plain,0,pruned_bound,0,0,\n"),
                  "records: '%s'", text);
    free(text);

    collected got = {0};
    r = store_records_open(tmpdir, CARD, 64, 32, 16, false, collect, &got, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(info.rows, 2);
    ck_assert_int_eq(info.skipped, 0);
    ck_assert_int_eq(got.n, 2);
    ck_assert_int_eq(got.status[0], GG_COMPILE_TIMEOUT);
    ck_assert_int_eq(got.status[1], GG_PRUNED_BOUND);
    ck_assert_double_eq(got.gflops[0], 0);
    ck_assert_double_eq(got.gflops[1], 0);
    ck_assert_str_eq(got.rows[1], "mrt=2x4,mc=1x1,np=all,unroll=0,profile=330,compiler=glsl,acc=blend,store=f16");
    store_records_close(r);
    ck_assert_str_eq(base_status_name(GG_COMPILE_TIMEOUT), "compile_timeout");
    ck_assert_str_eq(base_status_name(GG_PRUNED_BOUND), "pruned_bound");
    ck_assert_int_eq(base_status_parse("compile_timeout"), GG_COMPILE_TIMEOUT);
    ck_assert_int_eq(base_status_parse("pruned_bound"), GG_PRUNED_BOUND);
    for (int i = 0; i < GG_STATUS_COUNT; i++)
        ck_assert_int_eq(base_status_parse(base_status_name((gg_status)i)), i);
    rm_rf(tmpdir);
}
END_TEST

/* Torn last lines from an older crash: dropped with a warning, the file cut
 * back to the last good row; a bad line further up is only skipped. */
static const struct {
    const char *tail;    /* after the header and two good rows */
    long rows, torn, skipped;
    bool cut;            /* the file ends after the two good rows */
} torn_cases[] = {
    {CARD ",8,8,8,1x1,1x", 2, 1, 0, true},                       /* no newline */
    {CARD ",8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,0.1,0.01", 2, 1, 0, true}, /* no newline */
    {CARD ",8,8,8,1x1,1x1,all,0,330,gl\n", 2, 1, 0, true},      /* unparseable last line */
    {"", 2, 0, 0, false},                                         /* nothing torn */
    {"garbage\n" CARD ",8,8,8,1x2,1x1,all,0,330,glsl,pingpong,1,ok,0.1,0.01,\n", 3, 0, 1, false},
    {"other-card,8,8,8,1x2,1x1,all,0,330,glsl,pingpong,1,ok,0.1,0.01,\n", 2, 0, 1, false},
};

START_TEST(test_torn_rows)
{
    make_tmpdir();
    char err[256], path[400], dir[300];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, CARD);
    mkdir(dir, 0755);
    const char *good = GG_CSV_HEADER "\n"
                       CARD ",8,8,8,1x1,1x1,all,0,330,glsl,pingpong,1,ok,0.1,0.01,1e-07\n"
                       CARD ",8,8,8,2x2,1x1,all,0,330,glsl,pingpong,1,timeout,0,0,\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", good, torn_cases[_i].tail);
    spit(records_path(path, sizeof path, 8, 8, 8), text);
    capture cap;
    capture_begin(&cap);
    gg_records_info info;
    gg_records *r = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    char *warn = capture_end(&cap);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(info.rows, torn_cases[_i].rows);
    ck_assert_int_eq(info.torn, torn_cases[_i].torn);
    ck_assert_int_eq(info.skipped, torn_cases[_i].skipped);
    if (torn_cases[_i].torn)
        ck_assert_msg(strstr(warn, "warning:") && strstr(warn, "torn") && strstr(warn, "dropped"),
                      "warning was '%s'", warn);
    else if (!torn_cases[_i].skipped)
        ck_assert_str_eq(warn, "");
    free(warn);
    /* A row appended now starts on its own line. */
    gg_variant v = var("mc=1x4");
    gg_measurement m = meas(GG_OK, 3);
    ck_assert_int_eq(store_records_append(r, &v, &m, err, sizeof err), 0);
    store_records_close(r);
    char *after = slurp(path, NULL);
    if (torn_cases[_i].cut)
        ck_assert_msg(!strncmp(after, good, strlen(good)) &&
                          !strncmp(after + strlen(good), CARD ",8,8,8,1x1,1x4,",
                                   strlen(CARD ",8,8,8,1x1,1x4,")),
                      "records: '%s'", after);
    else
        ck_assert(!strncmp(after, text, strlen(text)));
    /* And the whole file reads back clean but for the skipped lines. */
    capture_begin(&cap);
    r = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    free(capture_end(&cap));
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(info.torn, 0);
    ck_assert_int_eq(info.rows, torn_cases[_i].rows + 1);
    store_records_close(r);
    free(after);
    rm_rf(tmpdir);
}
END_TEST

START_TEST(test_torn_header_and_foreign_file)
{
    make_tmpdir();
    char err[256], path[400], dir[300];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, CARD);
    mkdir(dir, 0755);
    records_path(path, sizeof path, 8, 8, 8);
    spit(path, "card,m,n,k,mr"); /* killed while the header was written */
    capture cap;
    capture_begin(&cap);
    gg_records_info info;
    gg_records *r = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    free(capture_end(&cap));
    ck_assert_msg(r != NULL, "%s", err);
    store_records_close(r);
    char *t = slurp(path, NULL);
    ck_assert_str_eq(t, GG_CSV_HEADER "\n");
    free(t);

    spit(path, "name,value\nfoo,1\n");
    r = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err, "header"));
    t = slurp(path, NULL);
    ck_assert_str_eq(t, "name,value\nfoo,1\n"); /* untouched */
    free(t);
    rm_rf(tmpdir);
}
END_TEST

START_TEST(test_lock)
{
    make_tmpdir();
    char err[256];
    gg_records *a = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(a);
    gg_records *b = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(strstr(err, "in use"));
    store_records_close(a);
    b = store_records_open(tmpdir, CARD, 8, 8, 8, false, NULL, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(b);
    store_records_close(b);
    ck_assert_ptr_null(store_records_open(tmpdir, "Not A Slug", 8, 8, 8, false, NULL, NULL, NULL, err,
                                       sizeof err));
    rm_rf(tmpdir);
}
END_TEST

START_TEST(test_best_file)
{
    make_tmpdir();
    char err[256], path[400];
    gg_variant v = var("mrt=2x4,mc=1x4,np=16"), back;
    gg_measurement m = meas(GG_OK, 11.25);
    ck_assert_int_eq(store_best_write(tmpdir, CARD, 64, 64, 64, &v, &m, err, sizeof err), 0);
    double g;
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 64, 64, 64, &back, &g, err, sizeof err), 0);
    ck_assert_double_eq(g, 11.25);
    char a[GG_VARIANT_TEXT], b[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&v, a, sizeof a), gen_variant_format(&back, b, sizeof b));
    char *t = slurp(store_best_path(path, sizeof path, tmpdir, CARD, 64, 64, 64), NULL);
    const char *head = "mrt=2x4,mc=1x4,np=16,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32\n"
                       "gflops: 11.25\n";
    ck_assert_msg(!strncmp(t, head, strlen(head)), "best file: '%s'", t);
    free(t);
    /* No temporary left beside it. */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, CARD);
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            files++;
            ck_assert_str_eq(e->d_name, "best-64x64x64.txt");
        }
    closedir(d);
    ck_assert_int_eq(files, 1);
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 1, 2, 3, &back, &g, err, sizeof err), -1);
    rm_rf(tmpdir);
}
END_TEST

/* Best files as tests/fuzz/fuzz_best.c's invariants want them (each of
 * these was wrong before that target): "gflops: nan" (or inf, or
 * negative) read as that number; a first line longer than the read buffer
 * read on as the second; names such as best-08x8x8.txt (sscanf's %d takes
 * blanks, signs, zeros) taken for best-8x8x8.txt; a folder read as an
 * empty file. */
START_TEST(test_best_file_edges)
{
    make_tmpdir();
    char path[600], err[256], text[2048];
    snprintf(path, sizeof path, "%s/best.txt", tmpdir);
    gg_variant v;
    static const char *const bad_gflops[] = {"nan", "-nan", "inf", "-1", "1e999", "x"};
    for (size_t i = 0; i < sizeof bad_gflops / sizeof *bad_gflops; i++) {
        snprintf(text, sizeof text, "larsen\ngflops: %s\n", bad_gflops[i]);
        spit(path, text);
        double g = -5;
        ck_assert_int_eq(store_best_read_path(path, &v, &g, err, sizeof err), 0);
        ck_assert_msg(g == 0, "gflops: %s read as %g", bad_gflops[i], g);
    }
    /* A long first line: its tail is not the gflops line. */
    size_t o = (size_t)snprintf(text, sizeof text, "larsen");
    while (o < 700)
        o += (size_t)snprintf(text + o, sizeof text - o, " gflops: 7");
    snprintf(text + o, sizeof text - o, "\ngflops: 3\nremeasured: median of 5 interleaved runs\n");
    spit(path, text);
    double g = -5;
    ck_assert_int_eq(store_best_read_path(path, &v, &g, err, sizeof err), 0);
    ck_assert_msg(g == 3, "gflops %g", g);
    /* A folder is no empty file. */
    ck_assert_int_eq(store_best_read_path(tmpdir, &v, &g, err, sizeof err), GG_BEST_NONE);
    ck_assert_msg(strstr(err, "directory") != NULL, "%s", err);

    int m, n, k;
    gg_store st;
    static const char *const not_names[] = {
        "best-08x8x8.txt", "best- 8x8x8.txt", "best-+8x8x8.txt", "best-8x8x 8.txt",
        "best-8x8x8.txt ", "best-0x8x8.txt", "best-4294967304x8x8.txt", "best-f16-8x08x8.txt",
        "best-8x8x8.txt.old", "best-8x8x8.TXT",
    };
    for (size_t i = 0; i < sizeof not_names / sizeof *not_names; i++)
        ck_assert_msg(!store_best_name_parse(not_names[i], &m, &n, &k, &st), "'%s' taken",
                      not_names[i]);
    ck_assert(store_best_name_parse("best-8x16x1024.txt", &m, &n, &k, &st));
    ck_assert(m == 8 && n == 16 && k == 1024 && st == GG_STORE_F32);
    ck_assert(store_best_name_parse("best-f16-999999999x1x2.txt", &m, &n, &k, &st));
    ck_assert(m == 999999999 && n == 1 && k == 2 && st == GG_STORE_F16);
    ck_assert(store_best_name_parse("best-f16x8-4096x4096x4096.txt", &m, &n, &k, &st));
    ck_assert(m == 4096 && n == 4096 && k == 4096 && st == GG_STORE_F16X8);
    ck_assert(!store_best_name_parse("best-f16x8-8x8x08.txt", &m, &n, &k, &st));
    ck_assert(!store_best_name_parse("best-f16x88x8x8.txt", &m, &n, &k, &st));
    rm_rf(tmpdir);
}
END_TEST

/* The crossover record (store_crossover_parse: bench's line, strictly). */
START_TEST(test_crossover_record)
{
    static const struct {
        const char *text;
        int rc;
        long x;
    } cases[] = {
        {"crossover: 1024\n", 0, 1024},
        {"crossover: 0", 0, 0},
        {"crossover:\t64 \t\r\n", 0, 64},
        {"crossover: 1048576\n", 0, 1048576},
        {"crossover: 000000000000000000000000064\n", 0, 64},
        {"# c\nsize,gpu_s,cpu_s\n16,1,2\ncrossover: 16\n", 0, 16},
        {" crossover: 5\nCrossover: 6\n", 1, 0},
        {"", 1, 0},
        {"crossover: 1048577\n", -1, 0},
        {"crossover: 99999999999999999999999999\n", -1, 0},
        {"crossover: 64 # comment\n", -1, 0},
        {"crossover: 6 4\n", -1, 0},
        {"crossover:\n", -1, 0},
        {"crossover: 1\ncrossover: 1\n", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        long x = -77;
        char why[256] = "";
        int rc = store_crossover_parse(cases[i].text, strlen(cases[i].text), &x, why, sizeof why);
        ck_assert_msg(rc == cases[i].rc, "'%s': %d, want %d (%s)", cases[i].text, rc, cases[i].rc,
                      why);
        ck_assert_msg(rc ? x == -77 : x == cases[i].x, "'%s': %ld", cases[i].text, x);
        ck_assert_msg(rc == 0 || (why[0] && !strchr(why, '\n')), "'%s': why '%s'", cases[i].text,
                      why);
    }
    /* A NUL byte in the line: not the line. */
    long x = -77;
    char why[256];
    ck_assert_int_eq(store_crossover_parse("crossover: 6\0004\n", 15, &x, why, sizeof why), -1);
    /* The file: missing (1, said nowhere), good, bad, a folder. */
    make_tmpdir();
    char path[600];
    store_crossover_path(path, sizeof path, tmpdir, CARD);
    ck_assert_int_eq(store_crossover_read_path(path, &x, why, sizeof why), 1);
    ck_assert_int_eq(store_crossover_read(tmpdir, CARD), -1);
    char folder[500];
    snprintf(folder, sizeof folder, "%s/" CARD, tmpdir);
    ck_assert_int_eq(mkdir(folder, 0755), 0);
    char line[64];
    spit(path, store_crossover_line(line, sizeof line, 333));
    ck_assert_int_eq(store_crossover_read(tmpdir, CARD), 333);
    spit(path, "size,gpu_s,cpu_s\n");
    ck_assert_int_eq(store_crossover_read_path(path, &x, why, sizeof why), -1);
    ck_assert_msg(strstr(why, path) && strstr(why, "no line 'crossover: N'"), "%s", why);
    ck_assert_int_eq(store_crossover_read(tmpdir, CARD), -1);
    unlink(path);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(store_crossover_read_path(path, &x, why, sizeof why), -1);
    rm_rf(tmpdir);
}
END_TEST

/* ---- tunes with a fake evaluator ---- */

typedef struct {
    int k;
    long calls;
    int delay_us;
    char forbidden[1024][GG_VARIANT_TEXT];
    int nforbidden;
    bool reevaluated;     /* a forbidden (recorded) variant was evaluated */
} slow_fake;

static int slow_eval(void *user, const gg_variant *v, gg_measurement *m)
{
    slow_fake *f = user;
    char t[GG_VARIANT_TEXT];
    gen_variant_format(v, t, sizeof t);
    for (int i = 0; i < f->nforbidden; i++)
        if (!strcmp(t, f->forbidden[i]))
            f->reevaluated = true;
    f->calls++;
    if (f->delay_us)
        usleep((useconds_t)f->delay_us);
    int ks = search_ksteps(v->mc, f->k);
    int np = v->np == GG_NP_ALL ? ks : v->np;
    m->status = (np % 7 == 3) ? GG_COMPILE_ERROR : GG_OK;
    /* store=f16 scores above any f32 point, f16x8 above any f16 one: their
     * bests must still not become another store's best file. */
    m->gflops = m->status == GG_OK ? 10 + v->mrt.rows + 2 * v->mc.cols - fabs(np - 5.0) +
                                         (v->store == GG_STORE_F16     ? 100
                                          : v->store == GG_STORE_F16X8 ? 200
                                                                       : 0)
                                   : 0;
    if (m->gflops < 0.5 && m->status == GG_OK)
        m->gflops = 0.5;
    m->seconds = m->status == GG_OK ? 1 / m->gflops : 0;
    m->passes = (ks + np - 1) / np;
    m->rel_err = 1e-7;
    return 0;
}

static void forbid_records(void *user, const gg_variant *v, const gg_measurement *m)
{
    slow_fake *f = user;
    (void)m;
    if (f->nforbidden < 1024)
        gen_variant_format(v, f->forbidden[f->nforbidden++], GG_VARIANT_TEXT);
}

static void tune_config(gg_tune_config *tc, slow_fake *f, gg_strategy strat, bool fresh)
{
    memset(tc, 0, sizeof *tc);
    tc->results_dir = tmpdir;
    tc->card = CARD;
    tc->fresh = fresh;
    search_config_default(&tc->search, 16, 16, 16);
    tc->search.strategy = strat;
    char err[256];
    ck_assert_int_eq(search_fix_parse("profile=330,compiler=glsl,unroll=0,acc=pingpong,mrt=1x1,out=rt,ku=1,tile=none", &tc->search.fix,
                                  err, sizeof err), 0);
    tc->search.eval = slow_eval;
    tc->search.user = f;
    f->k = 16;
}

/* mc: 8 shapes, np 1..ksteps at k=16: 16+8+8+8+6+6+4+4 = 60 points. */
#define SPACE_POINTS 60

static int tune_once(slow_fake *f, gg_strategy strat, bool fresh, gg_records_info *info)
{
    gg_tune_config tc;
    tune_config(&tc, f, strat, fresh);
    char err[256];
    gg_tune *t = search_tune_open(&tc, info, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    int rc = search_tune_run(t);
    if (rc == 0)
        rc = search_tune_finish(t);
    search_tune_close(t);
    return rc;
}

/* Every line whole, parseable, and no variant twice; returns the rows. */
static long check_file(const char *path)
{
    size_t len;
    char *t = slurp(path, &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(len > 0 && t[len - 1] == '\n', "file does not end in a newline");
    char seen[1024][GG_VARIANT_TEXT];
    long rows = 0;
    char *save = NULL;
    char *line = strtok_r(t, "\n", &save);
    ck_assert(store_csv_is_header(line));
    while ((line = strtok_r(NULL, "\n", &save))) {
        char card[GG_CARD_MAX], err[256];
        gg_problem p;
        gg_variant v;
        gg_measurement m;
        ck_assert_msg(store_csv_parse(line, card, sizeof card, &p, &v, &m, err, sizeof err) == 0,
                      "line '%s': %s", line, err);
        char vt[GG_VARIANT_TEXT];
        gen_variant_format(&v, vt, sizeof vt);
        for (long i = 0; i < rows; i++)
            ck_assert_msg(strcmp(seen[i], vt), "%s recorded twice", vt);
        ck_assert_int_lt(rows, 1024);
        strcpy(seen[rows++], vt);
    }
    free(t);
    return rows;
}

START_TEST(test_no_duplicates_and_resume)
{
    make_tmpdir();
    char path[400];
    records_path(path, sizeof path, 16, 16, 16);
    slow_fake f = {0};
    gg_records_info info;
    ck_assert_int_eq(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    ck_assert_int_eq(f.calls, SPACE_POINTS);
    ck_assert_int_eq(check_file(path), SPACE_POINTS);
    struct stat before, after;
    stat(path, &before);
    /* Again: everything is recorded, nothing is measured or written. */
    slow_fake g = {0};
    ck_assert_int_eq(tune_once(&g, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    ck_assert_int_eq(info.rows, SPACE_POINTS);
    ck_assert_int_eq(g.calls, 0);
    stat(path, &after);
    ck_assert_int_eq(before.st_size, after.st_size);
    /* Phase and random over the same records: memo hits only. */
    ck_assert_int_eq(tune_once(&g, GG_SEARCH_PHASE, false, &info), 0);
    ck_assert_int_eq(g.calls, 0);
    ck_assert_int_eq(check_file(path), SPACE_POINTS);
    /* A duplicated row in the file (an older tool) is read once. */
    char *t = slurp(path, NULL);
    char *second = strchr(t, '\n') + 1;
    char dup[256];
    snprintf(dup, sizeof dup, "%.*s", (int)(strchr(second, '\n') - second + 1), second);
    FILE *fa = fopen(path, "ab");
    fputs(dup, fa);
    fclose(fa);
    free(t);
    slow_fake h = {0};
    ck_assert_int_eq(tune_once(&h, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    ck_assert_int_eq(h.calls, 0);
    ck_assert_int_eq(info.rows, SPACE_POINTS + 1);
    /* The best file names the best of the records. */
    gg_variant b;
    double gf;
    char err[256], bt[GG_VARIANT_TEXT];
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 16, 16, 16, &b, &gf, err, sizeof err), 0);
    ck_assert_str_eq(gen_variant_format(&b, bt, sizeof bt),
                     "mrt=1x1,mc=1x4,np=all,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32");
    ck_assert_double_eq_tol(gf, 10 + 1 + 8 - 1, 1e-9); /* np=4 (all): 10 + 1 + 8 - |4-5| */
    rm_rf(tmpdir);
}
END_TEST

/* The finalists' re-measurement: the recorded best (mc=1x4,np=all, 18
 * GFLOP/s in the records) is slower when measured again than the second
 * (mc=1x3,np=5, 17); the third (one of the points at 16) fails its second
 * round and is out.  The best
 * file follows the re-measured medians; the records are not touched. */
typedef struct {
    int calls[3];
} remeasure_fake;

static int remeasure_eval(void *user, const gg_variant *v, gg_measurement *m)
{
    remeasure_fake *f = user;
    bool first = v->mc.cols == 4 && v->np == GG_NP_ALL, second = v->mc.cols == 3 && v->np == 5;
    int who = first ? 0 : second ? 1 : 2;
    int round = f->calls[who]++;
    m->status = GG_OK;
    m->seconds = first ? 1.0 : second ? 0.5 + 0.01 * round : 0.8;
    if (!first && !second && round == 1)
        m->status = GG_WRONG_RESULT;
    m->gflops = m->status == GG_OK ? 2.0 * 16 * 16 * 16 / m->seconds / 1e9 : 0;
    return 0;
}

START_TEST(test_finalists)
{
    make_tmpdir();
    slow_fake f = {0};
    gg_records_info info;
    ck_assert_int_eq(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    char path[400];
    records_path(path, sizeof path, 16, 16, 16);
    struct stat before, after;
    stat(path, &before);

    gg_tune_config tc;
    tune_config(&tc, &f, GG_SEARCH_EXHAUSTIVE, false);
    char err[256];
    gg_tune *t = search_tune_open(&tc, &info, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    remeasure_fake r = {{0}};
    gg_finalist fin[GG_FINALISTS_MAX];
    ck_assert_int_eq(search_tune_finalists(t, GG_STORE_F32, 3, 5, remeasure_eval, &r, fin), 3);
    search_tune_close(t);
    char vt[GG_VARIANT_TEXT];
    ck_assert_str_eq(gen_variant_format(&fin[0].v, vt, sizeof vt),
                     "mrt=1x1,mc=1x3,np=5,unroll=0,profile=330,compiler=glsl,acc=pingpong,store=f32");
    ck_assert_int_eq(fin[0].status, GG_OK);
    ck_assert_int_eq(fin[0].rounds, 5);
    ck_assert_double_eq_tol(fin[0].recorded, 17, 1e-9);
    ck_assert_double_eq_tol(fin[0].seconds, 0.52, 1e-12);           /* median of .50 .. .54 */
    ck_assert_double_eq_tol(fin[0].spread, 0.04 / 0.52, 1e-12);
    ck_assert_double_eq_tol(fin[1].seconds, 1.0, 1e-12);            /* the recorded best */
    ck_assert_double_eq_tol(fin[1].recorded, 18, 1e-9);
    ck_assert_int_eq(fin[2].status, GG_WRONG_RESULT);
    ck_assert_int_eq(r.calls[0], 5);
    ck_assert_int_eq(r.calls[1], 5);
    ck_assert_int_eq(r.calls[2], 2);                                /* out after its failure */

    gg_variant b;
    double gf;
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 16, 16, 16, &b, &gf, err, sizeof err), 0);
    ck_assert(gen_variant_equal(&b, &fin[0].v));
    ck_assert_double_eq_tol(gf, 2.0 * 16 * 16 * 16 / 0.52 / 1e9, 1e-9);
    char best[400];
    store_best_path(best, sizeof best, tmpdir, CARD, 16, 16, 16);
    char *text = slurp(best, NULL);
    ck_assert_ptr_nonnull(strstr(text, "remeasured: median of 5 interleaved runs, spread 7.7%"));
    free(text);
    stat(path, &after);
    ck_assert_int_eq(before.st_size, after.st_size);
    rm_rf(tmpdir);
}
END_TEST

/* Records written before the store column (SPEC's 16 columns, as results/
 * holds them): a resume reads every row as store=f32 and measures nothing
 * again; the file is rewritten with the store column, whole.  --fix
 * store=f16 is a space of its own: measured once, recorded beside. */
START_TEST(test_old_records_resume)
{
    make_tmpdir();
    char path[400];
    records_path(path, sizeof path, 16, 16, 16);
    slow_fake f = {0};
    gg_records_info info;
    ck_assert_int_eq(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    char *now = slurp(path, NULL);
    /* Back to the old form: the old header, ",f32,rt,-,texture,-,1,plain"
     * taken out of every row. */
    size_t cap = strlen(now) + 1;
    char *old = malloc(cap);
    size_t o = (size_t)snprintf(old, cap, "%s\n", GG_CSV_HEADER_V1);
    for (const char *q = strchr(now, '\n') + 1; *q; q++) {
        if (!strncmp(q, ",f32,rt,-,texture,-,1,plain,", 28))
            q += 27;
        old[o++] = *q;
    }
    old[o] = '\0';
    ck_assert_ptr_null(strstr(old, "f32"));
    FILE *fw = fopen(path, "wb");
    fputs(old, fw);
    fclose(fw);
    /* The old form is read as it was: nothing measured, nothing appended. */
    slow_fake g = {0};
    ck_assert_int_eq(tune_once(&g, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    ck_assert_int_eq(info.rows, SPACE_POINTS);
    ck_assert_int_eq(info.skipped, 0);
    ck_assert_int_eq(g.calls, 0);
    char *again = slurp(path, NULL);
    ck_assert_str_eq(again, now); /* rewritten with the store column, row for row */
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0644);
    /* The store=f16 space: measured (every point, nothing of f32 reused),
     * then resumed like any other. */
    gg_tune_config tc;
    slow_fake h = {0};
    tune_config(&tc, &h, GG_SEARCH_EXHAUSTIVE, false);
    char err[256];
    ck_assert_int_eq(search_fix_parse("profile=330,compiler=glsl,unroll=0,acc=pingpong,mrt=1x1,"
                                  "out=rt,store=f16", &tc.search.fix, err, sizeof err), 0);
    gg_tune *t = search_tune_open(&tc, &info, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(search_tune_run(t), 0);
    ck_assert_int_eq(search_tune_finish(t), 0);
    search_tune_close(t);
    ck_assert_int_eq(h.calls, SPACE_POINTS);
    ck_assert_int_eq(check_file(path), 2 * SPACE_POINTS);
    char *both = slurp(path, NULL);
    long f16 = 0;
    for (const char *q = both; (q = strstr(q, ",f16,")); q++)
        f16++;
    ck_assert_int_eq(f16, SPACE_POINTS);
    /* Each store its best file: the f16 best (faster) went to
     * best-f16-16x16x16.txt, best-16x16x16.txt kept the f32 one. */
    gg_variant bv;
    double gf32 = 0, gf16 = 0;
    ck_assert_msg(store_best_read(tmpdir, CARD, 16, 16, 16, &bv, &gf32, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(bv.store, GG_STORE_F32);
    ck_assert_msg(store_best_read_store(tmpdir, CARD, 16, 16, 16, GG_STORE_F16, &bv, &gf16, err,
                                     sizeof err) == 0, "%s", err);
    ck_assert_int_eq(bv.store, GG_STORE_F16);
    ck_assert_int_eq(bv.mrt.rows, 1);
    ck_assert(gf16 > 100 && gf32 > 0 && gf32 < 100);
    char bp[400];
    ck_assert_ptr_nonnull(strstr(store_best_path_store(bp, sizeof bp, tmpdir, CARD, 16, 16, 16,
                                                    GG_STORE_F16), "/best-f16-16x16x16.txt"));
    /* The store=f16x8 space (4-channel packings: mc fixed): its own best
     * file, best-f16x8-16x16x16.txt, the other two as they were, the f32
     * one even where it holds another figure for the same variant than
     * the records' best (the finalists' median of an earlier tune: the
     * f16x8 tune's finish must not undo it). */
    gg_variant b32;
    double g32;
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 16, 16, 16, &b32, &g32, err, sizeof err), 0);
    gg_measurement med;
    base_measurement_init(&med);
    med.gflops = gf32 = g32 * 0.75;
    med.seconds = 1e-3;
    ck_assert_int_eq(store_best_write(tmpdir, CARD, 16, 16, 16, &b32, &med, err, sizeof err), 0);
    slow_fake h8 = {0};
    tune_config(&tc, &h8, GG_SEARCH_EXHAUSTIVE, false);
    ck_assert_int_eq(search_fix_parse("profile=330,compiler=glsl,unroll=0,acc=pingpong,mrt=1x1,"
                                  "out=rt,mc=1x4,store=f16x8", &tc.search.fix, err, sizeof err), 0);
    t = search_tune_open(&tc, &info, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    ck_assert_int_eq(search_tune_run(t), 0);
    ck_assert_int_eq(search_tune_finish(t), 0);
    search_tune_close(t);
    ck_assert_int_gt(h8.calls, 0);
    double g8 = 0, again32 = 0, again16 = 0;
    ck_assert_msg(store_best_read_store(tmpdir, CARD, 16, 16, 16, GG_STORE_F16X8, &bv, &g8, err,
                                     sizeof err) == 0, "%s", err);
    ck_assert_int_eq(bv.store, GG_STORE_F16X8);
    ck_assert_int_eq(bv.mc.cols, 4);
    ck_assert(g8 > 200);
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 16, 16, 16, &bv, &again32, err, sizeof err), 0);
    ck_assert_int_eq(bv.store, GG_STORE_F32);
    ck_assert_int_eq(store_best_read_store(tmpdir, CARD, 16, 16, 16, GG_STORE_F16, &bv, &again16,
                                        err, sizeof err), 0);
    ck_assert_int_eq(bv.store, GG_STORE_F16);
    ck_assert(again32 == gf32 && again16 == gf16);
    char bp8[400];
    ck_assert_ptr_nonnull(strstr(store_best_path_store(bp8, sizeof bp8, tmpdir, CARD, 16, 16, 16,
                                                    GG_STORE_F16X8), "/best-f16x8-16x16x16.txt"));
    /* --fresh moves every best file aside. */
    slow_fake k = {0};
    ck_assert_int_eq(tune_once(&k, GG_SEARCH_EXHAUSTIVE, true, &info), 0);
    ck_assert(info.moved_aside);
    ck_assert_int_ne(access(bp, F_OK), 0);
    ck_assert_int_ne(access(bp8, F_OK), 0);
    ck_assert_int_eq(store_best_read(tmpdir, CARD, 16, 16, 16, &bv, &gf32, err, sizeof err), 0);
    char dirp[300];
    snprintf(dirp, sizeof dirp, "%s/%s", tmpdir, CARD);
    DIR *d = opendir(dirp);
    ck_assert_ptr_nonnull(d);
    int olds16 = 0, olds8 = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        olds16 += !strncmp(e->d_name, "best-f16-16x16x16.txt.", 22) && strstr(e->d_name, ".old");
        olds8 += !strncmp(e->d_name, "best-f16x8-16x16x16.txt.", 24) && strstr(e->d_name, ".old");
    }
    closedir(d);
    ck_assert_int_eq(olds16, 1);
    ck_assert_int_eq(olds8, 1);
    free(both);
    free(again);
    free(old);
    free(now);
    rm_rf(tmpdir);
}
END_TEST

START_TEST(test_fresh)
{
    make_tmpdir();
    char path[400], best[400];
    records_path(path, sizeof path, 16, 16, 16);
    slow_fake f = {0};
    gg_records_info info;
    ck_assert_int_eq(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    char *old = slurp(path, NULL);
    slow_fake g = {0};
    ck_assert_int_eq(tune_once(&g, GG_SEARCH_EXHAUSTIVE, true, &info), 0);
    ck_assert(info.moved_aside);
    ck_assert_int_eq(info.rows, 0);
    ck_assert_int_eq(g.calls, SPACE_POINTS); /* measured again */
    char *moved = slurp(info.old_path, NULL);
    ck_assert_ptr_nonnull(moved);
    ck_assert_str_eq(moved, old);
    ck_assert_ptr_nonnull(strstr(info.old_path, ".old"));
    ck_assert_int_eq(check_file(path), SPACE_POINTS);
    /* The old best went aside with it; a new one was written. */
    ck_assert_int_eq(access(store_best_path(best, sizeof best, tmpdir, CARD, 16, 16, 16), F_OK), 0);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, CARD);
    DIR *d = opendir(dir);
    int old_bests = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        old_bests += !strncmp(e->d_name, "best-16x16x16.txt.", 18) && strstr(e->d_name, ".old");
    closedir(d);
    ck_assert_int_eq(old_bests, 1);
    /* --fresh with no records: nothing moved aside, no empty .old files. */
    rm_rf(tmpdir);
    make_tmpdir();
    slow_fake h = {0};
    ck_assert_int_eq(tune_once(&h, GG_SEARCH_EXHAUSTIVE, true, &info), 0);
    ck_assert(!info.moved_aside);
    ck_assert_int_eq(h.calls, SPACE_POINTS);
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, CARD);
    d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int olds = 0;
    while ((e = readdir(d)))
        olds += strstr(e->d_name, ".old") != NULL;
    closedir(d);
    ck_assert_int_eq(olds, 0);
    free(old);
    free(moved);
    rm_rf(tmpdir);
}
END_TEST

/* Kill a tune at random moments with SIGKILL; every time the file holds only
 * whole rows, and the next tune measures only what is not recorded. */
START_TEST(test_sigkill_resume)
{
    make_tmpdir();
    char path[400];
    records_path(path, sizeof path, 16, 16, 16);
    unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    srand(seed);
    long rows = 0;
    for (int round = 0; round < 8; round++) {
        struct stat sb;
        off_t size0 = stat(path, &sb) ? 0 : sb.st_size;
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            slow_fake f = {.delay_us = 5000};
            gg_records_info info;
            _exit(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info) == 0 ? 0 : 1);
        }
        /* Once it has made progress (however slow the machine), kill it at
         * a random moment of the next few evaluations. */
        double t0 = (double)time(NULL);
        while ((stat(path, &sb) || sb.st_size <= size0 + 100) && (double)time(NULL) - t0 < 20)
            usleep(1000);
        usleep((useconds_t)(rand() % 15000));
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        ck_assert_msg(WIFSIGNALED(st), "seed %u: the tune finished before the kill", seed);
        long now = check_file(path);
        ck_assert_msg(now >= rows, "seed %u: rows went from %ld to %ld", seed, rows, now);
        rows = now;
    }
    ck_assert_msg(rows > 0 && rows < SPACE_POINTS, "seed %u: %ld rows after the kills", seed, rows);
    /* Resume: every recorded variant is forbidden to the evaluator. */
    slow_fake f = {0};
    char err[256];
    gg_records *r = store_records_open(tmpdir, CARD, 16, 16, 16, false, forbid_records, &f, NULL, err,
                                    sizeof err);
    ck_assert_ptr_nonnull(r);
    store_records_close(r);
    ck_assert_int_eq(f.nforbidden, rows);
    gg_records_info info;
    ck_assert_int_eq(tune_once(&f, GG_SEARCH_EXHAUSTIVE, false, &info), 0);
    ck_assert_msg(!f.reevaluated, "seed %u: a recorded variant was measured again", seed);
    ck_assert_int_eq(info.torn, 0);
    ck_assert_int_eq(f.calls, SPACE_POINTS - rows);
    ck_assert_int_eq(check_file(path), SPACE_POINTS);
    rm_rf(tmpdir);
}
END_TEST

Suite *make_records_suite(void)
{
    Suite *s = suite_create("records");
    TCase *tc = tcase_create("file");
    tcase_add_test(tc, test_roundtrip);
    tcase_add_test(tc, test_new_statuses_roundtrip);
    tcase_add_loop_test(tc, test_torn_rows, 0, (int)(sizeof torn_cases / sizeof *torn_cases));
    tcase_add_test(tc, test_torn_header_and_foreign_file);
    tcase_add_test(tc, test_lock);
    tcase_add_test(tc, test_best_file);
    tcase_add_test(tc, test_best_file_edges);
    tcase_add_test(tc, test_crossover_record);
    suite_add_tcase(s, tc);
    TCase *tu = tcase_create("tune");
    tcase_set_timeout(tu, 60);
    tcase_add_test(tu, test_no_duplicates_and_resume);
    tcase_add_test(tu, test_finalists);
    tcase_add_test(tu, test_fresh);
    tcase_add_test(tu, test_old_records_resume);
    tcase_add_test(tu, test_sigkill_resume);
    suite_add_tcase(s, tu);
    return s;
}
