/* The render-to-texture GEMM host: see run.h for the contract.  The top of
 * the run files: the whole run (host_run_current), the session, and what
 * only a whole run does (uploading A and B, reading C back, building the
 * program); run.c -> stream.c (the streamed call) -> run_steps.c (the steps
 * both share: run_int.h), and run.c -> run_steps.c.  Neither calls back. */
#include <GL/glew.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/half.h"
#include "base/clock.h"
#include "base/fault.h"
#include "base/pool.h"
#include "gen/pack.h"
#include "glhost/program.h"
#include "glhost/run.h"
#include "glhost/run_cache.h"
#include "glhost/run_int.h"

void host_run_opts_default(gg_run_opts *o) { memset(o, 0, sizeof *o); }

void host_run_log_free(gg_run_log *log)
{
    if (!log)
        return;
    if (log->failed)
        host_program_free(&log->program); /* its GL name is 0: texts only */
    log->failed = false;
}

/* fetch=ubo: A's texels (a_w x a_h, ch floats each, as packed) into a
 * uniform buffer of chunks, one per pass and strip: the strip's
 * GG_UBO_STRIP * R texel rows, the pass's ubo_row texels each, as vec4
 * (channels past ch zero), chunks ubo_stride bytes apart (gen.h). */
static GLuint make_ubo(const run_state *s, const float *a)
{
    const gg_layout *L = s->L;
    int rows = GG_UBO_STRIP * L->tr, strips = L->a_h / rows, ch = L->channels;
    size_t stride = (size_t)s->ubo_stride / sizeof(float);
    size_t total = stride * (size_t)L->passes * (size_t)strips;
    float *u = calloc(total ? total : 1, sizeof *u);
    if (!u)
        return 0;
    for (int p = 0; p < L->passes; p++)
        for (int st = 0; st < strips; st++) {
            float *chunk = u + ((size_t)p * strips + st) * stride;
            for (int lr = 0; lr < rows; lr++)
                for (int t = 0; t < L->ubo_row; t++) {
                    size_t src = ((size_t)(st * rows + lr) * L->a_w + (size_t)p * L->ubo_row + t) * ch;
                    memcpy(chunk + ((size_t)lr * L->ubo_row + t) * 4, a + src, (size_t)ch * sizeof *a);
                }
        }
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_UNIFORM_BUFFER, b);
    glBufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)(total * sizeof *u), u, GL_STATIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    free(u);
    return b;
}

/* Packed data into an input texture made before (same geometry). */
static void refill_input(const run_state *s, GLuint t, int w, int h, const void *data)
{
    gg_input_fmt f = host_run_input_fmt(s->L->channels, s->v->store);
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, f.align);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, f.format, f.type, data);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

/* A block's packed floats as the store uploads them: themselves (f32),
 * halves (f16), or f16x8's words; b: B's packing, else A's. */
static const void *store_data(const run_state *s, bool b, const float *buf, size_t floats,
                              uint16_t *hbuf, uint32_t *wbuf)
{
    switch (s->v->store) {
    case GG_STORE_F16:
        gen_floats_to_halves(hbuf, buf, floats);
        return hbuf;
    case GG_STORE_F16X8:
        (b ? gen_pack_words_b : gen_pack_words_a)(s->L, buf, wbuf);
        return wbuf;
    default:
        return buf;
    }
}

/* A and B blocks into textures: new ones, or (refill) into s->atex and
 * s->btex, made before for the same geometry (2D textures only). */
static bool upload_inputs(run_state *s, bool refill)
{
    const gg_layout *L = s->L;
    const gg_split *sp = &s->sp;
    const gg_inputs *in = s->in;
    gg_src sa = {in->a, in->lda, in->transa}, sb = {in->b, in->ldb, in->transb};
    size_t na = gen_pack_a_floats(L), nb = gen_pack_b_floats(L);
    size_t wa = gen_pack_a_words(L), wb = gen_pack_b_words(L);
    float *buf = malloc((na > nb ? na : nb) * sizeof *buf);
    gg_store store = s->v->store;
    uint16_t *hbuf = store == GG_STORE_F16 ? malloc((na > nb ? na : nb) * sizeof *hbuf) : NULL;
    uint32_t *wbuf = store == GG_STORE_F16X8 ? malloc((wa > wb ? wa : wb) * sizeof *wbuf) : NULL;
    if (!refill) {
        s->atex = calloc((size_t)sp->mblocks * sp->kblocks, sizeof *s->atex);
        s->btex = calloc((size_t)sp->kblocks * sp->nblocks, sizeof *s->btex);
    }
    if (!buf || (store == GG_STORE_F16 && !hbuf) || (store == GG_STORE_F16X8 && !wbuf) ||
        !s->atex || !s->btex) {
        free(buf);
        free(hbuf);
        free(wbuf);
        host_run_fail(s, GG_GL_ERROR, "upload: out of host memory");
        return false;
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    for (int bi = 0; bi < sp->mblocks; bi++)
        for (int bk = 0; bk < sp->kblocks; bk++) {
            gg_block blk = gen_split_block(sp, in->m, in->n, in->k, bi, 0, bk);
            gen_pack_a(L, sa, &blk, buf);
            const void *data = store_data(s, false, buf, na, hbuf, wbuf);
            if (refill)
                refill_input(s, s->atex[bi * sp->kblocks + bk], L->a_w, L->a_h, data);
            else
                s->atex[bi * sp->kblocks + bk] = s->ubo ? make_ubo(s, buf)
                                                        : host_run_make_input(s, 0, L->a_w, L->a_h, data);
        }
    for (int bk = 0; bk < sp->kblocks; bk++)
        for (int bj = 0; bj < sp->nblocks; bj++) {
            gg_block blk = gen_split_block(sp, in->m, in->n, in->k, 0, bj, bk);
            gen_pack_b(L, sb, &blk, buf);
            const void *data = store_data(s, true, buf, nb, hbuf, wbuf);
            if (refill)
                refill_input(s, s->btex[bk * sp->nblocks + bj], L->b_w, L->b_h, data);
            else
                s->btex[bk * sp->nblocks + bj] = host_run_make_input(s, 1, L->b_w, L->b_h, data);
        }
    free(buf);
    free(hbuf);
    free(wbuf);
    return host_run_stage_ok(s, "uploading A and B");
}

/* A and B from the cache (same inputs), else packed and uploaded (and kept
 * by the cache when it may).  Inputs that change from run to run (the
 * library's calls) keep the textures only: packed and uploaded again into
 * those of the same geometry (2D textures; buffer textures and storage
 * buffers are made anew). */
static bool inputs(run_state *s)
{
    int key[GG_RC_INPUT_KEY];
    bool keep = s->cache && !s->ubo; /* the cache keeps textures only */
    bool refill = keep && !s->same_inputs;
    if (refill && (s->v->fetch == GG_FETCH_BUFFER || gen_fetch_ssbos(s->v->fetch)))
        keep = refill = false;
    if (keep) {
        host_run_input_key(s, key);
        if (host_rc_inputs_find(s->cache, key, &s->atex, &s->btex)) {
            s->inputs_cached = true;
            return !refill || upload_inputs(s, true);
        }
    }
    if (!upload_inputs(s, false))
        return false;
    if (keep && host_rc_inputs_put(s->cache, key, s->atex, s->sp.mblocks * s->sp.kblocks, s->btex,
                                 s->sp.kblocks * s->sp.nblocks, host_run_input_buffers(s->v)))
        s->inputs_cached = true;
    return true;
}

/* Every pass of every block; no glFinish. */
static void all_passes(run_state *s)
{
    s->draws = 0;
    host_run_passes(s, 0, s->ncb);
}

/* Each block's targets read into pixel-pack buffers (the card lays them
 * out, the driver copies once), then unpacked from the mapped buffers: on
 * an H100 twice as fast as glReadPixels into client memory (4096^3: 0.089
 * -> 0.039 s).  A pixel-unpack buffer for the uploads measured slower
 * there (0.12 -> 0.15-0.19 s), so they stay direct. */
static bool read_back(run_state *s, float *c)
{
    const gg_layout *L = s->CL;
    GLsizeiptr bytes = (GLsizeiptr)(gen_target_floats(L, 4) * sizeof(float));
    GLuint pbo[GG_MAX_TARGETS] = {0};
    glGenBuffers(L->targets, pbo);
    bool ok = true;
    for (int cbi = 0; cbi < s->ncb && ok; cbi++) {
        glBindFramebuffer(GL_FRAMEBUFFER, host_run_result_fbo(s, &s->cb[cbi]));
        for (int t = 0; t < L->targets; t++) {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo[t]);
            glBufferData(GL_PIXEL_PACK_BUFFER, bytes, NULL, GL_STREAM_READ);
            glReadBuffer(GL_COLOR_ATTACHMENT0 + (GLenum)t);
            glReadPixels(0, 0, L->tgt_w, L->tgt_h, GL_RGBA, GL_FLOAT, NULL);
        }
        const float *buf[GG_MAX_TARGETS] = {0};
        for (int t = 0; t < L->targets && ok; t++) {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo[t]);
            ok = (buf[t] = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, bytes, GL_MAP_READ_BIT)) != NULL;
        }
        if (ok) {
            int bi = cbi / s->sp.nblocks, bj = cbi % s->sp.nblocks;
            gg_block blk = gen_split_block(&s->sp, s->in->m, s->in->n, s->in->k, bi, bj, 0);
            gen_unpack_c(L, buf, 4, &blk, c, s->in->n);
        }
        for (int t = 0; t < L->targets; t++)
            if (buf[t]) {
                glBindBuffer(GL_PIXEL_PACK_BUFFER, pbo[t]);
                glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
            }
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glDeleteBuffers(L->targets, pbo);
    if (!ok) {
        host_run_fail(s, GG_GL_ERROR, "read-back: cannot map the pixel-pack buffer");
        return false;
    }
    return host_run_stage_ok(s, "reading back C");
}

static void cleanup(run_state *s)
{
    const gg_split *sp = &s->sp;
    free(s->tiles);
    s->tiles = NULL;
    unsigned buffers = host_run_input_buffers(s->v);
    if (s->atex && !s->inputs_cached) {
        if (buffers & 1)
            glDeleteBuffers(sp->mblocks * sp->kblocks, s->atex);
        else
            glDeleteTextures(sp->mblocks * sp->kblocks, s->atex);
        free(s->atex);
    }
    if (s->btex && !s->inputs_cached) {
        if (buffers & 2)
            glDeleteBuffers(sp->kblocks * sp->nblocks, s->btex);
        else
            glDeleteTextures(sp->kblocks * sp->nblocks, s->btex);
        free(s->btex);
    }
    if (gen_fetch_ssbos(s->v->fetch)) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
    }
    if (s->cb) {
        for (int c = 0; c < s->ncb; c++) {
            cblock *cb = &s->cb[c];
            for (int set = 0; set < 2 && !s->targets_cached; set++) {
                glDeleteTextures(GG_MAX_TARGETS, cb->tex[set]); /* 0 names are ignored */
                if (cb->fbo[set])
                    glDeleteFramebuffers(1, &cb->fbo[set]);
            }
            for (int t = 0; t < GG_MAX_TARGETS; t++)
                free(cb->init[t]);
        }
        free(s->cb);
    }
    if (s->nofbo && !s->targets_cached)
        glDeleteFramebuffers(1, &s->nofbo);
    if (s->img || s->v->fetch == GG_FETCH_IMAGE) {
        glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
        glBindImageTexture(1, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32F);
        glBindImageTexture(2, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32F);
    }
    if (s->vbo)
        glDeleteBuffers(1, &s->vbo);
    if (s->vao)
        glDeleteVertexArrays(1, &s->vao);
    if (s->query)
        glDeleteQueries(1, &s->query);
    if (s->have_prog)
        host_program_free(&s->prog);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDisable(GL_BLEND);
    glUseProgram(0);
    glActiveTexture(GL_TEXTURE0);
    while (glGetError() != GL_NO_ERROR)
        ;
}

/* Compile and link; false (status set, log filled) on failure. */
static bool build(run_state *s, gg_run_log *log)
{
    const gg_split *sp = &s->sp;
    double t0 = base_now_s();
    if (base_fault("compile_hang")) /* tests only (fault.h): a compiler that never returns */
        base_fault_hang();
    char *key = s->key;
    if (s->cache) {
        host_rc_program_key(key, s->v, sp->mb, sp->nb, sp->kb);
        if ((s->cprog = host_rc_program_find(s->cache, key))) {
            glUseProgram(s->cprog->prog);
            s->out->compile_s = base_now_s() - t0;
            s->out->program_cached = true;
            return host_run_stage_ok(s, "using the cached program");
        }
    }
    gg_status st = host_program_build(&s->prog, s->v, sp->mb, sp->nb, sp->kb);
    s->out->compile_s = base_now_s() - t0;
    s->have_prog = true;
    s->cprog = &s->prog;
    if (st == GG_OK && s->cache) {
        gg_program *kept = host_rc_program_put(s->cache, key, &s->prog, false);
        if (kept) {
            s->cprog = kept;
            s->have_prog = false;
        } else {
            key[0] = '\0'; /* not kept: no rate to keep either */
        }
    }
    if (st != GG_OK) {
        host_run_fail(s, st, "%s", s->prog.detail);
        if (log) {
            /* The texts move to the log; the program has no GL name. */
            log->failed = true;
            log->program = s->prog;
            memset(&s->prog, 0, sizeof s->prog);
            s->have_prog = false;
        }
        return false;
    }
    return host_run_stage_ok(s, "building the program");
}

/* Program state that holds for every pass. */
static bool setup_draw(run_state *s)
{
    const gg_layout *L = s->L;
    glUseProgram(s->cprog->prog); /* the samplers' units are set by program.c */
    glUniform1f(s->cprog->loc_alpha, s->p->alpha);
    glViewport(0, 0, L->tgt_w, L->tgt_h);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_CULL_FACE);
    if (s->v->acc == GG_ACC_BLEND) {
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFunc(GL_ONE, GL_ONE);
    } else {
        glDisable(GL_BLEND);
    }
    return host_run_stage_ok(s, "setting up the draw");
}

static bool timer_queries(const run_state *s)
{
    /* Desktop GL_TIME_ELAPSED only (ES has it through an extension with
     * other entry points); reported beside the wall clock, never instead. */
    return s->info->timer_query && strncmp(s->info->version, "OpenGL ES", 9) != 0 &&
           glGenQueries && glGetQueryObjectui64v;
}

/* The context's texture size limit, or the options' smaller one. */
static int texture_limit(const gg_ctx_info *info, const gg_run_opts *o)
{
    int lim = info->max_texture_size;
    return o && o->max_texture_size > 0 && o->max_texture_size < lim ? o->max_texture_size : lim;
}

void host_run_current(const gg_ctx_info *info, const gg_variant *v, const gg_problem *p,
                    const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                    gg_measurement *out, float *c_out, gg_run_log *log)
{
    base_measurement_init(out);
    if (log)
        log->failed = false;
    gg_reference own = {0}; /* a reference of v's store, when ref is not one */
    bool timing_on = false; /* o->timing told true */
    run_state st;
    memset(&st, 0, sizeof st);
    run_state *s = &st;
    s->info = info;
    s->v = v;
    s->p = p;
    s->in = in;
    s->out = out;
    s->cache = o ? o->cache : NULL;
    s->same_inputs = o && o->same_inputs;
    while (glGetError() != GL_NO_ERROR)
        ;

    gg_card_limits lim;
    host_ctx_limits(info, &lim);
    char why[256] = "";
    gg_card_verdict cv = gen_variant_check_card(v, &lim, why, sizeof why);
    if (cv != GG_CARD_OK) {
        host_run_fail(s, cv == GG_CARD_INVALID ? GG_INVALID : GG_UNSUPPORTED, "%s", why);
        return;
    }
    if (gen_store_wide(v->store)) { /* f64, dd, df: glhost/run_wide.c */
        host_run_wide(info, v, p, in, ref, o, out, c_out, log);
        return;
    }
    int max_tex = texture_limit(info, o);
    int bands = host_run_stream_bands(info, v, o, in); /* 0: not streamed */
    bool stream = bands > 0;
    if (gen_split_plan_bands(v, in->m, in->n, in->k, max_tex, stream ? bands : 1,
                             &s->sp)) {
        host_run_fail(s, GG_UNSUPPORTED, "no block of %dx%dx%d fits a %d-texel texture limit with "
             "this packing and mrt", in->m, in->n, in->k, max_tex);
        return;
    }
    if (gen_fetch_ssbos(v->fetch) && host_ssbo_plan(v, in->m, in->n, in->k, max_tex,
                                                    host_ssbo_limit(info, o), stream ? bands : 1,
                                                    &s->sp, why, sizeof why)) {
        host_run_fail(s, GG_UNSUPPORTED, "%s", why);
        return;
    }
    s->L = &s->sp.L;
    s->img = v->out == GG_OUT_IMAGE;
    gen_layout_c_view(s->L, &s->cview);
    s->CL = &s->cview;
    s->tch = s->img ? (s->L->channels == 1 ? 1 : 4) : gen_target_channels(s->L);
    if (v->fetch == GG_FETCH_BUFFER &&
        ((long)s->L->a_w * s->L->a_h > lim.max_texture_buffer ||
         (long)s->L->b_w * s->L->b_h > lim.max_texture_buffer)) {
        host_run_fail(s, GG_UNSUPPORTED, "fetch=buffer: A (%dx%d) or B (%dx%d) texels pass this card's "
             "buffer texture limit of %ld (GL_MAX_TEXTURE_BUFFER_SIZE)", s->L->a_w, s->L->a_h,
             s->L->b_w, s->L->b_h, lim.max_texture_buffer);
        return;
    }
    if ((s->img || v->fetch == GG_FETCH_IMAGE) && (!glBindImageTexture || !glMemoryBarrier ||
                                                  !glFramebufferParameteri)) {
        host_run_fail(s, GG_UNSUPPORTED, "out=%s,fetch=%s: this context has no glBindImageTexture, "
             "glMemoryBarrier or glFramebufferParameteri", gen_out_name(v->out),
             gen_fetch_name(v->fetch));
        return;
    }
    s->ubo = v->fetch == GG_FETCH_UBO;
    if (v->tile.rows) {
        int nt = gen_tile_boxes(v, s->L->tgt_w, s->L->tgt_h, NULL, 0);
        s->tiles = nt > 0 ? malloc((size_t)nt * sizeof *s->tiles) : NULL;
        if (!s->tiles) {
            host_run_fail(s, nt < 0 ? GG_UNSUPPORTED : GG_GL_ERROR, nt < 0 ? "tile=%dx%d: more than %d "
                 "draws a pass over %dx%d fragments" : "tile=%dx%d: out of memory (%d draws over %dx%d)",
                 v->tile.cols, v->tile.rows, nt < 0 ? GG_MAX_TILES : nt, s->L->tgt_w, s->L->tgt_h);
            return;
        }
        s->ntiles = gen_tile_boxes(v, s->L->tgt_w, s->L->tgt_h, s->tiles, nt);
    }
    if (s->ubo) {
        GLint max_block = 0, align = 0;
        glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &max_block);
        glGetIntegerv(GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT, &align);
        long bytes = s->L->ubo_vec4s * 16;
        if (!glBindBufferRange || bytes > max_block) {
            host_run_fail(s, GG_UNSUPPORTED, "fetch=ubo: a strip's A (%d rows of %d texels, %ld bytes) "
                 "passes this card's uniform block limit of %d bytes (GL_MAX_UNIFORM_BLOCK_SIZE); "
                 "a smaller np or blk fits", GG_UBO_STRIP * s->L->tr, s->L->ubo_row, bytes,
                 max_block);
            return;
        }
        align = align > 16 ? align : 16;
        s->ubo_stride = (bytes + align - 1) / align * align;
    }
    if (v->fetch == GG_FETCH_BUFFER && !glTexBuffer) {
        host_run_fail(s, GG_UNSUPPORTED, "fetch=buffer: this context has no glTexBuffer");
        return;
    }
    s->ncb = s->sp.mblocks * s->sp.nblocks;
    out->passes = s->L->passes * s->sp.kblocks;

    bool once = o && o->once;
    int reps = once || p->reps < 1 ? 1 : p->reps;
    double *times = calloc((size_t)reps, sizeof *times);
    double *gpu = calloc((size_t)reps, sizeof *gpu);
    float *c = c_out ? c_out : malloc((size_t)in->m * in->n * sizeof *c);
    if (!times || !gpu || !c) {
        host_run_fail(s, GG_GL_ERROR, "out of host memory");
        goto done;
    }
    bool built = build(s, log);
    if (o && o->built)
        o->built(o->built_user, out);
    if (!built || !setup_draw(s))
        goto done;
    host_run_plan_draws(s, o);
    if (stream && host_stream_run(s, o, c)) {
        if (s->failed)
            goto done;
        goto judge;
    }

    double t0 = base_now_s();
    bool ok = inputs(s) && host_run_make_targets(s);
    glFinish();
    out->upload_s = base_now_s() - t0;
    if (!ok || !host_run_stage_ok(s, "uploading"))
        goto done;
    if (o && o->sent)
        o->sent(o->sent_user);

    bool use_query = timer_queries(s);
    if (use_query)
        glGenQueries(1, &s->query);
    double run0 = base_now_s();
    /* Warm-up (the targets hold their first value already); once: none,
     * the one run starts from that first value. */
    if (!once) {
        all_passes(s);
        glFinish();
        host_run_settle_draws(s);
        if (!host_run_stage_ok(s, "warm-up run"))
            goto done;
    }
    int done_reps = 0;
    if (o && o->timing) {
        o->timing(o->timing_user, true);
        timing_on = true;
    }
    for (int r = 0; r < reps; r++) {
        if (!once && !host_run_reinit(s))
            goto done;
        if (use_query)
            glBeginQuery(GL_TIME_ELAPSED, s->query);
        double a = base_now_s();
        all_passes(s);
        if (use_query)
            glEndQuery(GL_TIME_ELAPSED);
        glFinish();
        times[r] = base_now_s() - a;
        if (use_query) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(s->query, GL_QUERY_RESULT, &ns);
            gpu[r] = (double)ns * 1e-9;
        }
        if (r == 0) {
            host_run_settle_draws(s); /* once: after its one run (the cache's rate) */
            host_run_fault_lost(s);
        }
        if (!host_run_stage_ok(s, "timed run"))
            goto done;
        done_reps = r + 1;
        if (once || host_run_reps_done(o, times, r, reps, out))
            break;
    }
    if (timing_on) {
        o->timing(o->timing_user, false);
        timing_on = false;
    }
    out->run_s = base_now_s() - run0;
    out->draws = s->draws;
    out->draw_cap = s->cap < s->region_frags ? s->cap : 0;
    out->max_draw_s = s->max_draw_s;
    host_run_reps_out(out, times, done_reps);
    if (use_query)
        out->gpu_s = base_median(gpu, done_reps);

    t0 = base_now_s();
    ok = read_back(s, c);
    out->readback_s = base_now_s() - t0;
    if (!ok)
        goto done;

judge:
    /* The reference must be of the inputs this variant's GPU saw (store=f16:
     * rounded to halves).  Callers pass the matching one; one that does not
     * match (bench's `best` among fp32 presets, a report re-measuring) is
     * made right here rather than judging with the wrong one. */
    if (ref && ref->store != gen_store_inputs(v->store)) {
        char rerr[200];
        if (base_reference_compute_store(in, p->alpha, p->beta, v->store, &own, rerr, sizeof rerr)) {
            host_run_fail(s, GG_GL_ERROR, "reference for store=%s: %s", gen_store_name(v->store), rerr);
            goto done;
        }
        ref = &own;
    }
    if (ref) {
        gg_verdict verdict;
        if (!base_verify_measured(ref, c, in->m, in->n, out, &verdict)) {
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
    cleanup(s);
    free(times);
    free(gpu);
    if (c != c_out)
        free(c);
}

void host_run_cache_prepare(gg_run_cache *c, const gg_ctx_info *info, const gg_variant *v,
                          int m, int n, int k, const gg_run_opts *o)
{
    gg_card_limits lim;
    host_ctx_limits(info, &lim);
    if (!c || gen_variant_check_card(v, &lim, NULL, 0) != GG_CARD_OK)
        return;
    gg_split sp;
    char why[256];
    if (gen_split_plan(v, m, n, k, texture_limit(info, o), &sp) ||
        (gen_fetch_ssbos(v->fetch) && host_ssbo_plan(v, m, n, k, texture_limit(info, o),
                                                     host_ssbo_limit(info, o), 1, &sp, why,
                                                     sizeof why)))
        return;
    char key[GG_RC_KEY];
    host_rc_program_key(key, v, sp.mb, sp.nb, sp.kb);
    if (host_rc_program_find(c, key))
        return;
    /* Started only: where the driver compiles in parallel, it goes on while
     * the current variant runs; finished when its run looks it up. */
    gg_program p;
    if (host_program_start(&p, v, sp.mb, sp.nb, sp.kb) != GG_OK || !host_rc_program_put(c, key, &p, true))
        host_program_free(&p); /* the run builds it again and reports why */
    glUseProgram(0);
    while (glGetError() != GL_NO_ERROR)
        ;
}

struct gg_session {
    gg_backend backend;
    int device;
    gg_ctx *ctx[3];        /* by gg_ctx_kind, made on first use */
    gg_ctx_info info[3];
    gg_run_cache *cache[3];
    int current;           /* the kind current now, -1 none */
};

gg_session *host_session_new(gg_backend backend, int device)
{
    gg_session *s = calloc(1, sizeof *s);
    if (s) {
        s->backend = backend;
        s->device = device;
        s->current = -1;
    }
    return s;
}

void host_session_free(gg_session *s)
{
    if (!s)
        return;
    for (int k = 0; k < 3; k++)
        if (s->ctx[k]) {
            char err[256];
            if (s->cache[k] && (s->current == k || !host_ctx_make_current(s->ctx[k], err, sizeof err)))
                host_run_cache_free(s->cache[k]);
            else
                free(s->cache[k]); /* no context to delete its objects in: the context's end does */
            host_ctx_destroy(s->ctx[k]);
        }
    free(s);
}

int host_session_context(gg_session *s, gg_ctx_kind kind, gg_ctx_info *info, char *err,
                       size_t errlen, bool *no_device)
{
    if (no_device)
        *no_device = false;
    if ((unsigned)kind >= 3) {
        snprintf(err, errlen, "unknown context kind %d", (int)kind);
        return -1;
    }
    if (!s->ctx[kind]) {
        s->ctx[kind] = host_ctx_create(s->backend, s->device, kind, err, errlen, no_device);
        if (!s->ctx[kind])
            return -1;
        host_ctx_query(s->ctx[kind], &s->info[kind]);
        s->cache[kind] = host_run_cache_new(); /* NULL: runs go uncached */
    } else if (s->current != (int)kind && host_ctx_make_current(s->ctx[kind], err, errlen)) {
        return -1;
    }
    s->current = (int)kind;
    if (info)
        *info = s->info[kind];
    return 0;
}

int host_session_run(gg_session *s, const gg_variant *v, const gg_problem *p,
                   const gg_inputs *in, const gg_reference *ref, const gg_run_opts *o,
                   gg_measurement *out, float *c_out, gg_run_log *log, char *err,
                   size_t errlen, bool *no_device)
{
    gg_ctx_kind kind = host_ctx_kind_for(v->profile);
    if (host_session_context(s, kind, NULL, err, errlen, no_device))
        return -1;
    gg_run_opts own;
    if (o)
        own = *o;
    else
        host_run_opts_default(&own);
    if (!own.cache)
        own.cache = s->cache[kind];
    host_run_current(&s->info[kind], v, p, in, ref, &own, out, c_out, log);
    return 0;
}

gg_run_cache *host_session_cache(gg_session *s, gg_ctx_kind kind)
{
    return (unsigned)kind < 3 ? s->cache[kind] : NULL;
}
