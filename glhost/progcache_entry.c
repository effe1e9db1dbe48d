/* The program cache's entries, without GL: see progcache_entry.h. */
#include "glhost/progcache_entry.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_MAGIC "GGPROGBN"
#define ENTRY_VERSION 1u

/* Seeds of the three hashes: the file name, the key in the header, the
 * binary's checksum. */
#define SEED_NAME 0x676c67656d6d3031ull
#define SEED_KEY 0x9e3779b97f4a7c15ull
#define SEED_SUM 0xc2b2ae3d27d4eb4full

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

unsigned long long host_pce_checksum(const void *data, size_t len)
{
    return hash64(data, len, SEED_SUM);
}

/* ---- the key ---- */

int host_pce_key(gg_pce_key *k, const char *renderer, const char *version, const char *vert,
                 const char *frag, bool spirv)
{
    k->renderer = renderer ? renderer : "";
    k->version = version ? version : "";
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

char *host_pce_name(const gg_pce_key *k, char *buf, size_t len)
{
    snprintf(buf, len, "%016llx.bin", (unsigned long long)k->name);
    return buf;
}

/* ---- entries ---- */

size_t host_pce_offset(const gg_pce_key *k) { return GG_PCE_HEADER + k->rlen + k->vlen; }

void host_pce_header(unsigned char *buf, const gg_pce_key *k, uint32_t format, size_t binlen)
{
    size_t off = host_pce_offset(k);
    memcpy(buf, ENTRY_MAGIC, 8);
    put32(buf + 8, ENTRY_VERSION);
    put32(buf + 12, format);
    put64(buf + 16, k->check);
    put32(buf + 24, (uint32_t)k->rlen);
    put32(buf + 28, (uint32_t)k->vlen);
    put32(buf + 32, (uint32_t)k->vert_len);
    put32(buf + 36, (uint32_t)k->frag_len);
    put32(buf + 40, k->spirv);
    put32(buf + 44, 0);
    put64(buf + 48, (uint64_t)binlen);
    put64(buf + 56, host_pce_checksum(buf + off, binlen));
    memcpy(buf + GG_PCE_HEADER, k->renderer, k->rlen);
    memcpy(buf + GG_PCE_HEADER + k->rlen, k->version, k->vlen);
}

static bool refuse(const char **why, const char *what)
{
    if (why)
        *why = what;
    return false;
}

bool host_pce_check(const unsigned char *d, size_t n, const gg_pce_key *k, uint32_t *format,
                    const unsigned char **bin, size_t *binlen, const char **why)
{
    if (n < GG_PCE_HEADER)
        return refuse(why, "shorter than the header");
    if (memcmp(d, ENTRY_MAGIC, 8) || get32(d + 8) != ENTRY_VERSION)
        return refuse(why, "magic or version");
    if (get64(d + 16) != k->check || get32(d + 24) != k->rlen || get32(d + 28) != k->vlen ||
        get32(d + 32) != k->vert_len || get32(d + 36) != k->frag_len ||
        get32(d + 40) != (uint32_t)k->spirv)
        return refuse(why, "another key");
    if (get32(d + 44) != 0)
        return refuse(why, "reserved word not zero");
    uint64_t blen = get64(d + 48);
    size_t off = host_pce_offset(k);
    if (blen == 0 || blen > INT_MAX || n < off || n - off != blen)
        return refuse(why, "length");
    if (memcmp(d + GG_PCE_HEADER, k->renderer, k->rlen) ||
        memcmp(d + GG_PCE_HEADER + k->rlen, k->version, k->vlen))
        return refuse(why, "another renderer or version");
    if (host_pce_checksum(d + off, (size_t)blen) != get64(d + 56))
        return refuse(why, "checksum");
    *bin = d + off;
    *binlen = (size_t)blen;
    *format = get32(d + 12);
    if (why)
        *why = "";
    return true;
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

int host_pce_folder(const char *cache, const char *dir, const char *xdg, const char *home,
                    char **folder, char *err, size_t errlen)
{
    *folder = NULL;
    if (cache && !strcmp(cache, "off"))
        return 1;
    int rc = 0;
    if (cache && *cache && strcmp(cache, "on")) {
        char q[110];
        size_t o = 0, i = 0;
        for (; cache[i] && i < 100; i++)
            q[o++] = (unsigned char)cache[i] < 0x20 || cache[i] == 0x7f ? '?' : cache[i];
        q[o] = '\0';
        snprintf(err, errlen, "GLGEMM_CACHE=%s%s is not on or off", q, cache[i] ? "..." : "");
        rc = -1;
    }
    if (dir && *dir)
        *folder = strdup(dir);
    else if (xdg && xdg[0] == '/') /* XDG: a relative path is to be ignored */
        *folder = join(xdg, "/glgemm/programs");
    else if (home && *home)
        *folder = join(home, "/.cache/glgemm/programs");
    return rc;
}
