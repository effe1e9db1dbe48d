/* The one test main: every layer's suite, Check's summary at the end. */
#include <stdlib.h>

#include "tests/suites.h"

int main(void)
{
    SRunner *sr = srunner_create(make_gen_suite());
    srunner_add_suite(sr, make_program_suite());
    srunner_add_suite(sr, make_context_suite());
    srunner_add_suite(sr, make_search_suite());
    srunner_add_suite(sr, make_records_suite());
    srunner_add_suite(sr, make_isolate_suite());
    srunner_add_suite(sr, make_tune_suite());
    srunner_add_suite(sr, make_pack_suite());
    srunner_add_suite(sr, make_gemm_suite());
    srunner_add_suite(sr, make_ref_suite());
    srunner_add_suite(sr, make_csv_suite());
    srunner_add_suite(sr, make_probe_suite());
    srunner_add_suite(sr, make_badinput_suite());
    srunner_add_suite(sr, make_api_suite());
    srunner_add_suite(sr, make_bench_suite());
    srunner_add_suite(sr, make_report_suite());
    srunner_add_suite(sr, make_regress_suite());
    srunner_add_suite(sr, make_fault_suite());
    srunner_add_suite(sr, make_half_suite());
    srunner_add_suite(sr, make_bound_suite());
    srunner_add_suite(sr, make_evaluator_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
