/* search/phase_run: the phase strategy's order of steps (a gs_strategy,
 * search_int.h, run by search.c; phase.c's header says what each does):
 * past the 32-output cap first (blocks.c), then the paper's search
 * (phase.c), then its best point by the other fetch paths (blocks.c), then
 * the feed stage (feed.c); --fix out=image or out=rt runs one side only. */
#include "search/search_int.h"

static bool budget_spent(const gg_search *s)
{
    return s->cfg.budget > 0 && s->st.visited >= s->cfg.budget;
}

static int phase_run(gg_search *s)
{
    const gg_fix *f = &s->cfg.fix;
    bool image_only = ((f->mask & GG_KEY_OUT) && f->v.out == GG_OUT_IMAGE) || (f->mask & GG_KEY_BLK);
    bool rt_only = ((f->mask & GG_KEY_OUT) && f->v.out == GG_OUT_RT) ||
                   ((f->mask & GG_KEY_MRT) && f->v.mrt.rows * f->v.mrt.cols > 1);
    int rc;
    if (image_only) {
        rc = gs_blocks_phase(s);
    } else if (rt_only) {
        rc = gs_rt_phase(s);
    } else {
        /* The blocks first: where they are fast, the bound then skips the
         * paper's points that cannot reach them. */
        rc = gs_blocks_phase(s);
        if (!rc && !budget_spent(s))
            rc = gs_rt_phase(s);
        if (!rc && !budget_spent(s))
            rc = gs_rt_fetch_paths(s);
    }
    if (rc || budget_spent(s))
        return rc;
    return gs_feed(s);
}

const gs_strategy gs_strategy_phase = {"phase", phase_run};
