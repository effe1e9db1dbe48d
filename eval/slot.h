/* eval/slot: one device's evaluators, the part of a device pool's slot
 * (eval/pool.h) that measures in this process.  No GL here; inside eval/.
 *
 * Contract:
 *  - A slot holds one evaluator per problem (eval/evaluator.h) on its
 *    device, each made on first use from the problem's config with the
 *    slot's device; problems are borrowed and must outlive the slot.
 *  - eval_slot_query() asks problem 0's evaluator for the device's info.
 *  - eval_slot_eval() measures a variant for a problem (hints first to its
 *    build-ahead); when the evaluator cannot be made, the measurement is
 *    context_lost with the reason and it returns -1.
 *  - eval_slot_warm() turns the warm worker on or off for the evaluators
 *    made and those made later.
 *  - One thread at a time a slot (as its evaluators); eval_slot_free()
 *    frees the evaluators (their workers leave). */
#ifndef GLGEMM_SLOT_H
#define GLGEMM_SLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "eval/evaluator.h"

typedef struct {
    const gg_evaluator_config *problems; /* their device is ignored */
    int nproblems;
    int device;
    bool warm;
    gg_evaluator **ev;                   /* one per problem, NULL until made */
} gg_device_slot;

/* 0, or -1 with one line in err (no memory). */
int eval_slot_init(gg_device_slot *s, const gg_evaluator_config *problems, int nproblems,
                   int device, char *err, size_t errlen);
void eval_slot_free(gg_device_slot *s);

/* The problem's evaluator, made now if not yet: NULL with one line in err. */
gg_evaluator *eval_slot_evaluator(gg_device_slot *s, int problem, char *err, size_t errlen);
/* The problem's evaluator if it was made, else NULL. */
gg_evaluator *eval_slot_made(const gg_device_slot *s, int problem);

/* The device's info through problem 0's evaluator: true with *info, or
 * false with one line in err (no evaluator, or its worker could not say). */
bool eval_slot_query(gg_device_slot *s, gg_device_info *info, char *err, size_t errlen);

/* As eval_evaluator_eval for the problem, hints[0..nhints) given first. */
int eval_slot_eval(gg_device_slot *s, int problem, const gg_variant *v, const gg_eval_opts *o,
                   const gg_variant *hints, int nhints, gg_measurement *m);

void eval_slot_warm(gg_device_slot *s, bool on);

/* Its evaluators' stats summed: workers, lost, timeouts, compile_timeouts
 * (the rest zero). */
void eval_slot_counts(const gg_device_slot *s, gg_evaluator_stats *sum);

#endif
