/* Regressions found by the fuzz targets (tests/fuzz/), replayed with the
 * invariant that broke.  Command-line findings run through the binary in
 * tests/check_badinput.c (cases marked "fuzz:").
 *
 * fuzz_records: resume must be idempotent.  A bad line just before a torn
 * last row used to stay (skipped), then be cut as the "torn last line" on the
 * next open: opening twice cut twice.  Now the bad lines right before a torn
 * row go with it, and a second open changes nothing.  (Fixed in
 * store/records.c, load().) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/csv.h"
#include "store/records.h"
#include "tests/suites.h"

#define CARD "fuzz-card"
#define HEAD GG_CSV_HEADER "\n"
#define GOOD1 CARD ",8,8,8,1x1,2x2,128,1,330,glsl,pingpong,1,ok,0.00123,27.5,1.2e-07\n"
#define GOOD2 CARD ",8,8,8,2x2,1x4,all,0,120,glsl,blend,1,wrong_result,0.5,0,inf\n"
#define BAD1 CARD ",8,8,8,1x1,2x2,128,1,330,glsl,pingp!ng,1,ok,0.00123,27.5,1.2e-07\n"
#define OTHER "other-card,8,8,8,1x1,1x1,all,0,330,glsl,copy,1,ok,0.1,2,\n"

static const struct {
    const char *file;  /* the records as found */
    long rows, torn, skipped;
    const char *after; /* the file after the first open */
} records_found[] = {
    /* the input fuzz_records found: a bad line, then a torn row */
    {HEAD GOOD1 BAD1 CARD ",8,8,8,2x2,1x4,al", 1, 1, 0, HEAD GOOD1},
    /* two bad lines, then an unparseable (complete) last line */
    {HEAD GOOD1 "garbage\n" BAD1 "x,y\n", 1, 1, 0, HEAD GOOD1},
    /* a bad line between good rows stays; a torn row after a good one goes alone */
    {HEAD GOOD1 BAD1 GOOD2 CARD ",8,8", 2, 1, 1, HEAD GOOD1 BAD1 GOOD2},
    /* another card's row is not bad: it stays, the bad line after it goes */
    {HEAD GOOD1 OTHER BAD1 "torn", 1, 1, 1, HEAD GOOD1 OTHER},
    /* nothing torn: bad lines in the middle are only skipped */
    {HEAD BAD1 GOOD1, 1, 0, 1, HEAD BAD1 GOOD1},
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(records_resume_idempotent)
{
    char dir[] = "/tmp/glgemm-regress-XXXXXX", folder[128], path[192], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(folder, sizeof folder, "%s/" CARD, dir);
    ck_assert_int_eq(mkdir(folder, 0755), 0);
    snprintf(path, sizeof path, "%s/tune-8x8x8.csv", folder);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(records_found[_i].file, f);
    fclose(f);

    FILE *saved = stderr; /* the warnings are expected; keep the log clean */
    stderr = fopen("/dev/null", "w");
    gg_records_info info, again;
    gg_records *r = store_records_open(dir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    store_records_close(r);
    char first[8192];
    snprintf(first, sizeof first, "%s", slurp(path));
    r = store_records_open(dir, CARD, 8, 8, 8, false, NULL, NULL, &again, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    store_records_close(r);
    fclose(stderr);
    stderr = saved;

    ck_assert_int_eq(info.rows, records_found[_i].rows);
    ck_assert_int_eq(info.torn, records_found[_i].torn);
    ck_assert_int_eq(info.skipped, records_found[_i].skipped);
    ck_assert_str_eq(first, records_found[_i].after);
    /* The second open finds the same and changes nothing. */
    ck_assert_int_eq(again.rows, info.rows);
    ck_assert_int_eq(again.torn, 0);
    ck_assert_int_eq(again.skipped, info.skipped);
    ck_assert_str_eq(slurp(path), first);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* fuzz_records: a NUL byte used to end the line for the parser, so a header
 * with junk after a NUL passed as the header, and a row with junk after a
 * NUL as a good row.  Now a NUL makes the line bad: the header refused (the
 * file is not ours, left as it is), a row skipped. */
START_TEST(records_nul_byte)
{
    static const char nul_header[] = GG_CSV_HEADER "\0junk\n" GOOD1;
    static const char nul_row[] = HEAD GOOD1 CARD ",8,8,8,1x1,1x1,all,0,330,glsl,copy,1,ok,0.1,2,"
                                  "\0junk\n" GOOD2;
    char dir[] = "/tmp/glgemm-regress-XXXXXX", folder[128], path[192], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(folder, sizeof folder, "%s/" CARD, dir);
    ck_assert_int_eq(mkdir(folder, 0755), 0);
    snprintf(path, sizeof path, "%s/tune-8x8x8.csv", folder);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");

    FILE *f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(nul_header, 1, sizeof nul_header - 1, f), sizeof nul_header - 1);
    fclose(f);
    gg_records_info info;
    gg_records *r = store_records_open(dir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err, "does not start with the tuning records header"));
    f = fopen(path, "rb");
    char back[512];
    size_t n = fread(back, 1, sizeof back, f);
    fclose(f);
    ck_assert_uint_eq(n, sizeof nul_header - 1);
    ck_assert(!memcmp(back, nul_header, n));

    f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(nul_row, 1, sizeof nul_row - 1, f), sizeof nul_row - 1);
    fclose(f);
    r = store_records_open(dir, CARD, 8, 8, 8, false, NULL, NULL, &info, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    store_records_close(r);
    fclose(stderr);
    stderr = saved;
    ck_assert_int_eq(info.rows, 2);
    ck_assert_int_eq(info.skipped, 1);
    ck_assert_int_eq(info.torn, 0);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *make_regress_suite(void)
{
    Suite *s = suite_create("regress");
    TCase *tc = tcase_create("fuzz");
    tcase_add_loop_test(tc, records_resume_idempotent, 0,
                        sizeof records_found / sizeof *records_found);
    tcase_add_test(tc, records_nul_byte);
    suite_add_tcase(s, tc);
    return s;
}
