/* store/nearest: the tuned variant of the recorded problem size nearest to
 * a problem, from a results directory (SPEC.md "Files").  No GL here.
 *
 * Contract: DIR/<card>/best-MxNxK.txt files are the candidates (their first
 * line a variant, as store/records.h writes them; files whose name or first
 * line does not parse are passed over).  Nearest is the smallest
 * |ln(m/M)| + |ln(n/N)| + |ln(k/K)|; ties go to the larger M*N*K, then to the
 * smaller (M, N, K) in order, so the choice does not depend on the order
 * readdir() gives. */
#ifndef GLGEMM_NEAREST_H
#define GLGEMM_NEAREST_H

#include <stddef.h>

#include "gen/gen.h"

typedef struct {
    gg_variant v;
    int m, n, k;     /* the recorded problem */
    double gflops;   /* its measured rate (the file's gflops line), 0 when it gives none */
    char path[768];  /* its best file */
} gg_nearest;

/* 0 and out filled, or -1 when DIR/<card>/ holds no usable best file. */
int store_best_nearest(const char *dir, const char *card, int m, int n, int k, gg_nearest *out);
/* The same among the best files of that store (gen/gen.h's gg_store:
 * best-MxNxK.txt for f32, best-f16-MxNxK.txt for f16) whose variant has it;
 * -1: any variant of the best-MxNxK.txt files, as store_best_nearest. */
int store_best_nearest_store(const char *dir, const char *card, int m, int n, int k, int store,
                          gg_nearest *out);

/* The best variant of that store for m x n x k, as `best` means it in run,
 * gen and bench: its own best file, else the nearest recorded problem's (as
 * the library chooses).  from gets "MxNxK (path)" of the record taken, ""
 * when it is the problem's own.  0, or -1 with one line in err: an own best
 * file that does not read, or no best file of that store for the card. */
int store_best_for(const char *dir, const char *card, int m, int n, int k, int store,
                   gg_variant *v, char *from, size_t fromlen, char *err, size_t errlen);

#endif
