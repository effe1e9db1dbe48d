/* base/hash: 64-bit FNV-1a, the one hash of the project's keys and
 * fingerprints (the search's memo keys, a checksum plan's hash, the
 * evaluation ranks' problem fingerprints).  Not for security: it only
 * tells apart what a run built itself. */
#ifndef GLGEMM_BASE_HASH_H
#define GLGEMM_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BASE_FNV1A_BASIS 0xcbf29ce484222325ULL
#define BASE_FNV1A_PRIME 0x100000001b3ULL

/* h (BASE_FNV1A_BASIS to start) with the len bytes at p folded in. */
static inline uint64_t base_fnv1a(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * BASE_FNV1A_PRIME;
    return h;
}

/* h with the n 32-bit words at w folded in a word at a time (FNV-1a's
 * step on words rather than bytes: 4 times fewer steps over float arrays). */
static inline uint64_t base_fnv1a_words(uint64_t h, const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ w[i]) * BASE_FNV1A_PRIME;
    return h;
}

#endif
