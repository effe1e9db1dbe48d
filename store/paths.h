/* store/paths: the names of the files in a records folder (SPEC.md
 * "Files"), the one place that knows them.  No GL here.
 *
 * DIR is a records folder (results/, $GLGEMM_RESULTS, the per-user one);
 * each card has its folder DIR/<card>/ (card: base/slug.h), holding:
 *    tune-MxNxK.csv            the tuning records (store/records.h)
 *    best-MxNxK.txt            the best store=f32 variant; another store's
 *    best-<store>-MxNxK.txt    best (best-f16-MxNxK.txt) (store/records.h)
 *    bench-MxNxK.csv           glgemm bench's rows (eval/bench.h)
 *    probe.csv                 glgemm probe's rates (base/probe_data.h)
 *    crossover.txt             glgemm bench --crossover (eval/crossover.h)
 *    draw.txt                  the bound on one draw's time (store/draw.h)
 *    dips-MxNxK.csv            the report's second measurements of dips
 *    tune-MxNxK-summary.txt    the tuner's summary (make's tune targets)
 *    environment.txt           the report's record of the machine
 *    report.md, report-MxNxK.md, fig5-MxNxK.svg, ...: the report
 * Each function writes its path into buf (cut to len, as snprintf) and
 * returns buf; store_path_cut() says whether it was cut. */
#ifndef GLGEMM_STORE_PATHS_H
#define GLGEMM_STORE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/gen.h"

#define GG_REPORT_MD "report.md" /* the report's default name */

/* Whether a path written into buf (len bytes) was cut short. */
bool store_path_cut(const char *buf, size_t len);

/* DIR/<card>, and DIR/<card>/name (a name listed there, the report's). */
char *store_card_dir(char *buf, size_t len, const char *dir, const char *card);
char *store_card_file(char *buf, size_t len, const char *dir, const char *card, const char *name);

/* DIR/<card>/tune-MxNxK.csv. */
char *store_records_file(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k);
/* Whether name is a records file's (tune-MxNxK.csv, M, N, K >= 1, exactly
 * as store_records_file writes it), with its size. */
bool store_records_name_parse(const char *name, int *m, int *n, int *k);

/* DIR/<card>/best-MxNxK.txt: the store=f32 best. */
char *store_best_path(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k);
/* The best file of that store: store=f32's as above, another store's
 * DIR/<card>/best-<store>-MxNxK.txt (best-f16-MxNxK.txt). */
char *store_best_path_store(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                         int k, gg_store store);
/* What that store's best file names start with: "best-", "best-f16-". */
char *store_best_prefix(char *buf, size_t len, gg_store store);
/* Whether name is a best file's (best-MxNxK.txt or best-<store>-MxNxK.txt,
 * M, N, K >= 1, exactly as store_best_path_store writes it: no sign, blank
 * or leading zero), with its size and store. */
bool store_best_name_parse(const char *name, int *m, int *n, int *k, gg_store *store);

/* DIR/<card>/bench-MxNxK.csv. */
char *store_bench_path(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k);
/* DIR/<card>/probe.csv. */
char *store_probe_path(char *buf, size_t len, const char *dir, const char *card);
/* DIR/<card>/crossover.txt. */
char *store_crossover_path(char *buf, size_t len, const char *dir, const char *card);
/* DIR/<card>/draw.txt. */
char *store_draw_path(char *buf, size_t len, const char *dir, const char *card);
/* DIR/<card>/dips-MxNxK.csv. */
char *store_report_again_path(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                           int k);
/* DIR/<card>/tune-MxNxK-summary.txt. */
char *store_summary_path(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                      int k);
/* DIR/<card>/environment.txt. */
char *store_environment_path(char *buf, size_t len, const char *dir, const char *card);

/* File names (no folder) in DIR/<card>/: the report of another problem
 * size, report-MxNxK.md; a figure, <fig>-MxNxK.svg (fig5, fig7a, ...). */
char *store_report_md_name(char *buf, size_t len, int m, int n, int k);
void store_report_figure_name(char *buf, size_t len, const char *fig, int m, int n, int k);

#endif
