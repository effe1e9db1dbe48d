/* lib/split: one GEMM's C cut into tiles and served by several devices at
 * once (glgemm_open_devices, GLGEMM_DEVICES).  A GL context stays with the
 * thread that made it, so each device has a thread of its own that opens
 * the device's context on itself, serves the tiles it takes from one queue
 * (a slower device takes fewer) and closes the context at the end.  The
 * caller's thread hands the tiles out and waits.  The GEMM is the caller's
 * (lib/devices.c): here a tile is a rectangle of an m x n C and the work is
 * callbacks.  No GL here.
 *
 * Contract:
 *  - lib_split_open: a thread a device (a device may be named twice: two
 *    contexts on it), each calling ops->open(user, slot, device) on itself,
 *    all at once; NULL unless every one opened (err: the first failure in
 *    list order; the contexts that opened are closed on their threads).
 *  - lib_split_grid: the tiles for a run: a rows x cols grid of about
 *    `tiles` tiles over C, as square as the grid allows (square tiles move
 *    the least: a tile uploads its h x k of A and k x w of B), each h x w
 *    but the last row's and column's, none empty.
 *  - lib_split_run: the grid's tiles, row by row.  Tile i < L (L the
 *    devices in service) is the i-th such device's first, so that every one
 *    takes part; the others go to whichever device asks first.
 *    ops->run(dev, slot, job, tile) runs on the device's thread.  A tile
 *    whose run fails (not 0):
 *      LIB_SPLIT_RETIRE: the device is retired (given no tile again, in
 *        this run or a later one), its tile goes back to the queue for the
 *        others; with no device left, the caller's thread computes the rest
 *        with ops->cpu(job, tile).  Returns 0: every tile done.
 *      LIB_SPLIT_STRICT: no tile is handed out after it; once the tiles in
 *        flight are done, returns its code and its line in why.  No device
 *        is retired.
 *    The tiles are disjoint; a run callback touches its own tile's part of
 *    the caller's data.
 *  - Runs are one at a time.  Between runs the devices' threads are idle:
 *    the caller may read and set their contexts (lib_split_dev); the
 *    queue's lock orders that before the next run's work.
 *  - lib_split_close: ops->close on each device's thread, threads joined. */
#ifndef GLGEMM_LIB_SPLIT_H
#define GLGEMM_LIB_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

/* A tile of C: rows r0 .. r1-1, columns c0 .. c1-1; its index in the grid. */
typedef struct {
    int r0, r1, c0, c1;
    int index;
} lib_tile;

/* A grid of rows x cols tiles, each h x w but the last row's and column's. */
typedef struct {
    int rows, cols, h, w;
} lib_grid;

typedef struct {
    /* On the device's thread: its context, or NULL with one line in err. */
    void *(*open)(void *user, int slot, int device, char *err, size_t errlen);
    /* On the device's thread: 0, or an error code with one line in why. */
    int (*run)(void *dev, int slot, void *job, const lib_tile *t, char *why, size_t whylen);
    /* On the caller's thread (no device left): the tile, never failing. */
    void (*cpu)(void *job, const lib_tile *t);
    /* On the device's thread. */
    void (*close)(void *dev);
} lib_split_ops;

enum { LIB_SPLIT_RETIRE, LIB_SPLIT_STRICT };

/* A device's state after a run. */
enum { LIB_SPLIT_LIVE, LIB_SPLIT_RETIRED_NOW /* in the last run */, LIB_SPLIT_RETIRED };

typedef struct lib_split lib_split;

lib_split *lib_split_open(const int *devices, int n, const lib_split_ops *ops, void *user,
                          char *err, size_t errlen);
void lib_split_close(lib_split *s); /* NULL is fine */

/* About `tiles` tiles (>= 1) over an m x n C (m, n >= 1). */
lib_grid lib_split_grid(int m, int n, int tiles);
int lib_grid_count(const lib_grid *g);
lib_tile lib_grid_tile(const lib_grid *g, int m, int n, int i);

/* 0 (every tile done), a strict run's failure (its code, why), or -1 (no
 * memory for the tiles' states, why; nothing run). */
int lib_split_run(lib_split *s, int mode, void *job, int m, int n, const lib_grid *grid,
                  char *why, size_t whylen);

int lib_split_count(const lib_split *s);          /* the devices, as opened */
int lib_split_live(const lib_split *s);           /* those not retired */
int lib_split_device(const lib_split *s, int slot); /* its device index */
void *lib_split_dev(const lib_split *s, int slot);  /* its context */
int lib_split_state(const lib_split *s, int slot);  /* LIB_SPLIT_* */
const char *lib_split_why(const lib_split *s, int slot); /* why retired, "" */
/* Tiles of the last run served by slot's device; slot -1: by ops->cpu. */
long lib_split_served(const lib_split *s, int slot);

#endif
