/* web/src/runner.js: the Runner of a WebGL2 context (one per context):
 * its limits, a variant's checks and one GEMM's stages (run).  Its GL state,
 * programs, inputs, render targets and passes are in glstate.js,
 * programs.js, inputs.js, targets.js and passes.js.  A part of glgemm.js:
 * `make web` joins web/src/ into web/dist/glgemm.js. */

/* ---- helpers ---- */

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
        throw glgemmError('invalid', `${name} must be an integer >= 1 (got ${v})`);
}

function needNumber(name, v) {
    if (typeof v !== 'number' || !Number.isFinite(v))
        throw glgemmError('invalid', `${name} must be a finite number (got ${v})`);
}

/* transa / transb: true or false only (a BLAS-minded 'N' or 'T' would be
 * taken as true). */
function needBool(name, v) {
    if (typeof v !== 'boolean')
        throw glgemmError('invalid', `${name} must be true or false (got ${typeof v === 'string' ? `'${v}'` : v})`);
}

/* x, an array of at least need numbers (kind names what it should be). */
function needNumbers(name, x, need, shape, kind = 'Float32Array') {
    if (x === null || x === undefined || typeof x.length !== 'number')
        throw glgemmError('invalid', `${name} must be a ${kind} of ${shape} = ${need} elements (got ${x})`);
    if (x.length < need)
        throw glgemmError('invalid', `${name} is too short: ${x.length} elements for ${shape} = ${need}`);
    return x;
}

/* The matrix as a Float32Array of at least need elements. */
function needMatrix(name, x, need, shape) {
    needNumbers(name, x, need, shape);
    return x instanceof Float32Array ? x : Float32Array.from(x);
}

/* What an argument is, for a message: its constructor's name. */
function typeName(x) {
    if (x === null || x === undefined) return String(x);
    return (x.constructor && x.constructor.name) || typeof x;
}

/* What run() takes: the problem and the variant. */
const RUN_OPTIONS = ['variant', 'm', 'n', 'k', 'alpha', 'beta', 'transa', 'transb', 'a', 'b', 'c'];
/* What the tuner's bench() adds: its measuring. */
const BENCH_OPTIONS = ['reps', 'sameInputs', 'maxTextureSize', 'minRepS'];

/* An options object with none but the known keys. */
function needOptions(fn, o, known) {
    if (o === null || typeof o !== 'object')
        throw glgemmError('invalid', `${fn}'s options must be an object (got ${o})`);
    for (const key of Object.keys(o))
        if (!known.includes(key))
            throw glgemmError('invalid', `${fn} takes no option '${key}' (it takes ${known.join(', ')})`);
}

/* ---- the runner ---- */

const runners = new WeakMap();

/* The runner of a WebGL2 context (one per context; after init()). */
export function createRunner(gl) {
    if (!gen) throw glgemmError('invalid', 'call await init() before createRunner()');
    if (!isWebGL2(gl)) throw glgemmError('unsupported', `WebGL2 context required (got ${contextName(gl)})`);
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
        if (gl.isContextLost()) throw glgemmError('context_lost', 'the WebGL2 context is lost');
        if (!gl.getExtension('EXT_color_buffer_float'))
            throw glgemmError('unsupported', 'EXT_color_buffer_float is not available');
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
        /* runOnTextures (textures.js): index maps, packed inputs with their
         * FBOs, C's texture, the programs drawn once */
        this.maps = new Lru(8, (e) => e.names.forEach((t) => gl.deleteTexture(t)));
        this.gpuInputs = new Lru(4, (e) => [e.a, e.b].forEach((x) => dropPacked(gl, x)));
        /* kept operands: keep object -> Map(geometry -> packed blocks) */
        this.kept = new Map();
        this.keepLimit = 256 * 1024 * 1024;
        this.out = null;
        this.warmed = new Set();
        /* A restored context has none of the old objects: forget them. */
        if (gl.canvas && gl.canvas.addEventListener)
            gl.canvas.addEventListener('webglcontextrestored', () => this.forget());
    }

    forget() {
        const gl = this.gl;
        for (const c of [this.programs, this.inputs, this.targets, this.maps, this.gpuInputs]) c.map.clear();
        this.kept.clear();
        this.vao = null;
        this.out = null;
        this.warmed.clear();
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
        if (i.store === STORE_F64 || i.store === STORE_DD)
            return {status: 'unsupported', detail: `store=${STORE_NAMES[i.store]}: needs double arithmetic, which WebGL2's GLSL ES 3.00 lacks (store=df runs here, on Float64Arrays)`};
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

    /* One GEMM: C = alpha*op(A)*op(B) + beta*C, C m x n row-major, as
     * matmul computes it, answering what happened instead of throwing.
     * Options: variant (default DEFAULT_VARIANT), m, n, k, alpha=1, beta=0,
     * transa, transb, a, b, c (C's first values, m x n, read when
     * beta != 0); any other option is an Error (status invalid).
     * Resolves to {status, detail, variant, passes, programCached,
     *   compileMs, buildMs, firstDrawMs, uploadMs, runMs, readbackMs,
     *   gflops, c}, times in milliseconds:
     *   compileMs  building the program: buildMs waiting for its compile
     *              and link, firstDrawMs its first draw of one fragment
     *              (where a driver may finish building it); about 0 when
     *              programCached (built by an earlier call);
     *   uploadMs   packing and uploading A, B and C's first values;
     *   runMs      the passes, from the first draw until a 1-pixel
     *              readPixels of the result returns (gflops: 2 m n k over it);
     *   readbackMs reading C back.
     * status is ok, invalid, unsupported, compile_error, link_error,
     * fbo_incomplete, gl_error or context_lost, detail the reason; c only
     * when ok; log the shader info log on compile_error or link_error.
     * One call is one GEMM: its runMs counts whatever the driver does the
     * first time (run it a few times and take the median to compare
     * variants).  Throws only for a bad argument. */
    async run(o = {}) {
        needOptions('run', o, RUN_OPTIONS);
        return this.gemm(o, {reps: 0, timed: true});
    }

    /* The tuner's measuring run, not page API (it may change with any
     * version; the browser worker and the portfolio race use it): run()'s
     * options and reps=10 (after one warm-up run, each timed from its first
     * draw to a 1-pixel readPixels; reps=0: one run, as run()),
     * sameInputs (A and B uploaded before for this packing and problem,
     * not passed again), maxTextureSize (split as if the context's limit
     * were this), minRepS (0: each rep one GEMM; else a rep runs as many
     * GEMMs back to back, up to MAX_BATCH, as the warm-up's time says fill
     * minRepS seconds, and counts their mean).  run()'s result and
     * timesMs (each rep), medianMs (runMs too), warmMs, timedMs (all the
     * reps) and batch. */
    async bench(o = {}) {
        needOptions('bench', o, [...RUN_OPTIONS, ...BENCH_OPTIONS]);
        const reps = o.reps ?? 10;
        if (!Number.isInteger(reps) || reps < 0) throw glgemmError('invalid', `reps must be an integer >= 0 (got ${reps})`);
        if (o.maxTextureSize !== undefined) needInt('maxTextureSize', o.maxTextureSize);
        const minRepS = o.minRepS ?? 0;
        needNumber('minRepS', minRepS);
        return this.gemm(o, {reps, timed: true, bench: true, sameInputs: !!o.sameInputs,
            maxTextureSize: o.maxTextureSize, minRepS});
    }

    /* run, bench and matmul: how = {reps, timed, bench, sameInputs,
     * maxTextureSize, minRepS}; reps 0 and not timed is matmul's run (no
     * wait before reading C back). */
    async gemm(o, how) {
        const out = {status: 'ok', detail: '', variant: null, passes: 0, programCached: false,
            compileMs: 0, buildMs: 0, firstDrawMs: 0, uploadMs: 0, runMs: 0, readbackMs: 0, gflops: 0,
            c: null};
        if (how.bench) Object.assign(out, {timesMs: [], medianMs: 0, warmMs: 0, timedMs: 0, batch: 0});
        const {m, n, k} = o;
        needInt('m', m); needInt('n', n); needInt('k', k);
        const alpha = o.alpha ?? 1, beta = o.beta ?? 0;
        needNumber('alpha', alpha); needNumber('beta', beta);
        const transa = o.transa ?? false, transb = o.transb ?? false;
        needBool('transa', transa); needBool('transb', transb);
        const v = gen.parse(o.variant ?? DEFAULT_VARIANT);
        if (v.error) return {...out, status: 'invalid', detail: v.error};
        out.variant = v.canonical;
        const verdict = this.verdict(v);
        if (verdict.status !== 'ok') return {...out, ...verdict};
        const wide = v.info.store === STORE_DF;
        if (wide) {
            /* store=df multiplies doubles: a Float32Array (the tuner's
             * worker passes them) would only pretend to be double input */
            for (const [name, x] of [['a', o.a], ['b', o.b]])
                if (!(x instanceof Float64Array) && !(how.sameInputs && x === undefined))
                    return {...out, status: 'unsupported', detail: `store=df multiplies doubles: a and b must be Float64Arrays (${name} is ${typeName(x)})`};
        }
        const maxTex = Math.min(this.lim.maxTextureSize, how.maxTextureSize ?? Infinity);
        const L = gen.split(v, m, n, k, maxTex);
        if (!L) return {...out, status: 'unsupported', detail: this.noSplit(m, n, k, maxTex)};
        const gl = this.gl;
        const since = (t) => performance.now() - t;
        const saved = this.cur = this.save();
        try {
            const why = this.uboTooBig(v, L);
            if (why) throw new Fail('unsupported', why);
            const s = {o, v, L, m, n, k, alpha, beta, transa, transb, sameInputs: !!how.sameInputs, wide,
                ubo: v.info.fetch === FETCH_UBO, acc: v.info.acc, accum: ACCUM[v.info.acc], ncb: L.mblocks * L.nblocks,
                tiles: gen.tiles(v, L.tgt_w, L.tgt_h)};
            out.passes = L.passes * L.kblocks;
            if (wide) {
                s.tw = gen.wideTexelWords(L, STORE_DF);
                s.alphaW = gen.wideValue(STORE_DF, alpha);
            }
            while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
            this.defaults(L);
            this.stage(s, 'starting');

            let t0 = performance.now();
            this.build(s, out);
            out.buildMs = out.compileMs = since(t0);
            this.stage(s, 'building the program');

            t0 = performance.now();
            this.upload(s);
            this.makeTargets(s);
            this.sync(s, true);
            out.uploadMs = since(t0);
            this.stage(s, 'uploading');

            /* First use: the driver may finish compiling at the first draw
             * (SwiftShader builds its pipeline then): one fragment drawn,
             * counted as compiling. */
            if (!out.programCached) {
                t0 = performance.now();
                this.firstUse(s);
                out.firstDrawMs = since(t0);
                out.compileMs += out.firstDrawMs;
                this.stage(s, 'first use of the program');
            }
            t0 = performance.now();
            this.initSums(s);
            this.sync(s, true);
            out.uploadMs += since(t0);

            if (how.reps > 0) {
                this.timeReps(s, how, out);
            } else {
                t0 = performance.now();
                this.passes(s);
                if (how.timed) {
                    this.sync(s, false);
                    out.runMs = since(t0);
                    out.gflops = 2 * m * n * k / out.runMs / 1e6;
                }
                this.stage(s, 'the run');
            }
            t0 = performance.now();
            out.c = wide ? this.readBackWide(s) : this.readBack(s);
            out.readbackMs = since(t0);
            this.stage(s, 'reading back C');
            if (wide) this.verifyWide(s, out.c);
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
            this.cur = null;
        }
        return out;
    }

    /* bench's warm-up run and timed reps into out. */
    timeReps(s, how, out) {
        const since = (t) => performance.now() - t;
        const w = performance.now();
        this.passes(s);
        this.sync(s, false);
        out.warmMs = since(w);
        this.stage(s, 'warm-up run');
        /* A rep of `batch` GEMMs back to back, one wait at its end, where
         * one GEMM is shorter than minRepS: a page's wait (a round trip to
         * the GPU process) and an idle GPU between short reps would swamp
         * a few milliseconds of work. */
        const minMs = how.minRepS * 1e3, warm = out.warmMs;
        const batch = minMs > 0 && warm > 0 ? Math.max(1, Math.min(MAX_BATCH, Math.ceil(minMs / warm))) : 1;
        out.batch = batch;
        const timed0 = performance.now();
        for (let r = 0; r < how.reps; r++) {
            this.initSums(s);
            this.sync(s, true);
            const a = performance.now();
            for (let i = 0; i < batch; i++) {
                if (i) this.initSums(s);
                this.passes(s);
            }
            this.sync(s, false);
            out.timesMs.push(since(a) / batch);
            this.stage(s, 'timed run');
        }
        out.timedMs = since(timed0);
        out.runMs = out.medianMs = median(out.timesMs);
        out.gflops = 2 * s.m * s.n * s.k / out.medianMs / 1e6;
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
}
