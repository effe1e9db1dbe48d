/* base/probe_data: what `glgemm probe` measures, without GL: the result
 * (gg_probe_result), the names of its points and rows, the ceilings read
 * from it, and probe.csv ("metric,variant,value,unit") written atomically
 * and read back.  glhost/probe.h measures it; the bound, the report and the
 * CLI read it. */
#ifndef GLGEMM_BASE_PROBE_DATA_H
#define GLGEMM_BASE_PROBE_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/measure.h"
#include "gen/gen.h"

/* One CSV row.  metric: mad | mad64 | fetch | write | imagestore | readback. */
typedef struct {
    char metric[16];
    char variant[48];
    double value;
    char unit[16];
} gg_probe_row;

/* Texel fetch points: [format][pattern].  Friendly: fragment (x, y) reads
 * texels (x + i, y).  Hostile: a hashed walk over a large texture.  The
 * GEMM patterns, those of the fastest shaders (12 fetches a k-step, k-step
 * q): 2x4-4x1 is mrt=2x4,mc=4x1's (texels 4q .. 4q+3 of rows 2y and 2y+1,
 * texels 4x .. 4x+3 of row q), 4x2-1x4 is mrt=4x2,mc=1x4's (texel q of rows
 * 4y .. 4y+3, texels 2x and 2x+1 of rows 4q .. 4q+3).  Their rates are the
 * fetch ceilings a GEMM meets. */
enum { GG_FETCH_R32F, GG_FETCH_RGBA32F, GG_FETCH_RGBA16F, GG_FETCH_NFMT };
enum { GG_FETCH_FRIENDLY, GG_FETCH_HOSTILE, GG_FETCH_GEMM24, GG_FETCH_GEMM42, GG_FETCH_NPAT };
extern const char *const base_fetch_fmt_names[GG_FETCH_NFMT]; /* "r32f", "rgba32f", "rgba16f" */
/* "friendly", "hostile", "gemm-2x4-4x1", "gemm-4x2-1x4" */
extern const char *const base_fetch_pat_names[GG_FETCH_NPAT];
int base_fetch_bytes(int fmt);                                /* bytes a texel: 4, 16, 8 */
/* The points the probe measures; of those, the ones every probe.csv has
 * (files written before RGBA16F and the GEMM pattern lack the others, which
 * then read as 0: not measured). */
bool base_probe_fetch_measured(int fmt, int pat);
bool base_probe_fetch_required(int fmt, int pat);

/* Fetch paths (gen.h's gg_fetch: texture, texelfetch, image, buffer).  The
 * points above are the texture path (texture() at texel centres).  The other
 * paths read the same texels in the GEMM patterns, RGBA32F and RGBA16F:
 * texelFetch on the 2D texture, imageLoad on it bound as an image2D of its
 * format, texelFetch on a buffer texture holding its texels row by row.
 * base_probe_path_measured(fmt, GG_FETCH_TEXTURE, pat) is
 * base_probe_fetch_measured(fmt, pat).  Their rows are
 * fetch,<fmt>-<path>-<pattern> (e.g. rgba32f-texelfetch-gemm-2x4-4x1);
 * files from before them lack them (not measured: 0). */
bool base_probe_path_measured(int fmt, int path, int pat);
/* The last path the probe measures: fetch=ubo (a uniform block per draw)
 * has no kernel of its own; the bound takes the fastest path for it.
 * ssbo: the texels row by row in a std430 storage buffer of vec4 (RGBA32F
 * only: the storage-buffer fetches read fp32), read at index y*w + x in
 * the GEMM patterns: the load/store path's rate, which the bound counts
 * for the matrices the storage-buffer fetches read (search/bound.h).  The
 * pairings (texelfetch+ssbo, ssbo+texelfetch) are not paths of their own. */
#define GG_PROBE_LAST_PATH GG_FETCH_SSBO
/* The row's variant: "<fmt>-<pattern>" for the texture path, else
 * "<fmt>-<path>-<pattern>".  Returns buf. */
char *base_probe_fetch_variant(int fmt, int path, int pat, char *buf, size_t len);

/* Image stores: a fragment writes N texels (a square block, sqrt(N) on a
 * side, as out=image's blk) of an RGBA32F image with imageStore.  Rows
 * imagestore,rgba32f-<N>-per-fragment (Gtexel/s and GB/s). */
#define GG_PROBE_NSTORE 4
extern const int base_probe_store_texels[GG_PROBE_NSTORE]; /* 1, 4, 16, 64 */
/* "rgba32f-<N>-per-fragment" for base_probe_store_texels[i].  Returns buf. */
char *base_probe_store_variant(int i, char *buf, size_t len);
#define GG_PROBE_MAX_ROWS 128

typedef struct {
    gg_status status;        /* GG_OK, or why the probe stopped */
    char detail[512];
    double mad_gflops;       /* max over the sweep: fragments*iters*chains*4*2/s */
    char mad_best[48];       /* the sweep point that gave it, e.g. "c4u8-512x512-i96" */
    /* The same sweep in double (dvec4 chains; rows mad64,<point> and
     * mad64,max): the fp64 multiply-add ceiling of store=f64 and dd.  0 and
     * no rows where the context has no doubles (ES, WebGL2, a desktop GL
     * below 4.0 without GL_ARB_gpu_shader_fp64) and in files from before. */
    double mad64_gflops;
    char mad64_best[48];
    double fetch_gtexels[GG_FETCH_NFMT][GG_FETCH_NPAT]; /* Gtexel/s; 0: not measured */
    double fetch_gbs[GG_FETCH_NFMT][GG_FETCH_NPAT];     /* the same in GB/s */
    int write_max_targets;   /* targets measured: 1 .. this */
    double write_gbs[GG_MAX_TARGETS + 1];     /* index: number of targets (0 unused) */
    double write_gtexels[GG_MAX_TARGETS + 1];
    /* Paths other than texture, [format][path][pattern], Gtexel/s and GB/s;
     * 0: not measured.  [..][GG_FETCH_TEXTURE][..] is always 0: the texture
     * path's rates are fetch_gtexels. */
    double path_gtexels[GG_FETCH_NFMT][GG_FETCH_COUNT][GG_FETCH_NPAT];
    double path_gbs[GG_FETCH_NFMT][GG_FETCH_COUNT][GG_FETCH_NPAT];
    /* imageStore into RGBA32F, index as base_probe_store_texels; 0: not measured. */
    double store_gtexels[GG_PROBE_NSTORE];
    double store_gbs[GG_PROBE_NSTORE];
    double readback_gbs;     /* glReadPixels of an RGBA32F target */
    int nrows;               /* every point measured, summary rows included */
    gg_probe_row rows[GG_PROBE_MAX_ROWS];
} gg_probe_result;

/* The fetch ceiling for a GEMM reading textures of that format: the faster
 * GEMM pattern where measured, else the cache-friendly rate; 0 if neither. */
double base_probe_fetch_ceiling(const gg_probe_result *r, int fmt);

/* The fastest rate (Gtexel/s) measured for reading that format by that
 * path: the texture path over every pattern (friendly, hostile, GEMM), the
 * others over their GEMM patterns; 0 if none was measured. */
double base_probe_path_rate(const gg_probe_result *r, int fmt, int path);
/* The fastest imageStore rate (Gtexel/s) over the texels a fragment; 0 if
 * not measured. */
double base_probe_store_rate(const gg_probe_result *r);

/* Writes "metric,variant,value,unit" then r's rows to path atomically (a
 * temporary file beside it, then rename).  0, or -1 with one line in err. */
int base_probe_write_csv(const gg_probe_result *r, const char *path, char *err, size_t errlen);

/* Reads such a file back: rows and the summary fields.  0, or -1 with one
 * line in err (unreadable, bad header or row, a summary metric missing). */
int base_probe_read_csv(const char *path, gg_probe_result *r, char *err, size_t errlen);

#endif
