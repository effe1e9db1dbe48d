/* 2-D float32 .npy files (NumPy format 1.0; 2.0 and 3.0 headers read too).
 * No GL here.
 *
 * Contract:
 *  - Only one kind of array is accepted: dtype '<f4', fortran_order False,
 *    shape (rows, cols) with rows, cols >= 1 and rows*cols*4 bytes of data
 *    exactly: nothing missing, nothing after it.  Anything else fails with -1
 *    and one line in err naming the problem (no trailing newline).
 *  - The header is parsed strictly: a Python dict literal with exactly the
 *    keys 'descr', 'fortran_order' and 'shape' (any order, each once, an
 *    optional trailing comma), followed only by spaces and a newline.
 *  - base_npy_write() is atomic: it writes a temporary file in the destination's
 *    directory (named ".<name>.tmp-XXXXXX"), fsyncs it and renames it over
 *    the destination.  On any failure the temporary file is removed and the
 *    destination is untouched (absent or the old file).  A destination that
 *    exists with no write permission bit, or is not a regular file, is
 *    refused (even for root).
 */
#ifndef GLGEMM_NPY_H
#define GLGEMM_NPY_H

#include <stddef.h>

/* The largest number of elements a file may hold (2^31 - 1 floats). */
#define GG_NPY_MAX_ELEMS 2147483647LL

/* Parses an in-memory .npy image (len bytes).  On success returns 0 with
 * *data malloc'd (rows*cols floats, row-major) and *rows, *cols set; on
 * failure returns -1, leaves *data NULL and writes one line to err. */
int base_npy_parse(const unsigned char *buf, size_t len, float **data, int *rows,
                 int *cols, char *err, size_t errlen);

/* Reads the file at path, as base_npy_parse() does.  Messages name the path. */
int base_npy_read(const char *path, float **data, int *rows, int *cols, char *err,
                size_t errlen);

/* Serialises rows x cols floats as a version 1.0 .npy image, malloc'd, its
 * length in *len.  NULL when out of memory or rows/cols are not >= 1. */
unsigned char *base_npy_encode(const float *data, int rows, int cols, size_t *len);

/* Writes atomically (see above).  Returns 0, or -1 with one line in err. */
int base_npy_write(const char *path, const float *data, int rows, int cols, char *err,
                 size_t errlen);

#endif
