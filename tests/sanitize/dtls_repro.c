/* Makes LeakSanitizer's tracer crash the way `make sanitize` saw it now and
 * then (tests/SANITIZE.md): the first access to a dlopen'd library's 24-byte
 * thread-local block gets a malloc'd block 16 bytes into a page, which
 * libasan's __tls_get_addr interceptor (GCC 12) takes for a glibc 2.19 block
 * header and so records a range that is not memory; the leak check at exit
 * scans it and faults.  Under ASan a 24-byte malloc is a 48-byte chunk and
 * the chunks of a thread come in address order, so the program allocates
 * until the next one starts 16 bytes into a page.
 * Usage: dtls_repro LIBRARY [miss]; "miss" stops one chunk earlier (control).
 * Exit 0 with nothing from LeakSanitizer when the check survives. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHUNKS 4096

static void *chunks[MAX_CHUNKS]; /* keeps them reachable: no leak to report */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dtls_repro LIBRARY [miss]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "dtls_repro: %s\n", dlerror());
        return 2;
    }
    char *(*block_addr)(void);
    *(void **)&block_addr = dlsym(lib, "dtls_block_addr");
    if (!block_addr) {
        fprintf(stderr, "dtls_repro: %s\n", dlerror());
        return 2;
    }
    uintptr_t want = argc > 2 && !strcmp(argv[2], "miss") ? 16 + 48 : 16;
    int n = 0;
    while (n < MAX_CHUNKS) {
        uintptr_t p = (uintptr_t)(chunks[n++] = malloc(24));
        if ((p + 48) % 4096 == want)
            break;
    }
    uintptr_t b = (uintptr_t)block_addr();
    fprintf(stderr, "dtls_repro: %d chunks, then the TLS block at %#lx (%lu bytes into its page)\n", n,
            (unsigned long)b, (unsigned long)(b % 4096));
    return 0;
}
