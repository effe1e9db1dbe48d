/* glhost/progcache_entry: the on-disk program cache's entry format and the
 * checks that decide whether an entry is used (glhost/progcache.h has the
 * layout), and the choice of its folder from the environment's text; no GL
 * here, so the tests and tests/fuzz/fuzz_progcache.c run them without a
 * context.  glhost/progcache.c is the user: it fills the key from the
 * current context's strings and hands the binary to the driver. */
#ifndef GLGEMM_PROGCACHE_ENTRY_H
#define GLGEMM_PROGCACHE_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GG_PCE_HEADER 64u              /* bytes before the renderer string */
#define GG_PCE_MAX ((size_t)256 << 20) /* a larger file is not an entry */

/* What an entry is for: the context's renderer and version strings and
 * the sources (not copied: they must outlive the key), and the two hashes
 * of all of it (the file name's, the header's). */
typedef struct {
    const char *renderer, *version;
    size_t rlen, vlen, vert_len, frag_len;
    bool spirv;
    uint64_t name, check;
} gg_pce_key;

/* Fills k.  0, or -1 when out of memory. */
int host_pce_key(gg_pce_key *k, const char *renderer, const char *version, const char *vert,
                 const char *frag, bool spirv);

/* The entry's file name in its folder, "<16 hex digits>.bin".  buf. */
char *host_pce_name(const gg_pce_key *k, char *buf, size_t len);

/* Where the binary starts in k's entry (the header and the two strings
 * before it); an entry of a binlen-byte binary is that plus binlen long. */
size_t host_pce_offset(const gg_pce_key *k);

/* Writes the header and strings of k's entry into buf (host_pce_offset(k)
 * bytes), for the binlen bytes of binary already at buf + offset and the
 * driver's binaryFormat format. */
void host_pce_header(unsigned char *buf, const gg_pce_key *k, uint32_t format, size_t binlen);

/* Whether the n bytes at d are a whole entry of key k, exactly as
 * host_pce_header writes one: magic, version, key hash, every length, the
 * reserved word zero, the strings, the binary's length (1 .. INT_MAX, the
 * file exactly that long) and checksum.  true with *format, *bin (inside
 * d) and *binlen; false with a word on why in *why (may be NULL): the
 * counters of progcache.c do not need it, the tests do. */
bool host_pce_check(const unsigned char *d, size_t n, const gg_pce_key *k, uint32_t *format,
                    const unsigned char **bin, size_t *binlen, const char **why);

/* The checksum of an entry's binary (64 bits). */
unsigned long long host_pce_checksum(const void *data, size_t len);

/* The folder from the environment's text (each may be NULL):
 * GLGEMM_CACHE cache ("off": off; unset, "" or "on": on),
 * GLGEMM_CACHE_DIR dir, XDG_CACHE_HOME xdg, HOME home.  *folder: malloc'd,
 * or NULL when off or when none of dir, an absolute xdg or home names one
 * (or out of memory).  0 on, 1 off; -1 when cache is another value, with
 * one line in err: the cache is then on (as only "off" turns it off). */
int host_pce_folder(const char *cache, const char *dir, const char *xdg, const char *home,
                    char **folder, char *err, size_t errlen);

#endif
