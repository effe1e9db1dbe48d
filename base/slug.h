/* base/slug: a card's slug, the name of its folder under a records folder
 * (store/paths.h) and the card column of its records (store/csv.h).  No GL.
 * The one rule: 1 to GG_CARD_MAX-1 lower case letters, digits and dashes,
 * not starting with a dash.
 *  - base_slug() makes one from a renderer string: runs of letters and
 *    digits, lower case, joined by single dashes, leaving out text in
 *    parentheses and everything from the first '/', e.g.
 *    "llvmpipe (LLVM 15.0.6, 256 bits)" -> "llvmpipe",
 *    "NVIDIA H100 80GB HBM3/PCIe/SSE2" -> "nvidia-h100-80gb-hbm3",
 *    "Mesa Intel(R) UHD Graphics 620 (KBL GT2)" -> "mesa-intel-uhd-graphics-620".
 *    Nothing left: "unknown".  At most len - 1 and GG_CARD_MAX - 1
 *    characters, whole words only.
 *  - base_card_slug_ok() says whether a text is one (the records, --card). */
#ifndef GLGEMM_BASE_SLUG_H
#define GLGEMM_BASE_SLUG_H

#include <stdbool.h>
#include <stddef.h>

#define GG_CARD_MAX 64 /* card slugs are shorter than this */

void base_slug(const char *renderer, char *out, size_t len);
bool base_card_slug_ok(const char *s);

#endif
