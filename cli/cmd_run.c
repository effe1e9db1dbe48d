/* glgemm run: not built yet (placeholder so the front end links). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "glgemm run: not implemented yet\n");
    return EXIT_USAGE;
}
