/* glhost/ contexts: every backend x kind renders, info agrees with GL, the
 * slug rule, and the CLI's failure paths (info, devices).
 *
 * This suite includes GL (GLEW) itself: it checks what glhost reports against
 * what GL answers and does, so it must ask GL directly.  Every GL case makes
 * its context inside the test (Check forks each one; a context does not
 * survive fork()).  GLFW cases need an X display: without DISPLAY they are
 * not added, and the suite says so on stderr (`make check` runs under
 * xvfb-run, so they run there).  CLI cases run $GLGEMM_BIN (else ./glgemm). */
#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spirv.h"
#include "glhost/context.h"
#include "tests/cli_util.h"
#include "tests/suites.h"

static const gg_ctx_kind kinds[] = {GG_CTX_COMPAT, GG_CTX_CORE, GG_CTX_ES3};
#define NKINDS 3

static gg_ctx *make(gg_backend b, gg_ctx_kind k)
{
    char err[512] = "";
    bool no_device = true;
    gg_ctx *ctx = host_ctx_create(b, 0, k, err, sizeof err, &no_device);
    ck_assert_msg(ctx != NULL, "%s %s context: %s", host_backend_name(b), host_ctx_kind_name(k), err);
    ck_assert(!no_device);
    return ctx;
}

static bool on_llvmpipe(const gg_ctx_info *in) { return strstr(in->renderer, "llvmpipe") != NULL; }

/* ---- a real draw: compile, link, render a float constant into an RGBA32F
 * target, read it back; with blending on, a second draw must add. */

static const char *const vs_src[NKINDS] = {
    "#version 120\nattribute vec2 aPos;\nvoid main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n",
    "#version 330 core\nlayout(location = 0) in vec2 aPos;\n"
    "void main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n",
    "#version 300 es\nlayout(location = 0) in vec2 aPos;\n"
    "void main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n",
};
static const char *const fs_src[NKINDS] = {
    "#version 120\nuniform vec4 uVal;\nvoid main() { gl_FragData[0] = uVal; }\n",
    "#version 330 core\nuniform vec4 uVal;\nlayout(location = 0) out vec4 o;\nvoid main() { o = uVal; }\n",
    "#version 300 es\nprecision highp float;\nuniform vec4 uVal;\nlayout(location = 0) out vec4 o;\n"
    "void main() { o = uVal; }\n",
};

static GLuint compile(GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    char log[1024] = "";
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    ck_assert_msg(ok, "shader does not compile: %s\n%s", log, src);
    return s;
}

typedef struct {
    GLuint prog, vao, vbo, fbo, tex;
    GLint uval;
} scene;

static void scene_make(scene *sc, int kind)
{
    memset(sc, 0, sizeof *sc);
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src[kind]);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src[kind]);
    sc->prog = glCreateProgram();
    glAttachShader(sc->prog, vs);
    glAttachShader(sc->prog, fs);
    glBindAttribLocation(sc->prog, 0, "aPos");
    glLinkProgram(sc->prog);
    GLint ok = 0;
    glGetProgramiv(sc->prog, GL_LINK_STATUS, &ok);
    ck_assert_msg(ok, "program does not link");
    glDeleteShader(vs);
    glDeleteShader(fs);
    sc->uval = glGetUniformLocation(sc->prog, "uVal");
    ck_assert_int_ge(sc->uval, 0);

    static const float tri[] = {-1, -1, 3, -1, -1, 3};
    if (kinds[kind] != GG_CTX_COMPAT) {
        glGenVertexArrays(1, &sc->vao);
        glBindVertexArray(sc->vao);
    }
    glGenBuffers(1, &sc->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, sc->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);

    glGenTextures(1, &sc->tex);
    glBindTexture(GL_TEXTURE_2D, sc->tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 4, 4, 0, GL_RGBA, GL_FLOAT, NULL);
    glGenFramebuffers(1, &sc->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, sc->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, sc->tex, 0);
    GLenum buf = GL_COLOR_ATTACHMENT0;
    glDrawBuffers(1, &buf);
    glViewport(0, 0, 4, 4);
    glUseProgram(sc->prog);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

static void scene_draw_check(const scene *sc, const float want[4], const char *what)
{
    glUniform4f(sc->uval, 0.25f, -1.5f, 3.0f, 1.0e6f);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    float px[4 * 4 * 4];
    glReadPixels(0, 0, 4, 4, GL_RGBA, GL_FLOAT, px);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 4; c++)
            ck_assert_msg(px[4 * i + c] == want[c], "%s: texel %d channel %d is %g, want %g", what, i, c,
                          (double)px[4 * i + c], (double)want[c]);
}

static void scene_free(scene *sc)
{
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &sc->fbo);
    glDeleteTextures(1, &sc->tex);
    glDeleteBuffers(1, &sc->vbo);
    if (sc->vao)
        glDeleteVertexArrays(1, &sc->vao);
    glDeleteProgram(sc->prog);
}

/* The context has the kind asked for: API, version, profile. */
static void check_kind(const gg_ctx_info *in, gg_ctx_kind k)
{
    const char *ver = (const char *)glGetString(GL_VERSION);
    ck_assert_str_eq(in->version, ver);
    ck_assert_str_eq(in->renderer, (const char *)glGetString(GL_RENDERER));
    ck_assert_str_eq(in->vendor, (const char *)glGetString(GL_VENDOR));
    ck_assert_str_eq(in->glsl, (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    ck_assert_str_eq(in->kind, host_ctx_kind_name(k));
    bool es = strncmp(ver, "OpenGL ES", 9) == 0;
    ck_assert_msg(es == (k == GG_CTX_ES3), "kind %s got \"%s\"", host_ctx_kind_name(k), ver);
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (k == GG_CTX_ES3)
        ck_assert_int_ge(major, 3);
    if (k == GG_CTX_CORE || (k == GG_CTX_COMPAT && major * 10 + minor >= 32)) {
        ck_assert_int_ge(major * 10 + minor, k == GG_CTX_CORE ? 33 : 32);
        GLint mask = 0;
        glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
        ck_assert_msg(mask & (k == GG_CTX_CORE ? GL_CONTEXT_CORE_PROFILE_BIT
                                               : GL_CONTEXT_COMPATIBILITY_PROFILE_BIT),
                      "kind %s: profile mask 0x%x", host_ctx_kind_name(k), (unsigned)mask);
    }
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

static void render_case(gg_backend b, int i)
{
    gg_ctx *ctx = make(b, kinds[i]);
    gg_ctx_info in;
    host_ctx_query(ctx, &in);
    ck_assert_str_eq(in.backend, host_backend_name(b));
    check_kind(&in, kinds[i]);
    ck_assert_msg(in.float_render, "%s: no float render targets", in.version);
    scene sc;
    scene_make(&sc, i);
    static const float once[4] = {0.25f, -1.5f, 3.0f, 1.0e6f};
    scene_draw_check(&sc, once, "draw");
    scene_free(&sc);
    host_ctx_destroy(ctx);
}

START_TEST(egl_kind_renders) { render_case(GG_BACKEND_EGL, _i); }
END_TEST

START_TEST(glfw_kind_renders) { render_case(GG_BACKEND_GLFW, _i); }
END_TEST

/* glslang (gen/spirv) turns a GLSL 4.50 fragment shader into SPIR-V; the
 * driver must accept it through glShaderBinary + glSpecializeShader. */
static void spirv_compiles(void)
{
    void *spv = NULL;
    size_t len = 0;
    char *log = NULL;
    gg_spirv_result r = base_spirv_compile("#version 450\nlayout(location = 0) uniform vec4 uVal;\n"
                                         "layout(location = 0) out vec4 o;\nvoid main() { o = uVal; }\n",
                                         GG_STAGE_FRAGMENT, &spv, &len, &log);
    ck_assert_msg(r == GG_SPIRV_OK, "glslang: %d: %s", (int)r, log ? log : "");
    free(log);
    GLuint sh = glCreateShader(GL_FRAGMENT_SHADER);
    glShaderBinary(1, &sh, GL_SHADER_BINARY_FORMAT_SPIR_V, spv, (GLsizei)len);
    if (glSpecializeShader)
        glSpecializeShader(sh, "main", 0, NULL, NULL);
    else
        glSpecializeShaderARB(sh, "main", 0, NULL, NULL);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    glDeleteShader(sh);
    free(spv);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    ck_assert_msg(ok, "SPIR-V shader does not specialize");
}

/* ---- every limit and feature info reports, against GL. */
START_TEST(info_matches_gl)
{
    gg_ctx *ctx = make(GG_BACKEND_EGL, kinds[_i]);
    gg_ctx_info in;
    host_ctx_query(ctx, &in);
    GLint x = -1;
    glGetIntegerv(GL_MAX_DRAW_BUFFERS, &x);
    ck_assert_int_eq(in.max_draw_buffers, x);
    ck_assert_int_ge(in.max_draw_buffers, 4); /* GL 3 / ES 3 minimum */
    GLint att = 0;
    glGetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &att);
    ck_assert_int_ge(att, in.max_draw_buffers);
    x = -1;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &x);
    ck_assert_int_eq(in.max_texture_size, x);
    ck_assert_int_ge(in.max_texture_size, 2048);

    /* A texture as wide as the limit is accepted; one texel more is not. */
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, in.max_texture_size, 1, 0, GL_RED, GL_FLOAT, NULL);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, in.max_texture_size + 1, 1, 0, GL_RED, GL_FLOAT, NULL);
    ck_assert_int_eq(glGetError(), GL_INVALID_VALUE);
    glDeleteTextures(1, &tex);

    scene sc;
    scene_make(&sc, _i);
    static const float once[4] = {0.25f, -1.5f, 3.0f, 1.0e6f};
    scene_draw_check(&sc, once, "draw");
    if (in.float_blend) {
        /* Unclamped float blending: a second draw adds exactly. */
        static const float twice[4] = {0.5f, -3.0f, 6.0f, 2.0e6f};
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
        scene_draw_check(&sc, twice, "blended draw");
        glDisable(GL_BLEND);
    }
    if (in.timer_query) {
        GLuint q;
        glGenQueries(1, &q);
        glBeginQuery(GL_TIME_ELAPSED, q);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glEndQuery(GL_TIME_ELAPSED);
        GLuint ns = 0;
        glGetQueryObjectuiv(q, GL_QUERY_RESULT, &ns);
        glDeleteQueries(1, &q);
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    }
    if (in.texture_barrier) {
        ck_assert(glTextureBarrier != NULL || glTextureBarrierNV != NULL);
        if (glTextureBarrier)
            glTextureBarrier();
        else
            glTextureBarrierNV();
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    }
    if (in.spirv) {
        /* A SPIR-V fragment shader made by glslang loads and specializes. */
        ck_assert(glSpecializeShader != NULL || glSpecializeShaderARB != NULL);
        spirv_compiles();
    }
    if (in.robustness) {
        PFNGLGETGRAPHICSRESETSTATUSPROC reset =
            glGetGraphicsResetStatus ? glGetGraphicsResetStatus : glGetGraphicsResetStatusARB;
        ck_assert(reset != NULL);
        ck_assert_int_eq(reset(), GL_NO_ERROR);
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    }
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);

    gg_card_limits lim;
    host_ctx_limits(&in, &lim);
    ck_assert_int_eq(lim.max_draw_buffers, in.max_draw_buffers);
    ck_assert_int_eq(lim.max_texture_size, in.max_texture_size);
    ck_assert(lim.float_blend == in.float_blend);
    ck_assert(!lim.spirv || in.spirv);

    /* What llvmpipe (Mesa 22) is measured to offer: the "no" answers are
     * checked here, where the "yes" answers are checked by use above. */
    if (on_llvmpipe(&in)) {
        ck_assert_int_eq(in.max_draw_buffers, 8);
        ck_assert_int_eq(in.max_texture_size, 16384);
        ck_assert(in.float_render && in.float_blend && in.timer_query && in.robustness);
        if (kinds[_i] == GG_CTX_ES3)
            ck_assert(!in.spirv);
        else
            ck_assert(in.texture_barrier && in.spirv);
    }
    scene_free(&sc);
    host_ctx_destroy(ctx);
}
END_TEST

/* Two contexts at once share a display: each can be made current and used,
 * and destroying one leaves the other working. */
START_TEST(two_contexts)
{
    gg_ctx *core = make(GG_BACKEND_EGL, GG_CTX_CORE);
    gg_ctx *es = make(GG_BACKEND_EGL, GG_CTX_ES3);
    ck_assert(strncmp((const char *)glGetString(GL_VERSION), "OpenGL ES", 9) == 0);
    char err[256];
    ck_assert_int_eq(host_ctx_make_current(core, err, sizeof err), 0);
    ck_assert(strncmp((const char *)glGetString(GL_VERSION), "OpenGL ES", 9) != 0);
    host_ctx_destroy(core);
    ck_assert_int_eq(host_ctx_make_current(es, err, sizeof err), 0);
    scene sc;
    scene_make(&sc, 2);
    static const float once[4] = {0.25f, -1.5f, 3.0f, 1.0e6f};
    scene_draw_check(&sc, once, "draw after the other context went");
    scene_free(&sc);
    host_ctx_destroy(es);
    host_ctx_destroy(make(GG_BACKEND_EGL, GG_CTX_COMPAT)); /* the display opens again */
}
END_TEST

/* A device index that does not exist is bad usage, named in one line. */
START_TEST(egl_no_such_device)
{
    static const int devices[] = {-1, 9, 1023};
    char err[512] = "";
    bool no_device = false;
    gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, devices[_i], GG_CTX_CORE, err, sizeof err, &no_device);
    ck_assert_ptr_null(ctx);
    ck_assert(no_device);
    char want[64];
    snprintf(want, sizeof want, "EGL: no device %d", devices[_i]);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "err: %s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* GLFW without a display: a decoded GLFW error, not a crash. */
START_TEST(glfw_without_display)
{
    unsetenv("DISPLAY");
    char err[512] = "";
    bool no_device = true;
    gg_ctx *ctx = host_ctx_create(GG_BACKEND_GLFW, 0, GG_CTX_CORE, err, sizeof err, &no_device);
    ck_assert_ptr_null(ctx);
    ck_assert(!no_device);
    ck_assert_msg(strncmp(err, "GLFW: ", 6) == 0 && strstr(err, "(GLFW_PLATFORM_ERROR)") &&
                      strstr(err, "DISPLAY"),
                  "err: %s", err);
}
END_TEST

START_TEST(egl_devices_listed)
{
    char lines[8][256], err[256];
    int n = host_egl_devices(lines, 8, err, sizeof err);
    ck_assert_msg(n >= 1, "devices: %d (%s)", n, err);
    /* Every listed index makes a context; the next one is no device. */
    for (int i = 0; i < n; i++) {
        char e[512];
        gg_ctx *ctx = host_ctx_create(GG_BACKEND_EGL, i, GG_CTX_CORE, e, sizeof e, NULL);
        ck_assert_msg(ctx != NULL, "device %d (%s): %s", i, lines[i], e);
        host_ctx_destroy(ctx);
    }
    bool no_device = false;
    ck_assert_ptr_null(host_ctx_create(GG_BACKEND_EGL, n, GG_CTX_CORE, err, sizeof err, &no_device));
    ck_assert(no_device);
}
END_TEST

/* ---- slug rule. */
static const struct {
    const char *renderer;
    size_t len;
    const char *slug;
} slugs[] = {
    {"llvmpipe (LLVM 15.0.6, 256 bits)", 64, "llvmpipe"},
    {"NVIDIA H100 80GB HBM3/PCIe/SSE2", 64, "nvidia-h100-80gb-hbm3"},
    {"NVIDIA H200/PCIe/SSE2", 64, "nvidia-h200"},
    {"NVIDIA GeForce RTX 4090/PCIe/SSE2", 64, "nvidia-geforce-rtx-4090"},
    {"Mesa Intel(R) UHD Graphics 620 (KBL GT2)", 64, "mesa-intel-uhd-graphics-620"},
    {"AMD Radeon RX 6800 XT (navi21, LLVM 15.0.7, DRM 3.49, 6.1.0)", 64, "amd-radeon-rx-6800-xt"},
    {"  --Weird__Name!!  v2 ", 64, "weird-name-v2"},
    {"\xc3\x84rger GPU", 64, "rger-gpu"},
    {"(all in parentheses)", 64, "unknown"},
    {"/PCIe/SSE2", 64, "unknown"},
    {"", 64, "unknown"},
    {"--- ...", 64, "unknown"},
    {"ab cd", 5, "ab"},        /* "ab-c" would be a cut word */
    {"ab cd", 6, "ab-cd"},
    {"abc defgh", 8, "abc"},   /* a partly written word is dropped */
    {"x", 1, ""},
};

START_TEST(slug_rule)
{
    char out[64];
    memset(out, 'Z', sizeof out);
    base_slug(slugs[_i].renderer, out, slugs[_i].len);
    ck_assert_str_eq(out, slugs[_i].slug);
    for (const char *p = out; *p; p++)
        ck_assert(strchr("abcdefghijklmnopqrstuvwxyz0123456789-", *p) != NULL);
}
END_TEST

/* ---- the CLI. */
typedef struct {
    int rc;
    char out[8192], err[8192];
} cli_result;

/* Runs glgemm with args (tests/cli_util.h); env: "NAME=VALUE" to set or
 * "NAME" to unset. */
static void run_cli(const char *const *args, const char *env, cli_result *r)
{
    tu_result t;
    tu_exec(NULL, env, args, &t);
    ck_assert_msg(t.sig == 0, "glgemm did not exit (signal %d)", t.sig);
    r->rc = t.status;
    snprintf(r->out, sizeof r->out, "%s", t.out);
    snprintf(r->err, sizeof r->err, "%s", t.err);
    tu_result_free(&t);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#define A(...) ((const char *const[]){__VA_ARGS__, NULL})
static const struct {
    const char *const *args;
    const char *env;
    int rc;
    const char *err;   /* non-NULL: exactly this one line's text is in stderr, stdout is empty */
    const char *out;   /* non-NULL: stdout contains it */
} cli_cases[] = {
    {A("info", "--device", "9"), NULL, 2, "glgemm info: EGL: no device 9", NULL},
    {A("info", "--device", "-1"), NULL, 2, "--device must be a device index", NULL},
    {A("info", "--backend", "vulkan"), NULL, 2, "--backend must be egl, glfw or browser, got 'vulkan'", NULL},
    {A("info", "--kind", "gles2"), NULL, 2, "--kind must be compat, core or es3", NULL},
    {A("info", "extra"), NULL, 2, "takes no arguments", NULL},
    {A("info", "--bogus"), NULL, 2, "unknown option '--bogus'", NULL},
    {A("info"), "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json", 3, "glgemm info: EGL: ", NULL},
    {A("info", "--backend", "glfw"), "DISPLAY", 3, "glgemm info: GLFW: glfwInit failed", NULL},
    {A("devices"), "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json", 3, "glgemm devices: EGL: ", NULL},
    {A("devices", "x"), NULL, 2, "takes no arguments", NULL},
    {A("devices", "--backend", "glfw"), NULL, 2, "lists EGL devices only", NULL},
    {A("info", "--help"), NULL, 0, NULL, "usage: glgemm info"},
    {A("devices", "--help"), NULL, 0, NULL, "usage: glgemm devices"},
    {A("devices"), NULL, 0, NULL, "0: "},
    {A("info", "--kind", "es3"), NULL, 0, NULL, "context: es3\n"},
    {A("info", "--kind", "compat"), NULL, 0, NULL, "context: compat\n"},
};

START_TEST(cli_case)
{
    cli_result r;
    run_cli(cli_cases[_i].args, cli_cases[_i].env, &r);
    ck_assert_msg(r.rc == cli_cases[_i].rc, "%s: exit %d, want %d; stderr: %s", cli_cases[_i].args[0], r.rc,
                  cli_cases[_i].rc, r.err);
    if (cli_cases[_i].err) {
        ck_assert_msg(count_lines(r.err) == 1 && r.err[strlen(r.err) - 1] == '\n',
                      "want one line on stderr, got: %s", r.err);
        ck_assert_msg(strstr(r.err, cli_cases[_i].err) != NULL, "stderr '%s' lacks '%s'", r.err,
                      cli_cases[_i].err);
        ck_assert_str_eq(r.out, "");
    }
    if (cli_cases[_i].out)
        ck_assert_msg(strstr(r.out, cli_cases[_i].out) != NULL, "stdout lacks '%s': %s", cli_cases[_i].out,
                      r.out);
}
END_TEST

/* info on the default device: every field, and the slug as the last line,
 * made from the renderer line by the slug rule. */
static void check_info_output(const char *backend)
{
    cli_result r;
    if (backend)
        run_cli(A("info", "--backend", backend), NULL, &r);
    else
        run_cli(A("info"), NULL, &r);
    ck_assert_msg(r.rc == 0, "exit %d: %s", r.rc, r.err);
    static const char *const fields[] = {
        "backend: ", "device: ", "context: core\n", "vendor: ", "renderer: ", "version: ",
        "glsl version: ", "max draw buffers: ", "max texture size: ", "float render targets: ",
        "float blending: ", "texture barrier: ", "timer queries: ", "spir-v: ", "robustness: ",
        "shading language packing: ", "contexts:\n", "  compat ", "  core ", "  es3 "};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        ck_assert_msg(strstr(r.out, fields[i]) != NULL, "info lacks '%s': %s", fields[i], r.out);
    char want[64];
    snprintf(want, sizeof want, "backend: %s\n", backend ? backend : "egl");
    ck_assert(strncmp(r.out, want, strlen(want)) == 0);
    const char *ren = strstr(r.out, "renderer: ") + 10;
    char renderer[256];
    snprintf(renderer, sizeof renderer, "%.*s", (int)(strchr(ren, '\n') - ren), ren);
    char slug[128], last[160];
    base_slug(renderer, slug, sizeof slug);
    snprintf(last, sizeof last, "\nslug: %s\n", slug);
    size_t lo = strlen(r.out), ll = strlen(last);
    ck_assert_msg(lo > ll && strcmp(r.out + lo - ll, last) == 0, "info does not end with '%s': %s", last + 1,
                  r.out);
    if (strstr(renderer, "llvmpipe")) {
        ck_assert_str_eq(slug, "llvmpipe");
        /* llvmpipe makes all three kinds. */
        ck_assert_ptr_nonnull(strstr(r.out, "  compat ok  "));
        ck_assert_ptr_nonnull(strstr(r.out, "  core   ok  "));
        ck_assert_ptr_nonnull(strstr(r.out, "  es3    ok  OpenGL ES 3"));
    }
}

START_TEST(cli_info_egl) { check_info_output(NULL); }
END_TEST

START_TEST(cli_info_glfw) { check_info_output("glfw"); }
END_TEST

Suite *make_context_suite(void)
{
    Suite *s = suite_create("context");

    TCase *tc = tcase_create("slug");
    tcase_add_loop_test(tc, slug_rule, 0, (int)(sizeof slugs / sizeof *slugs));
    suite_add_tcase(s, tc);

    tc = tcase_create("egl");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, egl_kind_renders, 0, NKINDS);
    tcase_add_loop_test(tc, info_matches_gl, 0, NKINDS);
    tcase_add_test(tc, two_contexts);
    tcase_add_loop_test(tc, egl_no_such_device, 0, 3);
    tcase_add_test(tc, egl_devices_listed);
    suite_add_tcase(s, tc);

    tc = tcase_create("glfw_nodisplay");
    tcase_add_test(tc, glfw_without_display);
    suite_add_tcase(s, tc);

    tc = tcase_create("cli");
    tcase_set_tags(tc, "gl");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cli_case, 0, (int)(sizeof cli_cases / sizeof *cli_cases));
    tcase_add_test(tc, cli_info_egl);
    suite_add_tcase(s, tc);

    const char *display = getenv("DISPLAY");
    if (display && *display) {
        tc = tcase_create("glfw");
        tcase_set_tags(tc, "gl glfw");
        tcase_set_timeout(tc, 60);
        tcase_add_loop_test(tc, glfw_kind_renders, 0, NKINDS);
        tcase_add_test(tc, cli_info_glfw);
        suite_add_tcase(s, tc);
    } else {
        fprintf(stderr, "context: GLFW cases skipped: no DISPLAY (make check runs them under xvfb-run)\n");
    }
    return s;
}
