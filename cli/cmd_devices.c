/* glgemm devices: not built yet (placeholder so the front end links). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_devices(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "glgemm devices: not implemented yet\n");
    return EXIT_USAGE;
}
