/* glhost/run_wide: one variant of a wide store (store=f64, dd, df) on one
 * GEMM: run.h's contract, with gen/wide.h's words for floats.
 *  - A and B as doubles (base_wide_inputs: the caller's, or made from the
 *    floats), packed into RG32UI / RGBA32UI textures (NEAREST, one level);
 *    the running sums in two sets of such targets (acc=pingpong), the
 *    first set holding beta*C0 (or zero) before each run; one draw a pass.
 *  - Time as run.c: a warm-up run (not with once), then the reps, each
 *    after the sums are re-initialised outside the timed region, CLOCK_
 *    MONOTONIC from the first draw to glFinish; seconds is the median.
 *  - C read back as words (glReadPixels GL_RGBA_INTEGER, GL_UNSIGNED_INT),
 *    unpacked to hi + lo and judged by base_wide_verify against a
 *    reference of the store (ref when it is one, else made here); c_out
 *    gets C rounded to floats, gg_run_opts.c64_out C as doubles; alpha and
 *    beta are gg_run_opts' doubles where it says (wide_ab).
 *  - out=image (gen/wide_emit.c): C is one texture of C's texels a set
 *    (gen_layout_c_view), drawn into through imageStore on a framebuffer
 *    without attachments, the other set sampled; a barrier after each pass.
 *  - fetch=ssbo, texelfetch+ssbo, ssbo+texelfetch: the matrix a storage
 *    buffer (binding 0 A, 1 B) holds is its texture's words, texel (x, y)
 *    at y*width + x.
 *  - Not here yet: blocks (a problem whose textures pass the texture limit
 *    is unsupported), the long-draw bound, the run cache, streaming. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/wide.h"
#include "gen/wide.h"
#include "glhost/run_int.h"

typedef struct {
    run_state s;
    gg_layout L;
    gg_layout C;                        /* the targets' layout: L, or its one-image view */
    gg_store st;
    int tw;                             /* words a texel: 2 or 4 */
    GLuint a, b;                        /* textures, or storage buffers (ssbo[]) */
    bool ssbo[2];
    GLuint tex[2][GG_MAX_TARGETS], fbo[2];
    GLuint nofbo;                       /* out=image: the draws' framebuffer, no attachment */
    gg_box *boxes;                      /* tile=WxH: a draw's box each; else the viewport */
    int nbox;
    uint32_t *init[GG_MAX_TARGETS];     /* the first running sums, target layout */
    GLint loc_alpha;
    double alpha, beta;                 /* the problem's, or gg_run_opts.alpha64, beta64 */
} wide_run;

static GLenum fmt_internal(int tw) { return tw == 2 ? GL_RG32UI : GL_RGBA32UI; }
static GLenum fmt_pixels(int tw) { return tw == 2 ? GL_RG_INTEGER : GL_RGBA_INTEGER; }

/* immutable (glTexStorage2D) where the texture is bound as an image: ES
 * 3.1 binds immutable textures only */
static GLuint make_tex(int tw, int w, int h, const uint32_t *data, bool immutable)
{
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (!immutable) {
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)fmt_internal(tw), w, h, 0, fmt_pixels(tw),
                     GL_UNSIGNED_INT, data);
        return t;
    }
    glTexStorage2D(GL_TEXTURE_2D, 1, fmt_internal(tw), w, h);
    if (data)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, fmt_pixels(tw), GL_UNSIGNED_INT, data);
    return t;
}

/* Inputs, targets, FBOs and the triangle; false (status set) on failure. */
static bool upload(wide_run *w, const gg_inputs *in, double beta)
{
    run_state *s = &w->s;
    const gg_layout *L = &w->L, *C = &w->C;
    char err[200];
    gg_wide_inputs wi;
    if (base_wide_inputs(in, &wi, err, sizeof err)) {
        host_run_fail(s, GG_GL_ERROR, "%s", err);
        return false;
    }
    size_t na = gen_wide_a_words(L, w->st), nb = gen_wide_b_words(L, w->st);
    uint32_t *buf = malloc((na > nb ? na : nb) * sizeof *buf);
    bool ok = buf != NULL;
    for (int t = 0; t < C->targets && ok; t++)
        ok = (w->init[t] = malloc(gen_wide_target_words(C, w->st) * sizeof(uint32_t))) != NULL;
    if (!ok) {
        free(buf);
        base_wide_inputs_free(&wi);
        host_run_fail(s, GG_GL_ERROR, "out of host memory");
        return false;
    }
    gen_wide_pack_a(L, w->st, (gg_src64){wi.a, in->lda, in->transa}, buf);
    w->a = w->ssbo[0] ? host_ssbo_upload(buf, na * sizeof *buf)
                      : make_tex(w->tw, L->a_w, L->a_h, buf, false);
    gen_wide_pack_b(L, w->st, (gg_src64){wi.b, in->ldb, in->transb}, buf);
    w->b = w->ssbo[1] ? host_ssbo_upload(buf, nb * sizeof *buf)
                      : make_tex(w->tw, L->b_w, L->b_h, buf, false);
    free(buf);
    gen_wide_pack_c0(C, w->st, wi.c0, in->n, beta, w->init);
    base_wide_inputs_free(&wi);
    for (int set = 0; set < 2; set++) {
        glGenFramebuffers(1, &w->fbo[set]);
        glBindFramebuffer(GL_FRAMEBUFFER, w->fbo[set]);
        GLenum bufs[GG_MAX_TARGETS];
        for (int t = 0; t < C->targets; t++) {
            w->tex[set][t] = make_tex(w->tw, C->tgt_w, C->tgt_h, set == 0 ? w->init[t] : NULL,
                                      L->image);
            glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + t, GL_TEXTURE_2D,
                                   w->tex[set][t], 0);
            bufs[t] = GL_COLOR_ATTACHMENT0 + t;
        }
        glDrawBuffers(C->targets, bufs);
        GLenum fs = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (fs != GL_FRAMEBUFFER_COMPLETE) {
            host_run_fail(s, GG_FBO_INCOMPLETE, "the %s targets' framebuffer is incomplete "
                          "(status 0x%04x)", w->tw == 2 ? "RG32UI" : "RGBA32UI", fs);
            return false;
        }
    }
    if (L->image) {
        /* drawn into without attachments: the size comes from the defaults
         * (fbo[] serve the read-back only) */
        glGenFramebuffers(1, &w->nofbo);
        glBindFramebuffer(GL_FRAMEBUFFER, w->nofbo);
        glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, L->tgt_w);
        glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, L->tgt_h);
        GLenum fs = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (fs != GL_FRAMEBUFFER_COMPLETE) {
            host_run_fail(s, GG_FBO_INCOMPLETE, "the framebuffer without attachments (%dx%d) is "
                          "incomplete (status 0x%04x)", L->tgt_w, L->tgt_h, fs);
            return false;
        }
    }
    return host_run_stage_ok(s, "uploading") && host_run_triangle(s);
}

/* The first running sums into set 0 (no glFinish). */
static void reinit(wide_run *w)
{
    const gg_layout *L = &w->C;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    for (int t = 0; t < L->targets; t++) {
        glBindTexture(GL_TEXTURE_2D, w->tex[0][t]);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, L->tgt_w, L->tgt_h, fmt_pixels(w->tw),
                        GL_UNSIGNED_INT, w->init[t]);
    }
}

/* Every pass: pass p reads set p % 2 and draws into the other.  The
 * draw state is set here, each run: between the build and the draws the
 * evaluator starts the hinted programs in this context (o->built), and an
 * earlier run may have left a scissor or blending on. */
static void passes(wide_run *w)
{
    const gg_layout *L = &w->L;
    glUseProgram(w->s.prog.prog);
    glBindVertexArray(w->s.vao);
    glViewport(0, 0, L->tgt_w, L->tgt_h);
    glDisable(GL_BLEND);
    if (w->nbox > 1)
        glEnable(GL_SCISSOR_TEST);
    else
        glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_RASTERIZER_DISCARD);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    GLuint in[2] = {w->a, w->b};
    for (int u = 0; u < 2; u++) {
        if (w->ssbo[u]) {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)u, in[u]);
        } else {
            glActiveTexture(GL_TEXTURE0 + (GLenum)u);
            glBindTexture(GL_TEXTURE_2D, in[u]);
        }
    }
    if (L->image)
        glBindFramebuffer(GL_FRAMEBUFFER, w->nofbo);
    for (int p = 0; p < L->passes; p++) {
        int src = p % 2;
        for (int t = 0; t < w->C.targets; t++) {
            glActiveTexture(GL_TEXTURE2 + t);
            glBindTexture(GL_TEXTURE_2D, w->tex[src][t]);
        }
        if (L->image)
            glBindImageTexture(0, w->tex[1 - src][0], 0, GL_FALSE, 0, GL_WRITE_ONLY,
                               fmt_internal(w->tw));
        else
            glBindFramebuffer(GL_FRAMEBUFFER, w->fbo[1 - src]);
        glUniform1i(w->s.cprog->loc_kbase, p * L->np);
        for (int b = 0; b < w->nbox; b++) {
            if (w->nbox > 1)
                glScissor(w->boxes[b].x, w->boxes[b].y, w->boxes[b].w, w->boxes[b].h);
            glDrawArrays(GL_TRIANGLES, 0, 3);
        }
        if (L->image) /* the next pass samples what this one stored, the read-back reads it */
            glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                            GL_FRAMEBUFFER_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT |
                            GL_TEXTURE_UPDATE_BARRIER_BIT);
        w->s.draws += w->nbox;
    }
    glDisable(GL_SCISSOR_TEST);
    glActiveTexture(GL_TEXTURE0);
}

/* C back into hi + lo (m x n each). */
static bool read_back(wide_run *w, double *hi, double *lo)
{
    const gg_layout *L = &w->C;
    size_t texels = (size_t)L->tgt_w * L->tgt_h;
    uint32_t *rgba = malloc(texels * 4 * sizeof *rgba);
    uint32_t *tg[GG_MAX_TARGETS] = {0};
    bool ok = rgba != NULL;
    for (int t = 0; t < L->targets && ok; t++)
        ok = (tg[t] = malloc(texels * w->tw * sizeof(uint32_t))) != NULL;
    if (ok) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, w->fbo[L->passes % 2]);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        for (int t = 0; t < L->targets; t++) {
            glReadBuffer(GL_COLOR_ATTACHMENT0 + t);
            /* GL_RGBA_INTEGER: the format ES 3.0 reads every unsigned
             * integer buffer with; RG32UI's blue and alpha come back as 0, 1 */
            glReadPixels(0, 0, L->tgt_w, L->tgt_h, GL_RGBA_INTEGER, GL_UNSIGNED_INT, rgba);
            for (size_t i = 0; i < texels; i++)
                memcpy(tg[t] + i * w->tw, rgba + i * 4, (size_t)w->tw * sizeof(uint32_t));
        }
        gen_wide_unpack_c(L, w->st, (const uint32_t *const *)tg, hi, lo, L->n);
    } else {
        host_run_fail(&w->s, GG_GL_ERROR, "out of host memory");
    }
    free(rgba);
    for (int t = 0; t < GG_MAX_TARGETS; t++)
        free(tg[t]);
    return ok && host_run_stage_ok(&w->s, "reading back");
}

static void cleanup(wide_run *w)
{
    run_state *s = &w->s;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (w->nofbo)
        glDeleteFramebuffers(1, &w->nofbo);
    for (int set = 0; set < 2; set++) {
        glDeleteTextures(GG_MAX_TARGETS, w->tex[set]);
        if (w->fbo[set])
            glDeleteFramebuffers(1, &w->fbo[set]);
    }
    GLuint t[2] = {w->a, w->b};
    for (int u = 0; u < 2; u++) {
        if (w->ssbo[u] && t[u])
            glDeleteBuffers(1, &t[u]);
        else if (t[u])
            glDeleteTextures(1, &t[u]);
    }
    if (s->vbo)
        glDeleteBuffers(1, &s->vbo);
    if (s->vao)
        glDeleteVertexArrays(1, &s->vao);
    if (s->have_prog)
        host_program_free(&s->prog);
    glUseProgram(0);
    for (int i = 0; i < GG_MAX_TARGETS; i++)
        free(w->init[i]);
    while (glGetError() != GL_NO_ERROR)
        ;
}

static bool build(wide_run *w, gg_run_log *log)
{
    run_state *s = &w->s;
    double t0 = base_now_s();
    gg_status st = host_program_build(&s->prog, s->v, w->L.m, w->L.n, w->L.k);
    s->out->compile_s = base_now_s() - t0;
    s->have_prog = true;
    s->cprog = &s->prog;
    if (st != GG_OK) {
        host_run_fail(s, st, "%s", s->prog.detail);
        if (log) {
            log->failed = true;
            log->program = s->prog;
            memset(&s->prog, 0, sizeof s->prog);
            s->have_prog = false;
        }
        return false;
    }
    glUseProgram(s->prog.prog);
    w->loc_alpha = glGetUniformLocation(s->prog.prog, "uAlphaW");
    uint32_t aw[4] = {0};
    gen_wide_value(w->st, w->alpha, 0.0, aw);
    glUniform4uiv(w->loc_alpha, 1, aw);
    glViewport(0, 0, w->L.tgt_w, w->L.tgt_h);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    return host_run_stage_ok(s, "building the program");
}

void host_run_wide(const gg_ctx_info *info, const gg_variant *v, const gg_problem *p,
                   const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                   gg_measurement *out, float *c_out, gg_run_log *log)
{
    wide_run w;
    memset(&w, 0, sizeof w);
    run_state *s = &w.s;
    s->info = info;
    s->v = v;
    s->p = p;
    s->in = in;
    s->out = out;
    w.st = v->store;
    bool ab64 = o && o->wide_ab;
    w.alpha = ab64 ? o->alpha64 : p->alpha;
    w.beta = ab64 ? o->beta64 : p->beta;
    gg_reference own = {0};
    bool timing_on = false;
    size_t mn = (size_t)in->m * in->n;
    double *hi = malloc(mn * sizeof *hi), *lo = malloc(mn * sizeof *lo);
    int reps = (o && o->once) || p->reps < 1 ? 1 : p->reps;
    double *times = calloc((size_t)reps, sizeof *times);
    if (!hi || !lo || !times) {
        host_run_fail(s, GG_GL_ERROR, "out of host memory");
        goto done;
    }
    if (gen_layout_compute(v, in->m, in->n, in->k, &w.L)) {
        host_run_fail(s, GG_UNSUPPORTED, "%dx%dx%d: the sizes overflow this packing", in->m, in->n,
                      in->k);
        goto done;
    }
    const gg_layout *L = &w.L;
    gen_layout_c_view(L, &w.C);
    int lim = o && o->max_texture_size > 0 && o->max_texture_size < info->max_texture_size
                  ? o->max_texture_size : info->max_texture_size;
    if (L->a_w > lim || L->a_h > lim || L->b_w > lim || L->b_h > lim) {
        host_run_fail(s, GG_UNSUPPORTED, "store=%s: A (%dx%d) or B (%dx%d) texels pass the %d-texel "
                      "texture limit, and the wide stores are not cut into blocks yet",
                      gen_store_name(w.st), L->a_w, L->a_h, L->b_w, L->b_h, lim);
        goto done;
    }
    w.tw = gen_wide_texel_words(L, w.st);
    long sslim = host_ssbo_limit(info, o);
    for (int u = 0; u < 2; u++) {
        w.ssbo[u] = gen_fetch_path(v->fetch, u) == GG_FETCH_SSBO;
        size_t bytes = (u ? gen_wide_b_words(L, w.st) : gen_wide_a_words(L, w.st)) * sizeof(uint32_t);
        if (w.ssbo[u] && bytes > (size_t)sslim) {
            host_run_fail(s, GG_UNSUPPORTED, "fetch=%s: %s's storage buffer (%zu bytes) passes this "
                          "card's limit of %ld (GL_MAX_SHADER_STORAGE_BLOCK_SIZE), and the wide stores "
                          "are not cut into blocks yet", gen_fetch_name(v->fetch), u ? "B" : "A",
                          bytes, sslim);
            goto done;
        }
    }
    /* tile=WxH: one scissored draw a tile (gen_tile_boxes; at most GG_MAX_TILES) */
    w.boxes = malloc(GG_MAX_TILES * sizeof *w.boxes);
    w.nbox = w.boxes ? gen_tile_boxes(v, L->tgt_w, L->tgt_h, w.boxes, GG_MAX_TILES) : 0;
    if (w.nbox < 1) {
        host_run_fail(s, GG_UNSUPPORTED, "%s", w.boxes ? "tile: more tiles than a pass may draw"
                                                         : "out of host memory");
        goto done;
    }
    out->passes = L->passes;
    bool built = build(&w, log);
    if (o && o->built)
        o->built(o->built_user, out);
    if (!built)
        goto done;
    double t0 = base_now_s();
    bool ok = upload(&w, in, w.beta);
    glFinish();
    out->upload_s = base_now_s() - t0;
    if (!ok)
        goto done;
    if (o && o->sent)
        o->sent(o->sent_user);
    double run0 = base_now_s();
    if (!(o && o->once)) {
        passes(&w);
        glFinish();
        if (!host_run_stage_ok(s, "warm-up run"))
            goto done;
    }
    if (o && o->timing) {
        o->timing(o->timing_user, true);
        timing_on = true;
    }
    int done_reps = 0;
    for (int r = 0; r < reps; r++) {
        if (!(o && o->once)) {
            reinit(&w);
            glFinish();
        }
        s->draws = 0;
        double a = base_now_s();
        passes(&w);
        glFinish();
        times[r] = base_now_s() - a;
        if (!host_run_stage_ok(s, "timed run"))
            goto done;
        done_reps = r + 1;
        if (host_run_reps_done(o, times, r, reps, out))
            break;
    }
    if (timing_on) {
        o->timing(o->timing_user, false);
        timing_on = false;
    }
    out->run_s = base_now_s() - run0;
    out->draws = s->draws;
    host_run_reps_out(out, times, done_reps);
    t0 = base_now_s();
    ok = read_back(&w, hi, lo);
    out->readback_s = base_now_s() - t0;
    if (!ok)
        goto done;
    if (c_out)
        for (size_t i = 0; i < mn; i++)
            c_out[i] = (float)(hi[i] + lo[i]);
    if (o && o->c64_out)
        for (size_t i = 0; i < mn; i++)
            o->c64_out[i] = hi[i] + lo[i];
    if (ref && !ab64 && (ref->store != w.st || !ref->rlo)) {
        char rerr[200];
        if (base_wide_reference(in, p->alpha, p->beta, w.st, &own, rerr, sizeof rerr)) {
            host_run_fail(s, GG_GL_ERROR, "reference for store=%s: %s", gen_store_name(w.st), rerr);
            goto done;
        }
        ref = &own;
    }
    if (ref) {
        gg_verdict verdict;
        double v0 = base_now_s();
        base_wide_verify(ref, hi, lo, &verdict);
        out->verify_s = base_now_s() - v0;
        out->rel_err = verdict.rel_err;
        if (!verdict.pass) {
            host_run_fail(s, GG_WRONG_RESULT, "%s", verdict.detail);
            goto done;
        }
    }
    out->gflops = 2.0 * in->m * (double)in->n * in->k / out->seconds / 1e9;
done:
    if (timing_on)
        o->timing(o->timing_user, false);
    base_reference_free(&own);
    if (s->failed)
        out->gflops = 0;
    cleanup(&w);
    free(w.boxes);
    free(hi);
    free(lo);
    free(times);
}
