/* probe.csv: "metric,variant,value,unit", one row per measured point and
 * per ceiling.  The ceilings (summary rows) a reader needs:
 *   mad,max,<GFLOP/s>                     fetch,<fmt>-<pattern>,<Gtexel/s and GB/s>
 *   write,targets-<n>,<Gtexel/s and GB/s> readback,rgba32f,<GB/s>
 * and those it takes where present (files from before them lack them):
 *   mad64,max,<GFLOP/s>   (the fp64 sweep; a context without doubles
 *     writes no mad64 row; points without the max row are an error)
 *   fetch,<fmt>-<path>-<pattern>,<Gtexel/s and GB/s>   (path: texelfetch,
 *     image, buffer; the GEMM patterns)
 *   imagestore,rgba32f-<n>-per-fragment,<Gtexel/s and GB/s>
 * Written whole or not at all (base/fileio.h's base_write_atomic). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/probe_data.h"

static const char *header = "metric,variant,value,unit";
const char *const base_fetch_fmt_names[GG_FETCH_NFMT] = {"r32f", "rgba32f", "rgba16f"};
const char *const base_fetch_pat_names[GG_FETCH_NPAT] = {"friendly", "hostile", "gemm-2x4-4x1",
                                                       "gemm-4x2-1x4"};

const int base_probe_store_texels[GG_PROBE_NSTORE] = {1, 4, 16, 64};

int base_fetch_bytes(int fmt)
{
    return fmt == GG_FETCH_R32F ? 4 : fmt == GG_FETCH_RGBA16F ? 8 : 16;
}

bool base_probe_fetch_required(int fmt, int pat)
{
    return fmt != GG_FETCH_RGBA16F && pat != GG_FETCH_GEMM24 && pat != GG_FETCH_GEMM42;
}

bool base_probe_fetch_measured(int fmt, int pat)
{
    if (base_probe_fetch_required(fmt, pat))
        return true;
    /* The GEMM patterns for the 4-channel formats the GEMM reads; RGBA16F
     * also cache-friendly, beside RGBA32F's. */
    return fmt != GG_FETCH_R32F && pat != GG_FETCH_HOSTILE;
}

bool base_probe_path_measured(int fmt, int path, int pat)
{
    if (path == GG_FETCH_TEXTURE)
        return base_probe_fetch_measured(fmt, pat);
    if (path == GG_FETCH_UBO || (path == GG_FETCH_SSBO && fmt != GG_FETCH_RGBA32F))
        return false;
    return path > GG_FETCH_TEXTURE && path <= GG_PROBE_LAST_PATH &&
           (fmt == GG_FETCH_RGBA32F || fmt == GG_FETCH_RGBA16F) &&
           (pat == GG_FETCH_GEMM24 || pat == GG_FETCH_GEMM42);
}

char *base_probe_fetch_variant(int fmt, int path, int pat, char *buf, size_t len)
{
    if (path == GG_FETCH_TEXTURE)
        snprintf(buf, len, "%s-%s", base_fetch_fmt_names[fmt], base_fetch_pat_names[pat]);
    else
        snprintf(buf, len, "%s-%s-%s", base_fetch_fmt_names[fmt], gen_fetch_name((gg_fetch)path),
                 base_fetch_pat_names[pat]);
    return buf;
}

char *base_probe_store_variant(int i, char *buf, size_t len)
{
    snprintf(buf, len, "rgba32f-%d-per-fragment", base_probe_store_texels[i]);
    return buf;
}

double base_probe_path_rate(const gg_probe_result *r, int fmt, int path)
{
    if (fmt < 0 || fmt >= GG_FETCH_NFMT || path < 0 || path >= GG_FETCH_COUNT)
        return 0;
    double g = 0;
    for (int pat = 0; pat < GG_FETCH_NPAT; pat++) {
        double v = path == GG_FETCH_TEXTURE ? r->fetch_gtexels[fmt][pat]
                                            : r->path_gtexels[fmt][path][pat];
        if (isfinite(v) && v > g)
            g = v;
    }
    return g;
}

double base_probe_store_rate(const gg_probe_result *r)
{
    double g = 0;
    for (int i = 0; i < GG_PROBE_NSTORE; i++)
        if (isfinite(r->store_gtexels[i]) && r->store_gtexels[i] > g)
            g = r->store_gtexels[i];
    return g;
}

double base_probe_fetch_ceiling(const gg_probe_result *r, int fmt)
{
    if (fmt < 0 || fmt >= GG_FETCH_NFMT)
        return 0;
    double g = fmax(r->fetch_gtexels[fmt][GG_FETCH_GEMM24], r->fetch_gtexels[fmt][GG_FETCH_GEMM42]);
    return g > 0 ? g : r->fetch_gtexels[fmt][GG_FETCH_FRIENDLY];
}

int base_probe_write_csv(const gg_probe_result *r, const char *path, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%s\n", header);
    for (int i = 0; i < r->nrows; i++)
        fprintf(f, "%s,%s,%.6g,%s\n", r->rows[i].metric, r->rows[i].variant, r->rows[i].value,
                r->rows[i].unit);
    int rc = -1;
    if (fclose(f) != 0 || !text)
        snprintf(err, errlen, "cannot write %s: out of memory", path);
    else
        rc = base_write_atomic(path, text, len, err, errlen);
    free(text);
    return rc;
}

/* Splits "a,b,c,d" in place into exactly four non-empty fields. */
static int split4(char *line, char *field[4])
{
    for (int i = 0; i < 4; i++) {
        field[i] = line;
        char *comma = strchr(line, ',');
        if (i < 3) {
            if (!comma)
                return -1;
            *comma = '\0';
            line = comma + 1;
        } else if (comma) {
            return -1;
        }
        if (!*field[i])
            return -1;
    }
    return 0;
}

static const gg_probe_row *find(const gg_probe_result *r, const char *metric, const char *variant,
                                const char *unit)
{
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].metric, metric) && !strcmp(r->rows[i].variant, variant) &&
            !strcmp(r->rows[i].unit, unit))
            return &r->rows[i];
    return NULL;
}

static int need(const gg_probe_result *r, const char *path, const char *metric,
                const char *variant, const char *unit, double *dst, char *err, size_t errlen)
{
    const gg_probe_row *row = find(r, metric, variant, unit);
    if (!row) {
        snprintf(err, errlen, "%s: no row %s,%s,...,%s", path, metric, variant, unit);
        return -1;
    }
    *dst = row->value;
    return 0;
}

/* The fastest sweep point of metric (its rows but "max"): its value, its
 * variant into best; -1 and best untouched when there is none. */
static double sweep_best(gg_probe_result *r, const char *metric, char *best, size_t len)
{
    double v = -1;
    for (int i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].metric, metric) && strcmp(r->rows[i].variant, "max") &&
            r->rows[i].value > v) {
            v = r->rows[i].value;
            snprintf(best, len, "%s", r->rows[i].variant);
        }
    return v;
}

int base_probe_read_csv(const char *path, gg_probe_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            snprintf(err, errlen, "%s:%d: line too long", path, lineno);
            rc = -1;
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (lineno == 1) {
            if (strcmp(line, header)) {
                snprintf(err, errlen, "%s:1: header is not '%s'", path, header);
                rc = -1;
            }
            continue;
        }
        char *fld[4], *end;
        if (split4(line, fld)) {
            snprintf(err, errlen, "%s:%d: not metric,variant,value,unit", path, lineno);
            rc = -1;
            break;
        }
        errno = 0;
        double v = strtod(fld[2], &end);
        if (errno || *end || !isfinite(v)) {
            for (char *c = fld[2]; *c; c++) /* the message stays one line */
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
            snprintf(err, errlen, "%s:%d: value '%.60s' is not a finite number", path, lineno,
                     fld[2]);
            rc = -1;
            break;
        }
        if (r->nrows >= GG_PROBE_MAX_ROWS) {
            snprintf(err, errlen, "%s:%d: more than %d rows", path, lineno, GG_PROBE_MAX_ROWS);
            rc = -1;
            break;
        }
        gg_probe_row *row = &r->rows[r->nrows++];
        if (snprintf(row->metric, sizeof row->metric, "%s", fld[0]) >= (int)sizeof row->metric ||
            snprintf(row->variant, sizeof row->variant, "%s", fld[1]) >= (int)sizeof row->variant ||
            snprintf(row->unit, sizeof row->unit, "%s", fld[3]) >= (int)sizeof row->unit) {
            snprintf(err, errlen, "%s:%d: a field is too long", path, lineno);
            rc = -1;
            break;
        }
        row->value = v;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && lineno == 0) {
        snprintf(err, errlen, "%s: empty file", path);
        rc = -1;
    }
    if (rc)
        return rc;

    /* The summary fields. */
    if (need(r, path, "mad", "max", "GFLOP/s", &r->mad_gflops, err, errlen))
        return -1;
    sweep_best(r, "mad", r->mad_best, sizeof r->mad_best);
    /* fp64: absent where the context has no doubles, and in older files;
     * its points without the max row are a damaged file. */
    double best = sweep_best(r, "mad64", r->mad64_best, sizeof r->mad64_best);
    if ((best >= 0 || find(r, "mad64", "max", "GFLOP/s")) &&
        need(r, path, "mad64", "max", "GFLOP/s", &r->mad64_gflops, err, errlen))
        return -1;
    for (int fm = 0; fm < GG_FETCH_NFMT; fm++)
        for (int pt = 0; pt < GG_FETCH_NPAT; pt++) {
            char variant[48];
            base_probe_fetch_variant(fm, GG_FETCH_TEXTURE, pt, variant, sizeof variant);
            if (!base_probe_fetch_required(fm, pt) && !find(r, "fetch", variant, "Gtexel/s"))
                continue; /* an older file: not measured */
            if (need(r, path, "fetch", variant, "Gtexel/s", &r->fetch_gtexels[fm][pt], err, errlen) ||
                need(r, path, "fetch", variant, "GB/s", &r->fetch_gbs[fm][pt], err, errlen))
                return -1;
        }
    /* The other fetch paths and image stores: absent from older files, and
     * from a context without images; a rate without its GB/s is an error. */
    for (int fm = 0; fm < GG_FETCH_NFMT; fm++)
        for (int pa = GG_FETCH_TEXTURE + 1; pa <= GG_PROBE_LAST_PATH; pa++)
            for (int pt = 0; pt < GG_FETCH_NPAT; pt++) {
                char variant[48];
                if (!base_probe_path_measured(fm, pa, pt) ||
                    !find(r, "fetch", base_probe_fetch_variant(fm, pa, pt, variant, sizeof variant),
                          "Gtexel/s"))
                    continue;
                if (need(r, path, "fetch", variant, "Gtexel/s", &r->path_gtexels[fm][pa][pt], err,
                         errlen) ||
                    need(r, path, "fetch", variant, "GB/s", &r->path_gbs[fm][pa][pt], err, errlen))
                    return -1;
            }
    for (int i = 0; i < GG_PROBE_NSTORE; i++) {
        char variant[48];
        base_probe_store_variant(i, variant, sizeof variant);
        if (!find(r, "imagestore", variant, "Gtexel/s"))
            continue;
        if (need(r, path, "imagestore", variant, "Gtexel/s", &r->store_gtexels[i], err, errlen) ||
            need(r, path, "imagestore", variant, "GB/s", &r->store_gbs[i], err, errlen))
            return -1;
    }
    for (int n = 1; n <= GG_MAX_TARGETS; n++) {
        char variant[48];
        snprintf(variant, sizeof variant, "targets-%d", n);
        if (!find(r, "write", variant, "GB/s"))
            break;
        if (need(r, path, "write", variant, "Gtexel/s", &r->write_gtexels[n], err, errlen) ||
            need(r, path, "write", variant, "GB/s", &r->write_gbs[n], err, errlen))
            return -1;
        r->write_max_targets = n;
    }
    if (r->write_max_targets == 0) {
        snprintf(err, errlen, "%s: no row write,targets-1,...,GB/s", path);
        return -1;
    }
    if (need(r, path, "readback", "rgba32f", "GB/s", &r->readback_gbs, err, errlen))
        return -1;
    r->status = GG_OK;
    return 0;
}
