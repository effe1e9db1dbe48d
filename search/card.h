/* search/card: a search's card, from the contexts a device offers: which
 * profiles have a context, and each one's limits (glhost/context.h). */
#ifndef GLGEMM_SEARCH_CARD_H
#define GLGEMM_SEARCH_CARD_H

#include "glhost/context.h"
#include "search/search.h"

/* Sets c->profile_ok and c->lim from the device's context kinds (ok[kind],
 * info[kind], indexed by gg_ctx_kind). */
void search_config_card(gg_search_config *c, const bool ok[3], const gg_ctx_info info[3]);

#endif
