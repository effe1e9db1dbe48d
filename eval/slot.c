/* One device's evaluators: see slot.h. */
#include "eval/slot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/util.h"

int eval_slot_init(gg_device_slot *s, const gg_evaluator_config *problems, int nproblems,
                   int device, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->problems = problems;
    s->nproblems = nproblems;
    s->device = device;
    s->ev = calloc((size_t)(nproblems > 0 ? nproblems : 1), sizeof *s->ev);
    return s->ev ? 0 : gen_fail(err, errlen, "out of memory");
}

void eval_slot_free(gg_device_slot *s)
{
    for (int q = 0; s->ev && q < s->nproblems; q++)
        eval_evaluator_free(s->ev[q]);
    free(s->ev);
    s->ev = NULL;
}

gg_evaluator *eval_slot_evaluator(gg_device_slot *s, int problem, char *err, size_t errlen)
{
    if (!s->ev[problem]) {
        gg_evaluator_config c = s->problems[problem];
        c.device = s->device;
        s->ev[problem] = eval_evaluator_new(&c, err, errlen);
        if (s->ev[problem] && s->warm)
            eval_evaluator_warm(s->ev[problem], true);
    }
    return s->ev[problem];
}

gg_evaluator *eval_slot_made(const gg_device_slot *s, int problem)
{
    return s->ev ? s->ev[problem] : NULL;
}

bool eval_slot_query(gg_device_slot *s, gg_device_info *info, char *err, size_t errlen)
{
    gg_evaluator *e = eval_slot_evaluator(s, 0, err, errlen);
    return e && eval_evaluator_device(e, info, err, errlen) == 0;
}

int eval_slot_eval(gg_device_slot *s, int problem, const gg_variant *v, const gg_eval_opts *o,
                   const gg_variant *hints, int nhints, gg_measurement *m)
{
    char err[256];
    gg_evaluator *e = eval_slot_evaluator(s, problem, err, sizeof err);
    if (!e) {
        base_measurement_init(m);
        m->status = GG_CONTEXT_LOST;
        snprintf(m->detail, sizeof m->detail, "%s", err);
        return -1;
    }
    if (nhints)
        eval_evaluator_hint(e, hints, nhints);
    return eval_evaluator_eval(e, v, o, m);
}

void eval_slot_warm(gg_device_slot *s, bool on)
{
    s->warm = on;
    for (int q = 0; q < s->nproblems; q++)
        if (s->ev[q])
            eval_evaluator_warm(s->ev[q], on);
}

void eval_slot_counts(const gg_device_slot *s, gg_evaluator_stats *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int q = 0; s->ev && q < s->nproblems; q++)
        if (s->ev[q]) {
            const gg_evaluator_stats *e = eval_evaluator_get_stats(s->ev[q]);
            sum->workers += e->workers;
            sum->lost += e->lost;
            sum->timeouts += e->timeouts;
            sum->compile_timeouts += e->compile_timeouts;
        }
}
