/* Fault injection for tests: see fault.h. */
#include "base/fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long eval_no; /* evaluations counted by this process (and its parents) */

static const char *const known[] = {"hang", "crash", "gl_error", "fbo_incomplete",
                                    "wrong_result", "disk_full", "compile_hang", "lose_context",
                                    "no_memory"};

void base_fault_next_eval(void) { eval_no++; }
long base_fault_eval_count(void) { return eval_no; }
void base_fault_set_eval(long n) { eval_no = n; }

bool base_fault(const char *name)
{
    static bool warned;
    const char *spec = getenv("GLGEMM_FAULT");
    if (!spec || !*spec)
        return false;
    size_t len = strcspn(spec, ":");
    long want = 0; /* 0: every evaluation */
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        ok |= strlen(known[i]) == len && !strncmp(spec, known[i], len);
    if (ok && spec[len] == ':') {
        char *end;
        want = strtol(spec + len + 1, &end, 10);
        ok = end != spec + len + 1 && !*end && want >= 1;
    }
    if (!ok) {
        if (!warned)
            fprintf(stderr, "warning: GLGEMM_FAULT='%s' is not <fault>[:<n>] with a known fault; "
                            "no fault injected\n", spec);
        warned = true;
        return false;
    }
    if (strlen(name) != len || strncmp(spec, name, len))
        return false;
    return want == 0 || want == (eval_no ? eval_no : 1);
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
