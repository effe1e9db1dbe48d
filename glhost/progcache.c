/* Program binaries on disk (see glhost/progcache.h). */
#include "glhost/progcache.h"
#include "base/fault.h"

#include <GL/glew.h>
#include <pthread.h>
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "glhost/context.h"
#include "glhost/progcache_entry.h"

/* The process's state, shared by the threads that build programs at once
 * (a context each): every field is read and written under pc_lock, which
 * is never held across GL calls or file access.  dir, once set, stays
 * until host_progcache_reset. */
static struct {
    bool env_read;
    bool off;      /* GLGEMM_CACHE=off, or a write failed */
    char *dir;     /* NULL: no folder could be named */
    int hits, misses, writes, rejected;
} pc;
static pthread_mutex_t pc_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the key ---- */

/* The current context's strings and the sources; -1 on no memory. */
static int make_key(gg_pce_key *k, const char *vert, const char *frag, bool spirv)
{
    return host_pce_key(k, (const char *)glGetString(GL_RENDERER),
                        (const char *)glGetString(GL_VERSION), vert, frag, spirv);
}

/* ---- the folder ---- */

/* Under pc_lock. */
static void read_env(void)
{
    if (pc.env_read)
        return;
    pc.env_read = true;
    char err[200];
    int rc = host_pce_folder(getenv("GLGEMM_CACHE"), getenv("GLGEMM_CACHE_DIR"),
                             getenv("XDG_CACHE_HOME"), getenv("HOME"), &pc.dir, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "glgemm: %s; the program cache stays on\n", err); /* once a process */
    pc.off = rc == 1;
}

/* Whether the cache is on (the environment read the first time); *dir
 * the folder (NULL: none could be named). */
static bool cache_on(const char **dir)
{
    pthread_mutex_lock(&pc_lock);
    read_env();
    bool on = !pc.off;
    *dir = pc.dir;
    pthread_mutex_unlock(&pc_lock);
    return on;
}

static void count(int hits, int misses, int writes, int rejected)
{
    pthread_mutex_lock(&pc_lock);
    pc.hits += hits;
    pc.misses += misses;
    pc.writes += writes;
    pc.rejected += rejected;
    pthread_mutex_unlock(&pc_lock);
}

/* The one warning of a process (threads that fail at once print it once);
 * the cache is off after it. */
static void give_up(const char *folder, const char *reason)
{
    pthread_mutex_lock(&pc_lock);
    if (!pc.off)
        fprintf(stderr, "glgemm: program cache: %s: %s; going on without it\n", folder, reason);
    pc.off = true;
    pthread_mutex_unlock(&pc_lock);
}

static char *entry_path(const char *dir, const gg_pce_key *k)
{
    char name[32];
    host_pce_name(k, name, sizeof name);
    size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* ---- the context ---- */

/* GL 4.1+, ES 3.0+ or ARB_get_program_binary, and at least one format. */
static bool context_can(void)
{
    const char *ver = (const char *)glGetString(GL_VERSION);
    if (!ver)
        return false;
    bool es = !strncmp(ver, "OpenGL ES", 9);
    const char *p = ver;
    while (*p && !isdigit((unsigned char)*p))
        p++;
    int major = 0, minor = 0;
    if (sscanf(p, "%d.%d", &major, &minor) != 2)
        return false;
    bool can = es ? major >= 3
                  : major > 4 || (major == 4 && minor >= 1) ||
                        host_gl_has_extension("GL_ARB_get_program_binary");
    if (!can || !glProgramBinary || !glGetProgramBinary || !glProgramParameteri)
        return false;
    GLint formats = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    return formats > 0;
}

/* ---- entries ---- */

unsigned host_progcache_load(const char *vert, const char *frag, bool spirv)
{
    const char *dir;
    if (!cache_on(&dir) || !context_can())
        return 0;
    gg_pce_key k;
    if (!dir || make_key(&k, vert, frag, spirv) != 0) {
        count(0, 1, 0, 0);
        return 0;
    }
    char *path = entry_path(dir, &k);
    size_t n = 0;
    char err[256];
    char *data = path ? base_read_text(path, GG_PCE_MAX, &n, err, sizeof err) : NULL;
    struct stat st;
    bool present = !data && path && stat(path, &st) == 0; /* but unreadable or too large */
    free(path);
    if (!data) {
        count(0, 1, 0, present);
        return 0;
    }
    uint32_t format = 0;
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    GLuint prog = 0;
    if (host_pce_check((const unsigned char *)data, n, &k, &format, &bin, &binlen, NULL)) {
        while (glGetError() != GL_NO_ERROR)
            ;
        prog = glCreateProgram();
        if (prog) {
            glProgramBinary(prog, (GLenum)format, bin, (GLsizei)binlen);
            GLint ok = GL_FALSE;
            glGetProgramiv(prog, GL_LINK_STATUS, &ok);
            if (glGetError() != GL_NO_ERROR || !ok) { /* the driver refuses it */
                glDeleteProgram(prog);
                prog = 0;
            }
        }
    }
    free(data);
    if (prog)
        count(1, 0, 0, 0);
    else
        count(0, 1, 0, 1);
    return prog;
}

bool host_progcache_prepare(unsigned prog)
{
    const char *dir;
    if (!cache_on(&dir) || !context_can())
        return false;
    glProgramParameteri(prog, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    return true;
}

void host_progcache_store(unsigned prog, const char *vert, const char *frag, bool spirv)
{
    const char *dir;
    if (!cache_on(&dir))
        return;
    gg_pce_key k;
    GLint len = 0;
    glGetProgramiv(prog, GL_PROGRAM_BINARY_LENGTH, &len);
    if (len <= 0 || make_key(&k, vert, frag, spirv) != 0)
        return;
    size_t off = host_pce_offset(&k);
    unsigned char *buf = malloc(off + (size_t)len);
    if (!buf)
        return;
    GLsizei got = 0;
    GLenum format = 0;
    glGetProgramBinary(prog, len, &got, &format, buf + off);
    if (glGetError() != GL_NO_ERROR || got <= 0 || got > len) {
        free(buf); /* no binary to keep: not the disk's fault */
        return;
    }
    host_pce_header(buf, &k, format, (size_t)got);

    char err[512];
    char *path = NULL;
    if (!dir)
        give_up("~/.cache/glgemm/programs", "neither GLGEMM_CACHE_DIR, XDG_CACHE_HOME nor HOME is set");
    else if (base_mkdirs(dir, err, sizeof err) != 0)
        give_up(dir, err);
    else if (!(path = entry_path(dir, &k)))
        give_up(dir, "out of memory");
    else if (base_fault("disk_full")) /* tests only (fault.h): the write finds the disk full */
        give_up(dir, "writing an entry: No space left on device");
    else if (base_write_atomic(path, (const char *)buf, off + (size_t)got, err, sizeof err) != 0)
        give_up(dir, err);
    else
        count(0, 0, 1, 0);
    free(path);
    free(buf);
}

unsigned long long host_progcache_checksum(const void *data, size_t len)
{
    return host_pce_checksum(data, len);
}

void host_progcache_stats(int *hits, int *misses, int *writes, int *rejected)
{
    pthread_mutex_lock(&pc_lock);
    if (hits)
        *hits = pc.hits;
    if (misses)
        *misses = pc.misses;
    if (writes)
        *writes = pc.writes;
    if (rejected)
        *rejected = pc.rejected;
    pthread_mutex_unlock(&pc_lock);
}

const char *host_progcache_dir(void)
{
    const char *dir;
    return cache_on(&dir) ? dir : NULL;
}

void host_progcache_reset(void)
{
    pthread_mutex_lock(&pc_lock);
    free(pc.dir);
    memset(&pc, 0, sizeof pc);
    pthread_mutex_unlock(&pc_lock);
}
