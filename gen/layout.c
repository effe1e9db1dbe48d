/* The geometry shared by the emitter and the host: see gen.h. */
#include "gen/gen.h"

#include <limits.h>

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* long long, not long: long is 32 bits on wasm32 (web/wasm), where the
 * overflow guards below must hold as well as on LP64. */
static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

static int lcm(int a, int b) { return a / gcd(a, b) * b; }

int gen_mc_step(gg_shape mc) { return lcm(mc.rows, mc.cols); }

int gen_layout_compute(const gg_variant *v, int m, int n, int k, gg_layout *L)
{
    bool image = v->out == GG_OUT_IMAGE;
    if (m < 1 || n < 1 || k < 1 || v->mc.rows < 1 || v->mc.cols < 1 ||
        v->mrt.rows < 1 || v->mrt.cols < 1 || v->np < 0)
        return -1;
    if (image && (v->blk.rows < v->mc.rows || v->blk.cols < v->mc.cols ||
                  v->blk.rows % v->mc.rows || v->blk.cols % v->mc.cols))
        return -1;
    L->m = m;
    L->n = n;
    L->k = k;
    L->r = v->mc.rows;
    L->c = v->mc.cols;
    L->image = image;
    L->frag = image && v->order == GG_ORDER_FRAG;
    L->tr = image ? v->blk.rows / v->mc.rows : v->mrt.rows;
    L->tc = image ? v->blk.cols / v->mc.cols : v->mrt.cols;
    L->targets = L->tr * L->tc;
    L->channels = L->r * L->c;
    L->step = gen_mc_step(v->mc);
    L->a_texels_per_step = L->step / L->c;
    L->b_texels_per_step = L->step / L->r;
    /* ku: k-steps a loop iteration; the np % ku left over are written out
     * after the loop.  Nothing to group where the loop is written out. */
    L->ku = v->unroll ? 1 : v->ku < 1 ? 1 : v->ku;
    /* store=f16x8 (gen.h): group half texels a stored texel; a loop
     * iteration (or a written-out group of steps) covers whole groups of A
     * and B: at least the least such count, group / gcd(group, texels a
     * step) for each, and np is a multiple of it (no steps after the loop):
     * the least common multiple of ku and those counts (powers of two all,
     * so the largest of them). */
    if (v->store == GG_STORE_F16X8 && 8 % L->channels)
        return -1; /* 3 channels: no whole groups (gen_variant_check_card says why) */
    L->group = v->store == GG_STORE_F16X8 ? 8 / L->channels : 1;
    if (L->group > 1) {
        int ka = L->group / gcd(L->group, L->a_texels_per_step);
        int kb = L->group / gcd(L->group, L->b_texels_per_step);
        L->ku = lcm(L->ku, lcm(ka, kb));
    }
    L->a_texels_per_iter = L->ku * L->a_texels_per_step / L->group;
    L->b_texels_per_iter = L->ku * L->b_texels_per_step / L->group;
    L->ksteps = (int)ceil_div(k, L->step);
    long long np = (v->np == GG_NP_ALL || v->np > L->ksteps) ? L->ksteps : v->np;
    if (L->group > 1)
        np = ceil_div(np, L->ku) * L->ku;
    if (np > INT_MAX)
        return -1;
    L->np = (int)np;
    L->passes = (int)ceil_div(L->ksteps, L->np);

    long long kpad = (long long)L->passes * L->np * L->step;
    bool ubo = v->fetch == GG_FETCH_UBO;
    /* order=frag pairs the fragments' rows and columns (gen.h): even counts */
    long long mblk = (long long)L->r * L->tr * (ubo ? GG_UBO_STRIP : L->frag ? 2 : 1),
              nblk = (long long)L->c * L->tc * (L->frag ? 2 : 1);
    long long mpad = ceil_div(m, mblk) * mblk, npad = ceil_div(n, nblk) * nblk;
    if (kpad > INT_MAX || mpad > INT_MAX || npad > INT_MAX)
        return -1;
    L->kpad = (int)kpad;
    L->mpad = (int)mpad;
    L->npad = (int)npad;
    L->a_w = L->kpad / L->c / L->group;
    L->a_h = L->mpad / L->r;
    L->b_w = L->npad / L->c;
    L->b_h = L->kpad / L->r / L->group;
    L->tgt_w = L->b_w / L->tc;
    L->tgt_h = L->a_h / L->tr;
    L->ubo_row = ubo ? L->np * L->a_texels_per_step : 0;
    /* The long figures below fit a 64-bit long always; a 32-bit one
     * (wasm32) may not hold them for sizes near INT_MAX. */
    long long ubo_vec4s = ubo ? (long long)GG_UBO_STRIP * L->tr * L->ubo_row : 0;
    /* stored texels: f16x8's np * texels a step are whole groups */
    long long a_fetches = (long long)L->tr * L->a_texels_per_step * L->np / L->group;
    long long b_fetches = (long long)L->tc * L->b_texels_per_step * L->np / L->group;
    long long fetches = a_fetches + b_fetches + (v->acc == GG_ACC_BLEND ? 0 : L->targets);
    long long mads = (long long)L->targets * L->channels * L->step * L->np;
    if (ubo_vec4s > LONG_MAX || fetches > LONG_MAX || mads > LONG_MAX)
        return -1;
    L->ubo_vec4s = (long)ubo_vec4s;
    L->c_w = image ? L->b_w : L->tgt_w;
    L->c_h = image ? L->a_h : L->tgt_h;

    L->fetches_per_frag_pass = (long)fetches;
    L->a_fetches = (long)a_fetches;
    L->b_fetches = (long)b_fetches;
    L->mads_per_frag_pass = (long)mads;
    return 0;
}

void gen_layout_c_view(const gg_layout *L, gg_layout *view)
{
    *view = *L;
    if (!L->image)
        return;
    view->tr = view->tc = view->targets = 1;
    view->tgt_w = L->c_w;
    view->tgt_h = L->c_h;
}

/* order=frag: texture row t = (y/2)*2*ways + 2*i + y%2 holds fragment row
 * y's block row i, the plain order's y + i*(len/ways). */
int gen_layout_unfold(int t, int ways, int len)
{
    if (!ways)
        return t;
    int g = t / (2 * ways), rem = t % (2 * ways);
    return 2 * g + rem % 2 + rem / 2 * (len / ways);
}

int gen_layout_a_row(const gg_layout *L, int t) { return gen_layout_unfold(t, L->frag ? L->tr : 0, L->a_h); }

int gen_layout_b_col(const gg_layout *L, int t) { return gen_layout_unfold(t, L->frag ? L->tc : 0, L->b_w); }

int gen_layout_outputs(const gg_layout *L) { return L->targets * L->channels; }

double gen_layout_mads_per_fetch(const gg_layout *L)
{
    long per_step = (long)L->tr * L->a_texels_per_step + (long)L->tc * L->b_texels_per_step;
    return (double)L->targets * L->channels * L->step * L->group / (double)per_step;
}
