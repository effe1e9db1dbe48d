/* The browser backend (eval/browser.h, web/worker/worker.mjs): profile=300es
 * variants through the evaluator in headless Chromium, verified by the host;
 * a wrong result, a crashed page and a killed worker group are statuses and
 * the worker is replaced, leaving no Chromium behind; no browser and a page
 * without WebGL2 are one line and exit 3; a browser killed mid-tune is a
 * recorded status and the tune completes; bench's tfjs-webgl row reads back;
 * probe --backend browser writes the page's ceilings and tune's bound uses them.
 * Tag "browser" (needs /usr/bin/chromium, node and web/node_modules: make
 * check installs them), "slow" where a browser starts. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/slug.h"
#include "eval/browser.h"
#include "eval/bench.h"
#include "eval/evaluator.h"
#include "search/bound.h"
#include "tests/cli_util.h"
#include "tests/gemm_util.h"
#include "tests/gen_grid.h"
#include "tests/suites.h"

typedef struct {
    gemm_run r;
    gg_evaluator *ev;
} fixture;

static void open_fixture(fixture *f, bool want_c)
{
    static const gemm_case gc = {"mrt=1x1", 37, 29, 41, 0, 1, 1.0f, 0.5f};
    memset(f, 0, sizeof *f);
    setup_case(&f->r, &gc, 1);
    f->r.p.reps = 3;
    gg_evaluator_config c = {.backend = GG_BACKEND_BROWSER, .prob = &f->r.p, .in = &f->r.in,
                             .ref = &f->r.ref, .timeout_s = 60, .want_c = want_c};
    char err[512];
    f->ev = eval_evaluator_new(&c, err, sizeof err);
    ck_assert_msg(f->ev != NULL, "%s", err);
}

static void close_fixture(fixture *f)
{
    eval_evaluator_free(f->ev);
    free_case(&f->r);
}

static gg_measurement eval(fixture *f, const char *text)
{
    gg_variant v;
    char err[256];
    ck_assert_msg(gen_variant_parse(text, NULL, &v, err, sizeof err) == 0, "%s", err);
    gg_measurement m;
    ck_assert_int_eq(eval_evaluator_eval(f->ev, &v, NULL, &m), 0);
    return m;
}

/* Live processes (not zombies) other than this one whose environment holds
 * mark=1: what a run started with that variable left behind. */
static int live_marked(const char *mark, pid_t *first)
{
    char want[96];
    snprintf(want, sizeof want, "%s=1", mark);
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        char path[64], stat[512] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[got] = '\0';
        const char *rp = strrchr(stat, ')');
        if (!rp || rp[2] == 'Z')
            continue;
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
        f = fopen(path, "r");
        if (!f)
            continue;
        static char env[1 << 16];
        got = fread(env, 1, sizeof env - 1, f);
        fclose(f);
        for (size_t i = 0; i < got; i += strlen(env + i) + 1) {
            env[got] = '\0';
            if (!strcmp(env + i, want)) {
                if (!n && first)
                    *first = pid;
                n++;
                break;
            }
        }
    }
    closedir(d);
    return n;
}

/* A live marked process whose command line holds text; 0 none. */
static pid_t marked_with(const char *mark, const char *text)
{
    char want[96];
    snprintf(want, sizeof want, "%s=1", mark);
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    pid_t found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        char path[64], cmd[4096];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        FILE *cf = fopen(path, "r");
        if (!cf)
            continue;
        size_t len = fread(cmd, 1, sizeof cmd - 1, cf);
        fclose(cf);
        for (size_t i = 0; i < len; i++) /* its words, NUL-separated: one line */
            if (!cmd[i])
                cmd[i] = ' ';
        cmd[len] = '\0';
        if (strstr(cmd, text)) {
            snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
            FILE *f = fopen(path, "r");
            if (f) {
                static char env[1 << 16];
                size_t got = fread(env, 1, sizeof env - 1, f);
                fclose(f);
                env[got] = '\0';
                for (size_t i = 0; i < got; i += strlen(env + i) + 1)
                    if (!strcmp(env + i, want))
                        found = pid;
            }
        }
    }
    closedir(d);
    return found;
}

static void wait_gone(const char *mark)
{
    for (int i = 0; i < 100 && live_marked(mark, NULL); i++)
        usleep(100 * 1000);
    pid_t left = 0;
    int n = live_marked(mark, &left);
    ck_assert_msg(n == 0, "%d processes left behind (e.g. pid %d)", n, (int)left);
}

/* Variants of the ES profile run and are verified (C against a naive loop
 * too); the device is the page's WebGL2 only. */
START_TEST(test_browser_variants_ok)
{
    fixture f;
    open_fixture(&f, true);
    gg_device_info d;
    char err[512];
    ck_assert_msg(eval_evaluator_device(f.ev, &d, err, sizeof err) == 0, "%s", err);
    ck_assert(d.ok[GG_CTX_ES3] && !d.ok[GG_CTX_CORE] && !d.ok[GG_CTX_COMPAT]);
    ck_assert_msg(strstr(d.err[GG_CTX_CORE], "WebGL2"), "%s", d.err[GG_CTX_CORE]);
    char slug[GG_CARD_MAX];
    base_slug(d.info[GG_CTX_ES3].renderer, slug, sizeof slug);
    ck_assert_msg(!strncmp(slug, "chromium-", 9), "%s", slug);
    ck_assert_int_ge(d.info[GG_CTX_ES3].max_draw_buffers, 4);
    /* store=f16x8 too (RGBA32UI textures, unpackHalf2x16 of ES 3.00), judged
     * against the half-rounded inputs (the naive loop rounds them for the
     * variant it is given). */
    static const char *const vs[] = {
        "profile=300es,mrt=2x4,mc=1x4",
        "profile=300es,mrt=2x2,mc=2x2,np=3,acc=blend",
        "profile=300es,mrt=1x2,mc=4x1,np=2,acc=copy,unroll=1",
        "profile=300es,mrt=2x1,mc=1x4,np=3,store=f16x8",
        "profile=300es,mc=2x2,np=2,unroll=1,acc=copy,store=f16x8,fetch=texelfetch",
        "profile=300es,mrt=1x2,mc=1x1,np=5,acc=blend,store=f16x8",
    };
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        gg_measurement m = eval(&f, vs[i]);
        ck_assert_msg(m.status == GG_OK, "%s: %s (%s)", vs[i], base_status_name(m.status), m.detail);
        ck_assert(m.gflops > 0 && m.rel_err >= 0 && m.passes >= 1);
        ck_assert(m.rel_err <= base_verify_bound(f.r.in.k));
        const float *c = eval_evaluator_c(f.ev);
        ck_assert_ptr_nonnull(c);
        memcpy(f.r.c, c, (size_t)f.r.in.m * f.r.in.n * sizeof(float));
        ck_assert_int_eq(gen_variant_parse(vs[i], NULL, &f.r.v, err, sizeof err), 0);
        check_against_naive(&f.r, vs[i]);
    }
    gg_measurement m = eval(&f, "mrt=2x2"); /* profile=330: not in a browser */
    ck_assert_int_eq(m.status, GG_UNSUPPORTED);
    ck_assert_msg(strstr(m.detail, "WebGL2"), "%s", m.detail);
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, 1);
    close_fixture(&f);
}
END_TEST

/* Every profile=300es variant of the generator's pairwise test grid
 * (tests/gen_grid.h, on its odd 19x23x37 problem, B transposed, beta 0.5):
 * each that runs and verifies on the native GLES context (llvmpipe) runs and
 * verifies in the browser too; the others carry a named status with its
 * reason, in both.  (Issue 29's first target; the counts are printed.) */
static const eval_angle grid_angles[] = {EVAL_ANGLE_DEFAULT, EVAL_ANGLE_GL_EGL};

START_TEST(test_browser_grid)
{
    /* _i: the ANGLE backend: Chromium's default (SwiftShader here) and
     * gl-egl (Chromium's WebGL2 over this machine's EGL: llvmpipe). */
    eval_browser_configure(NULL, false, grid_angles[_i]);
    gg_variant *grid = NULL;
    int nglsl = 0;
    gg_grid_pairwise_split(&grid, &nglsl);
    ck_assert_ptr_nonnull(grid);
    static const gemm_case gc = {"mrt=1x1", GG_GRID_M, GG_GRID_N, GG_GRID_K, 0, 1, 1.0f, 0.5f};
    gemm_run r;
    setup_case(&r, &gc, 7);
    r.p.reps = 1;
    gg_evaluator *ev[2];
    const gg_backend backends[2] = {GG_BACKEND_EGL, GG_BACKEND_BROWSER};
    for (int b = 0; b < 2; b++) {
        gg_evaluator_config c = {.backend = backends[b], .prob = &r.p, .in = &r.in, .ref = &r.ref,
                                 .timeout_s = 60};
        char err[512];
        ev[b] = eval_evaluator_new(&c, err, sizeof err);
        ck_assert_msg(ev[b] != NULL, "%s", err);
    }
    int n = 0, ok[2] = {0, 0};
    for (int i = 0; i < nglsl; i++) {
        if (grid[i].profile != GG_PROFILE_300ES)
            continue;
        n++;
        char vt[GG_VARIANT_TEXT];
        gen_variant_format(&grid[i], vt, sizeof vt);
        gg_measurement m[2];
        for (int b = 0; b < 2; b++) {
            ck_assert_int_eq(eval_evaluator_eval(ev[b], &grid[i], NULL, &m[b]), 0);
            ok[b] += m[b].status == GG_OK;
            ck_assert_msg(m[b].status == GG_OK || m[b].detail[0], "%s: %s with no reason (%s)", vt,
                          base_status_name(m[b].status), b ? "browser" : "native");
        }
        ck_assert_msg(m[0].status != GG_OK || m[1].status == GG_OK,
                      "%s: ok natively, %s in the browser: %s", vt, base_status_name(m[1].status),
                      m[1].detail);
        if (m[1].status != GG_OK)
            printf("browser grid: %s: native %s, browser %s: %s\n", vt,
                   base_status_name(m[0].status), base_status_name(m[1].status), m[1].detail);
    }
    printf("browser grid (--angle %s): %d profile=300es variants of the pairwise grid: %d ok "
           "natively (GLES, llvmpipe), %d ok in the browser\n",
           eval_browser_angle_name(grid_angles[_i]), n, ok[0], ok[1]);
    ck_assert_int_ge(n, 20);
    ck_assert_int_gt(ok[0], 0);
    for (int b = 0; b < 2; b++)
        eval_evaluator_free(ev[b]);
    free(grid);
    free_case(&r);
    eval_browser_configure(NULL, false, EVAL_ANGLE_DEFAULT);
}
END_TEST

/* Each ANGLE backend is a card of its own: the renderer field (so the
 * slug) names the GPU and the backend, from the unmasked renderers
 * Chromium 156 reported on the machines glgemm ran on. */
START_TEST(test_browser_angle_slugs)
{
    static const struct {
        const char *unmasked, *backend, *slug;
    } cases[] = {
        {"ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader "
         "driver)", "swiftshader", "chromium-swiftshader"},
        {"ANGLE (NVIDIA, Vulkan 1.4.312 (NVIDIA NVIDIA H200 (0x00002335)), NVIDIA)", "vulkan",
         "chromium-nvidia-h200-vulkan"},
        {"ANGLE (NVIDIA Corporation, NVIDIA H200/PCIe/SSE2, OpenGL ES 3.2)", "gl",
         "chromium-nvidia-h200-gl"},
        {"ANGLE (Mesa/X.org, llvmpipe (LLVM 15.0.6 256 bits), OpenGL ES 3.2)", "gl",
         "chromium-llvmpipe-gl"},
        {"ANGLE (NVIDIA, Vulkan 1.3.277 (NVIDIA H100 80GB HBM3 (0x00002330)), NVIDIA-580.159)",
         "vulkan", "chromium-nvidia-h100-80gb-hbm3-vulkan"},
        {"ANGLE (Intel, Intel(R) UHD Graphics 630 (0x00003E9B) Direct3D11 vs_5_0 ps_5_0, D3D11)",
         "d3d11", "chromium-intel-uhd-graphics-630-d3d11"},
        {"ANGLE (Apple, ANGLE Metal Renderer: Apple M1, Unspecified Version)", "metal",
         "chromium-apple-m1-metal"},
        {"Mystery GPU 9000", "", "chromium-mystery-gpu-9000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char renderer[256], slug[GG_CARD_MAX];
        ck_assert_str_eq(eval_browser_angle_of(cases[i].unmasked), cases[i].backend);
        eval_browser_renderer(cases[i].unmasked, renderer, sizeof renderer);
        base_slug(renderer, slug, sizeof slug);
        ck_assert_msg(!strcmp(slug, cases[i].slug), "%s: slug %s, want %s (renderer '%s')",
                      cases[i].unmasked, slug, cases[i].slug, renderer);
        int depth = 0; /* the renderer's parentheses pair up */
        for (const char *p = renderer; *p; p++)
            ck_assert_msg((depth += *p == '(' ? 1 : *p == ')' ? -1 : 0) >= 0, "%s", renderer);
        ck_assert_msg(depth == 0, "%s", renderer);
    }
    for (int a = EVAL_ANGLE_DEFAULT; a <= EVAL_ANGLE_SWIFTSHADER; a++)
        ck_assert_int_eq(eval_browser_angle_parse(eval_browser_angle_name((eval_angle)a)), a);
    ck_assert_int_eq(eval_browser_angle_parse("gl"), -1);
    ck_assert_int_eq(eval_browser_angle_parse(""), -1);
    ck_assert_int_eq(eval_browser_angle_parse(NULL), -1);
}
END_TEST

/* --angle on the command line: a bad name and --angle without the browser
 * backend are one line and exit 2; gl-egl is Chromium over this machine's
 * EGL (llvmpipe: the card chromium-llvmpipe-gl); vulkan, where no GPU
 * Vulkan driver answers (Chromium then offers SwiftShader's Vulkan, which
 * WebGL2 refuses without --enable-unsafe-swiftshader), is one line naming
 * it and exit 3, and where a GPU answers, a card of its own. */
START_TEST(test_browser_angle_cli)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(NULL, NULL, "info --backend browser --angle metal", &out, &err);
    ck_assert_msg(rc == 2, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    ck_assert_msg(strstr(err, "--angle must be default, vulkan, gl-egl or swiftshader, got 'metal'"),
                  "%s", err);
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
    rc = tu_run(NULL, NULL, "run profile=300es --angle gl-egl --size 8", &out, &err);
    ck_assert_msg(rc == 2, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    ck_assert_msg(strstr(err, "--backend browser"), "%s", err);
    free(out);
    free(err);

    rc = tu_run(NULL, NULL, "info", &out, &err);
    bool llvmpipe = rc == 0 && strstr(out, "slug: llvmpipe\n");
    free(out);
    free(err);
    rc = tu_run(NULL, NULL, "info --backend browser --angle gl-egl", &out, &err);
    if (llvmpipe) {
        ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
        ck_assert_msg(strstr(out, "slug: chromium-llvmpipe-gl\n"), "%s", out);
        ck_assert_msg(strstr(out, "device: ANGLE gl (--angle gl-egl): ANGLE (Mesa"), "%s", out);
    }
    free(out);
    free(err);
    rc = tu_run(NULL, NULL, "run profile=300es,mrt=2x2,mc=2x2,np=3 --backend browser --angle gl-egl "
                            "--m 37 --n 29 --k 41 --beta 0.5 --transb --reps 2",
                &out, &err);
    if (llvmpipe)
        ck_assert_msg(rc == 0 && strstr(out, ": ok,"), "exit %d: %s%s", rc, out, err);
    free(out);
    free(err);

    rc = tu_run(NULL, NULL, "info --backend browser --angle vulkan", &out, &err);
    if (rc == 0) {
        ck_assert_msg(strstr(out, "-vulkan\n"), "%s", out);
    } else {
        ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
        ck_assert_int_eq(tu_count_lines(err), 1);
        ck_assert_msg(strstr(err, "--angle vulkan"), "%s", err);
    }
    free(out);
    free(err);
}
END_TEST

/* Faults on the 2nd evaluation: wrong_result judged by the host, a crashed
 * page (page_crash) and a lost WebGL context (context_lost) replace the
 * worker; the 3rd is ok. */
static const struct {
    const char *fault;
    gg_status status;
    int workers;
} faults[] = {
    {"wrong_result:2", GG_WRONG_RESULT, 1},
    {"crash:2", GG_PAGE_CRASH, 2},
    {"lose_context:2", GG_CONTEXT_LOST, 2},
};

START_TEST(test_browser_faults)
{
    setenv("GLGEMM_FAULT", faults[_i].fault, 1);
    base_fault_set_eval(0);
    fixture f;
    open_fixture(&f, false);
    for (int i = 0; i < 3; i++) {
        gg_measurement m = eval(&f, "profile=300es,mrt=2x2,mc=1x4,np=4");
        gg_status want = i == 1 ? faults[_i].status : GG_OK;
        ck_assert_msg(m.status == want, "%s, evaluation %d: %s (%s)", faults[_i].fault, i + 1,
                      base_status_name(m.status), m.detail);
    }
    ck_assert_int_eq(eval_evaluator_get_stats(f.ev)->workers, faults[_i].workers);
    close_fixture(&f);
    unsetenv("GLGEMM_FAULT");
}
END_TEST

/* kill -9 of the worker's process group (what the evaluator's deadlines
 * do) leaves no Node and no Chromium; the next evaluation gets a new one. */
START_TEST(test_browser_group_kill)
{
    const char *mark = "GLGEMM_TEST_BROWSER_GROUP";
    setenv(mark, "1", 1);
    fixture f;
    open_fixture(&f, false);
    ck_assert_int_eq(eval(&f, "profile=300es,mrt=2x2").status, GG_OK);
    pid_t node = marked_with(mark, "worker.mjs");
    ck_assert_msg(node > 0, "no node worker found");
    ck_assert_msg(marked_with(mark, "chromium") > 0, "no chromium found");
    pid_t group = getpgid(node);
    ck_assert_int_gt(group, 1);
    ck_assert_int_ne(group, getpgid(0));
    kill(-group, SIGKILL);
    /* Everything of that worker goes; a new one then serves. */
    for (int i = 0; i < 100 && live_marked(mark, NULL); i++)
        usleep(100 * 1000);
    ck_assert_int_eq(live_marked(mark, NULL), 0);
    gg_measurement m = eval(&f, "profile=300es,mrt=2x2");
    ck_assert_msg(m.status == GG_OK || m.status == GG_CONTEXT_LOST, "%s", base_status_name(m.status));
    ck_assert_int_eq(eval(&f, "profile=300es,mrt=1x2").status, GG_OK);
    close_fixture(&f);
    wait_gone(mark);
    unsetenv(mark);
}
END_TEST

/* glgemm ARGS with env: exit 3, one line naming what and `make web`. */
static void expect_make_web(const char *env, const char *args, const char *what)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(NULL, env, args, &out, &err);
    ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    ck_assert_msg(strstr(err, what) && strstr(err, "run make web"), "%s", err);
    free(out);
    free(err);
}

/* No such browser, a page without WebGL2: one line naming it, exit 3. */
START_TEST(test_browser_missing)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(NULL, NULL, "run profile=300es --backend browser --browser /nonexistent --size 8",
                    &out, &err);
    ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    ck_assert_msg(strstr(err, "/nonexistent"), "%s", err);
    free(out);
    free(err);
    rc = tu_run(NULL, "GLGEMM_BROWSER_NO_WEBGL2=1", "info --backend browser", &out, &err);
    ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(err, "no WebGL2"), "%s", err);
    ck_assert_int_eq(tu_count_lines(err), 1);
    free(out);
    free(err);

    /* After `make` alone: a web/ with the worker and the runtime but no npm
     * packages, then no WebAssembly either: one line naming make web. */
    char dir[256], cmd[1024], env[300];
    tu_mkdtemp(dir, sizeof dir, "browser-noweb");
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/dist' && cp -r web/worker web/src web/serve.mjs '%s/' && cp web/dist/glgemm-gen.wasm "
             "web/dist/glgemm.js '%s/dist/'",
             dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(env, sizeof env, "GLGEMM_WEB=%s", dir);
    expect_make_web(env, "info --backend browser", "puppeteer-core");
    snprintf(cmd, sizeof cmd, "%s/dist/glgemm-gen.wasm", dir);
    ck_assert_int_eq(unlink(cmd), 0);
    expect_make_web(env, "run tfjs,profile=300es --backend browser --size 8", "glgemm-gen.wasm");
    tu_rm_rf(dir);
}
END_TEST

/* The browser's Chromium killed during a tune: that evaluation is a status
 * in the records (page_crash; context_lost when the worker went first),
 * the tune goes on with a new browser and completes; nothing is left. */
START_TEST(test_browser_killed_mid_tune)
{
    const char *mark = "GLGEMM_TEST_BROWSER_TUNE";
    char dir[256], env[128];
    tu_mkdtemp(dir, sizeof dir, "browser-tune");
    snprintf(env, sizeof env, "%s=1", mark);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv(mark, "1", 1);
        char res[300];
        snprintf(res, sizeof res, "%s/res", dir);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(tu_bin(), "glgemm", "tune", "--backend", "browser", "--size", "64", "--budget", "40",
              "--reps", "20", "--results", res, (char *)NULL);
        _exit(127);
    }
    char records[400];
    snprintf(records, sizeof records, "%s/res/chromium-swiftshader/tune-64x64x64.csv", dir);
    /* Wait for a few rows, then kill the browser (its main process). */
    pid_t chrome = 0;
    for (int i = 0; i < 600; i++) {
        char *text = tu_read(records);
        int rows = text ? tu_count_lines(text) : 0;
        free(text);
        if (rows >= 4 && (chrome = marked_with(mark, "--remote-debugging-port")))
            break;
        usleep(50 * 1000);
    }
    ck_assert_msg(chrome > 0, "no browser found during the tune");
    kill(chrome, SIGKILL);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tune ended with %d", st);
    char *text = tu_read(records);
    ck_assert_ptr_nonnull(text);
    const char *hit = strstr(text, ",page_crash,");
    if (!hit)
        hit = strstr(text, ",context_lost,");
    ck_assert_msg(hit, "no page_crash or context_lost row:\n%s", text);
    ck_assert_msg(strstr(hit, ",ok,"), "no ok row after the crash:\n%s", text);
    free(text);
    wait_gone(mark);
    tu_rm_rf(dir);
}
END_TEST

/* bench's tfjs-webgl and tfjs-webgpu rows: no variant, written and read
 * back; tfjs-webgpu where the page had no WebGPU: unsupported, no rate. */
START_TEST(test_bench_tfjs_row_csv)
{
    static gg_bench b, back;
    memset(&b, 0, sizeof b);
    snprintf(b.card, sizeof b.card, "chromium-swiftshader");
    b.m = b.n = b.k = 64;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        base_measurement_init(&b.rows[i].m);
    int idx[2] = {GG_BENCH_CPU, GG_BENCH_TFJS_WEBGL};
    for (int j = 0; j < 2; j++) {
        gg_bench_row *r = &b.rows[idx[j]];
        r->present = true;
        r->m.seconds = 0.01 * (j + 1);
        r->m.gflops = 5.0 / (j + 1);
        r->m.rel_err = 1e-7;
        r->m.passes = j;
    }
    eval_bench_ratios(&b);
    char dir[256], path[300], err[512];
    gg_bench_row *gpu = &b.rows[GG_BENCH_TFJS_WEBGPU];
    gpu->present = true;
    gpu->m.status = GG_UNSUPPORTED;
    tu_mkdtemp(dir, sizeof dir, "bench-tfjs");
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    ck_assert_int_eq(eval_bench_write(&b, path, err, sizeof err), 0);
    char *text = tu_read(path);
    ck_assert_msg(strstr(text, "\ntfjs-webgl,chromium-swiftshader,64,64,64,,,,,,,,,,,,,,,1,ok,"), "%s",
                  text);
    ck_assert_msg(strstr(text, "\ntfjs-webgpu,chromium-swiftshader,64,64,64,,,,,,,,,,,,,,,0,unsupported,"),
                  "%s", text);
    free(text);
    ck_assert_msg(eval_bench_read(path, &back, err, sizeof err) == 0, "%s", err);
    ck_assert(back.rows[GG_BENCH_TFJS_WEBGL].present && !back.rows[GG_BENCH_TFJS_WEBGL].has_variant);
    ck_assert_double_eq_tol(back.rows[GG_BENCH_TFJS_WEBGL].ratio, 0.5, 1e-6);
    ck_assert(back.rows[GG_BENCH_TFJS_WEBGPU].present && !back.rows[GG_BENCH_TFJS_WEBGPU].has_variant);
    ck_assert_int_eq(back.rows[GG_BENCH_TFJS_WEBGPU].m.status, GG_UNSUPPORTED);
    ck_assert(back.rows[GG_BENCH_TFJS_WEBGPU].m.gflops == 0);
    tu_rm_rf(dir);
}
END_TEST

/* probe --backend browser --quick writes the page's ceilings in probe.csv
 * (every metric the bound needs, each > 0; no image or buffer-texture
 * rows: WebGL2 has neither), the bound computes from it for a WebGL2
 * variant, and a browser tune on that results folder uses it (no "no bound
 * pruning" line). */
START_TEST(test_browser_probe_bound)
{
    char dir[256], args[512], path[400], err[512];
    tu_mkdtemp(dir, sizeof dir, "browser-probe");
    char *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "probe --backend browser --quick --results %s/res", dir);
    int rc = tu_run(NULL, NULL, args, &out, &errs);
    ck_assert_msg(rc == 0, "probe exit %d: %s", rc, errs);
    ck_assert_msg(strstr(out, "card: chromium-swiftshader"), "%s", out);
    free(out);
    free(errs);
    snprintf(path, sizeof path, "%s/res/chromium-swiftshader/probe.csv", dir);
    static gg_probe_result r;
    ck_assert_msg(base_probe_read_csv(path, &r, err, sizeof err) == 0, "%s", err);
    ck_assert(r.mad_gflops > 0);
    for (int f = 0; f < GG_FETCH_NFMT; f++)
        for (int p = 0; p < GG_FETCH_NPAT; p++)
            if (base_probe_fetch_measured(f, p))
                ck_assert_msg(r.fetch_gtexels[f][p] > 0 && r.fetch_gbs[f][p] > 0, "fetch %d %d", f, p);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_TEXELFETCH) > 0);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_IMAGE) == 0);
    ck_assert(base_probe_path_rate(&r, GG_FETCH_RGBA32F, GG_FETCH_BUFFER) == 0);
    ck_assert(base_probe_store_rate(&r) == 0);
    ck_assert_int_ge(r.write_max_targets, 4); /* WebGL2's minimum of draw buffers */
    for (int n = 1; n <= r.write_max_targets; n++)
        ck_assert(r.write_gtexels[n] > 0 && r.write_gbs[n] > 0);
    ck_assert(r.readback_gbs > 0);

    snprintf(path, sizeof path, "%s/res", dir);
    static gg_probe_result loaded;
    ck_assert_msg(search_bound_load(path, "chromium-swiftshader", &loaded, err, sizeof err) == 0,
                  "%s", err);
    gg_variant v;
    ck_assert(gen_variant_parse("mrt=2x2,mc=2x2,np=64,profile=300es", NULL, &v, err, sizeof err) == 0);
    char why[256];
    ck_assert_msg(search_bound_gflops(&v, 64, 64, 64, &loaded, why, sizeof why) > 0, "%s", why);

    snprintf(args, sizeof args, "tune --backend browser --size 64 --budget 6 --reps 3 --results %s/res",
             dir);
    rc = tu_run(NULL, NULL, args, &out, &errs);
    ck_assert_msg(rc == 0, "tune exit %d: %s", rc, errs);
    ck_assert_msg(strstr(errs, "on chromium-swiftshader"), "%s", errs);
    ck_assert_msg(!strstr(errs, "no bound pruning"), "%s", errs);
    free(out);
    free(errs);
    tu_rm_rf(dir);
}
END_TEST

/* bench --backend browser --models small: the four model rows, each ok,
 * the glgemm rows with the best row's (here the tfjs preset's) variant,
 * their products served by glgemm and their outputs within the bound of
 * TensorFlow.js's own; the CSV reads back; --models with a bad value, or
 * without the browser, is exit 2. */
START_TEST(test_browser_model_rows)
{
    char dir[256], args[512], path[400], err[512];
    tu_mkdtemp(dir, sizeof dir, "browser-models");
    char *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "bench --backend browser --size 24 --reps 2 --models small --results %s",
             dir);
    int rc = tu_run(NULL, NULL, args, &out, &errs);
    ck_assert_msg(rc == 0, "bench exit %d: %s %s", rc, out, errs);
    ck_assert_msg(strstr(out, "x TensorFlow.js alone, outputs within"), "%s", out);
    free(out);
    free(errs);
    static gg_bench b;
    snprintf(path, sizeof path, "%s/chromium-swiftshader/bench-24x24x24.csv", dir);
    ck_assert_msg(eval_bench_read(path, &b, err, sizeof err) == 0, "%s", err);
    for (int i = GG_BENCH_MODEL_DENSE_TFJS; i <= GG_BENCH_MODEL_ENCODER_GLGEMM; i++) {
        const gg_bench_row *r = &b.rows[i];
        bool with = (i - GG_BENCH_MODEL_DENSE_TFJS) % 2;
        ck_assert_msg(r->present && r->m.status == GG_OK, "%s: %s", eval_bench_names[i],
                      base_status_name(r->m.status));
        ck_assert(r->m.seconds > 0 && r->m.gflops > 0);
        ck_assert_int_eq(r->has_variant, with);
        if (with) {
            ck_assert_int_eq(r->v.profile, GG_PROFILE_300ES);
            ck_assert_int_ge(r->m.passes, 4); /* products glgemm served */
            ck_assert(r->m.rel_err <= GG_MODEL_REL_BOUND);
        }
    }
    snprintf(args, sizeof args, "bench --backend browser --size 8 --models tiny --results %s", dir);
    rc = tu_run(NULL, NULL, args, &out, &errs);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(errs, "--models takes full, small or off, got 'tiny'"), "%s", errs);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "bench --size 8 --models small --results %s", dir);
    rc = tu_run(NULL, NULL, args, &out, &errs);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(errs, "--models is for --backend browser"), "%s", errs);
    free(out);
    free(errs);
    tu_rm_rf(dir);
}
END_TEST

/* The model rows in a bench CSV: the tfjs ones without a variant, the
 * glgemm ones with theirs, read back as written. */
START_TEST(test_bench_model_rows_csv)
{
    static gg_bench b, back;
    memset(&b, 0, sizeof b);
    snprintf(b.card, sizeof b.card, "chromium-swiftshader");
    b.m = b.n = b.k = 64;
    for (int i = 0; i < GG_BENCH_ALL_ROWS; i++)
        base_measurement_init(&b.rows[i].m);
    char err[512];
    b.rows[GG_BENCH_CPU].present = true;
    b.rows[GG_BENCH_CPU].m.gflops = 10;
    b.rows[GG_BENCH_CPU].m.seconds = 0.1;
    for (int i = GG_BENCH_MODEL_DENSE_TFJS; i <= GG_BENCH_MODEL_ENCODER_GLGEMM; i++) {
        gg_bench_row *r = &b.rows[i];
        r->present = true;
        r->has_variant = (i - GG_BENCH_MODEL_DENSE_TFJS) % 2;
        if (r->has_variant)
            ck_assert(gen_variant_parse("tfjs,profile=300es", NULL, &r->v, err, sizeof err) == 0);
        r->m.seconds = 0.5 / i;
        r->m.gflops = i;
        r->m.rel_err = r->has_variant ? 3e-7 : 0;
        r->m.passes = r->has_variant ? 12 : 1;
    }
    eval_bench_ratios(&b);
    char dir[256], path[300];
    tu_mkdtemp(dir, sizeof dir, "bench-models");
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    ck_assert_int_eq(eval_bench_write(&b, path, err, sizeof err), 0);
    char *text = tu_read(path);
    ck_assert_msg(strstr(text, "\nmodel-dense-tfjs,chromium-swiftshader,64,64,64,,,,,,,,,,,,,,,1,ok,"), "%s",
                  text);
    ck_assert_msg(strstr(text, "\nmodel-encoder-glgemm,chromium-swiftshader,64,64,64,1x1,2x2,all,"), "%s", text);
    free(text);
    ck_assert_msg(eval_bench_read(path, &back, err, sizeof err) == 0, "%s", err);
    for (int i = GG_BENCH_MODEL_DENSE_TFJS; i <= GG_BENCH_MODEL_ENCODER_GLGEMM; i++) {
        ck_assert(back.rows[i].present);
        ck_assert_int_eq(back.rows[i].has_variant, b.rows[i].has_variant);
        ck_assert_double_eq_tol(back.rows[i].m.gflops, i, 1e-6);
        ck_assert_double_eq_tol(back.rows[i].ratio, i / 10.0, 1e-6);
    }
    tu_rm_rf(dir);
}
END_TEST

Suite *make_browser_suite(void)
{
    Suite *s = suite_create("browser");
    TCase *tc = tcase_create("browser");
    tcase_set_tags(tc, "browser slow");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_browser_variants_ok);
    tcase_add_loop_test(tc, test_browser_grid, 0, (int)(sizeof grid_angles / sizeof *grid_angles));
    tcase_add_test(tc, test_browser_angle_cli);
    tcase_add_loop_test(tc, test_browser_faults, 0, (int)(sizeof faults / sizeof *faults));
    tcase_add_test(tc, test_browser_group_kill);
    tcase_add_test(tc, test_browser_missing);
    tcase_add_test(tc, test_browser_killed_mid_tune);
    tcase_add_test(tc, test_browser_probe_bound);
    tcase_add_test(tc, test_browser_model_rows);
    suite_add_tcase(s, tc);
    TCase *pure = tcase_create("browser_csv");
    tcase_add_test(pure, test_bench_tfjs_row_csv);
    tcase_add_test(pure, test_bench_model_rows_csv);
    tcase_add_test(pure, test_browser_angle_slugs);
    suite_add_tcase(s, pure);
    return s;
}
