/* base/spirv: GLSL -> OpenGL SPIR-V with Debian's glslangValidator
 * (glslang-tools), run as a child process.  No GL here: the host loads the
 * binary with glShaderBinary(GL_SHADER_BINARY_FORMAT_SPIR_V) and
 * glSpecializeShader.
 *
 * The source goes to a private temporary folder under $TMPDIR (or /tmp),
 * glgemm-spirv-<pid>-XXXXXX; the validator runs with -G (OpenGL semantics)
 * -S frag|vert; the folder is removed afterwards.  A process killed
 * meanwhile leaves its folder: each process's first base_spirv_available()
 * (a compile asks it too; so does every GL context's limits) removes those
 * whose process is gone.  Only profile=330 sources can go this way (gen.h). */
#ifndef GLGEMM_GEN_SPIRV_H
#define GLGEMM_GEN_SPIRV_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { GG_STAGE_VERTEX, GG_STAGE_FRAGMENT } gg_stage;

typedef enum {
    GG_SPIRV_OK,            /* *spv holds the binary */
    GG_SPIRV_REJECTED,      /* glslang rejected the source: *log is its output */
    GG_SPIRV_NO_COMPILER,   /* glslangValidator is not installed */
    GG_SPIRV_SYSTEM_ERROR   /* temp files, fork, ...: *log is one line */
} gg_spirv_result;

/* Compiles one stage.  On GG_SPIRV_OK *spv (malloc'd, a whole number of
 * 32-bit words) and *spv_len (bytes) are set, else *spv is NULL.  When log
 * is not NULL, *log gets a malloc'd message or NULL: the compiler's output
 * on success or rejection, one line otherwise. */
gg_spirv_result base_spirv_compile(const char *glsl, gg_stage stage, void **spv, size_t *spv_len,
                                 char **log);

/* True when glslangValidator is on PATH (checked once, then cached; the
 * first call also sweeps stale folders, above). */
bool base_spirv_available(void);

#endif
