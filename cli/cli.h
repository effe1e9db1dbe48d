/* The front end: one binary, one file per command (cli/cmd_*.c), shared
 * option parsing here.  Commands return the exit status of SPEC.md:
 * 0 success, 1 the GPU work failed, 2 bad usage or input, 3 no GL context. */
#ifndef GLGEMM_CLI_H
#define GLGEMM_CLI_H

#include <stdbool.h>

#include "glgemm.h"
#include "glhost/context.h"
#include "base/measure.h"
#include "eval/pool.h"

enum { EXIT_GPU = 1, EXIT_USAGE = 2, EXIT_NOCTX = 3 };

/* One option a command accepts.  id is the command's own; has_arg 1 when it
 * takes a value (--name V or --name=V). */
typedef struct {
    const char *name;
    int has_arg;
    int id;
} cli_opt;

/* Ids below 100 are the command's own; these are shared. */
enum {
    OPT_BACKEND = 100, OPT_DEVICE, OPT_HELP, OPT_VERSION,
    OPT_M, OPT_N, OPT_K, OPT_SIZE, OPT_TRANSA, OPT_TRANSB, OPT_ALPHA, OPT_BETA,
    OPT_SEED, OPT_A, OPT_B, OPT_C, OPT_OUT, OPT_REPS,
    /* Shared, but only where a command lists it among its own options
     * ({"max-draw-ms", 1, OPT_MAX_DRAW}): the bound on one draw's time
     * (store/draw.h); cli_parse then also refuses a bad GLGEMM_MAX_DRAW_MS. */
    OPT_MAX_DRAW,
    OPT_BROWSER, OPT_HEADFUL, OPT_ANGLE, /* --browser PATH, --headful, --angle: the browser backend's */
    /* Shared where a command lists it ({"devices", 1, OPT_DEVICES}): tune,
     * bench and run (cli/devices.c). */
    OPT_DEVICES
};

/* The most entries of a --devices list. */
#define CLI_MAX_DEVICES 64

/* What every command shares. */
typedef struct {
    const char *cmd;      /* "run", "tune", ... for messages */
    gg_backend backend;
    int device;
    bool device_set;      /* --device given */
    const char *browser;  /* --browser PATH: the Chromium of --backend browser (NULL: default) */
    bool headful;         /* --headful: show it */
    int angle;            /* --angle: eval_angle (EVAL_ANGLE_DEFAULT) */
    bool angle_set;
    gg_problem prob;
    bool problem_given;   /* any of --m/--n/--k/--size/--a/--b given */
    bool max_draw_set;    /* --max-draw-ms given: max_draw_ms (0: no bound) */
    double max_draw_ms;
    /* --devices: all, local, or the listed indices (a device may come
     * twice: two workers on it) */
    bool devices_set, devices_all, devices_local;
    int devices[CLI_MAX_DEVICES];
    int ndevices;
    const char *positional[4];
    int npositional;
} cli_common;

/* Handler for the command's own options: returns 0, or EXIT_USAGE after
 * printing one line (use cli_error). */
typedef int (*cli_handler)(void *self, int id, const char *value);

/* Parses argv[1..argc-1] (argv[0] is the command name).  own: the command's
 * options (terminated by a {NULL} entry); with_problem: accept the problem
 * options.  Prints --help (usage text) and returns -1 for "exit 0 now";
 * returns 0 on success, EXIT_USAGE after one clear line on bad input. */
int cli_parse(int argc, char **argv, cli_common *common, const cli_opt *own,
              cli_handler handler, void *self, bool with_problem, const char *usage);

/* "glgemm CMD: message" on stderr ("glgemm: message" when c is NULL), one
 * line: control characters in it print as '?'.  Returns EXIT_USAGE. */
int cli_error(const cli_common *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Strict number parsing: whole string, in range.  0 or -1. */
int cli_int(const char *s, long lo, long hi, long *out);
int cli_float(const char *s, double *out);
/* "1,2,3": integers in [lo, hi] separated by commas into out; the count,
 * -1 when malformed (an empty item, junk), -2 when more than max. */
int cli_int_list(const char *s, long lo, long hi, int *out, int max);

/* The status of several runs: the first failure's, bad input (EXIT_USAGE)
 * over any other. */
int cli_status_merge(int status, int rc);

/* Checks the problem after parsing: --a with --b, --c with both, and that
 * --out can be written (an existing folder; a regular, writable file if it
 * exists), before any work.  0, or EXIT_USAGE after one line. */
int cli_check_problem(cli_common *c);

/* --card SLUG: *card = value when it is a card slug (base/slug.h), else
 * EXIT_USAGE after one line.  0 on success. */
int cli_card_option(const cli_common *c, const char *value, const char **card);

/* The card `best` reads: given (--card), else this machine's through a GL
 * context, written into slug.  0 with *card set, or EXIT_USAGE after one
 * line when no context can name the card. */
int cli_best_card(const cli_common *c, const char *given, char *slug, size_t len,
                  const char **card);

/* Whether a variant text names the preset best ("best" or "best,..."). */
bool cli_names_best(const char *text);

/* This machine's card slug (base/slug.h) through a GL context of c's backend
 * and device; 0, or -1 with one line in err when none can be made. */
int cli_this_card(const cli_common *c, char *slug, size_t len, char *err, size_t errlen);

/* ---- --devices (cli/devices.c) ---- */

/* The command's device pool (eval/pool.h): --devices resolved (all: every
 * EGL device; local: the one numbered as this rank on its host; an index
 * EGL does not list is bad usage), else --device alone; the problems'
 * evaluator configs.  0 with *pool, or EXIT_USAGE / EXIT_NOCTX after one
 * line.  A rank other than 0 (glgemm-mpi) serves rank 0 instead and gets
 * CLI_SERVED: the command then ends with status 0. */
#define CLI_SERVED (-1)
int cli_pool_open(cli_common *c, const gg_evaluator_config *problems, int nproblems,
                  gg_pool **pool);

/* Whether slot i of the pool cannot serve: no worker (its line: "glgemm
 * CMD: [device N: ]" what, then why), or no context of that kind (-1: of
 * any kind).  Then the status (EXIT_NOCTX; EXIT_USAGE for a device that
 * does not exist); else 0. */
int cli_slot_failed(const cli_common *c, gg_pool *pool, int i, int kind, const char *what);

/* The cards of a pool: slots whose renderer has one slug, in slot order. */
typedef struct {
    int n;
    char slug[GG_POOL_MAX_SLOTS][GG_CARD_MAX];
    unsigned long long mask[GG_POOL_MAX_SLOTS]; /* bit i: slot i */
    int first[GG_POOL_MAX_SLOTS];               /* its first slot */
    int count[GG_POOL_MAX_SLOTS];               /* its slots */
    int kind[GG_POOL_MAX_SLOTS];                /* the gg_ctx_kind its slug is of */
} cli_cards;

/* Every slot checked (cli_slot_failed with kind and what), the slug from
 * that kind's renderer (-1: the first profile's context there is, as tune
 * names the card).  0, or the failed slot's status. */
int cli_pool_cards(const cli_common *c, gg_pool *pool, int kind, const char *what, cli_cards *cards);

/* Commands. */
int cmd_info(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
