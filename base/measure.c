#include "base/measure.h"

#include <string.h>

static const char *const status_names[] = {
    "ok", "invalid", "unsupported", "compile_error", "link_error",
    "fbo_incomplete", "gl_error", "wrong_result", "timeout", "context_lost",
    "compile_timeout", "pruned_bound", "page_crash",
};
_Static_assert(sizeof status_names / sizeof *status_names == GG_STATUS_COUNT,
               "a name for every gg_status");

const char *base_status_name(gg_status s)
{
    return (unsigned)s < GG_STATUS_COUNT ? status_names[s] : "unknown";
}

int base_status_parse(const char *name)
{
    for (int i = 0; i < GG_STATUS_COUNT; i++)
        if (strcmp(name, status_names[i]) == 0)
            return i;
    return -1;
}

void base_problem_default(gg_problem *p)
{
    memset(p, 0, sizeof *p);
    p->m = p->n = p->k = 1024;
    p->alpha = 1.0f;
    p->beta = 0.0f;
    p->seed = 1;
    p->reps = 10;
}

void base_measurement_init(gg_measurement *m)
{
    memset(m, 0, sizeof *m);
    m->status = GG_OK;
    m->rel_err = -1;
    m->gpu_s = -1;
}
