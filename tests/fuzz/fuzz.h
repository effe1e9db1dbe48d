/* Shared by the libFuzzer targets in tests/fuzz/ (clang -fsanitize=fuzzer).
 * Each target feeds one parser of outside input arbitrary bytes and checks
 * its contract: no crash, no sanitizer report, and the stated invariant
 * (round trip, one-line message, exit status).  An invariant broken is a
 * crash: FUZZ_CHECK prints what failed and aborts, libFuzzer saves the input. */
#ifndef GLGEMM_FUZZ_H
#define GLGEMM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            /* fd 2, not stderr: a target may have stderr captured */                    \
            dprintf(2, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, #cond);        \
            dprintf(2, __VA_ARGS__);                                                       \
            dprintf(2, "\n");                                                              \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string of exactly size+1 bytes (so ASan sees
 * any read past it), or NULL when it holds a NUL (then no string sees it). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    if (memchr(data, '\0', size))
        return NULL;
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A message from a parser: non-empty, one line, no newline. */
static inline int fuzz_one_line(const char *msg)
{
    return msg[0] != '\0' && !strchr(msg, '\n') && !strchr(msg, '\r');
}

#endif
