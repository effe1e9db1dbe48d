/* web/src/runner.js: the Runner of a WebGL2 context (one per context):
 * its limits, a variant's checks and one GEMM's stages (run).  Its GL state,
 * programs, inputs, render targets and passes are in glstate.js,
 * programs.js, inputs.js, targets.js and passes.js.  A part of glgemm.js:
 * `make web` joins web/src/ into web/dist/glgemm.js. */

/* ---- helpers ---- */

/* A failure with one of glgemm's statuses (ok, invalid, unsupported,
 * compile_error, link_error, fbo_incomplete, gl_error, context_lost). */
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
        throw glgemmError('invalid', `${name} must be an integer >= 1 (got ${v})`);
}

function needNumber(name, v) {
    if (typeof v !== 'number' || !Number.isFinite(v))
        throw glgemmError('invalid', `${name} must be a finite number (got ${v})`);
}

/* The matrix as a Float32Array of at least need elements. */
/* transa / transb: true or false only (a BLAS-minded 'N' or 'T' would be
 * taken as true). */
function needBool(name, v) {
    if (typeof v !== 'boolean')
        throw glgemmError('invalid', `${name} must be true or false (got ${typeof v === 'string' ? `'${v}'` : v})`);
}

function needMatrix(name, x, need, shape) {
    if (x === null || x === undefined || typeof x.length !== 'number')
        throw glgemmError('invalid', `${name} must be a Float32Array of ${shape} = ${need} elements (got ${x})`);
    if (x.length < need)
        throw glgemmError('invalid', `${name} is too short: ${x.length} elements for ${shape} = ${need}`);
    return x instanceof Float32Array ? x : Float32Array.from(x);
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
        if (!Number.isInteger(reps) || reps < 0) throw glgemmError('invalid', `reps must be an integer >= 0 (got ${reps})`);
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
}
