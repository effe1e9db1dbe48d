/* Long draws (glhost/run.h): a pass cut into several draws over
 * sub-rectangles of its fragments stays exact.
 *
 *  - host_draw_next covers every fragment of a region exactly once, in
 *    pieces of at most cap fragments (whole-row bands as even as cap
 *    allows, or pieces of a row), also when cap changes between calls.
 *  - On llvmpipe, with a forced tiny cap (gg_run_opts.max_draw_fragments:
 *    pieces of rows, and bands of rows with an uneven last one): every out x
 *    acc, each fetch path (ubo's strips too), odd shapes, several passes,
 *    texture-limit blocks: C bit for bit the unsplit run's, checked against
 *    a naive loop, and the measurement's draw count the split's.
 *  - A tiny time bound (max_draw_s) splits down to one fragment a draw after
 *    timing the first run; a long one does not split; the library's once
 *    mode splits from the cache's rate on its second call; so does the
 *    library (glgemm_sgemm) under GLGEMM_MAX_DRAW_MS.
 *  - A run expected (expect_s) to fit the bound GG_EXPECT_SAFETY times
 *    over draws each pass whole without timing; one expected any longer
 *    times its draws.  The library gives that estimate from the record of
 *    the variant it runs: a fast record's first call draws once a pass, a
 *    slow one's times its draws, a variant the record does not name gets
 *    no estimate.
 *  - store/draw.h's card file and precedence; the CLI's --max-draw-ms,
 *    GLGEMM_MAX_DRAW_MS and results/<card>/draw.txt (which `glgemm probe`
 *    writes), bad values exit 2 with one line. */
#include <check.h>
#include <math.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "glgemm.h"
#include "glhost/run.h"
#include "glhost/run_int.h"
#include "lib/inspect.h"
#include "store/draw.h"
#include "tests/cli_util.h"
#include "base/clock.h"
#include "tests/gemm_util.h"
#include "tests/suites.h"

/* ---- the cutting itself, no GL ---- */

/* Draws host_draw_next makes of a w x h region with a fixed cap; each one
 * checked: inside, not empty, at most cap, whole rows or one row. */
static long cut(int w, int h, long cap, unsigned char *seen)
{
    int cx = 0, cy = 0, last_rows = -1;
    gg_draw_rect r;
    long n = 0, f;
    memset(seen, 0, (size_t)w * h);
    while ((f = host_draw_next(w, h, cap, &cx, &cy, &r)) > 0) {
        n++;
        ck_assert_msg(r.w >= 1 && r.h >= 1 && r.x >= 0 && r.y >= 0 && r.x + r.w <= w &&
                          r.y + r.h <= h, "%dx%d cap %ld: rect %d,%d %dx%d", w, h, cap, r.x, r.y,
                      r.w, r.h);
        ck_assert_int_eq(f, (long)r.w * r.h);
        ck_assert_msg(f <= cap, "%dx%d cap %ld: %ld fragments", w, h, cap, f);
        ck_assert(r.h == 1 || r.w == w);
        if (cap >= w) { /* bands of whole rows, as even as cap allows */
            ck_assert_int_eq(r.w, w);
            ck_assert_msg(last_rows < 0 || r.h == last_rows || r.h == last_rows - 1,
                          "%dx%d cap %ld: band of %d rows after %d", w, h, cap, r.h, last_rows);
            last_rows = r.h;
        } else {
            ck_assert_int_eq(r.h, 1);
        }
        for (int y = r.y; y < r.y + r.h; y++)
            for (int x = r.x; x < r.x + r.w; x++)
                seen[y * w + x]++;
    }
    for (int i = 0; i < w * h; i++)
        ck_assert_msg(seen[i] == 1, "%dx%d cap %ld: fragment %d drawn %d times", w, h, cap, i,
                      seen[i]);
    ck_assert_int_eq(host_draw_next(w, h, cap, &cx, &cy, &r), 0);
    return n;
}

START_TEST(draw_next_covers_once)
{
    static const int ws[] = {1, 2, 3, 5, 7, 16, 61};
    static const int hs[] = {1, 2, 3, 7, 13, 40};
    unsigned char seen[61 * 40];
    for (size_t a = 0; a < sizeof ws / sizeof *ws; a++)
        for (size_t b = 0; b < sizeof hs / sizeof *hs; b++) {
            int w = ws[a], h = hs[b];
            long caps[] = {1, 2, 3, w > 1 ? w - 1 : 1, w, w + 1, 2L * w, 2L * w + 1,
                           3L * w - 1, (long)w * h - 1, (long)w * h, (long)w * h + 5, 1L << 40};
            for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
                long cap = caps[c] < 1 ? 1 : caps[c], n = cut(w, h, cap, seen);
                if (cap >= (long)w * h)
                    ck_assert_int_eq(n, 1);
                if (cap < w) /* pieces of each row, the last one uneven when cap does not divide w */
                    ck_assert_int_eq(n, (long)h * ((w + cap - 1) / cap));
                if (cap >= w) { /* bands: as few as cap allows */
                    long rmax = cap / w;
                    ck_assert_int_eq(n, (h + rmax - 1) / rmax);
                }
            }
        }
    /* Uneven last pieces and bands do happen. */
    gg_draw_rect r;
    int cx = 0, cy = 0;
    long f = 0;
    for (int i = 0; i < 3; i++)
        f = host_draw_next(7, 1, 3, &cx, &cy, &r);
    ck_assert_int_eq(f, 1);
    cx = cy = 0;
    int rows[8], nb = 0;
    while (host_draw_next(5, 13, 10, &cx, &cy, &r) > 0 && nb < 8)
        rows[nb++] = r.h;
    ck_assert_int_eq(nb, 7); /* 13 rows in bands of at most 2: 2,2,2,2,2,2,1 */
    ck_assert_int_eq(rows[0], 2);
    ck_assert_int_eq(rows[6], 1);
}
END_TEST

/* The cap may change from one draw to the next (a calibration does): still
 * every fragment exactly once. */
START_TEST(draw_next_changing_cap)
{
    unsigned seed = 12345u;
    unsigned char seen[37 * 23];
    for (int trial = 0; trial < 200; trial++) {
        int w = 1 + (int)(seed % 37), h = 1 + (int)((seed >> 8) % 23);
        memset(seen, 0, sizeof seen);
        int cx = 0, cy = 0;
        gg_draw_rect r;
        long f, total = 0;
        for (;;) {
            seed = seed * 1103515245u + 12345u;
            long cap = 1 + (long)((seed >> 4) % (unsigned)(3 * w));
            if ((f = host_draw_next(w, h, cap, &cx, &cy, &r)) == 0)
                break;
            ck_assert(f <= cap);
            total += f;
            for (int y = r.y; y < r.y + r.h; y++)
                for (int x = r.x; x < r.x + r.w; x++)
                    seen[y * w + x]++;
        }
        ck_assert_int_eq(total, (long)w * h);
        for (int i = 0; i < w * h; i++)
            ck_assert_int_eq(seen[i], 1);
        seed = seed * 1103515245u + 12345u;
    }
}
END_TEST

/* ---- split GEMMs on llvmpipe ---- */

/* Every out x acc, each fetch path, odd shapes, several passes. */
static const gemm_case grid[] = {
    /* out=rt */
    {"mrt=2x2,mc=1x4,np=3,profile=330", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mrt=2x1,mc=2x2,np=2,profile=330,fetch=texelfetch,acc=copy", 29, 31, 45, 0, 1, -0.5f, 1.0f},
    {"mrt=1x2,mc=1x2,np=3,profile=330,fetch=buffer,acc=blend", 27, 25, 33, 1, 0, 1.0f, 0.5f},
    {"mrt=2x2,mc=2x2,np=4,profile=430,fetch=image,acc=copy", 33, 35, 37, 1, 1, 2.0f, 0.25f},
    {"mrt=1x1,mc=1x1,np=5,profile=330,acc=copy", 13, 11, 29, 0, 0, 1.0f, 0.0f},
    {"mrt=2x2,mc=1x4,np=3,profile=430,store=f16,acc=blend", 37, 53, 71, 0, 1, 1.5f, 0.5f},
    {"mrt=1x1,mc=1x4,np=6,unroll=1,profile=300es", 33, 17, 29, 1, 0, 1.0f, 0.0f},
    {"mrt=2x2,mc=2x2,np=5,profile=330,fetch=ubo", 37, 53, 71, 0, 1, 1.5f, 0.5f},
    {"mrt=2x1,mc=1x3,np=2,profile=300es,fetch=ubo,acc=copy", 29, 31, 45, 1, 0, -0.5f, 1.0f},
    {"mrt=1x2,mc=1x1,np=3,profile=330,fetch=ubo,acc=blend", 23, 29, 31, 1, 1, 1.0f, 1.0f},
    /* out=image */
    {"mc=1x4,np=3,profile=430,out=image,blk=4x8", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x1,np=5,profile=430,out=image,blk=3x5,fetch=texelfetch,acc=copy", 29, 31, 45, 0, 1,
     -0.5f, 1.0f},
    {"mc=1x4,np=4,profile=430,out=image,blk=4x8,fetch=image,acc=copy", 37, 53, 71, 1, 0, 2.0f,
     0.25f},
    {"mc=1x4,np=2,profile=430,out=image,blk=8x4,fetch=buffer", 41, 19, 50, 1, 1, 1.0f, 0.5f},
    {"mc=1x4,np=4,profile=430,out=image,blk=4x4,fetch=ubo", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x2,np=7,unroll=1,profile=430,out=image,blk=4x4,fetch=ubo,acc=copy", 41, 19, 50, 1, 1,
     2.0f, 0.25f},
    {"mc=4x1,np=3,profile=310es,out=image,blk=4x4,fetch=texelfetch", 33, 35, 37, 1, 0, 1.0f,
     0.5f},
};
#define NGRID ((int)(sizeof grid / sizeof *grid))

static long count_cut(int w, int h, long cap)
{
    int cx = 0, cy = 0;
    gg_draw_rect r;
    long n = 0;
    while (host_draw_next(w, h, cap, &cx, &cy, &r) > 0)
        n++;
    return n;
}

/* The split plan of r at that texture limit. */
static void plan_of(const gemm_run *r, int max_tex, gg_split *sp)
{
    ck_assert_int_eq(gen_split_plan(&r->v, r->in.m, r->in.n, r->in.k, max_tex, sp), 0);
}

/* The draws of one run with at most cap fragments a draw: every pass of
 * every block, cut region by region (a pass's viewport, or ubo's strips). */
static long expected_draws(const gemm_run *r, int max_tex, long cap)
{
    gg_split sp;
    plan_of(r, max_tex, &sp);
    const gg_layout *L = &sp.L;
    long per = r->v.fetch == GG_FETCH_UBO
                   ? (long)(L->tgt_h / GG_UBO_STRIP) * count_cut(L->tgt_w, GG_UBO_STRIP, cap)
                   : count_cut(L->tgt_w, L->tgt_h, cap);
    return per * L->passes * sp.kblocks * sp.mblocks * sp.nblocks;
}

/* Runs gc unsplit, then split with at most cap fragments a draw (kind 0:
 * pieces of 3 fragments of a row; 1: bands of two rows (ubo: one row of a
 * strip), the last uneven where the rows do not divide), at texture limit max_tex (0:
 * the card's): C bit for bit the same, right, and the draws counted. */
static void split_case(const gemm_case *gc, int kind, int max_tex, unsigned seed)
{
    gemm_run r;
    setup_case(&r, gc, seed);
    gg_split sp;
    plan_of(&r, max_tex ? max_tex : 16384, &sp);
    int w = sp.L.tgt_w, h = r.v.fetch == GG_FETCH_UBO ? GG_UBO_STRIP : sp.L.tgt_h;
    long cap = kind == 0 ? 3 : r.v.fetch == GG_FETCH_UBO ? w + 1L : 2L * w + 1;
    ck_assert_msg(cap < (long)w * h, "%s: %dx%d fragments do not split at %ld", gc->variant, w, h,
                  cap);

    gg_run_opts o;
    host_run_opts_default(&o);
    o.max_texture_size = max_tex;
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert_int_eq(r.m.draw_cap, 0);
    ck_assert_int_eq(r.m.draws, expected_draws(&r, max_tex ? max_tex : 16384, 1L << 40));
    size_t bytes = (size_t)r.in.m * r.in.n * sizeof(float);
    float *whole = malloc(bytes);
    ck_assert_ptr_nonnull(whole);
    memcpy(whole, r.c, bytes);

    o.max_draw_fragments = cap;
    memset(r.c, 0, bytes);
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert_msg(memcmp(whole, r.c, bytes) == 0, "%s: split C differs from the unsplit one",
                  gc->variant);
    long want = expected_draws(&r, max_tex ? max_tex : 16384, cap);
    ck_assert_msg(r.m.draws == want && want > r.m.passes, "%s: %ld draws, want %ld (%d passes)",
                  gc->variant, r.m.draws, want, r.m.passes);
    ck_assert_int_eq(r.m.draw_cap, cap);
    ck_assert(r.m.max_draw_s == 0);
    free(whole);
    free_case(&r);
}

START_TEST(draw_split_exact)
{
    split_case(&grid[_i / 2], _i % 2, 0, 900u + (unsigned)_i);
}
END_TEST

/* With texture-limit blocks too: C blocks and K blocks, each pass split. */
static const gemm_case blocks[] = {
    {"mrt=2x1,mc=1x4,np=3,profile=330,acc=copy", 67, 45, 83, 0, 1, 1.0f, 0.5f},
    {"mc=1x4,np=2,profile=430,out=image,blk=4x8", 67, 45, 83, 1, 0, 1.0f, 0.0f},
    {"mrt=2x2,mc=2x2,np=3,profile=330,fetch=ubo", 40, 37, 50, 1, 1, 2.0f, 0.0f},
};

START_TEST(draw_split_blocks)
{
    split_case(&blocks[_i / 2], _i % 2, 16, 950u + (unsigned)_i);
}
END_TEST

/* A time bound far below one fragment's time: after the first run times
 * its draws, every draw is one fragment (pingpong rt, image copy, ubo);
 * one far above it: one draw a pass. */
static const gemm_case timed[] = {
    {"mrt=2x2,mc=1x4,np=3,profile=330", 37, 53, 71, 0, 0, 1.0f, 0.0f},
    {"mc=1x4,np=4,profile=430,out=image,blk=4x8,fetch=image,acc=copy", 37, 53, 71, 1, 0, 2.0f,
     0.25f},
    {"mrt=2x1,mc=1x3,np=2,profile=300es,fetch=ubo,acc=copy", 29, 31, 45, 1, 0, -0.5f, 1.0f},
};

START_TEST(draw_time_bound)
{
    const gemm_case *gc = &timed[_i % 3];
    bool once = _i >= 3;
    gemm_run r;
    setup_case(&r, gc, 970u + (unsigned)_i);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = once;
    o.max_draw_s = 1e-12;
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert(r.m.max_draw_s == 1e-12);
    if (!once) { /* the timed runs: one fragment a draw */
        ck_assert_int_eq(r.m.draw_cap, 1);
        ck_assert_int_eq(r.m.draws, expected_draws(&r, 16384, 1));
    } else { /* the one run calibrates: more draws than passes */
        ck_assert_msg(r.m.draws > r.m.passes, "%ld draws", r.m.draws);
    }

    o.max_draw_s = 100.0;
    evaluate(&r, &o);
    expect_gemm_ok(&r, gc->variant);
    ck_assert_int_eq(r.m.draw_cap, 0);
    if (!once)
        ck_assert_int_eq(r.m.draws, expected_draws(&r, 16384, 1L << 40));
    free_case(&r);
}
END_TEST

/* Once runs with no kept rate: expected inside the bound with the margin
 * (the estimate times the padded work over m n k), one draw a pass,
 * untimed; expected a little longer, timed from one row (more draws); the
 * padding counts (these shapes pad).  C right every way. */
START_TEST(draw_expect_untimed)
{
    const gemm_case *gc = &timed[_i];
    gemm_run r;
    setup_case(&r, gc, 980u + (unsigned)_i);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = true;
    o.max_draw_s = 0.25;
    long whole = expected_draws(&r, 16384, 1L << 40);
    gg_split sp;
    plan_of(&r, 16384, &sp);
    double padded = (double)sp.mblocks * sp.nblocks * sp.kblocks * sp.L.mpad * sp.L.npad *
                    sp.L.kpad / ((double)r.in.m * r.in.n * r.in.k);
    ck_assert_msg(padded > 1.05, "%s pads %g", gc->variant, padded);
    const double scale[] = {0.99 / padded, 1.01 / padded, 1.0};
    for (int t = 0; t < 3; t++) {
        o.expect_s = o.max_draw_s / GG_EXPECT_SAFETY * scale[t];
        evaluate(&r, &o);
        expect_gemm_ok(&r, gc->variant);
        if (t == 0) {
            ck_assert_int_eq(r.m.draws, whole);
            ck_assert_int_eq(r.m.draw_cap, 0);
        } else {
            ck_assert_msg(r.m.draws > whole, "%s: %ld draws, %ld whole (scale %g)", gc->variant,
                          r.m.draws, whole, scale[t]);
        }
    }
    free_case(&r);
}
END_TEST

/* The library's way: once-mode calls on one session; the second takes the
 * rate the first measured from the cache and splits from its first draw. */
START_TEST(draw_once_cached)
{
    const gemm_case *gc = &grid[0];
    gemm_run r;
    setup_case(&r, gc, 990u);
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    ck_assert_ptr_nonnull(s);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = true;
    o.max_draw_s = 1e-12;
    char err[256];
    for (int call = 0; call < 2; call++) {
        memset(r.c, 0, (size_t)r.in.m * r.in.n * sizeof(float));
        ck_assert_int_eq(host_session_run(s, &r.v, &r.p, &r.in, &r.ref, &o, &r.m, r.c, NULL, err,
                                          sizeof err, NULL), 0);
        expect_gemm_ok(&r, gc->variant);
        if (call == 1) { /* no calibration: one fragment a draw throughout */
            ck_assert_int_eq(r.m.draw_cap, 1);
            ck_assert_int_eq(r.m.draws, expected_draws(&r, 16384, 1));
        }
    }
    host_session_free(s);
    free_case(&r);
}
END_TEST

/* Which calls stream (run_int.h): fetch=buffer only where the card's
 * memory is the process's (a software rasteriser) and the staging's
 * 256-byte ranges suit the card's alignment; fetch=ubo never; other fetch
 * paths on any card. */
/* A session with its core context made, its facts in *info. */
static gg_session *core_session(gg_ctx_info *info)
{
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    ck_assert_ptr_nonnull(s);
    char err[256];
    ck_assert_msg(host_session_context(s, GG_CTX_CORE, info, err, sizeof err, NULL) == 0, "%s",
                  err);
    return s;
}

START_TEST(draw_stream_which)
{
    gg_ctx_info info;
    gg_session *s = core_session(&info);
    char err[256];
    ck_assert(info.software); /* the suite's llvmpipe */
    ck_assert_int_gt(info.tbo_offset_align, 0);
    gg_run_opts o;
    host_run_opts_default(&o);
    o.once = o.stream = true;
    o.cache = host_session_cache(s, GG_CTX_CORE);
    gg_variant buf, ubo, tex;
    ck_assert_int_eq(gen_variant_parse("mrt=1x2,mc=1x2,np=3,profile=330,fetch=buffer", NULL, &buf,
                                       err, sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=2x2,np=5,profile=330,fetch=ubo", NULL, &ubo,
                                       err, sizeof err), 0);
    ck_assert_int_eq(gen_variant_parse("mrt=2x2,mc=1x4,np=3,profile=330", NULL, &tex, err,
                                       sizeof err), 0);
    ck_assert(host_stream_ok(&info, &buf, &o));
    ck_assert(host_stream_ok(&info, &tex, &o));
    ck_assert(!host_stream_ok(&info, &ubo, &o));
    gg_ctx_info card = info;
    card.software = false; /* a discrete card: A and B would be read across the bus */
    ck_assert(!host_stream_ok(&card, &buf, &o));
    ck_assert(host_stream_ok(&card, &tex, &o));
    card = info;
    card.tbo_offset_align = 512; /* 256-byte ranges would be misaligned */
    ck_assert(!host_stream_ok(&card, &buf, &o));
    card.tbo_offset_align = 0; /* no glTexBufferRange */
    ck_assert(!host_stream_ok(&card, &buf, &o));
    host_session_free(s);
}
END_TEST

/* host_rc_staging_reserve (glgemm_open's reserve): both buffers made at
 * once, whole and writable, then kept for every request that fits them;
 * a bigger one grows the buffer; none made under GLGEMM_STAGING=0. */
START_TEST(draw_staging_reserve)
{
    gg_ctx_info info;
    gg_session *s = core_session(&info);
    gg_run_cache *c = host_session_cache(s, GG_CTX_CORE);
    ck_assert_ptr_nonnull(c);
    long made0 = host_rc_staging_made(c);
    enum { UP = 1 << 20, DOWN = 1 << 19 };
    ck_assert(host_rc_staging_reserve(c, UP, DOWN));
    ck_assert_int_eq(host_rc_staging_made(c), made0 + 2);
    unsigned b0, b1;
    char *up = host_rc_staging(c, 0, 1000, &b0);
    ck_assert_ptr_nonnull(up);
    up[UP - 1] = 7; /* the whole reserve is the caller's */
    ck_assert_ptr_eq(host_rc_staging(c, 0, UP, &b1), up);
    ck_assert_uint_eq(b1, b0);
    const char *down = host_rc_staging(c, 1, DOWN, &b1);
    ck_assert_ptr_nonnull(down);
    ck_assert_int_eq(host_rc_staging_made(c), made0 + 2);
    char *big = host_rc_staging(c, 0, UP + 1, &b1);
    ck_assert_ptr_nonnull(big);
    big[UP] = 7;
    ck_assert_int_eq(host_rc_staging_made(c), made0 + 3);
    ck_assert_int_eq(setenv("GLGEMM_STAGING", "00", 1), 0);
    ck_assert(!host_rc_staging_reserve(c, 2 * UP, DOWN));
    unsetenv("GLGEMM_STAGING");
    ck_assert_int_eq(host_rc_staging_made(c), made0 + 3);
    host_session_free(s);
}
END_TEST

/* gg_run_opts.timing: told true once before the timed reps and false once
 * after, the reps inside that window (the evaluator pauses its warm worker
 * there); a run that fails among its reps still hears false. */
typedef struct {
    int calls;
    bool seq[4];
    double at[4];
} timing_log;

static void on_timing(void *user, bool timed)
{
    timing_log *l = user;
    if (l->calls < 4) {
        l->seq[l->calls] = timed;
        l->at[l->calls] = base_now_s();
    }
    l->calls++;
}

START_TEST(draw_timing_hook)
{
    const gemm_case *gc = &grid[0];
    gemm_run r;
    setup_case(&r, gc, 996u);
    r.p.reps = 3;
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    ck_assert_ptr_nonnull(s);
    for (int fault = 0; fault < 2; fault++) {
        if (fault) /* reported after the first timed rep (base/fault.h) */
            setenv("GLGEMM_FAULT", "lose_context", 1);
        timing_log l = {0};
        gg_run_opts o;
        host_run_opts_default(&o);
        o.timing = on_timing;
        o.timing_user = &l;
        char err[256];
        double t0 = base_now_s();
        ck_assert_int_eq(host_session_run(s, &r.v, &r.p, &r.in, &r.ref, &o, &r.m, r.c, NULL, err,
                                          sizeof err, NULL), 0);
        unsetenv("GLGEMM_FAULT");
        if (fault) { /* failed among the reps: told false all the same */
            ck_assert_msg(r.m.status == GG_CONTEXT_LOST, "%s", base_status_name(r.m.status));
            ck_assert_int_eq(l.calls, 2);
            ck_assert(l.seq[0] && !l.seq[1]);
            continue;
        }
        expect_gemm_ok(&r, gc->variant);
        ck_assert_int_eq(l.calls, 2);
        ck_assert(l.seq[0] && !l.seq[1]);
        ck_assert_int_eq(r.m.reps, 3);
        ck_assert(l.at[0] > t0 + r.m.upload_s && l.at[1] - l.at[0] >= r.m.seconds);
    }
    host_session_free(s);
    free_case(&r);
}
END_TEST

/* ---- the library's streamed call (gg_run_opts.stream) ---- */

typedef struct {
    pthread_mutex_t mu;
    int *seen; /* per row of C: how many times rows_done named it */
    int m;
    long calls;
} rows_log;

static void rows_seen(void *user, int r0, int r1)
{
    rows_log *l = user;
    pthread_mutex_lock(&l->mu);
    l->calls++;
    for (int i = r0; i < r1; i++)
        if (i >= 0 && i < l->m)
            l->seen[i]++;
        else
            l->seen[0] += 1000; /* out of range: fails below */
    pthread_mutex_unlock(&l->mu);
}

/* Every grid case streamed in 1, 2, 3 and 7 row bands (with texture-limit
 * blocks on the odd ones), twice on one session with new inputs (kept
 * targets and textures, refilled): C against the naive loop, and every row
 * named exactly once by rows_done where the variant streams (store=f32,
 * not fetch=ubo; fetch=buffer reads the staging in place through
 * glTexBufferRange, which llvmpipe's GL 4.5 has; the others run the old
 * way and name none). */
START_TEST(draw_stream)
{
    const gemm_case *gc = &grid[_i / 4];
    static const int bands[] = {1, 2, 3, 7};
    int nb = bands[_i % 4];
    gg_session *s = host_session_new(GG_BACKEND_EGL, 0);
    ck_assert_ptr_nonnull(s);
    for (int call = 0; call < 2; call++) {
        gemm_run r;
        setup_case(&r, gc, 700u + (unsigned)_i * 2u + (unsigned)call);
        rows_log log = {.m = r.in.m};
        pthread_mutex_init(&log.mu, NULL);
        log.seen = calloc((size_t)r.in.m, sizeof *log.seen);
        ck_assert_ptr_nonnull(log.seen);
        gg_run_opts o;
        host_run_opts_default(&o);
        o.once = true;
        o.stream = true;
        o.bands = nb;
        o.max_texture_size = nb == 3 ? 8 : 0;
        o.rows_done = rows_seen;
        o.rows_user = &log;
        char err[256];
        ck_assert_int_eq(host_session_run(s, &r.v, &r.p, &r.in, &r.ref, &o, &r.m, r.c, NULL, err,
                                          sizeof err, NULL), 0);
        char what[300];
        snprintf(what, sizeof what, "%s, %d bands, call %d", gc->variant, nb, call);
        expect_gemm_ok(&r, what);
        bool streams = r.v.store == GG_STORE_F32 && r.v.fetch != GG_FETCH_UBO;
        for (int i = 0; i < r.in.m; i++)
            ck_assert_msg(log.seen[i] == (streams ? 1 : 0), "%s: row %d named %d times", what, i,
                          log.seen[i]);
        free(log.seen);
        pthread_mutex_destroy(&log.mu);
        free_case(&r);
    }
    host_session_free(s);
}
END_TEST

/* The library: GLGEMM_MAX_DRAW_MS read by glgemm_open (a bad value fails
 * it); calls split down to one fragment a draw still give C right, the
 * first (which times its draws) and the next (the cache's rate). */
START_TEST(draw_library)
{
    setenv("GLGEMM_MAX_DRAW_MS", "soon", 1);
    ck_assert_ptr_null(glgemm_open(NULL, 0));
    ck_assert_msg(strstr(glgemm_last_error(), "GLGEMM_MAX_DRAW_MS=soon") != NULL, "%s",
                  glgemm_last_error());
    setenv("GLGEMM_MAX_DRAW_MS", "1e-9", 1);
    setenv("GLGEMM_CROSSOVER", "0", 1);
    setenv("GLGEMM_VERIFY", "full", 1);
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    gemm_case gc = {"mrt=2x2,mc=1x4,np=3,profile=330", 37, 53, 71, 0, 1, 1.5f, 0.5f};
    gemm_run r;
    setup_case(&r, &gc, 995u);
    for (int call = 0; call < 2; call++) {
        memcpy(r.c, r.in.c0, (size_t)r.in.m * r.in.n * sizeof(float));
        int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_TRANS, r.in.m, r.in.n,
                              r.in.k, r.p.alpha, r.in.a, r.in.lda, r.in.b, r.in.ldb, r.p.beta,
                              r.c, r.in.n);
        ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
        ck_assert_msg(!strncmp(glgemm_last_route(g), "gpu ", 4), "%s", glgemm_last_route(g));
        check_against_naive(&r, "library");
    }
    glgemm_close(g);
    free_case(&r);
}
END_TEST

/* The library's estimate (lib/inspect.h) from a best file in
 * GLGEMM_RESULTS: 2 m n k / gflops times the ratios above 1, for the
 * variant the record names.  A fast record: the first call of a new size
 * draws once a pass; a record as slow as 1 MFLOP/s: it times its draws;
 * another variant run explicitly: no estimate. */
START_TEST(draw_library_expect)
{
    char dir[128];
    tu_mkdtemp(dir, sizeof dir, "expect");
    setenv("GLGEMM_RESULTS", dir, 1);
    setenv("GLGEMM_MAX_DRAW_MS", "250", 1);
    setenv("GLGEMM_CROSSOVER", "0", 1);
    unsetenv("GLGEMM_VERIFY");
    glgemm_context *g = glgemm_open(NULL, 0);
    ck_assert_msg(g != NULL, "%s", glgemm_last_error());
    gemm_case gc = {"mrt=1x1,mc=1x4,np=3,profile=330", 48, 24, 200, 0, 0, 1.0f, 0.0f};
    gemm_run r;
    setup_case(&r, &gc, 996u);
    const double rates[] = {1000.0, 0.001}; /* GFLOP/s */
    for (int i = 0; i < 2; i++) {
        tu_write_best(dir, glgemm_card(g), 64, 32, 128, gc.variant, rates[i]);
        r.in.m = 40 + 8 * i; /* sizes this context has not run (no kept rate); A has 48 rows */
        int rc = glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, r.in.m,
                              r.in.n, r.in.k, 1.0f, r.in.a, r.in.lda, r.in.b, r.in.ldb, 0.0f,
                              r.c, r.in.n);
        ck_assert_msg(rc == GLGEMM_OK, "%s", glgemm_last_error());
        ck_assert_msg(strstr(glgemm_last_route(g), "np=3") != NULL, "%s", glgemm_last_route(g));
        /* 2*64*32*128 flops at the rate, times k/K = 200/128 (m n below M N: 1) */
        double want = 2.0 * 64 * 32 * 128 / (rates[i] * 1e9) * (200.0 / 128.0);
        double got = lib_inspect_last_expect_s(g);
        ck_assert_msg(fabs(got - want) <= 1e-9 * want, "expect %g, want %g", got, want);
        long whole = expected_draws(&r, 16384, 1L << 40); /* one draw a pass */
        if (i == 0)
            ck_assert_int_eq(lib_inspect_last_draws(g), whole);
        else
            ck_assert_msg(lib_inspect_last_draws(g) > whole, "%ld draws, %ld whole",
                          lib_inspect_last_draws(g), whole);
        check_against_naive(&r, "library");
    }
    /* m n above the record's, k below: the estimate grows with m n only */
    gemm_case wide = {gc.variant, 80, 40, 100, 0, 0, 1.0f, 0.0f};
    gemm_run r3;
    setup_case(&r3, &wide, 998u);
    ck_assert_int_eq(glgemm_sgemm(g, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS, GLGEMM_NOTRANS, r3.in.m,
                                  r3.in.n, r3.in.k, 1.0f, r3.in.a, r3.in.lda, r3.in.b, r3.in.ldb,
                                  0.0f, r3.c, r3.in.n),
                     GLGEMM_OK);
    double want3 = 2.0 * 64 * 32 * 128 / (rates[1] * 1e9) * (80.0 * 40 / (64.0 * 32));
    double got3 = lib_inspect_last_expect_s(g);
    ck_assert_msg(fabs(got3 - want3) <= 1e-9 * want3, "expect %g, want %g", got3, want3);
    check_against_naive(&r3, "library, wide");
    free_case(&r3);

    /* a variant the record does not name: no estimate, timed */
    gemm_case other = {"mrt=1x1,mc=1x4,np=2,profile=330", 56, 24, 200, 0, 0, 1.0f, 0.0f};
    gemm_run r2;
    setup_case(&r2, &other, 997u);
    ck_assert_int_eq(glgemm_sgemm_variant(g, other.variant, GLGEMM_ROW_MAJOR, GLGEMM_NOTRANS,
                                          GLGEMM_NOTRANS, r2.in.m, r2.in.n, r2.in.k, 1.0f,
                                          r2.in.a, r2.in.lda, r2.in.b, r2.in.ldb, 0.0f, r2.c,
                                          r2.in.n),
                     GLGEMM_OK);
    ck_assert(lib_inspect_last_expect_s(g) == 0);
    ck_assert_msg(lib_inspect_last_draws(g) > expected_draws(&r2, 16384, 1L << 40),
                  "%ld draws", lib_inspect_last_draws(g));
    glgemm_close(g);
    free_case(&r);
    free_case(&r2);
    tu_rm_rf(dir);
    unsetenv("GLGEMM_RESULTS");
    unsetenv("GLGEMM_MAX_DRAW_MS");
}
END_TEST

/* ---- the card's file and the command line ---- */

START_TEST(draw_file)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "draw");
    double ms = -1;
    char err[512], path[256], src[300];
    unsetenv("GLGEMM_MAX_DRAW_MS");
    ck_assert_int_eq(store_draw_read(dir, "card", &ms, err, sizeof err), 0); /* absent */
    const char *dirs[2] = {"/nonexistent-glgemm", dir};
    ck_assert(store_draw_bound_ms(dirs, 2, "card", src, sizeof src) == GG_MAX_DRAW_MS_DEFAULT);
    ck_assert_str_eq(src, "default");
    ck_assert_int_eq(store_draw_write(dir, "card", 12.5, "a note", err, sizeof err), 0);
    ck_assert_int_eq(store_draw_read(dir, "card", &ms, err, sizeof err), 1);
    ck_assert(ms == 12.5);
    ck_assert(store_draw_bound_ms(dirs, 2, "card", src, sizeof src) == 12.5);
    ck_assert(strstr(src, "card/draw.txt") != NULL);
    setenv("GLGEMM_MAX_DRAW_MS", "0", 1); /* the environment first; 0: no bound */
    ck_assert(store_draw_bound_ms(dirs, 2, "card", src, sizeof src) == 0);
    ck_assert_str_eq(src, "GLGEMM_MAX_DRAW_MS");
    setenv("GLGEMM_MAX_DRAW_MS", "fast", 1);
    ck_assert_int_eq(store_draw_env(&ms, err, sizeof err), -1);
    ck_assert(strstr(err, "GLGEMM_MAX_DRAW_MS=fast") != NULL);
    ck_assert(store_draw_bound_ms(dirs, 2, "card", NULL, 0) == 12.5); /* bad: as unset */
    unsetenv("GLGEMM_MAX_DRAW_MS");
    static const char *const bad[] = {"max_draw_ms: -1\n", "max_draw_ms: 1e99\n",
                                      "max_draw_ms: 5 ms\n", "# only a comment\n",
                                      "max_draw_ms: 1\nmax_draw_ms: 2\n", "250\n"};
    snprintf(path, sizeof path, "%s/card/draw.txt", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(bad[i], f);
        fclose(f);
        ck_assert_msg(store_draw_read(dir, "card", &ms, err, sizeof err) == -1, "%s", bad[i]);
        ck_assert(strchr(err, '\n') == NULL);
        ck_assert(store_draw_bound_ms(dirs, 2, "card", NULL, 0) == GG_MAX_DRAW_MS_DEFAULT);
    }
    double v;
    ck_assert_int_eq(store_draw_parse("0.5", &v), 0);
    ck_assert(v == 0.5);
    ck_assert_int_eq(store_draw_parse("", &v), -1);
    ck_assert_int_eq(store_draw_parse("nan", &v), -1);
    ck_assert_int_eq(store_draw_parse("inf", &v), -1);
    tu_rm_rf(dir);
}
END_TEST

#define VARIANT "mrt=2x2,mc=1x4,np=3,profile=330 --m 37 --n 53 --k 71 --reps 2"

/* The one folder under dir/results (the card's, which probe made). */
static void card_of(const char *dir, char *card, size_t len)
{
    char res[400];
    snprintf(res, sizeof res, "%s/results", dir);
    DIR *d = opendir(res);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(card, len, "%s", e->d_name);
            n++;
        }
    closedir(d);
    ck_assert_int_eq(n, 1);
}

START_TEST(draw_cli)
{
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "draw-cli");
    char *out, *err;
    /* probe records the default where there is no file */
    int rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "probe --quick --results results", &out, &err);
    ck_assert_msg(rc == 0, "probe: exit %d: %s", rc, err);
    free(out);
    free(err);
    char card[300], errs[256];
    card_of(dir, card, sizeof card);
    char res[400];
    snprintf(res, sizeof res, "%s/results", dir);
    double ms = -1;
    ck_assert_int_eq(store_draw_read(res, card, &ms, errs, sizeof errs), 1);
    ck_assert(ms == GG_MAX_DRAW_MS_DEFAULT);

    /* the default: no split at this size */
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "run " VARIANT, &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, "draws") == NULL, "%s", out);
    free(out);
    free(err);
    /* --max-draw-ms: one fragment a draw (7 x 19 fragments, 6 passes) */
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "run " VARIANT " --max-draw-ms 1e-9", &out, &err);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
    ck_assert_msg(strstr(out, ": ok,") && strstr(out, ", 798 draws of at most 1 fragments "
                                                      "(bound 1e-09 ms a draw)"), "%s", out);
    free(out);
    free(err);
    /* the environment, then --max-draw-ms over it */
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS=1e-9", "run " VARIANT, &out, &err);
    ck_assert_msg(rc == 0 && strstr(out, "798 draws"), "exit %d: %s %s", rc, out, err);
    free(out);
    free(err);
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS=1e-9", "run " VARIANT " --max-draw-ms 0", &out, &err);
    ck_assert_msg(rc == 0 && !strstr(out, "draws"), "exit %d: %s %s", rc, out, err);
    free(out);
    free(err);
    /* the card's file */
    ck_assert_int_eq(store_draw_write(res, card, 1e-9, NULL, errs, sizeof errs), 0);
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "run " VARIANT, &out, &err);
    ck_assert_msg(rc == 0 && strstr(out, "798 draws"), "exit %d: %s %s", rc, out, err);
    free(out);
    free(err);
    /* probe leaves a card's file alone, or records --max-draw-ms */
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "probe --quick --results results", NULL, NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(store_draw_read(res, card, &ms, errs, sizeof errs), 1);
    ck_assert(ms == 1e-9);
    rc = tu_run(dir, "GLGEMM_MAX_DRAW_MS", "probe --quick --results results --max-draw-ms 400",
                NULL, NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(store_draw_read(res, card, &ms, errs, sizeof errs), 1);
    ck_assert(ms == 400);

    /* bad values: exit 2, one line, nothing on stdout */
    static const char *const bad[][2] = {
        {"GLGEMM_MAX_DRAW_MS", "run " VARIANT " --max-draw-ms -1"},
        {"GLGEMM_MAX_DRAW_MS", "run " VARIANT " --max-draw-ms soon"},
        {"GLGEMM_MAX_DRAW_MS", "tune --size 8 --max-draw-ms 1e300"},
        {"GLGEMM_MAX_DRAW_MS=-5", "run " VARIANT},
        {"GLGEMM_MAX_DRAW_MS=x", "bench --size 8"},
        {"GLGEMM_MAX_DRAW_MS", "probe --quick --max-draw-ms nan"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = tu_run(dir, bad[i][0], bad[i][1], &out, &err);
        ck_assert_msg(rc == 2, "%s %s: exit %d", bad[i][0], bad[i][1], rc);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(tu_count_lines(err), 1);
        ck_assert_msg(strstr(err, "MAX_DRAW_MS") || strstr(err, "max-draw-ms"), "%s", err);
        free(out);
        free(err);
    }
    tu_rm_rf(dir);
}
END_TEST

Suite *make_draw_suite(void)
{
    Suite *s = suite_create("draw");
    TCase *pure = tcase_create("draw-cut");
    tcase_set_tags(pure, "pure");
    tcase_add_test(pure, draw_next_covers_once);
    tcase_add_test(pure, draw_next_changing_cap);
    suite_add_tcase(s, pure);

    TCase *gl = tcase_create("draw-gl");
    tcase_set_tags(gl, "gl");
    tcase_set_timeout(gl, 120);
    tcase_add_loop_test(gl, draw_split_exact, 0, 2 * NGRID);
    tcase_add_loop_test(gl, draw_split_blocks, 0, 2 * (int)(sizeof blocks / sizeof *blocks));
    tcase_add_loop_test(gl, draw_time_bound, 0, 6);
    tcase_add_test(gl, draw_once_cached);
    tcase_add_loop_test(gl, draw_expect_untimed, 0, 3);
    tcase_add_test(gl, draw_timing_hook);
    tcase_add_test(gl, draw_stream_which);
    tcase_add_test(gl, draw_staging_reserve);
    tcase_add_loop_test(gl, draw_stream, 0, 4 * NGRID);
    suite_add_tcase(s, gl);

    TCase *lib = tcase_create("draw-lib");
    tcase_set_tags(lib, "gl");
    tcase_set_timeout(lib, 120);
    tcase_add_test(lib, draw_library);
    tcase_add_test(lib, draw_library_expect);
    suite_add_tcase(s, lib);

    TCase *file = tcase_create("draw-file");
    tcase_add_test(file, draw_file);
    suite_add_tcase(s, file);

    TCase *cli = tcase_create("draw-cli");
    tcase_set_tags(cli, "gl");
    tcase_set_timeout(cli, 300);
    tcase_add_test(cli, draw_cli);
    suite_add_tcase(s, cli);
    return s;
}
