/* glgemm tune: not built yet (placeholder so the front end links). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_tune(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "glgemm tune: not implemented yet\n");
    return EXIT_USAGE;
}
