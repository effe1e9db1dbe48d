/* base/fileio: small file helpers every layer shares (shader files, records,
 * bench, report, probe.csv, cli).  No GL: only the C library and POSIX.
 *  - base_write_atomic(): the whole text or nothing: a temporary file beside
 *    path (mkstemp), written, fsync()ed, then renamed over path (and the
 *    folder fsync()ed); on any failure the temporary file is removed and
 *    path is left as it was.  The temporary file is ".<name>.tmp-XXXXXX".
 *  - base_write_atomic_fill(): the same steps for a caller with its own
 *    writer (fill), mode or wording (base/npy.c's writer).
 *  - base_mkdirs(): mkdir -p.
 *  - base_read_text(): a whole (small) file, malloc'd and NUL-terminated. */
#ifndef GLGEMM_GEN_FILEIO_H
#define GLGEMM_GEN_FILEIO_H

#include <stddef.h>

/* 0, or -1 with one line in err naming the path and the system's reason. */
int base_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* The steps of base_write_atomic with fill writing the contents to fd (0, or
 * -1 with errno set).  mode: the new file's permission bits, or -1 for
 * 0666 less the umask (best effort).  0, or -1 with *step the step that
 * failed ("create": the temporary file; "write", "chmod", "fsync",
 * "close", "rename") and *errnum its errno; the temporary file is removed
 * and path left as it was. */
typedef int (*gg_fill_fn)(int fd, void *user);
int base_write_atomic_fill(const char *path, int mode, gg_fill_fn fill, void *user,
                         const char **step, int *errnum);
/* All of buf to fd (EINTR retried): 0, or -1 with errno set. */
int base_write_full(int fd, const void *buf, size_t len);
int base_mkdirs(const char *path, char *err, size_t errlen);

/* NULL with one line in err when unreadable or larger than max bytes. */
char *base_read_text(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
