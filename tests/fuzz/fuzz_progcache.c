/* Fuzz target: the on-disk program cache's entry check (host_pce_check,
 * glhost/progcache_entry.c: whether a file of the cache folder is used),
 * without a GL context.  The first byte says which of the header's fields
 * the target sets right before the check (magic and version, the key's
 * hash, its lengths and strings, the binary's length, its checksum; and
 * whether the key is a SPIR-V one), so that the search gets past each
 * check to the next; the rest is the file.
 * Invariants: an accepted file is exactly the entry host_pce_header writes
 * for its binary and format (nothing else is ever used: no stray byte, no
 * reserved word set, no length off by one), the binary inside the file;
 * the input as a binary makes an entry that is accepted with the same
 * binary and format, and that entry with any one byte changed (but the
 * driver's format word, which the driver checks), cut short or grown by a
 * byte is refused, each refusal with a reason. */
#include "glhost/progcache_entry.h"
#include "tests/fuzz/fuzz.h"

static const char renderer[] = "llvmpipe (LLVM 15.0.6, 256 bits)";
static const char version[] = "4.5 (Core Profile) Mesa 22.3.6";
static const char vert[] = "#version 330\nlayout(location = 0) in vec2 aPos;\nvoid main() { gl_Position = vec4(aPos, 0.0, 1.0); }\n";
static const char frag[] = "#version 330\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n";

enum { FIX_MAGIC = 1, FIX_KEY = 2, FIX_LENGTHS = 4, FIX_BINLEN = 8, FIX_SUM = 16, SPIRV = 32 };

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

static void must_refuse(const unsigned char *d, size_t n, const gg_pce_key *k, const char *what)
{
    uint32_t fmt;
    const unsigned char *bin;
    size_t binlen;
    const char *why = NULL;
    FUZZ_CHECK(!host_pce_check(d, n, k, &fmt, &bin, &binlen, &why), "%s: accepted", what);
    FUZZ_CHECK(why && *why, "%s: refused without a reason", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    unsigned flags = data[0];
    size_t n = size - 1;
    gg_pce_key k;
    FUZZ_CHECK(host_pce_key(&k, renderer, version, vert, frag, flags & SPIRV) == 0, "key");
    size_t off = host_pce_offset(&k);

    /* The file, with the fields the flags name set right. */
    unsigned char *d = malloc(n ? n : 1);
    memcpy(d, data + 1, n);
    if (n >= GG_PCE_HEADER) {
        if (flags & FIX_MAGIC) {
            memcpy(d, "GGPROGBN", 8);
            put32(d + 8, 1);
        }
        if (flags & FIX_KEY)
            put64(d + 16, k.check);
        if (flags & FIX_LENGTHS) {
            put32(d + 24, (uint32_t)k.rlen);
            put32(d + 28, (uint32_t)k.vlen);
            put32(d + 32, (uint32_t)k.vert_len);
            put32(d + 36, (uint32_t)k.frag_len);
            put32(d + 40, k.spirv);
            put32(d + 44, 0);
            if (n >= off) {
                memcpy(d + GG_PCE_HEADER, renderer, k.rlen);
                memcpy(d + GG_PCE_HEADER + k.rlen, version, k.vlen);
            }
        }
        if ((flags & FIX_BINLEN) && n >= off)
            put64(d + 48, n - off);
        if ((flags & FIX_SUM) && n >= off)
            put64(d + 56, host_pce_checksum(d + off, n - off));
    }

    uint32_t fmt = 0;
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    const char *why = NULL;
    if (host_pce_check(d, n, &k, &fmt, &bin, &binlen, &why)) {
        FUZZ_CHECK(binlen >= 1 && bin >= d && bin + binlen == d + n && bin == d + off,
                   "binary at %td, %zu bytes, of %zu", bin - d, binlen, n);
        unsigned char *e = malloc(n);
        memcpy(e + off, bin, binlen);
        host_pce_header(e, &k, fmt, binlen);
        FUZZ_CHECK(!memcmp(e, d, n), "an accepted file is not the entry written for its binary");
        free(e);
    } else {
        FUZZ_CHECK(why && *why, "refused without a reason");
    }

    /* The input as the binary of an entry, and that entry spoilt. */
    if (n >= 1) {
        size_t total = off + n;
        unsigned char *e = malloc(total + 1);
        memcpy(e + off, data + 1, n);
        uint32_t format = (uint32_t)data[0] * 0x01010101u;
        host_pce_header(e, &k, format, n);
        FUZZ_CHECK(host_pce_check(e, total, &k, &fmt, &bin, &binlen, &why), "own entry: %s", why);
        FUZZ_CHECK(fmt == format && binlen == n && !memcmp(bin, data + 1, n), "own entry's binary");

        size_t at = (size_t)host_pce_checksum(data, size) % total;
        if (at >= 12 && at < 16)
            at = 16; /* the format word: the driver judges it */
        e[at] ^= (unsigned char)(1u << (data[n] % 8));
        must_refuse(e, total, &k, "one bit flipped");
        e[at] ^= (unsigned char)(1u << (data[n] % 8));
        must_refuse(e, total - 1, &k, "one byte short");
        must_refuse(e, (size_t)host_pce_checksum(data, n) % total, &k, "cut short");
        e[total] = data[0];
        must_refuse(e, total + 1, &k, "one byte more");
        /* Another key: the other kind of compile. */
        gg_pce_key other;
        FUZZ_CHECK(host_pce_key(&other, renderer, version, vert, frag, !(flags & SPIRV)) == 0, "k");
        must_refuse(e, total, &other, "another key's entry");
        free(e);
    }
    free(d);
    return 0;
}
