/* eval/isolate: one piece of work in a child process under a watchdog,
 * so that a shader that hangs or crashes the driver costs one evaluation,
 * not the tune.  No GL here: the child's work is a function pointer, and
 * the child makes whatever context it needs (a context does not survive
 * fork(); the parent must hold none).
 *
 * Contract:
 *  - eval_isolate_run() forks.  The child (its own process group, killed if
 *    the parent dies) runs fn, sends outlen bytes back through a pipe and
 *    leaves with _exit.  It inherits the parent's memory copy-on-write: the
 *    parent prepares inputs and references once, before forking.
 *  - The parent waits at most timeout_s seconds (monotonic clock) for the
 *    whole result.  Past that it SIGKILLs the child's process group:
 *    GG_ISO_TIMEOUT.  A child that dies before sending all of it (a signal,
 *    an exit) is GG_ISO_CRASHED, with the signal or exit status in detail.
 *    Every child is reaped before returning.
 * (Evaluations go through eval/evaluator.h, whose worker serves many;
 * this is for one-off work: the probe, a context's info.)
 */
#ifndef GLGEMM_ISOLATE_H
#define GLGEMM_ISOLATE_H

#include <stddef.h>
#include <sys/types.h>

#include "search/search.h"

typedef enum { GG_ISO_OK, GG_ISO_TIMEOUT, GG_ISO_CRASHED, GG_ISO_ERROR } gg_iso_result;

/* The child's work: fill out (outlen bytes). */
typedef void (*gg_child_fn)(void *user, void *out, size_t outlen);

/* GG_ISO_ERROR: no child could be made (pipe, fork), detail says why. */
gg_iso_result eval_isolate_run(gg_child_fn fn, void *user, void *out, size_t outlen,
                             double timeout_s, char *detail, size_t detlen);

/* Reads len bytes from fd (a pipe or a socket) by deadline (monotonic
 * seconds, base_now_s; 0: none): 1 all of it, 0 the deadline passed, -1 the
 * stream ended or failed first. */
int eval_iso_read(int fd, void *buf, size_t len, double deadline);

/* SIGKILL to pid's process group and pid, then reaped (*st: its status). */
void eval_iso_kill_reap(pid_t pid, int *st);
/* One line on how a process ended before sending its result. */
void eval_iso_describe_death(int st, char *detail, size_t detlen);

#endif
