/* tests/device/eglctx.h: the headless GL 4.3 core context of the device
 * experiments (mixfetch.c, fp64mad.c): EGL device 0 through
 * EGL_EXT_platform_device, no surface.  DEVICE_TOOL names the program in
 * its one-line errors.  Include after <EGL/egl.h> and <EGL/eglext.h>. */
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

#endif
