/* Shared option parsing for every command. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/draw.h"
#include "eval/browser.h"

static const cli_opt common_opts[] = {
    {"backend", 1, OPT_BACKEND}, {"device", 1, OPT_DEVICE},
    {"help", 0, OPT_HELP},       {"version", 0, OPT_VERSION},
    {"browser", 1, OPT_BROWSER}, {"headful", 0, OPT_HEADFUL},
    {"angle", 1, OPT_ANGLE},     {NULL, 0, 0},
};

static const cli_opt problem_opts[] = {
    {"m", 1, OPT_M},         {"n", 1, OPT_N},         {"k", 1, OPT_K},
    {"size", 1, OPT_SIZE},   {"transa", 0, OPT_TRANSA}, {"transb", 0, OPT_TRANSB},
    {"alpha", 1, OPT_ALPHA}, {"beta", 1, OPT_BETA},   {"seed", 1, OPT_SEED},
    {"a", 1, OPT_A},         {"b", 1, OPT_B},         {"c", 1, OPT_C},
    {"out", 1, OPT_OUT},     {"reps", 1, OPT_REPS},
    {NULL, 0, 0},
};

/* The message stays one line whatever its arguments hold (an argument or a
 * file name with a newline in it): control characters print as '?'. */
int cli_error(const cli_common *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (msg) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    if (c && c->cmd)
        fprintf(stderr, "glgemm %s: %s\n", c->cmd, msg ? msg : fmt);
    else
        fprintf(stderr, "glgemm: %s\n", msg ? msg : fmt);
    free(msg);
    return EXIT_USAGE;
}

int cli_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_int_list(const char *s, long lo, long hi, int *out, int max)
{
    int n = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        char item[24];
        long x;
        if (len == 0 || len >= sizeof item)
            return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (cli_int(item, lo, hi, &x))
            return -1;
        if (n == max)
            return -2;
        out[n++] = (int)x;
        if (!p[len])
            return n;
        p += len + 1;
    }
}

int cli_float(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static const cli_opt *find(const cli_opt *t, const char *name, size_t len)
{
    for (; t && t->name; t++)
        if (strlen(t->name) == len && !strncmp(t->name, name, len))
            return t;
    return NULL;
}

static int size_opt(cli_common *c, const char *name, const char *v, int *dst)
{
    long x;
    if (cli_int(v, 1, 1L << 20, &x))
        return cli_error(c, "--%s must be an integer from 1 to %ld, got '%s'", name, 1L << 20, v);
    *dst = (int)x;
    c->problem_given = true;
    return 0;
}

/* --devices LIST|all|local: the syntax only (cli/devices.c resolves it). */
static int devices_parse(cli_common *c, const char *v)
{
    c->devices_set = true;
    c->devices_all = c->devices_local = false;
    c->ndevices = 0;
    if (!*v)
        return cli_error(c, "--devices needs device indices separated by commas (0,1,...), "
                            "all or local");
    if (!strcmp(v, "all") || !strcmp(v, "local")) {
        c->devices_all = v[0] == 'a';
        c->devices_local = v[0] == 'l';
        return 0;
    }
    int n = cli_int_list(v, 0, 1023, c->devices, CLI_MAX_DEVICES);
    if (n == -2)
        return cli_error(c, "--devices names more than %d devices", CLI_MAX_DEVICES);
    if (n < 0)
        return cli_error(c, "--devices must be all, local or device indices separated by "
                            "commas (0,1,...), got '%s'", v);
    c->ndevices = n;
    return 0;
}

static int common_opt(cli_common *c, int id, const char *name, const char *v)
{
    long x;
    double d;
    switch (id) {
    case OPT_BACKEND: {
        int b = host_backend_parse(v);
        if (b < 0)
            return cli_error(c, "--backend must be egl, glfw or browser, got '%s'", v);
        c->backend = (gg_backend)b;
        return 0;
    }
    case OPT_DEVICE:
        if (cli_int(v, 0, 1023, &x))
            return cli_error(c, "--device must be a device index (0, 1, ...), got '%s'", v);
        c->device = (int)x;
        c->device_set = true;
        return 0;
    case OPT_DEVICES: return devices_parse(c, v);
    case OPT_BROWSER:
        if (!*v)
            return cli_error(c, "--browser needs the path of a Chromium or Chrome");
        c->browser = v;
        return 0;
    case OPT_HEADFUL: c->headful = true; return 0;
    case OPT_ANGLE: {
        int a = eval_browser_angle_parse(v);
        if (a < 0)
            return cli_error(c, "--angle must be " EVAL_ANGLE_NAMES ", got '%s'", v);
        c->angle = a;
        c->angle_set = true;
        return 0;
    }
    case OPT_M: return size_opt(c, name, v, &c->prob.m);
    case OPT_N: return size_opt(c, name, v, &c->prob.n);
    case OPT_K: return size_opt(c, name, v, &c->prob.k);
    case OPT_SIZE:
        if (size_opt(c, name, v, &c->prob.m))
            return EXIT_USAGE;
        c->prob.n = c->prob.k = c->prob.m;
        return 0;
    case OPT_TRANSA: c->prob.transa = true; return 0;
    case OPT_TRANSB: c->prob.transb = true; return 0;
    case OPT_ALPHA:
    case OPT_BETA:
        if (cli_float(v, &d) || fabs(d) > 3.4e38)
            return cli_error(c, "--%s must be a finite number, got '%s'", name, v);
        *(id == OPT_ALPHA ? &c->prob.alpha : &c->prob.beta) = (float)d;
        return 0;
    case OPT_SEED:
        if (cli_int(v, 0, UINT_MAX > LONG_MAX ? LONG_MAX : (long)UINT_MAX, &x))
            return cli_error(c, "--seed must be a non-negative integer, got '%s'", v);
        c->prob.seed = (unsigned)x;
        return 0;
    case OPT_REPS:
        if (cli_int(v, 1, 100000, &x))
            return cli_error(c, "--reps must be an integer from 1 to 100000, got '%s'", v);
        c->prob.reps = (int)x;
        return 0;
    case OPT_A: c->prob.a_path = v; c->problem_given = true; return 0;
    case OPT_B: c->prob.b_path = v; c->problem_given = true; return 0;
    case OPT_C: c->prob.c_path = v; return 0;
    case OPT_OUT: c->prob.out_path = v; return 0;
    case OPT_MAX_DRAW:
        if (store_draw_parse(v, &c->max_draw_ms))
            return cli_error(c, "--max-draw-ms must be a number of milliseconds from 0 (no bound) "
                                "to %.0f, got '%s'", GG_MAX_DRAW_MS_MAX, v);
        c->max_draw_set = true;
        return 0;
    }
    return cli_error(c, "internal: unhandled option --%s", name);
}

int cli_parse(int argc, char **argv, cli_common *c, const cli_opt *own,
              cli_handler handler, void *self, bool with_problem, const char *usage)
{
    const char *cmd = c->cmd ? c->cmd : argv[0];
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->backend = GG_BACKEND_EGL;
    base_problem_default(&c->prob);
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (c->npositional >= (int)(sizeof c->positional / sizeof *c->positional))
                return cli_error(c, "too many arguments ('%s')", arg);
            c->positional[c->npositional++] = arg;
            continue;
        }
        if (!strcmp(arg, "--")) {
            options_done = true;
            continue;
        }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const cli_opt *o = find(own, name, len);
        bool is_own = o != NULL;
        if (!o)
            o = find(common_opts, name, len);
        if (!o && with_problem)
            o = find(problem_opts, name, len);
        if (!o && len == 1 && name[0] == 'h')
            o = &common_opts[2];
        if (!o)
            return cli_error(c, "unknown option '%s' (try glgemm %s --help)", arg, cmd);
        const char *value = NULL;
        if (o->has_arg) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return cli_error(c, "option %.*s%s needs a value", (int)(name - arg), arg, o->name);
        } else if (eq) {
            return cli_error(c, "option %.*s%s takes no value", (int)(name - arg), arg, o->name);
        }
        int rc;
        if (o->id == OPT_HELP) {
            fputs(usage, stdout);
            return -1;
        } else if (o->id == OPT_VERSION) {
            printf("glgemm %s\n", GLGEMM_VERSION_STRING);
            return -1;
        } else if (is_own && o->id < OPT_BACKEND) {
            rc = handler(self, o->id, value);
        } else {
            rc = common_opt(c, o->id, o->name, value);
        }
        if (rc)
            return rc;
    }
    if (c->devices_set && c->device_set)
        return cli_error(c, "--device and --devices: give one of them");
    if (c->devices_set && c->backend != GG_BACKEND_EGL)
        return cli_error(c, "--devices lists EGL devices: it takes --backend egl");
    if (c->angle_set && c->backend != GG_BACKEND_BROWSER)
        return cli_error(c, "--angle picks the ANGLE backend of Chromium's WebGL2: it takes "
                            "--backend browser");
    /* The browser backend's settings, for the workers forked from here. */
    eval_browser_configure(c->browser, c->headful, (eval_angle)c->angle);
    for (const cli_opt *t = own; t && t->name; t++)
        if (t->id == OPT_MAX_DRAW && !c->max_draw_set) {
            double ms;
            char err[256];
            if (store_draw_env(&ms, err, sizeof err) < 0)
                return cli_error(c, "%s", err);
        }
    return 0;
}

int cli_status_merge(int status, int rc)
{
    return rc && (!status || rc == EXIT_USAGE) ? rc : status;
}

/* --out before any work: a file base_npy_write() will be able to replace or
 * create (a regular, writable file, or a new name in an existing folder), so
 * a run does not do its work and then fail on the output. */
static int check_out(cli_common *c, const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/')
        return cli_error(c, "--out '%s' is not a file name", path);
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return cli_error(c, "--out %s: exists and is not a regular file; not replaced", path);
        if ((st.st_mode & 0222) == 0)
            return cli_error(c, "--out %s: exists and is read-only; not replaced", path);
    } else if (errno != ENOENT) {
        return cli_error(c, "--out %s: %s", path, strerror(errno));
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return cli_error(c, "out of memory");
    int rc = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = cli_error(c, "--out %s: no folder '%s' to write it in", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = cli_error(c, "--out %s: cannot write in '%s': %s", path, dir, strerror(errno));
    free(dir);
    return rc;
}

int cli_check_problem(cli_common *c)
{
    gg_problem *p = &c->prob;
    if ((p->a_path != NULL) != (p->b_path != NULL))
        return cli_error(c, "--a and --b go together");
    if (p->c_path && !p->a_path)
        return cli_error(c, "--c needs --a and --b");
    if (p->out_path)
        return check_out(c, p->out_path);
    return 0;
}

bool cli_names_best(const char *text)
{
    return !strncmp(text, "best", 4) && (text[4] == '\0' || text[4] == ',');
}

int cli_this_card(const cli_common *c, char *slug, size_t len, char *err, size_t errlen)
{
    bool no_device = false;
    gg_ctx *ctx = host_ctx_create(c->backend, c->device, GG_CTX_CORE, err, errlen, &no_device);
    if (!ctx)
        return -1;
    gg_ctx_info in;
    host_ctx_query(ctx, &in);
    host_ctx_destroy(ctx);
    base_slug(in.renderer, slug, len);
    return 0;
}

int cli_card_option(const cli_common *c, const char *value, const char **card)
{
    if (!base_card_slug_ok(value))
        return cli_error(c, "--card must be a card slug (lower case letters, digits and dashes, "
                            "as glgemm info prints), got '%s'", value);
    *card = value;
    return 0;
}

int cli_best_card(const cli_common *c, const char *given, char *slug, size_t len,
                  const char **card)
{
    *card = given;
    if (given)
        return 0;
    char cerr[512];
    if (cli_this_card(c, slug, len, cerr, sizeof cerr))
        return cli_error(c, "best needs --card SLUG here: no GL context to name this card (%s)",
                         cerr);
    *card = slug;
    return 0;
}
