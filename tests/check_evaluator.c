/* search/evaluator: one worker serves many evaluations; what it keeps
 * (programs, inputs) gives the same verified answers; a worker that hangs,
 * crashes or loses its context is replaced and the failure is a status;
 * screening and early-stopping reps; a search over the evaluator goes on
 * past every fault.  On llvmpipe (tag gl). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "eval/evaluator.h"
#include "search/search.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

typedef struct {
    gemm_run r;   /* the problem, its inputs and reference (tests/gemm_util.h) */
    gg_evaluator *ev;
} fixture;

/* An odd problem (m, n, k no multiple of any packing), beta 0.5 so C0 is
 * read, transposed B: the evaluator's answers are checked by its own
 * verification against the fp64 reference, and here against a naive loop. */
static void open_fixture(fixture *f, double timeout, double compile_timeout, bool want_c)
{
    static const gemm_case gc = {"mrt=1x1", 37, 29, 41, 0, 1, 1.0f, 0.5f};
    memset(f, 0, sizeof *f);
    setup_case(&f->r, &gc, 1);
    f->r.p.reps = 4;
    gg_evaluator_config c = {.backend = GG_BACKEND_EGL, .prob = &f->r.p, .in = &f->r.in,
                             .ref = &f->r.ref, .timeout_s = timeout,
                             .compile_timeout_s = compile_timeout, .want_c = want_c};
    char err[512];
    f->ev = eval_evaluator_new(&c, err, sizeof err);
    ck_assert_msg(f->ev != NULL, "%s", err);
}

static void close_fixture(fixture *f)
{
    eval_evaluator_free(f->ev);
    free_case(&f->r);
}

static gg_variant variant(const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s", err);
    return v;
}

static gg_measurement eval(fixture *f, const char *text, const gg_eval_opts *o)
{
    gg_variant v = variant(text);
    gg_measurement m;
    ck_assert_int_eq(eval_evaluator_eval(f->ev, &v, o, &m), 0);
    return m;
}

START_TEST(test_one_worker_many_variants)
{
    fixture f;
    open_fixture(&f, 60, 60, true);
    gg_device_info d;
    char err[256];
    ck_assert_msg(eval_evaluator_device(f.ev, &d, err, sizeof err) == 0, "%s", err);
    ck_assert(d.ok[GG_CTX_CORE]);
    ck_assert_int_gt(d.info[GG_CTX_CORE].max_draw_buffers, 0);
    static const char *const vs[] = {
        "mrt=2x4,mc=4x1,np=3,acc=blend",  "mrt=1x1,mc=2x2,np=2,profile=300es",
        "mrt=2x2,mc=1x4,np=all,acc=copy", "mrt=1x2,mc=1x1,np=5,profile=120,unroll=1",
        "mrt=2x4,mc=4x1,np=3,acc=blend", /* again: its program is kept */
    };
    for (int i = 0; i < 5; i++) {
        gg_measurement m = eval(&f, vs[i], NULL);
        ck_assert_msg(m.status == GG_OK, "%s: %s %s", vs[i], base_status_name(m.status), m.detail);
        ck_assert_int_eq(m.reps, 4);
        ck_assert(m.gflops > 0 && m.rel_err >= 0);
        const float *c = eval_evaluator_c(f.ev);
        ck_assert_ptr_nonnull(c);
        memcpy(f.r.c, c, (size_t)f.r.in.m * f.r.in.n * sizeof *c);
        f.r.v = variant(vs[i]);
        check_against_naive(&f.r, vs[i]);
        if (i == 4)
            ck_assert_msg(m.program_cached, "the repeated variant was compiled again");
    }
    const gg_evaluator_stats *st = eval_evaluator_get_stats(f.ev);
    ck_assert_int_eq(st->workers, 1);
    ck_assert_int_eq(st->evaluations, 5); /* (the stats are a pointer: read here) */
    ck_assert_int_ge(st->programs_cached, 1);
    /* A variant the card cannot run ends before any build: a status, the
     * same worker. */
    gg_measurement inv = eval(&f, "compiler=spirv,profile=120", NULL);
    ck_assert_msg(inv.status == GG_INVALID, "%s %s", base_status_name(inv.status), inv.detail);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, 1);
    /* A store the caller gave no reference for: the worker makes it. */
    gg_measurement h = eval(&f, "mrt=2x2,mc=2x2,store=f16", NULL);
    ck_assert_msg(h.status == GG_OK, "%s", h.detail);
    close_fixture(&f);
}
END_TEST

/* The feed keys in one worker: order=frag packs A and B in another texel
 * order with the same texture sizes, so the worker's cached inputs must not
 * be reused across the orders (they were: the plain point after the frag
 * one came out wrong_result); ku and tile on the same geometry. */
START_TEST(test_feed_keys_one_worker)
{
    fixture f;
    open_fixture(&f, 60, 60, true);
    static const char *const vs[] = {
        "mc=4x1,out=image,blk=8x8,fetch=image,order=frag",
        "mc=4x1,out=image,blk=8x8,fetch=image,ku=2",
        "mc=4x1,out=image,blk=8x8,fetch=image,ku=4,order=frag,tile=8x8z",
        "mc=4x1,out=image,blk=8x8,fetch=image,tile=16x4c",
        "mc=1x4,out=image,blk=4x8,fetch=texelfetch,order=frag,ku=2",
        "mc=1x4,out=image,blk=4x8,fetch=texelfetch",
        "mrt=2x2,mc=2x2,np=3,ku=2,tile=8x8",
    };
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        gg_measurement m = eval(&f, vs[i], NULL);
        ck_assert_msg(m.status == GG_OK, "%s: %s %s", vs[i], base_status_name(m.status), m.detail);
        memcpy(f.r.c, eval_evaluator_c(f.ev), (size_t)f.r.in.m * f.r.in.n * sizeof *f.r.c);
        f.r.v = variant(vs[i]);
        check_against_naive(&f.r, vs[i]);
    }
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, 1);
    close_fixture(&f);
}
END_TEST

/* GLGEMM_FAULT on the 2nd evaluation: that one is the status, the worker is
 * replaced (or kept, for a variant's own failure), the 3rd is ok. */
static const struct {
    const char *fault;
    gg_status status;
    const char *detail;
    int workers;
} faults[] = {
    {"hang:2", GG_TIMEOUT, "killed (SIGKILL)", 2},
    {"crash:2", GG_CONTEXT_LOST, "signal 11", 2},
    {"lose_context:2", GG_CONTEXT_LOST, "reset", 2},
    {"compile_hang:2", GG_COMPILE_TIMEOUT, "no program built", 2},
    {"gl_error:2", GG_GL_ERROR, "GL_INVALID_ENUM", 1},
    {"wrong_result:2", GG_WRONG_RESULT, "beyond the bound", 1},
};

START_TEST(test_fault_replaced)
{
    setenv("GLGEMM_FAULT", faults[_i].fault, 1);
    base_fault_set_eval(0);
    fixture f;
    open_fixture(&f, 3, 3, false);
    const char *v[3] = {"mrt=1x2,mc=2x2", "mrt=2x2,mc=1x4,np=2", "mrt=2x1,mc=4x1"};
    for (int i = 0; i < 3; i++) {
        gg_measurement m = eval(&f, v[i], NULL);
        if (i == 1) {
            ck_assert_msg(m.status == faults[_i].status, "%s: %s (%s)", faults[_i].fault,
                          base_status_name(m.status), m.detail);
            ck_assert_msg(strstr(m.detail, faults[_i].detail), "%s: detail %s", faults[_i].fault,
                          m.detail);
            ck_assert_double_eq(m.gflops, 0);
        } else {
            ck_assert_msg(m.status == GG_OK, "%s, evaluation %d: %s %s", faults[_i].fault, i + 1,
                          base_status_name(m.status), m.detail);
        }
    }
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, faults[_i].workers);
    close_fixture(&f);
    unsetenv("GLGEMM_FAULT");
}
END_TEST

/* After an unrolled build runs past the compile deadline, a larger one of
 * the same compiler and profile is not built; a smaller one is. */
START_TEST(test_too_big_not_built)
{
    setenv("GLGEMM_FAULT", "compile_hang:1", 1);
    base_fault_set_eval(0);
    fixture f;
    open_fixture(&f, 5, 2, false);
    gg_measurement m = eval(&f, "mrt=2x2,mc=2x2,np=4,unroll=1", NULL);
    ck_assert_int_eq(m.status, GG_COMPILE_TIMEOUT);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, 1);
    m = eval(&f, "mrt=2x2,mc=2x2,np=8,unroll=1", NULL);
    ck_assert_int_eq(m.status, GG_COMPILE_TIMEOUT);
    ck_assert_msg(strstr(m.detail, "not built"), "%s", m.detail);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, 1); /* nothing was started */
    m = eval(&f, "mrt=2x2,mc=2x2,np=8,unroll=1,profile=300es", NULL); /* another profile */
    ck_assert_msg(m.status == GG_OK, "%s", m.detail);
    m = eval(&f, "mrt=2x2,mc=2x2,np=2,unroll=1", NULL); /* smaller */
    ck_assert_msg(m.status == GG_OK, "%s", m.detail);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->predicted, 1);
    close_fixture(&f);
    unsetenv("GLGEMM_FAULT");
}
END_TEST

START_TEST(test_screening_and_early_stop)
{
    fixture f;
    open_fixture(&f, 60, 60, false);
    /* A screening bound no run can meet: two timed reps (one slow rep is
     * not enough to drop a variant), still verified. */
    gg_eval_opts o = {.reps = 8, .screen_s = 1e-9};
    gg_measurement m = eval(&f, "mrt=2x2,mc=2x2", &o);
    ck_assert_msg(m.status == GG_OK, "%s", m.detail);
    ck_assert(m.screened);
    ck_assert_int_eq(m.reps, 2);
    ck_assert(m.rel_err >= 0);
    /* A tolerance every spread meets: min_reps, no more. */
    gg_eval_opts o2 = {.reps = 8, .min_reps = 3, .tight = 1e9};
    m = eval(&f, "mrt=2x2,mc=2x2", &o2);
    ck_assert(!m.screened);
    ck_assert_int_eq(m.reps, 3);
    /* One no spread meets: all of them. */
    gg_eval_opts o3 = {.reps = 6, .min_reps = 3, .tight = -1};
    m = eval(&f, "mrt=2x2,mc=2x2", &o3);
    ck_assert_int_eq(m.reps, 6);
    ck_assert(m.spread >= 0);
    close_fixture(&f);
}
END_TEST

/* A search over the evaluator with a hung evaluation in the middle: it goes
 * on, the statuses are right, the best is one that ran. */
static int search_eval(void *user, const gg_variant *v, gg_measurement *out)
{
    return eval_evaluator_eval(user, v, NULL, out);
}

static void search_hint(void *user, const gg_variant *next, int n)
{
    eval_evaluator_hint(user, next, n);
}

/* An exhaustive search over the np values of one fixed point with
 * GLGEMM_FAULT=crash:3 (the warm worker too when warm): 21 visited, the
 * crash one status, the rest ok, the evaluation worker replaced once. */
static void faulted_search(fixture *f, bool warm)
{
    setenv("GLGEMM_FAULT", "crash:3", 1);
    base_fault_set_eval(0);
    open_fixture(f, 5, 5, false);
    eval_evaluator_warm(f->ev, warm);
    gg_search_config c;
    search_config_default(&c, f->r.in.m, f->r.in.n, f->r.in.k);
    c.strategy = GG_SEARCH_EXHAUSTIVE;
    char err[256];
    ck_assert_int_eq(search_fix_parse("mrt=2x1,mc=2x2,unroll=0,profile=330,compiler=glsl,acc=copy",
                                  &c.fix, err, sizeof err), 0);
    c.eval = search_eval;
    c.user = f->ev;
    c.hint = search_hint;
    c.hint_user = f->ev;
    gg_search *s = search_new(&c, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(search_run(s), 0);
    const gg_search_stats *st = search_get_stats(s);
    /* k 41 with mc 2x2: 21 k-steps, np 1..21. */
    ck_assert_int_eq(st->visited, 21);
    ck_assert_int_eq(st->by_status[GG_CONTEXT_LOST], 1);
    ck_assert_int_eq(st->by_status[GG_OK], 20);
    ck_assert(st->have_best && st->best_outcome.gflops > 0);
    ck_assert_int_eq(eval_evaluator_get_stats(f->ev)->workers, 2);
    search_free(s);
    unsetenv("GLGEMM_FAULT");
}

START_TEST(test_search_goes_on)
{
    fixture f;
    faulted_search(&f, false);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->warmed, 0);
    close_fixture(&f);
}
END_TEST

/* The process's state letter from /proc/<pid>/stat ('T': stopped), or 0. */
static char proc_state(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command's name */
    return p && p[1] == ' ' ? p[2] : 0;
}

/* The warm worker beside the search of test_search_goes_on: the same
 * statuses (the fault reaches the evaluation worker only), variants warmed,
 * not counted as evaluation workers; never left stopped; killed, it is
 * replaced and the evaluations go on. */
START_TEST(test_warm_worker)
{
    fixture f;
    faulted_search(&f, true);
    const gg_evaluator_stats *es = eval_evaluator_get_stats(f.ev);
    ck_assert_int_ge(es->warmed, 5);
    ck_assert_int_ge(es->warm_done, 3); /* built and run, answered: not merely handed over */
    ck_assert_int_eq(es->warm_lost, 0); /* crash:3 did not reach it */
    int pid = eval_evaluator_warm_pid(f.ev);
    ck_assert_int_gt(pid, 0);
    char state = proc_state(pid);
    ck_assert_msg(state && state != 'T' && state != 't', "the warm worker is in state %c", state);

    /* Killed (and dead: a zombie, not yet reaped): the next evaluations
     * are right, and a new warm worker takes the hints. */
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    for (int i = 0; i < 400 && proc_state(pid) != 'Z'; i++)
        usleep(5000);
    ck_assert_int_eq(proc_state(pid), 'Z');
    long warmed = es->warmed;
    const char *v[3] = {"mrt=1x2,mc=2x2", "mrt=2x2,mc=1x4,np=2", "mrt=2x1,mc=4x1"};
    const char *ahead[3] = {"mrt=1x1,mc=1x4,np=3", "mrt=1x1,mc=1x4,np=4", "mrt=1x1,mc=1x4,np=5"};
    for (int i = 0; i < 3; i++) {
        gg_variant h[2] = {variant(v[(i + 1) % 3]), variant(ahead[i])};
        eval_evaluator_hint(f.ev, h, 2);
        gg_measurement m = eval(&f, v[i], NULL);
        ck_assert_msg(m.status == GG_OK, "%s: %s %s", v[i], base_status_name(m.status), m.detail);
    }
    ck_assert_int_gt(es->warmed, warmed);
    ck_assert_int_eq(es->warm_lost, 1);
    int again = eval_evaluator_warm_pid(f.ev);
    ck_assert_msg(again > 0 && again != pid, "warm worker %d after %d was killed", again, pid);
    close_fixture(&f);
}
END_TEST

Suite *make_evaluator_suite(void)
{
    Suite *s = suite_create("evaluator");
    TCase *tc = tcase_create("worker");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_one_worker_many_variants);
    tcase_add_test(tc, test_feed_keys_one_worker);
    tcase_add_loop_test(tc, test_fault_replaced, 0, (int)(sizeof faults / sizeof *faults));
    tcase_add_test(tc, test_too_big_not_built);
    tcase_add_test(tc, test_screening_and_early_stop);
    tcase_add_test(tc, test_search_goes_on);
    tcase_add_test(tc, test_warm_worker);
    suite_add_tcase(s, tc);
    return s;
}
