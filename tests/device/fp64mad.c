/* fp64mad: the fragment shader's multiply-add rate in fp32 and in fp64
 * (issue 40's ceiling for store=f64 and dd: glgemm probe has no fp64 row).
 * One draw of W x H fragments; each runs K steps of 8 independent
 * accumulators, acc[i] = acc[i] * x + y (x, y uniforms, so nothing folds),
 * as vec4 (fp32) and dvec4 (fp64; GLSL 4.00's double), then writes their
 * sum.  The median of 5 timed draws (glFinish) as GFLOP/s, a multiply-add
 * counting two.
 *
 *   cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I. tests/device/fp64mad.c base/clock.c -lEGL -lOpenGL -lm -o build/fp64mad
 *   build/fp64mad [W H K]      (default 2048 2048 256; EGL device 0)
 *
 * Exit 0, or 1 with one line when the context or a shader cannot be made. */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"

#define DEVICE_TOOL "fp64mad"
#include "tests/device/eglctx.h"

static GLuint mad_program(const char *t)
{
    char src[2048];
    snprintf(src, sizeof src,
             "#version 430\n"
             "uniform int uK;\n"
             "uniform float uX, uY;\n"
             "out vec4 o;\n"
             "void main() {\n"
             "    %s4 acc[8];\n"
             "    for (int i = 0; i < 8; i++) acc[i] = %s4(gl_FragCoord.x + float(i));\n"
             "    %s x = %s(uX), y = %s(uY);\n"
             "    for (int k = 0; k < uK; k++)\n"
             "        for (int i = 0; i < 8; i++) acc[i] = acc[i] * x + y;\n"
             "    %s4 s = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];\n"
             "    o = vec4(s);\n"
             "}\n",
             t[0] == 'd' ? "dvec" : "vec", t[0] == 'd' ? "dvec" : "vec", t, t, t, t[0] == 'd' ? "dvec" : "vec");
    return program(src, t);
}

int main(int argc, char **argv)
{
    int W = argc > 3 ? atoi(argv[1]) : 2048, H = argc > 3 ? atoi(argv[2]) : 2048,
        K = argc > 3 ? atoi(argv[3]) : 256;
    if ((argc != 1 && argc != 4) || W < 1 || H < 1 || K < 1 || W > 16384 || H > 16384 ||
        K > 65536) {
        fprintf(stderr, "usage: fp64mad [W H K]\n");
        return 2;
    }
    if (context())
        return 1;
    printf("fp64mad: %s, %s; %d x %d fragments, %d steps of 8 vec4 multiply-adds\n",
           glGetString(GL_RENDERER), glGetString(GL_VERSION), W, H, K);
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
    static const char *types[] = {"float", "double"};
    for (int q = 0; q < 2; q++) {
        GLuint p = mad_program(types[q]);
        if (!p)
            return die("a shader did not build");
        glUseProgram(p);
        glUniform1i(glGetUniformLocation(p, "uK"), K);
        glUniform1f(glGetUniformLocation(p, "uX"), 0.999f);
        glUniform1f(glGetUniformLocation(p, "uY"), 0.001f);
        double t[5];
        for (int r = -1; r < 5; r++) {
            glFinish();
            double t0 = base_now_s();
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glFinish();
            if (r >= 0)
                t[r] = base_now_s() - t0;
        }
        double med = base_median(t, 5), flops = 2.0 * 4 * 8 * (double)W * H * K;
        printf("%-6s %10.3f ms %10.1f GFLOP/s\n", types[q], med * 1e3, flops / med * 1e-9);
        glDeleteProgram(p);
    }
    return glGetError() == GL_NO_ERROR ? 0 : die("a GL error");
}
