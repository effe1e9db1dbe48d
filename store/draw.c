/* The card's bound on one draw's time: see draw.h. */
#include "store/draw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "store/paths.h"

int store_draw_parse(const char *text, double *ms)
{
    if (!text || !*text)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || end == text || !isfinite(v) || v < 0 || v > GG_MAX_DRAW_MS_MAX)
        return -1;
    *ms = v;
    return 0;
}

int store_draw_env(double *ms, char *err, size_t errlen)
{
    const char *e = getenv("GLGEMM_MAX_DRAW_MS");
    if (!e || !*e)
        return 0;
    if (store_draw_parse(e, ms)) {
        snprintf(err, errlen, "GLGEMM_MAX_DRAW_MS=%.100s is not a number of milliseconds from 0 "
                 "(no bound) to %.0f", e, GG_MAX_DRAW_MS_MAX);
        return -1;
    }
    return 1;
}

int store_draw_read(const char *dir, const char *card, double *ms, char *err, size_t errlen)
{
    char path[1024];
    store_draw_path(path, sizeof path, dir, card);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[256];
    int lineno = 0, rc = -1;
    snprintf(err, errlen, "%s: no line \"max_draw_ms: V\"", path);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\0')
            continue;
        const char *key = "max_draw_ms:";
        double v;
        if (strncmp(p, key, strlen(key)) || rc == 0 ||
            store_draw_parse(p + strlen(key) + strspn(p + strlen(key), " \t"), &v)) {
            snprintf(err, errlen, "%s:%d: not \"max_draw_ms: V\" (V milliseconds from 0 to %.0f, "
                     "once)", path, lineno, GG_MAX_DRAW_MS_MAX);
            rc = -1;
            break;
        }
        *ms = v;
        rc = 0;
    }
    fclose(f);
    return rc == 0 ? 1 : -1;
}

int store_draw_write(const char *dir, const char *card, double ms, const char *note, char *err,
                     size_t errlen)
{
    char folder[1024], path[1100], text[1024];
    store_card_dir(folder, sizeof folder, dir, card);
    if (base_mkdirs(folder, err, errlen))
        return -1;
    store_draw_path(path, sizeof path, dir, card);
    int n = snprintf(text, sizeof text,
                     "# glgemm: the longest one draw may run on this card, in milliseconds (0: no "
                     "bound).\n"
                     "# A pass that would draw longer is drawn as several draws over bands of its\n"
                     "# fragments (docs/notes/run.md, \"Long draws\").  --max-draw-ms and GLGEMM_MAX_DRAW_MS "
                     "come first.\n"
                     "%s%s%s"
                     "max_draw_ms: %.6g\n",
                     note ? "# " : "", note ? note : "", note ? "\n" : "", ms);
    if (n < 0 || (size_t)n >= sizeof text) {
        snprintf(err, errlen, "%s: the note is too long", path);
        return -1;
    }
    return base_write_atomic(path, text, (size_t)n, err, errlen);
}

double store_draw_bound_ms(const char *const *dirs, int ndirs, const char *card, char *src,
                           size_t srclen)
{
    double ms;
    char err[256];
    if (store_draw_env(&ms, err, sizeof err) == 1) {
        if (src)
            snprintf(src, srclen, "GLGEMM_MAX_DRAW_MS");
        return ms;
    }
    for (int i = 0; i < ndirs; i++)
        if (dirs[i] && store_draw_read(dirs[i], card, &ms, err, sizeof err) == 1) {
            if (src)
                store_draw_path(src, srclen, dirs[i], card);
            return ms;
        }
    if (src)
        snprintf(src, srclen, "default");
    return GG_MAX_DRAW_MS_DEFAULT;
}
