/* The library's environment: see lib/env.h. */
#include "lib/env.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glgemm.h"
#include "glhost/context.h"

#define WHOLE_MAX (1L << 20)

const char *const lib_env_names[LIB_ENV_COUNT] = {
    "GLGEMM_VERIFY", "GLGEMM_CROSSOVER", "GLGEMM_BACKEND", "GLGEMM_DEVICE", "GLGEMM_LOG",
    "GLGEMM_STAGING", "GLGEMM_SPLIT_MIN", "GLGEMM_SPLIT_TILES", "GLGEMM_WARMUP",
    "GLGEMM_RESULTS",
};

static const char *const verify_names[] = {"none", "check", "full"};

char *lib_env_quote(const char *s, char *buf, size_t len)
{
    size_t o = 0, i = 0;
    for (; s[i] && i < 100 && o + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (s[i])
        for (int d = 0; d < 3 && o + 1 < len; d++)
            buf[o++] = '.';
    if (len)
        buf[o] = '\0';
    return buf;
}

/* Decimal digits only (no sign, no blank), at most WHOLE_MAX. */
static bool whole(const char *s, long *out)
{
    long v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (*s - '0');
        if (v > WHOLE_MAX)
            return false;
    }
    *out = v;
    return true;
}

int lib_env_parse(int var, const char *value, long *out, char *err, size_t errlen)
{
    bool unset = !value || !*value;
    long x = -1;
    const char *want = NULL;
    switch (var) {
    case LIB_ENV_VERIFY:
        x = GLGEMM_VERIFY_CHECK;
        if (!unset) {
            x = -1;
            for (int i = 0; i < 3; i++)
                if (!strcmp(value, verify_names[i]))
                    x = i;
            want = "none, check or full";
        }
        break;
    case LIB_ENV_CROSSOVER:
    case LIB_ENV_SPLIT_MIN:
    case LIB_ENV_DEVICE:
        x = var == LIB_ENV_DEVICE ? 0 : -1;
        if (!unset && !whole(value, &x)) {
            x = -1;
            want = var == LIB_ENV_DEVICE ? "a device index, a whole number from 0 to 1048576"
                                         : "a whole number from 0 to 1048576";
        }
        break;
    case LIB_ENV_STAGING:
        if (!unset && (!whole(value, &x) || x > LIB_ENV_STAGING_MAX)) {
            x = -1;
            want = "a whole number of MiB from 0 to 4096";
        }
        break;
    case LIB_ENV_SPLIT_TILES:
        if (!unset && (!whole(value, &x) || x < 1 || x > LIB_ENV_SPLIT_TILES_MAX)) {
            x = -1;
            want = "a whole number of tiles a device from 1 to 64";
        }
        break;
    case LIB_ENV_BACKEND:
        if (!unset) {
            x = host_backend_parse(value);
            if (x == GG_BACKEND_BROWSER) /* a page's WebGL2, not a context in this process */
                x = -1;
            want = "egl or glfw";
        }
        break;
    case LIB_ENV_LOG:
        x = unset ? LIB_ENV_LOG_NONE : !strcmp(value, "stderr") ? LIB_ENV_LOG_STDERR
                                                                 : LIB_ENV_LOG_FILE;
        break;
    case LIB_ENV_WARMUP: /* "0" alone turns it off */
        x = unset || strcmp(value, "0") ? 1 : 0;
        break;
    case LIB_ENV_RESULTS: /* a folder: the path is the value itself */
        x = unset ? 0 : 1;
        break;
    default:
        snprintf(err, errlen, "lib_env_parse: no variable %d", var);
        return -1;
    }
    if (want && x < 0) {
        char q[110];
        snprintf(err, errlen, "%s=%s is not %s", lib_env_names[var],
                 lib_env_quote(value, q, sizeof q), want);
        return -1;
    }
    *out = x;
    return 0;
}

int lib_env_get(int var, long *out, char *err, size_t errlen)
{
    if (var < 0 || var >= LIB_ENV_COUNT)
        return lib_env_parse(var, NULL, out, err, errlen);
    return lib_env_parse(var, getenv(lib_env_names[var]), out, err, errlen);
}

const char *lib_env_text(int var)
{
    const char *v = var >= 0 && var < LIB_ENV_COUNT ? getenv(lib_env_names[var]) : NULL;
    return v && *v ? v : NULL;
}

char *lib_env_format(int var, long x, char *buf, size_t len)
{
    const char *s = "";
    char num[24];
    switch (var) {
    case LIB_ENV_VERIFY:
        s = x >= 0 && x < 3 ? verify_names[x] : "";
        break;
    case LIB_ENV_CROSSOVER:
    case LIB_ENV_DEVICE:
    case LIB_ENV_STAGING:
    case LIB_ENV_SPLIT_MIN:
    case LIB_ENV_SPLIT_TILES:
        if (x >= 0) {
            snprintf(num, sizeof num, "%ld", x);
            s = num;
        }
        break;
    case LIB_ENV_BACKEND:
        s = x >= 0 ? host_backend_name((gg_backend)x) : "";
        break;
    case LIB_ENV_LOG:
        s = x == LIB_ENV_LOG_STDERR ? "stderr" : "";
        break;
    case LIB_ENV_WARMUP:
        s = x == 0 ? "0" : "";
        break;
    }
    snprintf(buf, len, "%s", s);
    return buf;
}

int lib_env_devices(const char *value, int *list, int *n, char *err, size_t errlen)
{
    if (!value || !*value) {
        *n = 0;
        return 0;
    }
    if (!strcmp(value, "all")) {
        *n = -1;
        return 0;
    }
    int got[GLGEMM_MAX_DEVICES], count = 0;
    bool ok = true;
    /* items of decimal digits, each <= WHOLE_MAX, a comma between two */
    for (const char *p = value; ok; p++) {
        long x = 0;
        const char *d = p;
        for (; ok && *d >= '0' && *d <= '9'; d++)
            ok = (x = x * 10 + (*d - '0')) <= WHOLE_MAX;
        ok = ok && d > p && count < GLGEMM_MAX_DEVICES && (*d == ',' || !*d);
        if (ok)
            got[count++] = (int)x;
        p = d;
        if (!ok || !*p)
            break;
    }
    if (!ok) {
        char q[110];
        snprintf(err, errlen, "GLGEMM_DEVICES=%s is not all or a list of 1 to %d device "
                 "indices joined by commas (0,1; a device may come twice: 0,0)",
                 lib_env_quote(value, q, sizeof q), GLGEMM_MAX_DEVICES);
        return -1;
    }
    memcpy(list, got, (size_t)count * sizeof *got);
    *n = count;
    return 0;
}

char *lib_env_devices_format(const int *list, int n, char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    if (n < 0)
        snprintf(buf, len, "all");
    for (int i = 0; i < n && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%d", i ? "," : "", list[i]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}
