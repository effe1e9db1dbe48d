/* GLFW backend: a hidden 16x16 window whose context we render off-screen
 * into framebuffer objects.  GLFW 3.3 has no headless platform: this needs an
 * X display (tests run it under xvfb-run).  The device index is ignored: the
 * context is the X server's.
 *
 * compat: no version or profile hint (the driver's newest compatibility
 * context, 2.1 at least); core: 3.3 core profile; es3: OpenGL ES 3.0 through
 * the native context API (GLX), or through EGL when GLX cannot make it.
 *
 * GLFW is initialised with the first window and never terminated: each
 * glfwInit() opens a new X connection, and an X server that resets when its
 * last client leaves (Xvfb's default) refuses connections for a moment after
 * a glfwTerminate(); and closing the connection unloads the GL driver, which
 * leaves memory behind that LeakSanitizer reports (see context_egl.c).  The
 * process's exit closes the connection.
 * Not thread safe: one thread makes and destroys contexts. */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glhost/context_internal.h"

static bool initialised;
static char last_error[512];

static const char *glfw_error_name(int code)
{
    switch (code) {
    case GLFW_NO_ERROR: return "GLFW_NO_ERROR";
    case GLFW_NOT_INITIALIZED: return "GLFW_NOT_INITIALIZED";
    case GLFW_NO_CURRENT_CONTEXT: return "GLFW_NO_CURRENT_CONTEXT";
    case GLFW_INVALID_ENUM: return "GLFW_INVALID_ENUM";
    case GLFW_INVALID_VALUE: return "GLFW_INVALID_VALUE";
    case GLFW_OUT_OF_MEMORY: return "GLFW_OUT_OF_MEMORY";
    case GLFW_API_UNAVAILABLE: return "GLFW_API_UNAVAILABLE";
    case GLFW_VERSION_UNAVAILABLE: return "GLFW_VERSION_UNAVAILABLE";
    case GLFW_PLATFORM_ERROR: return "GLFW_PLATFORM_ERROR";
    case GLFW_FORMAT_UNAVAILABLE: return "GLFW_FORMAT_UNAVAILABLE";
    case GLFW_NO_WINDOW_CONTEXT: return "GLFW_NO_WINDOW_CONTEXT";
    }
    return "unknown GLFW error";
}

/* Keeps the last error, decoded: "<description> (GLFW_...)". */
static void on_error(int code, const char *description)
{
    snprintf(last_error, sizeof last_error, "%s (%s)", description ? description : "no description",
             glfw_error_name(code));
}

static GLFWwindow *make_window_v(gg_ctx_kind kind, int context_api, int core_minor4)
{
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_FOCUSED, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_CREATION_API, context_api);
    switch (kind) {
    case GG_CTX_COMPAT:
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
        break;
    case GG_CTX_CORE:
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, core_minor4 >= 0 ? 4 : 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, core_minor4 >= 0 ? core_minor4 : 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        break;
    case GG_CTX_ES3:
        glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
        break;
    }
    return glfwCreateWindow(16, 16, "glgemm", NULL, NULL);
}

/* A core context of the newest version the driver gives (4.6, 4.3, then
 * 3.3: NVIDIA gives exactly the version asked, and profile 430 needs 4.3). */
static GLFWwindow *make_window(gg_ctx_kind kind, int context_api)
{
    static const int minors[] = {6, 3, -1};
    GLFWwindow *w = NULL;
    for (size_t i = 0; i < sizeof minors / sizeof *minors && !w; i++) {
        if (kind != GG_CTX_CORE && minors[i] >= 0)
            continue;
        w = make_window_v(kind, context_api, minors[i]);
    }
    return w;
}

static void *glfw_create(int device, gg_ctx_kind kind, char *desc, size_t desclen, bool *via_egl,
                         char *err, size_t errlen, bool *no_device)
{
    (void)device;
    (void)no_device;
    *via_egl = false;
    last_error[0] = '\0';
    glfwSetErrorCallback(on_error);
    if (!initialised) {
        /* An X server that is resetting (its last client just left) refuses
         * connections for a moment: retry opening the display for up to 1 s. */
        bool ok = glfwInit();
        for (int tries = 0; !ok && tries < 20 && getenv("DISPLAY") && strstr(last_error, "open display");
             tries++) {
            nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
            last_error[0] = '\0';
            ok = glfwInit();
        }
        if (!ok) {
            host_ctx_err(err, errlen, "GLFW", "glfwInit failed: %s",
                       last_error[0] ? last_error : "no reason given");
            return NULL;
        }
        initialised = true;
    }
    GLFWwindow *w = make_window(kind, GLFW_NATIVE_CONTEXT_API);
    if (w) {
        snprintf(desc, desclen, "GLFW hidden window (native context API)");
    } else if (kind == GG_CTX_ES3) {
        char native[sizeof last_error];
        snprintf(native, sizeof native, "%s", last_error);
        w = make_window(kind, GLFW_EGL_CONTEXT_API);
        if (!w) {
            host_ctx_err(err, errlen, "GLFW", "cannot make an OpenGL ES 3.0 context: native: %s; EGL: %s",
                       native, last_error);
        } else {
            *via_egl = true;
            snprintf(desc, desclen, "GLFW hidden window (EGL context API)");
        }
    } else {
        host_ctx_err(err, errlen, "GLFW", "glfwCreateWindow (%s context) failed: %s", host_ctx_kind_name(kind),
                   last_error[0] ? last_error : "no reason given");
    }
    if (!w)
        return NULL;
    glfwMakeContextCurrent(w);
    return w;
}

static int glfw_make_current(void *native, char *err, size_t errlen)
{
    last_error[0] = '\0';
    glfwMakeContextCurrent(native);
    if (last_error[0]) {
        host_ctx_err(err, errlen, "GLFW", "glfwMakeContextCurrent failed: %s", last_error);
        return -1;
    }
    return 0;
}

static void glfw_destroy(void *native)
{
    if (!native)
        return;
    if (glfwGetCurrentContext() == native)
        glfwMakeContextCurrent(NULL);
    glfwDestroyWindow(native);
}

const gg_ctx_backend host_ctx_backend_glfw = {"GLFW", glfw_create, glfw_make_current, glfw_destroy};
