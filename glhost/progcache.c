/* Program binaries on disk (see glhost/progcache.h). */
#include "glhost/progcache.h"
#include "base/fault.h"

#include <GL/glew.h>
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "glhost/context.h"

#define ENTRY_MAGIC "GGPROGBN"
#define ENTRY_VERSION 1u
#define HEADER_LEN 64u
#define ENTRY_MAX ((size_t)256 << 20) /* a larger file is not ours */

/* Seeds of the three hashes: the file name, the key in the header, the
 * binary's checksum. */
#define SEED_NAME 0x676c67656d6d3031ull
#define SEED_KEY 0x9e3779b97f4a7c15ull
#define SEED_SUM 0xc2b2ae3d27d4eb4full

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

/* ---- bytes and hashes (little endian whatever the host) ---- */

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* MurmurHash64A (Austin Appleby, public domain), bytes read little endian. */
static uint64_t hash64(const void *data, size_t len, uint64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ull;
    const int r = 47;
    const unsigned char *p = data;
    uint64_t h = seed ^ (len * m);
    for (size_t i = 0; i < len / 8; i++, p += 8) {
        uint64_t k = get64(p);
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    if (len & 7) {
        uint64_t t = 0;
        for (size_t i = len & 7; i-- > 0;)
            t = t << 8 | p[i];
        h ^= t;
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* ---- the key ---- */

typedef struct {
    const char *renderer, *version;
    size_t rlen, vlen, vert_len, frag_len;
    bool spirv;
    uint64_t name, check; /* the two hashes */
} key;

/* The current context's strings and the sources; -1 on no memory. */
static int make_key(key *k, const char *vert, const char *frag, bool spirv)
{
    const char *r = (const char *)glGetString(GL_RENDERER);
    const char *v = (const char *)glGetString(GL_VERSION);
    k->renderer = r ? r : "";
    k->version = v ? v : "";
    k->rlen = strlen(k->renderer);
    k->vlen = strlen(k->version);
    k->vert_len = strlen(vert);
    k->frag_len = strlen(frag);
    k->spirv = spirv;
    /* Each part behind its length, so that no two keys read the same. */
    const char *part[] = {k->renderer, k->version, spirv ? "spirv" : "glsl", vert, frag};
    size_t plen[] = {k->rlen, k->vlen, strlen(part[2]), k->vert_len, k->frag_len};
    size_t total = 0;
    for (int i = 0; i < 5; i++)
        total += 8 + plen[i];
    unsigned char *buf = malloc(total), *w = buf;
    if (!buf)
        return -1;
    for (int i = 0; i < 5; i++) {
        put64(w, plen[i]);
        memcpy(w + 8, part[i], plen[i]);
        w += 8 + plen[i];
    }
    k->name = hash64(buf, total, SEED_NAME);
    k->check = hash64(buf, total, SEED_KEY);
    free(buf);
    return 0;
}

/* ---- the folder ---- */

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

/* Under pc_lock. */
static void read_env(void)
{
    if (pc.env_read)
        return;
    pc.env_read = true;
    const char *c = getenv("GLGEMM_CACHE");
    if (c && !strcmp(c, "off")) {
        pc.off = true;
        return;
    }
    const char *d = getenv("GLGEMM_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (d && *d)
        pc.dir = strdup(d);
    else if (xdg && xdg[0] == '/') /* XDG: a relative path is to be ignored */
        pc.dir = join(xdg, "/glgemm/programs");
    else if (home && *home)
        pc.dir = join(home, "/.cache/glgemm/programs");
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

static char *entry_path(const char *dir, const key *k)
{
    char name[32];
    snprintf(name, sizeof name, "/%016llx.bin", (unsigned long long)k->name);
    return join(dir, name);
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

/* Whether d (n bytes) is a whole entry of key k; its binary in *bin. */
static bool entry_ok(const unsigned char *d, size_t n, const key *k, GLenum *format,
                     const unsigned char **bin, size_t *binlen)
{
    if (n < HEADER_LEN || memcmp(d, ENTRY_MAGIC, 8) || get32(d + 8) != ENTRY_VERSION)
        return false;
    if (get64(d + 16) != k->check || get32(d + 24) != k->rlen || get32(d + 28) != k->vlen ||
        get32(d + 32) != k->vert_len || get32(d + 36) != k->frag_len ||
        get32(d + 40) != (uint32_t)k->spirv)
        return false;
    uint64_t blen = get64(d + 48);
    if (blen == 0 || blen > INT_MAX || n != HEADER_LEN + k->rlen + k->vlen + blen)
        return false;
    const unsigned char *s = d + HEADER_LEN;
    if (memcmp(s, k->renderer, k->rlen) || memcmp(s + k->rlen, k->version, k->vlen))
        return false;
    *bin = s + k->rlen + k->vlen;
    *binlen = (size_t)blen;
    if (host_progcache_checksum(*bin, *binlen) != get64(d + 56))
        return false;
    *format = (GLenum)get32(d + 12);
    return true;
}

unsigned host_progcache_load(const char *vert, const char *frag, bool spirv)
{
    const char *dir;
    if (!cache_on(&dir) || !context_can())
        return 0;
    key k;
    if (!dir || make_key(&k, vert, frag, spirv) != 0) {
        count(0, 1, 0, 0);
        return 0;
    }
    char *path = entry_path(dir, &k);
    size_t n = 0;
    char err[256];
    char *data = path ? base_read_text(path, ENTRY_MAX, &n, err, sizeof err) : NULL;
    struct stat st;
    bool present = !data && path && stat(path, &st) == 0; /* but unreadable or too large */
    free(path);
    if (!data) {
        count(0, 1, 0, present);
        return 0;
    }
    GLenum format = 0;
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    GLuint prog = 0;
    if (entry_ok((const unsigned char *)data, n, &k, &format, &bin, &binlen)) {
        while (glGetError() != GL_NO_ERROR)
            ;
        prog = glCreateProgram();
        if (prog) {
            glProgramBinary(prog, format, bin, (GLsizei)binlen);
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
    key k;
    GLint len = 0;
    glGetProgramiv(prog, GL_PROGRAM_BINARY_LENGTH, &len);
    if (len <= 0 || make_key(&k, vert, frag, spirv) != 0)
        return;
    size_t off = HEADER_LEN + k.rlen + k.vlen;
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
    memcpy(buf, ENTRY_MAGIC, 8);
    put32(buf + 8, ENTRY_VERSION);
    put32(buf + 12, format);
    put64(buf + 16, k.check);
    put32(buf + 24, (uint32_t)k.rlen);
    put32(buf + 28, (uint32_t)k.vlen);
    put32(buf + 32, (uint32_t)k.vert_len);
    put32(buf + 36, (uint32_t)k.frag_len);
    put32(buf + 40, k.spirv);
    put32(buf + 44, 0);
    put64(buf + 48, (uint64_t)got);
    put64(buf + 56, host_progcache_checksum(buf + off, (size_t)got));
    memcpy(buf + HEADER_LEN, k.renderer, k.rlen);
    memcpy(buf + HEADER_LEN + k.rlen, k.version, k.vlen);

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
    return hash64(data, len, SEED_SUM);
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
