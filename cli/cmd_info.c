/* glgemm info: not built yet (placeholder so the front end links). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_info(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "glgemm info: not implemented yet\n");
    return EXIT_USAGE;
}
