/* search/memo: near the bottom of search/: the memo of every point looked
 * at or preloaded (open addressing on a 64-bit key), and what makes two
 * spellings one point (np normalised against the problem) and a point's
 * score.  Calls only fix.c (search_fix_matches) in search/. */
#include "search/search_int.h"

#include "base/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double search_outcome_score(const gg_outcome *o)
{
    if (o->status != GG_OK || !isfinite(o->gflops) || o->gflops <= 0)
        return 0;
    return o->gflops;
}

void search_outcome_from_measurement(gg_outcome *o, const gg_measurement *m)
{
    o->status = m->status;
    o->passes = m->passes;
    o->seconds = m->seconds;
    o->gflops = m->status == GG_OK ? m->gflops : 0;
    o->rel_err = m->rel_err;
}

int search_ksteps(gg_shape mc, int k)
{
    int step = gen_mc_step(mc);
    return (int)(((long)k + step - 1) / step);
}

int search_variant_normalize(gg_variant *v, int m, int n, int k)
{
    gg_layout L;
    if (gen_layout_compute(v, m, n, k, &L))
        return -1;
    if (v->np != GG_NP_ALL && L.np >= L.ksteps)
        v->np = GG_NP_ALL;
    else if (v->np != GG_NP_ALL)
        v->np = L.np; /* store=f16x8: rounded up to whole iterations (gen.h) */
    /* store=f16x8 rounds ku up to whole stored texels: the smallest ku
     * giving the same iteration, so that one shader is one point (ku=1 and
     * ku=2 were two feed points where a texel holds two steps). */
    for (int ku = 1; v->store == GG_STORE_F16X8 && ku < v->ku; ku *= 2) {
        gg_variant w = *v;
        gg_layout Lw;
        w.ku = ku;
        if (!gen_layout_compute(&w, m, n, k, &Lw) && Lw.ku == L.ku) { /* np rounds the same */
            v->ku = ku;
            break;
        }
    }
    return 0;
}

/* ---- memo: open addressing on a 64-bit key ---- */

/* FNV-1a of the canonical form: one key per variant (the keys no longer
 * fit 64 bits as packed fields), never 0. */
uint64_t gs_key(const gg_variant *v)
{
    char t[GG_VARIANT_TEXT];
    gen_variant_format(v, t, sizeof t);
    uint64_t h = base_fnv1a(BASE_FNV1A_BASIS, t, strlen(t));
    return h ? h : 1;
}

static size_t slot(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

gs_entry *gs_memo_find(const gg_search *s, uint64_t key)
{
    for (size_t i = slot(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->tab[i].key == key)
            return &s->tab[i];
        if (s->tab[i].key == 0)
            return NULL;
    }
}

gs_entry *gs_memo_insert(gg_search *s, const gg_variant *v, const gg_outcome *o)
{
    if (2 * (s->count + 1) > s->cap) {
        size_t ncap = s->cap * 2;
        gs_entry *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->tab[i].key)
                continue;
            size_t j = slot(s->tab[i].key, ncap);
            while (nt[j].key)
                j = (j + 1) & (ncap - 1);
            nt[j] = s->tab[i];
        }
        free(s->tab);
        s->tab = nt;
        s->cap = ncap;
    }
    uint64_t key = gs_key(v);
    size_t i = slot(key, s->cap);
    while (s->tab[i].key)
        i = (i + 1) & (s->cap - 1);
    s->tab[i].key = key;
    s->tab[i].v = *v;
    s->tab[i].o = *o;
    s->tab[i].visited = false;
    s->count++;
    if (v->store == s->cfg.fix.v.store && search_outcome_score(o) > s->store_best)
        s->store_best = search_outcome_score(o);
    return &s->tab[i];
}

int search_preload(gg_search *s, const gg_variant *v0, const gg_outcome *o)
{
    gg_variant v = *v0;
    if (search_variant_normalize(&v, s->cfg.m, s->cfg.n, s->cfg.k))
        return 0;
    if (gs_memo_find(s, gs_key(&v)))
        return 0;
    return gs_memo_insert(s, &v, o) ? 1 : 0;
}

bool search_memo_best(const gg_search *s, gg_variant *v, gg_outcome *o)
{
    return search_memo_best_store(s, -1, v, o);
}

bool search_memo_best_store(const gg_search *s, int store, gg_variant *v, gg_outcome *o)
{
    const gs_entry *best = NULL;
    for (size_t i = 0; i < s->cap; i++) {
        const gs_entry *e = &s->tab[i];
        if (e->key && search_outcome_score(&e->o) > 0 && (store < 0 || (int)e->v.store == store) &&
            (!best || search_outcome_score(&e->o) > search_outcome_score(&best->o)))
            best = e;
    }
    if (!best)
        return false;
    if (v)
        *v = best->v;
    if (o)
        *o = best->o;
    return true;
}

static int by_score_desc(const void *a, const void *b)
{
    double x = search_outcome_score(&(*(const gs_entry *const *)a)->o);
    double y = search_outcome_score(&(*(const gs_entry *const *)b)->o);
    return x > y ? -1 : x < y ? 1 : 0;
}

int search_memo_top_store(const gg_search *s, int store, const gg_fix *fix, int n,
                             gg_variant *v, double *gflops)
{
    const gs_entry **all = malloc((s->count ? s->count : 1) * sizeof *all);
    if (!all)
        return -1;
    size_t na = 0;
    for (size_t i = 0; i < s->cap; i++) {
        const gs_entry *e = &s->tab[i];
        if (e->key && search_outcome_score(&e->o) > 0 && (store < 0 || (int)e->v.store == store) &&
            (!fix || search_fix_matches(fix, &e->v)))
            all[na++] = e;
    }
    qsort(all, na, sizeof *all, by_score_desc);
    int got = 0;
    for (; got < n && (size_t)got < na; got++) {
        v[got] = all[got]->v;
        gflops[got] = search_outcome_score(&all[got]->o);
    }
    free(all);
    return got;
}

bool search_memo_get(const gg_search *s, const gg_variant *v, gg_outcome *o)
{
    gg_variant nv = *v;
    if (search_variant_normalize(&nv, s->cfg.m, s->cfg.n, s->cfg.k))
        return false;
    const gs_entry *e = gs_memo_find(s, gs_key(&nv));
    if (e && o)
        *o = e->o;
    return e != NULL;
}
