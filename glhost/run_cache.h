/* glhost/run_cache: inside glhost/, the store behind gg_run_cache (run.h):
 * program slots by key text and input-texture slots by geometry, least
 * recently used out first.  Every call needs the cache's context current
 * (evicting deletes GL objects).  Not for use outside glhost/. */
#ifndef GLGEMM_RUN_CACHE_H
#define GLGEMM_RUN_CACHE_H

#include <stdbool.h>

#include "glhost/program.h"
#include "glhost/run.h"

/* The key of a program: what its text depends on (the canonical variant,
 * the block size it was emitted for). */
#define GG_RC_KEY (GG_VARIANT_TEXT + 64)
void host_rc_program_key(char key[GG_RC_KEY], const gg_variant *v, int mb, int nb, int kb);

/* The built program of that key, NULL when absent.  A program put there
 * started (host_program_start) is finished here first; one that fails to
 * build is dropped (NULL: the run builds it again and reports why).  The
 * slot stays the cache's. */
gg_program *host_rc_program_find(gg_run_cache *c, const char *key);
/* Puts a program in the cache, built (status GG_OK) or only started
 * (started: host_program_start returned GG_OK), taking it over (*p is
 * zeroed); evicts the least recently used slot when full.  Returns the
 * cache's copy, or NULL (then *p is untouched and stays the caller's). */
gg_program *host_rc_program_put(gg_run_cache *c, const char *key, gg_program *p, bool started);

/* Long draws (run.h): the seconds one fragment of a pass took with the
 * program of that key, as the run that timed its draws measured it; 0 when
 * not measured (or the program is not kept).  Set does nothing for a key
 * the cache does not hold. */
double host_rc_frag_s(const gg_run_cache *c, const char *key);
void host_rc_set_frag_s(gg_run_cache *c, const char *key, double frag_s);

/* Input textures: key is an array of GG_RC_INPUT_KEY ints (packing,
 * geometry, split); na A textures and nb B textures. */
#define GG_RC_INPUT_KEY 18
bool host_rc_inputs_find(gg_run_cache *c, const int key[GG_RC_INPUT_KEY], unsigned **atex,
                       unsigned **btex);
/* Takes over the arrays (malloc'd) and their textures; false: not kept (the
 * caller keeps them).  buffers: bit 0 where atex are buffer objects (the
 * storage-buffer fetches), bit 1 btex, deleted as such. */
bool host_rc_inputs_put(gg_run_cache *c, const int key[GG_RC_INPUT_KEY], unsigned *atex, int na,
                      unsigned *btex, int nb, unsigned buffers);

/* Render targets kept for runs whose inputs change (the library's calls):
 * the GL names of each C block's two texture sets and FBOs, and the
 * attachment-less FBO of out=image, by the targets' geometry (key: an
 * array of GG_RC_TARGET_KEY ints).  Put takes over cbs (malloc'd) and the
 * objects; find returns the cache's array (valid until the next put). */
#define GG_RC_TARGET_KEY 10
typedef struct {
    unsigned tex[2][GG_MAX_TARGETS];
    unsigned fbo[2];
} gg_rc_cblock;
const gg_rc_cblock *host_rc_targets_find(gg_run_cache *c, const int key[GG_RC_TARGET_KEY],
                                         unsigned *nofbo);
void host_rc_targets_put(gg_run_cache *c, const int key[GG_RC_TARGET_KEY], gg_rc_cblock *cbs,
                         int ncb, unsigned nofbo);

/* Staging buffers for the library's transfers: which 0 (uploads: written
 * by the host) or 1 (read-backs: read by the host, in client memory), of
 * at least bytes, made with glBufferStorage and mapped for good
 * (persistent, coherent), grown by making a new one.  Before returning it
 * waits for the commands fenced on it by host_rc_staging_fence, so the
 * host may write (or read) the whole of it.  NULL (*buf 0) without
 * glBufferStorage, with GLGEMM_STAGING=0 set, or when the buffer cannot
 * be made: the caller transfers the old way. */
void *host_rc_staging(gg_run_cache *c, int which, size_t bytes, unsigned *buf);
/* A fence after the commands issued so far that use staging buffer which. */
void host_rc_staging_fence(gg_run_cache *c, int which);

/* Counters: programs found / built and kept. */
void host_rc_counts(const gg_run_cache *c, long *prog_hits, long *prog_misses);

#endif
