/* Whether a card runs transfers issued in a second, shared GL context at the
 * same time as draws in the first (a copy engine), or one after the other.
 *   build/overlap [MIB [ITER]]      (default 4 MiB a transfer, 4000 loop steps a fragment)
 * Context 1 (this thread) draws one long fragment loop into a 1024x1024
 * RGBA32F target; context 2 (a second thread, sharing objects) then sends
 * MIB MiB into a texture from a pixel-unpack buffer and reads MIB MiB back
 * into a pixel-pack buffer, four times.  Each side brackets its work with
 * GL_TIMESTAMP queries (one clock for both contexts), and prints them in ms
 * from the draw's start; then the same transfers alone, and the draw alone.
 * The transfers overlap the draw when they end before it does and the draw
 * is no longer than alone.  EGL device 0 (EGL_PLATFORM_DEVICE_EXT).  Not a
 * test: figures, never asserted. */
#define _POSIX_C_SOURCE 200809L
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glew.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static EGLDisplay dpy;
static EGLContext ctx1, ctx2;
static int mib = 4, iter = 4000;
static pthread_barrier_t go;

static void die(const char *what)
{
    fprintf(stderr, "overlap: %s (EGL 0x%x, GL 0x%x)\n", what, eglGetError(), glGetError());
    exit(1);
}

static GLuint64 stamp(void)
{
    GLuint q;
    GLuint64 t = 0;
    glGenQueries(1, &q);
    glQueryCounter(q, GL_TIMESTAMP);
    glFlush();
    glGetQueryObjectui64v(q, GL_QUERY_RESULT, &t);
    glDeleteQueries(1, &q);
    return t;
}

/* A timestamp query issued now, read later. */
static GLuint mark(void)
{
    GLuint q;
    glGenQueries(1, &q);
    glQueryCounter(q, GL_TIMESTAMP);
    return q;
}

static GLuint64 read_mark(GLuint q)
{
    GLuint64 t = 0;
    glGetQueryObjectui64v(q, GL_QUERY_RESULT, &t);
    glDeleteQueries(1, &q);
    return t;
}

static GLuint prog;
static GLuint fbo, target;

static GLuint shader(GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2000];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "%s\n", log);
        die("compile");
    }
    return s;
}

static void draw_setup(void)
{
    char fs[1000];
    snprintf(fs, sizeof fs,
             "#version 330\nout vec4 o;\nvoid main() { vec4 a = gl_FragCoord.xyxy;\n"
             "  for (int i = 0; i < %d; i++) a = a * 0.999 + vec4(0.001, 0.002, 0.003, 0.004);\n"
             "  o = a; }\n", iter);
    const char *vs = "#version 330\nvoid main() { vec2 p = vec2((gl_VertexID & 1) * 4 - 1, "
                     "(gl_VertexID >> 1) * 4 - 1); gl_Position = vec4(p, 0, 1); }\n";
    prog = glCreateProgram();
    glAttachShader(prog, shader(GL_VERTEX_SHADER, vs));
    glAttachShader(prog, shader(GL_FRAGMENT_SHADER, fs));
    glLinkProgram(prog);
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenTextures(1, &target);
    glBindTexture(GL_TEXTURE_2D, target);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, 1024, 1024);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("framebuffer");
    glViewport(0, 0, 1024, 1024);
    glUseProgram(prog);
}

/* Draw once; its start and end timestamps. */
static void draw(GLuint64 *t0, GLuint64 *t1)
{
    GLuint a = mark();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    GLuint b = mark();
    glFlush();
    pthread_barrier_wait(&go); /* the transfers start now */
    glFinish();
    *t0 = read_mark(a);
    *t1 = read_mark(b);
}

typedef struct {
    GLuint tex, up, down;
    int w, h;
    GLuint64 t[8][2];
} xfer;

static void xfer_setup(xfer *x)
{
    size_t bytes = (size_t)mib << 20;
    x->w = 1024;
    x->h = (int)(bytes / (16u * 1024));
    glGenTextures(1, &x->tex);
    glBindTexture(GL_TEXTURE_2D, x->tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, x->w, x->h);
    glGenBuffers(1, &x->up);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, x->up);
    glBufferStorage(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_MAP_WRITE_BIT);
    void *p = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_WRITE_BIT);
    memset(p, 0x3f, bytes);
    glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glGenBuffers(1, &x->down);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, x->down);
    glBufferStorage(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)bytes, NULL,
                    GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glFinish();
}

/* Four rounds of one upload and one read-back, each timed on the card
 * (framebuffers are not shared: one of this context's own). */
static void xfer_run(xfer *x)
{
    GLuint q[8][2], fb;
    glGenFramebuffers(1, &fb);
    glBindFramebuffer(GL_FRAMEBUFFER, fb);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, x->tex, 0);
    for (int r = 0; r < 4; r++) {
        q[2 * r][0] = mark();
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, x->up);
        glBindTexture(GL_TEXTURE_2D, x->tex);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, x->w, x->h, GL_RGBA, GL_FLOAT, NULL);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        q[2 * r][1] = mark();
        q[2 * r + 1][0] = mark();
        glBindBuffer(GL_PIXEL_PACK_BUFFER, x->down);
        glReadPixels(0, 0, x->w, x->h, GL_RGBA, GL_FLOAT, NULL);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        q[2 * r + 1][1] = mark();
        glFlush();
    }
    glFinish();
    for (int i = 0; i < 8; i++)
        for (int e = 0; e < 2; e++)
            x->t[i][e] = read_mark(q[i][e]);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fb);
}

static xfer X;

static void *second(void *arg)
{
    (void)arg;
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx2))
        die("eglMakeCurrent 2");
    xfer_setup(&X);
    pthread_barrier_wait(&go); /* set up */
    pthread_barrier_wait(&go); /* the draw is queued */
    xfer_run(&X);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    return NULL;
}

static void print_xfers(const char *what, GLuint64 base)
{
    printf("%s:", what);
    for (int i = 0; i < 8; i++)
        printf(" %s %.3f-%.3f", i % 2 ? "down" : "up", (double)(long long)(X.t[i][0] - base) * 1e-6,
               (double)(long long)(X.t[i][1] - base) * 1e-6);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        mib = atoi(argv[1]);
    if (argc > 2)
        iter = atoi(argv[2]);
    if (mib < 1 || mib > 256 || iter < 1) {
        fprintf(stderr, "usage: overlap [MIB 1..256 [ITER]]\n");
        return 2;
    }
    PFNEGLQUERYDEVICESEXTPROC qd = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT dev[8];
    EGLint nd = 0;
    if (!qd || !gpd || !qd(8, dev, &nd) || nd < 1)
        die("no EGL device");
    dpy = gpd(EGL_PLATFORM_DEVICE_EXT, dev[0], NULL);
    if (!eglInitialize(dpy, NULL, NULL) || !eglBindAPI(EGL_OPENGL_API))
        die("eglInitialize");
    EGLint cattr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                      EGL_NONE};
    EGLConfig cfg;
    EGLint nc = 0;
    if (!eglChooseConfig(dpy, cattr, &cfg, 1, &nc) || nc < 1)
        die("eglChooseConfig");
    EGLint xattr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                      EGL_NONE};
    ctx1 = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, xattr);
    ctx2 = eglCreateContext(dpy, cfg, ctx1, xattr);
    if (!ctx1 || !ctx2 || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx1))
        die("eglCreateContext");
    glewExperimental = GL_TRUE;
    (void)glewInit();
    (void)glGetError();
    printf("renderer: %s; %d MiB a transfer; %d loop steps a fragment\n",
           (const char *)glGetString(GL_RENDERER), mib, iter);
    draw_setup();
    GLuint64 a, b;
    pthread_barrier_init(&go, NULL, 2);
    pthread_t th;
    if (pthread_create(&th, NULL, second, NULL))
        die("thread");
    pthread_barrier_wait(&go); /* the second context is set up */
    GLuint64 w0, w1;
    glFinish();
    /* warm: a draw alone */
    {
        GLuint qa = mark();
        glDrawArrays(GL_TRIANGLES, 0, 3);
        GLuint qb = mark();
        glFinish();
        w0 = read_mark(qa);
        w1 = read_mark(qb);
    }
    draw(&a, &b);
    pthread_join(th, NULL);
    printf("draw alone: %.3f ms\n", (double)(w1 - w0) * 1e-6);
    printf("draw with the transfers: 0.000-%.3f ms\n", (double)(b - a) * 1e-6);
    print_xfers("transfers in context 2", a);
    /* the transfers alone, in context 2 again (no draw in flight) */
    pthread_barrier_init(&go, NULL, 2);
    if (pthread_create(&th, NULL, second, NULL))
        die("thread");
    pthread_barrier_wait(&go);
    GLuint64 base = stamp();
    pthread_barrier_wait(&go);
    pthread_join(th, NULL);
    print_xfers("transfers alone", base);
    /* the same transfers in context 1 after a draw: one queue */
    GLuint q0 = mark();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    GLuint q1 = mark();
    xfer_run(&X);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    GLuint64 d0 = read_mark(q0), d1 = read_mark(q1);
    printf("one context: draw 0.000-%.3f ms;", (double)(d1 - d0) * 1e-6);
    print_xfers(" then", d0);
    return 0;
}
