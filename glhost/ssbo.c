/* glhost/ssbo: the storage buffers of the storage-buffer fetches
 * (fetch=ssbo, texelfetch+ssbo, ssbo+texelfetch; gen.h's "Shader
 * interface"): the split that keeps every block's buffer within
 * GL_MAX_SHADER_STORAGE_BLOCK_SIZE, and making, filling and reading back
 * one matrix's buffer in the layout the emitter reads (gen_pack_ssbo).
 * Below run.c, stream.c and run_steps.c (declared in run_int.h); it calls
 * none of them.  Every function needs the run's context current. */
#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen/pack.h"
#include "glhost/run_int.h"

long host_ssbo_limit(const gg_ctx_info *info, const gg_run_opts *o)
{
    long lim = info->max_ssbo_bytes;
    return o && o->max_ssbo_bytes > 0 && o->max_ssbo_bytes < lim ? o->max_ssbo_bytes : lim;
}

/* The largest storage buffer of a block of the plan: A's or B's, for the
 * matrices the variant reads from one. */
static long largest(const gg_variant *v, const gg_layout *L)
{
    long a = gen_fetch_path(v->fetch, 0) == GG_FETCH_SSBO ? (long)gen_pack_ssbo_bytes(L, 0, v->store) : 0;
    long b = gen_fetch_path(v->fetch, 1) == GG_FETCH_SSBO ? (long)gen_pack_ssbo_bytes(L, 1, v->store) : 0;
    return a > b ? a : b;
}

/* Blocks whose buffers fit max_bytes: the texture limit lowered until the
 * plan's largest buffer fits (the blocks along k add up in passes, as a
 * texture split's do), or -1 with why when even the smallest block that
 * the packing allows does not fit. */
int host_ssbo_plan(const gg_variant *v, int m, int n, int k, int max_tex, long max_bytes, int bands,
                   gg_split *sp, char *why, size_t whylen)
{
    int t = max_tex;
    while (t >= 1) {
        if (gen_split_plan_bands(v, m, n, k, t, bands, sp))
            break;
        long bytes = largest(v, &sp->L);
        if (bytes <= max_bytes)
            return 0;
        /* A block's buffer is about t*t texels: shrink t by the square root
         * of the excess (and by one at least). */
        int next = (int)((double)t * sqrt((double)max_bytes / (double)bytes));
        t = next < t ? next : t - 1;
    }
    snprintf(why, whylen, "fetch=%s: no block of %dx%dx%d has storage buffers within this card's "
             "limit of %ld bytes (GL_MAX_SHADER_STORAGE_BLOCK_SIZE) with this packing and block",
             gen_fetch_name(v->fetch), m, n, k, max_bytes);
    return -1;
}

GLuint host_ssbo_make(const gg_layout *L, int matrix, gg_store store, const void *packed)
{
    size_t bytes = gen_pack_ssbo_bytes(L, matrix, store);
    float *buf = NULL;
    const void *data = packed;
    if (packed && L->channels == 3 && store == GG_STORE_F32) { /* vec4 elements: spread out */
        if (!(buf = malloc(bytes)))
            return 0;
        gen_pack_ssbo(L, matrix, packed, buf);
        data = buf;
    }
    GLuint b = host_ssbo_upload(data, bytes);
    free(buf);
    return b;
}

GLuint host_ssbo_upload(const void *data, size_t bytes)
{
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    return b;
}

void host_ssbo_copy(GLuint from, size_t offset, GLuint to, size_t bytes)
{
    glBindBuffer(GL_COPY_READ_BUFFER, from);
    glBindBuffer(GL_COPY_WRITE_BUFFER, to);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, (GLintptr)offset, 0,
                        (GLsizeiptr)bytes);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

int host_ssbo_read(GLuint b, size_t bytes, void *out)
{
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    return glGetError() == GL_NO_ERROR ? 0 : -1;
}
