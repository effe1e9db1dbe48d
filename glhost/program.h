/* glhost/program: a GL program for one variant and problem, on the current
 * context.  No GL header here.
 *
 * host_program_build() emits the shaders (gen/), compiles them (GLSL source,
 * or SPIR-V from base/spirv.c through glShaderBinary + glSpecializeShader),
 * binds attribute 0 to aPos, links, and for the GLSL path sets the sampler
 * units of gen.h's contract (uA 0, uB 1, uPrev_t 2+t).  The program is left
 * in use (glUseProgram).  Failures are statuses, never aborts:
 *   GG_OK, GG_COMPILE_ERROR, GG_LINK_ERROR; GG_INVALID for a variant that
 *   cannot exist (spirv with a profile other than 330); GG_UNSUPPORTED when
 *   SPIR-V is asked for and glslangValidator or glSpecializeShader is
 *   missing; GG_GL_ERROR for a GL error or no memory.
 * On failure p->detail has one line and host_program_print_failure() prints
 * it, the info log and the numbered source (piglit style).
 *
 * Building is two calls, so that compiles can run off the critical path:
 * host_program_start() emits, compiles and links without asking for any
 * status (where the context has KHR/ARB_parallel_shader_compile it lets the
 * driver use every compiler thread, once per context, so that start returns
 * while the driver compiles; llvmpipe compiles within the calls anyway);
 * host_program_ready() says whether the driver is done (GL_COMPLETION_STATUS;
 * true without the extension); host_program_finish() waits, checks the
 * statuses and sets the program up as above.  host_program_build() is the
 * two in a row.  Several programs may be started before any is finished.
 *
 * Programs go through glhost/progcache.h: start loads a program the cache
 * has for the same sources on the same renderer and driver (p->cached: no
 * compile at all), and finish writes the entry of one it compiled. */
#ifndef GLGEMM_PROGRAM_H
#define GLGEMM_PROGRAM_H

#include <stdio.h>

#include "gen/gen.h"
#include "base/measure.h"

typedef struct {
    unsigned prog;        /* GL program name; 0 unless status is GG_OK */
    gg_status status;
    int loc_kbase;        /* uniform locations (SPIR-V: the fixed 0 and 1) */
    int loc_alpha;
    double compile_s;     /* wall time in start and finish: emit + compile + link */
    bool cached;          /* loaded from the program cache: nothing compiled */
    char *log;            /* malloc'd info logs (shaders, link, glslang), NULL if all empty */
    char *frag_src;       /* malloc'd GLSL as compiled (or as handed to glslang) */
    char *vert_src;
    char failed_stage[16];/* "fragment", "vertex", "link" or "" */
    char detail[256];     /* one line when status != GG_OK */
    struct {              /* program.c's, between start and finish */
        unsigned prog, vs, fs;
        unsigned vs_err, fs_err, start_err; /* GL errors seen in start */
        bool active, spirv, parallel, store;
    } pending;
} gg_program;

/* Builds the program for v on an m x n x k problem (the block size the host
 * packs for).  Returns p->status.  Always call host_program_free(p) after. */
gg_status host_program_build(gg_program *p, const gg_variant *v, int m, int n, int k);

/* The same for given sources (probes, tests): compile (GLSL, or SPIR-V
 * through glslang when spirv), bind aPos to 0, link, set the contract's
 * sampler units where the samplers exist.  Returns p->status. */
gg_status host_program_build_text(gg_program *p, const char *vert, const char *frag, bool spirv);

/* The first half of host_program_build / _build_text: returns p->status, which
 * is GG_OK unless something failed before the driver's compile (invalid
 * variant, no SPIR-V compiler, glslang's verdict, no memory).  Call
 * host_program_finish next in any case, then host_program_free. */
gg_status host_program_start(gg_program *p, const gg_variant *v, int m, int n, int k);
gg_status host_program_start_text(gg_program *p, const char *vert, const char *frag, bool spirv);

/* Whether host_program_finish would not wait for the driver. */
bool host_program_ready(const gg_program *p);

/* The second half: waits for the compile and link, checks them, sets the
 * program up (in use, uniform locations, sampler units) and writes its cache
 * entry.  Returns p->status, as host_program_build; again after a first call
 * it only returns it. */
gg_status host_program_finish(gg_program *p);

/* Deletes the GL program (on the current context; a started one too) and
 * frees the texts. */
void host_program_free(gg_program *p);
/* Frees p's texts only, no GL call: for a program whose context is gone
 * (its GL names went with it). */
void host_program_forget(gg_program *p);

/* The detail line, the log and the failing stage's source with line numbers. */
void host_program_print_failure(const gg_program *p, FILE *f);

#endif
