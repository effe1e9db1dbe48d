/* File helpers: see fileio.h. */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int base_write_full(int fd, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, (const char *)buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

/* The process's umask, read without changing it: umask(0) then umask(mask)
 * would leave it 0 for a moment, and another thread writing at once would
 * make its files (or this one's) world-writable, or read 0 and put 0 back
 * for good (seen with four threads writing program-cache entries).  Linux
 * says it in /proc/self/status; elsewhere the pair of calls, under a lock. */
static mode_t current_umask(void)
{
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            const char *u = strstr(buf, "\nUmask:");
            unsigned long m;
            if (u && sscanf(u + 7, "%lo", &m) == 1 && m <= 0777)
                return (mode_t)m;
        }
    }
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    mode_t mask = umask(0);
    umask(mask);
    pthread_mutex_unlock(&lock);
    return mask;
}

int base_write_atomic_fill(const char *path, int mode, gg_fill_fn fill, void *user,
                         const char **step, int *errnum)
{
    /* Temporary name ".<base>.tmp-XXXXXX" beside the destination. */
    size_t plen = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *tmp = malloc(plen + 16);
    *step = "create";
    if (!tmp) {
        *errnum = ENOMEM;
        return -1;
    }
    memcpy(tmp, path, dirlen);
    sprintf(tmp + dirlen, ".%s.tmp-XXXXXX", path + dirlen);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *errnum = errno;
        free(tmp);
        return -1;
    }
    errno = 0;
    *step = "write";
    if (fill(fd, user) != 0)
        goto fail_fd;
    *step = "chmod";
    if (mode < 0) { /* mkstemp makes 0600; give the usual mode (best effort) */
        (void)fchmod(fd, 0666 & ~current_umask());
    } else if (fchmod(fd, (mode_t)mode) != 0) {
        goto fail_fd;
    }
    *step = "fsync";
    if (fsync(fd) != 0)
        goto fail_fd;
    *step = "close";
    if (close(fd) != 0) {
        fd = -1;
        goto fail_fd;
    }
    fd = -1;
    *step = "rename";
    if (rename(tmp, path) != 0)
        goto fail_fd;
    free(tmp);
    /* Make the rename itself durable (a power cut keeps the new file); a
     * failure here loses nothing that was written. */
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
    int dfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    return 0;
fail_fd:
    *errnum = errno ? errno : EIO;
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return -1;
}

typedef struct {
    const char *data;
    size_t len;
} text_fill;

static int fill_text(int fd, void *user)
{
    const text_fill *t = user;
    return base_write_full(fd, t->data, t->len);
}

int base_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    text_fill t = {data, len};
    const char *step;
    int e;
    if (base_write_atomic_fill(path, -1, fill_text, &t, &step, &e)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

int base_mkdirs(const char *path, char *err, size_t errlen)
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

char *base_read_text(const char *path, size_t max, size_t *len, char *err, size_t errlen)
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
