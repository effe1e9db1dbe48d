/* File helpers: see fileio.h. */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gg_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask); /* mkstemp makes 0600; give the usual mode */
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        done += (size_t)w;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    /* Make the rename itself durable (a power cut keeps the new file); a
     * failure here loses nothing that was written. */
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
    int dfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    return 0;
}

int gg_mkdirs(const char *path, char *err, size_t errlen)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        snprintf(err, errlen, "path too long: %.80s...", path);
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot make folder %s: %s", buf, strerror(errno));
            return -1;
        }
        *p = saved;
        if (!saved)
            break;
    }
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a folder", buf);
        return -1;
    }
    return 0;
}

char *gg_read_text(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > max) {
                snprintf(err, errlen, "%s is larger than %zu bytes", path, max);
                free(buf);
                fclose(f);
                return NULL;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool nomem = !buf, bad = nomem || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, errlen, "cannot read %s: %s", path, nomem ? "out of memory" : "read error");
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
