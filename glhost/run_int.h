/* glhost/run_int: inside glhost/, the state of one run (glhost/run.h) and
 * the steps that glhost/run.c and glhost/stream.c (the library's streamed
 * call) share, defined in glhost/run_steps.c, below both (run.c ->
 * stream.c -> run_steps.c; run.c -> run_steps.c).  Not for use outside
 * glhost/.  Every function needs the run's context current. */
#ifndef GLGEMM_RUN_INT_H
#define GLGEMM_RUN_INT_H

#include <GL/glew.h>
#include <stdbool.h>

#include "gen/pack.h"
#include "glhost/run.h"
#include "glhost/run_cache.h"

/* One block of C: its running sums.  tex[0] holds the targets the FBO
 * fbo[0] draws into; tex[1] the other pingpong set (fbo[1]) or, for copy,
 * the prev textures (no FBO). */
typedef struct {
    GLuint tex[2][GG_MAX_TARGETS];
    GLuint fbo[2];
    float *init[GG_MAX_TARGETS]; /* the running sums' first value, target layout */
} cblock;

typedef struct {
    const gg_ctx_info *info;
    const gg_variant *v;
    const gg_problem *p;
    const gg_inputs *in;
    gg_measurement *out;
    gg_split sp;
    const gg_layout *L;
    gg_layout cview;      /* C as stored: L for out=rt, one c_w x c_h image for out=image */
    const gg_layout *CL;  /* &cview */
    bool img;             /* out=image */
    bool ubo;             /* fetch=ubo: atex are uniform buffers of strip chunks */
    long ubo_stride;      /* fetch=ubo: bytes from one chunk to the next (aligned) */
    gg_box *tiles;        /* tile=WxH: the tiles of a pass in drawing order (gen_tile_boxes) */
    int ntiles;           /* 0 or 1: one draw a pass */
    GLuint nofbo;         /* out=image: the framebuffer with no attachment drawn into */
    int tch;              /* floats a target texel holds as uploaded */
    int ncb;              /* C blocks: mblocks * nblocks */
    GLuint *atex, *btex;  /* [bi*kblocks + bk], [bk*nblocks + bj] */
    cblock *cb;
    GLuint vao, vbo;
    gg_program prog;      /* own build (have_prog), or *cprog from the cache */
    bool have_prog;
    gg_program *cprog;    /* the program in use: &prog or the cache's */
    gg_run_cache *cache;  /* the options' cache, NULL none */
    bool same_inputs;
    bool inputs_cached;   /* atex/btex belong to the cache */
    bool targets_cached;  /* the cb GL names and nofbo belong to the cache */
    GLuint query;
    bool failed;          /* a status other than ok has been set */
    char key[GG_RC_KEY];  /* the program's key in the cache ("" without one) */
    /* Long draws (run.h): a draw holds at most cap fragments (LONG_MAX:
     * one draw a pass, or a strip); while calibrating every draw is timed
     * and sizes the next. */
    double max_draw_s;    /* the bound, 0 none */
    long cap;
    long region_frags;    /* fragments of what one unsplit draw covers (a pass, a strip) */
    bool calibrating;
    bool settled;         /* calibrating ended on a rate to keep (the cache's) */
    int cal_draws;        /* draws timed so far */
    int cal_good;         /* of those after the first: long enough to settle on */
    double frag_s;        /* the rate: the fastest timed, seconds a fragment */
    long draws;           /* draw calls of the current run */
    double queued_s;      /* estimated work drawn since the last glFinish */
} run_state;

/* Sets the status (the first failure wins) and its one-line detail. */
void host_run_fail(run_state *s, gg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* glGetError and a reset check after a stage; false (status set) on failure. */
bool host_run_stage_ok(run_state *s, const char *stage);
/* After timed rep r (0-based; times[0..r] measured) of at most reps:
 * whether to stop now, screened (two reps past o->screen_s: out->screened
 * set) or settled (o->min_reps reps within o->tight of each other).  One
 * rule for every run (run.c, run_wide.c). */
bool host_run_reps_done(const gg_run_opts *o, double *times, int r, int reps,
                        gg_measurement *out);
/* The timing's figures from the reps done: reps, seconds (the median) and
 * spread. */
void host_run_reps_out(gg_measurement *out, double *times, int done_reps);
/* GL_RED .. GL_RGBA for 1 .. 4 channels. */
GLenum host_run_pixel_format(int ch);
/* The sized internal format of an input of ch channels in store. */
GLenum host_run_input_internal(int ch, gg_store store);
/* How an input of ch channels in store goes up: its internal format, the
 * pixel format and type of the data (floats, halves, or f16x8's words),
 * the bytes of one texel of data and GL_UNPACK_ALIGNMENT for its rows. */
typedef struct {
    GLenum internal, format, type;
    int texel_bytes, align;
} gg_input_fmt;
gg_input_fmt host_run_input_fmt(int ch, gg_store store);
/* Matrix 0 (A) or 1 (B)'s input of the run's packing and store (data
 * may be NULL): a texture, or a storage buffer where the variant reads
 * that matrix from one. */
GLuint host_run_make_input(const run_state *s, int matrix, int w, int h, const void *data);
/* Bits of the matrices (1: A, 2: B) whose inputs are buffer objects
 * (fetch=ubo's A, the storage-buffer fetches'), not textures. */
unsigned host_run_input_buffers(const gg_variant *v);
/* What A's and B's textures depend on (the cache's input key). */
void host_run_input_key(const run_state *s, int key[GG_RC_INPUT_KEY]);
/* One triangle over the viewport: s->vao (where the context has vertex
 * arrays) and s->vbo; false (status set) on failure. */
bool host_run_triangle(run_state *s);
/* The running sums' targets made (or the cache's, set again), the triangle. */
bool host_run_make_targets(run_state *s);
/* Every pass of C blocks c0 .. c1-1; no glFinish. */
void host_run_passes(run_state *s, int c0, int c1);
/* The FBO that holds a block's result after all passes. */
GLuint host_run_result_fbo(const run_state *s, const cblock *cb);
/* Before the first run: the draw cap (long draws: run.h), from the
 * options, the cache's rate, or calibrating. */
void host_run_plan_draws(run_state *s, const gg_run_opts *o);
/* After the first run: the draw cap of later runs (long draws). */
void host_run_settle_draws(run_state *s);
/* The running sums back to their first value (outside the timed region,
 * then glFinish); false (status set) on failure. */
bool host_run_reinit(run_state *s);
/* Tests only (fault.h): a context reset seen mid-run. */
void host_run_fault_lost(run_state *s);

/* glhost/ssbo.c: the storage-buffer fetches' buffers.  host_ssbo_limit:
 * the context's GL_MAX_SHADER_STORAGE_BLOCK_SIZE or the options' smaller
 * one; host_ssbo_plan: the split whose blocks' buffers fit max_bytes (0,
 * or -1 with why); host_ssbo_make: matrix 0 (A) or 1 (B) of the run's
 * layout from its packed texels (gen_pack_a/b's floats; store=f16: their
 * halves; NULL: uninitialised), in the buffer's layout (gen_pack_ssbo,
 * gen_pack_ssbo_bytes), 0 when out of memory; host_ssbo_upload: a new
 * storage buffer holding bytes of data as they are; host_ssbo_copy: bytes from
 * offset of one buffer to the start of another (the streamed call's
 * staging); host_ssbo_read: a buffer's first bytes back (0, or -1 on a
 * GL error). */
long host_ssbo_limit(const gg_ctx_info *info, const gg_run_opts *o);
int host_ssbo_plan(const gg_variant *v, int m, int n, int k, int max_tex, long max_bytes, int bands,
                   gg_split *sp, char *why, size_t whylen);
GLuint host_ssbo_make(const gg_layout *L, int matrix, gg_store store, const void *packed);
GLuint host_ssbo_upload(const void *data, size_t bytes);
void host_ssbo_copy(GLuint from, size_t offset, GLuint to, size_t bytes);
int host_ssbo_read(GLuint b, size_t bytes, void *out);

/* glhost/run_wide.c: host_run_current for a variant of a wide store
 * (store=f64, dd, df) once its card verdict is ok: the same contract, C
 * as doubles inside and rounded to floats in c_out. */
void host_run_wide(const gg_ctx_info *info, const gg_variant *v, const gg_problem *p,
                   const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                   gg_measurement *out, float *c_out, gg_run_log *log);

/* glhost/stream.c: the library's streamed call (run.h: stream).
 * host_stream_ok: whether the options and variant ask for and allow it;
 * host_stream_bands: the row bands of C for it; host_stream_run: 1 when it
 * ran (C in c, or a status set), 0 when no staging could be had (nothing
 * done: the caller runs the old way). */
bool host_stream_ok(const gg_ctx_info *info, const gg_variant *v, const gg_run_opts *o);
int host_stream_bands(const gg_run_opts *o, const gg_inputs *in);
int host_stream_run(run_state *s, const gg_run_opts *o, float *c);

#endif
