/* One make_*_suite() per module, listed once in GG_SUITES below;
 * tests/check_main.c runs them all.
 * Tags: "gl" cases need a GL context (llvmpipe is enough), "glfw" an X
 * display, "slow" take more than a few seconds, "pure" change nothing
 * outside the case (no environment, folder or file), so they may run
 * without a fork each (CK_FORK=no).  Select with Check's CK_INCLUDE_TAGS /
 * CK_EXCLUDE_TAGS, e.g. CK_EXCLUDE_TAGS=slow. */
#ifndef GLGEMM_TEST_SUITES_H
#define GLGEMM_TEST_SUITES_H

#include <check.h>

/* The one list of suites, in the order check_main.c runs them: each X(name)
 * is a make_<name>_suite() (tests/check_<name>.c).  A new suite is one line
 * here; `make sanitize-ci` runs whatever the binary holds. */
#define GG_SUITES(X) \
    X(gen) \
    X(program) \
    X(context) \
    X(search) \
    X(records) \
    X(isolate) \
    X(tune) \
    X(session) \
    X(pack) \
    X(gemm) \
    X(ref) \
    X(csv) \
    X(probe) \
    X(badinput) \
    X(api) \
    X(bench) \
    X(report) \
    X(regress) \
    X(fault) \
    X(half) \
    X(f16x8) \
    X(wide) \
    X(dgemm) \
    X(bound) \
    X(evaluator) \
    X(progcache) \
    X(image) \
    X(ssbo) \
    X(lib) \
    X(split) \
    X(concurrency) \
    X(draw) \
    X(checksum) \
    X(browser) \
    X(portfolio) \
    X(devices)

#define GG_DECLARE_SUITE(name) Suite *make_##name##_suite(void);
GG_SUITES(GG_DECLARE_SUITE)
#undef GG_DECLARE_SUITE

#endif
