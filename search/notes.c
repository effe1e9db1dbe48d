/* search/notes: the bottom of search/: the notes for the summary, one line
 * each, and the card's reasons, counted until the end of a run turns them
 * into notes.  Calls no other file of search/. */
#include "search/search_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_note(gg_search *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->nnotes == s->capnotes) {
        int nc = s->capnotes ? 2 * s->capnotes : 16;
        char **nn = realloc(s->notes, (size_t)nc * sizeof *nn);
        if (!nn)
            return;
        s->notes = nn;
        s->capnotes = nc;
    }
    char *d = strdup(buf);
    if (d)
        s->notes[s->nnotes++] = d;
}

int search_nnotes(const gg_search *s) { return s->nnotes; }

const char *search_note(const gg_search *s, int i)
{
    return i >= 0 && i < s->nnotes ? s->notes[i] : NULL;
}

void gs_card_pruned(gg_search *s, const char *why, long n)
{
    for (int i = 0; i < s->ncard; i++)
        if (!strcmp(s->card[i].why, why)) {
            s->card[i].count += n;
            return;
        }
    if (s->ncard == s->capcard) {
        int nc = s->capcard ? 2 * s->capcard : 8;
        gs_reason *nr = realloc(s->card, (size_t)nc * sizeof *nr);
        if (!nr)
            return;
        s->card = nr;
        s->capcard = nc;
    }
    char *d = strdup(why);
    if (d)
        s->card[s->ncard++] = (gs_reason){d, n};
}

void gs_card_notes(gg_search *s)
{
    for (int i = 0; i < s->ncard; i++) {
        gs_note(s, "card: %ld variant%s not searched: %s", s->card[i].count,
                s->card[i].count == 1 ? "" : "s", s->card[i].why);
        free(s->card[i].why);
    }
    s->ncard = 0;
}
