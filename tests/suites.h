/* One make_*_suite() per module; tests/check_main.c runs them all.
 * Tags: "gl" cases need a GL context (llvmpipe is enough), "glfw" an X
 * display, "slow" take more than a few seconds.  Select with Check's
 * CK_INCLUDE_TAGS / CK_EXCLUDE_TAGS, e.g. CK_EXCLUDE_TAGS=slow. */
#ifndef GLGEMM_TEST_SUITES_H
#define GLGEMM_TEST_SUITES_H

#include <check.h>

Suite *make_gen_suite(void);
Suite *make_program_suite(void);
Suite *make_context_suite(void);
Suite *make_search_suite(void);
Suite *make_records_suite(void);
Suite *make_isolate_suite(void);
Suite *make_tune_suite(void);
Suite *make_pack_suite(void);
Suite *make_gemm_suite(void);
Suite *make_ref_suite(void);
Suite *make_csv_suite(void);
Suite *make_probe_suite(void);
Suite *make_badinput_suite(void);
Suite *make_api_suite(void);
Suite *make_bench_suite(void);
Suite *make_report_suite(void);
Suite *make_regress_suite(void);
Suite *make_fault_suite(void);
Suite *make_half_suite(void);
Suite *make_bound_suite(void);
Suite *make_evaluator_suite(void);
Suite *make_progcache_suite(void);
Suite *make_image_suite(void);
Suite *make_lib_suite(void);

#endif
