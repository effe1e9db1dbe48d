/* glgemm info: the GL context, its limits and features, and the card's slug.
 * The context of --kind (default core, the 330 profile's) is described in
 * full; a "contexts:" section then says which of the three kinds this backend
 * and device can make, so a user sees which profiles can run. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "eval/browser.h"
#include "eval/gpu.h"

enum { OPT_KIND = 1 };

static const char usage[] =
    "usage: glgemm info [--backend egl|glfw|browser] [--device N] [--kind compat|core|es3]\n"
    "                   [--browser PATH] [--headful] [--angle default|vulkan|gl-egl|swiftshader]\n"
    "\n"
    "Makes a GL context and prints the backend, the device, GL vendor, renderer,\n"
    "version and GLSL version, the limits that bound the search (max draw\n"
    "buffers, max texture size), the optional features (float render targets,\n"
    "float blending, texture barrier, timer queries, SPIR-V, robustness, and on\n"
    "desktop GL the shading language packing store=f16x8 needs at profile 330),\n"
    "which context kinds can be made, and last `slug: <card>`, the folder under\n"
    "results/ for this card.\n"
    "\n"
    "  --backend egl|glfw|browser  egl (default): no display needed; glfw: hidden window,\n"
    "                      needs X; browser: WebGL2 in headless Chromium through a Node\n"
    "                      worker (the es3 kind only; slug chromium-<gpu>, e.g.\n"
    "                      chromium-swiftshader)\n"
    "  --browser PATH      with --backend browser: the Chromium or Chrome to run\n"
    "                      (default /usr/bin/chromium)\n"
    "  --headful           with --backend browser: show the browser\n"
    "  --angle A           with --backend browser: the ANGLE backend Chromium renders\n"
    "                      WebGL2 with: default (Chromium's choice), vulkan, gl-egl,\n"
    "                      swiftshader; each is a card of its own (the slug names the\n"
    "                      GPU and the backend); a page on another backend is exit 3\n"
    "  --device N          EGL device index (see glgemm devices), default 0\n"
    "  --kind K            context described in full: compat (GLSL 1.20), core\n"
    "                      (default, GLSL 3.30), es3 (GLSL ES 3.00)\n"
    "exit status: 0 ok, 2 bad usage or no such device, 3 no GL context\n";

static int kind_parse(const char *s)
{
    static const gg_ctx_kind kinds[] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(s, host_ctx_kind_name(kinds[i])))
            return (int)kinds[i];
    return -1;
}

typedef struct {
    cli_common *common;
    gg_ctx_kind kind;
} info_opts;

static int handle(void *self, int id, const char *value)
{
    info_opts *o = self;
    if (id == OPT_KIND) {
        int k = kind_parse(value);
        if (k < 0)
            return cli_error(o->common, "--kind must be compat, core or es3, got '%s'", value);
        o->kind = (gg_ctx_kind)k;
        return 0;
    }
    return cli_error(o->common, "internal: unhandled option");
}

static const char *yn(bool b) { return b ? "yes" : "no"; }

int cmd_info(int argc, char **argv)
{
    static const cli_opt own[] = {{"kind", 1, OPT_KIND}, {NULL, 0, 0}};
    cli_common c = {.cmd = "info"};
    info_opts o = {&c, GG_CTX_CORE};
    int rc = cli_parse(argc, argv, &c, own, handle, &o, false, usage);
    if (rc < 0)
        return 0;
    if (rc)
        return rc;
    if (c.npositional > 0)
        return cli_error(&c, "takes no arguments, got '%s'", c.positional[0]);

    char err[512];
    bool no_device = false;
    bool browser = c.backend == GG_BACKEND_BROWSER;
    gg_ctx_info in;
    /* The browser's page, from an evaluation worker (eval/browser.h): the
     * ES3 kind only. */
    static gg_ctx_info binfo[3];
    bool bok[3] = {false};
    if (browser) {
        if (eval_gpu_info_all(c.backend, c.device, binfo, bok, err, sizeof err, &no_device)) {
            fprintf(stderr, "glgemm info: %s\n", err);
            return EXIT_NOCTX;
        }
        o.kind = GG_CTX_ES3;
        in = binfo[GG_CTX_ES3];
    } else {
        gg_ctx *ctx = host_ctx_create(c.backend, c.device, o.kind, err, sizeof err, &no_device);
        if (!ctx) {
            fprintf(stderr, "glgemm info: %s\n", err);
            return no_device ? EXIT_USAGE : EXIT_NOCTX;
        }
        host_ctx_query(ctx, &in);
        host_ctx_destroy(ctx);
    }

    char slug[GG_CARD_MAX];
    base_slug(in.renderer, slug, sizeof slug);
    printf("backend: %s\n", in.backend);
    printf("device: %s\n", in.device);
    printf("context: %s\n", in.kind);
    printf("vendor: %s\n", in.vendor);
    printf("renderer: %s\n", in.renderer);
    printf("version: %s\n", in.version);
    printf("glsl version: %s\n", in.glsl);
    printf("max draw buffers: %d\n", in.max_draw_buffers);
    printf("max texture size: %d\n", in.max_texture_size);
    printf("max fragment image units: %d (out=image, fetch=image; GL 4.2 / ES 3.1)\n",
           in.max_fragment_images);
    printf("max buffer texture texels: %ld (fetch=buffer)\n", in.max_texture_buffer);
    printf("max fragment storage blocks: %d, of %ld bytes at most (fetch=ssbo, texelfetch+ssbo, "
           "ssbo+texelfetch; GL 4.3 / ES 3.1)\n", in.max_fragment_ssbos, in.max_ssbo_bytes);
    printf("float render targets: %s\n", yn(in.float_render));
    printf("float blending: %s\n", yn(in.float_blend));
    printf("texture barrier: %s\n", yn(in.texture_barrier));
    printf("timer queries: %s\n", yn(in.timer_query));
    printf("spir-v: %s\n", yn(in.spirv));
    printf("robustness: %s\n", yn(in.robustness));
    if (!in.es) /* ES 3.00 has unpackHalf2x16 core */
        printf("shading language packing: %s (store=f16x8 at profile 330)\n", yn(in.packing));
    printf("contexts:\n");
    static const gg_ctx_kind kinds[] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const char *name = host_ctx_kind_name(kinds[i]);
        if (kinds[i] == o.kind) {
            printf("  %-6s ok  %s\n", name, in.version);
            continue;
        }
        if (browser) {
            printf("  %-6s no  %s\n", name, EVAL_BROWSER_ES_ONLY);
            continue;
        }
        gg_ctx *k = host_ctx_create(c.backend, c.device, kinds[i], err, sizeof err, NULL);
        if (!k) {
            printf("  %-6s no  %s\n", name, err);
            continue;
        }
        gg_ctx_info ki;
        host_ctx_query(k, &ki);
        host_ctx_destroy(k);
        printf("  %-6s ok  %s\n", name, ki.version);
    }
    printf("slug: %s\n", slug);
    return 0;
}
