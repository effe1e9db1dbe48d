/* search/session: one tuning session's stages over a formula evaluator (no
 * GL): the search, then the presets and the best files, then the
 * finalists; a --max-time stop that ends the search only; what each
 * evaluation is asked (early stop, screening; the finalists' full reps);
 * a stop of the tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/session.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

#define CARD "test-card"
#define K 16
/* The space --fix leaves: mc 8 shapes, np 1..ksteps at k=16 (as
 * tests/check_records.c): 16+8+8+8+6+6+4+4 = 60 points. */
#define SPACE_POINTS 60
#define FIX "profile=330,compiler=glsl,unroll=0,acc=pingpong,mrt=1x1,out=rt,ku=1,tile=none"
#define MAX_LOG 256

typedef struct {
    gg_variant v;
    gg_session_ask a;
    int stage;       /* stages told before it */
} eval_entry;

typedef struct {
    gg_fix fix;
    eval_entry log[MAX_LOG];
    int n;
    int stages[8], nstages;
    int stage_at[8];        /* evaluations done when told */
    long search_asks;
    int prefetched;         /* variants named by prefetch */
    int prefetch_calls;
    double clock;           /* now(): one second an evaluation */
    int fail_at;            /* > 0: the tool fails at this evaluation */
    double best_s;          /* the fastest time of the search so far (not finals) */
    bool ask_ok;            /* every ask as the rules say */
    long screened;          /* measurements answered as screened */
} fake;

static double seconds_of(const gg_variant *v)
{
    int ks = search_ksteps(v->mc, K);
    int np = v->np == GG_NP_ALL ? ks : v->np;
    /* fastest at mc=2x2, np=all; every point a time of its own; mc=4xC
     * over twice the best (screened) */
    return 1.0 + 0.1 * abs(v->mc.rows - 2) + 0.1 * abs(v->mc.cols - 2) + 0.01 * (ks - np) +
           0.001 * v->mc.rows + (v->mc.rows == 4 ? 2.0 : 0);
}

static int eval(void *user, const gg_variant *v, const gg_session_ask *a, gg_measurement *m)
{
    fake *f = user;
    if (f->fail_at > 0 && f->n + 1 == f->fail_at) {
        snprintf(m->detail, sizeof m->detail, "no worker");
        return -1;
    }
    ck_assert_int_lt(f->n, MAX_LOG);
    f->log[f->n++] = (eval_entry){.v = *v, .a = *a, .stage = f->nstages};
    f->clock += 1;
    double s = seconds_of(v);
    bool finals = f->nstages > 0 && f->stages[f->nstages - 1] == GG_SESSION_FINALISTS;
    /* The rules: 10 reps; early stop after 3 within 3% outside the
     * finalists; screening at 2x the best time so far. */
    if (a->reps != 10)
        f->ask_ok = false;
    if (finals) {
        if (a->min_reps || a->tight != 0 || a->screen_s != 0)
            f->ask_ok = false;
    } else {
        if (a->min_reps != GG_SESSION_MIN_REPS || a->tight != GG_SESSION_TIGHT)
            f->ask_ok = false;
        double want = f->best_s > 0 ? GG_SESSION_SCREEN_FACTOR * f->best_s : 0;
        if (a->screen_s != want)
            f->ask_ok = false;
        if (f->best_s == 0 || s < f->best_s)
            f->best_s = s;
    }
    m->status = GG_OK;
    m->seconds = s;
    m->gflops = 2.0 * K * K * K / s / 1e9;
    m->passes = 1;
    m->rel_err = 1e-7;
    m->reps = 10;
    if (a->screen_s > 0 && s > a->screen_s) {
        m->screened = true;
        f->screened++;
    }
    return 0;
}

static void prefetch(void *user, const gg_variant *v, int n, const gg_session_ask *a)
{
    (void)v;
    (void)a;
    fake *f = user;
    f->prefetched += n;
    f->prefetch_calls++;
}

static void stage(void *user, gg_session_stage st, const gg_session_result *r)
{
    fake *f = user;
    ck_assert_int_lt(f->nstages, 8);
    f->stage_at[f->nstages] = f->n;
    f->stages[f->nstages++] = (int)st;
    if (st == GG_SESSION_SEARCHED)
        f->search_asks = r->search_asks;
}

static double now(void *user) { return ((fake *)user)->clock; }

static void config(gg_session_config *c, fake *f, const char *dir, gg_strategy strat)
{
    memset(c, 0, sizeof *c);
    c->tune.results_dir = dir;
    c->tune.card = CARD;
    search_config_default(&c->tune.search, K, K, K);
    c->tune.search.strategy = strat;
    char err[256];
    ck_assert_int_eq(search_fix_parse(FIX, &c->tune.search.fix, err, sizeof err), 0);
    f->fix = c->tune.search.fix;
    f->ask_ok = true;
    c->reps = 10;
    c->finalists = 3;
    c->fns = (gg_session_fns){.eval = eval, .prefetch = prefetch, .stage = stage, .now = now,
                              .user = f};
}

static int run(const gg_session_config *c, gg_session_result *r, gg_records_info *info)
{
    char err[256];
    gg_session *s = search_session_open(c, info, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    int rc = search_session_run(s, r);
    search_session_close(s);
    return rc;
}

static int count_rows(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/tune-%dx%dx%d.csv", dir, CARD, K, K, K);
    char *t = tu_read(path);
    ck_assert_ptr_nonnull(t);
    int n = tu_count_lines(t);
    free(t);
    return n - 1; /* the header */
}

START_TEST(test_stage_order)
{
    char dir[256];
    tu_mkdtemp(dir, sizeof dir, "session");
    fake *f = calloc(1, sizeof *f);
    gg_session_config c;
    config(&c, f, dir, GG_SEARCH_EXHAUSTIVE);
    static gg_session_result r;
    gg_records_info info;
    ck_assert_int_eq(run(&c, &r, &info), 0);
    /* The stages in order: the search, the presets, the finalists. */
    ck_assert_int_eq(f->nstages, 3);
    ck_assert_int_eq(f->stages[0], GG_SESSION_SEARCHED);
    ck_assert_int_eq(f->stages[1], GG_SESSION_PRESETS);
    ck_assert_int_eq(f->stages[2], GG_SESSION_FINALISTS);
    /* The search: every point of the space, each inside --fix. */
    ck_assert_int_eq(f->stage_at[0], SPACE_POINTS);
    ck_assert_int_eq(f->search_asks, SPACE_POINTS);
    ck_assert_int_eq(r.st.visited, SPACE_POINTS);
    for (int i = 0; i < SPACE_POINTS; i++)
        ck_assert(search_fix_matches(&f->fix, &f->log[i].v));
    /* The presets: outside --fix, recorded like the rest. */
    int presets = f->stage_at[1] - f->stage_at[0];
    ck_assert_int_ge(presets, 1);
    ck_assert_int_le(presets, 2);
    for (int i = f->stage_at[0]; i < f->stage_at[1]; i++)
        ck_assert(!search_fix_matches(&f->fix, &f->log[i].v));
    ck_assert_int_eq(count_rows(dir), SPACE_POINTS + presets);
    /* Then the finalists: 3 of them, 5 rounds, the full reps. */
    ck_assert_int_eq(r.nfin, 3);
    ck_assert_int_eq(f->n - f->stage_at[2], 3 * GG_SESSION_ROUNDS);
    ck_assert_int_eq(r.asks, f->n);
    for (int i = 0; i < r.nfin; i++) {
        ck_assert_int_eq(r.fin[i].status, GG_OK);
        ck_assert_int_eq(r.fin[i].rounds, GG_SESSION_ROUNDS);
    }
    /* The best is the formula's: mc=2x2, np=all (the whole k in one pass). */
    ck_assert(r.have_best);
    ck_assert_int_eq(r.fin[0].v.mc.rows, 2);
    ck_assert_int_eq(r.fin[0].v.mc.cols, 2);
    ck_assert_double_eq_tol(r.best_gflops, 2.0 * K * K * K / seconds_of(&r.fin[0].v) / 1e9, 1e-9);
    /* Queued ahead: the presets the records lacked, then the finalists'
     * rounds. */
    ck_assert_int_eq(f->prefetch_calls, 2);
    ck_assert_int_eq(f->prefetched, presets + 3 * GG_SESSION_ROUNDS);
    ck_assert(f->ask_ok);
    ck_assert(!r.out_of_time);
    /* A second session resumes: the search and presets measure nothing. */
    fake *g = calloc(1, sizeof *g);
    config(&c, g, dir, GG_SEARCH_EXHAUSTIVE);
    ck_assert_int_eq(run(&c, &r, &info), 0);
    ck_assert_int_eq(info.rows, SPACE_POINTS + presets);
    ck_assert_int_eq(g->stage_at[1], 0);
    ck_assert_int_eq(g->n, 3 * GG_SESSION_ROUNDS);
    ck_assert_int_eq(r.st.from_memo, SPACE_POINTS);
    free(f);
    free(g);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_max_time)
{
    char dir[256];
    tu_mkdtemp(dir, sizeof dir, "session");
    fake *f = calloc(1, sizeof *f);
    gg_session_config c;
    config(&c, f, dir, GG_SEARCH_EXHAUSTIVE);
    c.stop_at = 10.5; /* the clock: one second an evaluation, from 0 */
    static gg_session_result r;
    gg_records_info info;
    ck_assert_int_eq(run(&c, &r, &info), 0);
    /* The search stopped at the limit: evaluations started at 0 .. 10. */
    ck_assert(r.out_of_time);
    ck_assert_int_eq(f->search_asks, 11);
    ck_assert_int_eq(r.st.visited, 11);
    ck_assert(r.st.stopped);
    /* ... and the presets and the finalists ran all the same. */
    ck_assert_int_eq(f->nstages, 3);
    int presets = f->stage_at[1] - f->stage_at[0];
    ck_assert_int_ge(presets, 1);
    ck_assert_int_eq(r.nfin, 3);
    ck_assert_int_eq(f->n - f->stage_at[2], 3 * GG_SESSION_ROUNDS);
    ck_assert_int_eq(count_rows(dir), 11 + presets);
    ck_assert(r.have_best);
    /* The next session resumes the search from the records. */
    fake *g = calloc(1, sizeof *g);
    config(&c, g, dir, GG_SEARCH_EXHAUSTIVE);
    ck_assert_int_eq(run(&c, &r, &info), 0);
    ck_assert(!r.out_of_time);
    ck_assert_int_eq(g->search_asks, SPACE_POINTS - 11);
    ck_assert_int_eq(count_rows(dir), SPACE_POINTS + presets);
    free(f);
    free(g);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_early_stop_and_screening)
{
    char dir[256];
    tu_mkdtemp(dir, sizeof dir, "session");
    fake *f = calloc(1, sizeof *f);
    gg_session_config c;
    config(&c, f, dir, GG_SEARCH_EXHAUSTIVE);
    static gg_session_result r;
    gg_records_info info;
    ck_assert_int_eq(run(&c, &r, &info), 0);
    /* Every ask as the rules say (checked in eval): early stop and
     * screening at 2x the best time so far, none for the finalists. */
    ck_assert(f->ask_ok);
    ck_assert_double_eq(f->log[0].a.screen_s, 0);       /* no best yet */
    ck_assert_double_gt(f->log[1].a.screen_s, 0);
    ck_assert_double_eq(f->log[f->n - 1].a.screen_s, 0); /* a finalist */
    ck_assert_int_eq(f->log[f->n - 1].a.min_reps, 0);
    /* The screened answers are counted (search and presets). */
    ck_assert_int_gt(f->screened, 0);
    ck_assert_int_eq(r.screened, f->screened);
    /* Few reps: no early stop. */
    fake *g = calloc(1, sizeof *g);
    config(&c, g, dir, GG_SEARCH_EXHAUSTIVE);
    c.reps = 3;
    gg_session *s;
    char err[256];
    ck_assert_ptr_nonnull(s = search_session_open(&c, &info, err, sizeof err));
    gg_session_ask a;
    search_session_ask(s, false, &a);
    ck_assert_int_eq(a.reps, 3);
    ck_assert_int_eq(a.min_reps, 0);
    /* the records' best: mc=2x2, np=all */
    ck_assert_double_eq_tol(a.screen_s, GG_SESSION_SCREEN_FACTOR * 1.002, 1e-12);
    search_session_ask(s, true, &a);
    ck_assert_double_eq(a.screen_s, 0);
    search_session_close(s);
    free(f);
    free(g);
    tu_rm_rf(dir);
}
END_TEST

START_TEST(test_tool_stop)
{
    char dir[256];
    tu_mkdtemp(dir, sizeof dir, "session");
    fake *f = calloc(1, sizeof *f);
    gg_session_config c;
    config(&c, f, dir, GG_SEARCH_EXHAUSTIVE);
    f->fail_at = 5;
    static gg_session_result r;
    gg_records_info info;
    ck_assert_int_eq(run(&c, &r, &info), -1);
    ck_assert_str_eq(r.err, "no evaluation worker could be made");
    ck_assert(!r.out_of_time);
    /* Told the search ended, then nothing more. */
    ck_assert_int_eq(f->nstages, 1);
    ck_assert_int_eq(f->stages[0], GG_SESSION_SEARCHED);
    ck_assert_int_eq(f->n, 4);
    ck_assert_int_eq(count_rows(dir), 4);
    free(f);
    tu_rm_rf(dir);
}
END_TEST

Suite *make_session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("stages");
    tcase_add_test(tc, test_stage_order);
    tcase_add_test(tc, test_max_time);
    tcase_add_test(tc, test_early_stop_and_screening);
    tcase_add_test(tc, test_tool_stop);
    suite_add_tcase(s, tc);
    return s;
}
