#include "tests/suites.h"

Suite *make_search_suite(void)
{
    return suite_create("search");
}
