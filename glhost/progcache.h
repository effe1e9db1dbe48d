/* glhost/progcache: linked programs kept on disk as program binaries
 * (glGetProgramBinary / glProgramBinary), so that a variant compiled once, by
 * this process or an earlier one, is not compiled again.  No GL header here;
 * every call works on the current context.  glhost/program.c is its user.
 *
 * Contract:
 *  - Folder: $GLGEMM_CACHE_DIR when set and not empty, else
 *    $XDG_CACHE_HOME/glgemm/programs (an absolute XDG_CACHE_HOME), else
 *    $HOME/.cache/glgemm/programs; made (mkdir -p) on the first write.
 *    GLGEMM_CACHE=off turns the cache off (on or unset: on; another value
 *    costs one line on stderr, "glgemm: GLGEMM_CACHE=... is not on or off;
 *    the program cache stays on").  The environment is read once per
 *    process (host_progcache_reset() reads it again); the choice is
 *    glhost/progcache_entry.h's host_pce_folder.
 *  - Only where the context can: GL 4.1+, ES 3.0+ or ARB_get_program_binary,
 *    and GL_NUM_PROGRAM_BINARY_FORMATS > 0; elsewhere silently off.
 *  - Key: the renderer and GL version strings, the vertex and fragment text
 *    and whether they go through SPIR-V.  One file per key,
 *    <16 hex digits of a 64-bit hash of the key>.bin.  The entry: a 64-byte
 *    header, little endian: at 0 the magic "GGPROGBN", 8 the format version
 *    (u32, 1), 12 the binaryFormat (u32), 16 a second 64-bit hash of the key
 *    (another seed), 24 .. 40 the lengths of the renderer and version
 *    strings and of the vertex and fragment text and the spirv flag (u32
 *    each), 44 zero, 48 the binary's length (u64), 56 its checksum
 *    (host_progcache_checksum); then the renderer and version strings and the
 *    binary.
 *    glhost/progcache_entry.h writes and checks entries, without GL.
 *  - Reading checks all of it: a wrong magic or version, another key (a
 *    colliding name, another renderer or driver, a file copied from another
 *    machine), a reserved word not zero, a truncated or overlong file, a
 *    wrong checksum, or a binary the driver refuses (glProgramBinary, then
 *    GL_LINK_STATUS) is rejected: the caller compiles as if there were no
 *    entry and the entry is written again.
 *  - Writing: base/fileio's base_write_atomic (temporary file, fsync, rename),
 *    so processes sharing the folder never see half an entry.  A write that
 *    fails (read-only folder, full disk, no HOME) prints one line on stderr,
 *    "glgemm: program cache: <folder>: <reason>; going on without it", and
 *    turns the cache off for the rest of the process; the build goes on.
 *  - Threads: every function may be called from several threads at once,
 *    each on its own current context (the state and counters are kept
 *    under one lock; host_progcache_reset, for tests, only while no other
 *    thread is in here).  Two threads or processes writing the same entry
 *    each rename a whole file of their own into place; a reader sees one
 *    of them, whole.
 *  - Counters (process-wide, all threads): every lookup with the cache on is
 *    a hit or a miss; a rejected entry is a miss and is counted in rejected
 *    too; writes counts entries written. */
#ifndef GLGEMM_PROGCACHE_H
#define GLGEMM_PROGCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The entry for these sources: a new program object linked from its binary
 * (a hit), or 0 (off, no entry, or the entry rejected). */
unsigned host_progcache_load(const char *vert, const char *frag, bool spirv);

/* Before linking prog: whether its binary will be wanted (the cache is on
 * and the context can); if so, sets GL_PROGRAM_BINARY_RETRIEVABLE_HINT. */
bool host_progcache_prepare(unsigned prog);

/* After prog (prepared) linked from these sources: writes its entry. */
void host_progcache_store(unsigned prog, const char *vert, const char *frag, bool spirv);

/* The checksum of an entry's binary (64 bits; tests make entries with it). */
unsigned long long host_progcache_checksum(const void *data, size_t len);

/* The counters; any pointer may be NULL. */
void host_progcache_stats(int *hits, int *misses, int *writes, int *rejected);

/* The folder in use, or NULL when the cache is off (GLGEMM_CACHE=off, no
 * folder, or after a failed write). */
const char *host_progcache_dir(void);

/* Forgets the folder, the off state and the counters: the next call reads
 * the environment again (tests). */
void host_progcache_reset(void);

#endif
