/* lib/env: the environment variables of the library (glgemm.h) and of the
 * drop-in BLAS (lib/blas.c), each read by one pure function of its text (no
 * getenv, no global, no side effect), so that the library (lib/context.c,
 * lib/devices.c, lib/run.c, lib/records.c, lib/api.c), lib/blas.c, the
 * CLI's check and the fuzz target tests/fuzz/fuzz_env.c run the same code.
 * NULL and "" mean unset: the default.  No GL here.
 *
 *   variable          value                            unset       read by, and a bad value
 *   GLGEMM_VERIFY     none, check or full              check       glgemm_open: fails
 *   GLGEMM_CROSSOVER  decimal digits, 0 .. 2^20        -1 (the     glgemm_open: fails
 *                                                      record's)
 *   GLGEMM_BACKEND    egl or glfw                      -1 (egl)    the drop-in: no context,
 *   GLGEMM_DEVICE     decimal digits, 0 .. 2^20        0             calls passed on
 *   GLGEMM_LOG        stderr, or a file to append to   no log      the drop-in (never bad)
 *   GLGEMM_STAGING    decimal digits, 0 .. 4096 (MiB)  -1 (16)     glgemm_open: fails
 *   GLGEMM_SPLIT_MIN  decimal digits, 0 .. 2^20        -1 (2048)   glgemm_open: fails
 *   GLGEMM_SPLIT_TILES decimal digits, 1 .. 64         -1 (2)      glgemm_open: fails
 *   GLGEMM_DEVICES    a list of device indices (0,1;   none        glgemm_open: fails
 *                     0,0), at most GLGEMM_MAX_DEVICES,
 *                     or all (lib_env_devices)
 *   GLGEMM_WARMUP     0: none; any other value: on     1 (on)      glgemm_open (never bad)
 *   GLGEMM_RESULTS    a records folder, its path       0 (none)    glgemm_open and the calls
 *                     read by lib_env_text                           (never bad)
 *
 * A bad value: -1 and one line in err, "GLGEMM_X=value is not ...", the
 * value cut at 100 bytes and its control bytes written as '?'. */
#ifndef GLGEMM_LIB_ENV_H
#define GLGEMM_LIB_ENV_H

#include <stddef.h>

enum { LIB_ENV_VERIFY, LIB_ENV_CROSSOVER, LIB_ENV_BACKEND, LIB_ENV_DEVICE, LIB_ENV_LOG,
       LIB_ENV_STAGING, LIB_ENV_SPLIT_MIN, LIB_ENV_SPLIT_TILES, LIB_ENV_WARMUP,
       LIB_ENV_RESULTS, LIB_ENV_COUNT };
/* GLGEMM_STAGING's largest value (MiB). */
#define LIB_ENV_STAGING_MAX 4096
/* GLGEMM_SPLIT_TILES's largest value. */
#define LIB_ENV_SPLIT_TILES_MAX 64
/* GLGEMM_LOG's values. */
enum { LIB_ENV_LOG_NONE, LIB_ENV_LOG_STDERR, LIB_ENV_LOG_FILE };

/* "GLGEMM_VERIFY", ... by LIB_ENV_*. */
extern const char *const lib_env_names[LIB_ENV_COUNT];

/* Parses value (NULL or "": unset) of variable var into *out: a
 * GLGEMM_VERIFY_* level, the crossover size (-1 unset), a gg_backend (-1
 * unset), the device index, a LIB_ENV_LOG_* kind, the staging reserve in MiB
 * (-1 unset), the split's least size and tiles a device (-1 unset), the
 * warm-up (0 off, 1 on), whether a records folder is named (0 or 1; its
 * path: lib_env_text).  0, or -1 with one line in err (*out untouched). */
int lib_env_parse(int var, const char *value, long *out, char *err, size_t errlen);

/* lib_env_parse of the process's environment (getenv). */
int lib_env_get(int var, long *out, char *err, size_t errlen);

/* The process's text of var (getenv), NULL when unset or "": for the
 * variables whose value is a path (GLGEMM_LOG's file, GLGEMM_RESULTS). */
const char *lib_env_text(int var);

/* The canonical text of x for var (what lib_env_parse maps to x; "" for
 * unset; GLGEMM_LOG's file and GLGEMM_RESULTS's folder: "" as well, the path
 * being the value itself).
 * buf. */
char *lib_env_format(int var, long x, char *buf, size_t len);

/* GLGEMM_DEVICES's text (NULL or "": unset): the device indices, decimal
 * digits (0 .. 2^20 each) joined by single commas, 1 .. GLGEMM_MAX_DEVICES
 * of them, a device may come twice; or "all".  *n: how many into list
 * (room for GLGEMM_MAX_DEVICES), 0 unset, -1 "all".  0, or -1 with one
 * line in err (*n and list untouched). */
int lib_env_devices(const char *value, int *list, int *n, char *err, size_t errlen);

/* The canonical text of a list of n (-1: "all", 0: ""), into buf. */
char *lib_env_devices_format(const int *list, int n, char *buf, size_t len);

/* s for a message: at most 100 bytes ("..." after), control bytes as '?'.
 * buf. */
char *lib_env_quote(const char *s, char *buf, size_t len);

#endif
