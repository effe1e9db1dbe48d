/* A search's card from a device's contexts: see card.h. */
#include "search/card.h"

void search_config_card(gg_search_config *c, const bool ok[3], const gg_ctx_info info[3])
{
    for (int p = 0; p < GG_PROFILE_COUNT; p++) {
        gg_ctx_kind kind = host_ctx_kind_for((gg_profile)p);
        c->profile_ok[p] = ok[kind];
        if (ok[kind])
            host_ctx_limits(&info[kind], &c->lim[p]);
    }
}
