#include "tests/suites.h"

Suite *make_gen_suite(void)
{
    return suite_create("gen");
}
