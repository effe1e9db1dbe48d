/* CSV rows of evaluations: see csv.h. */
#include "store/csv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/util.h"

static const char *const columns[GG_CSV_COLUMNS] = {
    "card",    "m",     "n",        "k",   "mrt",    "mc",      "np",     "unroll",
    "profile", "compiler", "acc",   "store", "out",  "blk",     "fetch",  "tile",
    "ku",      "order", "passes", "status", "seconds", "gflops", "rel_err",
};
enum { C_CARD, C_M, C_N, C_K, C_MRT, C_V0 = C_MRT, C_STORE = 11, C_OUT, C_BLK, C_FETCH, C_TILE,
       C_KU, C_ORDER, C_PASSES, C_STATUS, C_SECONDS, C_GFLOPS, C_RELERR };
#define VARIANT_COLUMNS 8 /* mrt .. store: canonical values; then out, blk, fetch, tile, ku, order */

/* The shortest %g form that reads back as x. */
static void shortest(char *out, size_t n, double x)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, x);
        if (strtod(out, NULL) == x)
            return;
    }
}

int store_csv_format(char *buf, size_t len, const char *card, const gg_problem *p,
                  const gg_variant *v, const gg_measurement *m)
{
    if (len)
        buf[0] = '\0';
    if (!base_card_slug_ok(card) || p->m < 1 || p->n < 1 || p->k < 1 || m->passes < 0 ||
        !(m->seconds >= 0) || !isfinite(m->seconds) || !(m->gflops >= 0) ||
        !isfinite(m->gflops) || isnan(m->rel_err) || (unsigned)m->status >= GG_STATUS_COUNT)
        return -1;
    /* The variant's values, in canonical order, from its canonical form. */
    char vcols[GG_VARIANT_TEXT + 64] = ",,,,,,,,,,,,,";
    if (v) {
        char canon[GG_VARIANT_TEXT];
        gen_variant_format(v, canon, sizeof canon);
        size_t o = 0;
        int items = 0;
        for (const char *s = canon; *s && items < VARIANT_COLUMNS; items++) {
            const char *eq = strchr(s, '=');
            if (!eq)
                return -1;
            size_t vl = strcspn(eq + 1, ",");
            if (o + vl + 2 > sizeof vcols)
                return -1;
            if (o)
                vcols[o++] = ',';
            memcpy(vcols + o, eq + 1, vl);
            o += vl;
            s = eq + 1 + vl;
            if (*s == ',')
                s++;
        }
        vcols[o] = '\0';
        char blk[32] = "-";
        if (v->out == GG_OUT_IMAGE)
            snprintf(blk, sizeof blk, "%dx%d", v->blk.rows, v->blk.cols);
        char tile[32];
        gen_tile_format(v, tile, sizeof tile);
        if (o + 96 > sizeof vcols)
            return -1;
        snprintf(vcols + o, sizeof vcols - o, ",%s,%s,%s,%s,%d,%s", gen_out_name(v->out), blk,
                 gen_fetch_name(v->fetch), tile, v->ku, gen_order_name(v->order));
    }
    char secs[32], gf[32], rel[32] = "";
    shortest(secs, sizeof secs, m->seconds);
    shortest(gf, sizeof gf, m->gflops);
    if (m->rel_err >= 0)
        shortest(rel, sizeof rel, m->rel_err);
    int w = snprintf(buf, len, "%s,%d,%d,%d,%s,%d,%s,%s,%s,%s", card, p->m, p->n, p->k, vcols,
                     m->passes, base_status_name(m->status), secs, gf, rel);
    if (w < 0 || (size_t)w >= len) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}

static size_t content_length(const char *line)
{
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n') {
        n--;
        if (n && line[n - 1] == '\r')
            n--;
    }
    return n;
}

bool store_csv_is_header(const char *line)
{
    size_t n = content_length(line);
    return (n == strlen(GG_CSV_HEADER) && !strncmp(line, GG_CSV_HEADER, n)) ||
           store_csv_is_old_header(line);
}

bool store_csv_is_old_header(const char *line)
{
    size_t n = content_length(line);
    return (n == strlen(GG_CSV_HEADER_V1) && !strncmp(line, GG_CSV_HEADER_V1, n)) ||
           (n == strlen(GG_CSV_HEADER_V2) && !strncmp(line, GG_CSV_HEADER_V2, n)) ||
           (n == strlen(GG_CSV_HEADER_V3) && !strncmp(line, GG_CSV_HEADER_V3, n));
}

/* A whole-field integer in [lo, hi]: digits only (a leading '-' when lo < 0),
 * no sign '+', no spaces, no leading zeros. */
static int field_int(const char *s, long lo, long hi, long *out)
{
    const char *d = s[0] == '-' ? s + 1 : s;
    if (!*d || (d[0] == '0' && d[1]) || strspn(d, "0123456789") != strlen(d))
        return -1;
    errno = 0;
    long x = strtol(s, NULL, 10);
    if (errno || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* A whole-field number: [-]digits[.digits][e[+-]digits], or inf when allowed. */
static int field_double(const char *s, bool allow_inf, double *out)
{
    if (allow_inf && !strcmp(s, "inf")) {
        *out = INFINITY;
        return 0;
    }
    const char *q = s;
    if (*q == '-')
        q++;
    size_t a = strspn(q, "0123456789");
    q += a;
    size_t b = 0;
    if (*q == '.') {
        q++;
        b = strspn(q, "0123456789");
        q += b;
    }
    if (a + b == 0)
        return -1;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        size_t c = strspn(q, "0123456789");
        if (!c)
            return -1;
        q += c;
    }
    if (*q)
        return -1;
    errno = 0;
    double x = strtod(s, NULL);
    if (errno == ERANGE && fabs(x) > 1)
        return -1;
    *out = x;
    return 0;
}

int store_csv_parse(const char *line, char *card, size_t cardlen, gg_problem *p, gg_variant *v,
                 gg_measurement *m, char *err, size_t errlen)
{
    char buf[GG_CSV_ROW_MAX];
    size_t n = content_length(line);
    if (n >= sizeof buf)
        return gen_fail(err, errlen, "CSV row too long (%zu characters)", n);
    if (memchr(line, '\n', n) || memchr(line, '\r', n))
        return gen_fail(err, errlen, "CSV row has a line break inside");
    memcpy(buf, line, n);
    buf[n] = '\0';
    if (store_csv_is_header(buf))
        return gen_fail(err, errlen, "CSV row is the header line");

    char *f[GG_CSV_COLUMNS];
    int count = 0;
    static char f32[] = "f32", rt[] = "rt", none[] = "-", texture[] = "texture", one[] = "1",
                plain[] = "plain";
    for (char *s = buf;; s++) {
        if (count == GG_CSV_COLUMNS)
            return gen_fail(err, errlen, "CSV row has more than %d columns", GG_CSV_COLUMNS);
        f[count++] = s;
        s = strchr(s, ',');
        if (!s)
            break;
        *s = '\0';
    }
    if (count == 16) {
        /* A row from before the store column (GG_CSV_HEADER_V1): store=f32. */
        memmove(f + C_STORE + 1, f + C_STORE, (16 - C_STORE) * sizeof *f);
        f[C_STORE] = f32;
        count++;
    }
    if (count == 17) {
        /* A row from before out, blk, fetch (GG_CSV_HEADER_V2): out=rt, fetch=texture. */
        memmove(f + C_OUT + 3, f + C_OUT, (17 - C_OUT) * sizeof *f);
        f[C_OUT] = rt;
        f[C_BLK] = none;
        f[C_FETCH] = texture;
        count += 3;
    }
    if (count == 20) {
        /* A row from before tile, ku, order (GG_CSV_HEADER_V3): no tiles, ku=1, order=plain. */
        memmove(f + C_TILE + 3, f + C_TILE, (20 - C_TILE) * sizeof *f);
        f[C_TILE] = none;
        f[C_KU] = one;
        f[C_ORDER] = plain;
        count += 3;
    }
    if (count != GG_CSV_COLUMNS)
        return gen_fail(err, errlen, "CSV row has %d columns, need %d (%s), or 20, 17 or 16 (older "
                       "files)", count, GG_CSV_COLUMNS, GG_CSV_HEADER);

    if (!base_card_slug_ok(f[C_CARD]) || strlen(f[C_CARD]) >= cardlen)
        return gen_fail(err, errlen, "CSV column card: '%.40s' is not a card slug", f[C_CARD]);
    long dims[3];
    for (int i = 0; i < 3; i++)
        if (field_int(f[C_M + i], 1, INT_MAX, &dims[i]))
            return gen_fail(err, errlen, "CSV column %s: '%.40s' is not an integer >= 1",
                           columns[C_M + i], f[C_M + i]);

    /* The variant: its columns as key=value pairs, parsed by gen/, and
     * required to be in canonical form already. */
    char text[GG_CSV_ROW_MAX + 128];
    size_t o = 0;
    for (int i = 0; i < VARIANT_COLUMNS; i++) {
        const char *val = f[C_V0 + i];
        if (!*val || strpbrk(val, "= \t"))
            return gen_fail(err, errlen, "CSV column %s: '%.40s' is not a value of %s",
                           columns[C_V0 + i], val, columns[C_V0 + i]);
        o += (size_t)snprintf(text + o, sizeof text - o, "%s%s=%s", i ? "," : "",
                              columns[C_V0 + i], val);
    }
    /* out, blk, fetch: written always, in the text only where the canonical
     * form has them (blk `-` exactly with out=rt). */
    bool image = !strcmp(f[C_OUT], "image");
    if (!image && strcmp(f[C_OUT], "rt"))
        return gen_fail(err, errlen, "CSV column out: '%.40s' is not rt or image", f[C_OUT]);
    if (image == !strcmp(f[C_BLK], "-"))
        return gen_fail(err, errlen, "CSV column blk: '%.40s' %s", f[C_BLK],
                       image ? "must be RxC with out=image" : "must be - with out=rt");
    if (image)
        o += (size_t)snprintf(text + o, sizeof text - o, ",out=image,blk=%s", f[C_BLK]);
    if (strcmp(f[C_FETCH], "texture"))
        o += (size_t)snprintf(text + o, sizeof text - o, ",fetch=%s", f[C_FETCH]);
    if (strcmp(f[C_TILE], "-"))
        o += (size_t)snprintf(text + o, sizeof text - o, ",tile=%s", f[C_TILE]);
    if (strcmp(f[C_KU], "1"))
        o += (size_t)snprintf(text + o, sizeof text - o, ",ku=%s", f[C_KU]);
    if (strcmp(f[C_ORDER], "plain"))
        o += (size_t)snprintf(text + o, sizeof text - o, ",order=%s", f[C_ORDER]);
    for (int c = C_BLK; c <= C_ORDER; c++)
        if (!*f[c] || strpbrk(f[c], "= \t"))
            return gen_fail(err, errlen, "CSV column %s: '%.40s' is not a value", columns[c], f[c]);
    if (o >= sizeof text)
        return gen_fail(err, errlen, "CSV variant columns too long");
    char verr[256];
    if (gen_variant_parse(text, NULL, v, verr, sizeof verr))
        return gen_fail(err, errlen, "CSV variant columns: %s", verr);
    char canon[GG_VARIANT_TEXT];
    gen_variant_format(v, canon, sizeof canon);
    if (strcmp(canon, text) != 0)
        return gen_fail(err, errlen, "CSV variant columns '%.160s' are not canonical ('%s')", text,
                       canon);

    long passes;
    if (field_int(f[C_PASSES], 0, INT_MAX, &passes))
        return gen_fail(err, errlen, "CSV column passes: '%.40s' is not an integer >= 0",
                       f[C_PASSES]);
    int st = base_status_parse(f[C_STATUS]);
    if (st < 0)
        return gen_fail(err, errlen, "CSV column status: unknown status '%.40s'", f[C_STATUS]);
    double secs, gf, rel = -1;
    if (field_double(f[C_SECONDS], false, &secs) || secs < 0)
        return gen_fail(err, errlen, "CSV column seconds: '%.40s' is not a number >= 0",
                       f[C_SECONDS]);
    if (field_double(f[C_GFLOPS], false, &gf) || gf < 0)
        return gen_fail(err, errlen, "CSV column gflops: '%.40s' is not a number >= 0",
                       f[C_GFLOPS]);
    if (*f[C_RELERR] && (field_double(f[C_RELERR], true, &rel) || rel < 0))
        return gen_fail(err, errlen, "CSV column rel_err: '%.40s' is not empty or a number >= 0",
                       f[C_RELERR]);

    strcpy(card, f[C_CARD]);
    p->m = (int)dims[0];
    p->n = (int)dims[1];
    p->k = (int)dims[2];
    base_measurement_init(m);
    m->status = (gg_status)st;
    m->passes = (int)passes;
    m->seconds = secs;
    m->gflops = gf;
    m->rel_err = rel;
    return 0;
}
