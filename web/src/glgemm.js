/* glgemm.js: glgemm's WebGL2 runtime, an ES module with no dependencies
 * (made by `glgemm export --js DIR`, which writes it beside glgemm-gen.wasm).
 *
 * Matrix multiplication the graphics-era way, in a page: A and B packed
 * into float textures, C drawn into render targets, the k loop split into
 * passes that accumulate through render-to-texture.  The shaders, the
 * packing and the geometry all come from glgemm's C generator compiled to
 * WebAssembly (glgemm-gen.wasm beside this file), the same one the native
 * tuner runs, so a variant tuned there runs the same here: textures,
 * targets, passes, the three accumulation modes, fetch=ubo strips, alpha
 * and beta.
 *
 * API (every name a page sees is camelCase; times are milliseconds):
 *   await init({wasm})                   loads the generator (idempotent)
 *   await matmul(gl, a, b, m, n, k, {alpha, beta, c, transa, transb, variant})
 *                                        -> Float32Array C, m x n row-major;
 *                                        a and b Float64Arrays: C a
 *                                        Float64Array, computed in
 *                                        double-float (store=df)
 *   createRunner(gl)                     (after init) this context's runner:
 *     .limits()                          what the context offers
 *     .check(variant, m, n, k)           {status, detail, variant}: whether
 *                                        the variant runs here
 *     .run({variant, m, n, k, alpha, beta, transa, transb, a, b, c})
 *                                        one GEMM and what it cost:
 *                                        {status, detail, variant, passes,
 *                                        programCached, compileMs, uploadMs,
 *                                        runMs, readbackMs, gflops, c, ...}
 *     .runOnTextures({variant, m, n, k, batch, alpha, transa, transb,
 *                     a, b, bias, activation, leakyreluAlpha, preluWeights})
 *                                        synchronous GEMMs on dense textures
 *                                        of this context into an R32F
 *                                        texture ({status, detail, texture,
 *                                        width, height, ...}); what
 *                                        glgemm-tfjs.js runs; a or b as
 *                                        {load, keep}: packed once, kept
 *     .release(keep)  .keptInfo()  .setKeepBytes(n)
 *                                        the kept operands
 *   PORTFOLIO                            the exported portfolio (export
 *                                        --portfolio; else empty)
 *   await choice(gl, m, n, k, {portfolio, raceMs})
 *                                        the portfolio's variant for this
 *                                        GPU and shape class (raced once,
 *                                        remembered; "the portfolio race")
 *   lastChoice()  forgetChoices()        the latest choice; forget them all
 * An option a call does not take is an Error.  Every Error these throw
 * carries status (invalid, unsupported, context_lost, or a failed run's)
 * and detail.  The runner's bench() is the tuner's measuring entry (glgemm
 * tune --backend browser), not for pages: it may change with any version.
 *
 * GL state: run() and matmul() save and restore what a page cares about:
 * the framebuffer bindings, viewport, program, active texture, the 2D
 * textures and samplers of the units used, the vertex array, array and
 * uniform buffer bindings, pixel-pack/unpack buffers and pixel store
 * settings, scissor, blend, depth, stencil, cull, dither, colour mask.
 * They drain gl.getError() before starting (an error already pending is
 * the page's, and is lost).
 */

/* `glgemm export` rewrites this one line with the exported variant. */
export const DEFAULT_VARIANT = "mrt=2x2,mc=2x2,np=64,unroll=1,profile=300es,compiler=glsl,acc=pingpong,store=f32";
/* `glgemm export --portfolio` rewrites this one line with the chosen
 * variants (canonical, the first covering most): matmul without a variant
 * races them (see "the portfolio race" below). */
export const PORTFOLIO = [];
/* The variant matmul runs on Float64Arrays (double-float, store=df: each
 * value an unevaluated sum hi + lo of two fp32s) when the call names none. */
export const DEFAULT_DF_VARIANT = "mrt=2x2,mc=1x2,np=64,unroll=0,profile=300es,compiler=glsl,acc=pingpong,store=df,fetch=texelfetch";

/* The Error every call throws: its message "glgemm: <detail>", and
 * status (glgemm's status names: invalid for a bad argument, unsupported for what
 * this context cannot do, context_lost, or the failed run's own status) and
 * detail as properties, so that a page can tell them apart. */
function glgemmError(status, detail, message = `glgemm: ${detail}`) {
    return Object.assign(new Error(message), {status, detail});
}

/* A run's failure inside the runtime, with one of glgemm's statuses:
 * run() answers it as its result's status and detail; matmul throws it as
 * a glgemmError (and one that escapes a call reads as one). */
class Fail extends Error {
    constructor(status, detail) {
        super(`glgemm: ${detail}`);
        this.status = status;
        this.detail = detail;
    }
}

/* gen/gen.h's enums, in their order. */
const PROFILE_300ES = 2;
const COMPILER_SPIRV = 1;
const ACC_COPY = 0, ACC_PINGPONG = 1, ACC_BLEND = 2;
const STORE_F16 = 1, STORE_F16X8 = 2, STORE_F64 = 3, STORE_DD = 4, STORE_DF = 5;
const STORE_NAMES = ['f32', 'f16', 'f16x8', 'f64', 'dd', 'df'];
const OUT_IMAGE = 1;
const FETCH_NAMES = ['texture', 'texelfetch', 'image', 'buffer', 'ubo'];
const FETCH_IMAGE = 2, FETCH_BUFFER = 3, FETCH_UBO = 4;
const UBO_STRIP = 2; /* GG_UBO_STRIP: fragment rows a fetch=ubo draw covers */
const MAX_TARGETS = 8;
/* Texture units whose bindings run/matmul/runOnTextures save and restore:
 * A, B, the targets, and runOnTextures' inverse map, bias and weights. */
const SAVED_UNITS = 2 + MAX_TARGETS + 3;
const MAX_BATCH = 64; /* GEMMs in one timed rep at most (bench's minRepS) */
const CARD_INVALID = 1;
