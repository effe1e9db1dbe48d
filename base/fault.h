/* base/fault: fault injection, FOR TESTS ONLY.  No GL here.
 *
 * Compiled in always, inert unless the environment variable GLGEMM_FAULT is
 * set: GLGEMM_FAULT=<name>[:<n>] makes the hook of that name fire, in every
 * evaluation, or with :n only in the n-th one (the parent counts the
 * evaluations it isolates with base_fault_next_eval(); the child inherits the
 * count through fork; a process that counted none, glgemm run, is at
 * evaluation 1).  The hooks sit where the fault would really happen:
 *   hang            glhost/run_steps.c, mid-pass: the evaluation never finishes
 *                   (base_fault_hang) -> the tuner's watchdog: timeout
 *   crash           glhost/run_steps.c, mid-pass: SIGSEGV (base_fault_crash)
 *                   -> the tuner: context_lost naming the signal
 *   gl_error        glhost/run_steps.c, mid-pass: an invalid GL call -> gl_error
 *   fbo_incomplete  glhost/run_steps.c: a zero-size render target -> fbo_incomplete
 *   wrong_result    base/reference.c (base_verify_measured: the native
 *                   run's and the browser's): one element of C changed
 *                   before verification -> wrong_result, gflops 0 (the
 *                   library's streamed calls, glhost/stream.c: before its
 *                   band is checked -> GLGEMM_EWRONG)
 *   disk_full       store/records.c: a record row written half-way, as a
 *                   full disk does (a short write); glhost/progcache.c: an
 *                   entry's write fails with ENOSPC
 *   compile_hang    glhost/run.c, building the program: never finishes
 *                   -> the evaluator's compile deadline: compile_timeout
 *   lose_context    glhost/run_steps.c, mid-pass: the run reports context_lost
 *                   (as a reset would) -> the evaluator replaces its worker
 *   no_memory       base/reference.c: the reference's arrays are not
 *                   allocated, as when host memory runs out -> the
 *                   evaluator: gl_error, the variant not run (a run with no
 *                   reference would verify nothing)
 *   dirty_targets   glhost/run_steps.c: new render targets made holding NaN (what
 *                   GL leaves undefined), before a beta = 0 run clears the
 *                   ones it reads first -> still ok (a set left uncleared
 *                   that the passes read: NaN, wrong_result)
 *   device_lost     lib/run.c, after a GPU run of the last device of a context
 *                   of several devices (glgemm_open_devices): the run reports
 *                   context_lost -> that device is retired, its tile done
 *                   again by another device (or the CPU)
 * In the browser (eval/browser.c) crash, hang and lose_context are passed to
 * the page, which crashes, hangs or loses its WebGL context.
 * An unknown name or a bad :n is reported once on stderr and fires nothing. */
#ifndef GLGEMM_FAULT_H
#define GLGEMM_FAULT_H

#include <stdbool.h>

/* The faults, in the order above; GLGEMM_FAULT's n is at most EVAL_MAX. */
enum { GG_FAULT_COUNT = 11 };
#define GG_FAULT_EVAL_MAX 1000000000L
extern const char *const base_fault_names[GG_FAULT_COUNT];

/* GLGEMM_FAULT's text (pure): 1 with the fault's index in base_fault_names
 * and the evaluation n (0: every one; else decimal digits, 1 .. EVAL_MAX);
 * 0 for NULL or ""; -1 when it is no <fault>[:<n>] of a known fault. */
int base_fault_parse(const char *spec, int *fault, long *eval);

/* True when GLGEMM_FAULT names this fault and the evaluation matches. */
bool base_fault(const char *name);
/* True when GLGEMM_FAULT is set (not empty, well formed or not) and faults
 * are not off: a test means them for its own calls. */
bool base_fault_any(void);
/* No fault fires in this process from now on (a helper process whose work
 * the faults are not meant for). */
void base_fault_off(void);

/* The parent starts evaluation number (count + 1): returned, and the count
 * now (one atomic step: evaluations start from several threads). */
long base_fault_next_eval(void);
/* The count now (the evaluator sends it to its worker), and the worker's
 * side: this is evaluation number n. */
long base_fault_eval_count(void);
void base_fault_set_eval(long n);

/* The faults' actions: sleep until killed; die of SIGSEGV (the default
 * action, whatever handler a sanitizer installed). */
_Noreturn void base_fault_hang(void);
_Noreturn void base_fault_crash(void);

#endif
