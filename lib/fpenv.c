/* The caller's floating-point exception flags, saved before the driver's
 * work and put back after it (lib/internal.h lib_fp_save). */
#include "lib/internal.h"

#include <fenv.h>

#if defined(__x86_64__)
typedef struct {
    unsigned short cw, r1, sw, r2, tw, r3;
    unsigned ip;
    unsigned short cs, op;
    unsigned dp;
    unsigned short ds, r4;
} x87_env;

static unsigned denorm_get(void)
{
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=am"(sw));
    return (__builtin_ia32_stmxcsr() & 2u ? 1u : 0u) | (sw & 2u ? 2u : 0u);
}

static void denorm_put(unsigned want)
{
    unsigned now = denorm_get();
    if ((now ^ want) & 1u)
        __builtin_ia32_ldmxcsr((__builtin_ia32_stmxcsr() & ~2u) | (want & 1u ? 2u : 0u));
    if ((now ^ want) & 2u) {
        x87_env env;
        __asm__ volatile("fnstenv %0" : "=m"(env));
        env.sw = (unsigned short)((env.sw & ~2u) | (want & 2u));
        __asm__ volatile("fldenv %0" : : "m"(env));
    }
}
#else
static unsigned denorm_get(void) { return 0; }
static void denorm_put(unsigned want) { (void)want; }
#endif

void lib_fp_save(lib_fp_state *f)
{
    fegetexceptflag(&f->flags, FE_ALL_EXCEPT);
    f->denorm = denorm_get();
}

void lib_fp_restore(const lib_fp_state *f)
{
    fesetexceptflag(&f->flags, FE_ALL_EXCEPT);
    denorm_put(f->denorm);
}
