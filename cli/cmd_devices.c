/* glgemm devices: the EGL devices, one a line, with the index --device takes.
 * Hardware devices come first (device 0 is a GPU where EGL lists one); each
 * line names the renderer of a context made on it, or why none could be. */
#include <stdio.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: glgemm devices\n"
    "\n"
    "Lists the EGL devices, one a line: the index that --device takes, the\n"
    "GL renderer of a context made on it, its DRM node or `software`, and the\n"
    "EGL vendor.  The GLFW backend ignores --device.\n"
    "exit status: 0 ok, 2 bad usage, 3 EGL cannot enumerate devices\n";

static int handle(void *self, int id, const char *value)
{
    (void)id;
    (void)value;
    return cli_error(self, "internal: unhandled option");
}

#define MAX_LISTED 32

int cmd_devices(int argc, char **argv)
{
    static const cli_opt own[] = {{NULL, 0, 0}};
    cli_common c = {.cmd = "devices"};
    int rc = cli_parse(argc, argv, &c, own, handle, &c, false, usage);
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    if (c.npositional > 0)
        return cli_error(&c, "takes no arguments, got '%s'", c.positional[0]);
    if (c.backend != GG_BACKEND_EGL)
        return cli_error(&c, "lists EGL devices only; --backend %s has none", host_backend_name(c.backend));

    static char lines[MAX_LISTED][256];
    char err[512];
    int n = host_egl_devices(lines, MAX_LISTED, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "glgemm devices: %s\n", err);
        return EXIT_NOCTX;
    }
    if (n == 0) {
        fprintf(stderr, "glgemm devices: EGL lists no devices\n");
        return EXIT_NOCTX;
    }
    for (int i = 0; i < n; i++) {
        gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, i, GG_CTX_CORE, err, sizeof err, NULL);
        if (ctx) {
            gg_ctx_info in;
            host_ctx_query(ctx, &in);
            host_ctx_destroy(ctx);
            printf("%d: %s (%s)\n", i, in.renderer, lines[i]);
        } else {
            printf("%d: no context (%s) (%s)\n", i, err, lines[i]);
        }
    }
    return 0;
}
