/* Variants: parse, print, check against a card (see gen.h and SPEC.md
 * "Variants").
 *
 * Syntax rules, each of which fails the parse with one line naming the key
 * and what is allowed:
 *  - items joined by commas, no whitespace anywhere, no empty items;
 *  - the first item may be a preset (larsen, nv-single, nv-multi, tfjs, best);
 *    every other item is key=value, each key at most once; a key given after
 *    a preset overrides the preset's value;
 *  - mrt=RxC with R, C >= 1 and R*C <= GG_MAX_TARGETS (the card's
 *    GL_MAX_DRAW_BUFFERS is checked later, by gen_variant_check_card);
 *  - mc=RxC with R*C <= 4: a texel has four channels;
 *  - np: an integer >= 1 or `all`; unroll 0 or 1; profile 120, 330, 300es,
 *    430, 310es; compiler glsl or spirv; acc copy, pingpong or blend; store
 *    f32, f16, f16x8, f64, dd or df; out rt or image; fetch texture, texelfetch, image,
 *    buffer, ubo, ssbo, texelfetch+ssbo, ssbo+texelfetch;
 *  - blk=RxC (R*C <= GG_MAX_BLK) only with out=image, which needs it, whole
 *    texels of mc (R a multiple of mc's rows, C of its columns), and
 *    out=image with mrt=1x1 only (it writes no render target).
 * A text without `store` is store=f32, without `out` out=rt, without `fetch`
 * fetch=texture: the records, best files and reports written before a key
 * existed read as what they measured, and the canonical form leaves out
 * out=rt and fetch=texture so that they stay the same text.
 * Numbers are plain decimal digits without sign or leading zero, so every
 * accepted text has one spelling of each value. */
#include "gen/gen.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gen/util.h"
#include "gen/wide.h"

#define PRESETS_LIST "larsen, nv-single, nv-multi, tfjs, best"

enum {
    K_MRT, K_MC, K_NP, K_UNROLL, K_PROFILE, K_COMPILER, K_ACC, K_STORE, K_OUT, K_BLK, K_FETCH,
    K_TILE, K_KU, K_ORDER, K_COUNT
};

const gg_key gen_keys[GG_KEY_COUNT] = {
    {"mrt", GG_KEY_MRT},         {"mc", GG_KEY_MC},           {"np", GG_KEY_NP},
    {"unroll", GG_KEY_UNROLL},   {"profile", GG_KEY_PROFILE}, {"compiler", GG_KEY_COMPILER},
    {"acc", GG_KEY_ACC},         {"store", GG_KEY_STORE},     {"out", GG_KEY_OUT},
    {"blk", GG_KEY_BLK},         {"fetch", GG_KEY_FETCH},     {"tile", GG_KEY_TILE},
    {"ku", GG_KEY_KU},           {"order", GG_KEY_ORDER},
};
_Static_assert(K_COUNT == GG_KEY_COUNT, "one key table");

const gg_shape gen_pruned_mc[GG_PRUNED_MC] = {{1, 1}, {1, 2}, {1, 4}, {2, 2}, {4, 1}};
const gg_shape gen_pruned_mrt[GG_PRUNED_MRT] = {{1, 1}, {1, 2}, {1, 4}, {2, 2},
                                               {1, 8}, {2, 4}, {4, 2}};

/* What each key allows, for messages ("<key>: '<v>' is not allowed; use ..."). */
static const char *const key_allowed[K_COUNT] = {
    "RxC with R, C >= 1 and R*C at most 8 (e.g. 2x2)",
    "RxC with R, C >= 1 and R*C at most 4 (1x1, 1x2, 2x1, 1x3, 3x1, 1x4, 4x1, 2x2)",
    "an integer >= 1, or all",
    "0 or 1",
    "120, 330, 300es, 430 or 310es",
    "glsl or spirv",
    "copy, pingpong or blend",
    "f32, f16, f16x8, f64, dd or df",
    "rt or image",
    "RxC scalars with R, C >= 1 and R*C at most 256 (e.g. 8x16), whole texels of mc",
    "texture, texelfetch, image, buffer, ubo, ssbo, texelfetch+ssbo or ssbo+texelfetch",
    "WxH fragments, W, H >= 1 and W*H at least " GG_TILE_MIN_TEXT ", optionally followed by c "
    "(tiles in columns) or z (Z order), e.g. 64x32 or 64x64z; or none (one draw)",
    "1, 2 or 4",
    "plain or frag (frag: out=image only)",
};

static const char *const profile_names[GG_PROFILE_COUNT] = {"120", "330", "300es", "430",
                                                             "310es"};
static const char *const compiler_names[] = {"glsl", "spirv"};
static const char *const acc_names[] = {"copy", "pingpong", "blend"};
static const char *const store_names[GG_STORE_COUNT] = {"f32", "f16", "f16x8", "f64", "dd", "df"};
static const char *const out_names[GG_OUT_COUNT] = {"rt", "image"};
static const char *const fetch_names[GG_FETCH_COUNT] = {
    "texture", "texelfetch", "image", "buffer", "ubo", "ssbo", "texelfetch+ssbo", "ssbo+texelfetch"};
static const char *const order_names[GG_ORDER_COUNT] = {"plain", "frag"};
static const char tile_suffix[GG_TILE_ORDER_COUNT] = {0, 'c', 'z'};

const char *gen_profile_name(gg_profile p)
{
    return (unsigned)p < GG_PROFILE_COUNT ? profile_names[p] : "?";
}

const char *gen_compiler_name(gg_compiler c)
{
    return (unsigned)c < 2 ? compiler_names[c] : "?";
}

const char *gen_acc_name(gg_acc a)
{
    return (unsigned)a < 3 ? acc_names[a] : "?";
}

const char *gen_store_name(gg_store s)
{
    return (unsigned)s < GG_STORE_COUNT ? store_names[s] : "?";
}

gg_store gen_store_inputs(gg_store s) { return s == GG_STORE_F16X8 ? GG_STORE_F16 : s; }

bool gen_store_wide(gg_store s)
{
    return s == GG_STORE_F64 || s == GG_STORE_DD || s == GG_STORE_DF;
}

const char *gen_out_name(gg_out o)
{
    return (unsigned)o < GG_OUT_COUNT ? out_names[o] : "?";
}

const char *gen_fetch_name(gg_fetch f)
{
    return (unsigned)f < GG_FETCH_COUNT ? fetch_names[f] : "?";
}

gg_fetch gen_fetch_path(gg_fetch f, int matrix)
{
    switch (f) {
    case GG_FETCH_UBO: return matrix ? GG_FETCH_TEXELFETCH : GG_FETCH_UBO;
    case GG_FETCH_TEXELFETCH_SSBO: return matrix ? GG_FETCH_SSBO : GG_FETCH_TEXELFETCH;
    case GG_FETCH_SSBO_TEXELFETCH: return matrix ? GG_FETCH_TEXELFETCH : GG_FETCH_SSBO;
    default: return f;
    }
}

int gen_fetch_ssbos(gg_fetch f)
{
    return (gen_fetch_path(f, 0) == GG_FETCH_SSBO) + (gen_fetch_path(f, 1) == GG_FETCH_SSBO);
}

const char *gen_order_name(gg_order o)
{
    return (unsigned)o < GG_ORDER_COUNT ? order_names[o] : "?";
}

char *gen_tile_format(const gg_variant *v, char *buf, size_t len)
{
    if (!v->tile.rows)
        snprintf(buf, len, "-");
    else if (tile_suffix[v->tile_order])
        snprintf(buf, len, "%dx%d%c", v->tile.cols, v->tile.rows, tile_suffix[v->tile_order]);
    else
        snprintf(buf, len, "%dx%d", v->tile.cols, v->tile.rows);
    return buf;
}

void gen_variant_default(gg_variant *v)
{
    v->mrt.rows = v->mrt.cols = 1;
    v->mc.rows = v->mc.cols = 1;
    v->np = GG_NP_ALL;
    v->unroll = 0;
    v->profile = GG_PROFILE_330;
    v->compiler = GG_COMPILER_GLSL;
    v->acc = GG_ACC_PINGPONG;
    v->store = GG_STORE_F32;
    v->out = GG_OUT_RT;
    v->blk.rows = v->blk.cols = 0;
    v->fetch = GG_FETCH_TEXTURE;
    v->tile.rows = v->tile.cols = 0;
    v->tile_order = GG_TILE_ROWS;
    v->ku = 1;
    v->order = GG_ORDER_PLAIN;
}

/* The presets of SPEC.md: mrt, mc, np, unroll; other keys keep defaults. */
static const struct {
    const char *name;
    int mrt_r, mrt_c, mc_r, mc_c, np, unroll;
} presets[] = {
    {"larsen", 1, 1, 1, 1, GG_NP_ALL, 0},
    {"nv-single", 1, 1, 2, 2, 128, 1},
    {"nv-multi", 1, 1, 1, 4, 6, 1},
    {"tfjs", 1, 1, 2, 2, GG_NP_ALL, 0},
};

/* A decimal number without sign or leading zero, [s, s+n); -1 if not one or
 * above limit. */
static long parse_count(const char *s, size_t n, long limit)
{
    if (n == 0 || n > 10 || s[0] == '0')
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= limit ? v : -1;
}

static int find_key(const char *s, size_t n)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strlen(gen_keys[k].name) == n && !strncmp(gen_keys[k].name, s, n))
            return k;
    return -1;
}

static int find_word(const char *const *words, int count, const char *s, size_t n)
{
    for (int i = 0; i < count; i++)
        if (strlen(words[i]) == n && !strncmp(words[i], s, n))
            return i;
    return -1;
}

static bool is_preset_name(const char *s, size_t n)
{
    if (n == 4 && !strncmp(s, "best", 4))
        return true;
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (strlen(presets[i].name) == n && !strncmp(presets[i].name, s, n))
            return true;
    return false;
}

/* RxC for mrt (limit 8), mc (limit 4) or blk (limit GG_MAX_BLK). */
/* "AxB", each a count up to a million, [s, s+n): *a and *b, or -1. */
static void parse_pair(const char *s, size_t n, long *a, long *b)
{
    const char *x = memchr(s, 'x', n);
    *a = *b = -1;
    if (x) {
        *a = parse_count(s, (size_t)(x - s), 1000000);
        *b = parse_count(x + 1, n - (size_t)(x - s) - 1, 1000000);
    }
}

static int parse_shape(int key, const char *s, size_t n, gg_shape *out, char *err, size_t errlen)
{
    long r, c;
    parse_pair(s, n, &r, &c);
    if (r < 1 || c < 1)
        return gen_fail(err, errlen, "%s: '%.*s' is not allowed; use %s", gen_keys[key].name,
                       (int)(n > 40 ? 40 : n), s, key_allowed[key]);
    long prod = r * c;
    if (key == K_MRT && prod > GG_MAX_TARGETS)
        return gen_fail(err, errlen, "mrt: %ldx%ld needs %ld render targets; R*C must be at most %d",
                       r, c, prod, GG_MAX_TARGETS);
    if (key == K_MC && prod > 4)
        return gen_fail(err, errlen, "mc: %ldx%ld packs %ld values; R*C must be at most 4", r, c, prod);
    if (key == K_BLK && prod > GG_MAX_BLK)
        return gen_fail(err, errlen, "blk: %ldx%ld is %ld outputs a fragment; R*C must be at most %d",
                       r, c, prod, GG_MAX_BLK);
    out->rows = (int)r;
    out->cols = (int)c;
    return 0;
}

/* tile=WxH[c|z]: W columns by H rows of fragments a draw. */
static int parse_tile(const char *s, size_t n, gg_variant *v, char *err, size_t errlen)
{
    gg_tile_order ord = GG_TILE_ROWS;
    if (n == 4 && !strncmp(s, "none", 4)) { /* the default, said out loud (--fix tile=none) */
        v->tile.rows = v->tile.cols = 0;
        v->tile_order = GG_TILE_ROWS;
        return 0;
    }
    if (n > 1 && (s[n - 1] == 'c' || s[n - 1] == 'z')) {
        ord = s[n - 1] == 'c' ? GG_TILE_COLS : GG_TILE_Z;
        n--;
    }
    long w, h;
    parse_pair(s, n, &w, &h);
    if (w < 1 || h < 1)
        return gen_fail(err, errlen, "tile: '%.*s' is not allowed; use %s", (int)(n > 40 ? 40 : n), s,
                       key_allowed[K_TILE]);
    if (w * h < GG_TILE_MIN)
        return gen_fail(err, errlen, "tile: %ldx%ld is %ld fragments a draw; W*H must be at least %d "
                                 "(smaller draws cost more than they can save)", w, h, w * h,
                       GG_TILE_MIN);
    v->tile.cols = (int)w;
    v->tile.rows = (int)h;
    v->tile_order = ord;
    return 0;
}

static int parse_value(int key, const char *s, size_t n, gg_variant *v, char *err, size_t errlen)
{
    int i = -1;
    long x;
    if (n == 0)
        return gen_fail(err, errlen, "%s: empty value; use %s", gen_keys[key].name, key_allowed[key]);
    switch (key) {
    case K_MRT: return parse_shape(key, s, n, &v->mrt, err, errlen);
    case K_MC: return parse_shape(key, s, n, &v->mc, err, errlen);
    case K_BLK: return parse_shape(key, s, n, &v->blk, err, errlen);
    case K_NP:
        if (n == 3 && !strncmp(s, "all", 3)) {
            v->np = GG_NP_ALL;
            return 0;
        }
        if ((x = parse_count(s, n, INT_MAX)) >= 1) {
            v->np = (int)x;
            return 0;
        }
        break;
    case K_UNROLL:
        if (n == 1 && (s[0] == '0' || s[0] == '1')) {
            v->unroll = s[0] - '0';
            return 0;
        }
        break;
    case K_PROFILE:
        if ((i = find_word(profile_names, GG_PROFILE_COUNT, s, n)) >= 0) {
            v->profile = (gg_profile)i;
            return 0;
        }
        break;
    case K_COMPILER:
        if ((i = find_word(compiler_names, 2, s, n)) >= 0) {
            v->compiler = (gg_compiler)i;
            return 0;
        }
        break;
    case K_ACC:
        if ((i = find_word(acc_names, 3, s, n)) >= 0) {
            v->acc = (gg_acc)i;
            return 0;
        }
        break;
    case K_STORE:
        if ((i = find_word(store_names, GG_STORE_COUNT, s, n)) >= 0) {
            v->store = (gg_store)i;
            return 0;
        }
        break;
    case K_OUT:
        if ((i = find_word(out_names, GG_OUT_COUNT, s, n)) >= 0) {
            v->out = (gg_out)i;
            return 0;
        }
        break;
    case K_FETCH:
        if ((i = find_word(fetch_names, GG_FETCH_COUNT, s, n)) >= 0) {
            v->fetch = (gg_fetch)i;
            return 0;
        }
        break;
    case K_TILE: return parse_tile(s, n, v, err, errlen);
    case K_KU:
        if (n == 1 && (s[0] == '1' || s[0] == '2' || s[0] == '4')) {
            v->ku = s[0] - '0';
            return 0;
        }
        break;
    case K_ORDER:
        if ((i = find_word(order_names, GG_ORDER_COUNT, s, n)) >= 0) {
            v->order = (gg_order)i;
            return 0;
        }
        break;
    }
    return gen_fail(err, errlen, "%s: '%.*s' is not allowed; use %s", gen_keys[key].name,
                   (int)(n > 40 ? 40 : n), s, key_allowed[key]);
}

static int apply_preset(const char *s, size_t n, const gg_variant *best, gg_variant *v,
                        char *err, size_t errlen)
{
    if (n == 4 && !strncmp(s, "best", 4)) {
        if (!best)
            return gen_fail(err, errlen, "best: no best variant is recorded for this card and problem "
                                     "(run glgemm tune first)");
        *v = *best;
        return 0;
    }
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        if (strlen(presets[i].name) == n && !strncmp(presets[i].name, s, n)) {
            gen_variant_default(v);
            v->mrt.rows = presets[i].mrt_r;
            v->mrt.cols = presets[i].mrt_c;
            v->mc.rows = presets[i].mc_r;
            v->mc.cols = presets[i].mc_c;
            v->np = presets[i].np;
            v->unroll = presets[i].unroll;
            return 0;
        }
    }
    if (find_key(s, n) >= 0)
        return gen_fail(err, errlen, "%.*s: missing '=value'; use %s", (int)n, s, key_allowed[find_key(s, n)]);
    return gen_fail(err, errlen, "unknown preset '%.*s' (presets: " PRESETS_LIST "; or key=value pairs, keys: "
                   GG_KEYS_LIST ")", (int)(n > 40 ? 40 : n), s);
}

/* The rules that tie out, blk and mrt (see the top). */
static int check_blk(gg_variant *v, char *err, size_t errlen)
{
    if (v->out == GG_OUT_RT) {
        if (v->blk.rows)
            return gen_fail(err, errlen, "blk: only with out=image (out=rt computes mrt x mc texels "
                                     "a fragment)");
        return 0;
    }
    if (!v->blk.rows)
        return gen_fail(err, errlen, "out=image needs blk=RxC, the rows x columns of C one fragment "
                                 "computes (e.g. blk=8x16)");
    if (v->mrt.rows != 1 || v->mrt.cols != 1)
        return gen_fail(err, errlen, "mrt: out=image writes no render target; leave mrt at 1x1 and "
                                 "give the block with blk (here mrt=%dx%d)", v->mrt.rows, v->mrt.cols);
    if (v->blk.rows % v->mc.rows || v->blk.cols % v->mc.cols)
        return gen_fail(err, errlen, "blk: %dx%d is not whole texels of mc=%dx%d; its rows must be a "
                                 "multiple of %d and its columns of %d", v->blk.rows, v->blk.cols,
                       v->mc.rows, v->mc.cols, v->mc.rows, v->mc.cols);
    return 0;
}

int gen_variant_parse(const char *text, const gg_variant *best, gg_variant *out,
                     char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!text || !*text)
        return gen_fail(err, errlen, "empty variant; give key=value pairs (keys: " GG_KEYS_LIST
                                 ") or a preset (" PRESETS_LIST ")");
    for (const char *p = text; *p; p++)
        if (isspace((unsigned char)*p))
            return gen_fail(err, errlen, "whitespace is not allowed in a variant; write "
                                     "key=value,key=value (e.g. nv-single,np=64)");
    gg_variant v;
    gen_variant_default(&v);
    bool seen[K_COUNT] = {false};
    const char *item = text;
    for (int idx = 0;; idx++) {
        const char *end = strchr(item, ',');
        size_t n = end ? (size_t)(end - item) : strlen(item);
        if (n == 0)
            return gen_fail(err, errlen, "empty item in variant (a stray comma); write "
                                     "key=value,key=value");
        const char *eq = memchr(item, '=', n);
        if (!eq) {
            if (idx == 0) {
                if (apply_preset(item, n, best, &v, err, errlen))
                    return -1;
            } else if (find_key(item, n) >= 0) {
                int k = find_key(item, n);
                return gen_fail(err, errlen, "%s: missing '=value'; use %s", gen_keys[k].name, key_allowed[k]);
            } else if (is_preset_name(item, n)) {
                return gen_fail(err, errlen, "preset '%.*s' must come first, then key=value overrides",
                               (int)n, item);
            } else {
                return gen_fail(err, errlen, "'%.*s' is not key=value (keys: " GG_KEYS_LIST ")",
                               (int)(n > 40 ? 40 : n), item);
            }
        } else {
            size_t kn = (size_t)(eq - item);
            int k = find_key(item, kn);
            if (k < 0)
                return gen_fail(err, errlen, "unknown key '%.*s' (keys: " GG_KEYS_LIST ")",
                               (int)(kn > 40 ? 40 : kn), item);
            if (seen[k])
                return gen_fail(err, errlen, "%s given twice; each key at most once", gen_keys[k].name);
            seen[k] = true;
            if (parse_value(k, eq + 1, n - kn - 1, &v, err, errlen))
                return -1;
        }
        if (!end)
            break;
        item = end + 1;
    }
    if (check_blk(&v, err, errlen))
        return -1;
    if (v.ku > 1 && v.unroll)
        return gen_fail(err, errlen, "ku: %d k-steps a loop iteration needs unroll=0 (unroll=1 writes "
                                 "the whole k loop out)", v.ku);
    /* Image loads and stores name their profile themselves (SPEC.md): without
     * a profile key, the lowest with them for the API of the profile in force
     * (430 on desktop GL, 310es on GLES); so do the storage-buffer fetches
     * (GLSL 4.30, ES 3.10). */
    if (!seen[K_PROFILE] && (v.out == GG_OUT_IMAGE || v.fetch == GG_FETCH_IMAGE ||
                             gen_fetch_ssbos(v.fetch)))
        v.profile = v.profile == GG_PROFILE_300ES || v.profile == GG_PROFILE_310ES
                        ? GG_PROFILE_310ES
                        : GG_PROFILE_430;
    *out = v;
    return 0;
}

char *gen_variant_format(const gg_variant *v, char *buf, size_t len)
{
    char np[16];
    if (v->np == GG_NP_ALL)
        snprintf(np, sizeof np, "all");
    else
        snprintf(np, sizeof np, "%d", v->np);
    snprintf(buf, len, "mrt=%dx%d,mc=%dx%d,np=%s,unroll=%d,profile=%s,compiler=%s,acc=%s,store=%s",
             v->mrt.rows, v->mrt.cols, v->mc.rows, v->mc.cols, np, v->unroll,
             gen_profile_name(v->profile), gen_compiler_name(v->compiler), gen_acc_name(v->acc),
             gen_store_name(v->store));
    size_t used = strlen(buf);
    if (v->out == GG_OUT_IMAGE && used < len)
        used += (size_t)snprintf(buf + used, len - used, ",out=image,blk=%dx%d", v->blk.rows,
                                 v->blk.cols);
    if (v->fetch != GG_FETCH_TEXTURE && used < len)
        used += (size_t)snprintf(buf + used, len - used, ",fetch=%s", gen_fetch_name(v->fetch));
    char tile[32];
    if (v->tile.rows && used < len)
        used += (size_t)snprintf(buf + used, len - used, ",tile=%s", gen_tile_format(v, tile, sizeof tile));
    if (v->ku != 1 && used < len)
        used += (size_t)snprintf(buf + used, len - used, ",ku=%d", v->ku);
    if (v->order != GG_ORDER_PLAIN && used < len)
        snprintf(buf + used, len - used, ",order=%s", gen_order_name(v->order));
    return buf;
}

bool gen_variant_equal(const gg_variant *a, const gg_variant *b)
{
    return a->mrt.rows == b->mrt.rows && a->mrt.cols == b->mrt.cols && a->mc.rows == b->mc.rows &&
           a->mc.cols == b->mc.cols && a->np == b->np && a->unroll == b->unroll &&
           a->profile == b->profile && a->compiler == b->compiler && a->acc == b->acc &&
           a->store == b->store && a->out == b->out && a->blk.rows == b->blk.rows &&
           a->blk.cols == b->blk.cols && a->fetch == b->fetch && a->tile.rows == b->tile.rows &&
           a->tile.cols == b->tile.cols && a->tile_order == b->tile_order && a->ku == b->ku &&
           a->order == b->order;
}

/* Combinations that cannot exist on any card (why filled), 0 when none. */
static int static_invalid(const gg_variant *v, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    bool modern = v->profile == GG_PROFILE_430 || v->profile == GG_PROFILE_310ES;
    int ch = v->mc.rows * v->mc.cols;
    if (v->compiler == GG_COMPILER_SPIRV && v->profile == GG_PROFILE_120)
        return gen_fail(why, whylen, "compiler=spirv needs profile=330: glslang makes OpenGL SPIR-V "
                                 "only from desktop GLSL 3.30 or later, not GLSL 1.20");
    if (v->compiler == GG_COMPILER_SPIRV && (v->profile == GG_PROFILE_300ES ||
                                             v->profile == GG_PROFILE_310ES))
        return gen_fail(why, whylen, "compiler=spirv needs profile=330: OpenGL SPIR-V "
                                 "(GL_ARB_gl_spirv) has no GLSL ES input, so glslang cannot make it "
                                 "from GLSL ES %s", v->profile == GG_PROFILE_300ES ? "3.00" : "3.10");
    if (v->compiler == GG_COMPILER_SPIRV && v->profile != GG_PROFILE_330)
        return gen_fail(why, whylen, "compiler=spirv needs profile=330: the SPIR-V path is built "
                                 "from the GLSL 3.30 text");
    if (v->compiler == GG_COMPILER_SPIRV &&
        (v->out != GG_OUT_RT || v->fetch > GG_FETCH_TEXELFETCH))
        return gen_fail(why, whylen, "compiler=spirv covers out=rt with fetch=texture or texelfetch "
                                 "only");
    if (v->out == GG_OUT_IMAGE && !modern)
        return gen_fail(why, whylen, "out=image needs profile=430 or 310es: imageStore is GLSL 4.20 "
                                 "and GLSL ES 3.10, not profile %s", gen_profile_name(v->profile));
    if (v->out == GG_OUT_IMAGE && v->acc == GG_ACC_BLEND)
        return gen_fail(why, whylen, "acc=blend needs render targets; out=image accumulates with "
                                 "acc=pingpong or copy");
    if (v->out == GG_OUT_IMAGE && v->acc == GG_ACC_COPY && v->profile == GG_PROFILE_310ES)
        return gen_fail(why, whylen, "out=image,acc=copy reads and writes one image in place, which "
                                 "GLSL ES 3.10 allows for r32f only; use acc=pingpong");
    if (v->fetch == GG_FETCH_TEXELFETCH && v->profile == GG_PROFILE_120)
        return gen_fail(why, whylen, "fetch=texelfetch needs GLSL 1.30 or later, not profile 120");
    if (v->fetch == GG_FETCH_IMAGE && !modern)
        return gen_fail(why, whylen, "fetch=image needs profile=430 or 310es: imageLoad is GLSL 4.20 "
                                 "and GLSL ES 3.10, not profile %s", gen_profile_name(v->profile));
    /* (store=f16x8 reads rgba32ui whatever mc: its own rule below) */
    if (v->fetch == GG_FETCH_IMAGE && v->store != GG_STORE_F16X8 &&
        (ch == 3 || (ch == 2 && v->profile == GG_PROFILE_310ES)))
        return gen_fail(why, whylen, "fetch=image has no image format of %d channels%s (mc=%dx%d)",
                       ch, ch == 2 ? " in GLSL ES" : "", v->mc.rows, v->mc.cols);
    if (v->fetch == GG_FETCH_BUFFER && v->profile != GG_PROFILE_330 && v->profile != GG_PROFILE_430)
        return gen_fail(why, whylen, "fetch=buffer needs profile=330 or 430: buffer textures are not "
                                 "in GLSL 1.20 nor GLSL ES before 3.20");
    /* Storage blocks in fragment shaders: GLSL 4.30 and ES 3.10 (none in
     * ES 3.00, so none in WebGL2); store=f16 reads its halves in pairs
     * (unpackHalf2x16, gen_pack_ssbo_bytes), store=f16x8 not at all. */
    if (gen_fetch_ssbos(v->fetch) && !modern)
        return gen_fail(why, whylen, "fetch=%s needs profile=430 or 310es: shader storage buffers are "
                                 "GLSL 4.30 and GLSL ES 3.10, not profile %s (nor WebGL2)",
                       gen_fetch_name(v->fetch), gen_profile_name(v->profile));
    if (gen_fetch_ssbos(v->fetch) && v->store == GG_STORE_F16X8)
        return gen_fail(why, whylen, "fetch=%s: store=f16x8 has no storage-buffer path (store=f16 "
                                 "reads halves from one)", gen_fetch_name(v->fetch));
    if (gen_fetch_ssbos(v->fetch) && v->store == GG_STORE_F16 && v->mc.rows * v->mc.cols != 2 &&
        v->mc.rows * v->mc.cols != 4)
        return gen_fail(why, whylen, "fetch=%s with store=f16 needs 2 or 4 elements a texel (mc=1x2, "
                                 "2x1, 1x4, 4x1 or 2x2): the storage buffer holds the halves in pairs "
                                 "(unpackHalf2x16), not mc=%dx%d's %d", gen_fetch_name(v->fetch),
                       v->mc.rows, v->mc.cols, v->mc.rows * v->mc.cols);
    if (v->fetch == GG_FETCH_UBO && v->profile == GG_PROFILE_120)
        return gen_fail(why, whylen, "fetch=ubo needs uniform blocks (GLSL 1.40 or ES 3.00), not "
                                 "profile 120");
    if (v->fetch == GG_FETCH_UBO && v->store != GG_STORE_F32)
        return gen_fail(why, whylen, "fetch=ubo holds A as fp32 vec4s in the uniform block; "
                                 "store=%s has no such path", gen_store_name(v->store));
    if (v->store == GG_STORE_F16X8 && 8 % ch)
        return gen_fail(why, whylen, "store=f16x8 packs 8 halves a texel: whole texels of 1, 2 or 4 "
                                 "channels, not the %d of mc=%dx%d", ch, v->mc.rows, v->mc.cols);
    if (v->store == GG_STORE_F16X8 && v->profile == GG_PROFILE_120)
        return gen_fail(why, whylen, "store=f16x8 needs unsigned integer textures and "
                                 "unpackHalf2x16 (GLSL 3.30 with GL_ARB_shading_language_packing, "
                                 "4.20, ES 3.00), not profile 120");
    if (v->ku > 1 && v->unroll)
        return gen_fail(why, whylen, "ku=%d needs unroll=0: unroll=1 writes the whole k loop out", v->ku);
    if (v->order == GG_ORDER_FRAG && v->out != GG_OUT_IMAGE)
        return gen_fail(why, whylen, "order=frag reorders the texels for out=image's strided blocks; "
                                 "out=rt reads its targets' rows side by side already");
    if (v->order == GG_ORDER_FRAG && v->fetch == GG_FETCH_UBO)
        return gen_fail(why, whylen, "order=frag: fetch=ubo reads A's rows from its strips' chunks, "
                                 "side by side already");
    if (v->tile.rows && v->fetch == GG_FETCH_UBO)
        return gen_fail(why, whylen, "tile=%dx%d: fetch=ubo draws in strips of %d fragment rows of its "
                                 "own, one draw each", v->tile.cols, v->tile.rows, GG_UBO_STRIP);
    if (v->fetch == GG_FETCH_BUFFER && ch == 3)
        return gen_fail(why, whylen, "fetch=buffer takes 1, 2 or 4 channels a texel, not 3 (mc=%dx%d)",
                       v->mc.rows, v->mc.cols);
    if (gen_store_wide(v->store))
        return gen_wide_invalid(v, why, whylen);
    return 0;
}

bool gen_variant_invalid(const gg_variant *v, char *why, size_t whylen)
{
    return static_invalid(v, why, whylen) != 0;
}

gg_card_verdict gen_variant_check_card(const gg_variant *v, const gg_card_limits *lim,
                                      char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    if (static_invalid(v, why, whylen))
        return GG_CARD_INVALID;
    bool modern = v->profile == GG_PROFILE_430 || v->profile == GG_PROFILE_310ES;
    if (v->profile == GG_PROFILE_430 && (lim->es || lim->gl_version < 43)) {
        gen_fail(why, whylen, "profile=430 needs desktop OpenGL 4.3; this context is %s %d.%d",
                lim->es ? "OpenGL ES" : "OpenGL", lim->gl_version / 10, lim->gl_version % 10);
        return GG_CARD_UNSUPPORTED;
    }
    if (v->profile == GG_PROFILE_310ES && (!lim->es || lim->gl_version < 31)) {
        gen_fail(why, whylen, "profile=310es needs OpenGL ES 3.1; this context is %s %d.%d",
                lim->es ? "OpenGL ES" : "OpenGL", lim->gl_version / 10, lim->gl_version % 10);
        return GG_CARD_UNSUPPORTED;
    }
    int images = (v->out == GG_OUT_IMAGE) + 2 * (v->fetch == GG_FETCH_IMAGE);
    if (modern && images > lim->max_fragment_images) {
        gen_fail(why, whylen, "out=%s,fetch=%s needs %d image unit(s) in the fragment shader; this "
                          "card has %d (GL_MAX_FRAGMENT_IMAGE_UNIFORMS)", gen_out_name(v->out),
                gen_fetch_name(v->fetch), images, lim->max_fragment_images);
        return GG_CARD_UNSUPPORTED;
    }
    if (gen_fetch_ssbos(v->fetch) > lim->max_fragment_ssbos) {
        gen_fail(why, whylen, "fetch=%s needs %d shader storage block(s) in the fragment shader; this "
                          "context has %d (GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS)",
                gen_fetch_name(v->fetch), gen_fetch_ssbos(v->fetch), lim->max_fragment_ssbos);
        return GG_CARD_UNSUPPORTED;
    }
    if (v->fetch == GG_FETCH_BUFFER && lim->max_texture_buffer < 1) {
        gen_fail(why, whylen, "fetch=buffer needs buffer textures, which this context lacks");
        return GG_CARD_UNSUPPORTED;
    }
    int targets = v->out == GG_OUT_IMAGE ? 0 : v->mrt.rows * v->mrt.cols;
    if (targets > lim->max_draw_buffers) {
        gen_fail(why, whylen, "mrt=%dx%d needs %d render targets; this card has %d (GL_MAX_DRAW_BUFFERS)",
                v->mrt.rows, v->mrt.cols, targets, lim->max_draw_buffers);
        return GG_CARD_UNSUPPORTED;
    }
    if (v->acc == GG_ACC_BLEND && !lim->float_blend) {
        gen_fail(why, whylen, "acc=blend needs blending into float render targets, which this %s "
                          "context lacks", v->profile == GG_PROFILE_300ES ? "ES (EXT_float_blend)" : "GL");
        return GG_CARD_UNSUPPORTED;
    }
    if (v->compiler == GG_COMPILER_SPIRV && !lim->spirv) {
        gen_fail(why, whylen, "compiler=spirv needs GL_ARB_gl_spirv and glslangValidator, which this "
                          "context or machine lacks");
        return GG_CARD_UNSUPPORTED;
    }
    if (v->store == GG_STORE_F16X8 && v->profile == GG_PROFILE_330 && !lim->packing_ext) {
        gen_fail(why, whylen, "store=f16x8 with profile=330 needs GL_ARB_shading_language_packing "
                          "(unpackHalf2x16), which this context lacks; profile 430 or 300es has it "
                          "core");
        return GG_CARD_UNSUPPORTED;
    }
    if ((v->store == GG_STORE_F64 || v->store == GG_STORE_DD) && !lim->fp64) {
        gen_fail(why, whylen, "store=%s needs double arithmetic in GLSL (OpenGL 4.0 or "
                          "GL_ARB_gpu_shader_fp64), which this context lacks; store=df runs on fp32",
                gen_store_name(v->store));
        return GG_CARD_UNSUPPORTED;
    }
    /* store=f16 needs no check of its own: R16F..RGBA16F with GL_HALF_FLOAT
     * are core in GL 3.0 and ES 3.0, and the compatibility contexts of
     * profile 120 (Mesa, NVIDIA) have ARB_half_float_pixel with the
     * ARB_texture_float every variant needs for its fp32 targets. */
    return GG_CARD_OK;
}
