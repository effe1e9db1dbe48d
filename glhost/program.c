/* Building the GL program of a variant (see glhost/program.h). */
#include "glhost/program.h"

#include <GL/glew.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/spirv.h"
#include "base/clock.h"
#include "glhost/context.h"
#include "glhost/progcache.h"

static void set_detail(gg_program *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_detail(gg_program *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->detail, sizeof p->detail, fmt, ap);
    va_end(ap);
    for (char *c = p->detail; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

/* Appends "<title>:\n<text>" to p->log when text has anything in it. */
static void add_log(gg_program *p, const char *title, const char *text)
{
    if (!text)
        return;
    const char *t = text;
    while (*t == ' ' || *t == '\n' || *t == '\r' || *t == '\t')
        t++;
    if (!*t)
        return;
    size_t old = p->log ? strlen(p->log) : 0;
    size_t add = strlen(title) + 3 + strlen(t) + 1;
    char *n = realloc(p->log, old + add + 1);
    if (!n)
        return;
    snprintf(n + old, add + 1, "%s:\n%s%s", title, t, t[strlen(t) - 1] == '\n' ? "" : "\n");
    p->log = n;
}

/* The first line of a log that mentions an error, else its first line. */
static void first_error_line(const char *log, char *out, size_t len)
{
    out[0] = '\0';
    if (!log)
        return;
    const char *pick = NULL;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (!pick && n > 0)
            pick = line;
        for (size_t i = 0; i + 5 <= n; i++)
            if (!strncmp(line + i, "error", 5) || !strncmp(line + i, "ERROR", 5)) {
                pick = line;
                goto found;
            }
        if (!end)
            break;
        line = end + 1;
    }
found:
    if (pick) {
        const char *end = strchr(pick, '\n');
        size_t n = end ? (size_t)(end - pick) : strlen(pick);
        snprintf(out, len, "%.*s", (int)n, pick);
    }
}

static char *info_log(GLuint obj, bool is_program)
{
    GLint n = 0;
    if (is_program)
        glGetProgramiv(obj, GL_INFO_LOG_LENGTH, &n);
    else
        glGetShaderiv(obj, GL_INFO_LOG_LENGTH, &n);
    if (n <= 1)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    GLsizei got = 0;
    if (is_program)
        glGetProgramInfoLog(obj, n, &got, s);
    else
        glGetShaderInfoLog(obj, n, &got, s);
    s[got < n ? got : n] = '\0';
    return s;
}

/* One stage from GLSL source, compiled without asking how it went (finish
 * does); 0 when no shader object could be made (status, detail set). */
static GLuint start_glsl(gg_program *p, GLenum type, const char *src)
{
    GLuint sh = glCreateShader(type);
    if (!sh) {
        p->status = GG_GL_ERROR;
        set_detail(p, "glCreateShader failed (GL error 0x%04x)", glGetError());
        return 0;
    }
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    return sh;
}

/* glslang costs about 0.1 s a run, and every variant shares one vertex
 * shader: its binary is kept (one entry, keyed by the source), for the
 * process: threads building programs at once (a context each) read and
 * replace it under vert_lock. */
static struct {
    char *src;
    void *spv;
    size_t len;
} vert_cache;
static pthread_mutex_t vert_lock = PTHREAD_MUTEX_INITIALIZER;

static gg_spirv_result spirv_of(const char *src, GLenum type, void **spv, size_t *len, char **log)
{
    bool vert = type == GL_VERTEX_SHADER;
    if (vert) {
        pthread_mutex_lock(&vert_lock);
        bool hit = vert_cache.src && !strcmp(vert_cache.src, src) &&
                   (*spv = malloc(vert_cache.len)) != NULL;
        if (hit) {
            memcpy(*spv, vert_cache.spv, vert_cache.len);
            *len = vert_cache.len;
        }
        pthread_mutex_unlock(&vert_lock);
        if (hit) {
            *log = NULL;
            return GG_SPIRV_OK;
        }
    }
    gg_spirv_result r = base_spirv_compile(src, vert ? GG_STAGE_VERTEX : GG_STAGE_FRAGMENT, spv, len, log);
    if (vert && r == GG_SPIRV_OK) {
        char *s = strdup(src);
        void *b = malloc(*len);
        if (s && b) {
            memcpy(b, *spv, *len);
            pthread_mutex_lock(&vert_lock);
            free(vert_cache.src);
            free(vert_cache.spv);
            vert_cache.src = s;
            vert_cache.spv = b;
            vert_cache.len = *len;
            pthread_mutex_unlock(&vert_lock);
        } else {
            free(s);
            free(b);
        }
    }
    return r;
}

/* One stage through glslang and GL_ARB_gl_spirv, specialized without
 * asking how it went; *err gets the GL error of the specialization.  0 on
 * glslang's failure or when no shader object could be made (status,
 * detail, log set). */
static GLuint start_spirv(gg_program *p, GLenum type, const char *name, const char *src,
                          unsigned *err)
{
    void *spv = NULL;
    size_t len = 0;
    char *log = NULL;
    gg_spirv_result r = spirv_of(src, type, &spv, &len, &log);
    char title[48];
    snprintf(title, sizeof title, "%s (glslang)", name);
    add_log(p, title, r == GG_SPIRV_OK || r == GG_SPIRV_REJECTED ? log : NULL);
    if (r != GG_SPIRV_OK) {
        char line[200];
        first_error_line(log, line, sizeof line);
        snprintf(p->failed_stage, sizeof p->failed_stage, "%s", name);
        if (r == GG_SPIRV_REJECTED) {
            p->status = GG_COMPILE_ERROR;
            set_detail(p, "%s shader: glslang: %s", name, line[0] ? line : "rejected");
        } else {
            p->status = r == GG_SPIRV_NO_COMPILER ? GG_UNSUPPORTED : GG_GL_ERROR;
            set_detail(p, "%s shader: %s", name, line[0] ? line : "SPIR-V compilation failed");
        }
        free(log);
        return 0;
    }
    free(log);
    GLuint sh = glCreateShader(type);
    if (!sh) {
        free(spv);
        p->status = GG_GL_ERROR;
        set_detail(p, "glCreateShader failed (GL error 0x%04x)", glGetError());
        return 0;
    }
    glShaderBinary(1, &sh, GL_SHADER_BINARY_FORMAT_SPIR_V_ARB, spv, (GLsizei)len);
    free(spv);
    if (glSpecializeShaderARB)
        glSpecializeShaderARB(sh, "main", 0, NULL, NULL);
    else
        glSpecializeShader(sh, "main", 0, NULL, NULL);
    *err = glGetError();
    return sh;
}

/* Finish's check of one stage: false (status, detail set) when it failed;
 * its info log goes to p->log either way. */
static bool shader_ok(gg_program *p, GLuint sh, const char *name, bool spirv, unsigned err)
{
    GLint ok = GL_FALSE;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    char *log = info_log(sh, false);
    add_log(p, name, log);
    bool good = ok && err == GL_NO_ERROR;
    if (!good) {
        char line[200];
        first_error_line(log, line, sizeof line);
        p->status = GG_COMPILE_ERROR;
        snprintf(p->failed_stage, sizeof p->failed_stage, "%s", name);
        if (!spirv)
            set_detail(p, "%s shader: %s", name, line[0] ? line : "compile failed (no log)");
        else if (line[0])
            set_detail(p, "%s shader: glSpecializeShader: %s", name, line);
        else
            set_detail(p, "%s shader: glSpecializeShader failed (GL error 0x%04x)", name, err);
    }
    free(log);
    return good;
}

static bool link_ok(gg_program *p, GLuint prog)
{
    GLint ok = GL_FALSE;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    char *log = info_log(prog, true);
    add_log(p, "link", log);
    if (!ok) {
        char line[200];
        first_error_line(log, line, sizeof line);
        p->status = GG_LINK_ERROR;
        snprintf(p->failed_stage, sizeof p->failed_stage, "link");
        set_detail(p, "link: %s", line[0] ? line : "failed (no log)");
    }
    free(log);
    return ok;
}

/* With KHR/ARB_parallel_shader_compile: every compiler thread the driver
 * has (once per context: the limit is the context's state).  Whether the
 * context can say a compile is done. */
static bool parallel_setup(void)
{
    bool khr = host_gl_has_extension("GL_KHR_parallel_shader_compile");
    bool arb = !khr && host_gl_has_extension("GL_ARB_parallel_shader_compile");
    if (!khr && !arb)
        return false;
    GLint threads = 0;
    glGetIntegerv(GL_MAX_SHADER_COMPILER_THREADS_KHR, &threads);
    if ((GLuint)threads != 0xFFFFFFFFu) {
        if (khr && glMaxShaderCompilerThreadsKHR)
            glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
        else if (arb && glMaxShaderCompilerThreadsARB)
            glMaxShaderCompilerThreadsARB(0xFFFFFFFFu);
    }
    while (glGetError() != GL_NO_ERROR)
        ; /* a driver that lists the extension and refuses the query */
    return true;
}

/* Start's GL part, sources in p: the cache's program, or compile and link
 * without waiting.  Status set only for failures before the driver's. */
static void start_gl(gg_program *p, bool spirv)
{
    while (glGetError() != GL_NO_ERROR)
        ; /* errors of earlier work are not ours */
    p->pending.spirv = spirv;
    p->pending.parallel = parallel_setup();
    GLuint prog = host_progcache_load(p->vert_src, p->frag_src, spirv);
    if (prog) {
        p->cached = true;
        p->pending.prog = prog;
        p->pending.active = true;
        p->pending.start_err = glGetError();
        return;
    }
    GLuint vs = spirv ? start_spirv(p, GL_VERTEX_SHADER, "vertex", p->vert_src, &p->pending.vs_err)
                      : start_glsl(p, GL_VERTEX_SHADER, p->vert_src);
    if (!vs)
        return;
    GLuint fs = spirv ? start_spirv(p, GL_FRAGMENT_SHADER, "fragment", p->frag_src, &p->pending.fs_err)
                      : start_glsl(p, GL_FRAGMENT_SHADER, p->frag_src);
    if (!fs) {
        glDeleteShader(vs);
        return;
    }
    prog = glCreateProgram();
    if (!prog) {
        glDeleteShader(vs);
        glDeleteShader(fs);
        p->status = GG_GL_ERROR;
        set_detail(p, "glCreateProgram failed (GL error 0x%04x)", glGetError());
        return;
    }
    p->pending.store = host_progcache_prepare(prog);
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    if (!spirv)
        glBindAttribLocation(prog, 0, "aPos");
    glLinkProgram(prog);
    p->pending.prog = prog;
    p->pending.vs = vs;
    p->pending.fs = fs;
    p->pending.active = true;
    p->pending.start_err = glGetError();
}

/* The started program's shaders gone, and the program too unless kept;
 * returns the program. */
static GLuint drop_pending(gg_program *p, bool keep_prog)
{
    GLuint prog = p->pending.prog, sh[2] = {p->pending.vs, p->pending.fs};
    for (int i = 0; i < 2; i++)
        if (sh[i]) {
            if (prog)
                glDetachShader(prog, sh[i]);
            glDeleteShader(sh[i]);
        }
    if (prog && !keep_prog) {
        glDeleteProgram(prog);
        prog = 0;
    }
    memset(&p->pending, 0, sizeof p->pending);
    return prog;
}

/* Finish's last part on a linked program: in use, locations, units;
 * start_err: a GL error start saw. */
static void setup_program(gg_program *p, GLuint prog, bool spirv, GLenum start_err)
{
    glUseProgram(prog);
    if (spirv) {
        /* Fixed by the shader's layout(location/binding) (gen.h). */
        p->loc_kbase = 0;
        p->loc_alpha = 1;
    } else {
        /* Units of gen.h's contract; a sampler the shader lacks is -1 (a no-op). */
        p->loc_kbase = glGetUniformLocation(prog, "uKBase");
        p->loc_alpha = glGetUniformLocation(prog, "uAlpha");
        glUniform1i(glGetUniformLocation(prog, "uA"), 0);
        /* fetch=ubo: A's uniform block at binding 0 (profiles without
         * layout(binding); a no-op where the shader has none) */
        if (glGetUniformBlockIndex && glUniformBlockBinding) {
            GLuint blk = glGetUniformBlockIndex(prog, "ABlock");
            if (blk != GL_INVALID_INDEX)
                glUniformBlockBinding(prog, blk, 0);
        }
        glUniform1i(glGetUniformLocation(prog, "uB"), 1);
        for (int t = 0; t < GG_MAX_TARGETS; t++) {
            char name[24];
            snprintf(name, sizeof name, "uPrev%d", t);
            glUniform1i(glGetUniformLocation(prog, name), 2 + t);
        }
    }
    GLenum err = glGetError();
    if (err == GL_NO_ERROR)
        err = start_err;
    if (err != GL_NO_ERROR) {
        glUseProgram(0);
        glDeleteProgram(prog);
        p->status = GG_GL_ERROR;
        set_detail(p, "GL error 0x%04x while setting up the program", err);
        return;
    }
    p->prog = prog;
}

gg_status host_program_finish(gg_program *p)
{
    if (!p->pending.active)
        return p->status;
    double t0 = base_now_s();
    while (glGetError() != GL_NO_ERROR)
        ; /* errors of work between start and finish are not ours */
    bool spirv = p->pending.spirv, store = p->pending.store;
    GLenum start_err = p->pending.start_err;
    bool ok = p->cached ||
              (shader_ok(p, p->pending.vs, "vertex", spirv, p->pending.vs_err) &&
               shader_ok(p, p->pending.fs, "fragment", spirv, p->pending.fs_err) &&
               link_ok(p, p->pending.prog));
    GLuint prog = drop_pending(p, ok);
    if (ok) {
        setup_program(p, prog, spirv, start_err);
        if (p->status == GG_OK && store)
            host_progcache_store(prog, p->vert_src, p->frag_src, spirv);
    }
    p->compile_s += base_now_s() - t0;
    return p->status;
}

bool host_program_ready(const gg_program *p)
{
    if (!p->pending.active || !p->pending.parallel)
        return true;
    GLint done = GL_TRUE;
    glGetProgramiv(p->pending.prog, GL_COMPLETION_STATUS_KHR, &done);
    GLuint sh[2] = {p->pending.vs, p->pending.fs};
    for (int i = 0; i < 2 && done; i++)
        if (sh[i])
            glGetShaderiv(sh[i], GL_COMPLETION_STATUS_KHR, &done);
    return done != GL_FALSE;
}

static void start(gg_program *p)
{
    memset(p, 0, sizeof *p);
    p->loc_kbase = p->loc_alpha = -1;
    p->status = GG_OK;
}

static bool spirv_usable(gg_program *p)
{
    if (!base_spirv_available()) {
        p->status = GG_UNSUPPORTED;
        set_detail(p, "compiler=spirv: glslangValidator is not installed (glslang-tools)");
        return false;
    }
    if (!glSpecializeShaderARB && !glSpecializeShader) {
        p->status = GG_UNSUPPORTED;
        set_detail(p, "compiler=spirv: this context has no glSpecializeShader (GL_ARB_gl_spirv)");
        return false;
    }
    return true;
}

gg_status host_program_start(gg_program *p, const gg_variant *v, int m, int n, int k)
{
    start(p);
    double t0 = base_now_s();
    bool spirv = v->compiler == GG_COMPILER_SPIRV;
    if (spirv && v->profile != GG_PROFILE_330) {
        p->status = GG_INVALID;
        set_detail(p, "compiler=spirv needs profile=330");
        return p->status;
    }
    if (spirv && !spirv_usable(p))
        return p->status;
    p->frag_src = gen_emit_fragment(v, m, n, k);
    p->vert_src = gen_emit_vertex(v);
    if (!p->frag_src || !p->vert_src) {
        p->status = GG_GL_ERROR;
        set_detail(p, "cannot emit the shaders for %dx%dx%d (sizes out of range or no memory)", m, n,
                   k);
        return p->status;
    }
    start_gl(p, spirv);
    p->compile_s = base_now_s() - t0;
    return p->status;
}

gg_status host_program_start_text(gg_program *p, const char *vert, const char *frag, bool spirv)
{
    start(p);
    double t0 = base_now_s();
    if (spirv && !spirv_usable(p))
        return p->status;
    p->vert_src = strdup(vert);
    p->frag_src = strdup(frag);
    if (!p->vert_src || !p->frag_src) {
        p->status = GG_GL_ERROR;
        set_detail(p, "out of memory");
        return p->status;
    }
    start_gl(p, spirv);
    p->compile_s = base_now_s() - t0;
    return p->status;
}

gg_status host_program_build(gg_program *p, const gg_variant *v, int m, int n, int k)
{
    host_program_start(p, v, m, n, k);
    return host_program_finish(p);
}

gg_status host_program_build_text(gg_program *p, const char *vert, const char *frag, bool spirv)
{
    host_program_start_text(p, vert, frag, spirv);
    return host_program_finish(p);
}

void host_program_free(gg_program *p)
{
    drop_pending(p, false);
    if (p->prog) {
        GLint cur = 0;
        glGetIntegerv(GL_CURRENT_PROGRAM, &cur);
        if ((GLuint)cur == p->prog)
            glUseProgram(0);
        glDeleteProgram(p->prog);
    }
    host_program_forget(p);
}

void host_program_forget(gg_program *p)
{
    free(p->log);
    free(p->frag_src);
    free(p->vert_src);
    memset(p, 0, sizeof *p);
}

static void print_numbered(FILE *f, const char *src)
{
    int line = 1;
    const char *s = src;
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        fprintf(f, "%4d: %.*s\n", line++, (int)n, s);
        if (!end)
            break;
        s = end + 1;
    }
}

void host_program_print_failure(const gg_program *p, FILE *f)
{
    fprintf(f, "status %s: %s\n", base_status_name(p->status), p->detail);
    if (p->log)
        fprintf(f, "--- info log ---\n%s", p->log);
    bool vert = !strcmp(p->failed_stage, "vertex");
    const char *src = vert ? p->vert_src : p->frag_src;
    if (src) {
        fprintf(f, "--- %s shader source ---\n", vert ? "vertex" : "fragment");
        print_numbered(f, src);
    }
}
