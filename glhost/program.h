/* glhost/program: a GL program for one variant and problem, on the current
 * context.  No GL header here.
 *
 * gg_program_build() emits the shaders (gen/), compiles them (GLSL source,
 * or SPIR-V from gen/spirv.c through glShaderBinary + glSpecializeShader),
 * binds attribute 0 to aPos, links, and for the GLSL path sets the sampler
 * units of gen.h's contract (uA 0, uB 1, uPrev_t 2+t).  The program is left
 * in use (glUseProgram).  Failures are statuses, never aborts:
 *   GG_OK, GG_COMPILE_ERROR, GG_LINK_ERROR; GG_INVALID for a variant that
 *   cannot exist (spirv with a profile other than 330); GG_UNSUPPORTED when
 *   SPIR-V is asked for and glslangValidator or glSpecializeShader is
 *   missing; GG_GL_ERROR for a GL error or no memory.
 * On failure p->detail has one line and gg_program_print_failure() prints
 * it, the info log and the numbered source (piglit style). */
#ifndef GLGEMM_PROGRAM_H
#define GLGEMM_PROGRAM_H

#include <stdio.h>

#include "gen/gen.h"
#include "glhost/measure.h"

typedef struct {
    unsigned prog;        /* GL program name; 0 unless status is GG_OK */
    gg_status status;
    int loc_kbase;        /* uniform locations (SPIR-V: the fixed 0 and 1) */
    int loc_alpha;
    double compile_s;     /* wall time: emit + compile + link */
    char *log;            /* malloc'd info logs (shaders, link, glslang), NULL if all empty */
    char *frag_src;       /* malloc'd GLSL as compiled (or as handed to glslang) */
    char *vert_src;
    char failed_stage[16];/* "fragment", "vertex", "link" or "" */
    char detail[256];     /* one line when status != GG_OK */
} gg_program;

/* Builds the program for v on an m x n x k problem (the block size the host
 * packs for).  Returns p->status.  Always call gg_program_free(p) after. */
gg_status gg_program_build(gg_program *p, const gg_variant *v, int m, int n, int k);

/* The same for given sources (probes, tests): compile (GLSL, or SPIR-V
 * through glslang when spirv), bind aPos to 0, link, set the contract's
 * sampler units where the samplers exist.  Returns p->status. */
gg_status gg_program_build_text(gg_program *p, const char *vert, const char *frag, bool spirv);

/* Deletes the GL program (on the current context) and frees the texts. */
void gg_program_free(gg_program *p);

/* The detail line, the log and the failing stage's source with line numbers. */
void gg_program_print_failure(const gg_program *p, FILE *f);

#endif
