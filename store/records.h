/* store/records: the tuning records of one card and problem size, and its
 * best file (SPEC.md "Files").  No GL here.
 *
 * Contract:
 *  - DIR/<card>/tune-MxNxK.csv: the header, then one row per evaluated
 *    variant (store/csv.h's format).  A row is formatted into one buffer
 *    ending in '\n' and written with a single write() on an O_APPEND
 *    descriptor, then fsync()ed: a process killed at any moment (SIGKILL
 *    included) leaves whole rows, losing at most the one in flight.
 *  - Opening reads what is there (resume) and hands every good row of this
 *    card and problem to a callback.  A last line without its newline, or
 *    one that does not parse, is a torn row from an older crash: it is
 *    dropped with a warning on stderr and the file truncated to the last
 *    good row.  A bad line further up is skipped with a warning (the file
 *    is left as it is).  A header that is not SPEC.md's is an error: the
 *    file is someone else's, and is not touched.
 *  - fresh: the old file (and the best files) are moved aside, renamed to
 *    tune-MxNxK.csv.<YYYYmmdd-HHMMSS>.old (best-MxNxK.txt.<...>.old,
 *    best-f16-MxNxK.txt.<...>.old), and the records start over.
 *  - The records file is locked (flock, exclusive) while open: a second
 *    tune of the same card and problem is refused rather than interleaved.
 *  - One best file a store (a precision class of its own; the records hold
 *    both): DIR/<card>/best-MxNxK.txt the best store=f32 variant (SPEC's
 *    file), best-f16-MxNxK.txt the best store=f16 one, each written
 *    atomically (temporary file, fsync, rename): first line the canonical
 *    variant, then `gflops: G`, then `key: value` lines (seconds, rel_err,
 *    card, problem, written).
 *  - A records file from before the store column (store/csv.h's
 *    GG_CSV_HEADER_V1) is rewritten on open, atomically, with today's header
 *    and its rows as store=f32; best files without store read as store=f32.
 */
#ifndef GLGEMM_RECORDS_H
#define GLGEMM_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"
#include "base/measure.h"
#include "store/paths.h" /* the files' names */

typedef struct gg_records gg_records;

/* One good row read back; m has status, passes, seconds, gflops, rel_err. */
typedef void (*gg_record_fn)(void *user, const gg_variant *v, const gg_measurement *m);

typedef struct {
    long rows;          /* good rows read back (and handed to the callback) */
    long torn;          /* a torn last row dropped (0 or 1) */
    long skipped;       /* bad lines further up, or rows of another card/problem */
    bool moved_aside;   /* fresh: an old file was moved aside */
    char old_path[512]; /* ... to here */
} gg_records_info;

/* Opens (creating DIR/<card>/ and the file as needed) and reads the records
 * of card and problem m x n x k.  fn (may be NULL) gets every good row.
 * NULL on failure with one line in err (an unreadable or foreign file, a
 * locked file, no permission). */
gg_records *store_records_open(const char *dir, const char *card, int m, int n, int k, bool fresh,
                            gg_record_fn fn, void *user, gg_records_info *info, char *err,
                            size_t errlen);

/* Appends one row (one write(), then fsync).  Non-finite numbers are
 * written as 0 (rel_err: empty); gflops is 0 unless the status is ok.
 * 0, or -1 with one line in err. */
int store_records_append(gg_records *r, const gg_variant *v, const gg_measurement *m, char *err,
                      size_t errlen);

const char *store_records_path(const gg_records *r);
void store_records_close(gg_records *r);

/* Reads the records of card and problem m x n x k without opening them for
 * a tune (no lock, nothing created, rewritten or cut: a tune may be
 * appending meanwhile): fn (may be NULL) gets every row that parses and is
 * of this card and problem, in file order; other lines are passed over.
 * *rows (may be NULL) counts them.  0; 1 when there is no records file;
 * -1 with one line in err when it cannot be read or its first line is no
 * records header. */
int store_records_scan(const char *dir, const char *card, int m, int n, int k, gg_record_fn fn,
                    void *user, long *rows, char *err, size_t errlen);
/* The same for a file of record rows at path (the records, or the
 * report's dips measured again), counting into *rows and *other (either
 * may be NULL; not reset) the rows handed over and the other lines past
 * the header.  0; 1 when it cannot be read, -1 when its first line is no
 * records header, each with one line in err. */
int store_records_scan_path(const char *path, const char *card, int m, int n, int k, gg_record_fn fn,
                         void *user, long *rows, long *other, char *err, size_t errlen);

/* Which rows store_records_fastest() looks at (user passed through). */
typedef bool (*gg_record_want)(void *user, const gg_variant *v);

/* The fastest row with status ok of the records (store_records_scan) that want
 * accepts (NULL: any): 1 with *v and *meas (either may be NULL) filled (the
 * first of equal ones); 0 when there is none, or no records file; -1 with
 * err as store_records_scan. */
int store_records_fastest(const char *dir, const char *card, int m, int n, int k,
                       gg_record_want want, void *user, gg_variant *v, gg_measurement *meas,
                       char *err, size_t errlen);

/* A gg_record_want: out=image and store=f32 (bench's best-image row). */
bool store_record_is_image_f32(void *user, const gg_variant *v);

/* Writes the best file of v's store atomically.  0, or -1 with one line in
 * err. */
int store_best_write(const char *dir, const char *card, int m, int n, int k, const gg_variant *v,
                  const gg_measurement *meas, char *err, size_t errlen);

/* Reads the first line of best-MxNxK.txt into v (its store as written: a
 * file from before the split may hold store=f16).  0, or -1 with err (no
 * file, no variant). */
int store_best_read(const char *dir, const char *card, int m, int n, int k, gg_variant *v,
                 double *gflops, char *err, size_t errlen);
/* The same for the best file of that store; another store's file must
 * hold a variant of that store (-1 otherwise). */
int store_best_read_store(const char *dir, const char *card, int m, int n, int k, gg_store store,
                       gg_variant *v, double *gflops, char *err, size_t errlen);
/* The one reader of best files (the above, store/nearest.h, glgemm gen
 * best): the variant of path's first line (up to the first blank) into v,
 * the number of its `gflops:` second line into *gflops (may be NULL; 0
 * without one, or when it is not a finite number >= 0).  The lines after
 * (seconds, rel_err, card, problem, written, remeasured) are not read.  0; GG_BEST_NONE when it cannot be opened, GG_BEST_EMPTY,
 * GG_BEST_BAD when the first line is not a variant; why says (the system's
 * reason, "empty file", the variant parser's message). */
enum { GG_BEST_NONE = 1, GG_BEST_EMPTY, GG_BEST_BAD };
int store_best_read_path(const char *path, gg_variant *v, double *gflops, char *why, size_t whylen);

/* The per-user records folder, which the library (glgemm.h) reads after
 * $GLGEMM_RESULTS and before the installed records: $XDG_DATA_HOME/glgemm/
 * results (an absolute XDG_DATA_HOME), else $HOME/.local/share/glgemm/
 * results, into buf; false when neither is set (or buf is too small). */
bool store_user_results(char *buf, size_t len);

/* Copies the best files of m x n x k (each store's that exists) from
 * from_dir/<card>/ to to_dir/<card>/, each written atomically.  Returns
 * how many were copied, or -1 with one line in err. */
int store_best_publish(const char *from_dir, const char *to_dir, const char *card, int m, int n,
                    int k, char *err, size_t errlen);

/* The card's crossover record (eval/crossover.h writes it): the N of its
 * line "crossover: N" in DIR/<card>/crossover.txt, or -1 when the file is
 * missing, unreadable or bad (store_crossover_parse). */
long store_crossover_read(const char *dir, const char *card);
/* The same for the file at path: 0 with *x the size; 1 when there is no
 * such file; -1 when it cannot be read, is larger than 1 MiB or is bad
 * (store_crossover_parse's -1 or 1: a file bench wrote has the line),
 * with one line in why that names the file. */
int store_crossover_read_path(const char *path, long *x, char *why, size_t whylen);
/* The record's text (len bytes, NULs and all): lines end at '\n' (a '\r'
 * before it is dropped); the one line that starts with "crossover:" must
 * be "crossover:", blanks (spaces or tabs), the decimal digits of N with
 * 0 <= N <= 2^20, optional blanks, and nothing else; the other lines (the
 * comments and table bench writes) are not read.  0 with *x = N; 1 when no
 * line starts with "crossover:"; -1 when that line is not so or there are
 * two, with one line in why (the line number and the line, control bytes
 * as '?').  Pure: no file, no global. */
int store_crossover_parse(const char *text, size_t len, long *x, char *why, size_t whylen);
/* The record's line for N: "crossover: N\n" into buf (what bench writes
 * and store_crossover_parse reads).  buf. */
char *store_crossover_line(char *buf, size_t len, long x);
#define GG_CROSSOVER_MAX (1L << 20)

#endif
