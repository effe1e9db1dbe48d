/* cli/tune: one tune of `glgemm tune` (cli/tune_one.c): a card's devices
 * of the pool and one problem, handed to the session (eval/session.h),
 * its progress shown and its summary printed.  cmd_tune.c runs one, or several at once
 * (--devices over cards, --sizes), each in a thread of its own. */
#ifndef GLGEMM_CLI_TUNE_H
#define GLGEMM_CLI_TUNE_H

#include <stdio.h>

#include "cli/cli.h"
#include "search/search.h"

typedef struct {
    cli_common *c;
    gg_strategy strategy;
    const char *fix_text;
    gg_fix fix;
    long budget;
    bool fresh;
    double timeout;
    const char *results;
    long keep;
    long finalists;
    double compile_timeout;
    double max_time;
    bool verbose;
    int sizes[16];        /* --sizes */
    int nsizes;
} tune_opts;

typedef struct {
    const tune_opts *o;
    const gg_problem *prob;      /* m, n, k as the inputs have them */
    double timeout_s;            /* an evaluation's, as the evaluators have it */
    gg_pool *pool;
    int client;                  /* the pool's client: this card's slots, this problem */
    int ndevices;                /* the card's slots */
    const char *slug;
    const gg_device_info *dev;   /* the card's (its first slot's): limits */
    const gg_ctx_info *card_info; /* its context the slug is of: renderer */
    double t0;
    bool several;                /* tunes run at once: progress in lines, each named */
    char name[96];               /* "llvmpipe 256x256x256" */
    FILE *out;                   /* the summary */
    int status;                  /* the tune's exit status */
} tune_job;

/* Runs the tune; its status in j->status (also returned). */
int tune_one(tune_job *j);

#endif
