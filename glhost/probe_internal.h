/* Inside glhost/ only: the probe's kernels on the native context
 * (probe_kernels.c) for its native backend (probe_native.c).  A kernel is
 * its GL-free description (probe_src.h: its GLSL, texels and CPU model)
 * and the GL objects that draw it: a program drawn over one full-viewport
 * triangle into a set of RGBA32F targets (PK_STORE: into an RGBA32F image
 * by imageStore, drawn into a framebuffer without attachments). */
#ifndef GLGEMM_PROBE_INTERNAL_H
#define GLGEMM_PROBE_INTERNAL_H

#include <GL/glew.h>
#include <stdint.h>

#include "glhost/probe.h"
#include "glhost/probe_src.h"

typedef struct {
    host_probe_kernel d;
    GLuint prog, vao, vbo, fbo, src, srcbuf;
    GLuint rfbo;         /* PK_STORE: the image attached, for reading it back */
    GLuint tex[GG_MAX_TARGETS];
    GLint u_iters;
} pk_kernel;

/* Compiles, links and makes the targets (and the source texture for
 * PK_FETCH).  GG_OK, or a status with one line in detail. */
gg_status pk_init(pk_kernel *k, char *detail, size_t len);
void pk_free(pk_kernel *k);

/* Draws once with that iteration count (ignored by PK_WRITE and PK_STORE;
 * PK_STORE puts the GEMM's glMemoryBarrier after the draw). */
void pk_draw(const pk_kernel *k, int iters);

/* Reads texel (x, y) of target t back (the pipeline is flushed first);
 * PK_STORE: texel (x, y) of the image (after a memory barrier). */
void pk_read(const pk_kernel *k, int t, int x, int y, float out[4]);

#endif
