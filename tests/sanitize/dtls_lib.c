/* A library with a 24-byte block of thread-local storage, like
 * libLLVM-15.so.1's: loaded with dlopen, its block is dynamic TLS, which
 * glibc allocates with malloc on the thread's first access
 * (tests/sanitize/dtls-repro.sh, tests/SANITIZE.md). */
__thread char dtls_block[24];

char *dtls_block_addr(void)
{
    return dtls_block;
}
