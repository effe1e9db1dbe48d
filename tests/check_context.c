#include "tests/suites.h"

Suite *make_context_suite(void)
{
    return suite_create("context");
}
