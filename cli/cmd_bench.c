/* glgemm bench: not built yet (placeholder so the front end links). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "glgemm bench: not implemented yet\n");
    return EXIT_USAGE;
}
