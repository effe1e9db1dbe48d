/* `glgemm probe --backend browser`: glhost/probe's driver (host_probe_drive:
 * the same points, planning, timing rule and checks as native) over a
 * backend that sends each kernel's GLSL ES 3.00 (glhost/probe_src.h) to
 * the page (web/worker/page.mjs, op probe: open, time, texels, close) and
 * judges the texels it returns here, with the same CPU model.
 *
 * The page's WebGL2: no imageLoad / imageStore and no buffer textures
 * (those points are not measured, as on a native context without them);
 * draw buffers and texture size are the page's, the texture size capped at
 * PAGE_MAX_TEX (the hostile fetch point's texture is filled in the page's
 * JavaScript heap: 2048^2 RGBA32F is 64 MiB there, 4096^2 would be 256). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/browser.h"

#define PAGE_MAX_TEX 2048
#define MAX_AT 64

typedef struct {
    gg_browser *b;
} page_probe;

/* The answer's status; detail from the answer (or why the browser went). */
static gg_status answer_status(const char *ans, const char *why, char *detail, size_t len)
{
    if (!ans) {
        snprintf(detail, len, "%s", why);
        return GG_PAGE_CRASH;
    }
    char st[32];
    eval_browser_json_str(ans, "status", st, sizeof st);
    eval_browser_json_str(ans, "detail", detail, len);
    int s = base_status_parse(st);
    if (s < 0) {
        snprintf(detail, len, "the page answered status '%.40s'", st);
        return GG_GL_ERROR;
    }
    return (gg_status)s;
}

/* A request without bytes back. */
static gg_status call(page_probe *pp, const char *line, char **ans_out, char *detail, size_t len)
{
    char why[256] = "";
    char *ans = eval_browser_call(pp->b, line, NULL, 0, NULL, why, sizeof why);
    gg_status st = answer_status(ans, why, detail, len);
    if (ans_out)
        *ans_out = ans;
    else
        free(ans);
    return st;
}

static gg_status p_open(void *self, const host_probe_kernel *k, char *detail, size_t len)
{
    page_probe *pp = self;
    static char fs[HOST_PROBE_SRC_MAX], esc[2 * HOST_PROBE_SRC_MAX], vesc[1024];
    static char line[2 * HOST_PROBE_SRC_MAX + 2048];
    const char *vs = NULL;
    gg_status st = host_probe_kernel_source(k, true, fs, sizeof fs, &vs, detail, len);
    if (st != GG_OK)
        return st;
    eval_browser_json_escape(fs, esc, sizeof esc);
    eval_browser_json_escape(vs, vesc, sizeof vesc);
    char tex[96] = "null", uni[256] = "";
    if (k->kind == PK_FETCH)
        snprintf(tex, sizeof tex, "{\"w\":%d,\"h\":%d,\"fmt\":\"%s\"}", 1 << k->tex_log2w,
                 1 << k->tex_log2h, base_fetch_fmt_names[k->fmt]);
    if (k->kind == PK_MAD)
        snprintf(uni, sizeof uni, ",\"mul\":[%.9g,%.9g,%.9g,%.9g],\"add\":[%.9g,%.9g,%.9g,%.9g]",
                 (double)PK_MUL_X, (double)PK_MUL_Y, (double)PK_MUL_Z, (double)PK_MUL_W,
                 (double)PK_ADD_X, (double)PK_ADD_Y, (double)PK_ADD_Z, (double)PK_ADD_W);
    snprintf(line, sizeof line,
             "{\"op\":\"probe\",\"act\":\"open\",\"fs\":\"%s\",\"vs\":\"%s\",\"w\":%d,\"h\":%d,"
             "\"targets\":%d,\"tex\":%s%s}",
             esc, vesc, k->w, k->h, k->targets, tex, uni);
    return call(pp, line, NULL, detail, len);
}

static gg_status p_time(void *self, bool read, int iters, int count, int warmups, int reps,
                        double *seconds, char *detail, size_t len)
{
    page_probe *pp = self;
    char line[256], *ans = NULL;
    snprintf(line, sizeof line,
             "{\"op\":\"probe\",\"act\":\"time\",\"read\":%s,\"iters\":%d,\"count\":%d,"
             "\"warmups\":%d,\"reps\":%d}",
             read ? "true" : "false", iters, count, warmups, reps);
    gg_status st = call(pp, line, &ans, detail, len);
    if (st == GG_OK && eval_browser_json_nums(ans, "seconds", seconds, reps) != reps) {
        snprintf(detail, len, "the page timed fewer than %d repetitions", reps);
        st = GG_GL_ERROR;
    }
    free(ans);
    return st;
}

static gg_status p_texels(void *self, bool read, int n, const int (*at)[3], float (*out)[4],
                          char *detail, size_t len)
{
    page_probe *pp = self;
    if (n > MAX_AT) {
        snprintf(detail, len, "probe: more than %d texels asked", MAX_AT);
        return GG_INVALID;
    }
    char line[128 + MAX_AT * 40];
    int o = snprintf(line, sizeof line, "{\"op\":\"probe\",\"act\":\"texels\",\"read\":%s,\"at\":[",
                     read ? "true" : "false");
    for (int i = 0; i < n; i++)
        o += snprintf(line + o, sizeof line - (size_t)o, "%s[%d,%d,%d]", i ? "," : "", at[i][0],
                      at[i][1], at[i][2]);
    snprintf(line + o, sizeof line - (size_t)o, "]}");
    char why[256] = "";
    size_t got = 0;
    char *ans = eval_browser_call(pp->b, line, out, (size_t)n * sizeof *out, &got, why, sizeof why);
    gg_status st = answer_status(ans, why, detail, len);
    free(ans);
    if ((st == GG_OK || st == GG_GL_ERROR) && got != (size_t)n * sizeof *out) {
        snprintf(detail, len, "the page sent %zu bytes of texels, not %zu", got,
                 (size_t)n * sizeof *out);
        return GG_GL_ERROR;
    }
    return st;
}

static void p_close(void *self)
{
    page_probe *pp = self;
    char detail[256];
    if (eval_browser_alive(pp->b))
        call(pp, "{\"op\":\"probe\",\"act\":\"close\"}", NULL, detail, sizeof detail);
}

gg_status eval_browser_probe(gg_browser *b, const gg_probe_opts *o, gg_probe_result *r)
{
    page_probe pp = {b};
    const gg_ctx_info *info = eval_browser_info(b);
    host_probe_backend be = {.self = &pp, .open = p_open, .time = p_time, .texels = p_texels,
                             .close = p_close};
    be.lim.max_targets = info->max_draw_buffers;
    be.lim.max_tex = info->max_texture_size < PAGE_MAX_TEX ? info->max_texture_size : PAGE_MAX_TEX;
    be.lim.no_images = "WebGL2 has no image load/store";
    be.lim.no_buffers = "WebGL2 has no buffer textures";
    be.lim.no_ssbos = "WebGL2 has no storage buffers";
    be.lim.no_fp64 = "WebGL2 has no double"; /* be.lim.fp64 false: no mad64 rows */
    return host_probe_drive(&be, o, r);
}
