/* web/src/binding.js: the generator, glgemm-gen.wasm (web/wasm/gen_wasm.c:
 * gen/ compiled to WebAssembly), and init().  The one place that calls the
 * module's exports; the Runner calls gen's methods.  A part of glgemm.js:
 * `make web` joins web/src/ into web/dist/glgemm.js. */

/* web/wasm/gen_wasm.c's info arrays. */
const VI = ['mrtR', 'mrtC', 'mcR', 'mcC', 'np', 'unroll', 'profile', 'compiler', 'acc', 'store',
    'out', 'blkR', 'blkC', 'fetch'];
const SI = ['mb', 'nb', 'kb', 'mblocks', 'nblocks', 'kblocks', 'r', 'c', 'tr', 'tc', 'targets',
    'channels', 'step', 'ksteps', 'np', 'passes', 'kpad', 'mpad', 'npad', 'a_w', 'a_h', 'b_w',
    'b_h', 'tgt_w', 'tgt_h', 'ubo_row', 'ubo_vec4s', 'tch', 'group'];

let gen = null;
let loading = null;

/* A minimal WASI for a reactor that writes nothing in normal use: stdout
 * and stderr go to the console; the rest answers ENOSYS or nothing.  An
 * import the module needs that is not here fails init() (a LinkError). */
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
    return own;
}

/* The exports of glgemm-gen.wasm this runtime calls. */
const EXPORTS = ['memory', 'gw_malloc', 'gw_free', 'gw_variant_new', 'gw_variant_info', 'gw_variant_format',
    'gw_check_card', 'gw_split_new', 'gw_split_info', 'gw_emit_fragment', 'gw_emit_vertex', 'gw_tile_boxes',
    'gw_pack_a', 'gw_pack_b', 'gw_pack_c0', 'gw_unpack_c', 'gw_to_halves', 'gw_pack_words',
    'gw_wide_texel_words', 'gw_wide_value', 'gw_wide_pack_a', 'gw_wide_pack_b', 'gw_wide_pack_c0',
    'gw_wide_unpack_c'];

/* The generator: every call into glgemm-gen.wasm goes through here.
 * Pointers are offsets into its memory (alloc and free); a view of that
 * memory (f32, u16, u32) is valid until the next alloc, which may grow it. */
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
        if (!p) throw new Fail('unsupported', `out of WebAssembly memory (${bytes} bytes): the problem is too large for this page`);
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
    f64(p, n) { return new Float64Array(this.buffer, p, n); }
    u16(p, n) { return new Uint16Array(this.buffer, p, n); }
    u32(p, n) { return new Uint32Array(this.buffer, p, n); }
    /* The ints an info export writes, named by names (their order). */
    ints(fn, names, ...args) {
        const p = this.alloc(4 * 64);
        try {
            const n = fn(...args, p);
            if (n !== names.length)
                throw glgemmError('unsupported', `glgemm-gen.wasm answered ${n} values where this runtime reads ${names.length}: the two files are of different builds`);
            const v = new Int32Array(this.buffer, p, n), out = {};
            names.forEach((name, i) => { out[name] = v[i]; });
            return out;
        } finally {
            this.free(p);
        }
    }
    /* An array of the pointers ptrs in wasm memory (free it). */
    pointers(ptrs) {
        const p = this.alloc(4 * Math.max(1, ptrs.length));
        new Int32Array(this.buffer, p, ptrs.length).set(ptrs);
        return p;
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
                const info = this.ints(this.x.gw_variant_info, VI, ptr);
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
        try {
            return {...this.ints(this.x.gw_split_info, SI, ptr), ptr};
        } catch (e) {
            this.free(ptr);
            throw e;
        }
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
    /* gen/pack.h: block (bi, bk) of op(A) (a m x k, or k x m with trans, at
     * src) into out as the texels of A's texture. */
    packA(L, src, trans, m, n, k, bi, bk, out) {
        this.x.gw_pack_a(L.ptr, src, trans ? m : k, trans ? 1 : 0, m, n, k, bi, bk, out);
    }
    /* Block (bk, bj) of op(B) (k x n, or n x k with trans). */
    packB(L, src, trans, m, n, k, bk, bj, out) {
        this.x.gw_pack_b(L.ptr, src, trans ? k : n, trans ? 1 : 0, m, n, k, bk, bj, out);
    }
    /* store=f16x8: the floats packA (b false) or packB (b true) wrote, as
     * the RGBA32UI texels' words. */
    packWords(L, b, packed, words) { this.x.gw_pack_words(L.ptr, b ? 1 : 0, packed, words); }
    /* store=f16: count floats rounded to halves. */
    toHalves(dst, src, count) { this.x.gw_to_halves(dst, src, count); }
    /* beta*C0 (m x n at src, row stride ldc) of C block (bi, bj) into the
     * targets (a pointers() array of L.targets buffers, stride channels a
     * texel). */
    packC0(L, src, ldc, beta, m, n, k, bi, bj, stride, targets) {
        this.x.gw_pack_c0(L.ptr, src, ldc, beta, m, n, k, bi, bj, stride, targets);
    }
    /* The other way: C block (bi, bj) from the targets into C (row stride ldc). */
    unpackC(L, targets, stride, m, n, k, bi, bj, c, ldc) {
        this.x.gw_unpack_c(L.ptr, targets, stride, m, n, k, bi, bj, c, ldc);
    }
    /* The wide stores (store=df here), on row-major doubles: words a
     * texel (2: RG32UI, 4: RGBA32UI) of the split's layout. */
    wideTexelWords(L, store) { return this.x.gw_wide_texel_words(L.ptr, store); }
    /* A double's words in the store (4 words, the unused ones 0). */
    wideValue(store, x) {
        const p = this.alloc(16);
        try {
            this.x.gw_wide_value(store, x, 0, p);
            return this.u32(p, 4).slice();
        } finally {
            this.free(p);
        }
    }
    /* As packA / packB, src a double matrix, out the texels' words. */
    widePackA(L, store, src, trans, m, n, k, bi, bk, out) {
        this.x.gw_wide_pack_a(L.ptr, store, src, trans ? m : k, trans ? 1 : 0, m, n, k, bi, bk, out);
    }
    widePackB(L, store, src, trans, m, n, k, bk, bj, out) {
        this.x.gw_wide_pack_b(L.ptr, store, src, trans ? k : n, trans ? 1 : 0, m, n, k, bk, bj, out);
    }
    /* beta*C0 (doubles at src) of C block (bi, bj) into the targets' words. */
    widePackC0(L, store, src, ldc, beta, m, n, k, bi, bj, targets) {
        this.x.gw_wide_pack_c0(L.ptr, store, src, ldc, beta, m, n, k, bi, bj, targets);
    }
    /* C block (bi, bj) from the targets' words (stride words a texel) into
     * the doubles at c (row stride ldc), each hi + lo. */
    wideUnpackC(L, store, targets, stride, m, n, k, bi, bj, c, ldc) {
        if (this.x.gw_wide_unpack_c(L.ptr, store, targets, stride, m, n, k, bi, bj, c, ldc))
            throw new Fail('unsupported', 'out of WebAssembly memory reading C back: the problem is too large for this page');
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
        if (!res.ok) throw glgemmError('unsupported', `cannot load the generator ${src}: HTTP ${res.status}`);
        module = await WebAssembly.compile(await res.arrayBuffer());
    }
    let inst = null;
    const imports = {wasi_snapshot_preview1: wasiImports(() => inst.exports.memory)};
    try {
        inst = await WebAssembly.instantiate(module, imports);
    } catch (e) {
        throw glgemmError('unsupported', `the generator ${src} does not load: ${e.message}`);
    }
    const missing = EXPORTS.filter((name) => !(name in inst.exports));
    if (missing.length)
        throw glgemmError('unsupported', `the generator ${src} lacks ${missing.join(', ')}: not this runtime's glgemm-gen.wasm`);
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

