/* Fuzz target: the variant string (gen_variant_parse, gen/variant.c).
 * Invariants: an accepted text yields a variant inside SPEC's table; its
 * canonical form fits GG_VARIANT_TEXT, parses back to the same variant and
 * formats to the same text (parse(format(v)) == v); a text that does not
 * name `best` parses the same with and without a recorded best; a rejected
 * text leaves one line in err, also when err is short; the emitters accept
 * every accepted variant on a small problem. */
#include "gen/gen.h"
#include "tests/fuzz/fuzz.h"

static int same(const gg_variant *a, const gg_variant *b)
{
    return a->mrt.rows == b->mrt.rows && a->mrt.cols == b->mrt.cols &&
           a->mc.rows == b->mc.rows && a->mc.cols == b->mc.cols && a->np == b->np &&
           a->unroll == b->unroll && a->profile == b->profile && a->compiler == b->compiler &&
           a->acc == b->acc && a->store == b->store && a->out == b->out &&
           a->blk.rows == b->blk.rows && a->blk.cols == b->blk.cols && a->fetch == b->fetch &&
           a->tile.rows == b->tile.rows && a->tile.cols == b->tile.cols &&
           a->tile_order == b->tile_order && a->ku == b->ku && a->order == b->order;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    if (!text)
        return 0;
    gg_variant best = {{1, 1}, {1, 4}, 16, 0, GG_PROFILE_430, GG_COMPILER_GLSL, GG_ACC_BLEND,
                       GG_STORE_F16, GG_OUT_IMAGE, {8, 16}, GG_FETCH_TEXELFETCH, {32, 64},
                       GG_TILE_Z, 2, GG_ORDER_PLAIN};
    gg_variant v, w, x;
    char err[256], canon[GG_VARIANT_TEXT], again[GG_VARIANT_TEXT];
    int rc = gen_variant_parse(text, &best, &v, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1, "rc %d", rc);
        FUZZ_CHECK(fuzz_one_line(err), "message '%s'", err);
        /* A short buffer gets a truncated message, never an overrun. */
        char tiny[7];
        FUZZ_CHECK(gen_variant_parse(text, &best, &x, tiny, sizeof tiny) == -1, "short err");
        FUZZ_CHECK(strlen(tiny) < sizeof tiny, "short err overrun");
        FUZZ_CHECK(gen_variant_parse(text, &best, &x, NULL, 0) == -1, "NULL err");
        free(text);
        return 0;
    }
    FUZZ_CHECK(v.mrt.rows >= 1 && v.mrt.cols >= 1 && v.mrt.rows * v.mrt.cols <= GG_MAX_TARGETS,
               "mrt %dx%d", v.mrt.rows, v.mrt.cols);
    FUZZ_CHECK(v.mc.rows >= 1 && v.mc.cols >= 1 && v.mc.rows * v.mc.cols <= 4, "mc %dx%d",
               v.mc.rows, v.mc.cols);
    FUZZ_CHECK(v.np >= 0, "np %d", v.np);
    FUZZ_CHECK(v.unroll == 0 || v.unroll == 1, "unroll %d", v.unroll);
    FUZZ_CHECK((unsigned)v.profile < GG_PROFILE_COUNT && (unsigned)v.compiler < 2 &&
                   (unsigned)v.acc < 3 && (unsigned)v.store < GG_STORE_COUNT &&
                   (unsigned)v.out < GG_OUT_COUNT && (unsigned)v.fetch < GG_FETCH_COUNT,
               "enums %d %d %d %d %d %d", v.profile, v.compiler, v.acc, v.store, v.out, v.fetch);
    /* blk: exactly with out=image, whole texels of mc, at most GG_MAX_BLK */
    FUZZ_CHECK(v.out == GG_OUT_IMAGE
                   ? v.blk.rows >= 1 && v.blk.cols >= 1 && v.blk.rows * v.blk.cols <= GG_MAX_BLK &&
                         v.blk.rows % v.mc.rows == 0 && v.blk.cols % v.mc.cols == 0 &&
                         v.mrt.rows == 1 && v.mrt.cols == 1
                   : v.blk.rows == 0 && v.blk.cols == 0,
               "out %d blk %dx%d mc %dx%d mrt %dx%d", v.out, v.blk.rows, v.blk.cols, v.mc.rows,
               v.mc.cols, v.mrt.rows, v.mrt.cols);

    gen_variant_format(&v, canon, sizeof canon);
    FUZZ_CHECK(strlen(canon) + 1 < sizeof canon, "canonical form may be truncated: %s", canon);
    FUZZ_CHECK(gen_variant_parse(canon, NULL, &w, err, sizeof err) == 0,
               "canonical '%s' rejected: %s", canon, err);
    FUZZ_CHECK(same(&v, &w), "'%s' parses to another variant", canon);
    gen_variant_format(&w, again, sizeof again);
    FUZZ_CHECK(!strcmp(canon, again), "'%s' formats as '%s'", canon, again);

    /* `best` only matters when the text names it first. */
    int names_best = !strncmp(text, "best", 4) && (text[4] == '\0' || text[4] == ',');
    int rc_null = gen_variant_parse(text, NULL, &x, err, sizeof err);
    if (names_best) {
        FUZZ_CHECK(rc_null == -1 && fuzz_one_line(err), "best accepted without a record");
    } else {
        FUZZ_CHECK(rc_null == 0 && same(&v, &x), "best changed '%s'", text);
    }

    /* What the parser lets through, the generator must take (small problem). */
    int m = 1 + (int)(size % 13), n = 1 + (int)(size % 7), k = 1 + (int)(size % 19);
    gg_layout lay;
    FUZZ_CHECK(gen_layout_compute(&v, m, n, k, &lay) == 0, "layout of %s", canon);
    FUZZ_CHECK(lay.passes >= 1 && lay.np >= 1 && lay.np <= lay.ksteps, "passes %d np %d",
               lay.passes, lay.np);
    char *frag = gen_emit_fragment(&v, m, n, k);
    char *vert = gen_emit_vertex(&v);
    FUZZ_CHECK(frag && vert, "emit %s", canon);
    FUZZ_CHECK(!strncmp(frag, "#version ", 9), "fragment starts '%.20s'", frag);
    FUZZ_CHECK(strstr(frag, canon) != NULL, "fragment does not name %s", canon);
    free(frag);
    free(vert);
    free(text);
    return 0;
}
