/* glgemm.js: the WebGL2 runtime of glgemm (SPEC.md "export"; issue 29).
 *
 * Matrix multiplication the graphics-era way, in a page: A and B packed
 * into float textures, C drawn into render targets, the k loop split into
 * passes that accumulate through render-to-texture.  The shaders, the
 * packing and the geometry all come from glgemm's C generator (gen/)
 * compiled to WebAssembly (glgemm-gen.wasm beside this file): there is no
 * second generator here.  This file does in WebGL2 what glhost/run.c and
 * glhost/run_steps.c do in GL: textures, targets, passes, the three acc
 * modes, fetch=ubo strips, alpha and beta.  No dependencies.
 *
 * API:
 *   await init({wasm})                   loads the generator (idempotent)
 *   await matmul(gl, a, b, m, n, k, {alpha, beta, c, transa, transb, variant})
 *                                        -> Float32Array C, m x n row-major
 *   createRunner(gl)                     (after init) the runner the tuner's
 *                                        worker page and bench use:
 *     .limits()  .check(variant, m, n, k)  .run({...}) (see Runner below)
 *   PORTFOLIO                            the exported portfolio (export
 *                                        --portfolio; else empty)
 *   await choice(gl, m, n, k, {portfolio, raceMs})
 *                                        the portfolio's variant for this
 *                                        GPU and shape class (raced once,
 *                                        remembered; "the portfolio race")
 *   lastChoice()  forgetChoices()        the latest choice; forget them all
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

/* gen/gen.h's enums, in their order. */
const PROFILE_300ES = 2;
const COMPILER_SPIRV = 1;
const ACC_COPY = 0, ACC_PINGPONG = 1, ACC_BLEND = 2;
const STORE_F16 = 1, STORE_F16X8 = 2;
const OUT_IMAGE = 1;
const FETCH_NAMES = ['texture', 'texelfetch', 'image', 'buffer', 'ubo'];
const FETCH_IMAGE = 2, FETCH_BUFFER = 3, FETCH_UBO = 4;
const UBO_STRIP = 2; /* GG_UBO_STRIP: fragment rows a fetch=ubo draw covers */
const MAX_TARGETS = 8;
const MAX_BATCH = 64; /* GEMMs in one timed rep at most (run minRepS) */
const CARD_INVALID = 1;

/* web/wasm/gen_wasm.c's info arrays. */
const VI = ['mrtR', 'mrtC', 'mcR', 'mcC', 'np', 'unroll', 'profile', 'compiler', 'acc', 'store',
    'out', 'blkR', 'blkC', 'fetch'];
const SI = ['mb', 'nb', 'kb', 'mblocks', 'nblocks', 'kblocks', 'r', 'c', 'tr', 'tc', 'targets',
    'channels', 'step', 'ksteps', 'np', 'passes', 'kpad', 'mpad', 'npad', 'a_w', 'a_h', 'b_w',
    'b_h', 'tgt_w', 'tgt_h', 'ubo_row', 'ubo_vec4s', 'tch', 'group'];

/* ---- the generator (wasm) ---- */

let gen = null;
let loading = null;

/* A minimal WASI for a reactor that writes nothing in normal use: stdout
 * and stderr go to the console, everything else answers ENOSYS. */
function wasiImports(memory) {
    const ENOSYS = 52, EBADF = 8;
    const dec = new TextDecoder();
    const pending = {1: '', 2: ''};
    const own = {
        fd_write(fd, iovs, iovsLen, nwritten) {
            const mem = memory();
            const dv = new DataView(mem.buffer);
            let total = 0, text = '';
            for (let i = 0; i < iovsLen; i++) {
                const p = dv.getUint32(iovs + 8 * i, true), len = dv.getUint32(iovs + 8 * i + 4, true);
                text += dec.decode(new Uint8Array(mem.buffer, p, len));
                total += len;
            }
            if (fd === 1 || fd === 2) {
                const lines = (pending[fd] + text).split('\n');
                pending[fd] = lines.pop();
                for (const l of lines) (fd === 1 ? console.log : console.error)('glgemm-gen: ' + l);
            } else {
                return EBADF;
            }
            dv.setUint32(nwritten, total, true);
            return 0;
        },
        fd_close() { return 0; },
        fd_seek() { return ENOSYS; },
        fd_fdstat_get() { return ENOSYS; },
        proc_exit(code) { throw new Error(`glgemm: the generator exited (${code})`); },
        clock_time_get(id, precision, out) {
            const ns = BigInt(Math.round(performance.now() * 1e6));
            new DataView(memory().buffer).setBigUint64(out, ns, true);
            return 0;
        },
        random_get(buf, len) {
            crypto.getRandomValues(new Uint8Array(memory().buffer, buf, len));
            return 0;
        },
        environ_sizes_get(count, size) {
            const dv = new DataView(memory().buffer);
            dv.setUint32(count, 0, true);
            dv.setUint32(size, 0, true);
            return 0;
        },
        environ_get() { return 0; },
        args_sizes_get(count, size) { return own.environ_sizes_get(count, size); },
        args_get() { return 0; },
    };
    return new Proxy(own, {get: (t, name) => t[name] || (() => ENOSYS)});
}

class Gen {
    constructor(x) {
        this.x = x;
        this.enc = new TextEncoder();
        this.dec = new TextDecoder();
        this.variants = new Map(); /* text -> parsed variant (its gg_variant stays) */
    }
    get buffer() { return this.x.memory.buffer; }
    alloc(bytes) {
        const p = this.x.gw_malloc(bytes);
        if (!p) throw new Fail('gl_error', `out of WebAssembly memory (${bytes} bytes)`);
        return p;
    }
    free(p) { if (p) this.x.gw_free(p); }
    str(s) {
        const b = this.enc.encode(s + '\0');
        const p = this.alloc(b.length);
        new Uint8Array(this.buffer).set(b, p);
        return p;
    }
    cstr(p) {
        const u8 = new Uint8Array(this.buffer);
        let e = p;
        while (u8[e]) e++;
        return this.dec.decode(u8.subarray(p, e));
    }
    f32(p, n) { return new Float32Array(this.buffer, p, n); }
    u16(p, n) { return new Uint16Array(this.buffer, p, n); }
    u32(p, n) { return new Uint32Array(this.buffer, p, n); }
    ints(fn, ...args) {
        const p = this.alloc(4 * 64);
        try {
            const n = fn(...args, p);
            return Array.from(new Int32Array(this.buffer, p, n));
        } finally {
            this.free(p);
        }
    }
    /* {ptr, info, canonical} or {error}. */
    parse(text) {
        if (typeof text !== 'string') return {error: 'the variant must be a string'};
        const hit = this.variants.get(text);
        if (hit) return hit;
        const t = this.str(text), err = this.alloc(512);
        let out;
        try {
            new Uint8Array(this.buffer)[err] = 0;
            const ptr = this.x.gw_variant_new(t, err, 512);
            if (!ptr) {
                out = {error: this.cstr(err)};
            } else {
                const v = this.ints(this.x.gw_variant_info, ptr);
                const info = {};
                VI.forEach((name, i) => { info[name] = v[i]; });
                this.x.gw_variant_format(ptr, err, 512);
                out = {ptr, info, canonical: this.cstr(err)};
            }
        } finally {
            this.free(t);
            this.free(err);
        }
        if (this.variants.size > 256) {
            for (const [key, v] of this.variants) {
                this.variants.delete(key);
                this.free(v.ptr);
                break;
            }
        }
        this.variants.set(text, out);
        return out;
    }
    /* gen_variant_check_card with a WebGL2 context's limits: {verdict, why}. */
    checkCard(v, lim) {
        const why = this.alloc(512);
        try {
            new Uint8Array(this.buffer)[why] = 0;
            const verdict = this.x.gw_check_card(v.ptr, lim.maxDrawBuffers, lim.maxTextureSize,
                lim.floatBlend ? 1 : 0, why, 512);
            return {verdict, why: this.cstr(why)};
        } finally {
            this.free(why);
        }
    }
    /* gen_split_plan: {ptr, L (its info)} or null; free with freeSplit. */
    split(v, m, n, k, maxTex) {
        const ptr = this.x.gw_split_new(v.ptr, m, n, k, maxTex);
        if (!ptr) return null;
        const s = this.ints(this.x.gw_split_info, ptr);
        const L = {ptr};
        SI.forEach((name, i) => { L[name] = s[i]; });
        return L;
    }
    text(p) {
        if (!p) throw new Fail('gl_error', 'the generator returned no text (out of memory?)');
        try { return this.cstr(p); } finally { this.free(p); }
    }
    /* tile=WxH: the boxes of a pass ([x, y, w, h] each, drawing order), or
     * null for one draw a pass. */
    tiles(v, w, h) {
        const n = this.x.gw_tile_boxes(v.ptr, w, h, 0, 0);
        if (n < 0) throw new Fail('unsupported', `tile: more than 65536 draws a pass over ${w}x${h} fragments`);
        if (n <= 1) return null;
        const p = this.alloc(16 * n);
        try {
            this.x.gw_tile_boxes(v.ptr, w, h, p, n);
            const b = new Int32Array(this.buffer, p, 4 * n);
            return Array.from({length: n}, (_, i) => Array.from(b.subarray(4 * i, 4 * i + 4)));
        } finally {
            this.free(p);
        }
    }
    fragment(v, m, n, k) { return this.text(this.x.gw_emit_fragment(v.ptr, m, n, k)); }
    vertex(v) { return this.text(this.x.gw_emit_vertex(v.ptr)); }
}

async function load(src) {
    src = src ?? new URL('./glgemm-gen.wasm', import.meta.url);
    let module;
    if (src instanceof WebAssembly.Module) {
        module = src;
    } else if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) {
        module = await WebAssembly.compile(src);
    } else {
        const res = await fetch(src);
        if (!res.ok) throw new Error(`glgemm: cannot load the generator ${src}: HTTP ${res.status}`);
        module = await WebAssembly.compile(await res.arrayBuffer());
    }
    let inst = null;
    const imports = {wasi_snapshot_preview1: wasiImports(() => inst.exports.memory)};
    inst = await WebAssembly.instantiate(module, imports);
    if (inst.exports._initialize) inst.exports._initialize();
    gen = new Gen(inst.exports);
}

/* Loads glgemm-gen.wasm (default: beside this module; wasm may be a URL, its
 * bytes or a WebAssembly.Module).  Idempotent. */
export async function init({wasm} = {}) {
    if (gen) return;
    if (!loading) loading = load(wasm).catch((e) => { loading = null; throw e; });
    await loading;
}

/* ---- helpers ---- */

/* A failure with one of SPEC.md's statuses. */
class Fail extends Error {
    constructor(status, detail) {
        super(detail);
        this.status = status;
        this.detail = detail;
    }
}

function median(xs) {
    const s = [...xs].sort((a, b) => a - b);
    const h = s.length >> 1;
    return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/* A small map that forgets its oldest entry past max, disposing of it. */
class Lru {
    constructor(max, dispose) { this.max = max; this.dispose = dispose; this.map = new Map(); }
    get(key) {
        const v = this.map.get(key);
        if (v !== undefined) { this.map.delete(key); this.map.set(key, v); }
        return v;
    }
    set(key, v) {
        const old = this.map.get(key);
        if (old !== undefined && old !== v) this.dispose(old);
        this.map.delete(key);
        this.map.set(key, v);
        while (this.map.size > this.max) {
            const [k0, v0] = this.map.entries().next().value;
            this.map.delete(k0);
            this.dispose(v0);
        }
    }
    clear() { for (const v of this.map.values()) this.dispose(v); this.map.clear(); }
}

function isWebGL2(gl) {
    return typeof WebGL2RenderingContext !== 'undefined' && gl instanceof WebGL2RenderingContext;
}

function contextName(gl) {
    if (gl === null || gl === undefined) return String(gl);
    if (typeof WebGLRenderingContext !== 'undefined' && gl instanceof WebGLRenderingContext) return 'WebGL1';
    return (gl.constructor && gl.constructor.name) || typeof gl;
}

function needInt(name, v) {
    if (!Number.isInteger(v) || v < 1 || v > 0x7fffffff)
        throw new Error(`glgemm: ${name} must be an integer >= 1 (got ${v})`);
}

function needNumber(name, v) {
    if (typeof v !== 'number' || !Number.isFinite(v))
        throw new Error(`glgemm: ${name} must be a finite number (got ${v})`);
}

/* The matrix as a Float32Array of at least need elements. */
/* transa / transb: true or false only (a BLAS-minded 'N' or 'T' would be
 * taken as true). */
function needBool(name, v) {
    if (typeof v !== 'boolean')
        throw new Error(`glgemm: ${name} must be true or false (got ${typeof v === 'string' ? `'${v}'` : v})`);
}

function needMatrix(name, x, need, shape) {
    if (x === null || x === undefined || typeof x.length !== 'number')
        throw new Error(`glgemm: ${name} must be a Float32Array of ${shape} = ${need} elements (got ${x})`);
    if (x.length < need)
        throw new Error(`glgemm: ${name} is too short: ${x.length} elements for ${shape} = ${need}`);
    return x instanceof Float32Array ? x : Float32Array.from(x);
}

/* ---- the runner ---- */

const runners = new WeakMap();

/* The runner of a WebGL2 context (one per context; after init()). */
export function createRunner(gl) {
    if (!gen) throw new Error('glgemm: call await init() before createRunner()');
    if (!isWebGL2(gl)) throw new Error(`glgemm: WebGL2 context required (got ${contextName(gl)})`);
    let r = runners.get(gl);
    if (!r) {
        r = new Runner(gl);
        runners.set(gl, r);
    }
    return r;
}

class Runner {
    constructor(gl) {
        this.gl = gl;
        if (gl.isContextLost()) throw new Error('glgemm: the WebGL2 context is lost');
        if (!gl.getExtension('EXT_color_buffer_float'))
            throw new Error('glgemm: EXT_color_buffer_float is not available');
        this.floatBlend = !!gl.getExtension('EXT_float_blend');
        const dbg = gl.getExtension('WEBGL_debug_renderer_info');
        this.lim = {
            maxDrawBuffers: Math.min(gl.getParameter(gl.MAX_DRAW_BUFFERS),
                gl.getParameter(gl.MAX_COLOR_ATTACHMENTS)),
            maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
            floatBlend: this.floatBlend,
            colorBufferFloat: true,
            vendor: gl.getParameter(gl.VENDOR),
            renderer: gl.getParameter(gl.RENDERER),
            unmaskedVendor: dbg ? gl.getParameter(dbg.UNMASKED_VENDOR_WEBGL) : null,
            unmaskedRenderer: dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : null,
            version: gl.getParameter(gl.VERSION),
            glsl: gl.getParameter(gl.SHADING_LANGUAGE_VERSION),
            maxUniformBlockSize: gl.getParameter(gl.MAX_UNIFORM_BLOCK_SIZE),
            uniformBufferOffsetAlignment: gl.getParameter(gl.UNIFORM_BUFFER_OFFSET_ALIGNMENT),
        };
        this.programs = new Lru(48, (p) => gl.deleteProgram(p.prog));
        /* Programs prebuild() started, not yet checked: key -> {prog, vs, fs}. */
        this.started = new Map();
        this.inputs = new Lru(6, (e) => e.names.forEach((t) => (e.ubo ? gl.deleteBuffer(t) : gl.deleteTexture(t))));
        this.targets = new Lru(4, (e) => {
            for (const cb of e.cb) {
                cb.tex.forEach((set) => set.forEach((t) => gl.deleteTexture(t)));
                cb.fbo.forEach((f) => gl.deleteFramebuffer(f));
            }
        });
        this.vao = null;
        /* A restored context has none of the old objects: forget them. */
        if (gl.canvas && gl.canvas.addEventListener)
            gl.canvas.addEventListener('webglcontextrestored', () => this.forget());
    }

    forget() {
        const gl = this.gl;
        for (const c of [this.programs, this.inputs, this.targets]) c.map.clear();
        this.vao = null;
        gl.getExtension('EXT_color_buffer_float');
        this.floatBlend = this.lim.floatBlend = !!gl.getExtension('EXT_float_blend');
    }

    /* What the context offers (a copy). */
    limits() { return {...this.lim}; }

    /* Whether the variant can run here: {status: 'ok'|'invalid'|'unsupported',
     * detail, variant (canonical, when it parses)}.  m, n, k (optional) add
     * the checks that depend on the problem (texture limit, uniform block). */
    check(variantText, m, n, k) {
        const v = gen.parse(variantText);
        if (v.error) return {status: 'invalid', detail: v.error};
        const r = this.verdict(v);
        if (r.status === 'ok' && m !== undefined) {
            needInt('m', m); needInt('n', n); needInt('k', k);
            const L = gen.split(v, m, n, k, this.lim.maxTextureSize);
            if (!L) return {status: 'unsupported', detail: this.noSplit(m, n, k, this.lim.maxTextureSize), variant: v.canonical};
            try {
                const why = this.uboTooBig(v, L);
                if (why) return {status: 'unsupported', detail: why, variant: v.canonical};
            } finally {
                gen.free(L.ptr);
            }
        }
        return {...r, variant: v.canonical};
    }

    noSplit(m, n, k, t) {
        return `no block of ${m}x${n}x${k} fits a ${t}-texel texture limit with this packing and mrt`;
    }

    /* What WebGL2 lacks comes first ('unsupported', even where gen would
     * also call the variant invalid for its profile), then gen's verdict
     * with this context's limits. */
    verdict(v) {
        const i = v.info;
        if (i.profile !== PROFILE_300ES)
            return {status: 'unsupported', detail: 'WebGL2 runs GLSL ES 3.00 only (profile=300es)'};
        if (i.compiler === COMPILER_SPIRV)
            return {status: 'unsupported', detail: 'compiler=spirv: WebGL2 compiles GLSL source only (no SPIR-V)'};
        if (i.out === OUT_IMAGE)
            return {status: 'unsupported', detail: 'out=image: WebGL2 has no image load/store (GL 4.2 / ES 3.1)'};
        if (i.fetch === FETCH_IMAGE || i.fetch === FETCH_BUFFER)
            return {status: 'unsupported', detail: `fetch=${FETCH_NAMES[i.fetch]}: WebGL2 has no ${i.fetch === FETCH_IMAGE ? 'image load/store' : 'buffer textures'}`};
        const card = gen.checkCard(v, this.lim);
        if (card.verdict !== 0) return {status: card.verdict === CARD_INVALID ? 'invalid' : 'unsupported', detail: card.why};
        return {status: 'ok', detail: ''};
    }

    uboTooBig(v, L) {
        if (v.info.fetch !== FETCH_UBO) return null;
        const bytes = L.ubo_vec4s * 16;
        if (bytes <= this.lim.maxUniformBlockSize) return null;
        return `fetch=ubo: a strip's A (${UBO_STRIP * L.tr} rows of ${L.ubo_row} texels, ${bytes} bytes) passes this context's uniform block limit of ${this.lim.maxUniformBlockSize} bytes (MAX_UNIFORM_BLOCK_SIZE); a smaller np fits`;
    }

    /* One GEMM: C = alpha*op(A)*op(B) + beta*C0, C m x n row-major.
     *   variant (default DEFAULT_VARIANT), m, n, k, alpha=1, beta=0,
     *   transa, transb, a, b, c0 (m x n, read when beta != 0),
     *   reps=10 (after one warm-up run, each timed from the first draw to a
     *   1-pixel readPixels of the result; reps=0: one untimed run, no
     *   warm-up: matmul's), sameInputs (reuse A and B uploaded before for
     *   this packing and problem), maxTextureSize (a smaller limit: split
     *   as if the context had it; tests), minRepS (0: each rep one GEMM;
     *   else a rep runs as many GEMMs back to back, up to 64, as the
     *   warm-up's time says fill minRepS seconds, and counts their mean:
     *   the tuner's page asks for 0.025, out.batch says how many).
     * Resolves to {status, detail, variant, passes, compile_s, program_cached,
     *   upload_s, seconds: [per rep], median_s, readback_s, gflops, c}:
 * compile_s is compile, link and the first draw of one fragment (0 or
 * nearly for a cached program, program_cached); upload_s packing and
 * uploading A, B and the running sums' first values; status
     * one of ok, invalid, unsupported, compile_error, link_error,
     * fbo_incomplete, gl_error, context_lost (c only when ok; log: the
     * shader info log on compile_error/link_error).  Throws only for bad
     * arguments (an Error naming the argument). */
    async run(o = {}) {
        const out = {status: 'ok', detail: '', variant: null, passes: 0, compile_s: 0,
            program_cached: false, upload_s: 0, seconds: [], median_s: 0, readback_s: 0, gflops: 0,
            c: null};
        const {m, n, k} = o;
        needInt('m', m); needInt('n', n); needInt('k', k);
        const alpha = o.alpha ?? 1, beta = o.beta ?? 0;
        needNumber('alpha', alpha); needNumber('beta', beta);
        const reps = o.reps ?? 10;
        if (!Number.isInteger(reps) || reps < 0) throw new Error(`glgemm: reps must be an integer >= 0 (got ${reps})`);
        const v = gen.parse(o.variant ?? DEFAULT_VARIANT);
        if (v.error) return {...out, status: 'invalid', detail: v.error};
        out.variant = v.canonical;
        const verdict = this.verdict(v);
        if (verdict.status !== 'ok') return {...out, ...verdict};
        let maxTex = this.lim.maxTextureSize;
        if (o.maxTextureSize !== undefined) {
            needInt('maxTextureSize', o.maxTextureSize);
            maxTex = Math.min(maxTex, o.maxTextureSize);
        }
        const L = gen.split(v, m, n, k, maxTex);
        if (!L) return {...out, status: 'unsupported', detail: this.noSplit(m, n, k, maxTex)};
        const gl = this.gl;
        const saved = this.save();
        try {
            const why = this.uboTooBig(v, L);
            if (why) throw new Fail('unsupported', why);
            const s = {o, v, L, m, n, k, alpha, beta, transa: !!o.transa, transb: !!o.transb,
                ubo: v.info.fetch === FETCH_UBO, acc: v.info.acc, ncb: L.mblocks * L.nblocks,
                tiles: gen.tiles(v, L.tgt_w, L.tgt_h)};
            out.passes = L.passes * L.kblocks;
            while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
            this.defaults(L);
            this.stage(s, 'starting');

            let t0 = performance.now();
            this.build(s, out);
            out.compile_s = (performance.now() - t0) / 1e3;
            this.stage(s, 'building the program');

            t0 = performance.now();
            this.upload(s);
            this.makeTargets(s);
            this.sync(s, true);
            out.upload_s = (performance.now() - t0) / 1e3;
            this.stage(s, 'uploading');

            /* First use: the driver may finish compiling at the first draw
             * (SwiftShader builds its pipeline then): one fragment drawn,
             * counted as compiling. */
            out.build_s = out.compile_s; /* the wait for compile and link */
            if (!out.program_cached) {
                t0 = performance.now();
                this.firstUse(s);
                out.first_draw_s = (performance.now() - t0) / 1e3;
                out.compile_s += out.first_draw_s;
                this.stage(s, 'first use of the program');
            }
            t0 = performance.now();
            this.initSums(s);
            this.sync(s, true);
            out.upload_s += (performance.now() - t0) / 1e3;

            if (reps > 0) {
                const w = performance.now();
                this.passes(s);
                this.sync(s, false);
                const warm = (performance.now() - w) / 1e3;
                out.warm_s = warm;
                this.stage(s, 'warm-up run');
                /* A rep of `batch` GEMMs back to back, one wait at its end,
                 * where one GEMM is shorter than minRepS: a page's wait (a
                 * round trip to the GPU process) and an idle GPU between
                 * short reps would swamp a few milliseconds of work. */
                const minRep = o.minRepS ?? 0;
                const batch = minRep > 0 && warm > 0 ? Math.max(1, Math.min(MAX_BATCH, Math.ceil(minRep / warm))) : 1;
                out.batch = batch;
                const timed0 = performance.now();
                for (let r = 0; r < reps; r++) {
                    this.initSums(s);
                    this.sync(s, true);
                    const a = performance.now();
                    for (let i = 0; i < batch; i++) {
                        if (i) this.initSums(s);
                        this.passes(s);
                    }
                    this.sync(s, false);
                    out.seconds.push((performance.now() - a) / 1e3 / batch);
                    this.stage(s, 'timed run');
                }
                out.timed_s = (performance.now() - timed0) / 1e3;
                out.median_s = median(out.seconds);
                out.gflops = 2 * m * n * k / out.median_s / 1e9;
            } else {
                this.passes(s);
                this.stage(s, 'the run');
            }
            t0 = performance.now();
            out.c = this.readBack(s);
            out.readback_s = (performance.now() - t0) / 1e3;
            this.stage(s, 'reading back C');
        } catch (e) {
            if (!(e instanceof Fail)) throw e;
            out.status = e.status;
            out.detail = e.detail;
            if (e.log) out.log = e.log;
            out.gflops = 0;
            out.c = null;
        } finally {
            gen.free(L.ptr);
            this.restore(saved);
        }
        return out;
    }

    /* A GL error or a lost context after a stage: a Fail. */
    stage(s, what) {
        const gl = this.gl;
        if (gl.isContextLost()) throw new Fail('context_lost', `${what}: the WebGL context was lost`);
        const e = gl.getError();
        if (e !== gl.NO_ERROR) {
            const names = {[gl.INVALID_ENUM]: 'INVALID_ENUM', [gl.INVALID_VALUE]: 'INVALID_VALUE',
                [gl.INVALID_OPERATION]: 'INVALID_OPERATION', [gl.OUT_OF_MEMORY]: 'OUT_OF_MEMORY',
                [gl.INVALID_FRAMEBUFFER_OPERATION]: 'INVALID_FRAMEBUFFER_OPERATION',
                [gl.CONTEXT_LOST_WEBGL]: 'CONTEXT_LOST_WEBGL'};
            while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
            if (e === gl.CONTEXT_LOST_WEBGL) throw new Fail('context_lost', `${what}: the WebGL context was lost`);
            throw new Fail('gl_error', `${what}: ${names[e] || 'GL error 0x' + e.toString(16)}`);
        }
    }

    /* ---- GL state a page cares about ---- */

    save() {
        const gl = this.gl, p = (x) => gl.getParameter(x);
        const st = {
            drawFb: p(gl.DRAW_FRAMEBUFFER_BINDING), readFb: p(gl.READ_FRAMEBUFFER_BINDING),
            viewport: p(gl.VIEWPORT), program: p(gl.CURRENT_PROGRAM), active: p(gl.ACTIVE_TEXTURE),
            vao: p(gl.VERTEX_ARRAY_BINDING), arrayBuf: p(gl.ARRAY_BUFFER_BINDING),
            uniformBuf: p(gl.UNIFORM_BUFFER_BINDING),
            ubo0: gl.getIndexedParameter(gl.UNIFORM_BUFFER_BINDING, 0),
            ubo0Start: gl.getIndexedParameter(gl.UNIFORM_BUFFER_START, 0),
            ubo0Size: gl.getIndexedParameter(gl.UNIFORM_BUFFER_SIZE, 0),
            packBuf: p(gl.PIXEL_PACK_BUFFER_BINDING), unpackBuf: p(gl.PIXEL_UNPACK_BUFFER_BINDING),
            scissor: p(gl.SCISSOR_BOX), colorMask: p(gl.COLOR_WRITEMASK),
            blendSrcRgb: p(gl.BLEND_SRC_RGB), blendDstRgb: p(gl.BLEND_DST_RGB),
            blendSrcA: p(gl.BLEND_SRC_ALPHA), blendDstA: p(gl.BLEND_DST_ALPHA),
            blendEqRgb: p(gl.BLEND_EQUATION_RGB), blendEqA: p(gl.BLEND_EQUATION_ALPHA),
            caps: {}, store: {}, units: [],
        };
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            st.caps[c] = gl.isEnabled(gl[c]);
        for (const x of ['UNPACK_ALIGNMENT', 'PACK_ALIGNMENT', 'UNPACK_FLIP_Y_WEBGL',
            'UNPACK_PREMULTIPLY_ALPHA_WEBGL', 'UNPACK_COLORSPACE_CONVERSION_WEBGL', 'UNPACK_ROW_LENGTH',
            'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_ROWS', 'UNPACK_SKIP_PIXELS', 'UNPACK_SKIP_IMAGES',
            'PACK_ROW_LENGTH', 'PACK_SKIP_ROWS', 'PACK_SKIP_PIXELS'])
            st.store[x] = p(gl[x]);
        for (let u = 0; u < 2 + MAX_TARGETS; u++) {
            gl.activeTexture(gl.TEXTURE0 + u);
            st.units.push([p(gl.TEXTURE_BINDING_2D), p(gl.SAMPLER_BINDING)]);
        }
        return st;
    }

    /* Our settings: no sampler objects on our units, plain pixel store,
     * nothing that would change the fragments written. */
    defaults(L) {
        const gl = this.gl;
        for (let u = 0; u < 2 + L.targets; u++) gl.bindSampler(u, null);
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            gl.disable(gl[c]);
        gl.colorMask(true, true, true, true);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
        gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
        gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
        for (const x of ['UNPACK_ROW_LENGTH', 'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_ROWS',
            'UNPACK_SKIP_PIXELS', 'UNPACK_SKIP_IMAGES', 'PACK_ROW_LENGTH', 'PACK_SKIP_ROWS', 'PACK_SKIP_PIXELS'])
            gl.pixelStorei(gl[x], 0);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
        gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    }

    restore(st) {
        const gl = this.gl;
        if (gl.isContextLost()) return;
        st.units.forEach(([tex, sampler], u) => {
            gl.activeTexture(gl.TEXTURE0 + u);
            gl.bindTexture(gl.TEXTURE_2D, tex);
            gl.bindSampler(u, sampler);
        });
        gl.activeTexture(st.active);
        gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, st.drawFb);
        gl.bindFramebuffer(gl.READ_FRAMEBUFFER, st.readFb);
        gl.viewport(...st.viewport);
        gl.useProgram(st.program);
        gl.bindVertexArray(st.vao);
        gl.bindBuffer(gl.ARRAY_BUFFER, st.arrayBuf);
        if (st.ubo0 && st.ubo0Size > 0) gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, st.ubo0, st.ubo0Start, st.ubo0Size);
        else gl.bindBufferBase(gl.UNIFORM_BUFFER, 0, st.ubo0);
        gl.bindBuffer(gl.UNIFORM_BUFFER, st.uniformBuf);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, st.packBuf);
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, st.unpackBuf);
        gl.scissor(...st.scissor);
        gl.colorMask(...st.colorMask);
        gl.blendFuncSeparate(st.blendSrcRgb, st.blendDstRgb, st.blendSrcA, st.blendDstA);
        gl.blendEquationSeparate(st.blendEqRgb, st.blendEqA);
        for (const [c, on] of Object.entries(st.caps)) (on ? gl.enable : gl.disable).call(gl, gl[c]);
        for (const [x, val] of Object.entries(st.store)) gl.pixelStorei(gl[x], val);
        while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
    }

    /* ---- program ---- */

    /* The text depends on the problem only through the padded sizes (and
     * its header comment): made for those, one program serves every shape
     * that pads to them. */
    programKey(v, L) {
        return `${v.canonical}|${L.mpad}x${L.npad}x${L.kpad}`;
    }

    /* Compile and link requested, nothing asked back (a status query waits
     * for the driver): {prog, vs, fs}, or null where objects cannot be made. */
    startProgram(v, L) {
        const gl = this.gl;
        const fsrc = gen.fragment(v, L.mpad, L.npad, L.kpad), vsrc = gen.vertex(v);
        const vs = gl.createShader(gl.VERTEX_SHADER), fs = gl.createShader(gl.FRAGMENT_SHADER);
        const prog = gl.createProgram();
        if (!vs || !fs || !prog) return null;
        gl.shaderSource(vs, vsrc);
        gl.compileShader(vs);
        gl.shaderSource(fs, fsrc);
        gl.compileShader(fs);
        gl.attachShader(prog, vs);
        gl.attachShader(prog, fs);
        gl.bindAttribLocation(prog, 0, 'aPos');
        gl.linkProgram(prog);
        return {prog, vs, fs};
    }

    /* The fragment shader's length in characters of each variant (texts)
     * for m x n x k, and its program's key: a Map of text -> {key, chars}
     * (key null: the variant does not parse, suit this context or split,
     * left to run() to report).  Starts (compile and link requested, nothing
     * asked back) the programs up to upTo times the shortest one's length,
     * all at once before any is run: the browser may then build them side
     * by side (ANGLE over Vulkan on an H200: a 65 KB program's first draw
     * took 0.6-0.7 s alone, 15 ms once started with the others), and run()
     * of each finds its program started.  The portfolio race calls it. */
    prebuild(variants, m, n, k, upTo = Infinity) {
        const out = new Map(), found = [];
        try {
            for (const text of variants) {
                out.set(text, {key: null, chars: 0});
                const v = gen.parse(text);
                if (v.error || this.verdict(v).status !== 'ok') continue;
                const L = gen.split(v, m, n, k, this.lim.maxTextureSize);
                if (!L) continue;
                const f = {v, L, key: this.programKey(v, L), chars: gen.fragment(v, L.mpad, L.npad, L.kpad).length};
                found.push(f);
                out.set(text, {key: f.key, chars: f.chars});
            }
            const shortest = Math.min(...found.map((f) => f.chars));
            for (const f of found) {
                if (f.chars > upTo * shortest || this.programs.get(f.key) || this.started.has(f.key)) continue;
                const got = this.startProgram(f.v, f.L);
                if (got) this.started.set(f.key, got);
            }
        } finally {
            found.forEach((f) => gen.free(f.L.ptr));
        }
        return out;
    }

    /* Deletes the programs prebuild() started that no run() took. */
    dropStarted() {
        const gl = this.gl;
        for (const {prog, vs, fs} of this.started.values()) {
            gl.deleteShader(vs);
            gl.deleteShader(fs);
            gl.deleteProgram(prog);
        }
        this.started.clear();
    }

    build(s, out) {
        const gl = this.gl, {v, L} = s;
        const key = this.programKey(v, L);
        const hit = this.programs.get(key);
        if (hit) {
            gl.useProgram(hit.prog);
            s.prog = hit;
            out.program_cached = true;
            return;
        }
        const got = this.started.get(key) || this.startProgram(v, L);
        this.started.delete(key);
        if (!got) throw new Fail(gl.isContextLost() ? 'context_lost' : 'gl_error', 'cannot create shader objects');
        const {prog, vs, fs} = got;
        const drop = () => {
            gl.deleteShader(vs);
            gl.deleteShader(fs);
        };
        for (const [sh, name] of [[vs, 'vertex'], [fs, 'fragment']]) {
            if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS)) {
                const log = (gl.getShaderInfoLog(sh) || '').trim();
                drop();
                gl.deleteProgram(prog);
                if (gl.isContextLost()) throw new Fail('context_lost', 'the WebGL context was lost while compiling');
                const f = new Fail('compile_error', `${name} shader: ${log || 'compile failed (no log)'}`);
                f.log = `${name}:\n${log}\n`;
                throw f;
            }
        }
        if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) {
            const log = (gl.getProgramInfoLog(prog) || '').trim();
            drop();
            gl.deleteProgram(prog);
            const f = new Fail('link_error', `link: ${log || 'failed (no log)'}`);
            f.log = `link:\n${log}\n`;
            throw f;
        }
        gl.detachShader(prog, vs);
        gl.detachShader(prog, fs);
        drop();
        /* gen.h's interface: units 0 (uA), 1 (uB), 2.. (uPrev0..), A's
         * uniform block at binding 0. */
        gl.useProgram(prog);
        const loc = (name) => gl.getUniformLocation(prog, name);
        const p = {prog, kbase: loc('uKBase'), alpha: loc('uAlpha')};
        gl.uniform1i(loc('uA'), 0);
        gl.uniform1i(loc('uB'), 1);
        for (let t = 0; t < MAX_TARGETS; t++) {
            const l = loc(`uPrev${t}`);
            if (l) gl.uniform1i(l, 2 + t);
        }
        const blk = gl.getUniformBlockIndex(prog, 'ABlock');
        if (blk !== gl.INVALID_INDEX) gl.uniformBlockBinding(prog, blk, 0);
        this.programs.set(key, p);
        s.prog = p;
    }

    /* ---- inputs ---- */

    texture(w, h, internal, format, type, data) {
        const gl = this.gl, t = gl.createTexture();
        gl.bindTexture(gl.TEXTURE_2D, t);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, 0);
        gl.texImage2D(gl.TEXTURE_2D, 0, internal, w, h, 0, format, type, data);
        return t;
    }

    /* store=f16x8: eight halves a RGBA32UI texel, as gen's words (gen.h). */
    inputFormat(ch, store) {
        const gl = this.gl, half = store === STORE_F16;
        if (store === STORE_F16X8)
            return {internal: gl.RGBA32UI, fmt: gl.RGBA_INTEGER, type: gl.UNSIGNED_INT};
        const fmt = [0, gl.RED, gl.RG, gl.RGB, gl.RGBA][ch];
        const internal = half ? [0, gl.R16F, gl.RG16F, gl.RGB16F, gl.RGBA16F][ch]
            : [0, gl.R32F, gl.RG32F, gl.RGB32F, gl.RGBA32F][ch];
        return {internal, fmt, type: half ? gl.HALF_FLOAT : gl.FLOAT};
    }

    /* fetch=ubo: A's packed texels (a_w x a_h, ch floats each) as uniform
     * block chunks, one per pass and strip (glhost/run.c's make_ubo). */
    uboData(s, a) {
        const L = s.L, rows = UBO_STRIP * L.tr, strips = L.a_h / rows, ch = L.channels;
        const stride = s.uboStride / 4;
        const u = new Float32Array(stride * L.passes * strips);
        for (let p = 0; p < L.passes; p++)
            for (let st = 0; st < strips; st++) {
                const chunk = (p * strips + st) * stride;
                for (let lr = 0; lr < rows; lr++)
                    for (let t = 0; t < L.ubo_row; t++) {
                        const src = ((st * rows + lr) * L.a_w + p * L.ubo_row + t) * ch;
                        const dst = chunk + (lr * L.ubo_row + t) * 4;
                        for (let c = 0; c < ch; c++) u[dst + c] = a[src + c];
                    }
            }
        return u;
    }

    /* A's and B's textures (A's uniform buffers for fetch=ubo): the cached
     * ones for sameInputs, else packed by gen and uploaded (into the
     * textures of the same geometry where there are some). */
    upload(s) {
        const gl = this.gl, {L, v, o, m, n, k} = s;
        const half = v.info.store === STORE_F16, x8 = v.info.store === STORE_F16X8;
        if (s.ubo) {
            const align = Math.max(16, this.lim.uniformBufferOffsetAlignment);
            s.uboStride = Math.ceil(L.ubo_vec4s * 16 / align) * align;
        }
        const shape = `${m}x${n}x${k}|${+s.transa}${+s.transb}|${L.r}x${L.c}|${v.info.store}|${L.mb},${L.nb},${L.kb}`;
        const akey = `A|${shape}|${L.a_w}x${L.a_h}|${L.mblocks}x${L.kblocks}` +
            (s.ubo ? `|ubo,${L.tr},${L.np},${L.passes},${s.uboStride}` : '');
        const bkey = `B|${shape}|${L.b_w}x${L.b_h}|${L.kblocks}x${L.nblocks}`;
        let ae = this.inputs.get(akey), be = this.inputs.get(bkey);
        const needA = !(o.sameInputs && ae), needB = !(o.sameInputs && be);
        /* floats of the packing (f16x8: of the half texels, group to a
         * stored texel) and, for f16x8, the stored texels' words */
        const na = L.a_w * L.group * L.a_h * L.channels, nb = L.b_w * L.b_h * L.group * L.channels;
        const wa = L.a_w * L.a_h * 4, wb = L.b_w * L.b_h * 4;
        const {internal, fmt, type} = this.inputFormat(L.channels, v.info.store);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, half ? 2 : 4);
        let src = 0, buf = 0, hbuf = 0;
        try {
            if (needA || needB) {
                buf = gen.alloc(4 * Math.max(na, nb));
                if (half) hbuf = gen.alloc(2 * Math.max(na, nb));
                if (x8) hbuf = gen.alloc(4 * Math.max(wa, wb));
            }
            const texData = (count, b) => {
                if (x8) {
                    gen.x.gw_pack_words(L.ptr, b ? 1 : 0, buf, hbuf);
                    return gen.u32(hbuf, b ? wb : wa);
                }
                if (!half) return gen.f32(buf, count);
                gen.x.gw_to_halves(hbuf, buf, count);
                return gen.u16(hbuf, count);
            };
            if (needA) {
                const a = needMatrix('a', o.a, m * k, s.transa ? `k x m (${k}x${m})` : `m x k (${m}x${k})`);
                src = gen.alloc(4 * m * k);
                gen.f32(src, m * k).set(a.length === m * k ? a : a.subarray(0, m * k));
                if (!ae) ae = {ubo: s.ubo, names: []};
                for (let bi = 0; bi < L.mblocks; bi++)
                    for (let bk = 0; bk < L.kblocks; bk++) {
                        const i = bi * L.kblocks + bk;
                        gen.x.gw_pack_a(L.ptr, src, s.transa ? m : k, s.transa ? 1 : 0, m, n, k, bi, bk, buf);
                        const data = texData(na, false);
                        if (s.ubo) { /* fp32 only: gen has no fetch=ubo with store=f16(x8) */
                            const u = this.uboData(s, data);
                            if (!ae.names[i]) {
                                ae.names[i] = gl.createBuffer();
                                gl.bindBuffer(gl.UNIFORM_BUFFER, ae.names[i]);
                                gl.bufferData(gl.UNIFORM_BUFFER, u, gl.STATIC_DRAW);
                            } else {
                                gl.bindBuffer(gl.UNIFORM_BUFFER, ae.names[i]);
                                gl.bufferSubData(gl.UNIFORM_BUFFER, 0, u);
                            }
                        } else if (!ae.names[i]) {
                            ae.names[i] = this.texture(L.a_w, L.a_h, internal, fmt, type, data);
                        } else {
                            gl.bindTexture(gl.TEXTURE_2D, ae.names[i]);
                            gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, L.a_w, L.a_h, fmt, type, data);
                        }
                    }
                gen.free(src);
                src = 0;
                this.inputs.set(akey, ae);
            }
            if (needB) {
                const b = needMatrix('b', o.b, k * n, s.transb ? `n x k (${n}x${k})` : `k x n (${k}x${n})`);
                src = gen.alloc(4 * k * n);
                gen.f32(src, k * n).set(b.length === k * n ? b : b.subarray(0, k * n));
                if (!be) be = {ubo: false, names: []};
                for (let bk = 0; bk < L.kblocks; bk++)
                    for (let bj = 0; bj < L.nblocks; bj++) {
                        const i = bk * L.nblocks + bj;
                        gen.x.gw_pack_b(L.ptr, src, s.transb ? k : n, s.transb ? 1 : 0, m, n, k, bk, bj, buf);
                        const data = texData(nb, true);
                        if (!be.names[i]) {
                            be.names[i] = this.texture(L.b_w, L.b_h, internal, fmt, type, data);
                        } else {
                            gl.bindTexture(gl.TEXTURE_2D, be.names[i]);
                            gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, L.b_w, L.b_h, fmt, type, data);
                        }
                    }
                this.inputs.set(bkey, be);
            }
        } finally {
            gen.free(src);
            gen.free(buf);
            gen.free(hbuf);
            gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
            gl.bindBuffer(gl.UNIFORM_BUFFER, null);
        }
        s.atex = ae.names;
        s.btex = be.names;
    }

    /* ---- render targets, running sums ---- */

    targetFormat(tch) {
        const gl = this.gl;
        return tch === 1 ? {internal: gl.R32F, fmt: gl.RED} : tch === 2 ? {internal: gl.RG32F, fmt: gl.RG}
            : {internal: gl.RGBA32F, fmt: gl.RGBA};
    }

    /* Every C block's targets: two sets (pingpong: the two sides; copy: the
     * drawn set 0 and the prev textures 1), one for blend, an FBO each;
     * kept by geometry and reused.  The running sums' first values (beta*C0
     * packed by gen) are made here, set by initSums. */
    makeTargets(s) {
        const gl = this.gl, {L} = s;
        const sets = s.acc === ACC_BLEND ? 1 : 2;
        const key = `${L.tgt_w}x${L.tgt_h}|${L.targets}|${L.tch}|${sets}|${s.ncb}`;
        let e = this.targets.get(key);
        if (!e) {
            const {internal, fmt} = this.targetFormat(L.tch);
            const draw = [];
            for (let t = 0; t < L.targets; t++) draw.push(gl.COLOR_ATTACHMENT0 + t);
            e = {cb: []};
            for (let c = 0; c < s.ncb; c++) {
                const cb = {tex: [], fbo: []};
                for (let set = 0; set < sets; set++) {
                    const ts = [];
                    for (let t = 0; t < L.targets; t++) ts.push(this.texture(L.tgt_w, L.tgt_h, internal, fmt, gl.FLOAT, null));
                    const fb = gl.createFramebuffer();
                    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
                    ts.forEach((t, i) => gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + i, gl.TEXTURE_2D, t, 0));
                    gl.drawBuffers(draw);
                    const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
                    cb.tex.push(ts);
                    cb.fbo.push(fb);
                    if (st !== gl.FRAMEBUFFER_COMPLETE) {
                        e.cb.push(cb);
                        this.targets.dispose(e);
                        const fmtName = L.tch === 1 ? 'R32F' : L.tch === 2 ? 'RG32F' : 'RGBA32F';
                        throw new Fail('fbo_incomplete', `framebuffer of ${L.targets} ${fmtName} target${L.targets > 1 ? 's' : ''} ${L.tgt_w}x${L.tgt_h}: status 0x${st.toString(16)}`);
                    }
                }
                e.cb.push(cb);
            }
            this.targets.set(key, e);
        }
        s.cb = e.cb;
        s.init = null;
        if (s.beta !== 0) {
            const c0 = needMatrix('c0', s.o.c0 ?? s.o.c, s.m * s.n, `m x n (${s.m}x${s.n})`);
            s.init = this.packC0(s, c0);
        }
        this.triangle();
    }

    /* beta*C0 in each C block's target layout: [block][target] Float32Arrays. */
    packC0(s, c0) {
        const {L, m, n, k} = s;
        const tf = L.tgt_w * L.tgt_h * L.tch;
        let src = 0, ptrs = 0;
        const bufs = [];
        try {
            src = gen.alloc(4 * m * n);
            gen.f32(src, m * n).set(c0.length === m * n ? c0 : c0.subarray(0, m * n));
            for (let t = 0; t < L.targets; t++) bufs.push(gen.alloc(4 * tf));
            ptrs = gen.alloc(4 * MAX_TARGETS);
            new Int32Array(gen.buffer, ptrs, L.targets).set(bufs);
            const out = [];
            for (let c = 0; c < s.ncb; c++) {
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.x.gw_pack_c0(L.ptr, src, n, s.beta, m, n, k, bi, bj, L.tch, ptrs);
                out.push(bufs.map((p) => gen.f32(p, tf).slice()));
            }
            return out;
        } finally {
            gen.free(src);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    }

    triangle() {
        const gl = this.gl;
        if (!this.vao) {
            this.vao = gl.createVertexArray();
            gl.bindVertexArray(this.vao);
            const vbo = gl.createBuffer();
            gl.bindBuffer(gl.ARRAY_BUFFER, vbo);
            gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 3, -1, -1, 3]), gl.STATIC_DRAW);
            gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
            gl.enableVertexAttribArray(0);
        }
        gl.bindVertexArray(this.vao);
    }

    /* The set the first pass reads: copy's prev textures, else set 0. */
    firstSet(s) { return s.acc === ACC_COPY ? 1 : 0; }

    /* The running sums back to their first value: cleared (beta 0: C0 not
     * read, as BLAS does) or beta*C0 uploaded. */
    initSums(s) {
        const gl = this.gl, {L} = s, set = this.firstSet(s);
        const zero = new Float32Array(4);
        const {fmt} = this.targetFormat(L.tch);
        for (let c = 0; c < s.ncb; c++) {
            const cb = s.cb[c];
            if (!s.init) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, cb.fbo[set]);
                for (let t = 0; t < L.targets; t++) gl.clearBufferfv(gl.COLOR, t, zero);
            } else {
                for (let t = 0; t < L.targets; t++) {
                    gl.bindTexture(gl.TEXTURE_2D, cb.tex[set][t]);
                    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, L.tgt_w, L.tgt_h, fmt, gl.FLOAT, s.init[c][t]);
                }
            }
        }
    }

    resultFbo(s, cb) {
        if (s.acc !== ACC_PINGPONG) return cb.fbo[0];
        return cb.fbo[(s.L.passes * s.L.kblocks) % 2 === 0 ? 0 : 1];
    }

    /* Waits for the work sent so far: gl.finish() does not in WebGL, a
     * 1-pixel read does.  init: from the set the first pass reads. */
    sync(s, init) {
        const gl = this.gl, cb = s.cb[s.ncb - 1];
        gl.bindFramebuffer(gl.FRAMEBUFFER, init ? cb.fbo[this.firstSet(s)] : this.resultFbo(s, cb));
        gl.readBuffer(gl.COLOR_ATTACHMENT0);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, new Float32Array(4));
    }

    /* ---- the passes (glhost/run_steps.c host_run_passes) ---- */

    bindPrev(s, tex) {
        const gl = this.gl;
        for (let t = 0; t < s.L.targets; t++) {
            gl.activeTexture(gl.TEXTURE2 + t);
            gl.bindTexture(gl.TEXTURE_2D, tex[t]);
        }
    }

    bindInputs(s, a, b) {
        const gl = this.gl;
        if (!s.ubo) {
            gl.activeTexture(gl.TEXTURE0);
            gl.bindTexture(gl.TEXTURE_2D, a);
        }
        gl.activeTexture(gl.TEXTURE1);
        gl.bindTexture(gl.TEXTURE_2D, b);
    }

    /* One pass's draw: the whole viewport, its tiles in the variant's order
     * (tile=WxH: one scissored draw each), or (fetch=ubo) one draw per
     * strip of UBO_STRIP rows with the strip's chunk of A bound. */
    drawPass(s, abuf, pass) {
        const gl = this.gl, L = s.L;
        if (!s.ubo && s.tiles) {
            gl.enable(gl.SCISSOR_TEST);
            for (const [x, y, w, h] of s.tiles) {
                gl.scissor(x, y, w, h);
                gl.drawArrays(gl.TRIANGLES, 0, 3);
            }
            gl.disable(gl.SCISSOR_TEST);
            return;
        }
        if (!s.ubo) {
            gl.drawArrays(gl.TRIANGLES, 0, 3);
            return;
        }
        const strips = L.tgt_h / UBO_STRIP;
        gl.enable(gl.SCISSOR_TEST);
        for (let st = 0; st < strips; st++) {
            gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, abuf, (pass * strips + st) * s.uboStride, L.ubo_vec4s * 16);
            gl.scissor(0, st * UBO_STRIP, L.tgt_w, UBO_STRIP);
            gl.drawArrays(gl.TRIANGLES, 0, 3);
        }
        gl.disable(gl.SCISSOR_TEST);
    }

    /* Program state that holds for every pass. */
    setupDraw(s) {
        const gl = this.gl, L = s.L, p = s.prog;
        gl.useProgram(p.prog);
        gl.uniform1f(p.alpha, s.alpha);
        gl.viewport(0, 0, L.tgt_w, L.tgt_h);
        if (s.acc === ACC_BLEND) {
            gl.enable(gl.BLEND);
            gl.blendEquation(gl.FUNC_ADD);
            gl.blendFunc(gl.ONE, gl.ONE);
        } else {
            gl.disable(gl.BLEND);
        }
    }

    /* The first pass of the first block on one fragment, waited for (the
     * running sums are set again after it). */
    firstUse(s) {
        const gl = this.gl, L = s.L, cb = s.cb[0];
        this.setupDraw(s);
        gl.uniform1i(s.prog.kbase, 0);
        this.bindInputs(s, s.atex[0], s.btex[0]);
        if (s.acc === ACC_PINGPONG) this.bindPrev(s, cb.tex[0]);
        else if (s.acc === ACC_COPY) this.bindPrev(s, cb.tex[1]);
        const fbo = s.acc === ACC_PINGPONG ? cb.fbo[1] : cb.fbo[0];
        gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
        if (s.ubo) gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, s.atex[0], 0, L.ubo_vec4s * 16);
        gl.enable(gl.SCISSOR_TEST);
        gl.scissor(0, 0, 1, 1);
        gl.drawArrays(gl.TRIANGLES, 0, 3);
        gl.disable(gl.SCISSOR_TEST);
        gl.disable(gl.BLEND);
        gl.readBuffer(gl.COLOR_ATTACHMENT0);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, new Float32Array(4));
    }

    passes(s) {
        const gl = this.gl, L = s.L, p = s.prog;
        const total = L.passes * L.kblocks;
        this.setupDraw(s);
        for (let c = 0; c < s.ncb; c++) {
            const cb = s.cb[c], bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
            let pass = 0;
            if (s.acc !== ACC_PINGPONG) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, cb.fbo[0]);
                if (s.acc === ACC_COPY) this.bindPrev(s, cb.tex[1]);
            }
            for (let bk = 0; bk < L.kblocks; bk++) {
                const abuf = s.atex[bi * L.kblocks + bk];
                this.bindInputs(s, abuf, s.btex[bk * L.nblocks + bj]);
                for (let q = 0; q < L.passes; q++, pass++) {
                    gl.uniform1i(p.kbase, q * L.np);
                    if (s.acc === ACC_PINGPONG) {
                        const src = pass % 2;
                        this.bindPrev(s, cb.tex[src]);
                        gl.bindFramebuffer(gl.FRAMEBUFFER, cb.fbo[1 - src]);
                    }
                    this.drawPass(s, abuf, q);
                    if (s.acc === ACC_COPY && pass + 1 < total) {
                        /* BrookGPU's way: the framebuffer into the texture
                         * the next pass reads (unit 2+t holds tex[1][t]). */
                        for (let t = 0; t < L.targets; t++) {
                            gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
                            gl.activeTexture(gl.TEXTURE2 + t);
                            gl.copyTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 0, 0, L.tgt_w, L.tgt_h);
                        }
                    }
                }
            }
        }
        gl.disable(gl.BLEND);
    }

    /* Every target of every C block read as RGBA floats into the wasm
     * heap, unpacked there by gen into C. */
    readBack(s) {
        const gl = this.gl, {L, m, n, k} = s;
        const tf = L.tgt_w * L.tgt_h * 4;
        const bufs = [];
        let cptr = 0, ptrs = 0;
        try {
            cptr = gen.alloc(4 * m * n);
            ptrs = gen.alloc(4 * MAX_TARGETS);
            for (let t = 0; t < L.targets; t++) bufs.push(gen.alloc(4 * tf));
            new Int32Array(gen.buffer, ptrs, L.targets).set(bufs);
            for (let c = 0; c < s.ncb; c++) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, this.resultFbo(s, s.cb[c]));
                for (let t = 0; t < L.targets; t++) {
                    gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
                    gl.readPixels(0, 0, L.tgt_w, L.tgt_h, gl.RGBA, gl.FLOAT, gen.f32(bufs[t], tf));
                }
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.x.gw_unpack_c(L.ptr, ptrs, 4, m, n, k, bi, bj, cptr, n);
            }
            return gen.f32(cptr, m * n).slice();
        } finally {
            gen.free(cptr);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    }
}

/* C = alpha*op(A)*op(B) + beta*C0 on the page's WebGL2 context: a Promise
 * of C (m x n, row-major Float32Array).  a: m x k row-major (k x m with
 * transa), b: k x n (n x k with transb), c: C0 (m x n), read when beta != 0.
 * Any m, n, k >= 1; matrices past the texture limit are split into blocks.
 * variant: the variant to run; without one, the portfolio's choice for
 * this GPU and shape class where there is a portfolio (the option
 * portfolio, else PORTFOLIO; raceMs and _corrupt as choice() takes them),
 * else DEFAULT_VARIANT.
 * Throws an Error naming what is wrong: no WebGL2, no float render targets,
 * a bad argument, or a variant this context cannot run. */
export async function matmul(gl, a, b, m, n, k, {alpha = 1, beta = 0, c, transa = false, transb = false, variant,
    portfolio, raceMs, _corrupt} = {}) {
    if (!isWebGL2(gl)) throw new Error(`glgemm: WebGL2 context required (got ${contextName(gl)})`);
    await init();
    const r = createRunner(gl);
    needInt('m', m); needInt('n', n); needInt('k', k);
    needBool('transa', transa); needBool('transb', transb);
    needMatrix('a', a, m * k, transa ? `k x m (${k}x${m})` : `m x k (${m}x${k})`);
    needMatrix('b', b, k * n, transb ? `n x k (${n}x${k})` : `k x n (${k}x${n})`);
    needNumber('alpha', alpha); needNumber('beta', beta);
    if (beta !== 0) needMatrix('c', c, m * n, `m x n (${m}x${n})`);
    let use = variant ?? DEFAULT_VARIANT;
    if ((variant === undefined || variant === null) && portfolioList(portfolio).length)
        use = (await choice(gl, m, n, k, {portfolio, raceMs, _corrupt})).variant;
    const res = await r.run({variant: use, m, n, k, alpha, beta, transa, transb,
        a, b, c0: c, reps: 0});
    if (res.status !== 'ok') throw new Error(`glgemm: ${res.variant || use}: ${res.status}: ${res.detail}`);
    return res.c;
}
