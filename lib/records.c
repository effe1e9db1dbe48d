/* Where the tuning records are ($GLGEMM_RESULTS, the user's, the
 * installation's, ./results) and what they say for a context's card: the
 * variant chosen for a problem, the crossover, the bound on one draw. */
#define _GNU_SOURCE /* dladdr */
#include "lib/internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/env.h"
#include "store/draw.h"
#include "store/records.h"

/* PREFIX/share/glgemm/results for the file this code was loaded from
 * (PREFIX/lib/libglgemm.so or PREFIX/bin/glgemm). */
static bool installed_results(char *buf, size_t len)
{
    Dl_info di;
    char self[PATH_MAX], real[PATH_MAX];
    const char *file = NULL;
    if (dladdr((void *)installed_results, &di) && di.dli_fname && strchr(di.dli_fname, '/'))
        file = di.dli_fname;
    else {
        ssize_t r = readlink("/proc/self/exe", self, sizeof self - 1);
        if (r <= 0)
            return false;
        self[r] = '\0';
        file = self;
    }
    if (!realpath(file, real))
        return false;
    char *slash = strrchr(real, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return (size_t)snprintf(buf, len, "%s/../share/glgemm/results", real) < len;
}

/* The records folders in the order they count: $GLGEMM_RESULTS, the user's,
 * the installation's, ./results.  Returns how many (at most 4). */
typedef struct {
    char user[PATH_MAX], inst[PATH_MAX + 32];
    const char *dir[4];
} records_dirs;

static int find_records_dirs(records_dirs *d)
{
    int nd = 0;
    const char *env = lib_env_text(LIB_ENV_RESULTS);
    if (env)
        d->dir[nd++] = env;
    if (store_user_results(d->user, sizeof d->user))
        d->dir[nd++] = d->user;
    if (installed_results(d->inst, sizeof d->inst))
        d->dir[nd++] = d->inst;
    d->dir[nd++] = "results";
    return nd;
}

/* The recorded variant nearest m x n x k for this card, if any: from the
 * first folder with a record for the card. */
static bool recorded_store(const glgemm_context *ctx, int m, int n, int k, int store,
                           gg_nearest *rec)
{
    records_dirs d;
    int nd = find_records_dirs(&d);
    for (int i = 0; i < nd; i++) {
        gg_nearest near;
        /* fp32 records only: a caller of sgemm asked for fp32 inputs, and a
         * store=f16 best rounds them to halves (a precision of its own, not
         * what the library promises), so it is passed over, never used
         * silently; the nearest fp32 best (or the default) serves. */
        if (store_best_nearest_store(d.dir[i], ctx->card, m, n, k, store, &near) == 0) {
            *rec = near;
            return true;
        }
    }
    return false;
}

/* The same, remembered for the context's last few problems (a program
 * calling sgemm in a loop reads the folders once). */
bool lib_recorded(glgemm_context *ctx, int m, int n, int k, gg_nearest *rec)
{
    size_t nm = sizeof ctx->memo / sizeof *ctx->memo;
    /* A best file written (atomically: a rename) changes its folder's
     * modification time: then the memo is read again. */
    records_dirs d;
    int nd = find_records_dirs(&d);
    uint64_t stamp = 1469598103934665603ULL;
    for (int i = 0; i < nd; i++) {
        char path[PATH_MAX + 200];
        struct stat st;
        store_card_dir(path, sizeof path, d.dir[i], ctx->card);
        uint64_t t = stat(path, &st) ? 0
                                     : (uint64_t)st.st_mtim.tv_sec * 1000000000ULL +
                                           (uint64_t)st.st_mtim.tv_nsec + (uint64_t)st.st_ino;
        stamp = (stamp ^ t) * 1099511628211ULL;
    }
    if (stamp != ctx->memo_stamp) {
        memset(ctx->memo, 0, sizeof ctx->memo);
        ctx->memo_next = 0;
        ctx->memo_stamp = stamp;
    }
    for (size_t i = 0; i < nm; i++)
        if (ctx->memo[i].m == m && ctx->memo[i].n == n && ctx->memo[i].k == k) {
            *rec = ctx->memo[i].rec;
            return ctx->memo[i].have;
        }
    bool have = recorded_store(ctx, m, n, k, GG_STORE_F32, rec);
    int i = ctx->memo_next;
    ctx->memo_next = (int)((size_t)(i + 1) % nm);
    ctx->memo[i].m = m;
    ctx->memo[i].n = n;
    ctx->memo[i].k = k;
    ctx->memo[i].have = have;
    if (have)
        ctx->memo[i].rec = *rec;
    return have;
}

/* The card's crossover record: "crossover: N" in <card>/crossover.txt of
 * the first records folder with a good one; -1 when none says.  A bad
 * record (store_crossover_parse) is passed over, said once a process on
 * stderr (one line). */
long lib_recorded_crossover(const char *card)
{
    static atomic_int told;
    records_dirs d;
    int nd = find_records_dirs(&d);
    long x = -1;
    for (int i = 0; i < nd; i++) {
        char path[PATH_MAX + 64], why[PATH_MAX + 300];
        store_crossover_path(path, sizeof path, d.dir[i], card);
        int rc = store_crossover_read_path(path, &x, why, sizeof why);
        if (rc == 0)
            return x;
        if (rc < 0 && !atomic_exchange(&told, 1))
            fprintf(stderr, "glgemm: crossover record %s; not used\n", why);
    }
    return -1;
}

/* The bound on one draw: GLGEMM_MAX_DRAW_MS, else the card's draw.txt in
 * the first records folder that has one, else the default. */
double lib_recorded_draw_ms(const char *card)
{
    records_dirs d;
    int nd = find_records_dirs(&d);
    return store_draw_bound_ms(d.dir, nd, card, NULL, 0);
}

void lib_default_variant(gg_variant *v)
{
    char err[160];
    if (gen_variant_parse(GLGEMM_DEFAULT_VARIANT, NULL, v, err, sizeof err))
        gen_variant_default(v); /* not reached: the suite parses the default */
}

/* What glgemm_sgemm runs for a row-major m x n x k problem. */
void lib_choose(glgemm_context *ctx, int m, int n, int k, gg_variant *v)
{
    gg_nearest rec;
    if (lib_recorded(ctx, m, n, k, &rec)) {
        *v = rec.v;
        bool bad = false;
        for (int i = 0; i < ctx->nfailed; i++)
            bad = bad || gen_variant_equal(&ctx->failed[i], v);
        if (!bad)
            return;
    }
    lib_default_variant(v);
}

void lib_default_dvariant(gg_variant *v)
{
    char err[160];
    if (gen_variant_parse(GLGEMM_DEFAULT_DVARIANT, NULL, v, err, sizeof err))
        gen_variant_default(v); /* not reached: the suite parses the default */
}

/* What glgemm_dgemm runs: the card's store=f64 best nearest the problem
 * (read from the folders at each call: dgemm keeps no memo), unless it
 * failed on this context, else the default. */
void lib_choose_f64(glgemm_context *ctx, int m, int n, int k, gg_variant *v, bool *recorded)
{
    gg_nearest rec;
    *recorded = false;
    if (recorded_store(ctx, m, n, k, GG_STORE_F64, &rec) && rec.v.store == GG_STORE_F64) {
        bool bad = false;
        for (int i = 0; i < ctx->nfailed; i++)
            bad = bad || gen_variant_equal(&ctx->failed[i], &rec.v);
        if (!bad) {
            *v = rec.v;
            *recorded = true;
            return;
        }
    }
    lib_default_dvariant(v);
}
