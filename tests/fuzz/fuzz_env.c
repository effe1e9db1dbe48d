/* Fuzz target: the environment's configuration of the library and the
 * drop-in BLAS (lib/env.c: GLGEMM_VERIFY, GLGEMM_CROSSOVER, GLGEMM_BACKEND,
 * GLGEMM_DEVICE, GLGEMM_LOG, GLGEMM_STAGING, GLGEMM_SPLIT_MIN,
 * GLGEMM_SPLIT_TILES, GLGEMM_WARMUP, GLGEMM_RESULTS, and the list of
 * GLGEMM_DEVICES) and of the program cache (glhost/
 * progcache_entry.c's host_pce_folder: GLGEMM_CACHE, GLGEMM_CACHE_DIR,
 * XDG_CACHE_HOME, HOME) and the tests' GLGEMM_FAULT (base_fault_parse).  The first byte picks the variable, the rest is
 * its value (for the cache: the four values, '\n' between them).
 * Invariants: a value is accepted exactly when lib/env.h's table says
 * (a word of the list, or decimal digits of a number <= 2^20, or empty);
 * an accepted value gives a result in range whose canonical text
 * (lib_env_format) parses to the same result and formats to the same
 * text; getenv's value (lib_env_get) reads as the text does; a refusal
 * leaves *out as it was and one line in err that names the variable, also
 * when err is short.  The cache's folder is the first of GLGEMM_CACHE_DIR,
 * XDG_CACHE_HOME/glgemm/programs (absolute only), HOME/.cache/glgemm/
 * programs, off only for "off", a value other than on/off/empty refused
 * with one line (and the cache left on).  GLGEMM_FAULT (base/fault.h,
 * tests only) is taken exactly when it is a known fault and, after ':', a
 * number 1 .. 10^9 without a leading zero.  GLGEMM_DEVICES is taken exactly
 * when it is "all", empty, or 1 .. GLGEMM_MAX_DEVICES numbers <= 2^20 of
 * decimal digits joined by single commas; its canonical text parses to the
 * same list. */
#include <stdbool.h>

#include "base/fault.h"
#include "glgemm.h"
#include "glhost/progcache_entry.h"
#include "lib/env.h"
#include "tests/fuzz/fuzz.h"

static bool digits_upto(const char *s, long max, long *v)
{
    size_t n = strlen(s), lead = 0;
    if (!n || strspn(s, "0123456789") != n)
        return false;
    while (lead + 1 < n && s[lead] == '0')
        lead++;
    if (n - lead > 7)
        return false;
    *v = strtol(s + lead, NULL, 10);
    return *v <= max;
}

/* What lib/env.h's table says of value: accepted, and the result. */
static bool oracle(int var, const char *value, long *x)
{
    bool unset = !*value;
    switch (var) {
    case LIB_ENV_VERIFY:
        *x = unset || !strcmp(value, "check") ? GLGEMM_VERIFY_CHECK
             : !strcmp(value, "none")         ? GLGEMM_VERIFY_NONE
             : !strcmp(value, "full")         ? GLGEMM_VERIFY_FULL
                                              : -1;
        return *x >= 0;
    case LIB_ENV_CROSSOVER:
        *x = -1;
        return unset || digits_upto(value, 1L << 20, x);
    case LIB_ENV_DEVICE:
        *x = 0;
        return unset || digits_upto(value, 1L << 20, x);
    case LIB_ENV_STAGING:
        *x = -1;
        return unset || digits_upto(value, LIB_ENV_STAGING_MAX, x);
    case LIB_ENV_SPLIT_MIN:
        *x = -1;
        return unset || digits_upto(value, 1L << 20, x);
    case LIB_ENV_SPLIT_TILES:
        *x = -1;
        return unset || (digits_upto(value, LIB_ENV_SPLIT_TILES_MAX, x) && *x >= 1);
    case LIB_ENV_BACKEND:
        *x = unset ? -1 : !strcmp(value, "egl") ? 0 : !strcmp(value, "glfw") ? 1 : -2;
        return *x >= -1;
    case LIB_ENV_WARMUP:
        *x = strcmp(value, "0") ? 1 : 0;
        return true;
    case LIB_ENV_RESULTS:
        *x = unset ? 0 : 1;
        return true;
    default: /* LIB_ENV_LOG */
        *x = unset ? LIB_ENV_LOG_NONE : !strcmp(value, "stderr") ? LIB_ENV_LOG_STDERR
                                                                : LIB_ENV_LOG_FILE;
        return true;
    }
}

static void one_lib_var(int var, const char *value)
{
    char err[256], canon[64], again[64];
    long x = -77, y = -77, want = -77;
    int rc = lib_env_parse(var, value, &x, err, sizeof err);
    bool ok = oracle(var, value, &want);
    FUZZ_CHECK((rc == 0) == ok, "%s='%s': rc %d, the table says %s", lib_env_names[var], value,
               rc, ok ? "good" : "bad");
    if (rc == 0) {
        FUZZ_CHECK(x == want, "%s='%s': %ld, want %ld", lib_env_names[var], value, x, want);
        lib_env_format(var, x, canon, sizeof canon);
        FUZZ_CHECK(lib_env_parse(var, canon, &y, err, sizeof err) == 0, "canonical '%s': %s",
                   canon, err);
        bool path = (var == LIB_ENV_LOG && x == LIB_ENV_LOG_FILE) ||
                    (var == LIB_ENV_RESULTS && x == 1);
        if (!path) /* a path is its own text */
            FUZZ_CHECK(y == x, "%s: '%s' -> %ld -> '%s' -> %ld", lib_env_names[var], value, x,
                       canon, y);
        FUZZ_CHECK(!strcmp(lib_env_format(var, y, again, sizeof again), canon) || path,
                   "'%s' then '%s'", canon, again);
    } else {
        FUZZ_CHECK(x == -77, "*out written on a refusal");
        FUZZ_CHECK(fuzz_one_line(err) && strstr(err, lib_env_names[var]) == err, "message '%s'",
                   err);
        char tiny[11];
        FUZZ_CHECK(lib_env_parse(var, value, &y, tiny, sizeof tiny) == -1 && strlen(tiny) < 11,
                   "short err");
    }
    /* The same through the process's environment. */
    FUZZ_CHECK(setenv(lib_env_names[var], value, 1) == 0, "setenv");
    y = -77;
    int grc = lib_env_get(var, &y, err, sizeof err);
    FUZZ_CHECK(grc == rc && (rc || y == x), "lib_env_get %d %ld, parse %d %ld", grc, y, rc, x);
    unsetenv(lib_env_names[var]);
}

static void cache_vars(char *value)
{
    char *part[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4 && value; i++) {
        part[i] = value;
        char *nl = strchr(value, '\n');
        if (nl)
            *nl = '\0';
        value = nl ? nl + 1 : NULL;
    }
    const char *cache = part[0], *dir = part[1], *xdg = part[2], *home = part[3];
    char err[256] = "", *folder = (char *)"not set";
    int rc = host_pce_folder(cache, dir, xdg, home, &folder, err, sizeof err);
    bool off = cache && !strcmp(cache, "off");
    bool bad = cache && *cache && !off && strcmp(cache, "on");
    FUZZ_CHECK(rc == (off ? 1 : bad ? -1 : 0), "GLGEMM_CACHE='%s': rc %d", cache ? cache : "(unset)",
               rc);
    if (bad)
        FUZZ_CHECK(fuzz_one_line(err) && strstr(err, "GLGEMM_CACHE="), "message '%s'", err);
    char want[2048] = "";
    if (off)
        ;
    else if (dir && *dir)
        snprintf(want, sizeof want, "%s", dir);
    else if (xdg && xdg[0] == '/')
        snprintf(want, sizeof want, "%s/glgemm/programs", xdg);
    else if (home && *home)
        snprintf(want, sizeof want, "%s/.cache/glgemm/programs", home);
    if (!want[0])
        FUZZ_CHECK(folder == NULL, "folder '%s', want none", folder);
    else
        FUZZ_CHECK(folder && !strcmp(folder, want), "folder '%s', want '%s'",
                   folder ? folder : "(none)", want);
    free(folder);
}

/* GLGEMM_FAULT (base/fault.c, tests only): <known fault>[:<n>], n decimal
 * digits without a leading zero, 1 .. GG_FAULT_EVAL_MAX. */
static void fault_var(const char *spec)
{
    int f = -7;
    long n = -7;
    int rc = base_fault_parse(spec, &f, &n);
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int want_f = -1;
    for (int i = 0; i < GG_FAULT_COUNT; i++)
        if (strlen(base_fault_names[i]) == len && !strncmp(spec, base_fault_names[i], len))
            want_f = i;
    long want_n = 0;
    bool ok = want_f >= 0;
    if (ok && colon) {
        const char *d = colon + 1;
        size_t nd = strlen(d);
        ok = nd >= 1 && nd <= 10 && strspn(d, "0123456789") == nd && d[0] != '0';
        if (ok)
            ok = (want_n = strtol(d, NULL, 10)) <= GG_FAULT_EVAL_MAX;
    }
    if (!*spec)
        FUZZ_CHECK(rc == 0, "empty GLGEMM_FAULT: %d", rc);
    else if (!ok)
        FUZZ_CHECK(rc == -1 && f == -7 && n == -7, "GLGEMM_FAULT='%s' taken", spec);
    else
        FUZZ_CHECK(rc == 1 && f == want_f && n == want_n, "GLGEMM_FAULT='%s': %d %d %ld", spec, rc,
                   f, n);
}

/* GLGEMM_DEVICES (lib_env_devices). */
static void devices_var(const char *value)
{
    int list[GLGEMM_MAX_DEVICES], n = -7, want[GLGEMM_MAX_DEVICES], nw = 0;
    char err[256], canon[256];
    int rc = lib_env_devices(value, list, &n, err, sizeof err);
    bool ok = true;
    if (!*value)
        nw = 0;
    else if (!strcmp(value, "all"))
        nw = -1;
    else
        for (const char *p = value; ok; p++) {
            size_t len = strspn(p, "0123456789");
            char *item = strndup(p, len);
            long v = 0;
            ok = item && len > 0 && nw < GLGEMM_MAX_DEVICES && digits_upto(item, 1L << 20, &v);
            if (ok)
                want[nw++] = (int)v;
            free(item);
            p += len;
            ok = ok && (*p == ',' || !*p);
            if (!ok || !*p)
                break;
        }
    FUZZ_CHECK((rc == 0) == ok, "GLGEMM_DEVICES='%s': rc %d, want %s", value, rc,
               ok ? "good" : "bad");
    if (rc) {
        FUZZ_CHECK(n == -7 && fuzz_one_line(err) && strstr(err, "GLGEMM_DEVICES=") == err,
                   "message '%s'", err);
        return;
    }
    FUZZ_CHECK(n == nw, "GLGEMM_DEVICES='%s': %d devices, want %d", value, n, nw);
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(list[i] == want[i], "GLGEMM_DEVICES='%s': [%d] %d, want %d", value, i,
                   list[i], want[i]);
    int again[GLGEMM_MAX_DEVICES], na = -7;
    lib_env_devices_format(list, n, canon, sizeof canon);
    FUZZ_CHECK(lib_env_devices(canon, again, &na, err, sizeof err) == 0 && na == n &&
                   (n <= 0 || !memcmp(again, list, (size_t)n * sizeof *list)),
               "canonical '%s' of '%s'", canon, value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1024)
        return 0;
    char *value = fuzz_cstring(data + 1, size - 1);
    if (!value)
        return 0;
    /* The first byte picks the variable (the seeds in corpus/env/ are
     * written for this numbering: the first six LIB_ENV_* in lib/env.h's
     * order, the cache's, GLGEMM_FAULT, then the LIB_ENV_* after the six up
     * to GLGEMM_SPLIT_TILES, then GLGEMM_DEVICES, then GLGEMM_WARMUP and
     * GLGEMM_RESULTS: a seed's first byte below 11 picks what it did before
     * these two came). */
    enum { OLD = LIB_ENV_SPLIT_MIN, DEVICES = LIB_ENV_WARMUP + 2 };
    int pick = data[0] % (LIB_ENV_COUNT + 3);
    if (pick < OLD)
        one_lib_var(pick, value);
    else if (pick == OLD)
        cache_vars(value);
    else if (pick == OLD + 1)
        fault_var(value);
    else if (pick < DEVICES)
        one_lib_var(pick - 2, value);
    else if (pick == DEVICES)
        devices_var(value);
    else
        one_lib_var(pick - 3, value);
    free(value);
    return 0;
}
