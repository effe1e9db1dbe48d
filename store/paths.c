/* The names of the files in a records folder: see paths.h. */
#include "store/paths.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool store_path_cut(const char *buf, size_t len) { return len == 0 || strlen(buf) + 1 >= len; }

char *store_card_dir(char *buf, size_t len, const char *dir, const char *card)
{
    snprintf(buf, len, "%s/%s", dir, card);
    return buf;
}

char *store_card_file(char *buf, size_t len, const char *dir, const char *card, const char *name)
{
    snprintf(buf, len, "%s/%s/%s", dir, card, name);
    return buf;
}

/* DIR/<card>/ and a name made of fmt. */
__attribute__((format(printf, 5, 6))) static char *card_path(char *buf, size_t len,
                                                              const char *dir, const char *card,
                                                              const char *fmt, ...)
{
    char name[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return store_card_file(buf, len, dir, card, name);
}

char *store_records_file(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k)
{
    return card_path(buf, len, dir, card, "tune-%dx%dx%d.csv", m, n, k);
}

bool store_records_name_parse(const char *name, int *m, int *n, int *k)
{
    int a, b, c, used = 0;
    char again[96];
    /* As store_best_name_parse: the name as written, nothing else. */
    if (strlen(name) >= sizeof again || sscanf(name, "tune-%9dx%9dx%9d.csv%n", &a, &b, &c, &used) != 3 ||
        name[used] != '\0' || a < 1 || b < 1 || c < 1)
        return false;
    snprintf(again, sizeof again, "tune-%dx%dx%d.csv", a, b, c);
    if (strcmp(again, name))
        return false;
    *m = a;
    *n = b;
    *k = c;
    return true;
}

char *store_best_prefix(char *buf, size_t len, gg_store store)
{
    /* store=f32 keeps SPEC's name; another store's name goes where the
     * size's digits would be, so no best-MxNxK.txt reader takes it for one. */
    if (store == GG_STORE_F32)
        snprintf(buf, len, "best-");
    else
        snprintf(buf, len, "best-%s-", gen_store_name(store));
    return buf;
}

char *store_best_path_store(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                         int k, gg_store store)
{
    char prefix[32];
    return card_path(buf, len, dir, card, "%s%dx%dx%d.txt",
                     store_best_prefix(prefix, sizeof prefix, store), m, n, k);
}

char *store_best_path(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k)
{
    return store_best_path_store(buf, len, dir, card, m, n, k, GG_STORE_F32);
}

bool store_best_name_parse(const char *name, int *m, int *n, int *k, gg_store *store)
{
    for (int st = 0; st < GG_STORE_COUNT; st++) {
        char prefix[32];
        size_t pl = strlen(store_best_prefix(prefix, sizeof prefix, (gg_store)st));
        int used = 0;
        int a, b, c;
        char again[96];
        /* The name as written for its numbers, nothing else: sscanf's %d
         * also takes blanks, a sign, leading zeros and out-of-range
         * digits ("best-08x8x8.txt" is no best file of 8x8x8). */
        if (!strncmp(name, prefix, pl) && strlen(name) < sizeof again &&
            sscanf(name + pl, "%9dx%9dx%9d.txt%n", &a, &b, &c, &used) == 3 &&
            name[pl + (size_t)used] == '\0' && a >= 1 && b >= 1 && c >= 1 &&
            (size_t)snprintf(again, sizeof again, "%s%dx%dx%d.txt", prefix, a, b, c) < sizeof again &&
            !strcmp(again, name)) {
            *m = a;
            *n = b;
            *k = c;
            *store = (gg_store)st;
            return true;
        }
    }
    return false;
}

char *store_bench_path(char *buf, size_t len, const char *dir, const char *card, int m, int n, int k)
{
    return card_path(buf, len, dir, card, "bench-%dx%dx%d.csv", m, n, k);
}

char *store_probe_path(char *buf, size_t len, const char *dir, const char *card)
{
    return store_card_file(buf, len, dir, card, "probe.csv");
}

char *store_crossover_path(char *buf, size_t len, const char *dir, const char *card)
{
    return store_card_file(buf, len, dir, card, "crossover.txt");
}

char *store_draw_path(char *buf, size_t len, const char *dir, const char *card)
{
    return store_card_file(buf, len, dir, card, "draw.txt");
}

char *store_report_again_path(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                           int k)
{
    return card_path(buf, len, dir, card, "dips-%dx%dx%d.csv", m, n, k);
}

char *store_summary_path(char *buf, size_t len, const char *dir, const char *card, int m, int n,
                      int k)
{
    return card_path(buf, len, dir, card, "tune-%dx%dx%d-summary.txt", m, n, k);
}

char *store_environment_path(char *buf, size_t len, const char *dir, const char *card)
{
    return store_card_file(buf, len, dir, card, "environment.txt");
}

char *store_report_md_name(char *buf, size_t len, int m, int n, int k)
{
    snprintf(buf, len, "report-%dx%dx%d.md", m, n, k);
    return buf;
}

void store_report_figure_name(char *buf, size_t len, const char *fig, int m, int n, int k)
{
    snprintf(buf, len, "%s-%dx%dx%d.svg", fig, m, n, k);
}
