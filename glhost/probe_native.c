/* The probe's native backend: host_probe_run() drives the probe (probe.c)
 * on the current context, drawing the kernels with probe_kernels.c.
 *
 * A repetition: glFinish, the draws (each followed by glFlush: llvmpipe
 * bins a whole frame per tile and drops an opaque draw that a later one
 * covers, so unflushed repeated draws would be counted but not run),
 * glFinish, on CLOCK_MONOTONIC.  A read-back repetition: glReadPixels of
 * the whole of target 0 into one buffer, `count` times, between glFinish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "glhost/context.h"
#include "glhost/probe_internal.h"

typedef struct {
    pk_kernel k;
    bool open;
    float *buf; /* the last whole read */
} native;

static gg_status gl_error(char *detail, size_t len)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR)
        return GG_OK;
    snprintf(detail, len, "GL error 0x%04x", e);
    return GG_GL_ERROR;
}

static gg_status n_open(void *self, const host_probe_kernel *k, char *detail, size_t len)
{
    native *n = self;
    memset(&n->k, 0, sizeof n->k);
    n->k.d = *k;
    n->open = true;
    return pk_init(&n->k, detail, len);
}

static void n_close(void *self)
{
    native *n = self;
    if (n->open)
        pk_free(&n->k);
    n->open = false;
    free(n->buf);
    n->buf = NULL;
}

static double time_draws(const pk_kernel *k, int iters, int draws)
{
    glFinish();
    double t0 = base_now_s();
    for (int d = 0; d < draws; d++) {
        pk_draw(k, iters);
        glFlush(); /* else llvmpipe's binner drops an opaque draw the next one covers */
    }
    glFinish();
    return base_now_s() - t0;
}

static double time_reads(const pk_kernel *k, float *buf, int reads)
{
    glFinish();
    double t0 = base_now_s();
    for (int i = 0; i < reads; i++)
        glReadPixels(0, 0, k->d.w, k->d.h, GL_RGBA, GL_FLOAT, buf);
    glFinish();
    return base_now_s() - t0;
}

static gg_status n_time(void *self, bool read, int iters, int count, int warmups, int reps,
                        double *seconds, char *detail, size_t len)
{
    native *n = self;
    const pk_kernel *k = &n->k;
    if (read) {
        if (!n->buf && !(n->buf = malloc((size_t)k->d.w * k->d.h * 4 * sizeof *n->buf))) {
            snprintf(detail, len, "probe: out of memory");
            return GG_GL_ERROR;
        }
        glBindFramebuffer(GL_READ_FRAMEBUFFER, k->fbo);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
    }
    for (int i = 0; i < warmups + reps; i++) {
        double t = read ? time_reads(k, n->buf, count) : time_draws(k, iters, count);
        if (i >= warmups)
            seconds[i - warmups] = t;
    }
    return GG_OK;
}

static gg_status n_texels(void *self, bool read, int count, const int (*at)[3], float (*out)[4],
                          char *detail, size_t len)
{
    native *n = self;
    for (int i = 0; i < count; i++) {
        if (read)
            memcpy(out[i], n->buf + ((size_t)at[i][2] * n->k.d.w + at[i][1]) * 4, sizeof out[i]);
        else
            pk_read(&n->k, at[i][0], at[i][1], at[i][2], out[i]);
    }
    return gl_error(detail, len);
}

gg_status host_probe_run(const gg_probe_opts *o, gg_probe_result *r)
{
    static native n; /* one probe at a time per process */
    memset(&n, 0, sizeof n);
    host_probe_backend b = {.self = &n, .open = n_open, .time = n_time, .texels = n_texels,
                            .close = n_close};
    memset(r, 0, sizeof *r);
    glGetError();
    GLint max_draw = 0, max_att = 0, max_tex = 0;
    glGetIntegerv(GL_MAX_DRAW_BUFFERS, &max_draw);
    glGetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &max_att);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
    char detail[256];
    if (gl_error(detail, sizeof detail) != GG_OK) {
        snprintf(r->detail, sizeof r->detail, "probe: reading the context's limits: %s", detail);
        return r->status = GG_GL_ERROR;
    }
    b.lim.max_targets = max_draw < max_att ? max_draw : max_att;
    b.lim.max_tex = max_tex;
    /* Images (GL 4.3: GLSL 4.30, glFramebufferParameteri) and buffer
     * textures (GL 3.1): without them those points are not measured. */
    GLint major = 0, minor = 0, frag_images = 0, max_tbuf = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    int version = major * 10 + minor;
    if (version >= 43 && glBindImageTexture && glMemoryBarrier && glFramebufferParameteri &&
        glTexStorage2D)
        glGetIntegerv(GL_MAX_FRAGMENT_IMAGE_UNIFORMS, &frag_images);
    if (version >= 31 && glTexBuffer)
        glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_tbuf);
    b.lim.images = frag_images >= 1;
    b.lim.max_tbuf = max_tbuf;
    /* Storage blocks in fragment shaders (GL 4.3; the probe's shaders are
     * desktop GLSL 4.30 there). */
    GLint frag_ssbos = 0;
    GLint64 max_ssbo = 0;
    if (version >= 43 && glBindBufferBase) {
        glGetIntegerv(GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS, &frag_ssbos);
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_ssbo);
    }
    b.lim.max_ssbo = frag_ssbos >= 1 ? (long)max_ssbo : 0;
    /* Doubles (the fp64 multiply-add points): the kernel is GLSL 3.30 with
     * GL_ARB_gpu_shader_fp64, as the store=f64 shaders of profile 330, so
     * the extension decides (GL 4.x drivers list it; ES has no double). */
    const char *ver = (const char *)glGetString(GL_VERSION);
    bool es = ver && strstr(ver, "OpenGL ES");
    b.lim.fp64 = !es && host_gl_has_extension("GL_ARB_gpu_shader_fp64");
    b.lim.no_fp64 = es ? "OpenGL ES has no double" : "no GL_ARB_gpu_shader_fp64 in this context";
    if (gl_error(detail, sizeof detail) != GG_OK) {
        snprintf(r->detail, sizeof r->detail, "probe: reading the context's limits: %s", detail);
        return r->status = GG_GL_ERROR;
    }
    return host_probe_drive(&b, o, r);
}
