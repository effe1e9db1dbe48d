/* mixfetch: does a fragment shader fetch more when A and B come through
 * different paths (texelFetch on a texture, an SSBO read) than through one?
 * A question for issue 31's next step (docs/notes/feed.md): the fp32 best is
 * bound by texel fetch (87% of probe's RGBA32F texelFetch rate), and an SSBO
 * read goes through the load/store path, not the texture unit.
 *
 * One draw of W x H fragments; each runs K steps of its own loop, fetching
 * one RGBA32F value of A (A[y][k]: the fragments of a row share it) and one
 * of B (B[k][x]: neighbours read neighbours), then `mads` vec4 multiply-adds
 * (4: fetch bound; 16: more work a fetch, still under probe's balance of
 * about 30 scalar multiply-adds a texel).  Each of A and B is read with
 * texelFetch (t) or from a std430 SSBO (s): tt, ts, st, ss.  The median of
 * 5 timed draws (glFinish), as fetches a second, and the sums compared with
 * tt's (all four read the same numbers).
 *
 *   cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I. tests/device/mixfetch.c base/clock.c -lEGL -lOpenGL -lm -o build/mixfetch
 *   build/mixfetch [W H K]      (default 2048 2048 512; EGL device 0)
 *
 * Needs EGL_EXT_platform_device and a GL 4.3 core context (no GLEW: the
 * loader's libOpenGL exports every core function).  Exit 0, or 1 with one
 * line when the context or a shader cannot be made, or a pairing's sums
 * differ from tt's.  make check builds it and runs it small on llvmpipe. */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

#define DEVICE_TOOL "mixfetch"
#include "tests/device/eglctx.h"

static GLuint gemm_program(char a, char b, int mads)
{
    static const char *sw[] = {"xxxx", "yyyy", "zzzz", "wwww"};
    char src[4096], body[2048] = "";
    size_t o = 0;
    for (int i = 0; i < mads; i++)
        o += (size_t)snprintf(body + o, sizeof body - o, "        acc[%d] += x.%s * %s;\n", i % 8,
                              sw[i % 4], i / 4 % 2 ? "y.wzyx" : "y");
    snprintf(src, sizeof src,
             "#version 430\n"
             "layout(std430, binding = 0) readonly buffer BufA { vec4 sa[]; };\n"
             "layout(std430, binding = 1) readonly buffer BufB { vec4 sb[]; };\n"
             "uniform sampler2D tA, tB;\n"
             "uniform int uK, uW;\n"
             "out vec4 o;\n"
             "void main() {\n"
             "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
             "    vec4 acc[8];\n"
             "    for (int i = 0; i < 8; i++) acc[i] = vec4(0.0);\n"
             "    for (int k = 0; k < uK; k++) {\n"
             "        vec4 x = %s;\n"
             "        vec4 y = %s;\n"
             "%s"
             "    }\n"
             "    o = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];\n"
             "}\n",
             a == 't' ? "texelFetch(tA, ivec2(k, p.y), 0)" : "sa[p.y * uK + k]",
             b == 't' ? "texelFetch(tB, ivec2(p.x, k), 0)" : "sb[k * uW + p.x]", body);
    char what[3] = {a, b, 0};
    return program(src, what);
}

static GLuint texture(int w, int h, const float *data)
{
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, w, h);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_FLOAT, data);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

int main(int argc, char **argv)
{
    int W = argc > 3 ? atoi(argv[1]) : 2048, H = argc > 3 ? atoi(argv[2]) : 2048,
        K = argc > 3 ? atoi(argv[3]) : 512;
    if ((argc != 1 && argc != 4) || W < 1 || H < 1 || K < 1 || W > 16384 || H > 16384 ||
        K > 16384) {
        fprintf(stderr, "usage: mixfetch [W H K] (1 .. 16384 each)\n");
        return 2;
    }
    if (context())
        return 1;
    printf("mixfetch: %s, %s; %d x %d fragments, %d steps\n", glGetString(GL_RENDERER),
           glGetString(GL_VERSION), W, H, K);
    /* A: H rows of K values (texture K x H), B: K rows of W (texture W x K);
     * the SSBOs hold the same values row by row. */
    float *a = malloc(sizeof(float) * 4 * (size_t)H * K), *b = malloc(sizeof(float) * 4 * (size_t)K * W);
    if (!a || !b)
        return die("out of memory");
    srand(1);
    for (size_t i = 0; i < 4 * (size_t)H * K; i++)
        a[i] = (float)(rand() % 17 - 8) / 64.0f;
    for (size_t i = 0; i < 4 * (size_t)K * W; i++)
        b[i] = (float)(rand() % 17 - 8) / 64.0f;
    GLuint ta = texture(K, H, a), tb = texture(W, K, b), buf[2];
    glGenBuffers(2, buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(float) * 4 * (GLsizeiptr)H * K, a, GL_STATIC_DRAW);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(float) * 4 * (GLsizeiptr)K * W, b, GL_STATIC_DRAW);
    GLuint out, fbo, vao;
    glGenTextures(1, &out);
    glBindTexture(GL_TEXTURE_2D, out);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, W, H);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return die("framebuffer incomplete");
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glViewport(0, 0, W, H);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, ta);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, tb);
    float *got = malloc(sizeof(float) * 4 * (size_t)W * H), *ref = malloc(sizeof(float) * 4 * (size_t)W * H);
    if (!got || !ref)
        return die("out of memory");
    static const char *pairs[] = {"tt", "ts", "st", "ss"};
    int mads_of[] = {4, 16};
    printf("%-4s %5s %10s %12s %10s %9s %s\n", "mads", "A,B", "ms", "Gfetch/s", "GFLOP/s", "vs tt",
           "sums");
    int differ = 0;
    for (int m = 0; m < 2; m++) {
        double tt = 0;
        for (int q = 0; q < 4; q++) {
            GLuint p = gemm_program(pairs[q][0], pairs[q][1], mads_of[m]);
            if (!p)
                return die("a shader did not build");
            glUseProgram(p);
            glUniform1i(glGetUniformLocation(p, "tA"), 0);
            glUniform1i(glGetUniformLocation(p, "tB"), 1);
            glUniform1i(glGetUniformLocation(p, "uK"), K);
            glUniform1i(glGetUniformLocation(p, "uW"), W);
            double t[5];
            for (int r = -1; r < 5; r++) {
                glFinish();
                double t0 = base_now_s();
                glDrawArrays(GL_TRIANGLES, 0, 3);
                glFinish();
                if (r >= 0)
                    t[r] = base_now_s() - t0;
            }
            double med = base_median(t, 5);
            glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, q ? got : ref);
            double worst = 0;
            for (size_t i = 0; q && i < 4 * (size_t)W * H; i++)
                worst = fmax(worst, fabs((double)got[i] - ref[i]));
            double fetches = 2.0 * W * H * K, flops = 8.0 * mads_of[m] * W * H * K;
            if (!q)
                tt = med;
            differ += worst != 0;
            printf("%-4d %5s %10.3f %12.2f %10.1f %8.2fx %s\n", mads_of[m], pairs[q], med * 1e3,
                   fetches / med * 1e-9, flops / med * 1e-9, tt / med,
                   !q ? "reference" : worst == 0 ? "same" : "DIFFER");
            glDeleteProgram(p);
        }
    }
    if (differ)
        return die("the sums of a pairing differ from texelFetch's");
    return glGetError() == GL_NO_ERROR ? 0 : die("a GL error");
}
