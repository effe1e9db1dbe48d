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

/* The Error every call throws: its message "glgemm: <detail>", and
 * status (glgemm's status names: invalid for a bad argument, unsupported for what
 * this context cannot do, context_lost, or the failed run's own status) and
 * detail as properties, so that a page can tell them apart. */
function glgemmError(status, detail, message = `glgemm: ${detail}`) {
    return Object.assign(new Error(message), {status, detail});
}

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

