/* The browser backend's side of the evaluation worker: see browser.h. */
#include "eval/browser.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fault.h"
#include "gen/util.h"

static char browser_exe[PATH_MAX] = EVAL_BROWSER_DEFAULT;
static bool browser_headful;
static eval_angle browser_angle = EVAL_ANGLE_DEFAULT;

void eval_browser_configure(const char *exe, bool headful, eval_angle angle)
{
    snprintf(browser_exe, sizeof browser_exe, "%s", exe && *exe ? exe : EVAL_BROWSER_DEFAULT);
    browser_headful = headful;
    browser_angle = angle;
}

/* --angle's names, and the backend each asks the page to come up on (as
 * eval_browser_angle_of names it; default: any). */
static const struct {
    const char *name, *came;
} angles[] = {
    [EVAL_ANGLE_DEFAULT] = {"default", NULL},
    [EVAL_ANGLE_VULKAN] = {"vulkan", "vulkan"},
    [EVAL_ANGLE_GL_EGL] = {"gl-egl", "gl"},
    [EVAL_ANGLE_SWIFTSHADER] = {"swiftshader", "swiftshader"},
};

int eval_browser_angle_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof angles / sizeof *angles; i++)
        if (!strcmp(name, angles[i].name))
            return (int)i;
    return -1;
}

const char *eval_browser_angle_name(eval_angle a)
{
    return (size_t)a < sizeof angles / sizeof *angles ? angles[a].name : "?";
}

const char *eval_browser_angle_of(const char *unmasked)
{
    static const struct {
        const char *word, *backend;
    } words[] = {
        {"SwiftShader", "swiftshader"}, {"Vulkan", "vulkan"}, {"Direct3D11", "d3d11"},
        {"D3D11", "d3d11"},             {"Direct3D9", "d3d9"}, {"Metal", "metal"},
        {"OpenGL", "gl"},
    };
    for (size_t i = 0; unmasked && i < sizeof words / sizeof *words; i++)
        if (strstr(unmasked, words[i].word))
            return words[i].backend;
    return "";
}

struct gg_browser {
    pid_t pid;          /* node */
    FILE *to, *from;    /* its stdin, its stdout */
    bool dead;          /* the page or the browser died, or node did */
    char why[256];      /* then: why */
    gg_ctx_info info;
    char unmasked[256]; /* the page's unmasked renderer (else its renderer) */
    long inputs_of;     /* nonzero: the inputs went (a problem's stamp) */
};

/* ---- a small JSON reader: the value of a key, at any depth ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Past the string at p (p at its opening quote); NULL if unterminated. */
static const char *skip_string(const char *p)
{
    for (p++; *p; p++) {
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* The value of the first "key" in key position (objects at any depth). */
const char *eval_browser_json_find(const char *js, const char *key)
{
    size_t klen = strlen(key);
    bool want_key[64] = {false}; /* by depth: an object, at a key */
    int depth = 0;
    for (const char *p = js; p && *p;) {
        char ch = *p;
        if (ch == '{' || ch == '[') {
            if (depth < 63)
                want_key[++depth] = ch == '{';
            p++;
        } else if (ch == '}' || ch == ']') {
            depth -= depth > 0;
            p++;
        } else if (ch == ',') {
            p++;
        } else if (ch == '"') {
            const char *end = skip_string(p);
            if (!end)
                return NULL;
            const char *after = skip_ws(end);
            if (depth > 0 && want_key[depth] && *after == ':') {
                if ((size_t)(end - p - 2) == klen && !strncmp(p + 1, key, klen))
                    return skip_ws(after + 1);
                p = after + 1;
            } else {
                p = end;
            }
        } else {
            p++;
        }
    }
    return NULL;
}

double eval_browser_json_num(const char *js, const char *key, double dflt)
{
    const char *v = eval_browser_json_find(js, key);
    if (!v)
        return dflt;
    if (!strncmp(v, "true", 4))
        return 1;
    char *end;
    double d = strtod(v, &end);
    return end == v || !isfinite(d) ? dflt : d;
}

bool eval_browser_json_bool(const char *js, const char *key)
{
    return eval_browser_json_num(js, key, 0) != 0;
}

/* The string value of key into out (escapes decoded; non-ASCII as '?'). */
bool eval_browser_json_str(const char *js, const char *key, char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    const char *v = eval_browser_json_find(js, key);
    if (!v || *v != '"' || !len)
        return false;
    size_t o = 0;
    for (const char *p = v + 1; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) {
            p++;
            switch (*p) {
            case 'n': ch = ' '; break;
            case 't': ch = ' '; break;
            case 'r': ch = ' '; break;
            case 'u': ch = '?'; for (int i = 0; i < 4 && p[1]; i++) p++; break;
            default: ch = *p;
            }
        } else if ((unsigned char)ch >= 0x80) {
            ch = '?';
        }
        if (o + 1 < len)
            out[o++] = ch;
    }
    out[o] = '\0';
    return true;
}

/* The numbers of an array value, at most max; returns the count. */
int eval_browser_json_nums(const char *js, const char *key, double *v, int max)
{
    const char *p = eval_browser_json_find(js, key);
    if (!p || *p != '[')
        return 0;
    int n = 0;
    for (p++; *p && *p != ']' && n < max;) {
        p = skip_ws(p);
        char *end;
        double d = strtod(p, &end);
        if (end == p)
            break;
        v[n++] = d;
        p = skip_ws(end);
        if (*p == ',')
            p++;
    }
    return n;
}

/* s as a JSON string's contents (quotes and backslashes escaped, newlines
 * as \n, other controls dropped). */
void eval_browser_json_escape(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 2 < len; s++) {
        if (*s == '"' || *s == '\\')
            out[o++] = '\\';
        if (*s == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if ((unsigned char)*s >= 0x20) {
            out[o++] = *s;
        }
    }
    out[o] = '\0';
}

/* ---- the pipes ---- */

static void mark_dead(gg_browser *b, const char *why)
{
    if (!b->dead)
        snprintf(b->why, sizeof b->why, "%.200s", why);
    b->dead = true;
}

/* One request: the line, then the bytes (two parts, either may be NULL). */
static bool put(gg_browser *b, const char *line, const void *p1, size_t n1, const void *p2,
                size_t n2, const void *p3, size_t n3)
{
    if (b->dead)
        return false;
    bool ok = fputs(line, b->to) >= 0 && fputc('\n', b->to) != EOF &&
              (!n1 || fwrite(p1, 1, n1, b->to) == n1) && (!n2 || fwrite(p2, 1, n2, b->to) == n2) &&
              (!n3 || fwrite(p3, 1, n3, b->to) == n3) && fflush(b->to) == 0;
    if (!ok)
        mark_dead(b, "the browser worker (node) is gone: its pipe is closed");
    return ok;
}

/* One answer: its line (malloc'd) and, where it says bytes, that many into
 * c (at most cap; more is an error); *nbytes gets the count. */
static char *get(gg_browser *b, float *c, size_t cap, size_t *nbytes)
{
    if (nbytes)
        *nbytes = 0;
    if (b->dead)
        return NULL;
    char *line = NULL;
    size_t len = 0;
    ssize_t n = getline(&line, &len, b->from);
    if (n <= 0) {
        free(line);
        mark_dead(b, "the browser worker (node) exited");
        return NULL;
    }
    double bytes = eval_browser_json_num(line, "bytes", 0);
    if (bytes > 0) {
        size_t want = (size_t)bytes;
        void *dst = c && want <= cap ? (void *)c : malloc(want);
        if (!dst || fread(dst, 1, want, b->from) != want) {
            if (dst != c)
                free(dst);
            free(line);
            mark_dead(b, "the browser worker (node) exited mid-answer");
            return NULL;
        }
        if (dst != c) /* not wanted, or more than C: read and dropped */
            free(dst);
        else if (nbytes)
            *nbytes = want;
    }
    return line;
}

/* ---- start ---- */

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* node on PATH, into out. */
static bool find_node(char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s/node", (int)n, p);
        if (n && access(out, X_OK) == 0 && is_file(out))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

/* web/worker/worker.mjs: $GLGEMM_WEB, beside the binary, or ./web. */
static bool find_worker(char *out, size_t len)
{
    const char *env = getenv("GLGEMM_WEB");
    if (env && *env) {
        snprintf(out, len, "%s/worker/worker.mjs", env);
        return is_file(out);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(out, len, "%s/web/worker/worker.mjs", exe);
            if (w > 0 && (size_t)w < len && is_file(out))
                return true;
        }
    }
    snprintf(out, len, "web/worker/worker.mjs");
    return is_file(out);
}

/* The GPU part of an ANGLE renderer, "ANGLE (vendor, GPU, driver)"; a
 * Vulkan GPU part names the device in parentheses. */
static void gpu_part(const char *unmasked, char *out, size_t len)
{
    snprintf(out, len, "%s", unmasked);
    const char *open = strstr(unmasked, "ANGLE (");
    if (!open)
        return;
    const char *f = strchr(open, ',');
    if (!f)
        return;
    f = skip_ws(f + 1);
    int depth = 0;
    const char *e = f;
    for (; *e && !(depth == 0 && (*e == ',' || *e == ')')); e++)
        depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
    if (!strncmp(f, "Vulkan", 6) && memchr(f, '(', (size_t)(e - f))) {
        f = (const char *)memchr(f, '(', (size_t)(e - f)) + 1; /* "Vulkan 1.4 (device)" */
        if (e > f && e[-1] == ')')
            e--;
    }
    /* The driver's details: NVIDIA's GL appends "/PCIe/SSE2", D3D11 its
     * shader models, Metal prefixes its renderer's name. */
    const char *slash = memchr(f, '/', (size_t)(e - f));
    if (slash)
        e = slash;
    static const char metal[] = "ANGLE Metal Renderer: ";
    if (!strncmp(f, metal, sizeof metal - 1))
        f += sizeof metal - 1;
    for (const char *d = f; d + 10 <= e; d++)
        if (!strncmp(d, " Direct3D", 9)) {
            e = d;
            break;
        }
    /* Vulkan's device name repeats the vendor ("NVIDIA NVIDIA H200"). */
    size_t w = strcspn(f, " ");
    if ((size_t)(e - f) >= 2 * w + 2 && f[w] == ' ' && !strncasecmp(f, f + w + 1, w) &&
        f[2 * w + 1] == ' ')
        f += w + 1;
    snprintf(out, len, "%.*s", (int)(e - f), f);
}

/* The word the renderer field gives a backend: what the slug ends with. */
static const char *backend_word(const char *backend)
{
    static const char *const words[][2] = {
        {"vulkan", "Vulkan"}, {"gl", "GL"}, {"d3d11", "D3D11"}, {"d3d9", "D3D9"}, {"metal", "Metal"},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(backend, words[i][0]))
            return words[i][1];
    return "";
}

void eval_browser_renderer(const char *unmasked, char *out, size_t len)
{
    const char *came = eval_browser_angle_of(unmasked);
    if (!strcmp(came, "swiftshader")) {
        snprintf(out, len, "Chromium SwiftShader");
        return;
    }
    char gpu[256];
    gpu_part(unmasked, gpu, sizeof gpu);
    const char *word = backend_word(came);
    snprintf(out, len, "Chromium %.200s%s%s", gpu, *word ? " " : "", word);
}

static void fill_info(gg_browser *b, const char *js)
{
    gg_ctx_info *in = &b->info;
    memset(in, 0, sizeof *in);
    snprintf(in->backend, sizeof in->backend, "browser");
    snprintf(in->kind, sizeof in->kind, "%s", host_ctx_kind_name(GG_CTX_ES3));
    char unmasked[256], browser[64];
    /* a value the page does not give stays "" */
    (void)eval_browser_json_str(js, "unmaskedRenderer", unmasked, sizeof unmasked);
    (void)eval_browser_json_str(js, "browser", browser, sizeof browser);
    if (!unmasked[0])
        (void)eval_browser_json_str(js, "renderer", unmasked, sizeof unmasked);
    snprintf(b->unmasked, sizeof b->unmasked, "%s", unmasked);
    const char *came = eval_browser_angle_of(unmasked);
    snprintf(in->device, sizeof in->device, "ANGLE %s (--angle %s): %.80s", came[0] ? came : "?",
             eval_browser_angle_name(browser_angle), unmasked);
    char vendor[128];
    (void)eval_browser_json_str(js, "vendor", vendor, sizeof vendor);
    snprintf(in->vendor, sizeof in->vendor, "%s", vendor);
    eval_browser_renderer(unmasked, in->renderer, sizeof in->renderer);
    char version[160];
    (void)eval_browser_json_str(js, "version", version, sizeof version);
    snprintf(in->version, sizeof in->version, "%s, %s", version, browser);
    (void)eval_browser_json_str(js, "glsl", in->glsl, sizeof in->glsl);
    in->max_draw_buffers = (int)eval_browser_json_num(js, "maxDrawBuffers", 1);
    in->max_texture_size = (int)eval_browser_json_num(js, "maxTextureSize", 2048);
    in->float_render = eval_browser_json_bool(js, "colorBufferFloat");
    in->float_blend = eval_browser_json_bool(js, "floatBlend");
    in->es = true;
    in->gl_version = 30; /* WebGL2 is OpenGL ES 3.0 */
}

gg_browser *eval_browser_start(char *err, size_t errlen)
{
    char node[PATH_MAX], worker[PATH_MAX];
    if (!find_node(node, sizeof node)) {
        gen_fail(err, errlen, "browser: node (Node.js) is not on PATH; the browser backend needs it "
                              "(apt-get install nodejs)");
        return NULL;
    }
    if (!find_worker(worker, sizeof worker)) {
        gen_fail(err, errlen, "browser: no web/worker/worker.mjs beside the binary or here (set "
                              "GLGEMM_WEB to glgemm's web/ folder)");
        return NULL;
    }
    int in[2], out[2];
    if (pipe(in))
        return gen_fail(err, errlen, "browser: pipe: %s", strerror(errno)), NULL;
    if (pipe(out)) {
        close(in[0]);
        close(in[1]);
        return gen_fail(err, errlen, "browser: pipe: %s", strerror(errno)), NULL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        return gen_fail(err, errlen, "browser: fork: %s", strerror(errno)), NULL;
    }
    if (pid == 0) { /* same process group as the worker: its kill ends node */
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        execl(node, "node", worker, (char *)NULL);
        fprintf(stderr, "glgemm: browser: cannot run %s: %s\n", node, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    signal(SIGPIPE, SIG_IGN); /* a dead node is an EPIPE, not a dead worker */
    gg_browser *b = calloc(1, sizeof *b);
    if (!b) {
        close(in[1]); close(out[0]);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return gen_fail(err, errlen, "out of memory"), NULL;
    }
    b->pid = pid;
    b->to = fdopen(in[1], "w");
    b->from = fdopen(out[0], "r");
    if (!b->to || !b->from) {
        gen_fail(err, errlen, "browser: fdopen: %s", strerror(errno));
        eval_browser_free(b);
        return NULL;
    }
    char exe[PATH_MAX * 2], line[PATH_MAX * 2 + 64];
    eval_browser_json_escape(browser_exe, exe, sizeof exe);
    snprintf(line, sizeof line,
             "{\"op\":\"hello\",\"browser\":\"%s\",\"headful\":%s,\"angle\":\"%s\"}", exe,
             browser_headful ? "true" : "false", eval_browser_angle_name(browser_angle));
    char *ans = put(b, line, NULL, 0, NULL, 0, NULL, 0) ? get(b, NULL, 0, NULL) : NULL;
    if (!ans) {
        gen_fail(err, errlen, "browser: %s (see its lines above)", b->why);
        eval_browser_free(b);
        return NULL;
    }
    if (!eval_browser_json_bool(ans, "ok")) {
        char why[400];
        eval_browser_json_str(ans, "error", why, sizeof why);
        if (!why[0])
            eval_browser_json_str(ans, "detail", why, sizeof why);
        gen_fail(err, errlen, "browser: %s%s%s%s", why[0] ? why : "the worker could not start the page",
                 browser_angle ? " (--angle " : "",
                 browser_angle ? eval_browser_angle_name(browser_angle) : "", browser_angle ? ")" : "");
        free(ans);
        eval_browser_free(b);
        return NULL;
    }
    fill_info(b, ans);
    free(ans);
    const char *want = angles[browser_angle].came, *came = eval_browser_angle_of(b->unmasked);
    if (want && strcmp(want, came)) {
        gen_fail(err, errlen,
                 "browser: --angle %s asked for ANGLE over %s, but the page's WebGL2 came up on "
                 "%s (%s)%s",
                 eval_browser_angle_name(browser_angle), want, came[0] ? came : "another backend",
                 b->unmasked,
                 browser_angle == EVAL_ANGLE_VULKAN
                     ? "; no GPU Vulkan driver answered (VK_DRIVER_FILES names its ICD file)"
                 : browser_angle == EVAL_ANGLE_GL_EGL
                     ? "; no GPU EGL driver answered (__EGL_VENDOR_LIBRARY_FILENAMES names its "
                       "vendor file)"
                     : "");
        eval_browser_free(b);
        return NULL;
    }
    return b;
}

void eval_browser_free(gg_browser *b)
{
    if (!b)
        return;
    if (b->to) {
        if (!b->dead)
            put(b, "{\"op\":\"quit\"}", NULL, 0, NULL, 0, NULL, 0);
        fclose(b->to);
    }
    if (b->from)
        fclose(b->from);
    if (b->pid > 0) {
        int st;
        double until = base_now_s() + 3.0;
        while (waitpid(b->pid, &st, WNOHANG) == 0) {
            if (base_now_s() > until) {
                kill(b->pid, SIGKILL);
                waitpid(b->pid, &st, 0);
                break;
            }
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    free(b);
}

bool eval_browser_alive(const gg_browser *b) { return b && !b->dead; }

const gg_ctx_info *eval_browser_info(const gg_browser *b) { return &b->info; }

int eval_browser_inputs(gg_browser *b, const gg_inputs *in, char *err, size_t errlen)
{
    size_t na = (size_t)in->m * in->k, nb = (size_t)in->k * in->n;
    size_t nc = in->c0 ? (size_t)in->m * in->n : 0;
    char line[256];
    snprintf(line, sizeof line,
             "{\"op\":\"inputs\",\"m\":%d,\"n\":%d,\"k\":%d,\"transa\":%s,\"transb\":%s,"
             "\"na\":%zu,\"nb\":%zu,\"nc\":%zu,\"bytes\":%zu}",
             in->m, in->n, in->k, in->transa ? "true" : "false", in->transb ? "true" : "false", na,
             nb, nc, (na + nb + nc) * sizeof(float));
    if (!put(b, line, in->a, na * sizeof(float), in->b, nb * sizeof(float), in->c0,
             nc * sizeof(float)))
        return gen_fail(err, errlen, "browser: %s", b->why);
    char *ans = get(b, NULL, 0, NULL);
    if (!ans)
        return gen_fail(err, errlen, "browser: %s", b->why);
    bool ok = eval_browser_json_bool(ans, "ok");
    char detail[300] = "";
    if (!ok)
        eval_browser_json_str(ans, "detail", detail, sizeof detail);
    if (!ok && eval_browser_json_find(ans, "status")) {
        char st[32];
        eval_browser_json_str(ans, "status", st, sizeof st);
        if (!strcmp(st, "page_crash") || !strcmp(st, "context_lost"))
            mark_dead(b, detail);
    }
    free(ans);
    if (!ok)
        return gen_fail(err, errlen, "browser: sending the inputs: %s", detail);
    b->inputs_of = 1;
    return 0;
}

/* The answer of a run or tfjs op into out; C judged against ref. */
static void judge(gg_browser *b, const char *line, size_t got, const gg_inputs *in,
                  const gg_reference *ref, gg_measurement *out, float *c, double run0)
{
    char st[32];
    eval_browser_json_str(line, "status", st, sizeof st);
    eval_browser_json_str(line, "detail", out->detail, sizeof out->detail);
    int s = base_status_parse(st);
    if (s < 0) {
        out->status = GG_GL_ERROR;
        snprintf(out->detail, sizeof out->detail, "the page answered status '%.40s'", st);
        return;
    }
    out->status = (gg_status)s;
    if (out->status == GG_PAGE_CRASH || out->status == GG_CONTEXT_LOST)
        mark_dead(b, out->detail);
    out->passes = (int)eval_browser_json_num(line, "passes", 0);
    out->compile_s = eval_browser_json_num(line, "compile_s", 0);
    out->upload_s = eval_browser_json_num(line, "upload_s", 0);
    out->readback_s = eval_browser_json_num(line, "readback_s", 0);
    double times[1024];
    int n = eval_browser_json_nums(line, "seconds", times, 1024);
    out->reps = n;
    out->seconds = n ? base_median(times, n) : eval_browser_json_num(line, "median_s", 0);
    out->spread = n ? base_spread(times, n) : 0;
    /* The exchange's wall time less what the page reported apart (compile,
     * upload, read-back), so that the tune's sums add up to its wall time. */
    double rest = base_now_s() - run0 - out->compile_s - out->upload_s - out->readback_s;
    out->run_s = rest > 0 ? rest : 0;
    if (out->status != GG_OK) {
        out->passes = got ? out->passes : 0;
        return;
    }
    /* An ok answer's detail stays: tfjs says what it ran on (bench prints it). */
    size_t want = (size_t)in->m * in->n * sizeof(float);
    if (got != want || !(out->seconds > 0)) {
        out->status = GG_GL_ERROR;
        if (got != want)
            snprintf(out->detail, sizeof out->detail, "the page sent %zu bytes of C, not %zu", got,
                     want);
        else
            snprintf(out->detail, sizeof out->detail, "the page timed no repetition (%g s)",
                     out->seconds);
        return;
    }
    if (out->passes < 1)
        out->passes = 1;
    gg_verdict verdict;
    if (!base_verify_measured(ref, c, in->m, in->n, out, &verdict)) {
        out->status = GG_WRONG_RESULT;
        snprintf(out->detail, sizeof out->detail, "%s", verdict.detail);
        return;
    }
    out->gflops = 2.0 * in->m * (double)in->n * in->k / out->seconds / 1e9;
}

/* A request whose answer carries C: sends line, judges the answer. */
static void exchange(gg_browser *b, const char *line, const gg_inputs *in, const gg_reference *ref,
                     gg_measurement *out, float *c)
{
    base_measurement_init(out);
    double run0 = base_now_s();
    size_t cap = (size_t)in->m * in->n * sizeof(float), got = 0;
    char *ans = put(b, line, NULL, 0, NULL, 0, NULL, 0) ? get(b, c, cap, &got) : NULL;
    if (!ans) {
        out->status = GG_PAGE_CRASH;
        snprintf(out->detail, sizeof out->detail, "%s", b->why);
        return;
    }
    judge(b, ans, got, in, ref, out, c, run0);
    free(ans);
    if (out->status != GG_OK)
        out->gflops = 0;
}

char *eval_browser_call(gg_browser *b, const char *line, void *buf, size_t cap, size_t *nbytes,
                        char *err, size_t errlen)
{
    char *ans = put(b, line, NULL, 0, NULL, 0, NULL, 0) ? get(b, buf, cap, nbytes) : NULL;
    if (!ans) {
        gen_fail(err, errlen, "%s", b->why);
        return NULL;
    }
    char st[32];
    if (eval_browser_json_str(ans, "status", st, sizeof st) &&
        (!strcmp(st, "page_crash") || !strcmp(st, "context_lost"))) {
        char detail[256];
        eval_browser_json_str(ans, "detail", detail, sizeof detail);
        mark_dead(b, detail);
    }
    return ans;
}

void eval_browser_run(gg_browser *b, const gg_variant *v, const gg_problem *p,
                      const gg_inputs *in, const gg_reference *ref, int reps,
                      gg_measurement *out, float *c)
{
    char text[GG_VARIANT_TEXT], line[GG_VARIANT_TEXT + 256];
    gen_variant_format(v, text, sizeof text);
    const char *fault = base_fault("crash")                                        ? "crash"
                        : base_fault("hang") || base_fault("compile_hang")         ? "hang"
                        : base_fault("lose_context")                               ? "lose_context"
                                                                                   : "";
    snprintf(line, sizeof line,
             "{\"op\":\"run\",\"variant\":\"%s\",\"alpha\":%.9g,\"beta\":%.9g,\"reps\":%d,"
             "\"fault\":\"%s\"}",
             text, (double)p->alpha, (double)p->beta, reps > 0 ? reps : 1, fault);
    exchange(b, line, in, ref, out, c);
}

void eval_browser_tfjs(gg_browser *b, bool webgpu, const gg_problem *p, const gg_inputs *in,
                       const gg_reference *ref, int reps, gg_measurement *out, float *c)
{
    char line[256];
    snprintf(line, sizeof line,
             "{\"op\":\"tfjs\",\"alpha\":%.9g,\"beta\":%.9g,\"reps\":%d,\"backend\":\"%s\"}",
             (double)p->alpha, (double)p->beta, reps > 0 ? reps : 1, webgpu ? "webgpu" : "webgl");
    exchange(b, line, in, ref, out, c);
}

const char *const eval_browser_model_names[GG_MODEL_COUNT] = {"dense", "encoder"};

void eval_browser_model(gg_browser *b, int model, bool small, const gg_variant *v, int reps,
                        gg_measurement *out)
{
    base_measurement_init(out);
    double t0 = base_now_s();
    char text[GG_VARIANT_TEXT] = "", line[GG_VARIANT_TEXT + 256], err[256];
    if (v)
        gen_variant_format(v, text, sizeof text);
    snprintf(line, sizeof line,
             "{\"op\":\"model\",\"name\":\"%s\",\"scale\":\"%s\",\"with\":\"%s\","
             "\"variant\":\"%s\",\"reps\":%d}",
             eval_browser_model_names[model], small ? "small" : "full", v ? "glgemm" : "tfjs", text,
             reps > 0 ? reps : 1);
    char *ans = eval_browser_call(b, line, NULL, 0, NULL, err, sizeof err);
    if (!ans) {
        out->status = GG_PAGE_CRASH;
        snprintf(out->detail, sizeof out->detail, "%s", err);
        return;
    }
    char st[32] = "";
    eval_browser_json_str(ans, "status", st, sizeof st);
    eval_browser_json_str(ans, "detail", out->detail, sizeof out->detail);
    int s = base_status_parse(st);
    out->status = s < 0 ? GG_GL_ERROR : (gg_status)s;
    double times[256];
    int n = eval_browser_json_nums(ans, "seconds", times, 256);
    out->reps = n;
    out->seconds = n ? base_median(times, n) : 0;
    out->spread = n ? base_spread(times, n) : 0;
    out->passes = (int)eval_browser_json_num(ans, "passes", 0);
    out->rel_err = eval_browser_json_num(ans, "rel_err", 0);
    double flops = eval_browser_json_num(ans, "flops", 0);
    free(ans);
    out->run_s = base_now_s() - t0;
    if (s < 0)
        snprintf(out->detail, sizeof out->detail, "the page answered status '%.40s'", st);
    if (out->status != GG_OK)
        return;
    if (!(out->seconds > 0) || !(flops > 0)) {
        out->status = GG_GL_ERROR;
        snprintf(out->detail, sizeof out->detail, "the page timed no run of the model");
        return;
    }
    if (v && !(out->rel_err <= GG_MODEL_REL_BOUND)) {
        char was[sizeof out->detail];
        snprintf(was, sizeof was, "%s", out->detail);
        out->status = GG_WRONG_RESULT;
        snprintf(out->detail, sizeof out->detail,
                 "outputs differ from TensorFlow.js's own by %.3g (max |diff| / max |ref|), over "
                 "%g: %.200s",
                 out->rel_err, GG_MODEL_REL_BOUND, was);
        return;
    }
    out->gflops = flops / out->seconds / 1e9;
}
