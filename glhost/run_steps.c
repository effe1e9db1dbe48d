/* glhost/run_steps: the steps of one run that glhost/run.c (the whole run)
 * and glhost/stream.c (the library's streamed call) share, declared in
 * run_int.h: the status and GL error checks, the input textures, the long
 * draws' planning and calibration, the render targets and the passes.
 * Below both: run.c -> stream.c -> this file, and run.c -> this file; it
 * calls neither of them.  Every function needs the run's context current. */
#include <GL/glew.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fault.h"
#include "gen/pack.h"
#include "glhost/run.h"
#include "glhost/run_cache.h"
#include "glhost/run_int.h"

static const char *gl_error_name(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    }
    return "unknown GL error";
}

static const char *fbo_status_name(GLenum s)
{
    switch (s) {
    case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
        return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_DRAW_BUFFER";
    case GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER: return "GL_FRAMEBUFFER_INCOMPLETE_READ_BUFFER";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS: return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
    }
    return "unknown framebuffer status";
}

void host_run_fail(run_state *s, gg_status st, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = true;
    s->out->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->out->detail, sizeof s->out->detail, fmt, ap);
    va_end(ap);
}

/* The timed runs' stop rule after run r (run_int.h). */
bool host_run_reps_done(const gg_run_opts *o, double *times, int r, int reps,
                        gg_measurement *out)
{
    int done = r + 1;
    /* Two timed reps past screen_s, not one: a single slow rep (a clock or
     * power-state change on the card) would drop good variants. */
    if (r == 1 && o && o->screen_s > 0 && times[0] > o->screen_s && times[1] > o->screen_s) {
        out->screened = true;
        return true;
    }
    return o && o->min_reps > 0 && done >= o->min_reps && done < reps &&
           base_spread(times, done) <= o->tight;
}

void host_run_reps_out(gg_measurement *out, double *times, int done_reps)
{
    out->reps = done_reps;
    out->seconds = base_median(times, done_reps);
    out->spread = base_spread(times, done_reps);
}

/* glGetError and a reset check after a stage; false (status set) on failure. */
bool host_run_stage_ok(run_state *s, const char *stage)
{
    if (s->failed)
        return false;
    if (s->info->robustness) {
        GLenum r = GL_NO_ERROR;
        if (glGetGraphicsResetStatus)
            r = glGetGraphicsResetStatus();
        else if (glGetGraphicsResetStatusARB)
            r = glGetGraphicsResetStatusARB();
        if (r != GL_NO_ERROR) {
            host_run_fail(s, GG_CONTEXT_LOST, "%s: the context was reset (%s)", stage,
                 r == GL_GUILTY_CONTEXT_RESET ? "guilty" :
                 r == GL_INNOCENT_CONTEXT_RESET ? "innocent" : "unknown cause");
            return false;
        }
    }
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        char more[64] = "";
        GLenum e2 = glGetError();
        if (e2 != GL_NO_ERROR)
            snprintf(more, sizeof more, " (then %s)", gl_error_name(e2));
        while (glGetError() != GL_NO_ERROR)
            ;
        host_run_fail(s, e == GL_CONTEXT_LOST ? GG_CONTEXT_LOST : GG_GL_ERROR, "%s: %s%s", stage,
             gl_error_name(e), more);
        return false;
    }
    return true;
}

GLenum host_run_input_internal(int ch, gg_store store)
{
    return host_run_input_fmt(ch, store).internal;
}

gg_input_fmt host_run_input_fmt(int ch, gg_store store)
{
    static const GLenum f[] = {0, GL_R32F, GL_RG32F, GL_RGB32F, GL_RGBA32F};
    static const GLenum h[] = {0, GL_R16F, GL_RG16F, GL_RGB16F, GL_RGBA16F};
    switch (store) {
    case GG_STORE_F16:
        return (gg_input_fmt){h[ch], host_run_pixel_format(ch), GL_HALF_FLOAT, 2 * ch, 2};
    case GG_STORE_F16X8: /* eight halves a texel as four words (gen/pack.h) */
        return (gg_input_fmt){GL_RGBA32UI, GL_RGBA_INTEGER, GL_UNSIGNED_INT, 16, 4};
    default:
        return (gg_input_fmt){f[ch], host_run_pixel_format(ch), GL_FLOAT, 4 * ch, 4};
    }
}

GLenum host_run_pixel_format(int ch)
{
    static const GLenum f[] = {0, GL_RED, GL_RG, GL_RGB, GL_RGBA};
    return f[ch];
}

/* store=f16: data is halves made on the host (gen/half.h), uploaded as
 * GL_HALF_FLOAT into a half internal format, so the driver converts
 * nothing (its rounding is not specified) and the reference can round the
 * same way.  Rows of halves may be 2-byte aligned only.  store=f16x8: the
 * same halves in words (gen/pack.h), uploaded as GL_UNSIGNED_INT into
 * RGBA32UI, which the driver copies bit for bit. */
/* One level of a w x h texture, immutable (glTexStorage2D) where it is
 * bound as an image: ES 3.1 binds immutable textures only. */
static void tex_level(bool immutable, GLenum internal, int w, int h, GLenum format, GLenum type,
                      const void *data)
{
    if (!immutable) {
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, format, type, data);
        return;
    }
    glTexStorage2D(GL_TEXTURE_2D, 1, internal, w, h);
    if (data)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, format, type, data);
}

static GLuint make_texture(int w, int h, int ch, gg_store store, bool immutable, const void *data)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    gg_input_fmt f = host_run_input_fmt(ch, store);
    glPixelStorei(GL_UNPACK_ALIGNMENT, f.align);
    tex_level(immutable, f.internal, w, h, f.format, f.type, data);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    return t;
}

/* fetch=buffer: the texels of a w x h texture row by row in a buffer
 * texture.  The buffer's name is deleted at once: its store lives on while
 * the texture holds it, and goes with glDeleteTextures. */
static GLuint make_buffer_texture(int w, int h, int ch, gg_store store, const void *data)
{
    GLuint t = 0, b = 0;
    size_t bytes = (size_t)w * h * host_run_input_fmt(ch, store).texel_bytes;
    glGenBuffers(1, &b);
    glBindBuffer(GL_TEXTURE_BUFFER, b);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_BUFFER, t);
    glTexBuffer(GL_TEXTURE_BUFFER, host_run_input_internal(ch, store), b);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    glDeleteBuffers(1, &b);
    return t;
}

unsigned host_run_input_buffers(const gg_variant *v)
{
    unsigned bits = 0;
    for (int i = 0; i < 2; i++) {
        gg_fetch p = gen_fetch_path(v->fetch, i);
        if (p == GG_FETCH_UBO || p == GG_FETCH_SSBO)
            bits |= 1u << i;
    }
    return bits;
}

GLuint host_run_make_input(const run_state *s, int matrix, int w, int h, const void *data)
{
    if (gen_fetch_path(s->v->fetch, matrix) == GG_FETCH_SSBO)
        return host_ssbo_make(s->L, matrix, s->v->store, data); /* floats, or f16's halves */
    if (s->v->fetch == GG_FETCH_BUFFER)
        return make_buffer_texture(w, h, s->L->channels, s->v->store, data);
    return make_texture(w, h, s->L->channels, s->v->store, s->v->fetch == GG_FETCH_IMAGE, data);
}

/* ---- long draws (run.h) ---- */

long host_draw_next(int w, int h, long cap, int *cx, int *cy, gg_draw_rect *r)
{
    if (w < 1 || h < 1 || *cy >= h || *cx >= w)
        return 0;
    if (cap < 1)
        cap = 1;
    if (*cx == 0 && cap >= w) {
        long rmax = cap / w, left = h - *cy;
        long bands = (left + rmax - 1) / rmax;
        int rows = (int)((left + bands - 1) / bands);
        *r = (gg_draw_rect){0, *cy, w, rows};
        *cy += rows;
        return (long)rows * w;
    }
    long cols = w - *cx;
    if (cols > cap)
        cols = cap;
    *r = (gg_draw_rect){*cx, *cy, (int)cols, 1};
    *cx += (int)cols;
    if (*cx >= w) {
        *cx = 0;
        (*cy)++;
    }
    return cols;
}

/* Calibration: the rate is the fastest a timed draw showed (a slow one may
 * be a draw's latency, the driver's compile in the first, or another
 * process, rather than its work); it is settled once two draws after the
 * first each took an eighth of the bound or showed that the whole region
 * fits twice.  Until then each draw is at most half the bound at that
 * rate, and 16 times the one before.  The second is no smaller than the
 * first unless the first ran past the bound (its compile would otherwise
 * shrink the second to a few fragments, whose time is latency, not work). */
#define CAL_SETTLE 8.0
#define CAL_GROW 16.0
#define CAL_GOOD 2

static long cap_of(double fragments)
{
    if (fragments >= (double)LONG_MAX / 2)
        return LONG_MAX;
    return fragments < 1 ? 1 : (long)fragments;
}

/* The fragments of the next draws, from a timed one (frags fragments in dt
 * seconds). */
static void calibrate(run_state *s, double dt, long frags)
{
    double fs = dt / (double)frags;
    if (!(fs > 0))
        fs = 1e-15; /* the clock did not move */
    bool first = s->cal_draws++ == 0;
    if (first || fs < s->frag_s)
        s->frag_s = fs; /* the fastest seen (the first's errs long, if anything) */
    if (!first && (dt >= s->max_draw_s / CAL_SETTLE ||
                   s->max_draw_s / fs >= 2.0 * (double)s->region_frags))
        s->cal_good++;
    double fit = s->max_draw_s / s->frag_s; /* fragments the bound holds at that rate */
    if (s->cal_good >= CAL_GOOD) {
        s->calibrating = false;
        s->settled = true;
        s->cap = cap_of(fit);
        return;
    }
    double next = 0.5 * fit;
    if (next > CAL_GROW * (double)frags)
        next = CAL_GROW * (double)frags;
    if (first && dt <= s->max_draw_s && next < (double)frags)
        next = (double)frags;
    s->cap = cap_of(next);
}

/* The work the run draws (every block at the layout's padded sizes) over
 * the problem's m n k: at least 1. */
static double padded_over(const run_state *s)
{
    const gg_split *sp = &s->sp;
    const gg_layout *L = s->L;
    double drawn = (double)sp->mblocks * sp->nblocks * sp->kblocks * L->mpad * (double)L->npad *
                   L->kpad;
    double asked = (double)s->in->m * s->in->n * s->in->k;
    return asked > 0 && drawn > asked ? drawn / asked : 1.0;
}

/* Before the first run: a fixed cap (tests), none, the cache's rate, none
 * for a run expected well inside the bound, or calibrating from one row of
 * fragments. */
void host_run_plan_draws(run_state *s, const gg_run_opts *o)
{
    const gg_layout *L = s->L;
    s->region_frags = (long)L->tgt_w * (s->ubo ? GG_UBO_STRIP : L->tgt_h);
    s->cap = LONG_MAX;
    s->max_draw_s = o && o->max_draw_s > 0 ? o->max_draw_s : 0;
    if (o && o->max_draw_fragments > 0) {
        s->cap = o->max_draw_fragments;
        return;
    }
    if (s->max_draw_s <= 0)
        return;
    double fs = s->cache && s->key[0] ? host_rc_frag_s(s->cache, s->key) : 0;
    if (fs > 0) {
        s->cap = cap_of(s->max_draw_s / fs);
        return;
    }
    if (o->expect_s > 0 && GG_EXPECT_SAFETY * o->expect_s * padded_over(s) <= s->max_draw_s)
        return; /* whole passes, untimed (run.h) */
    s->calibrating = true;
    s->cap = L->tgt_w;
}

/* After the first run: the cap of the timed runs.  A calibration that did
 * not settle (too few draws) keeps the rate it has, which errs long (a
 * first draw's compile, the latency of a small one), and is not kept by
 * the cache. */
void host_run_settle_draws(run_state *s)
{
    if (s->calibrating) {
        s->calibrating = false;
        s->cap = s->frag_s > 0 ? cap_of(s->max_draw_s / s->frag_s) : LONG_MAX;
    } else if (s->settled && s->cache && s->key[0]) {
        host_rc_set_frag_s(s->cache, s->key, s->frag_s);
    }
}

/* After a draw of f fragments: a glFinish once the work sent since the
 * last one reaches the bound.  On an H100 work queued without one came
 * back partly zero past a few seconds (8192^3, 4 passes of 3.4 s, or 16 of
 * 0.9 s), whether each draw was long or cut into 250 ms bands with a
 * glFlush after each; with a glFinish after each band it came back right
 * (results/nvidia-h100-80gb-hbm3/long-draws.txt). */
static void sent(run_state *s, long f)
{
    s->draws++;
    if (s->max_draw_s <= 0 || s->frag_s <= 0)
        return;
    s->queued_s += (double)f * s->frag_s;
    if (s->queued_s >= s->max_draw_s) {
        glFinish();
        s->queued_s = 0;
    }
}

/* The box x0, y0, w x h of the viewport (the whole of it, a tile=WxH
 * tile or a fetch=ubo strip; scissor already on where `scissored`) in
 * draws of at most s->cap fragments, each followed by a glFinish once the
 * bound's worth of work is in flight. */
static void draw_region(run_state *s, int x0, int y0, int w, int h, bool scissored)
{
    long total = (long)w * h;
    if (!s->calibrating && s->cap >= total) {
        if (scissored)
            glScissor(x0, y0, w, h);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        sent(s, total);
        return;
    }
    if (!scissored)
        glEnable(GL_SCISSOR_TEST);
    int cx = 0, cy = 0;
    gg_draw_rect r;
    long f;
    while ((f = host_draw_next(w, h, s->cap, &cx, &cy, &r)) > 0) {
        glScissor(x0 + r.x, y0 + r.y, r.w, r.h);
        if (s->calibrating) {
            glFinish();
            double t0 = base_now_s();
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glFinish();
            calibrate(s, base_now_s() - t0, f);
            s->draws++;
        } else {
            glDrawArrays(GL_TRIANGLES, 0, 3);
            sent(s, f);
        }
    }
    if (!scissored)
        glDisable(GL_SCISSOR_TEST);
}

/* One pass's draw: the whole viewport, its tiles in the variant's order
 * (tile=WxH: one scissored draw each), or (fetch=ubo) one draw per strip
 * with the strip's chunk of A bound at binding 0 (scissored to the strip);
 * each cut by the long-draw bound. */
static void draw_pass(run_state *s, GLuint abuf, int pass)
{
    const gg_layout *L = s->L;
    if (!s->ubo && s->ntiles > 1) {
        glEnable(GL_SCISSOR_TEST);
        for (int t = 0; t < s->ntiles; t++)
            draw_region(s, s->tiles[t].x, s->tiles[t].y, s->tiles[t].w, s->tiles[t].h, true);
        glDisable(GL_SCISSOR_TEST);
        return;
    }
    if (!s->ubo) {
        draw_region(s, 0, 0, L->tgt_w, L->tgt_h, false);
        return;
    }
    int strips = L->tgt_h / GG_UBO_STRIP;
    glEnable(GL_SCISSOR_TEST);
    for (int st = 0; st < strips; st++) {
        glBindBufferRange(GL_UNIFORM_BUFFER, 0, abuf,
                          (GLintptr)(((long)pass * strips + st) * s->ubo_stride),
                          (GLsizeiptr)(L->ubo_vec4s * 16));
        draw_region(s, 0, st * GG_UBO_STRIP, L->tgt_w, GG_UBO_STRIP, true);
    }
    glDisable(GL_SCISSOR_TEST);
}

/* A and B of one block bound where the shader reads them (gen.h), each
 * by its path: texture unit 0 / 1 (2D or buffer texture), image unit 1 /
 * 2, storage buffer binding 0 / 1; fetch=ubo's A per strip (draw_pass). */
static void bind_inputs(const run_state *s, GLuint a, GLuint b)
{
    GLuint t[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        switch (gen_fetch_path(s->v->fetch, i)) {
        case GG_FETCH_IMAGE:
            glBindImageTexture((GLuint)i + 1, t[i], 0, GL_FALSE, 0, GL_READ_ONLY,
                               host_run_input_internal(s->L->channels, s->v->store));
            break;
        case GG_FETCH_BUFFER:
            glActiveTexture(GL_TEXTURE0 + (GLenum)i);
            glBindTexture(GL_TEXTURE_BUFFER, t[i]);
            break;
        case GG_FETCH_SSBO:
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)i, t[i]);
            break;
        case GG_FETCH_UBO: /* A: per strip (draw_pass) */
            break;
        default:
            glActiveTexture(GL_TEXTURE0 + (GLenum)i);
            glBindTexture(GL_TEXTURE_2D, t[i]);
            break;
        }
    }
}

/* out=image: C's image format (gen.h: r32f for one channel, else rgba32f). */
static GLenum image_internal(const run_state *s) { return s->tch == 1 ? GL_R32F : GL_RGBA32F; }

/* Whether the running sums start at zero (beta 0: C0 is not read). */
static bool zero_start(const run_state *s) { return s->p->beta == 0.0f; }

/* The set of a C block the first pass reads its running sums from: copy's
 * prev textures (out=image: the one image), else set 0.  The passes write
 * every texel of the other set before anything reads it. */
static int first_set(const run_state *s) { return s->v->acc == GG_ACC_COPY && !s->img ? 1 : 0; }

/* Every draw buffer of the bound FBO to zero. */
static void clear_targets(int targets)
{
    static const GLfloat z[4] = {0, 0, 0, 0};
    for (int t = 0; t < targets; t++)
        glClearBufferfv(GL_COLOR, t, z);
}

/* What A's and B's textures depend on: the packing, the store, the
 * geometry, the split and the texel order (order=frag's permutation turns
 * on tr and tc). */
void host_run_input_key(const run_state *s, int key[GG_RC_INPUT_KEY])
{
    const gg_layout *L = s->L;
    const gg_split *sp = &s->sp;
    int k[GG_RC_INPUT_KEY] = {L->r, L->c, (int)s->v->store, L->a_w, L->a_h, L->b_w, L->b_h,
                              sp->mblocks, sp->nblocks, sp->kblocks, sp->mb, sp->nb, sp->kb,
                              L->kpad, (int)s->v->fetch == GG_FETCH_BUFFER ? 1
                                       : s->v->fetch == GG_FETCH_IMAGE ? 2
                                       : (int)host_run_input_buffers(s->v) << 2,
                              L->frag, L->frag ? L->tr : 0, L->frag ? L->tc : 0};
    memcpy(key, k, sizeof k);
}

static void init_sums(run_state *s);

/* The running sums' targets made and filled, FBOs checked, the triangle. */
bool host_run_make_targets(run_state *s)
{
    const gg_layout *L = s->CL; /* C as stored */
    const gg_split *sp = &s->sp;
    const gg_inputs *in = s->in;
    s->cb = calloc((size_t)s->ncb, sizeof *s->cb);
    if (!s->cb) {
        host_run_fail(s, GG_GL_ERROR, "upload: out of host memory");
        return false;
    }

    /* Targets: RGBA32F for 3 channels (RGB32F is not colour-renderable);
     * out=image: R32F or RGBA32F (image formats), each set with an FBO
     * for clearing and reading back. */
    GLenum internal = s->tch == 1 ? GL_R32F : s->tch == 2 ? GL_RG32F : GL_RGBA32F;
    GLenum draw[GG_MAX_TARGETS];
    for (int t = 0; t < L->targets; t++)
        draw[t] = GL_COLOR_ATTACHMENT0 + (GLenum)t;
    int sets = s->v->acc == GG_ACC_BLEND || (s->img && s->v->acc == GG_ACC_COPY) ? 1 : 2;
    /* beta 0: the running sums start at zero, cleared on the card rather
     * than uploaded (each set gets an FBO for it: copy's prev set too). */
    bool zero = zero_start(s);
    int sets_with_fbo = zero || s->img ? sets : s->v->acc == GG_ACC_PINGPONG ? 2 : 1;
    size_t tf = gen_target_floats(L, s->tch);
    for (int c = 0; c < s->ncb; c++) {
        cblock *cb = &s->cb[c];
        int bi = c / sp->nblocks, bj = c % sp->nblocks;
        gg_block blk = gen_split_block(sp, in->m, in->n, in->k, bi, bj, 0);
        for (int t = 0; t < L->targets && !zero; t++) {
            cb->init[t] = malloc(tf * sizeof(float));
            if (!cb->init[t]) {
                host_run_fail(s, GG_GL_ERROR, "upload: out of host memory");
                return false;
            }
        }
        if (!zero)
            gen_pack_c0(L, in->c0, in->n, s->p->beta, &blk, s->tch, cb->init);
    }
    /* Inputs that change from run to run (the library's calls): targets of
     * the same geometry kept by the cache, their running sums set again. */
    bool keep = s->cache && !s->same_inputs;
    int key[GG_RC_TARGET_KEY] = {L->tgt_w, L->tgt_h, L->targets, s->tch, (int)s->v->acc, s->img,
                                 s->ncb, zero, sets, sets_with_fbo};
    const gg_rc_cblock *kept = keep ? host_rc_targets_find(s->cache, key, &s->nofbo) : NULL;
    if (kept) {
        for (int c = 0; c < s->ncb; c++) {
            memcpy(s->cb[c].tex, kept[c].tex, sizeof kept[c].tex);
            memcpy(s->cb[c].fbo, kept[c].fbo, sizeof kept[c].fbo);
        }
        s->targets_cached = true;
        init_sums(s);
        return host_run_stage_ok(s, "setting the kept render targets") && host_run_triangle(s);
    }
    float *dirty = NULL; /* tests only (fault.h): targets made holding NaN */
    if (zero && base_fault("dirty_targets")) {
        if (!(dirty = malloc(tf * sizeof *dirty))) {
            host_run_fail(s, GG_GL_ERROR, "fault dirty_targets: out of host memory");
            return false;
        }
        for (size_t i = 0; i < tf; i++)
            dirty[i] = NAN;
    }
    for (int c = 0; c < s->ncb; c++) {
        cblock *cb = &s->cb[c];
        for (int set = 0; set < sets; set++)
            for (int t = 0; t < L->targets; t++) {
                glGenTextures(1, &cb->tex[set][t]);
                glBindTexture(GL_TEXTURE_2D, cb->tex[set][t]);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
                glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
                tex_level(s->img, internal, L->tgt_w, L->tgt_h, host_run_pixel_format(s->tch), GL_FLOAT,
                          dirty ? dirty : cb->init[t]);
            }
        for (int set = 0; set < sets_with_fbo; set++) {
            glGenFramebuffers(1, &cb->fbo[set]);
            glBindFramebuffer(GL_FRAMEBUFFER, cb->fbo[set]);
            for (int t = 0; t < L->targets; t++)
                glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + (GLenum)t,
                                       GL_TEXTURE_2D, cb->tex[set][t], 0);
            glDrawBuffers(L->targets, draw);
            if (base_fault("fbo_incomplete")) { /* tests only (fault.h): a zero-size target */
                glBindTexture(GL_TEXTURE_2D, cb->tex[set][0]);
                glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, 0, 0, 0, host_run_pixel_format(s->tch),
                             GL_FLOAT, NULL);
            }
            GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
            if (st != GL_FRAMEBUFFER_COMPLETE) {
                host_run_fail(s, GG_FBO_INCOMPLETE, "framebuffer of %d %s target%s %dx%d: %s", L->targets,
                     s->tch == 1 ? "R32F" : s->tch == 2 ? "RG32F" : "RGBA32F",
                     L->targets > 1 ? "s" : "", L->tgt_w, L->tgt_h, fbo_status_name(st));
                free(dirty);
                return false;
            }
            if (zero && set == first_set(s)) /* the set the passes read first */
                clear_targets(L->targets);
        }
    }
    free(dirty);
    if (s->img) {
        /* Drawn into without attachments: the size comes from the defaults. */
        glGenFramebuffers(1, &s->nofbo);
        glBindFramebuffer(GL_FRAMEBUFFER, s->nofbo);
        glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, s->L->tgt_w);
        glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, s->L->tgt_h);
        GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (st != GL_FRAMEBUFFER_COMPLETE) {
            host_run_fail(s, GG_FBO_INCOMPLETE, "framebuffer with no attachment %dx%d: %s", s->L->tgt_w,
                 s->L->tgt_h, fbo_status_name(st));
            return false;
        }
    }
    if (!host_run_stage_ok(s, "making the render targets"))
        return false;
    gg_rc_cblock *names = keep ? calloc((size_t)s->ncb, sizeof *names) : NULL;
    if (names) {
        for (int c = 0; c < s->ncb; c++) {
            memcpy(names[c].tex, s->cb[c].tex, sizeof names[c].tex);
            memcpy(names[c].fbo, s->cb[c].fbo, sizeof names[c].fbo);
        }
        host_rc_targets_put(s->cache, key, names, s->ncb, s->nofbo);
        s->targets_cached = true;
    }
    return host_run_triangle(s);
}

bool host_run_triangle(run_state *s)
{
    static const float tri[] = {-1.0f, -1.0f, 3.0f, -1.0f, -1.0f, 3.0f};
    if (glGenVertexArrays) {
        glGenVertexArrays(1, &s->vao);
        glBindVertexArray(s->vao);
    }
    glGenBuffers(1, &s->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, s->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    return host_run_stage_ok(s, "making the vertex buffer");
}

/* The running sums' first value into the set the first pass reads (no
 * glFinish). */
static void init_sums(run_state *s)
{
    const gg_layout *L = s->CL;
    int set = first_set(s);
    for (int c = 0; c < s->ncb && zero_start(s); c++) {
        glBindFramebuffer(GL_FRAMEBUFFER, s->cb[c].fbo[set]);
        clear_targets(L->targets);
    }
    for (int c = 0; c < s->ncb && !zero_start(s); c++)
        for (int t = 0; t < L->targets; t++) {
            glBindTexture(GL_TEXTURE_2D, s->cb[c].tex[set][t]);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, L->tgt_w, L->tgt_h, host_run_pixel_format(s->tch),
                            GL_FLOAT, s->cb[c].init[t]);
        }
}

/* The running sums back to their first value (outside the timed region). */
bool host_run_reinit(run_state *s)
{
    init_sums(s);
    glFinish();
    return host_run_stage_ok(s, "re-initialising the running sums");
}

static void bind_prev(const run_state *s, const GLuint *tex)
{
    for (int t = 0; t < s->L->targets; t++) {
        glActiveTexture(GL_TEXTURE2 + (GLenum)t);
        glBindTexture(GL_TEXTURE_2D, tex[t]);
    }
}

/* Tests only (fault.h): what a driver may do between two passes. */
static void faults_mid_pass(void)
{
    if (base_fault("hang"))
        base_fault_hang(); /* the shader never finishes */
    if (base_fault("crash"))
        base_fault_crash(); /* the driver dies */
    if (base_fault("gl_error"))
        glBindTexture(GL_FLOAT, 0); /* not a texture target: GL_INVALID_ENUM */
}

/* Tests only (fault.h): a context reset seen mid-run. */
void host_run_fault_lost(run_state *s)
{
    if (base_fault("lose_context"))
        host_run_fail(s, GG_CONTEXT_LOST, "timed run: the context was reset (fault injected)");
}

/* out=image: every pass of C blocks c0 .. c1-1 into the images, a barrier
 * after each draw so that the next pass (or the read-back) sees its stores. */
static void passes_image(run_state *s, int c0, int c1)
{
    const gg_layout *L = s->L;
    const gg_split *sp = &s->sp;
    GLenum fmt = image_internal(s);
    GLbitfield barrier = GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                         GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT;
    glBindFramebuffer(GL_FRAMEBUFFER, s->nofbo);
    for (int c = c0; c < c1; c++) {
        cblock *cb = &s->cb[c];
        int bi = c / sp->nblocks, bj = c % sp->nblocks, pass = 0;
        for (int bk = 0; bk < sp->kblocks; bk++) {
            bind_inputs(s, s->atex[bi * sp->kblocks + bk], s->btex[bk * sp->nblocks + bj]);
            for (int p = 0; p < L->passes; p++, pass++) {
                glUniform1i(s->cprog->loc_kbase, p * L->np);
                if (s->v->acc == GG_ACC_COPY) {
                    glBindImageTexture(0, cb->tex[0][0], 0, GL_FALSE, 0, GL_READ_WRITE, fmt);
                } else {
                    int src = pass % 2;
                    glActiveTexture(GL_TEXTURE2);
                    glBindTexture(GL_TEXTURE_2D, cb->tex[src][0]);
                    glBindImageTexture(0, cb->tex[1 - src][0], 0, GL_FALSE, 0, GL_WRITE_ONLY, fmt);
                }
                draw_pass(s, s->atex[bi * sp->kblocks + bk], p);
                glMemoryBarrier(barrier);
                if (c == 0 && pass == 0)
                    faults_mid_pass();
            }
        }
    }
}

/* Every pass of C blocks c0 .. c1-1; no glFinish. */
void host_run_passes(run_state *s, int c0, int c1)
{
    const gg_layout *L = s->L;
    const gg_split *sp = &s->sp;
    int total = L->passes * sp->kblocks;
    if (s->img) {
        passes_image(s, c0, c1);
        return;
    }
    for (int c = c0; c < c1; c++) {
        cblock *cb = &s->cb[c];
        int bi = c / sp->nblocks, bj = c % sp->nblocks, pass = 0;
        if (s->v->acc != GG_ACC_PINGPONG) {
            glBindFramebuffer(GL_FRAMEBUFFER, cb->fbo[0]);
            if (s->v->acc == GG_ACC_COPY)
                bind_prev(s, cb->tex[1]);
        }
        for (int bk = 0; bk < sp->kblocks; bk++) {
            bind_inputs(s, s->atex[bi * sp->kblocks + bk], s->btex[bk * sp->nblocks + bj]);
            for (int p = 0; p < L->passes; p++, pass++) {
                glUniform1i(s->cprog->loc_kbase, p * L->np);
                if (s->v->acc == GG_ACC_PINGPONG) {
                    int src = pass % 2;
                    bind_prev(s, cb->tex[src]);
                    glBindFramebuffer(GL_FRAMEBUFFER, cb->fbo[1 - src]);
                }
                draw_pass(s, s->atex[bi * sp->kblocks + bk], p);
                if (c == 0 && pass == 0)
                    faults_mid_pass();
                if (s->v->acc == GG_ACC_COPY && pass + 1 < total)
                    for (int t = 0; t < L->targets; t++) {
                        /* BrookGPU's way: the framebuffer into the texture
                         * the next pass reads (unit 2+t has tex[1][t]). */
                        glReadBuffer(GL_COLOR_ATTACHMENT0 + (GLenum)t);
                        glActiveTexture(GL_TEXTURE2 + (GLenum)t);
                        glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, L->tgt_w, L->tgt_h);
                    }
            }
        }
    }
}

/* The FBO that holds the result after all passes. */
GLuint host_run_result_fbo(const run_state *s, const cblock *cb)
{
    if (s->v->acc != GG_ACC_PINGPONG)
        return cb->fbo[0];
    int total = s->L->passes * s->sp.kblocks;
    return cb->fbo[total % 2 == 0 ? 0 : 1];
}
