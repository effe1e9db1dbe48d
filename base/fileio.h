/* gen/fileio: small file helpers every layer shares (shader files, records,
 * bench, report, probe.csv, cli).  No GL: only the C library and POSIX.
 *  - gg_write_atomic(): the whole text or nothing: a temporary file beside
 *    path (mkstemp), written, fsync()ed, then renamed over path (and the
 *    folder fsync()ed); on any failure the temporary file is removed and
 *    path is left as it was.
 *  - gg_mkdirs(): mkdir -p.
 *  - gg_read_text(): a whole (small) file, malloc'd and NUL-terminated. */
#ifndef GLGEMM_GEN_FILEIO_H
#define GLGEMM_GEN_FILEIO_H

#include <stddef.h>

/* 0, or -1 with one line in err naming the path and the system's reason. */
int gg_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);
int gg_mkdirs(const char *path, char *err, size_t errlen);

/* NULL with one line in err when unreadable or larger than max bytes. */
char *gg_read_text(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
