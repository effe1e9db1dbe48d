/* store/draw: the card's bound on the time of one draw (glhost/run.h "Long
 * draws"), in DIR/<card>/draw.txt, and which bound a run takes.  No GL.
 *
 * The file: '#' comment lines and one line "max_draw_ms: V", V a number of
 * milliseconds from 0 to GG_MAX_DRAW_MS_MAX (0: no bound, one draw a pass).
 * `glgemm probe` writes it where there is none (GG_MAX_DRAW_MS_DEFAULT, or
 * its --max-draw-ms), so a card's value can be set once and kept.
 *
 * The bound of a run, the first that is set: --max-draw-ms (run, tune,
 * bench), GLGEMM_MAX_DRAW_MS, the card's draw.txt in the first records
 * folder that has one, GG_MAX_DRAW_MS_DEFAULT. */
#ifndef GLGEMM_STORE_DRAW_H
#define GLGEMM_STORE_DRAW_H

#include <stddef.h>

/* A quarter of a second: far below the seconds of unfinished work after
 * which an H100 returned partly zero C, and long enough that the draws a
 * pass is cut into, and the glFinish after each quarter second of work,
 * cost nothing measurable (docs/notes/run.md, "Long draws"). */
#define GG_MAX_DRAW_MS_DEFAULT 250.0
#define GG_MAX_DRAW_MS_MAX 3600000.0

/* A bound as text: a finite number 0 .. GG_MAX_DRAW_MS_MAX, the whole
 * string.  0 with *ms, or -1. */
int store_draw_parse(const char *text, double *ms);

/* GLGEMM_MAX_DRAW_MS: 1 with *ms when set, 0 when unset or empty, -1 with
 * one line in err when it is no bound. */
int store_draw_env(double *ms, char *err, size_t errlen);

/* DIR/<card>/draw.txt: 1 with *ms, 0 when there is no such file, -1 with
 * one line in err when it is unreadable or holds no valid bound line. */
int store_draw_read(const char *dir, const char *card, double *ms, char *err, size_t errlen);

/* Writes DIR/<card>/draw.txt atomically (the card's folder made if
 * needed), with note as a comment line when not NULL.  0, or -1 with one
 * line in err. */
int store_draw_write(const char *dir, const char *card, double ms, const char *note, char *err,
                     size_t errlen);

/* The bound for the card (ms) when no --max-draw-ms was given: the
 * environment's, else the first of dirs[0 .. ndirs-1] with a valid
 * draw.txt, else the default (a bad variable or file counts as unset: the
 * front end and glgemm_open refuse a bad variable first).  src (may be
 * NULL) gets where it came from: "GLGEMM_MAX_DRAW_MS", the file's path or
 * "default". */
double store_draw_bound_ms(const char *const *dirs, int ndirs, const char *card, char *src,
                           size_t srclen);

#endif
