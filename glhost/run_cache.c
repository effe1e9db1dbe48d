/* Programs and input textures kept between runs: see run_cache.h. */
#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glhost/run_cache.h"

#include "base/pool.h"

typedef struct {
    char key[GG_RC_KEY]; /* "" marks a free slot */
    gg_program prog;
    bool started;        /* host_program_start only: finished on first use */
    unsigned long used;
    double frag_s;       /* long draws: seconds a fragment of a pass, 0 not measured */
} prog_slot;

typedef struct {
    bool full;
    int key[GG_RC_INPUT_KEY];
    unsigned *atex, *btex;
    int na, nb;
    unsigned buffers;    /* bit 0: atex are buffer objects, bit 1: btex */
    unsigned long used;
} input_slot;

typedef struct {
    bool full;
    int key[GG_RC_TARGET_KEY];
    gg_rc_cblock *cbs;
    int ncb;
    unsigned nofbo;
} target_slot;

typedef struct {
    GLuint buf;
    void *map;
    size_t bytes;
    GLsync fence;
} staging;

struct gg_run_cache {
    prog_slot prog[GG_RUN_CACHE_PROGRAMS];
    input_slot inp[GG_RUN_CACHE_INPUTS];
    target_slot tgt;
    staging stage[2];
    base_pool *pool;
    bool no_pool;
    unsigned long tick;
    long hits, misses;
    long staged; /* staging buffers made */
};

gg_run_cache *host_run_cache_new(void) { return calloc(1, sizeof(gg_run_cache)); }

static void drop_inputs(input_slot *s)
{
    if (!s->full)
        return;
    (s->buffers & 1 ? glDeleteBuffers : glDeleteTextures)(s->na, s->atex);
    (s->buffers & 2 ? glDeleteBuffers : glDeleteTextures)(s->nb, s->btex);
    free(s->atex);
    free(s->btex);
    memset(s, 0, sizeof *s);
}

static void drop_targets(target_slot *t)
{
    if (!t->full)
        return;
    for (int i = 0; i < t->ncb; i++) {
        glDeleteTextures(2 * GG_MAX_TARGETS, &t->cbs[i].tex[0][0]); /* 0 names are ignored */
        for (int set = 0; set < 2; set++)
            if (t->cbs[i].fbo[set])
                glDeleteFramebuffers(1, &t->cbs[i].fbo[set]);
    }
    if (t->nofbo)
        glDeleteFramebuffers(1, &t->nofbo);
    free(t->cbs);
    memset(t, 0, sizeof *t);
}

static void drop_staging(staging *st)
{
    if (st->fence)
        glDeleteSync(st->fence);
    if (st->buf) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, st->buf);
        glUnmapBuffer(GL_COPY_WRITE_BUFFER);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        glDeleteBuffers(1, &st->buf);
    }
    memset(st, 0, sizeof *st);
}

void host_run_cache_free(gg_run_cache *c)
{
    if (!c)
        return;
    drop_targets(&c->tgt);
    for (int i = 0; i < 2; i++)
        drop_staging(&c->stage[i]);
    base_pool_free(c->pool);
    for (int i = 0; i < GG_RUN_CACHE_PROGRAMS; i++)
        if (c->prog[i].key[0])
            host_program_free(&c->prog[i].prog);
    for (int i = 0; i < GG_RUN_CACHE_INPUTS; i++)
        drop_inputs(&c->inp[i]);
    free(c);
}

void host_run_cache_forget(gg_run_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < GG_RUN_CACHE_PROGRAMS; i++)
        if (c->prog[i].key[0])
            host_program_forget(&c->prog[i].prog);
    for (int i = 0; i < GG_RUN_CACHE_INPUTS; i++) {
        free(c->inp[i].atex);
        free(c->inp[i].btex);
    }
    free(c->tgt.cbs);
    base_pool_free(c->pool);
    free(c);
}

void host_rc_program_key(char key[GG_RC_KEY], const gg_variant *v, int mb, int nb, int kb)
{
    char vt[GG_VARIANT_TEXT];
    snprintf(key, GG_RC_KEY, "%s@%dx%dx%d", gen_variant_format(v, vt, sizeof vt), mb, nb, kb);
}

gg_program *host_rc_program_find(gg_run_cache *c, const char *key)
{
    for (int i = 0; i < GG_RUN_CACHE_PROGRAMS; i++)
        if (c->prog[i].key[0] && !strcmp(c->prog[i].key, key)) {
            prog_slot *s = &c->prog[i];
            if (s->started) {
                s->started = false;
                if (host_program_finish(&s->prog) != GG_OK) {
                    host_program_free(&s->prog);
                    memset(s, 0, sizeof *s);
                    return NULL;
                }
            }
            s->used = ++c->tick;
            c->hits++;
            return &s->prog;
        }
    return NULL;
}

gg_program *host_rc_program_put(gg_run_cache *c, const char *key, gg_program *p, bool started)
{
    if (p->status != GG_OK || strlen(key) >= GG_RC_KEY)
        return NULL;
    prog_slot *victim = &c->prog[0];
    for (int i = 0; i < GG_RUN_CACHE_PROGRAMS; i++) {
        prog_slot *s = &c->prog[i];
        if (!s->key[0]) {
            victim = s;
            break;
        }
        if (s->used < victim->used)
            victim = s;
    }
    if (victim->key[0])
        host_program_free(&victim->prog);
    snprintf(victim->key, sizeof victim->key, "%s", key);
    victim->prog = *p;
    victim->started = started;
    victim->used = ++c->tick;
    victim->frag_s = 0;
    memset(p, 0, sizeof *p);
    if (!started)
        c->misses++;
    return &victim->prog;
}

static prog_slot *slot_of(const gg_run_cache *c, const char *key)
{
    for (int i = 0; c && i < GG_RUN_CACHE_PROGRAMS; i++)
        if (c->prog[i].key[0] && !strcmp(c->prog[i].key, key))
            return (prog_slot *)&c->prog[i];
    return NULL;
}

double host_rc_frag_s(const gg_run_cache *c, const char *key)
{
    const prog_slot *s = slot_of(c, key);
    return s ? s->frag_s : 0;
}

void host_rc_set_frag_s(gg_run_cache *c, const char *key, double frag_s)
{
    prog_slot *s = slot_of(c, key);
    if (s)
        s->frag_s = frag_s;
}

bool host_rc_inputs_find(gg_run_cache *c, const int key[GG_RC_INPUT_KEY], unsigned **atex,
                       unsigned **btex)
{
    for (int i = 0; i < GG_RUN_CACHE_INPUTS; i++) {
        input_slot *s = &c->inp[i];
        if (s->full && !memcmp(s->key, key, sizeof s->key)) {
            s->used = ++c->tick;
            *atex = s->atex;
            *btex = s->btex;
            return true;
        }
    }
    return false;
}

bool host_rc_inputs_put(gg_run_cache *c, const int key[GG_RC_INPUT_KEY], unsigned *atex, int na,
                      unsigned *btex, int nb, unsigned buffers)
{
    input_slot *victim = &c->inp[0];
    for (int i = 0; i < GG_RUN_CACHE_INPUTS; i++) {
        input_slot *s = &c->inp[i];
        if (!s->full) {
            victim = s;
            break;
        }
        if (s->used < victim->used)
            victim = s;
    }
    drop_inputs(victim);
    victim->full = true;
    memcpy(victim->key, key, sizeof victim->key);
    victim->atex = atex;
    victim->btex = btex;
    victim->na = na;
    victim->nb = nb;
    victim->buffers = buffers;
    victim->used = ++c->tick;
    return true;
}

const gg_rc_cblock *host_rc_targets_find(gg_run_cache *c, const int key[GG_RC_TARGET_KEY],
                                         unsigned *nofbo)
{
    if (!c->tgt.full || memcmp(c->tgt.key, key, sizeof c->tgt.key))
        return NULL;
    *nofbo = c->tgt.nofbo;
    return c->tgt.cbs;
}

void host_rc_targets_put(gg_run_cache *c, const int key[GG_RC_TARGET_KEY], gg_rc_cblock *cbs,
                         int ncb, unsigned nofbo)
{
    drop_targets(&c->tgt);
    c->tgt.full = true;
    memcpy(c->tgt.key, key, sizeof c->tgt.key);
    c->tgt.cbs = cbs;
    c->tgt.ncb = ncb;
    c->tgt.nofbo = nofbo;
}

static bool staging_off(void)
{
    const char *e = getenv("GLGEMM_STAGING");
    return e && *e && strspn(e, "0") == strlen(e);
}

void *host_rc_staging(gg_run_cache *c, int which, size_t bytes, unsigned *buf)
{
    staging *st = &c->stage[which ? 1 : 0];
    *buf = 0;
    if (!glBufferStorage || !glFenceSync || staging_off() || bytes == 0)
        return NULL;
    if (st->fence) {
        glClientWaitSync(st->fence, GL_SYNC_FLUSH_COMMANDS_BIT, (GLuint64)60 * 1000000000u);
        glDeleteSync(st->fence);
        st->fence = NULL;
    }
    if (st->bytes < bytes) {
        drop_staging(st);
        GLbitfield acc = (which ? GL_MAP_READ_BIT : GL_MAP_WRITE_BIT) | GL_MAP_PERSISTENT_BIT |
                         GL_MAP_COHERENT_BIT;
        glGenBuffers(1, &st->buf);
        glBindBuffer(GL_COPY_WRITE_BUFFER, st->buf);
        while (glGetError() != GL_NO_ERROR)
            ;
        glBufferStorage(GL_COPY_WRITE_BUFFER, (GLsizeiptr)bytes, NULL,
                        acc | (which ? GL_CLIENT_STORAGE_BIT : 0));
        st->map = glGetError() == GL_NO_ERROR
                      ? glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)bytes, acc)
                      : NULL;
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        if (!st->map) {
            glDeleteBuffers(1, &st->buf);
            memset(st, 0, sizeof *st);
            while (glGetError() != GL_NO_ERROR)
                ;
            return NULL;
        }
        st->bytes = bytes;
        c->staged++;
    }
    *buf = st->buf;
    return st->map;
}

bool host_rc_staging_reserve(gg_run_cache *c, size_t up_bytes, size_t down_bytes)
{
    unsigned buf;
    char *up = host_rc_staging(c, 0, up_bytes, &buf);
    const volatile char *down = up ? host_rc_staging(c, 1, down_bytes, &buf) : NULL;
    if (!up || !down)
        return false;
    memset(up, 0, up_bytes);
    for (size_t i = 0; i < down_bytes; i += 4096)
        (void)down[i];
    return true;
}

void host_rc_staging_fence(gg_run_cache *c, int which)
{
    staging *st = &c->stage[which ? 1 : 0];
    if (!st->buf)
        return;
    if (st->fence)
        glDeleteSync(st->fence);
    st->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

struct base_pool *host_run_cache_pool(gg_run_cache *c)
{
    if (!c)
        return NULL;
    if (!c->pool && !c->no_pool) {
        c->pool = base_pool_new(0);
        c->no_pool = c->pool == NULL;
    }
    return c->pool;
}

void host_rc_counts(const gg_run_cache *c, long *prog_hits, long *prog_misses)
{
    *prog_hits = c ? c->hits : 0;
    *prog_misses = c ? c->misses : 0;
}

long host_rc_staging_made(const gg_run_cache *c) { return c ? c->staged : 0; }
