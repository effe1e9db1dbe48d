/* glhost/ probe: GPUBench-style microbenchmarks of the fragment path, the
 * card's own ceilings (SPEC.md `glgemm probe`).
 *
 * Contract:
 *  - host_probe_run() measures on the current context (3.3 core or later, or
 *    any context with GLSL 3.30; made by host_ctx_create): vec4 multiply-add
 *    rate, the same in double (dvec4: where the context has doubles, GL 4.0
 *    or GL_ARB_gpu_shader_fp64; else not measured, no row), texel fetch rate (R32F, RGBA32F and RGBA16F; cache-friendly,
 *    cache-hostile, and the access pattern of the GEMM's 8-target shaders:
 *    see base_probe_fetch_measured), the GEMM pattern's fetch rate by each
 *    other fetch path of the generator (texelFetch, imageLoad, texelFetch on
 *    a buffer texture: see base_probe_path_measured), render-target write rate
 *    (1 .. min(8, max draw buffers) RGBA32F targets), the imageStore rate
 *    into an RGBA32F image (base_probe_store_texels texels a fragment) and
 *    glReadPixels read-back rate.  imageLoad and imageStore need GL 4.3
 *    (GLSL 4.30, framebuffers without attachments): a context without
 *    them leaves those points unmeasured (0, no row), not an error; a
 *    buffer texture is made smaller where GL_MAX_TEXTURE_BUFFER_SIZE asks.
 *  - Every point: one warm-up, then the median of `reps` timed repetitions,
 *    each a monotonic wall clock from the first draw to glFinish (a
 *    GL_TIME_ELAPSED query misses llvmpipe's deferred rasterization).  The
 *    work of one repetition is scaled to about target_s, and a single draw is
 *    kept well under 0.5 s (long draws returned wrong data on NVIDIA).
 *  - The shaders' outputs are checked against a CPU computation of the same
 *    arithmetic for a few fragments, so a rate is never the rate of a shader
 *    that did less than it claims; a mismatch is GG_WRONG_RESULT.
 *  - Failures (compile, FBO, GL error, wrong result) are statuses with one
 *    line in detail, never aborts.
 *  - Results come as a struct (the ceilings, for report/bench) and as CSV
 *    rows `metric,variant,value,unit` (base/probe_data.h: the result, its
 *    rows' names and the CSV file, which need no GL). */
#ifndef GLGEMM_PROBE_H
#define GLGEMM_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/measure.h"
#include "base/probe_data.h"
#include "gen/gen.h"
#include "glhost/probe_src.h"

typedef struct {
    bool quick;       /* tiny sizes: the whole probe in well under 2 s on llvmpipe */
    int reps;         /* timed repetitions per point (median); >= 1 */
    double target_s;  /* aimed wall time of one repetition */
    /* Optional: called with one line after each point (progress). */
    void (*progress)(const char *line, void *user);
    void *user;
} gg_probe_opts;

void host_probe_opts_default(gg_probe_opts *o, bool quick);


/* Runs every microbenchmark on the current context.  Returns r->status. */
gg_status host_probe_run(const gg_probe_opts *o, gg_probe_result *r);

/* The driver above behind one interface, so that another drawer of the
 * same kernels (a WebGL2 page: eval/browser_probe.c) gets the same points,
 * timing and checks.  A backend draws one kernel at a time (probe_src.h:
 * its description, GLSL and CPU model).  Each function returns GG_OK or a
 * status with one line in detail. */
typedef struct {
    int max_targets;     /* render targets a fragment may write: 1 .. GG_MAX_TARGETS */
    int max_tex;         /* largest texture side the fetch points may use */
    bool images;         /* imageLoad / imageStore kernels */
    long max_tbuf;       /* texels of a buffer texture; 0: none */
    long max_ssbo;       /* bytes of a fragment shader's storage block; 0: none */
    bool fp64;           /* double in GLSL (the fp64 multiply-add points) */
    const char *no_images, *no_buffers, *no_ssbos, *no_fp64; /* why not, for the progress
                                                                   lines */
} host_probe_limits;

typedef struct {
    void *self;
    host_probe_limits lim;
    /* Makes k's program, source texture and targets (k is checked). */
    gg_status (*open)(void *self, const host_probe_kernel *k, char *detail, size_t len);
    /* warmups untimed repetitions, then reps timed ones into seconds[]:
     * each `count` draws of iters (read: `count` reads of the whole of
     * target 0, RGBA float), on a wall clock from its first draw until the
     * work is done. */
    gg_status (*time)(void *self, bool read, int iters, int count, int warmups, int reps,
                      double *seconds, char *detail, size_t len);
    /* n texels, at[i] = {target, x, y}, as the last draw left them (read:
     * from the last whole read) into out[i].  GG_GL_ERROR with out filled
     * where only an error was pending after the reads. */
    gg_status (*texels)(void *self, bool read, int n, const int (*at)[3], float (*out)[4],
                        char *detail, size_t len);
    void (*close)(void *self); /* the kernel's objects */
} host_probe_backend;

/* Every microbenchmark the backend's limits allow.  Returns r->status. */
gg_status host_probe_drive(const host_probe_backend *b, const gg_probe_opts *o,
                           gg_probe_result *r);

/* The multiply-add shader, exposed so tests can check that it computes what
 * the rate claims.  Each fragment (x, y) runs `chains` independent vec4
 * chains v = v * uMul + uAdd, `unroll` steps of each per iteration of a loop
 * of `iters` iterations, and writes their sum: chains*unroll*iters*8 flops.
 * host_probe_mad_values() draws it on a w x h RGBA32F target of the current
 * context and reads back w*h*4 floats; 0, or -1 with one line in err. */
int host_probe_mad_values(int w, int h, int chains, int unroll, int iters, float *rgba,
                        char *err, size_t errlen);
/* Its CPU model: host_probe_mad_reference, host_probe_mad_tolerance
 * (probe_src.h). */

#endif
