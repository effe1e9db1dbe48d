/* The device pool of a command (eval/pool.h): --devices (parsed in
 * options.c) resolved against what EGL lists (in a child: this process
 * holds no GL), the pool made, its cards named; a rank other than 0
 * (glgemm-mpi) serves rank 0 instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/slug.h"
#include "eval/isolate.h"
#include "eval/serve.h"

/* How many devices EGL lists (at least 1: device 0, the default display,
 * is there where it lists none), asked in a child. */
static void count_child(void *user, void *out, size_t outlen)
{
    (void)user;
    (void)outlen;
    static char lines[64][256];
    char err[256];
    int n = host_egl_devices(lines, 64, err, sizeof err);
    *(int *)out = n < 1 ? 1 : n;
}

static int egl_count(void)
{
    int n = 0;
    char detail[256];
    if (eval_isolate_run(count_child, NULL, &n, sizeof n, 60.0, detail, sizeof detail) != GG_ISO_OK)
        return -1;
    return n;
}

/* The devices of this process: --devices resolved, or --device. */
static int resolve(cli_common *c, int *devs, int *n)
{
    if (!c->devices_set) {
        devs[0] = c->device;
        *n = 1;
        return 0;
    }
    if (c->devices_local) {
        const gg_transport *t = eval_pool_transport;
        devs[0] = t ? t->local_rank : 0;
        *n = 1;
        return 0;
    }
    int have = egl_count();
    if (have < 0) {
        fprintf(stderr, "glgemm %s: --devices: the EGL devices could not be listed\n", c->cmd);
        return EXIT_NOCTX;
    }
    if (c->devices_all) {
        *n = have < CLI_MAX_DEVICES ? have : CLI_MAX_DEVICES;
        for (int i = 0; i < *n; i++)
            devs[i] = i;
        return 0;
    }
    for (int i = 0; i < c->ndevices; i++)
        if (c->devices[i] >= have)
            return cli_error(c, "--devices: no device %d: EGL lists %d device%s (0..%d; see "
                                "glgemm devices)", c->devices[i], have, have == 1 ? "" : "s",
                             have - 1);
    memcpy(devs, c->devices, (size_t)c->ndevices * sizeof *devs);
    *n = c->ndevices;
    return 0;
}

int cli_pool_open(cli_common *c, const gg_evaluator_config *problems, int nproblems,
                  gg_pool **pool)
{
    int devs[CLI_MAX_DEVICES], n = 0, rc;
    *pool = NULL;
    if ((rc = resolve(c, devs, &n)))
        return rc;
    const gg_transport *t = eval_pool_transport;
    gg_pool_config pc = {.problems = problems, .nproblems = nproblems, .devices = devs,
                         .ndevices = n, .transport = t && t->size > 1 ? t : NULL};
    char err[512];
    if (pc.transport && t->rank > 0) {
        if (eval_serve(&pc, err, sizeof err)) {
            fprintf(stderr, "glgemm %s: rank %d: %s\n", c->cmd, t->rank, err);
            return EXIT_GPU;
        }
        return CLI_SERVED;
    }
    if (!(*pool = eval_pool_new(&pc, err, sizeof err))) {
        fprintf(stderr, "glgemm %s: %s\n", c->cmd, err);
        return EXIT_GPU;
    }
    return 0;
}

int cli_slot_failed(const cli_common *c, gg_pool *pool, int i, int kind, const char *what)
{
    const gg_pool_slot *s = eval_pool_slot(pool, i);
    char label[64] = "";
    if (eval_pool_nslots(pool) > 1)
        snprintf(label, sizeof label, "%s: ", eval_pool_slot_label(pool, i, (char[48]){0}, 48));
    if (!s->ok) {
        fprintf(stderr, "glgemm %s: %s%s%s\n", c->cmd, label, what, s->err);
        return EXIT_NOCTX;
    }
    bool any = false;
    for (int k = 0; k < 3; k++)
        any |= s->info.ok[k] && (kind < 0 || k == kind);
    if (any)
        return 0;
    int shown = kind >= 0 ? kind : (int)host_ctx_kind_for(GG_PROFILE_330);
    fprintf(stderr, "glgemm %s: %s%s\n", c->cmd, label, s->info.err[shown]);
    return s->info.no_device ? EXIT_USAGE : EXIT_NOCTX;
}

int cli_pool_cards(const cli_common *c, gg_pool *pool, int kind, const char *what, cli_cards *cards)
{
    memset(cards, 0, sizeof *cards);
    for (int i = 0; i < eval_pool_nslots(pool); i++) {
        int rc = cli_slot_failed(c, pool, i, kind, what);
        if (rc)
            return rc;
        const gg_device_info *d = &eval_pool_slot(pool, i)->info;
        int k = kind;
        for (int p = 0; k < 0 && p < 3; p++) /* the first profile's kind there is */
            if (d->ok[host_ctx_kind_for((gg_profile)p)])
                k = (int)host_ctx_kind_for((gg_profile)p);
        char slug[GG_CARD_MAX];
        base_slug(d->info[k].renderer, slug, sizeof slug);
        int g = 0;
        while (g < cards->n && strcmp(cards->slug[g], slug))
            g++;
        if (g == cards->n) {
            snprintf(cards->slug[cards->n++], GG_CARD_MAX, "%s", slug);
            cards->first[g] = i;
            cards->kind[g] = k;
        }
        cards->mask[g] |= 1ULL << i;
        cards->count[g]++;
    }
    return 0;
}
