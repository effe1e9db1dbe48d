/* Fault injection for tests: see fault.h. */
#include "base/fault.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Evaluations counted by this process (and its parents); atomic: the
 * device pool (eval/pool.h) starts evaluations from several threads. */
static _Atomic long eval_no;
static bool off;     /* base_fault_off() */

const char *const base_fault_names[GG_FAULT_COUNT] = {
    "hang", "crash", "gl_error", "fbo_incomplete", "wrong_result", "disk_full", "compile_hang",
    "lose_context", "no_memory", "dirty_targets", "device_lost"};

long base_fault_next_eval(void) { return atomic_fetch_add(&eval_no, 1) + 1; }
long base_fault_eval_count(void) { return eval_no; }
void base_fault_set_eval(long n) { eval_no = n; }

int base_fault_parse(const char *spec, int *fault, long *eval)
{
    if (!spec || !*spec)
        return 0;
    size_t len = strcspn(spec, ":");
    int f = -1;
    for (int i = 0; i < GG_FAULT_COUNT; i++)
        if (strlen(base_fault_names[i]) == len && !strncmp(spec, base_fault_names[i], len))
            f = i;
    long n = 0; /* 0: every evaluation */
    if (f >= 0 && spec[len] == ':') {
        const char *d = spec + len + 1;
        if (!*d || *d == '0')
            f = -1;
        for (; f >= 0 && *d; d++)
            if (*d < '0' || *d > '9' || (n = n * 10 + (*d - '0')) > GG_FAULT_EVAL_MAX)
                f = -1;
    }
    if (f < 0)
        return -1;
    *fault = f;
    *eval = n;
    return 1;
}

bool base_fault_any(void)
{
    const char *spec = getenv("GLGEMM_FAULT");
    return !off && spec && *spec;
}

void base_fault_off(void) { off = true; }

bool base_fault(const char *name)
{
    static bool warned;
    if (off)
        return false;
    const char *spec = getenv("GLGEMM_FAULT");
    int f;
    long want;
    int rc = base_fault_parse(spec, &f, &want);
    if (rc == 0)
        return false;
    if (rc < 0) {
        if (!warned) {
            char q[104];
            size_t i = 0;
            for (; spec[i] && i < 100; i++) /* one line, whatever the value holds */
                q[i] = (unsigned char)spec[i] < 0x20 || spec[i] == 0x7f ? '?' : spec[i];
            q[i] = '\0';
            fprintf(stderr, "warning: GLGEMM_FAULT='%s' is not <fault>[:<n>] with a known fault; "
                            "no fault injected\n", q);
        }
        warned = true;
        return false;
    }
    if (strcmp(name, base_fault_names[f]))
        return false;
    long now = eval_no;
    return want == 0 || want == (now ? now : 1);
}

void base_fault_hang(void)
{
    for (;;)
        pause();
}

void base_fault_crash(void)
{
    signal(SIGSEGV, SIG_DFL); /* ASan's handler would turn it into exit 1 */
    raise(SIGSEGV);
    abort();
}
