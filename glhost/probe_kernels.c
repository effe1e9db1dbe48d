/* The probe's kernels on the native context: the GL objects of a kernel
 * (program, source texture, targets or image) and its draws and reads.
 * Their GLSL and CPU models are GL-free: probe_src.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/half.h"
#include "glhost/probe_internal.h"

/* The barrier the GEMM's host puts after every out=image pass (run_steps.c). */
#define PK_IMAGE_BARRIER                                                                  \
    (GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |                  \
     GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT)

static const char *fetch_fmt_label(int fmt)
{
    return fmt == GG_FETCH_R32F ? "R32F" : fmt == GG_FETCH_RGBA16F ? "RGBA16F" : "RGBA32F";
}

static void first_line(char *dst, size_t len, const char *log)
{
    size_t n = strcspn(log, "\n");
    while (n > 0 && (log[n - 1] == '\r' || log[n - 1] == ' '))
        n--;
    snprintf(dst, len, "%.*s", (int)n, log);
}

static GLuint compile(GLenum type, const char *src, char *detail, size_t len)
{
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        char line[512];
        first_line(line, sizeof line, log);
        snprintf(detail, len, "probe %s shader does not compile: %s",
                 type == GL_VERTEX_SHADER ? "vertex" : "fragment", line);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

static gg_status link_program(const char *vs_src, const char *fs_src, GLuint *prog, char *detail,
                              size_t len)
{
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src, detail, len);
    if (!vs)
        return GG_COMPILE_ERROR;
    GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src, detail, len);
    if (!fs) {
        glDeleteShader(vs);
        return GG_COMPILE_ERROR;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "", line[512];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        first_line(line, sizeof line, log);
        snprintf(detail, len, "probe program does not link: %s", line);
        glDeleteProgram(p);
        return GG_LINK_ERROR;
    }
    *prog = p;
    return GG_OK;
}

/* The 2D source: the sampler state of the GEMM's input textures
 * (glhost/run_steps.c); immutable for the image path, as the host makes it for
 * fetch=image (ES 3.1 binds immutable textures only). */
static void upload_2d(const pk_kernel *k, GLenum internal, int w, int h, const float *data)
{
    glBindTexture(GL_TEXTURE_2D, k->src);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    GLenum format = k->d.fmt == GG_FETCH_R32F ? GL_RED : GL_RGBA;
    if (k->d.path == GG_FETCH_IMAGE) {
        glTexStorage2D(GL_TEXTURE_2D, 1, internal, w, h);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, format, GL_FLOAT, data);
    } else {
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, format, GL_FLOAT, data);
    }
}

static gg_status upload_source(pk_kernel *k, char *detail, size_t len)
{
    int w = 1 << k->d.tex_log2w, h = 1 << k->d.tex_log2h;
    int ch = k->d.fmt == GG_FETCH_R32F ? 1 : 4;
    /* Texel values are multiples of 2^-10 below 1: exact in half floats
     * too, so the driver's conversion to RGBA16F cannot round them. */
    size_t n = (size_t)w * (size_t)h * (size_t)ch;
    float *data = malloc(n * sizeof *data);
    if (!data) {
        snprintf(detail, len, "probe: out of memory for a %dx%d texture", w, h);
        return GG_GL_ERROR;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        for (int c = 0; c < ch; c++)
            data[i * (size_t)ch + (size_t)c] = host_probe_texel_value((uint32_t)i, c);
    GLenum internal = k->d.fmt == GG_FETCH_R32F      ? GL_R32F
                      : k->d.fmt == GG_FETCH_RGBA16F ? GL_RGBA16F
                                                   : GL_RGBA32F;
    glGenTextures(1, &k->src);
    glActiveTexture(GL_TEXTURE0);
    if (k->d.path == GG_FETCH_SSBO) {
        /* The RGBA32F texels row by row as vec4s (probe_data.h). */
        glGenBuffers(1, &k->srcbuf);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, k->srcbuf);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(n * 4), data, GL_STATIC_DRAW);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    } else if (k->d.path == GG_FETCH_BUFFER) {
        /* The texels row by row; a buffer is not converted by the driver:
         * RGBA16F gets halves made here, as the host does for store=f16. */
        bool half = k->d.fmt == GG_FETCH_RGBA16F;
        uint16_t *halves = half ? malloc(n * sizeof *halves) : NULL;
        if (half && !halves) {
            free(data);
            snprintf(detail, len, "probe: out of memory for a %dx%d texture", w, h);
            return GG_GL_ERROR;
        }
        if (half)
            gen_floats_to_halves(halves, data, n);
        glGenBuffers(1, &k->srcbuf);
        glBindBuffer(GL_TEXTURE_BUFFER, k->srcbuf);
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(n * (half ? 2 : 4)),
                     half ? (const void *)halves : (const void *)data, GL_STATIC_DRAW);
        glBindTexture(GL_TEXTURE_BUFFER, k->src);
        glTexBuffer(GL_TEXTURE_BUFFER, internal, k->srcbuf);
        glBindTexture(GL_TEXTURE_BUFFER, 0);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
        free(halves);
    } else {
        upload_2d(k, internal, w, h, data);
    }
    free(data);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        snprintf(detail, len, "probe: uploading a %dx%d %s %s: GL error 0x%04x", w, h,
                 fetch_fmt_label(k->d.fmt), k->d.path == GG_FETCH_BUFFER ? "buffer texture" : "texture",
                 e);
        return GG_GL_ERROR;
    }
    return GG_OK;
}

static gg_status make_targets(pk_kernel *k, char *detail, size_t len)
{
    glGenFramebuffers(1, &k->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, k->fbo);
    GLenum bufs[GG_MAX_TARGETS];
    glGenTextures(k->d.targets, k->tex);
    for (int t = 0; t < k->d.targets; t++) {
        glBindTexture(GL_TEXTURE_2D, k->tex[t]);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, k->d.w, k->d.h, 0, GL_RGBA, GL_FLOAT, NULL);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + (GLenum)t, GL_TEXTURE_2D,
                               k->tex[t], 0);
        bufs[t] = GL_COLOR_ATTACHMENT0 + (GLenum)t;
    }
    glDrawBuffers(k->d.targets, bufs);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(detail, len, "probe: %d RGBA32F targets of %dx%d: framebuffer incomplete (0x%04x)",
                 k->d.targets, k->d.w, k->d.h, st);
        return GG_FBO_INCOMPLETE;
    }
    return GG_OK;
}

/* PK_STORE: the image (immutable RGBA32F, cleared to zero through rfbo, to
 * which it is attached for reading back) and a framebuffer without
 * attachments of the viewport's size to draw into. */
static gg_status make_image(pk_kernel *k, char *detail, size_t len)
{
    if (!glTexStorage2D || !glBindImageTexture || !glMemoryBarrier || !glFramebufferParameteri) {
        snprintf(detail, len, "probe: imageStore needs GL 4.3 (glTexStorage2D, "
                              "glBindImageTexture, glMemoryBarrier, glFramebufferParameteri)");
        return GG_UNSUPPORTED;
    }
    glGenTextures(1, &k->tex[0]);
    glBindTexture(GL_TEXTURE_2D, k->tex[0]);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, k->d.w, k->d.h);
    glGenFramebuffers(1, &k->rfbo);
    glBindFramebuffer(GL_FRAMEBUFFER, k->rfbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, k->tex[0], 0);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(detail, len, "probe: an RGBA32F image of %dx%d: framebuffer incomplete (0x%04x)",
                 k->d.w, k->d.h, st);
        return GG_FBO_INCOMPLETE;
    }
    static const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glGenFramebuffers(1, &k->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, k->fbo);
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, k->d.w / k->d.blk);
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, k->d.h / k->d.blk);
    st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        snprintf(detail, len, "probe: a framebuffer without attachments of %dx%d: incomplete "
                              "(0x%04x)", k->d.w / k->d.blk, k->d.h / k->d.blk, st);
        return GG_FBO_INCOMPLETE;
    }
    return GG_OK;
}

static GLenum src_internal(const pk_kernel *k)
{
    return k->d.fmt == GG_FETCH_R32F ? GL_R32F : k->d.fmt == GG_FETCH_RGBA16F ? GL_RGBA16F : GL_RGBA32F;
}

gg_status pk_init(pk_kernel *k, char *detail, size_t len)
{
    k->prog = k->vao = k->vbo = k->fbo = k->src = k->srcbuf = k->rfbo = 0;
    memset(k->tex, 0, sizeof k->tex);
    gg_status st = host_probe_kernel_check(&k->d, detail, len);
    if (st != GG_OK)
        return st;
    if (host_probe_kernel_needs_430(&k->d) && !glBindImageTexture) {
        snprintf(detail, len, "probe: images need GL 4.3 (no glBindImageTexture)");
        return GG_UNSUPPORTED;
    }
    if (k->d.kind == PK_FETCH && k->d.path == GG_FETCH_BUFFER && !glTexBuffer) {
        snprintf(detail, len, "probe: buffer textures need GL 3.1 (no glTexBuffer)");
        return GG_UNSUPPORTED;
    }
    glGetError(); /* start clean: errors below are this kernel's */
    char *fs = malloc(HOST_PROBE_SRC_MAX);
    if (!fs) {
        snprintf(detail, len, "probe: out of memory");
        return GG_GL_ERROR;
    }
    const char *vs = NULL;
    st = host_probe_kernel_source(&k->d, false, fs, HOST_PROBE_SRC_MAX, &vs, detail, len);
    if (st == GG_OK)
        st = link_program(vs, fs, &k->prog, detail, len);
    free(fs);
    if (st != GG_OK)
        return st;

    static const float tri[] = {-1.f, -1.f, 3.f, -1.f, -1.f, 3.f};
    glGenVertexArrays(1, &k->vao);
    glBindVertexArray(k->vao);
    glGenBuffers(1, &k->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, k->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);

    glUseProgram(k->prog);
    k->u_iters = glGetUniformLocation(k->prog, "uIters");
    if (k->d.kind == PK_MAD) {
        glUniform4f(glGetUniformLocation(k->prog, "uMul"), PK_MUL_X, PK_MUL_Y, PK_MUL_Z, PK_MUL_W);
        glUniform4f(glGetUniformLocation(k->prog, "uAdd"), PK_ADD_X, PK_ADD_Y, PK_ADD_Z, PK_ADD_W);
    }
    if (k->d.kind == PK_FETCH) {
        glUniform1i(glGetUniformLocation(k->prog, "uTex"), 0);
        if ((st = upload_source(k, detail, len)) != GG_OK)
            return st;
    }
    if ((st = k->d.kind == PK_STORE ? make_image(k, detail, len) : make_targets(k, detail, len)) !=
        GG_OK)
        return st;
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        snprintf(detail, len, "probe: setting up a kernel: GL error 0x%04x", e);
        return GG_GL_ERROR;
    }
    return GG_OK;
}

void pk_free(pk_kernel *k)
{
    if (k->prog)
        glDeleteProgram(k->prog);
    if (k->vbo)
        glDeleteBuffers(1, &k->vbo);
    if (k->vao)
        glDeleteVertexArrays(1, &k->vao);
    if (k->fbo)
        glDeleteFramebuffers(1, &k->fbo);
    if (k->rfbo)
        glDeleteFramebuffers(1, &k->rfbo);
    if (k->src)
        glDeleteTextures(1, &k->src);
    if (k->srcbuf)
        glDeleteBuffers(1, &k->srcbuf);
    for (int t = 0; t < GG_MAX_TARGETS; t++)
        if (k->tex[t])
            glDeleteTextures(1, &k->tex[t]);
    k->prog = k->vbo = k->vao = k->fbo = k->rfbo = k->src = k->srcbuf = 0;
    memset(k->tex, 0, sizeof k->tex);
}

void pk_draw(const pk_kernel *k, int iters)
{
    glBindFramebuffer(GL_FRAMEBUFFER, k->fbo);
    if (k->d.kind == PK_STORE)
        glViewport(0, 0, k->d.w / k->d.blk, k->d.h / k->d.blk);
    else
        glViewport(0, 0, k->d.w, k->d.h);
    glUseProgram(k->prog);
    glBindVertexArray(k->vao);
    if (k->d.kind == PK_FETCH && k->d.path == GG_FETCH_IMAGE) {
        glBindImageTexture(0, k->src, 0, GL_FALSE, 0, GL_READ_ONLY, src_internal(k));
    } else if (k->d.kind == PK_FETCH && k->d.path == GG_FETCH_SSBO) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, k->srcbuf);
    } else if (k->d.kind == PK_FETCH) {
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(k->d.path == GG_FETCH_BUFFER ? GL_TEXTURE_BUFFER : GL_TEXTURE_2D, k->src);
    }
    if (k->d.kind == PK_STORE)
        glBindImageTexture(0, k->tex[0], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    if (k->u_iters >= 0)
        glUniform1i(k->u_iters, iters);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (k->d.kind == PK_STORE)
        glMemoryBarrier(PK_IMAGE_BARRIER);
}

void pk_read(const pk_kernel *k, int t, int x, int y, float out[4])
{
    if (k->d.kind == PK_STORE)
        glMemoryBarrier(PK_IMAGE_BARRIER);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, k->d.kind == PK_STORE ? k->rfbo : k->fbo);
    glReadBuffer(GL_COLOR_ATTACHMENT0 + (GLenum)t);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(x, y, 1, 1, GL_RGBA, GL_FLOAT, out);
}

int host_probe_mad_values(int w, int h, int chains, int unroll, int iters, float *rgba,
                        char *err, size_t errlen)
{
    pk_kernel k = {.d = {.kind = PK_MAD, .chains = chains, .unroll = unroll, .w = w, .h = h}};
    gg_status st = pk_init(&k, err, errlen);
    if (st != GG_OK) {
        pk_free(&k);
        return -1;
    }
    pk_draw(&k, iters);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, k.fbo);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_FLOAT, rgba);
    GLenum e = glGetError();
    pk_free(&k);
    if (e != GL_NO_ERROR) {
        snprintf(err, errlen, "probe: multiply-add draw: GL error 0x%04x", e);
        return -1;
    }
    return 0;
}
