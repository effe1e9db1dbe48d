/* tests/device/eglctx.h: the headless GL 4.3 core context of the device
 * experiments (mixfetch.c, fp64mad.c): EGL device 0 through
 * EGL_EXT_platform_device, no surface; and their programs, a full-screen
 * triangle's vertex shader with the given fragment shader.  DEVICE_TOOL
 * names the program in its one-line errors.  Include after <EGL/egl.h>,
 * <EGL/eglext.h> and <GL/gl.h> (GL_GLEXT_PROTOTYPES). */
#ifndef GLGEMM_DEVICE_EGLCTX_H
#define GLGEMM_DEVICE_EGLCTX_H

#include <stdio.h>

static int die(const char *what)
{
    fprintf(stderr, "%s: %s\n", DEVICE_TOOL, what);
    return 1;
}

static int context(void)
{
    PFNEGLQUERYDEVICESEXTPROC query =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT dev[8];
    EGLint n = 0;
    if (!query || !platform || !query(8, dev, &n) || n < 1)
        return die("no EGL device (EGL_EXT_device_enumeration)");
    EGLDisplay d = platform(EGL_PLATFORM_DEVICE_EXT, dev[0], NULL);
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, NULL, NULL) || !eglBindAPI(EGL_OPENGL_API))
        return die("cannot initialise EGL on device 0");
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                            EGL_NONE};
    EGLContext c = eglCreateContext(d, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
    if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c))
        return die("no GL 4.3 core context without a surface");
    return 0;
}

/* The program of fragment shader src, 0 (the log said, with what) when
 * a shader does not compile or the program does not link. */
static GLuint program(const char *src, const char *what)
{
    const char *vs = "#version 430\n"
                     "void main() {\n"
                     "    vec2 v = vec2(gl_VertexID & 1, gl_VertexID >> 1) * 4.0 - 1.0;\n"
                     "    gl_Position = vec4(v, 0.0, 1.0);\n"
                     "}\n";
    GLuint p = glCreateProgram();
    const char *srcs[2] = {vs, src};
    GLenum kinds[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    for (int i = 0; i < 2; i++) {
        GLuint s = glCreateShader(kinds[i]);
        glShaderSource(s, 1, &srcs[i], NULL);
        glCompileShader(s);
        GLint ok = 0;
        glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[2048];
            glGetShaderInfoLog(s, sizeof log, NULL, log);
            fprintf(stderr, "%s: shader %s: %s\n", DEVICE_TOOL, what, log);
            return 0;
        }
        glAttachShader(p, s);
    }
    glLinkProgram(p);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    return ok ? p : 0;
}

#endif
