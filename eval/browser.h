/* eval/browser: the browser backend (--backend browser) inside the
 * evaluation worker.  The worker, instead of making GL contexts, starts
 * `node web/worker/worker.mjs` as its child (in its process group: the
 * evaluator's SIGKILL of the group takes Node and the Chromium it spawned
 * down too) and talks to it over pipes: one JSON line per message each
 * way, followed by raw little-endian float32 bytes where the JSON says
 * `bytes` (web/worker/worker.mjs states the ops).  No GL here.
 *
 * Contract:
 *  - eval_browser_start() starts Node, Chromium and the page once; they
 *    serve every evaluation of the worker.  Missing node, a missing
 *    browser, a page without WebGL2: NULL with one line in err (the
 *    caller's "no context": exit 3).
 *  - The page's WebGL2 is the ES3 kind's gg_ctx_info (GLSL ES 3.00,
 *    gl_version 30: no image load/store, no buffer textures); the card slug
 *    comes from its renderer field (below).  The compat and core kinds are never ok
 *    (EVAL_BROWSER_ES_ONLY says why).
 *  - eval_browser_run() runs one variant in the page (the runtime's
 *    runner: warm-up, then reps, each from the first draw to a 1-pixel
 *    readPixels), C comes back and is judged here against the reference,
 *    as glhost/run.c judges (wrong_result when it fails; GLGEMM_FAULT's
 *    wrong_result changes one element first).  The page never judges.
 *    A crashed page or browser is page_crash, a lost WebGL context
 *    context_lost; after either the browser is gone (eval_browser_alive
 *    false) and the worker must be replaced.
 *  - eval_browser_tfjs(): TensorFlow.js's tf.matMul (webgl backend) in the
 *    same page on the same inputs, timed per rep with `await t.data()`,
 *    judged the same way.
 *  - The ANGLE backend (--angle): default leaves Chromium its own choice;
 *    vulkan, gl-egl and swiftshader ask for that one, and a page that
 *    comes up on another (ANGLE falling back to SwiftShader where no GPU
 *    driver answers) is refused at start, one line naming what came: a
 *    card is one GPU under one backend.  The renderer field (so the slug)
 *    names the GPU and the backend that came: "Chromium SwiftShader",
 *    "Chromium NVIDIA H200 Vulkan" (chromium-nvidia-h200-vulkan),
 *    "Chromium llvmpipe GL" (chromium-llvmpipe-gl); the device field says
 *    which backend was asked for and the unmasked renderer.
 *  - Settings (--browser PATH, --headful, --angle) are process-wide: the
 *    CLI sets them once before any worker is forked (eval_browser_configure).
 *  - Where the worker finds web/: $GLGEMM_WEB, else web/ beside the glgemm
 *    binary, else ./web. */
#ifndef GLGEMM_EVAL_BROWSER_H
#define GLGEMM_EVAL_BROWSER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/inputs.h"
#include "base/measure.h"
#include "base/reference.h"
#include "gen/gen.h"
#include "glhost/context.h"
#include "glhost/probe.h"

#define EVAL_BROWSER_DEFAULT "/usr/bin/chromium"
#define EVAL_BROWSER_ES_ONLY "the browser backend runs WebGL2 (GLSL ES 3.00) only"

typedef struct gg_browser gg_browser;

/* The ANGLE backends --angle names (eval_browser_angle_names lists them). */
typedef enum {
    EVAL_ANGLE_DEFAULT,
    EVAL_ANGLE_VULKAN,
    EVAL_ANGLE_GL_EGL,
    EVAL_ANGLE_SWIFTSHADER,
} eval_angle;

#define EVAL_ANGLE_NAMES "default, vulkan, gl-egl or swiftshader"
/* The backend of a name, or -1. */
int eval_browser_angle_parse(const char *name);
const char *eval_browser_angle_name(eval_angle a);
/* The backend an unmasked renderer string says ANGLE runs on: "vulkan",
 * "gl", "swiftshader", "d3d11", "metal", or "" when it names none. */
const char *eval_browser_angle_of(const char *unmasked);

/* The renderer field of a page whose WEBGL_debug_renderer_info says
 * unmasked ("ANGLE (vendor, GPU, driver)"): "Chromium SwiftShader", else
 * "Chromium <GPU> <backend>", the GPU without the driver's details (NVIDIA
 * GL's "/PCIe/SSE2", Vulkan's repeated vendor and device id). */
void eval_browser_renderer(const char *unmasked, char *out, size_t len);

/* exe NULL: EVAL_BROWSER_DEFAULT. */
void eval_browser_configure(const char *exe, bool headful, eval_angle angle);

gg_browser *eval_browser_start(char *err, size_t errlen);
/* Asks Node to leave (it ends its browser); kills it after a moment. */
void eval_browser_free(gg_browser *b);
bool eval_browser_alive(const gg_browser *b);

/* The page's WebGL2 as the ES3 kind's info. */
const gg_ctx_info *eval_browser_info(const gg_browser *b);

/* The problem's inputs to the page, once per problem.  0, or -1 with err
 * (the browser went away). */
int eval_browser_inputs(gg_browser *b, const gg_inputs *in, char *err, size_t errlen);

/* One variant: out filled (any status); C into c (m*n floats) when it ran
 * (out->passes > 0).  ref is of v's store. */
void eval_browser_run(gg_browser *b, const gg_variant *v, const gg_problem *p,
                      const gg_inputs *in, const gg_reference *ref, int reps,
                      gg_measurement *out, float *c);

/* tf.matMul on the same inputs (TensorFlow.js's webgl backend, or its
 * webgpu one: unsupported with the reason where the page has no WebGPU),
 * ref of store=f32. */
void eval_browser_tfjs(gg_browser *b, bool webgpu, const gg_problem *p, const gg_inputs *in,
                       const gg_reference *ref, int reps, gg_measurement *out, float *c);

/* bench's model rows (web/worker/models.mjs): TensorFlow.js model `model`
 * (GG_MODEL_DENSE or GG_MODEL_ENCODER) at its full or small sizes,
 * predict and read-back timed reps times after a warm-up, with TensorFlow.js
 * alone (v NULL) or with glgemm-tfjs.js registered with v.  out: the
 * times, gflops from the model's matrix products, passes the products
 * glgemm served; a glgemm row whose outputs differ from TensorFlow.js's own
 * by more than GG_MODEL_REL_BOUND (max |diff| / max |ref|, rel_err) is
 * wrong_result, one with products passed back to TensorFlow.js says how
 * many in its detail. */
enum { GG_MODEL_DENSE, GG_MODEL_ENCODER, GG_MODEL_COUNT };
#define GG_MODEL_REL_BOUND 1e-5
extern const char *const eval_browser_model_names[GG_MODEL_COUNT];
void eval_browser_model(gg_browser *b, int model, bool small, const gg_variant *v, int reps,
                        gg_measurement *out);

/* `glgemm probe --backend browser` in the page: the probe's driver over
 * the page's WebGL2 (eval/browser_probe.c; the kernels' GLSL ES 3.00 from
 * glhost/probe_src.h, sent one at a time, timed in the page, their texels
 * judged here).  Returns r->status. */
gg_status eval_browser_probe(gg_browser *b, const gg_probe_opts *o, gg_probe_result *r);

/* ---- for eval/browser_probe.c: one request, and the JSON of answers ---- */

/* Sends line; the answer line (malloc'd; a page_crash or context_lost
 * status leaves b dead), and its bytes into buf (at most cap, *nbytes).
 * NULL with err: the browser went away. */
char *eval_browser_call(gg_browser *b, const char *line, void *buf, size_t cap, size_t *nbytes,
                        char *err, size_t errlen);
/* The value of the first "key" at any depth: a pointer into js, or NULL. */
const char *eval_browser_json_find(const char *js, const char *key);
double eval_browser_json_num(const char *js, const char *key, double dflt);
bool eval_browser_json_bool(const char *js, const char *key);
/* A string value, escapes decoded (non-ASCII as '?'); false if absent. */
bool eval_browser_json_str(const char *js, const char *key, char *out, size_t len);
/* The numbers of an array value, at most max; returns the count. */
int eval_browser_json_nums(const char *js, const char *key, double *v, int max);
/* s as a JSON string's contents (quotes and backslashes escaped, newlines
 * as \n, other controls dropped). */
void eval_browser_json_escape(const char *s, char *out, size_t len);

#endif
