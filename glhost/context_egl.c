/* EGL backend: contexts with no window and no display server.
 *
 * Display: when EGL lists devices (EGL_EXT_device_enumeration, the NVIDIA
 * case), device N goes through EGL_PLATFORM_DEVICE_EXT.  Mesa lists its
 * software rasteriser as a device too; where that device cannot be opened on
 * the device platform, or no device is listed at all, Mesa's surfaceless
 * platform (EGL_PLATFORM_SURFACELESS_MESA) gives the same llvmpipe.  Devices
 * are numbered hardware first, software last (stable within each group), so
 * device 0 is a GPU whenever EGL lists one.
 *
 * Context: no surface (EGL_KHR_surfaceless_context); no config when
 * EGL_KHR_no_config_context allows it.  compat: desktop GL, compatibility
 * profile; core: 3.3 core profile (the driver may give a later version); es3:
 * OpenGL ES 3.
 *
 * Displays stay initialised until exit (see display_init).  Contexts are
 * made one at a time (glhost/context.c's lock); each thread may make its
 * own and use it, and destroy it, while others use theirs. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glhost/context_internal.h"

#define MAX_DEVICES 32

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
#ifdef EGL_BAD_DEVICE_EXT
    case EGL_BAD_DEVICE_EXT: return "EGL_BAD_DEVICE_EXT";
#endif
    }
    return "unknown EGL error";
}

#define EGL_FAIL(err, errlen, what) \
    host_ctx_err(err, errlen, "EGL", "%s failed: %s", what, egl_error_name(eglGetError()))

/* Is name a whole word of the space-separated list? */
static bool has_ext(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

static const char *client_exts(void)
{
    const char *s = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!s)
        (void)eglGetError(); /* EGL 1.4 without client extensions */
    return s ? s : "";
}

static const char *device_exts(EGLDeviceEXT dev)
{
    PFNEGLQUERYDEVICESTRINGEXTPROC query =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    const char *s = query ? query(dev, EGL_EXTENSIONS) : NULL;
    return s ? s : "";
}

static bool is_software(EGLDeviceEXT dev)
{
    return has_ext(device_exts(dev), "EGL_MESA_device_software");
}

/* Lists the devices, hardware first.  -1 when enumeration is unavailable. */
static int list_devices(EGLDeviceEXT *out, int max, char *err, size_t errlen)
{
    const char *ce = client_exts();
    if (!has_ext(ce, "EGL_EXT_device_enumeration") && !has_ext(ce, "EGL_EXT_device_base")) {
        host_ctx_err(err, errlen, "EGL", "device enumeration is not available (no EGL_EXT_device_enumeration)");
        return -1;
    }
    PFNEGLQUERYDEVICESEXTPROC query =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    if (!query) {
        host_ctx_err(err, errlen, "EGL", "eglQueryDevicesEXT is not available");
        return -1;
    }
    EGLDeviceEXT devs[MAX_DEVICES];
    EGLint n = 0;
    if (!query(MAX_DEVICES, devs, &n)) {
        EGL_FAIL(err, errlen, "eglQueryDevicesEXT");
        return -1;
    }
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (EGLint i = 0; i < n && k < max; i++)
            if (is_software(devs[i]) == (pass == 1))
                out[k++] = devs[i];
    return k;
}

static void describe_device(EGLDeviceEXT dev, char *out, size_t len)
{
    const char *ext = device_exts(dev);
    PFNEGLQUERYDEVICESTRINGEXTPROC query =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
    const char *file = NULL;
    if (query && has_ext(ext, "EGL_EXT_device_drm_render_node"))
        file = query(dev, EGL_DRM_RENDER_NODE_FILE_EXT);
    if (!file && query && has_ext(ext, "EGL_EXT_device_drm"))
        file = query(dev, EGL_DRM_DEVICE_FILE_EXT);
    (void)eglGetError();
    if (has_ext(ext, "EGL_MESA_device_software"))
        snprintf(out, len, "software");
    else if (file)
        snprintf(out, len, "%s", file);
    else if (has_ext(ext, "EGL_NV_device_cuda"))
        snprintf(out, len, "CUDA device");
    else
        snprintf(out, len, "hardware");
}

/* Displays are initialised once and left initialised until the process
 * exits: eglInitialize() on an initialised display only returns its version,
 * while eglTerminate() unloads the driver, so the next context would pay for
 * loading it again (and Mesa's driver leaves memory behind on unload that
 * only its unloaded globals pointed to, which LeakSanitizer then reports). */
static bool display_init(EGLDisplay dpy)
{
    EGLint major, minor;
    return eglInitialize(dpy, &major, &minor) == EGL_TRUE;
}

/* An initialised display for device index `device`, and its description. */
static EGLDisplay open_display(int device, char *desc, size_t desclen, char *err,
                               size_t errlen, bool *no_device)
{
    const char *ce = client_exts();
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    bool surfaceless = get_platform_display && has_ext(ce, "EGL_MESA_platform_surfaceless");
    EGLDeviceEXT devs[MAX_DEVICES];
    char enum_err[256];
    int n = list_devices(devs, MAX_DEVICES, enum_err, sizeof enum_err);
    bool fallback = false;

    if (device < 0) {
        host_ctx_err(err, errlen, "EGL", "no device %d: device indices start at 0", device);
        if (no_device)
            *no_device = true;
        return EGL_NO_DISPLAY;
    }
    if (n > 0 && device >= n) {
        host_ctx_err(err, errlen, "EGL", "no device %d: EGL lists %d device%s (0..%d; see glgemm devices)",
                   device, n, n == 1 ? "" : "s", n - 1);
        if (no_device)
            *no_device = true;
        return EGL_NO_DISPLAY;
    }
    if (n <= 0 && device > 0) {
        host_ctx_err(err, errlen, "EGL", "no device %d: EGL lists no devices, only device 0 (the default display) exists",
                   device);
        if (no_device)
            *no_device = true;
        return EGL_NO_DISPLAY;
    }
    if (n > 0 && get_platform_display && has_ext(ce, "EGL_EXT_platform_device")) {
        char what[64];
        describe_device(devs[device], what, sizeof what);
        EGLDisplay dpy = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devs[device], NULL);
        if (dpy != EGL_NO_DISPLAY && display_init(dpy)) {
            const char *vendor = eglQueryString(dpy, EGL_VENDOR);
            snprintf(desc, desclen, "EGL device %d (%s, %s)", device, what,
                     vendor ? vendor : "unknown vendor");
            return dpy;
        }
        /* Mesa's software device may not open on the device platform; the
         * surfaceless platform is the same rasteriser.  A hardware device that
         * fails is an error: falling back would silently change the card. */
        if (!(is_software(devs[device]) && surfaceless)) {
            EGL_FAIL(err, errlen, "eglInitialize on the device platform");
            return EGL_NO_DISPLAY;
        }
        (void)eglGetError();
        fallback = true;
    }
    if (surfaceless) {
        EGLDisplay dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy == EGL_NO_DISPLAY) {
            EGL_FAIL(err, errlen, "eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA)");
            return EGL_NO_DISPLAY;
        }
        if (!display_init(dpy)) {
            EGL_FAIL(err, errlen, "eglInitialize on the surfaceless platform");
            return EGL_NO_DISPLAY;
        }
        snprintf(desc, desclen, "EGL surfaceless platform%s", fallback ? " (device 0 is software)" : "");
        return dpy;
    }
    /* Neither devices nor Mesa's surfaceless platform: the default display. */
    EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (dpy == EGL_NO_DISPLAY) {
        /* enum_err reads "EGL: why"; keep the why. */
        const char *why = n < 0 ? enum_err + (strncmp(enum_err, "EGL: ", 5) ? 0 : 5) : "EGL lists no devices";
        host_ctx_err(err, errlen, "EGL", "no display: eglGetDisplay(EGL_DEFAULT_DISPLAY) failed: %s; "
                   "no surfaceless platform; %s", egl_error_name(eglGetError()), why);
        return EGL_NO_DISPLAY;
    }
    if (!display_init(dpy)) {
        EGL_FAIL(err, errlen, "eglInitialize on the default display");
        return EGL_NO_DISPLAY;
    }
    snprintf(desc, desclen, "EGL default display");
    return dpy;
}

typedef struct {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLenum api;
} egl_native;

static void *egl_create(int device, gg_ctx_kind kind, char *desc, size_t desclen, bool *via_egl,
                        char *err, size_t errlen, bool *no_device)
{
    *via_egl = true;
    EGLDisplay dpy = open_display(device, desc, desclen, err, errlen, no_device);
    if (dpy == EGL_NO_DISPLAY)
        return NULL;
    const char *de = eglQueryString(dpy, EGL_EXTENSIONS);
    de = de ? de : "";
    const char *ver = eglQueryString(dpy, EGL_VERSION);
    int major = 1, minor = 0;
    if (ver)
        sscanf(ver, "%d.%d", &major, &minor);
    bool egl15 = major > 1 || (major == 1 && minor >= 5);
    bool create_ctx = egl15 || has_ext(de, "EGL_KHR_create_context");

    if (!has_ext(de, "EGL_KHR_surfaceless_context")) {
        host_ctx_err(err, errlen, "EGL", "%s has no EGL_KHR_surfaceless_context", desc);
        goto fail;
    }
    bool es = kind == GG_CTX_ES3;
    if (!eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
        EGL_FAIL(err, errlen, es ? "eglBindAPI(EGL_OPENGL_ES_API)" : "eglBindAPI(EGL_OPENGL_API)");
        goto fail;
    }

    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!has_ext(de, "EGL_KHR_no_config_context")) {
        EGLint bit = es ? EGL_OPENGL_ES3_BIT /* == EGL_OPENGL_ES3_BIT_KHR */ : EGL_OPENGL_BIT;
        const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, bit, EGL_NONE};
        EGLint count = 0;
        if (!eglChooseConfig(dpy, cfg_attr, &config, 1, &count)) {
            EGL_FAIL(err, errlen, "eglChooseConfig");
            goto fail;
        }
        if (count < 1) {
            host_ctx_err(err, errlen, "EGL", "eglChooseConfig found no config for %s",
                       es ? "OpenGL ES 3" : "desktop OpenGL");
            goto fail;
        }
    }

    /* Core: the newest version first (4.6, 4.3, then 3.3): NVIDIA gives
     * exactly the version asked, and profile 430 needs 4.3. */
    static const EGLint core_versions[][2] = {{4, 6}, {4, 3}, {3, 3}};
    int ntry = kind == GG_CTX_CORE && create_ctx ? 3 : 1;
    EGLContext ctx = EGL_NO_CONTEXT;
    for (int t = 0; t < ntry && ctx == EGL_NO_CONTEXT; t++) {
    EGLint attr[16], a = 0;
    if (kind == GG_CTX_ES3) {
        attr[a++] = EGL_CONTEXT_MAJOR_VERSION; /* == EGL_CONTEXT_CLIENT_VERSION */
        attr[a++] = 3;
    } else if (create_ctx) {
        if (kind == GG_CTX_CORE) {
            attr[a++] = EGL_CONTEXT_MAJOR_VERSION;
            attr[a++] = core_versions[t][0];
            attr[a++] = EGL_CONTEXT_MINOR_VERSION;
            attr[a++] = core_versions[t][1];
        }
        attr[a++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
        attr[a++] = kind == GG_CTX_CORE ? EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT
                                        : EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT;
    } else if (kind == GG_CTX_CORE) {
        host_ctx_err(err, errlen, "EGL", "%s cannot ask for a core profile (EGL %d.%d, no EGL_KHR_create_context)",
                   desc, major, minor);
        goto fail;
    }
    attr[a] = EGL_NONE;
    ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, attr);
    }
    if (ctx == EGL_NO_CONTEXT) {
        EGL_FAIL(err, errlen, "eglCreateContext");
        goto fail;
    }
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        EGL_FAIL(err, errlen, "eglMakeCurrent (no surface)");
        eglDestroyContext(dpy, ctx);
        goto fail;
    }
    egl_native *nat = malloc(sizeof *nat);
    if (!nat) {
        host_ctx_err(err, errlen, "EGL", "out of memory");
        eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(dpy, ctx);
        goto fail;
    }
    nat->dpy = dpy;
    nat->ctx = ctx;
    nat->api = es ? EGL_OPENGL_ES_API : EGL_OPENGL_API;
    return nat;
fail:
    return NULL;
}

static int egl_make_current(void *native, char *err, size_t errlen)
{
    egl_native *nat = native;
    if (!eglBindAPI(nat->api) || !eglMakeCurrent(nat->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, nat->ctx)) {
        EGL_FAIL(err, errlen, "eglMakeCurrent (no surface)");
        return -1;
    }
    return 0;
}

static void egl_destroy(void *native)
{
    egl_native *nat = native;
    if (!nat)
        return;
    if (eglGetCurrentContext() == nat->ctx)
        eglMakeCurrent(nat->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(nat->dpy, nat->ctx);
    free(nat);
}

const gg_ctx_backend host_ctx_backend_egl = {"EGL", egl_create, egl_make_current, egl_destroy};

int host_egl_hardware_devices(void)
{
    EGLDeviceEXT devs[MAX_DEVICES];
    char err[256];
    int n = list_devices(devs, MAX_DEVICES, err, sizeof err), h = 0;
    while (h < n && !is_software(devs[h]))
        h++;
    return h;
}

int host_egl_devices(char out[][256], int max, char *err, size_t errlen)
{
    EGLDeviceEXT devs[MAX_DEVICES];
    int n = list_devices(devs, MAX_DEVICES, err, errlen);
    if (n < 0)
        return -1;
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    bool platform_device = get_platform_display && has_ext(client_exts(), "EGL_EXT_platform_device");
    for (int i = 0; i < n && i < max; i++) {
        char what[64];
        describe_device(devs[i], what, sizeof what);
        const char *vendor = NULL;
        EGLDisplay dpy = EGL_NO_DISPLAY;
        if (platform_device) {
            dpy = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
            if (dpy != EGL_NO_DISPLAY && display_init(dpy))
                vendor = eglQueryString(dpy, EGL_VENDOR);
            else
                dpy = EGL_NO_DISPLAY;
        }
        snprintf(out[i], 256, "%s, EGL vendor %s", what, vendor ? vendor : "unknown (does not initialise)");
        (void)eglGetError();
    }
    return n < max ? n : max;
}
