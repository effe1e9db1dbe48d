/* Draw order: the tiles of a tile=WxH variant (gen.h, gen_tile_boxes).
 * Row order walks the tiles left to right, then up; column order bottom
 * to top, then right; Z order by the Morton code of the tile's (column,
 * row), interleaving their bits, skipping codes past the grid (so a grid
 * that is not a power of two square is still covered once). */
#include "gen/gen.h"


static void put_box(const gg_variant *v, int tx, int ty, int tgt_w, int tgt_h, gg_box *b)
{
    b->x = tx * v->tile.cols;
    b->y = ty * v->tile.rows;
    b->w = tgt_w - b->x < v->tile.cols ? tgt_w - b->x : v->tile.cols;
    b->h = tgt_h - b->y < v->tile.rows ? tgt_h - b->y : v->tile.rows;
}

int gen_tile_boxes(const gg_variant *v, int tgt_w, int tgt_h, gg_box *out, int cap)
{
    if (!v->tile.rows || !v->tile.cols || tgt_w < 1 || tgt_h < 1) {
        if (cap > 0)
            out[0] = (gg_box){0, 0, tgt_w, tgt_h};
        return 1;
    }
    long nx = (tgt_w + (long)v->tile.cols - 1) / v->tile.cols;
    long ny = (tgt_h + (long)v->tile.rows - 1) / v->tile.rows;
    long count = nx * ny;
    if (count > GG_MAX_TILES)
        return -1;
    int n = 0;
    if (v->tile_order == GG_TILE_Z) {
        unsigned long long side = 1;
        while (side < (unsigned long long)nx || side < (unsigned long long)ny)
            side <<= 1;
        /* codes 0 .. side^2-1 visit every (x, y) < side once, in Z order */
        for (unsigned long long z = 0; z < side * side && n < count; z++) {
            unsigned x = 0, y = 0;
            for (int b = 0; b < 32; b++) {
                x |= (unsigned)((z >> (2 * b)) & 1u) << b;
                y |= (unsigned)((z >> (2 * b + 1)) & 1u) << b;
            }
            if (x >= (unsigned)nx || y >= (unsigned)ny)
                continue;
            if (n < cap)
                put_box(v, (int)x, (int)y, tgt_w, tgt_h, &out[n]);
            n++;
        }
        return n;
    }
    for (long i = 0; i < count; i++) {
        long tx = v->tile_order == GG_TILE_COLS ? i / ny : i % nx;
        long ty = v->tile_order == GG_TILE_COLS ? i % ny : i / nx;
        if (n < cap)
            put_box(v, (int)tx, (int)ty, tgt_w, tgt_h, &out[n]);
        n++;
    }
    return n;
}
