/* glhost/ probe_src: the probe's kernels without GL, for any backend that
 * draws them (the native context: probe_kernels.c; a WebGL2 page:
 * eval/browser_probe.c).  A kernel is a fragment shader drawn over one
 * full-viewport triangle into RGBA32F targets (PK_STORE: an RGBA32F image
 * by imageStore); this header gives its description, its source (GLSL 3.30,
 * 4.30 for images, or GLSL ES 3.00 for WebGL2), the source texture's texel
 * values, and the CPU model of what it writes, so the driver can check a
 * few fragments after timing it.  No GL here. */
#ifndef GLGEMM_PROBE_SRC_H
#define GLGEMM_PROBE_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/measure.h"
#include "base/probe_data.h"
#include "gen/gen.h"

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
    bool fp64;           /* PK_MAD: the chains in double (dvec4), GLSL 3.30 with
                            GL_ARB_gpu_shader_fp64 (as gen/wide_emit.c's store=f64);
                            the target gets their sum rounded to float */
    int fmt;             /* PK_FETCH: GG_FETCH_R32F / GG_FETCH_RGBA32F / GG_FETCH_RGBA16F */
    int pattern;         /* PK_FETCH: GG_FETCH_FRIENDLY .. GG_FETCH_GEMM42 */
    int path;            /* PK_FETCH: gen.h's gg_fetch (0: texture); other paths
                            for the GEMM patterns only */
    int tex_log2w, tex_log2h; /* PK_FETCH: source texture, power-of-two sides */
    int targets;         /* render targets written (PK_WRITE: 1..8; else 1) */
    int w, h;            /* viewport and targets; PK_STORE: the image */
    int blk;             /* PK_STORE: a fragment stores blk x blk texels; the
                            viewport is (w / blk) x (h / blk) */
} host_probe_kernel;

/* Checks the parameters and normalizes them (targets 1 but for PK_WRITE,
 * unroll at least 1).  GG_OK, or GG_INVALID with one line in detail. */
gg_status host_probe_kernel_check(host_probe_kernel *k, char *detail, size_t len);

/* GLSL 4.30 (imageLoad, imageStore): PK_STORE and the image fetch path. */
bool host_probe_kernel_needs_430(const host_probe_kernel *k);

/* The longest kernel source (bytes, its NUL included). */
#define HOST_PROBE_SRC_MAX 16384

/* The kernel's fragment shader into fs and its vertex shader (a static
 * string) into *vs.  es: GLSL ES 3.00 for WebGL2 (`#version 300 es`, highp
 * precision statements, float literals with a point); the kernels WebGL2
 * cannot run (images, buffer textures) are GG_UNSUPPORTED.  Uniforms:
 * uIters (int; not in PK_WRITE and PK_STORE), uMul and uAdd (vec4, PK_MAD:
 * PK_MUL_*, PK_ADD_*), uTex (sampler unit 0, PK_FETCH).  GG_OK, or a status
 * with one line in detail (GG_INVALID: the text does not fit). */
gg_status host_probe_kernel_source(const host_probe_kernel *k, bool es, char *fs, size_t fslen,
                                   const char **vs, char *detail, size_t len);

/* The fetch kernels' source texture: texel `index` (row by row), channel c
 * (R32F: channel 0 only).  Multiples of 2^-10 below 1: exact in half floats
 * too, so a driver's conversion to RGBA16F cannot round them. */
float host_probe_texel_value(uint32_t index, int channel);
/* The hostile pattern's hash of a fragment. */
uint32_t host_probe_hash(uint32_t x, uint32_t y);

/* A GEMM pattern's 12 fetches of k-step q at fragment (x, y): {sum, u, v}
 * (texel coordinates before wrapping); returns 12.  The shader's text of
 * fetch i's coordinates over p (the fragment) and q. */
int host_probe_gemm_fetches(int pattern, int x, int y, int q, int out[12][3]);
void host_probe_gemm_coord_text(int pattern, int i, char *u, size_t ulen, char *v, size_t vlen);

/* What the kernel writes at (x, y) into target t after a draw of iters. */
void host_probe_expect(const host_probe_kernel *k, int t, int x, int y, int iters, float out[4]);
/* Largest |read - expected| accepted in that channel. */
double host_probe_tolerance(const host_probe_kernel *k, int iters, const float expect[4],
                            int channel);

/* The multiply-add kernel's arithmetic on the CPU, in float, for fragment
 * (x, y), after `steps` (= unroll * iters) steps of every chain. */
void host_probe_mad_reference(int x, int y, int chains, int steps, float out[4]);
/* The same in double (the fp64 kernel: chains and their sum in double,
 * then rounded to float once, as the shader writes it). */
void host_probe_mad64_reference(int x, int y, int chains, int steps, float out[4]);
/* Largest |gpu - cpu| accepted in lanes x, y, z of the fp64 kernel: two
 * float ulps of the value (the double sums may round to either float
 * neighbour); lane w is exact. */
double host_probe_mad64_tolerance(float ref);
/* Largest |gpu - cpu| accepted in lanes x, y, z (FMA contraction, the sum's
 * order); lane w is exact: chains*(chains-1)/2 + chains*steps/1024. */
double host_probe_mad_tolerance(int chains, int steps, const float ref[4]);

#endif
