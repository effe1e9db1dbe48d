/* search/bound: an upper bound on a variant's GFLOP/s from the generator's
 * counts and the card's probed ceilings, so that a search can skip variants
 * that cannot win (status pruned_bound).  No GL here.
 *
 * Contract:
 *  - The work of a variant on m x n x k is counted from gg_layout (gen.h),
 *    padding included (the shader does it): fragments = tgt_w * tgt_h *
 *    passes; texel fetches = fetches_per_frag_pass * fragments (A and B
 *    (fetch=ubo: B only, A comes from a uniform block),
 *    and the running sums for acc=copy/pingpong); scalar multiply-adds =
 *    mads_per_frag_pass * fragments; C texels written = targets *
 *    fragments (out=image: the blk texels a fragment stores).
 *  - Its time is at least the largest of
 *      fetches / R_fetch, multiply-adds * 2 / mad_gflops, writes / R_write,
 *    each a unit working at the fastest rate glgemm probe measured for it:
 *      R_fetch: the rate of each read the variant does, in its texel
 *        format by its fetch path: A and B are RGBA32F (4 channels,
 *        store=f32), RGBA16F (4 channels, store=f16) or R32F (1 channel,
 *        store=f32), read by the variant's fetch key; the running sums
 *        have the target's format (R32F for 1 channel, RGBA32F for 3 and
 *        4; out=image: its image, R32F for 1 channel, else RGBA32F), read
 *        by texture() (out=rt), texelFetch (out=image, acc=pingpong) or
 *        imageLoad (out=image, acc=copy).  The rate of a format by a path
 *        is the largest over the patterns the probe measured for it (the
 *        texture path: friendly, hostile, the GEMM patterns; texelfetch,
 *        image and buffer: the GEMM patterns).  A path this probe.csv
 *        lacks (files older than the per-path rows, a context without
 *        images) counts as the fastest of every measured path of that
 *        format; a format the probe does not measure (RG32F, RGB32F, R16F
 *        and friends: 2 and 3 channels, 1-channel halves; store=f16x8's
 *        RGBA32UI, whose fetches are the layout's stored texels, eight
 *        halves each), or that this
 *        probe.csv lacks (RGBA16F in files older than it), as the fastest
 *        of every measured path and format.  So a file without the
 *        per-path rows gives every variant the bound it gave before them.
 *        When a variant does two reads, all its texels count at the faster
 *        one's rate; and where its fetch path is not texture and the probe
 *        measured that path for its format, A and B's texels alone at that
 *        path's rate count too (the larger time of the two is the term):
 *        so a slow path binds even when the running sums are read faster.
 *      R_write: out=rt: the fastest RGBA32F rate over 1 .. 8 targets, for
 *        variants whose targets are RGBA32F (3 and 4 channels).  1- and
 *        2-channel variants render into R32F / RG32F targets, which the
 *        probe does not measure (a card may write R32F at several times
 *        its RGBA32F texel rate): no write term for them.  out=image: the
 *        fastest imageStore rate into RGBA32F over the texels a fragment
 *        the probe tried (1 .. 64), for 2 to 4 channels (the image is
 *        RGBA32F); none for 1 channel (R32F, not measured) nor when the
 *        probe has no imageStore rows; render-target writes never count.
 *      R_ssbo: the storage-buffer fetches (fetch=ssbo, texelfetch+ssbo,
 *        ssbo+texelfetch): the texels of the matrices read from storage
 *        buffers go through the load/store path, not the texture unit
 *        (docs/notes/feed.md: on an H100 the two paths nearly add), so
 *        they are a term of their own, ssbo_fetches / R_ssbo, R_ssbo the
 *        probe's ssbo path for their format (rows
 *        fetch,<fmt>-ssbo-<pattern>), or as above where the probe lacks
 *        it; the fetch term counts the other matrix (by texelFetch) and
 *        the running sums only.
 *      The wide stores (store=f64, dd, df; gen/wide.h): the same counts
 *        from the layout (their values take the channels' places, so a
 *        texel holds `channels` values of gen_wide_words each, and A, B
 *        and the running sums are gen_wide_texel_words words a texel:
 *        RG32UI or RGBA32UI).  Fetches read 4-word texels at the probe's
 *        RGBA32F rate and 2-word ones at RGBA16F's (the 16- and 8-byte
 *        texels measured nearest to them), A and B by the fetch key's path,
 *        the running sums by texelFetch (gen/wide_emit.c); writes of
 *        4-word targets at the RGBA32F write rate, none for 2-word ones
 *        (not measured).  The multiply-add term counts gen_wide_mad_ops:
 *        mad_ops = per_mad * mads + per_value * values of A and B
 *        fetched, time mad_ops / rate for dd and df (each operation an
 *        add or a multiply, one flop of the rate) and 2 * mads / rate for
 *        f64 (an fma, two flops), the rate fp64's (probe
 *        rows mad64) for f64 and dd, fp32's for df; without mad64 rows,
 *        no multiply-add term for f64 and dd.
 *    The bound is 2*m*n*k / that time / 1e9.  A term whose rate the probe
 *    lacks (0: not measured) is left out; with no term left, no bound.
 *  - A rate is a ceiling only as far as the probe saw it, so a search
 *    prunes a variant only when GG_BOUND_MARGIN x its bound is below the
 *    best measured so far (search.h's bound_margin).  The margin is
 *    calibrated on the committed results: tests/check_bound.c takes every
 *    ok row of each card's tuning records against the same card's
 *    probe.csv and fails when a row runs faster than the margin times its
 *    bound (docs/notes/tuning.md gives the largest measured / bound).
 */
#ifndef GLGEMM_BOUND_H
#define GLGEMM_BOUND_H

#include <stddef.h>

#include "gen/gen.h"
#include "base/probe_data.h"

#define GG_BOUND_MARGIN 1.5

/* What a variant does on m x n x k, from its layout (see the top). */
typedef struct {
    gg_layout L;
    double fragments;   /* tgt_w * tgt_h * passes */
    double fetches;     /* texels fetched, running sums included */
    double mads;        /* scalar multiply-adds */
    double writes;      /* C texels written (targets, or out=image's stores) */
    double input_fetches; /* of the fetches, texels of A and B */
    double ssbo_fetches;  /* texels read from storage buffers (the storage-buffer fetches'
                             matrices): not in fetches, which go through the texture unit */
    double mad_ops;     /* operations of the multiply-add unit: mads (one fma each), but
                           for store=dd and df their double-word arithmetic's
                           (gen/wide.h's gen_wide_mad_ops) */
    double mad_flops;   /* the flops of the rate they take: 2 an fma (2 * mads), 1 each
                           of dd's and df's operations (additions, multiplications) */
    bool fp64;          /* mad_ops are in double (store=f64, dd) */
    int texel_words;    /* store=f64, dd, df: 32-bit words a texel of A, B and C (2 or 4);
                           0 for the other stores */
} gg_bound_counts;

/* 0, or -1 when the layout cannot be computed. */
int search_bound_counts_of(const gg_variant *v, int m, int n, int k, gg_bound_counts *c);

/* The bound and its terms. */
typedef struct {
    gg_bound_counts c;
    double fetch_rate;      /* Gtexel/s of the fetch term; 0: no fetch term */
    double fetch_texels;    /* the texels it counts: every fetch, or A and B's (below) */
    const char *fetch_fmt;  /* "rgba32f", "rgba16f", "r32f" or "any format" */
    const char *fetch_path; /* "texture", "texelfetch", "image", "buffer" or "any path" */
    double mad_rate;        /* GFLOP/s (fp32's, or fp64's for store=f64 and dd: mad64,max);
                               0: no multiply-add term */
    double write_rate;      /* Gtexel/s (render targets, or imageStore for out=image);
                               0: no write term */
    double ssbo_rate;       /* Gtexel/s of the storage-buffer term (the probe's ssbo path
                               for the format); 0: no such term */
    const char *ssbo_fmt;   /* its format, or "any format" */
    double fetch_s, mad_s, write_s, ssbo_s; /* lower bounds on the time, 0 without the term */
    double seconds;         /* their maximum */
    const char *unit;       /* the one that binds: "texel fetch", "storage-buffer read",
                               "multiply-add" ("fp64 multiply-add" for store=f64 and dd),
                               "render-target write", "image store";
                               NULL without a bound */
    double gflops;          /* 2*m*n*k / seconds / 1e9; 0 without a bound */
} gg_bound_detail;

/* Fills d; returns d->gflops (<= 0: no bound: the layout fails or the probe
 * has none of the rates). */
double search_bound_compute(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                        gg_bound_detail *d);

/* The bound in GFLOP/s (<= 0: none), and one line in why (may be NULL)
 * naming the unit that binds and the numbers. */
double search_bound_gflops(const gg_variant *v, int m, int n, int k, const gg_probe_result *probe,
                       char *why, size_t len);

/* Reads results_dir/card/probe.csv.  0, or -1 with one line in err when
 * absent or unreadable. */
int search_bound_load(const char *results_dir, const char *card, gg_probe_result *out, char *err,
                  size_t errlen);

/* A ready-made gg_search_config.bound: user is a gg_bound_user. */
typedef struct {
    const gg_probe_result *probe;
    int m, n, k;
} gg_bound_user;
double search_bound_search_fn(void *user, const gg_variant *v);

#endif
