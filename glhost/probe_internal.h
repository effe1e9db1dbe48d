/* Inside glhost/ only: the probe's kernels (probe_kernels.c) for its driver
 * (probe.c).  A kernel is a program drawn over one full-viewport triangle
 * into a set of RGBA32F targets (PK_STORE: into an RGBA32F image by
 * imageStore, drawn into a framebuffer without attachments); each has a CPU
 * model of what it writes, so the driver can check a few fragments after
 * timing it. */
#ifndef GLGEMM_PROBE_INTERNAL_H
#define GLGEMM_PROBE_INTERNAL_H

#include <GL/glew.h>
#include <stdint.h>

#include "glhost/probe.h"

/* The multiply-add chains: v = v * PK_MUL + PK_ADD, lane by lane.  Lane w
 * multiplies by 1 and adds 2^-10, so its value counts iterations exactly;
 * the other lanes contract to a fixed point and stay finite. */
#define PK_MUL_X 0.99f
#define PK_MUL_Y 0.9f
#define PK_MUL_Z (-0.75f)
#define PK_MUL_W 1.0f
#define PK_ADD_X 0.001f
#define PK_ADD_Y 0.05f
#define PK_ADD_Z 0.25f
#define PK_ADD_W 0.0009765625f

typedef enum { PK_MAD, PK_FETCH, PK_WRITE, PK_STORE } pk_kind;

typedef struct {
    pk_kind kind;
    int chains;          /* PK_MAD */
    int unroll;          /* PK_MAD: steps of every chain per loop iteration (0 means 1) */
    int fmt;             /* PK_FETCH: GG_FETCH_R32F / GG_FETCH_RGBA32F */
    int pattern;         /* PK_FETCH: GG_FETCH_FRIENDLY .. GG_FETCH_GEMM42 */
    int path;            /* PK_FETCH: gen.h's gg_fetch (0: texture); other paths
                            for the GEMM patterns only */
    int tex_log2w, tex_log2h; /* PK_FETCH: source texture, power-of-two sides */
    int targets;         /* render targets written (PK_WRITE: 1..8; else 1) */
    int w, h;            /* viewport and targets; PK_STORE: the image */
    int blk;             /* PK_STORE: a fragment stores blk x blk texels; the
                            viewport is (w / blk) x (h / blk) */
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

/* What the kernel writes at (x, y) into target t after a draw of iters. */
void pk_expect(const pk_kernel *k, int t, int x, int y, int iters, float out[4]);
/* Largest |read - expected| accepted in that channel. */
double pk_tolerance(const pk_kernel *k, int iters, const float expect[4], int channel);

/* Fetch kernels: texel value, the hostile pattern's hash. */
float pk_texel_value(uint32_t index, int channel);
uint32_t pk_hash(uint32_t x, uint32_t y);
/* A GEMM pattern's 12 fetches of k-step q at fragment (x, y): {sum, u, v}
 * (texel coordinates before wrapping); returns 12.  The shader's text of
 * fetch i's coordinates over p (the fragment) and q. */
int pk_gemm_fetches(int pattern, int x, int y, int q, int out[12][3]);
void pk_gemm_coord_text(int pattern, int i, char *u, size_t ulen, char *v, size_t vlen);

#endif
