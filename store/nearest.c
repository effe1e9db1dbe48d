/* The nearest recorded best: see nearest.h. */
#include "store/nearest.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "store/paths.h"
#include "store/records.h"

static double distance(int m, int n, int k, int M, int N, int K)
{
    return fabs(log((double)m / M)) + fabs(log((double)n / N)) + fabs(log((double)k / K));
}

/* a is a better candidate than b (equal distance handled here). */
static bool better(double da, const int a[3], double db, const int b[3])
{
    if (da != db)
        return da < db;
    double va = (double)a[0] * a[1] * a[2], vb = (double)b[0] * b[1] * b[2];
    if (va != vb)
        return va > vb;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return false;
}

int store_best_nearest(const char *dir, const char *card, int m, int n, int k, gg_nearest *out)
{
    return store_best_nearest_store(dir, card, m, n, k, -1, out);
}

int store_best_nearest_store(const char *dir, const char *card, int m, int n, int k, int store,
                          gg_nearest *out)
{
    if (m < 1 || n < 1 || k < 1)
        return -1;
    char sub[512];
    if (store_path_cut(store_card_dir(sub, sizeof sub, dir, card), sizeof sub))
        return -1;
    DIR *d = opendir(sub);
    if (!d)
        return -1;
    bool have = false;
    double best_d = 0;
    int best[3] = {0, 0, 0};
    struct dirent *e;
    while ((e = readdir(d))) {
        int dims[3];
        gg_store named;
        /* best-MxNxK.txt, or for a store the files of that store
         * (best-f16-MxNxK.txt) */
        if (!store_best_name_parse(e->d_name, &dims[0], &dims[1], &dims[2], &named) ||
            named != (store >= 0 ? (gg_store)store : GG_STORE_F32))
            continue;
        double dd = distance(m, n, k, dims[0], dims[1], dims[2]);
        if (have && !better(dd, dims, best_d, best))
            continue;
        char path[sizeof out->path], why[256];
        gg_variant v;
        double gflops = 0;
        if (store_path_cut(store_card_file(path, sizeof path, dir, card, e->d_name), sizeof path) ||
            store_best_read_path(path, &v, &gflops, why, sizeof why) ||
            (store >= 0 && (int)v.store != store))
            continue;
        have = true;
        best_d = dd;
        memcpy(best, dims, sizeof best);
        out->v = v;
        out->m = dims[0];
        out->n = dims[1];
        out->k = dims[2];
        out->gflops = gflops;
        memcpy(out->path, path, sizeof path);
    }
    closedir(d);
    return have ? 0 : -1;
}

int store_best_for(const char *dir, const char *card, int m, int n, int k, int store,
                   gg_variant *v, char *from, size_t fromlen, char *err, size_t errlen)
{
    char path[1024], why[300];
    if (fromlen)
        from[0] = '\0';
    store_best_path_store(path, sizeof path, dir, card, m, n, k, (gg_store)store);
    int rc = store_best_read_path(path, v, NULL, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc != GG_BEST_NONE) {
        snprintf(err, errlen, "%.500s does not start with a variant (%.200s)", path, why);
        return -1;
    }
    gg_nearest near;
    if (store_best_nearest_store(dir, card, m, n, k, store, &near) == 0) {
        *v = near.v;
        snprintf(from, fromlen, "%dx%dx%d (%s)", near.m, near.n, near.k, near.path);
        return 0;
    }
    snprintf(err, errlen, "no %.500s, nor any other %s best file of card '%.64s'", path,
             gen_store_name((gg_store)store), card);
    return -1;
}
