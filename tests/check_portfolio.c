/* store/portfolio: the greedy coverage rule on rates it is given (a set
 * that the top-N by summed coverage alone would not pick), ties, repeated
 * rates, the stop when nothing gains, --max's bound; and the reading of
 * every browser card's records (other cards, other statuses, rows want
 * refuses, names that are no records file passed over). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/csv.h"
#include "store/paths.h"
#include "store/portfolio.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

static gg_portfolio_rate R(const char *cell, const char *variant, double gflops)
{
    gg_portfolio_rate r = {.gflops = gflops};
    snprintf(r.cell, sizeof r.cell, "%s", cell);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    return r;
}

static const gg_portfolio_cell *cell_of(const gg_portfolio *p, const char *name)
{
    for (size_t i = 0; i < p->ncells; i++)
        if (!strcmp(p->cells[i].cell, name))
            return &p->cells[i];
    ck_abort_msg("no cell %s", name);
    return NULL;
}

/* Three cells.  With E (the last rate), each cell's best is 10 and the
 * ratios (c1, c2, c3) are A (1, .5, .5) sum 2; B (.9, .9, 0) 1.8;
 * C (0, 0, 1) 1; D (0, .95, 0) .95; E (0, 1, 0) 1.  Without E, c2's best
 * is D's 9.5: A (1, .526, .5) 2.026; B (.9, .947, 0) 1.847; D (0, 1, 0). */
static size_t classic(gg_portfolio_rate *r)
{
    size_t n = 0;
    r[n++] = R("c1", "A", 10);
    r[n++] = R("c2", "A", 5);
    r[n++] = R("c3", "A", 5);
    r[n++] = R("c1", "B", 9);
    r[n++] = R("c2", "B", 9);
    r[n++] = R("c3", "C", 10);
    r[n++] = R("c2", "D", 9.5);
    r[n++] = R("c2", "E", 10); /* c2's best: 10 */
    return n;
}

START_TEST(test_greedy)
{
    gg_portfolio_rate r[16];
    size_t n = classic(r);
    /* E is c2's best (1.0 there): greedy takes A, then E (+.5 on c2) ties
     * C (+.5 on c3): E sorts after C, so C; then E (+.5); then nothing. */
    gg_portfolio p;
    char err[200];
    ck_assert_int_eq(store_portfolio_select(r, n, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 3);
    ck_assert_str_eq(p.chosen[0], "A");
    ck_assert_str_eq(p.chosen[1], "C");
    ck_assert_str_eq(p.chosen[2], "E");
    ck_assert_double_eq_tol(p.sum[0], 2.0, 1e-12);
    ck_assert_double_eq_tol(p.sum[1], 2.5, 1e-12);
    ck_assert_double_eq_tol(p.sum[2], 3.0, 1e-12);
    ck_assert_uint_eq(p.ncells, 3);
    ck_assert_str_eq(p.cells[0].cell, "c1"); /* first appearance order */
    ck_assert_double_eq_tol(cell_of(&p, "c2")->best, 10, 1e-12);
    ck_assert_double_eq_tol(cell_of(&p, "c2")->coverage, 1, 1e-12);
    ck_assert_int_eq(cell_of(&p, "c2")->by, 2);
    ck_assert_int_eq(cell_of(&p, "c1")->by, 0);
    ck_assert_int_eq(cell_of(&p, "c3")->by, 1);
    store_portfolio_free(&p);

    /* Without E: A; then C gains .5, D .474, B .421: C; then D (B .421);
     * then B gains nothing.  The top three by their own sums would be A, B,
     * C: a rule that ranks variants alone fails here. */
    ck_assert_int_eq(store_portfolio_select(r, n - 1, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 3);
    ck_assert_str_eq(p.chosen[0], "A");
    ck_assert_str_eq(p.chosen[1], "C");
    ck_assert_str_eq(p.chosen[2], "D");
    ck_assert_double_eq_tol(p.sum[0], 1 + 5 / 9.5 + 0.5, 1e-12);
    ck_assert_double_eq_tol(p.sum[2], 3.0, 1e-12);
    ck_assert_double_eq_tol(cell_of(&p, "c2")->coverage, 1.0, 1e-12);
    ck_assert_double_eq_tol(cell_of(&p, "c2")->best, 9.5, 1e-12);
    store_portfolio_free(&p);

    /* --max 2: the first two of the same order. */
    ck_assert_int_eq(store_portfolio_select(r, n - 1, 2, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 2);
    ck_assert_str_eq(p.chosen[1], "C");
    ck_assert_double_eq_tol(cell_of(&p, "c2")->coverage, 5 / 9.5, 1e-12);
    ck_assert_int_eq(cell_of(&p, "c2")->by, 0);
    store_portfolio_free(&p);

    /* Rate order does not matter (reversed). */
    gg_portfolio_rate rev[16];
    for (size_t i = 0; i < n - 1; i++)
        rev[i] = r[n - 2 - i];
    ck_assert_int_eq(store_portfolio_select(rev, n - 1, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 3);
    ck_assert_str_eq(p.chosen[0], "A");
    ck_assert_str_eq(p.chosen[1], "C");
    ck_assert_str_eq(p.chosen[2], "D");
    store_portfolio_free(&p);
}
END_TEST

/* The rule is coverage (ratio to each cell's best), not raw GFLOP/s: a
 * variant fast on one fast card loses to one at half that there and 90%
 * on two slow ones. */
START_TEST(test_ratios_not_rates)
{
    gg_portfolio_rate r[] = {
        R("gpu 1024", "fast", 1000), R("gpu 1024", "even", 500),
        R("sw 256", "even", 9), R("sw 256", "best-sw", 10),
        R("sw 1024", "even", 9), R("sw 1024", "best-sw", 10),
    };
    gg_portfolio p;
    char err[200];
    ck_assert_int_eq(store_portfolio_select(r, 6, 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 1);
    ck_assert_str_eq(p.chosen[0], "even"); /* .5 + .9 + .9 = 2.3 against 2 and 1 */
    store_portfolio_free(&p);
}
END_TEST

/* Repeated rates: the fastest counts; one cell: only its best, then
 * nothing gains; ties: the text that sorts first; zero and negative rates
 * are no rates; no rates: nothing chosen. */
START_TEST(test_edges)
{
    gg_portfolio p;
    char err[200];
    gg_portfolio_rate rep[] = {R("c", "x", 1), R("c", "y", 5), R("c", "x", 6), R("c", "z", 2)};
    ck_assert_int_eq(store_portfolio_select(rep, 4, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 1);
    ck_assert_str_eq(p.chosen[0], "x");
    ck_assert_double_eq_tol(p.cells[0].best, 6, 1e-12);
    store_portfolio_free(&p);

    gg_portfolio_rate tie[] = {R("c", "b", 4), R("c", "a", 4), R("c", "c", 4), R("d", "q", 0), R("d", "r", -1)};
    ck_assert_int_eq(store_portfolio_select(tie, 5, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 1);
    ck_assert_str_eq(p.chosen[0], "a");
    ck_assert_uint_eq(p.ncells, 1); /* d had no rate */
    store_portfolio_free(&p);

    ck_assert_int_eq(store_portfolio_select(tie, 0, 8, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, 0);
    ck_assert_uint_eq(p.ncells, 0);
    store_portfolio_free(&p);

    ck_assert_int_eq(store_portfolio_select(tie, 3, 0, &p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "1 to 8"));
    ck_assert_int_eq(store_portfolio_select(tie, 3, GG_PORTFOLIO_MAX + 1, &p, err, sizeof err), -1);

    /* At most GG_PORTFOLIO_MAX even where each of 12 cells wants its own. */
    gg_portfolio_rate many[12];
    for (int i = 0; i < 12; i++) {
        char c[16], v[16];
        snprintf(c, sizeof c, "c%02d", i);
        snprintf(v, sizeof v, "v%02d", i);
        many[i] = R(c, v, 1 + i);
    }
    ck_assert_int_eq(store_portfolio_select(many, 12, GG_PORTFOLIO_MAX, &p, err, sizeof err), 0);
    ck_assert_int_eq(p.nchosen, GG_PORTFOLIO_MAX);
    ck_assert_str_eq(p.chosen[0], "v00"); /* each gains 1: ties by text */
    ck_assert_int_eq(cell_of(&p, "c11")->by, -1);
    store_portfolio_free(&p);
}
END_TEST


static bool es_only(void *user, const gg_variant *v)
{
    (void)user;
    return v->profile == GG_PROFILE_300ES;
}

/* A row as the browser records hold them (GG_CSV_HEADER_V3). */
#define ROW(card, size, variant_cols, status, gflops) \
    card "," size "," variant_cols ",4," status ",0.01," gflops ",1e-7\n"

START_TEST(test_read)
{
    char dir[64], p[300];
    snprintf(dir, sizeof dir, "/tmp/glgemm-portfolio-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/chromium-b", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/chromium-a", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/llvmpipe", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/chromium-empty", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/chromium-b/tune-64x64x64.csv", dir);
    tu_write(p, GG_CSV_HEADER_V3 "\n"
           ROW("chromium-b", "64,64,64", "2x2,2x2,16,0,300es,glsl,pingpong,f32,rt,-,texture", "ok", "3")
           ROW("chromium-b", "64,64,64", "1x4,1x4,8,1,300es,glsl,blend,f32,rt,-,texture", "wrong_result", "0")
           ROW("chromium-b", "64,64,64", "1x4,1x4,8,1,330,glsl,blend,f32,rt,-,texture", "ok", "9"));
    snprintf(p, sizeof p, "%s/chromium-b/tune-8x8x8.csv", dir);
    tu_write(p, GG_CSV_HEADER_V3 "\n"
           ROW("chromium-b", "8,8,8", "1x4,1x4,8,1,300es,glsl,blend,f32,rt,-,texture", "ok", "2")
           ROW("other-card", "8,8,8", "1x1,1x1,1,0,300es,glsl,blend,f32,rt,-,texture", "ok", "5"));
    snprintf(p, sizeof p, "%s/chromium-b/tune-08x8x8.csv", dir); /* no records file's name */
    tu_write(p, GG_CSV_HEADER_V3 "\n" ROW("chromium-b", "8,8,8", "1x1,1x1,1,0,300es,glsl,blend,f32,rt,-,texture", "ok", "7"));
    snprintf(p, sizeof p, "%s/chromium-a/tune-16x16x16.csv", dir);
    tu_write(p, GG_CSV_HEADER_V3 "\n" ROW("chromium-a", "16,16,16", "2x2,2x2,16,0,300es,glsl,pingpong,f32,rt,-,texture", "ok", "1.5"));
    snprintf(p, sizeof p, "%s/llvmpipe/tune-16x16x16.csv", dir);
    tu_write(p, GG_CSV_HEADER_V3 "\n" ROW("llvmpipe", "16,16,16", "2x2,2x2,16,0,300es,glsl,pingpong,f32,rt,-,texture", "ok", "4"));

    gg_portfolio_rate *rates = NULL;
    size_t n = 0;
    int cards = -1;
    char err[300];
    ck_assert_int_eq(store_portfolio_read(dir, es_only, NULL, &rates, &n, &cards, err, sizeof err), 0);
    ck_assert_int_eq(cards, 3);
    ck_assert_uint_eq(n, 3);
    /* cards by name, then sizes ascending */
    ck_assert_str_eq(rates[0].cell, "chromium-a 16x16x16");
    ck_assert_str_eq(rates[1].cell, "chromium-b 8x8x8");
    ck_assert_str_eq(rates[2].cell, "chromium-b 64x64x64");
    ck_assert_str_eq(rates[1].variant, "mrt=1x4,mc=1x4,np=8,unroll=1,profile=300es,compiler=glsl,acc=blend,store=f32");
    ck_assert_double_eq_tol(rates[2].gflops, 3, 1e-12);
    gg_portfolio pf;
    ck_assert_int_eq(store_portfolio_select(rates, n, 8, &pf, err, sizeof err), 0);
    ck_assert_int_eq(pf.nchosen, 2);
    ck_assert_str_eq(pf.chosen[0], rates[0].variant); /* covers two cells */
    store_portfolio_free(&pf);
    free(rates);

    /* A records file that is someone else's: an error naming it. */
    snprintf(p, sizeof p, "%s/chromium-a/tune-32x32x32.csv", dir);
    tu_write(p, "not,a,records,header\n");
    ck_assert_int_eq(store_portfolio_read(dir, NULL, NULL, &rates, &n, &cards, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "tune-32x32x32.csv"));
    ck_assert_ptr_null(rates);

    /* No folder at all: no rates, no error. */
    snprintf(p, sizeof p, "%s/none", dir);
    ck_assert_int_eq(store_portfolio_read(p, NULL, NULL, &rates, &n, &cards, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(cards, 0);
    free(rates);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_records_name)
{
    int m, n, k;
    ck_assert(store_records_name_parse("tune-8x16x32.csv", &m, &n, &k));
    ck_assert_int_eq(m * 10000 + n * 100 + k, 81632);
    ck_assert(!store_records_name_parse("tune-08x16x32.csv", &m, &n, &k));
    ck_assert(!store_records_name_parse("tune-8x16x32.csv.old", &m, &n, &k));
    ck_assert(!store_records_name_parse("tune-8x16x32-summary.txt", &m, &n, &k));
    ck_assert(!store_records_name_parse("tune-0x16x32.csv", &m, &n, &k));
    ck_assert(!store_records_name_parse("tune- 8x16x32.csv", &m, &n, &k));
}
END_TEST

Suite *make_portfolio_suite(void)
{
    Suite *s = suite_create("portfolio");
    TCase *tc = tcase_create("select");
    tcase_set_tags(tc, "pure");
    tcase_add_test(tc, test_greedy);
    tcase_add_test(tc, test_ratios_not_rates);
    tcase_add_test(tc, test_edges);
    tcase_add_test(tc, test_records_name);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("read");
    tcase_add_test(tr, test_read);
    suite_add_tcase(s, tr);
    return s;
}
