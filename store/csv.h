/* One CSV row per evaluated variant (SPEC.md "Files"): format and parse.
 * No GL here; search/ reads its tuning records with store_csv_parse().
 *
 * Columns, in order (GG_CSV_HEADER):
 *   card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,tile,ku,order,
 *   passes,status,seconds,gflops,rel_err
 *  - store, then out, blk and fetch (the variant keys, in the canonical
 *    form's order) are newer than SPEC.md's list: rows and headers from
 *    before them (GG_CSV_HEADER_V1, 16 columns, without store;
 *    GG_CSV_HEADER_V2, 17 columns, without out, blk, fetch) still parse, as
 *    store=f32, out=rt, fetch=texture; nor do those from before tile, ku
 *    and order (GG_CSV_HEADER_V3, 20 columns: tile -, ku 1, order plain);
 *    rows are written with all of them.
 *  - tile is `-` without tiles, else WxH[c|z] as the variant writes it; ku
 *    and order are always written (1 and plain by default).
 *  - blk is `-` for out=rt (a block is given only with out=image); fetch is
 *    always written (texture by default).
 *  - card: a card slug (base/slug.h: the results/ folder's name).
 *  - the variant columns are the canonical values of gen_variant_format()
 *    (mrt and mc as RxC, np an integer or `all`).
 *  - status: SPEC.md's spelling.  seconds, gflops: finite, >= 0.
 *  - rel_err: empty when not measured (gg_measurement.rel_err < 0), else a
 *    number >= 0 (inf when an element had S == 0 and C != R).
 *  - Numbers are printed in the shortest form that reads back to the same
 *    double.  No quoting, no spaces; rows end without a newline here.
 *  - Parsing is strict: exactly 23 fields (or 16, 17 or 20, the old ones), every one well formed and
 *    canonical (one optional trailing "\n" or "\r\n"); otherwise -1 and one
 *    line naming the column and the value.
 */
#ifndef GLGEMM_CSV_H
#define GLGEMM_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "base/measure.h"
#include "base/slug.h"

#define GG_CSV_HEADER                                                                      \
    "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,tile,ku,order,passes," \
    "status,seconds,gflops,rel_err"
#define GG_CSV_HEADER_V3                                                                   \
    "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,passes,status,seconds," \
    "gflops,rel_err"
#define GG_CSV_HEADER_V2                                                                   \
    "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,passes,status,seconds,gflops,rel_err"
#define GG_CSV_HEADER_V1                                                                   \
    "card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,passes,status,seconds,gflops,rel_err"
#define GG_CSV_COLUMNS 23
#define GG_CSV_VARIANT_COLUMNS 14 /* mrt .. order */
#define GG_CSV_ROW_MAX 512 /* enough for any row store_csv_format() writes */

/* Writes one row into buf (no newline).  v NULL leaves the fourteen variant
 * columns empty (the CPU BLAS row of bench).  Returns 0, or -1 when the card
 * is not a slug, a number is out of its column's range, or len is too small
 * (buf then holds an empty string). */
int store_csv_format(char *buf, size_t len, const char *card, const gg_problem *p,
                  const gg_variant *v, const gg_measurement *m);

/* Parses one row.  Sets card (cardlen bytes), p->m, p->n, p->k (other
 * problem fields untouched), *v, and *m (base_measurement_init() then status,
 * passes, seconds, gflops, rel_err).  Returns 0, or -1 with one line in err
 * (outputs then unspecified). */
int store_csv_parse(const char *line, char *card, size_t cardlen, gg_problem *p, gg_variant *v,
                 gg_measurement *m, char *err, size_t errlen);

/* True when line is the header, or an older one (V1, V2; an optional
 * trailing newline allowed). */
bool store_csv_is_header(const char *line);
/* True when line is GG_CSV_HEADER_V1 or _V2, a header from before some of
 * the variant columns (files with it are rewritten: store/records.c). */
bool store_csv_is_old_header(const char *line);

#endif
