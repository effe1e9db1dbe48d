/* The library's streamed call: see run.h (gg_run_opts.stream) and run_int.h.
 * Below run.c (which calls host_run_stream_bands and host_stream_run), above
 * run_steps.c (the steps it shares with run.c); it calls nothing in run.c. */
#include <GL/glew.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fault.h"
#include "base/pool.h"
#include "gen/pack.h"
#include "glhost/run_cache.h"
#include "glhost/run_int.h"

#define STAGE_ALIGN 256
/* The least a thread's piece of packing or unpacking is worth: with 256 KiB
 * an H100's 1024^3 call judged its last band (512 rows of 4 KiB) in 8
 * pieces whatever the threads; with 64 KiB and 16 threads, in 32, and the
 * call went 4-6% faster (threads-tasks.txt in the H100's library-speed
 * results). */
#define TASK_BYTES (64 * 1024)

typedef struct {
    bool is_a;
    int idx;      /* texture index: atex's or btex's */
    gg_block blk;
    int y0, y1;   /* texel rows */
} pack_task;

typedef struct {
    run_state *s;
    char *up;           /* upload staging, mapped */
    const char *down;   /* read-back staging, mapped */
    size_t *aoff, *boff;
    size_t tbytes;      /* one target's read-back */
    pack_task *task;
    int ntask;
    int band, chunk;    /* unpacking: the band, target rows a task */
    int corrupt;        /* fault wrong_result: the row of C changed, -1 none */
    float *c;
    const gg_run_opts *o;
} stream_job;

static size_t align_up(size_t x) { return (x + STAGE_ALIGN - 1) / STAGE_ALIGN * STAGE_ALIGN; }

/* Rows a task of a h-row texture of rowbytes a row, for threads. */
static int chunk_rows(int h, size_t rowbytes, int threads)
{
    int want = (h + 2 * threads - 1) / (2 * threads);
    int least = (int)((TASK_BYTES + rowbytes - 1) / rowbytes);
    int r = want > least ? want : least;
    return r < 1 ? 1 : r > h ? h : r;
}

/* One texture's texel rows in pieces for the threads. */
static void add_pack_tasks(stream_job *j, bool is_a, int idx, gg_block blk)
{
    const gg_layout *L = j->s->L;
    int w = is_a ? L->a_w : L->b_w, h = is_a ? L->a_h : L->b_h;
    int per = chunk_rows(h, (size_t)w * L->channels * sizeof(float),
                         base_pool_threads(host_run_cache_pool(j->s->cache)));
    j->ntask = 0;
    for (int y = 0; y < h; y += per)
        j->task[j->ntask++] = (pack_task){is_a, idx, blk, y, y + per < h ? y + per : h};
}

static void pack_one(void *arg, int t)
{
    const stream_job *j = arg;
    const pack_task *pt = &j->task[t];
    const gg_inputs *in = j->s->in;
    if (pt->is_a) {
        gg_src a = {in->a, in->lda, in->transa};
        gen_pack_a_rows(j->s->L, a, &pt->blk, pt->y0, pt->y1, (float *)(j->up + j->aoff[pt->idx]));
    } else {
        gg_src b = {in->b, in->ldb, in->transb};
        gen_pack_b_rows(j->s->L, b, &pt->blk, pt->y0, pt->y1, (float *)(j->up + j->boff[pt->idx]));
    }
}

/* One texture packed on the threads into the upload staging, then sent up
 * from it.  (Sending it in slabs of rows, each flushed once packed,
 * measured slower on an H100: 1024^3 calls 3.0 -> 3.5 ms, 4096^3 no
 * faster.)  fetch=buffer sends nothing: its buffer texture is the staging's
 * range the packing wrote (the mapping is coherent).  A storage buffer is
 * filled by a copy from the staging on the card (its texels are the
 * packing's floats: not 3 channels, host_stream_ok). */
static void stage_texture(stream_job *j, GLuint buf, bool is_a, int idx, gg_block blk)
{
    const run_state *s = j->s;
    const gg_layout *L = s->L;
    add_pack_tasks(j, is_a, idx, blk);
    base_pool_run(host_run_cache_pool(s->cache), j->ntask, pack_one, j);
    int w = is_a ? L->a_w : L->b_w, h = is_a ? L->a_h : L->b_h;
    size_t off = is_a ? j->aoff[idx] : j->boff[idx];
    GLuint tex = is_a ? s->atex[idx] : s->btex[idx];
    if (gen_fetch_path(s->v->fetch, !is_a) == GG_FETCH_SSBO) { /* a copy on the card */
        host_ssbo_copy(buf, off, tex, (size_t)w * h * L->channels * sizeof(float));
        return;
    }
    if (s->v->fetch == GG_FETCH_BUFFER) {
        glBindTexture(GL_TEXTURE_BUFFER, tex);
        glTexBufferRange(GL_TEXTURE_BUFFER, host_run_input_internal(L->channels, s->v->store),
                         buf, (GLintptr)off,
                         (GLsizeiptr)((size_t)w * h * L->channels * sizeof(float)));
        glBindTexture(GL_TEXTURE_BUFFER, 0);
        return;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buf);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, host_run_pixel_format(L->channels), GL_FLOAT,
                    (const void *)(uintptr_t)off);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

/* B (band < 0) or band's A blocks: packed on the threads, sent up. */
static void stage_inputs(stream_job *j, GLuint buf, int band)
{
    const run_state *s = j->s;
    const gg_split *sp = &s->sp;
    const gg_inputs *in = s->in;
    if (band < 0) {
        for (int bk = 0; bk < sp->kblocks; bk++)
            for (int bj = 0; bj < sp->nblocks; bj++)
                stage_texture(j, buf, false, bk * sp->nblocks + bj,
                              gen_split_block(sp, in->m, in->n, in->k, 0, bj, bk));
    } else {
        for (int bk = 0; bk < sp->kblocks; bk++)
            stage_texture(j, buf, true, band * sp->kblocks + bk,
                          gen_split_block(sp, in->m, in->n, in->k, band, 0, bk));
    }
}

static GLuint texture_name(void)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    return t;
}

/* The kept input textures of this geometry, or new empty ones kept. */
static bool stream_textures(run_state *s)
{
    const gg_split *sp = &s->sp;
    int key[GG_RC_INPUT_KEY];
    host_run_input_key(s, key);
    if (host_rc_inputs_find(s->cache, key, &s->atex, &s->btex)) {
        s->inputs_cached = true;
        return true;
    }
    int na = sp->mblocks * sp->kblocks, nb = sp->kblocks * sp->nblocks;
    s->atex = calloc((size_t)na, sizeof *s->atex);
    s->btex = calloc((size_t)nb, sizeof *s->btex);
    if (!s->atex || !s->btex) {
        host_run_fail(s, GG_GL_ERROR, "upload: out of host memory");
        return false;
    }
    bool names = s->v->fetch == GG_FETCH_BUFFER; /* given their staging range each call */
    for (int i = 0; i < na; i++)
        s->atex[i] = names ? texture_name() : host_run_make_input(s, 0, s->L->a_w, s->L->a_h, NULL);
    for (int i = 0; i < nb; i++)
        s->btex[i] = names ? texture_name() : host_run_make_input(s, 1, s->L->b_w, s->L->b_h, NULL);
    if (!host_run_stage_ok(s, "making the input textures"))
        return false;
    s->inputs_cached = host_rc_inputs_put(s->cache, key, s->atex, na, s->btex, nb,
                                          host_run_input_buffers(s->v));
    return true;
}

/* Band b's C blocks read into the read-back staging (no wait). */
static void read_band(const stream_job *j, GLuint buf, int band)
{
    const run_state *s = j->s;
    const gg_layout *L = s->CL;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, buf);
    for (int bj = 0; bj < s->sp.nblocks; bj++) {
        int c = band * s->sp.nblocks + bj;
        glBindFramebuffer(GL_FRAMEBUFFER, host_run_result_fbo(s, &s->cb[c]));
        for (int t = 0; t < L->targets; t++) {
            glReadBuffer(GL_COLOR_ATTACHMENT0 + (GLenum)t);
            glReadPixels(0, 0, L->tgt_w, L->tgt_h, GL_RGBA, GL_FLOAT,
                         (void *)(uintptr_t)(((size_t)c * L->targets + t) * j->tbytes));
        }
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
}

/* Task t of a band's unpacking: target rows t*chunk.. of every block of
 * the band into C, then those rows handed to rows_done. */
static void unpack_one(void *arg, int t)
{
    const stream_job *j = arg;
    const run_state *s = j->s;
    const gg_layout *L = s->CL;
    const gg_inputs *in = s->in;
    int y0 = t * j->chunk, y1 = y0 + j->chunk < L->tgt_h ? y0 + j->chunk : L->tgt_h;
    gg_block blk = {0};
    for (int bj = 0; bj < s->sp.nblocks; bj++) {
        int c = j->band * s->sp.nblocks + bj;
        const float *tp[GG_MAX_TARGETS];
        for (int k = 0; k < L->targets; k++)
            tp[k] = (const float *)(j->down + ((size_t)c * L->targets + k) * j->tbytes);
        blk = gen_split_block(&s->sp, in->m, in->n, in->k, j->band, bj, 0);
        gen_unpack_c_rows(L, tp, 4, &blk, y0, y1, j->c, in->n);
    }
    int span = L->tr * L->r;
    int r0 = y0 * span, r1 = y1 * span < blk.m ? y1 * span : blk.m;
    if (j->corrupt >= blk.i0 + r0 && j->corrupt < blk.i0 + r1)
        j->c[(size_t)j->corrupt * in->n + in->n / 2] += 1000.0f;
    if (j->o->rows_done && r0 < r1)
        j->o->rows_done(j->o->rows_user, blk.i0 + r0, blk.i0 + r1);
}

/* Bands of C for this call: the options', GLGEMM_BANDS, else by work. */
int host_stream_bands(const gg_run_opts *o, const gg_inputs *in)
{
    const char *e = getenv("GLGEMM_BANDS");
    if (e && *e) {
        int b = atoi(e);
        if (b >= 1 && b <= 64)
            return b;
    }
    if (o->bands > 0)
        return o->bands;
    double work = (double)in->m * in->n * in->k;
    return work >= 0x1p33 ? 8 : work >= 0x1p31 ? 4 : work >= 0x1p29 ? 2 : 1;
}

/* fetch=buffer reads the staging in place: only where the card's memory is
 * this process's (a software rasteriser; a discrete card would read A and B
 * across the bus at every fetch), with glTexBufferRange, the ranges
 * STAGE_ALIGN apart a multiple of the card's offset alignment. */
static bool buffer_in_place(const gg_ctx_info *info)
{
    return info->software && info->tbo_offset_align > 0 &&
           STAGE_ALIGN % info->tbo_offset_align == 0 && glTexBufferRange;
}

int host_run_stream_bands(const gg_ctx_info *info, const gg_variant *v, const gg_run_opts *o,
                          const gg_inputs *in)
{
    return host_stream_ok(info, v, o) ? host_stream_bands(o, in) : 0;
}

bool host_stream_ok(const gg_ctx_info *info, const gg_variant *v, const gg_run_opts *o)
{
    return o && o->once && o->stream && o->cache && !o->same_inputs &&
           v->store == GG_STORE_F32 && v->fetch != GG_FETCH_UBO &&
           (v->fetch != GG_FETCH_BUFFER || buffer_in_place(info)) &&
           !(gen_fetch_ssbos(v->fetch) && v->mc.rows * v->mc.cols == 3);
}

/* The streamed run: 1 done (C in c, or a status set), 0 no staging to be
 * had (nothing done: the caller runs the old way). */
int host_stream_run(run_state *s, const gg_run_opts *o, float *c)
{
    const gg_split *sp = &s->sp;
    const gg_layout *L = s->L;
    gg_measurement *out = s->out;
    int na = sp->mblocks * sp->kblocks, nb = sp->kblocks * sp->nblocks;
    stream_job j = {.s = s, .c = c, .o = o, .corrupt = -1};
    if (base_fault("wrong_result")) /* tests only (fault.h): one element wrong */
        j.corrupt = s->in->m / 2;
    j.tbytes = gen_target_floats(s->CL, 4) * sizeof(float);
    j.aoff = calloc((size_t)na, sizeof *j.aoff);
    j.boff = calloc((size_t)nb, sizeof *j.boff);
    GLsync *fence = calloc((size_t)sp->mblocks, sizeof *fence);
    size_t abytes = align_up(gen_pack_a_floats(L) * sizeof(float));
    size_t bbytes = align_up(gen_pack_b_floats(L) * sizeof(float));
    /* tasks of one texture at most: a texel row each */
    size_t most = (size_t)(L->a_h > L->b_h ? L->a_h : L->b_h);
    int threads = base_pool_threads(host_run_cache_pool(s->cache));
    j.task = malloc(most * sizeof *j.task);
    int rc = 1;
    if (!j.aoff || !j.boff || !fence || !j.task) {
        host_run_fail(s, GG_GL_ERROR, "upload: out of host memory");
        goto out;
    }
    size_t up_bytes = 0;
    for (int i = 0; i < nb; i++, up_bytes += bbytes)
        j.boff[i] = up_bytes;
    for (int i = 0; i < na; i++, up_bytes += abytes)
        j.aoff[i] = up_bytes;
    GLuint upbuf, downbuf;
    j.up = host_rc_staging(s->cache, 0, up_bytes, &upbuf);
    j.down = j.up ? host_rc_staging(s->cache, 1, j.tbytes * s->CL->targets * s->ncb, &downbuf)
                  : NULL;
    if (!j.up || !j.down) {
        rc = 0;
        goto out;
    }
    double t0 = base_now_s();
    if (!stream_textures(s) || !host_run_make_targets(s))
        goto out;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    stage_inputs(&j, upbuf, -1);
    stage_inputs(&j, upbuf, 0);
    if (!host_run_stage_ok(s, "uploading A and B"))
        goto out;
    if (o->last_band_row)
        *o->last_band_row =
            gen_split_block(sp, s->in->m, s->in->n, s->in->k, sp->mblocks - 1, 0, 0).i0;
    if (o->sent)
        o->sent(o->sent_user);
    double run0 = base_now_s();
    out->upload_s = run0 - t0;
    s->draws = 0;
    for (int b = 0; b < sp->mblocks; b++) {
        if (b > 0)
            stage_inputs(&j, upbuf, b);
        host_run_passes(s, b * sp->nblocks, (b + 1) * sp->nblocks);
        read_band(&j, downbuf, b);
        fence[b] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        glFlush();
    }
    if (!host_run_stage_ok(s, "drawing and reading back"))
        goto out;
    double tail = run0;
    for (int b = 0; b < sp->mblocks; b++) {
        GLenum w = glClientWaitSync(fence[b], GL_SYNC_FLUSH_COMMANDS_BIT,
                                    (GLuint64)600 * 1000000000u);
        if (w != GL_ALREADY_SIGNALED && w != GL_CONDITION_SATISFIED) {
            host_run_fail(s, GG_GL_ERROR, "read-back: waiting for band %d of C: %s", b,
                 w == GL_TIMEOUT_EXPIRED ? "timed out" : "wait failed");
            goto out;
        }
        if (b == sp->mblocks - 1)
            tail = base_now_s();
        j.band = b;
        j.chunk = chunk_rows(s->CL->tgt_h, (size_t)s->CL->tgt_w * 4 * sizeof(float) *
                             (size_t)sp->nblocks * s->CL->targets, threads);
        base_pool_run(host_run_cache_pool(s->cache), (s->CL->tgt_h + j.chunk - 1) / j.chunk,
                      unpack_one, &j);
    }
    host_run_settle_draws(s);
    host_run_fault_lost(s);
    double end = base_now_s();
    out->run_s = tail - run0;
    out->readback_s = end - tail;
    out->seconds = end - run0;
    out->reps = 1;
    out->draws = s->draws;
    out->draw_cap = s->cap < s->region_frags ? s->cap : 0;
    out->max_draw_s = s->max_draw_s;
    host_run_stage_ok(s, "reading back C");
out:
    if (j.up) /* the next call waits for these uploads before packing over them */
        host_rc_staging_fence(s->cache, 0);
    for (int b = 0; fence && b < sp->mblocks; b++)
        if (fence[b])
            glDeleteSync(fence[b]);
    free(fence);
    free(j.aoff);
    free(j.boff);
    free(j.task);
    return rc;
}

