/* Tuning records and the best file: see records.h. */
#include "store/records.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "store/csv.h"
#include "base/fault.h"

struct gg_records {
    int fd;
    char path[512];
    char card[GG_CARD_MAX];
    int m, n, k;
};

static void stamp(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, len, "%Y%m%d-%H%M%S", &tm);
}

/* Moves path aside to path.<stamp>.old (a free name); 0 when there was
 * nothing to move. */
static int move_aside(const char *path, char *to, size_t tolen, bool *moved, char *err,
                      size_t errlen)
{
    *moved = false;
    if (access(path, F_OK))
        return 0;
    char st[32];
    stamp(st, sizeof st);
    for (int i = 0; i < 100; i++) {
        if (i == 0)
            snprintf(to, tolen, "%s.%s.old", path, st);
        else
            snprintf(to, tolen, "%s.%s-%d.old", path, st, i);
        if (access(to, F_OK))
            break;
    }
    if (rename(path, to)) {
        snprintf(err, errlen, "cannot move %s aside: %s", path, strerror(errno));
        return -1;
    }
    *moved = true;
    return 0;
}

static char *read_all(int fd, size_t *len, char *err, size_t errlen, const char *path)
{
    struct stat sb;
    if (fstat(fd, &sb)) {
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                snprintf(err, errlen, "out of memory reading %s", path);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = pread(fd, buf + n, cap - 1 - n, (off_t)n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

static int cut(gg_records *r, size_t at, char *err, size_t errlen)
{
    if (ftruncate(r->fd, (off_t)at) || fsync(r->fd)) {
        snprintf(err, errlen, "cannot truncate %s: %s", r->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A file from before some variant columns (GG_CSV_HEADER_V1 without store,
 * _V2 without out, blk, fetch, _V3 without tile, ku, order): rewritten with
 * today's header, every whole line of 16 fields given
 * "f32,rt,-,texture,-,1,plain," after its acc, every one of 17 fields
 * "rt,-,texture,-,1,plain," after its store and every one of 20 "-,1,plain,"
 * after its fetch (other lines, a torn last one
 * included, kept as they are), so new rows never land under an old header.  Written atomically beside it, then
 * r->fd becomes the new file, locked (a tune that opens the new file in
 * between wins: this one is refused as "in use").  0, or -1 with err. */
static int migrate(gg_records *r, const char *buf, size_t len, char *err, size_t errlen)
{
    const char *nl = memchr(buf, '\n', len);
    size_t cap = len + strlen(GG_CSV_HEADER) + 2, o = 0;
    for (size_t i = 0; i < len; i++)
        cap += buf[i] == '\n' ? 40 : 0; /* "f32,rt,-,texture,-,1,plain," a row at most */
    char *text = malloc(cap);
    if (!text) {
        snprintf(err, errlen, "out of memory rewriting %s", r->path);
        return -1;
    }
    o += (size_t)snprintf(text, cap, "%s\n", GG_CSV_HEADER);
    for (size_t pos = (size_t)(nl - buf) + 1; pos < len;) {
        const char *line = buf + pos, *end = memchr(line, '\n', len - pos);
        size_t n = end ? (size_t)(end - line) + 1 : len - pos, commas = 0, at11 = 0, at12 = 0,
               at15 = 0;
        for (size_t i = 0; i < n; i++)
            if (line[i] == ',') {
                commas++;
                if (commas == 11)
                    at11 = i + 1; /* after acc: where store goes */
                if (commas == 12)
                    at12 = i + 1; /* after store: where out, blk, fetch go */
                if (commas == 15)
                    at15 = i + 1; /* after fetch: where tile, ku, order go */
            }
        /* 16 fields (no store): store and the rest after acc; 17 (no out,
         * blk, fetch): those after store; 20 (no tile, ku, order): those
         * after fetch; other lines as they are. */
        const char *ins = !end ? NULL : commas == 15 ? "f32,rt,-,texture,-,1,plain,"
                          : commas == 16 ? "rt,-,texture,-,1,plain,"
                          : commas == 19 ? "-,1,plain," : NULL;
        size_t at = commas == 15 ? at11 : commas == 16 ? at12 : at15;
        if (ins) {
            size_t il = strlen(ins);
            memcpy(text + o, line, at);
            memcpy(text + o + at, ins, il);
            memcpy(text + o + at + il, line + at, n - at);
            o += n + il;
        } else {
            memcpy(text + o, line, n);
            o += n;
        }
        pos += n;
    }
    int rc = base_write_atomic(r->path, text, o, err, errlen);
    free(text);
    if (rc)
        return -1;
    int fd = open(r->path, O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", r->path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        snprintf(err, errlen, "%s is in use (another glgemm tune of this card and problem "
                              "is running)", r->path);
        return -1;
    }
    fchmod(fd, 0644); /* as the file was made; the temporary one is private */
    close(r->fd);
    r->fd = fd;
    fprintf(stderr, "note: %s: rewritten with today's columns (store, out, blk, fetch, tile, ku, "
                    "order: its rows are as they say, else store=f32, out=rt, fetch=texture, no "
                    "tiles, ku=1, order=plain)\n", r->path);
    return 0;
}

/* Reads the rows back; returns 0, or -1 with err (the file is not ours). */
static int load(gg_records *r, gg_record_fn fn, void *user, gg_records_info *info, char *err,
                size_t errlen)
{
    size_t len;
    char *buf = read_all(r->fd, &len, err, errlen, r->path);
    if (!buf)
        return -1;
    int rc = 0;
    char *nl = memchr(buf, '\n', len);
    if (!nl) {
        /* No complete first line: empty, or a header torn by a crash. */
        if (len > 0 && strncmp(buf, GG_CSV_HEADER, len) != 0) {
            snprintf(err, errlen, "%s is not tuning records (no header line); move it away or "
                                  "use --fresh", r->path);
            rc = -1;
        } else if (len > 0) {
            fprintf(stderr, "warning: %s: torn header dropped (a crash while it was written)\n",
                    r->path);
            info->torn = 1;
        }
        if (rc == 0 && (cut(r, 0, err, errlen) ||
                        write_all(r->fd, GG_CSV_HEADER "\n", strlen(GG_CSV_HEADER) + 1) ||
                        fsync(r->fd))) {
            if (!*err)
                snprintf(err, errlen, "cannot write %s: %s", r->path, strerror(errno));
            rc = -1;
        }
        free(buf);
        return rc;
    }
    *nl = '\0';
    if (memchr(buf, '\0', (size_t)(nl - buf)) || !store_csv_is_header(buf)) {
        snprintf(err, errlen, "%s does not start with the tuning records header (%s); move it "
                              "away or use --fresh", r->path, GG_CSV_HEADER);
        free(buf);
        return -1;
    }
    if (store_csv_is_old_header(buf)) {
        *nl = '\n';
        rc = migrate(r, buf, len, err, errlen);
        free(buf);
        return rc ? rc : load(r, fn, user, info, err, errlen);
    }
    size_t pos = (size_t)(nl - buf) + 1;
    long lineno = 1;
    /* Bad lines right before a torn last row go with it: left in place they
     * would be the last line next time and be cut then (resume twice, cut
     * twice).  bad_from: where the run of bad lines just before pos starts. */
    size_t bad_from = 0;
    long bad_run = 0;
    while (pos < len) {
        lineno++;
        char *line = buf + pos;
        char *end = memchr(line, '\n', len - pos);
        bool last = !end || (size_t)(end - buf) + 1 >= len;
        if (!end) {
            fprintf(stderr, "warning: %s: line %ld has no newline: a row torn by a crash; "
                            "dropped\n", r->path, lineno);
            info->torn = 1;
            break;
        }
        *end = '\0';
        char card[GG_CARD_MAX], perr[256];
        gg_problem p;
        base_problem_default(&p);
        gg_variant v;
        gg_measurement m;
        /* A NUL byte would hide the rest of the line from the parser. */
        bool nul = memchr(line, '\0', (size_t)(end - line)) != NULL;
        if (nul)
            snprintf(perr, sizeof perr, "a NUL byte inside the line");
        if (nul || store_csv_parse(line, card, sizeof card, &p, &v, &m, perr, sizeof perr)) {
            if (last) {
                fprintf(stderr, "warning: %s: last line %ld does not parse (%s): a row torn by a "
                                "crash; dropped\n", r->path, lineno, perr);
                info->torn = 1;
                break;
            }
            fprintf(stderr, "warning: %s: line %ld skipped: %s\n", r->path, lineno, perr);
            info->skipped++;
            if (bad_run++ == 0)
                bad_from = pos;
            pos = (size_t)(end - buf) + 1;
            continue;
        } else if (strcmp(card, r->card) || p.m != r->m || p.n != r->n || p.k != r->k) {
            fprintf(stderr, "warning: %s: line %ld skipped: it is for card %s, %dx%dx%d\n", r->path,
                    lineno, card, p.m, p.n, p.k);
            info->skipped++;
        } else {
            info->rows++;
            if (fn)
                fn(user, &v, &m);
        }
        bad_run = 0;
        pos = (size_t)(end - buf) + 1;
    }
    if (info->torn) {
        if (bad_run) {
            fprintf(stderr, "warning: %s: the %ld bad line%s before it dropped too\n", r->path,
                    bad_run, bad_run == 1 ? "" : "s");
            info->skipped -= bad_run;
            pos = bad_from;
        }
        rc = cut(r, pos, err, errlen);
    }
    free(buf);
    return rc;
}

gg_records *store_records_open(const char *dir, const char *card, int m, int n, int k, bool fresh,
                            gg_record_fn fn, void *user, gg_records_info *info, char *err,
                            size_t errlen)
{
    gg_records_info scratch;
    if (!info)
        info = &scratch;
    memset(info, 0, sizeof *info);
    if (err && errlen)
        err[0] = '\0';
    if (!base_card_slug_ok(card)) {
        snprintf(err, errlen, "'%s' is not a card slug (lower case letters, digits, dashes)", card);
        return NULL;
    }
    if (m < 1 || n < 1 || k < 1) {
        snprintf(err, errlen, "records need a problem size");
        return NULL;
    }
    char folder[400];
    if (store_path_cut(store_card_dir(folder, sizeof folder, dir, card), sizeof folder)) {
        snprintf(err, errlen, "results folder name too long");
        return NULL;
    }
    if (base_mkdirs(folder, err, errlen))
        return NULL;
    gg_records *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->fd = -1;
    snprintf(r->card, sizeof r->card, "%s", card);
    r->m = m;
    r->n = n;
    r->k = k;
    store_records_file(r->path, sizeof r->path, dir, card, m, n, k);

    /* Lock first: neither read nor move aside a file another tune writes. */
    for (int attempt = 0; attempt < 2; attempt++) {
        r->fd = open(r->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (r->fd < 0) {
            snprintf(err, errlen, "cannot open %s: %s", r->path, strerror(errno));
            goto fail;
        }
        if (flock(r->fd, LOCK_EX | LOCK_NB)) {
            snprintf(err, errlen, "%s is in use (another glgemm tune of this card and problem "
                                  "is running)", r->path);
            goto fail;
        }
        struct stat sb;
        if (!fresh || attempt == 1 || (fstat(r->fd, &sb) == 0 && sb.st_size == 0))
            break; /* nothing to move aside: an empty file is a fresh start */
        bool moved;
        if (move_aside(r->path, info->old_path, sizeof info->old_path, &moved, err, errlen))
            goto fail;
        info->moved_aside = moved;
        for (int st = 0; st < GG_STORE_COUNT; st++) { /* each store's best file */
            char best[512], best_old[512];
            store_best_path_store(best, sizeof best, dir, card, m, n, k, (gg_store)st);
            if (move_aside(best, best_old, sizeof best_old, &moved, err, errlen))
                goto fail;
        }
        close(r->fd); /* the next open creates the new file */
        r->fd = -1;
    }
    if (load(r, fn, user, info, err, errlen))
        goto fail;
    return r;
fail:
    if (r->fd >= 0)
        close(r->fd);
    free(r);
    return NULL;
}

int store_records_append(gg_records *r, const gg_variant *v, const gg_measurement *m0, char *err,
                      size_t errlen)
{
    gg_measurement m = *m0;
    if (!isfinite(m.seconds) || m.seconds < 0)
        m.seconds = 0;
    if (m.status != GG_OK || !isfinite(m.gflops) || m.gflops < 0)
        m.gflops = 0;
    if (isnan(m.rel_err))
        m.rel_err = -1;
    if (m.passes < 0)
        m.passes = 0;
    gg_problem p;
    base_problem_default(&p);
    p.m = r->m;
    p.n = r->n;
    p.k = r->k;
    char row[GG_CSV_ROW_MAX + 2];
    if (store_csv_format(row, sizeof row - 1, r->card, &p, v, &m)) {
        snprintf(err, errlen, "cannot format a record row (internal)");
        return -1;
    }
    size_t len = strlen(row);
    row[len++] = '\n';
    /* One write(): a kill leaves the whole row or none of it.  A short
     * write (a full disk) is cut off again: the file keeps whole rows. */
    struct stat sb;
    if (fstat(r->fd, &sb)) {
        snprintf(err, errlen, "cannot stat %s: %s", r->path, strerror(errno));
        return -1;
    }
    /* disk_full (tests only, base/fault.h): the disk fills mid-row. */
    size_t want = base_fault("disk_full") ? len / 2 : len;
    ssize_t w;
    do
        w = write(r->fd, row, want);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)len) {
        int e = w < 0 ? errno : ENOSPC; /* a short write: the disk is full */
        bool cut_ok = w <= 0 || (ftruncate(r->fd, sb.st_size) == 0 && fsync(r->fd) == 0);
        snprintf(err, errlen, "cannot append to %s: %s%s", r->path, strerror(e),
                 cut_ok ? "" : " (and the partial row could not be cut off)");
        return -1;
    }
    if (fsync(r->fd)) {
        snprintf(err, errlen, "cannot sync %s: %s", r->path, strerror(errno));
        return -1;
    }
    return 0;
}

const char *store_records_path(const gg_records *r) { return r->path; }

void store_records_close(gg_records *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r);
}

int store_best_write(const char *dir, const char *card, int m, int n, int k, const gg_variant *v,
                  const gg_measurement *meas, char *err, size_t errlen)
{
    char path[512], folder[400];
    if (base_mkdirs(store_card_dir(folder, sizeof folder, dir, card), err, errlen))
        return -1;
    store_best_path_store(path, sizeof path, dir, card, m, n, k, v->store);
    char canon[GG_VARIANT_TEXT], when[32], text[1024];
    gen_variant_format(v, canon, sizeof canon);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int len = snprintf(text, sizeof text,
                       "%s\ngflops: %.6g\nseconds: %.6g\nrel_err: %.3g\ncard: %s\nproblem: %dx%dx%d\n"
                       "written: %s\n",
                       canon, meas->gflops, meas->seconds, meas->rel_err, card, m, n, k, when);
    if (meas->spread > 0 && meas->reps > 1 && len > 0 && (size_t)len < sizeof text)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "remeasured: median of %d interleaved runs, spread %.1f%% "
                        "((slowest - fastest) / median)\n",
                        meas->reps, 100 * meas->spread);
    return base_write_atomic(path, text, (size_t)len, err, errlen);
}

int store_best_read(const char *dir, const char *card, int m, int n, int k, gg_variant *v,
                 double *gflops, char *err, size_t errlen)
{
    return store_best_read_store(dir, card, m, n, k, GG_STORE_F32, v, gflops, err, errlen);
}

int store_best_read_path(const char *path, gg_variant *v, double *gflops, char *why, size_t whylen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, whylen, "%s", strerror(errno));
        return GG_BEST_NONE;
    }
    /* Whole lines (getline): a long first line is not read on as the second. */
    char *line = NULL;
    size_t cap = 0;
    int rc = GG_BEST_EMPTY;
    if (getline(&line, &cap, f) > 0) {
        line[strcspn(line, " \t\r\n")] = '\0';
        rc = gen_variant_parse(line, NULL, v, why, whylen) ? GG_BEST_BAD : 0;
        double g;
        if (rc == 0 && gflops) /* not a number >= 0 ("nan", "-1", "1e999"): as without one */
            *gflops = getline(&line, &cap, f) > 0 && sscanf(line, "gflops: %lf", &g) == 1 &&
                              isfinite(g) && g >= 0
                          ? g
                          : 0;
    } else if (ferror(f)) { /* a folder, an I/O error */
        snprintf(why, whylen, "%s", strerror(errno));
        rc = GG_BEST_NONE;
    } else {
        snprintf(why, whylen, "empty file");
    }
    free(line);
    fclose(f);
    return rc;
}

int store_best_read_store(const char *dir, const char *card, int m, int n, int k, gg_store store,
                       gg_variant *v, double *gflops, char *err, size_t errlen)
{
    char path[512], why[256];
    store_best_path_store(path, sizeof path, dir, card, m, n, k, store);
    switch (store_best_read_path(path, v, gflops, why, sizeof why)) {
    case GG_BEST_NONE: snprintf(err, errlen, "cannot read %s: %s", path, why); return -1;
    case GG_BEST_EMPTY: snprintf(err, errlen, "%s is empty", path); return -1;
    case GG_BEST_BAD:
        snprintf(err, errlen, "%s: first line is not a variant: %s", path, why);
        return -1;
    }
    if (store != GG_STORE_F32 && v->store != store) { /* best-MxNxK.txt: as it says */
        snprintf(err, errlen, "%s: holds a store=%s variant, not store=%s", path,
                 gen_store_name(v->store), gen_store_name(store));
        return -1;
    }
    return 0;
}

int store_records_scan_path(const char *path, const char *card, int m, int n, int k, gg_record_fn fn,
                         void *user, long *rows, long *other, char *err, size_t errlen)
{
    char rerr[512];
    char *text = base_read_text(path, (size_t)1 << 30, NULL, rerr, sizeof rerr);
    if (!text) {
        snprintf(err, errlen, "%s", rerr);
        return 1;
    }
    int rc = 0;
    long lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (++lineno == 1) {
            if (!store_csv_is_header(line)) {
                snprintf(err, errlen, "%s: the first line is not the records header (%s)", path,
                         GG_CSV_HEADER);
                rc = -1;
                break;
            }
            continue;
        }
        char rcard[GG_CARD_MAX], perr[256];
        gg_problem p;
        base_problem_default(&p);
        gg_variant v;
        gg_measurement meas;
        if (store_csv_parse(line, rcard, sizeof rcard, &p, &v, &meas, perr, sizeof perr) ||
            strcmp(rcard, card) || p.m != m || p.n != n || p.k != k) {
            if (other)
                (*other)++;
            continue;
        }
        if (rows)
            (*rows)++;
        if (fn)
            fn(user, &v, &meas);
    }
    free(text);
    return rc;
}

int store_records_scan(const char *dir, const char *card, int m, int n, int k, gg_record_fn fn,
                    void *user, long *rows, char *err, size_t errlen)
{
    char path[1024];
    store_records_file(path, sizeof path, dir, card, m, n, k);
    if (rows)
        *rows = 0;
    if (access(path, F_OK) != 0)
        return 1;
    return store_records_scan_path(path, card, m, n, k, fn, user, rows, NULL, err, errlen) ? -1 : 0;
}

typedef struct {
    gg_record_want want;
    void *user;
    bool found;
    gg_variant v;
    gg_measurement m;
} fastest_state;

static void fastest_row(void *user, const gg_variant *v, const gg_measurement *m)
{
    fastest_state *s = user;
    if (m->status != GG_OK || !(m->gflops > 0) || (s->want && !s->want(s->user, v)))
        return;
    if (!s->found || m->gflops > s->m.gflops) {
        s->found = true;
        s->v = *v;
        s->m = *m;
    }
}

int store_records_fastest(const char *dir, const char *card, int m, int n, int k,
                       gg_record_want want, void *user, gg_variant *v, gg_measurement *meas,
                       char *err, size_t errlen)
{
    fastest_state s = {.want = want, .user = user};
    int rc = store_records_scan(dir, card, m, n, k, fastest_row, &s, NULL, err, errlen);
    if (rc < 0)
        return -1;
    if (!s.found)
        return 0;
    if (v)
        *v = s.v;
    if (meas)
        *meas = s.m;
    return 1;
}

bool store_record_is_image_f32(void *user, const gg_variant *v)
{
    (void)user;
    return v->out == GG_OUT_IMAGE && v->store == GG_STORE_F32;
}

bool store_user_results(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int w;
    if (xdg && xdg[0] == '/') /* XDG: a relative path is to be ignored */
        w = snprintf(buf, len, "%s/glgemm/results", xdg);
    else if (home && *home)
        w = snprintf(buf, len, "%s/.local/share/glgemm/results", home);
    else
        return false;
    return w > 0 && (size_t)w < len;
}

int store_best_publish(const char *from_dir, const char *to_dir, const char *card, int m, int n,
                    int k, char *err, size_t errlen)
{
    int copied = 0;
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        char from[1024], to[1024], dir[1024];
        store_best_path_store(from, sizeof from, from_dir, card, m, n, k, (gg_store)st);
        store_best_path_store(to, sizeof to, to_dir, card, m, n, k, (gg_store)st);
        size_t len = 0;
        char rerr[256];
        char *text = base_read_text(from, 1 << 16, &len, rerr, sizeof rerr);
        if (!text)
            continue; /* no best of this store */
        int rc = base_mkdirs(store_card_dir(dir, sizeof dir, to_dir, card), err, errlen);
        if (rc == 0)
            rc = base_write_atomic(to, text, len, err, errlen);
        free(text);
        if (rc)
            return -1;
        copied++;
    }
    return copied;
}

/* At most n bytes of s for a message: control bytes (a newline, a NUL) as
 * '?', so that the message stays one line; "..." when cut. */
static void quote_bytes(char *buf, size_t len, const char *s, size_t n)
{
    size_t o = 0, max = n < 60 ? n : 60;
    for (size_t i = 0; i < max && o + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (max < n)
        for (int i = 0; i < 3 && o + 1 < len; i++)
            buf[o++] = '.';
    if (len)
        buf[o < len ? o : len - 1] = '\0';
}

static bool blank(char c) { return c == ' ' || c == '\t'; }

int store_crossover_parse(const char *text, size_t len, long *x, char *why, size_t whylen)
{
    static const char key[] = "crossover:";
    const size_t kl = sizeof key - 1;
    long found = -1, lineno = 0, at = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - pos;
        const char *line = text + pos;
        pos = end + 1;
        lineno++;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (n < kl || memcmp(line, key, kl))
            continue;
        char q[80];
        quote_bytes(q, sizeof q, line, n);
        if (found >= 0) {
            snprintf(why, whylen, "line %ld: '%s': a second crossover line (the first is line %ld)",
                     lineno, q, at);
            return -1;
        }
        size_t i = kl, d0;
        long v = 0;
        bool ok = i < n && blank(line[i]);
        while (i < n && blank(line[i]))
            i++;
        for (d0 = i; i < n && line[i] >= '0' && line[i] <= '9'; i++)
            if (v <= GG_CROSSOVER_MAX && (v = v * 10 + (line[i] - '0')) > GG_CROSSOVER_MAX)
                ok = false; /* v stops growing: no overflow */
        ok = ok && i > d0;
        while (i < n && blank(line[i]))
            i++;
        if (!ok || i != n) {
            snprintf(why, whylen,
                     "line %ld: '%s' is not 'crossover: N' with N a whole number from 0 to %ld",
                     lineno, q, GG_CROSSOVER_MAX);
            return -1;
        }
        found = v;
        at = lineno;
    }
    if (found < 0) {
        snprintf(why, whylen, "no line 'crossover: N'");
        return 1;
    }
    *x = found;
    return 0;
}

char *store_crossover_line(char *buf, size_t len, long x)
{
    snprintf(buf, len, "crossover: %ld\n", x);
    return buf;
}

int store_crossover_read_path(const char *path, long *x, char *why, size_t whylen)
{
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        snprintf(why, whylen, "%s: no such file", path);
        return 1;
    }
    size_t len = 0;
    char err[512], perr[256];
    char *text = base_read_text(path, (size_t)1 << 20, &len, err, sizeof err);
    if (!text) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    int rc = store_crossover_parse(text, len, x, perr, sizeof perr);
    free(text);
    if (rc)
        snprintf(why, whylen, "%s: %s", path, perr);
    return rc ? -1 : 0; /* a file without the line is no record either */
}

long store_crossover_read(const char *dir, const char *card)
{
    char path[1024], why[1024];
    long x = -1;
    store_crossover_path(path, sizeof path, dir, card);
    return store_crossover_read_path(path, &x, why, sizeof why) == 0 ? x : -1;
}
