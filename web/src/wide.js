/* web/src/wide.js: double-float (store=df) in the page: Float64Arrays
 * packed into unsigned integer textures, C read back as words, and the
 * sampled check of every result.  Methods of the WebGL2 runtime's Runner
 * (runner.js), added to its prototype.  A part of glgemm.js: `make web`
 * joins web/src/ into web/dist/glgemm.js; not a module of its own.
 *
 * A double-float value is an unevaluated sum hi + lo of two fp32s (hi the
 * double rounded to fp32, lo the rest rounded: about 48 significant bits),
 * carried as their two 32-bit words; a texel holds mc's one or two values
 * (RG32UI or RGBA32UI).  The shader computes with error-free
 * transformations (TwoSum, Dekker's TwoProduct) in fp32, which a compiler
 * that reassociates or contracts floating point would break: every result
 * is therefore checked on a sample of its elements against a double-double
 * reference, and a result outside the bound is never returned. */

/* Elements of C the check recomputes (all of them below this many). */
const WIDE_SAMPLES = 64;

/* a + b exactly: [s, e] (Knuth). */
function twoSum(a, b) {
    const s = a + b, bb = s - a;
    return [s, (a - (s - bb)) + (b - bb)];
}

/* a * b exactly: [p, e] (Dekker's split of doubles, 2^27 + 1). */
function twoProd(a, b) {
    const p = a * b;
    const ta = 134217729 * a, ah = ta - (ta - a), al = a - ah;
    const tb = 134217729 * b, bh = tb - (tb - b), bl = b - bh;
    return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
}

/* The double-double sum (hi, lo) + (x, y), renormalised. */
function ddAdd(hi, lo, x, y) {
    const [s, e] = twoSum(hi, x);
    const [t, f] = twoSum(lo, y);
    const v = e + t;
    const u = s + v, w = f + (v - (u - s));
    const z = u + w;
    return [z, w - (z - u)];
}

Object.assign(Runner.prototype, {
    /* A's and B's textures of words (gen's packing of the doubles), as
     * upload() makes the float ones: kept by geometry, the cached ones for
     * bench's sameInputs.  The Float64Arrays stay beside them for the
     * check. */
    uploadWide(s) {
        const gl = this.gl, {L, o, m, n, k} = s;
        const shape = `${m}x${n}x${k}|${+s.transa}${+s.transb}|${L.r}x${L.c}|df|${L.mb},${L.nb},${L.kb}`;
        const akey = `A|${shape}|${L.a_w}x${L.a_h}|${L.mblocks}x${L.kblocks}`;
        const bkey = `B|${shape}|${L.b_w}x${L.b_h}|${L.kblocks}x${L.nblocks}`;
        let ae = this.inputs.get(akey), be = this.inputs.get(bkey);
        const needA = !(s.sameInputs && ae), needB = !(s.sameInputs && be);
        const {internal, fmt, type} = this.targetFormat(0, s.tw);
        const wa = L.a_w * L.a_h * s.tw, wb = L.b_w * L.b_h * s.tw;
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
        let src = 0, buf = 0;
        /* blocks of one matrix: pack(i, out) each into its texture */
        const fill = (e, count, w, h, words, pack) => {
            for (let i = 0; i < count; i++) {
                pack(i, buf);
                const data = gen.u32(buf, words);
                if (!e.names[i]) {
                    e.names[i] = this.texture(w, h, internal, fmt, type, data);
                } else {
                    gl.bindTexture(gl.TEXTURE_2D, e.names[i]);
                    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, h, fmt, type, data);
                }
            }
        };
        /* One matrix: its Float64Array checked, copied into gen's memory and
         * packed block by block (pack(src, outer, inner, out)) into entry e,
         * kept under key with the array beside it for the check. */
        const side = (key, e, name, x, count, what, blocks, inner, w, h, words, pack) => {
            const arr = needNumbers(name, x, count, what, 'Float64Array');
            src = gen.alloc(8 * count);
            gen.f64(src, count).set(arr.length === count ? arr : arr.subarray(0, count));
            if (!e) e = {ubo: false, names: []};
            fill(e, blocks, w, h, words, (i, out) => pack(src, Math.floor(i / inner), i % inner, out));
            e.src = arr;
            gen.free(src);
            src = 0;
            this.inputs.set(key, e);
            return e;
        };
        try {
            if (needA || needB) buf = gen.alloc(4 * Math.max(wa, wb));
            if (needA)
                ae = side(akey, ae, 'a', o.a, m * k, s.transa ? `k x m (${k}x${m})` : `m x k (${m}x${k})`,
                    L.mblocks * L.kblocks, L.kblocks, L.a_w, L.a_h, wa, (p, bi, bk, out) =>
                        gen.widePackA(L, STORE_DF, p, s.transa, m, n, k, bi, bk, out));
            if (needB)
                be = side(bkey, be, 'b', o.b, k * n, s.transb ? `n x k (${n}x${k})` : `k x n (${k}x${n})`,
                    L.kblocks * L.nblocks, L.nblocks, L.b_w, L.b_h, wb, (p, bk, bj, out) =>
                        gen.widePackB(L, STORE_DF, p, s.transb, m, n, k, bk, bj, out));
        } finally {
            gen.free(src);
            gen.free(buf);
        }
        s.atex = ae.names;
        s.btex = be.names;
        s.srcA = ae.src;
        s.srcB = be.src;
    },

    /* beta*C0 (any array of numbers, read as doubles) in each C block's
     * targets: [block][target] Uint32Arrays of words. */
    packC0Wide(s, c0) {
        const {L, m, n, k} = s;
        const words = L.tgt_w * L.tgt_h * s.tw;
        let src = 0, ptrs = 0;
        const bufs = [];
        try {
            src = gen.alloc(8 * m * n);
            gen.f64(src, m * n).set(c0.length === m * n ? c0 : Array.prototype.slice.call(c0, 0, m * n));
            for (let t = 0; t < L.targets; t++) bufs.push(gen.alloc(4 * words));
            ptrs = gen.pointers(bufs);
            const out = [];
            for (let c = 0; c < s.ncb; c++) {
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.widePackC0(L, STORE_DF, src, n, s.beta, m, n, k, bi, bj, ptrs);
                out.push(bufs.map((p) => gen.u32(p, words).slice()));
            }
            return out;
        } finally {
            gen.free(src);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    },

    /* Every target of every C block read as words (RGBA_INTEGER, the
     * format WebGL2 reads every unsigned integer target with; RG32UI's
     * blue and alpha come back as 0 and 1), unpacked by gen into C as
     * doubles (hi + lo): a Float64Array. */
    readBackWide(s) {
        const gl = this.gl, {L, m, n, k} = s;
        const tw4 = L.tgt_w * L.tgt_h * 4;
        const bufs = [];
        let cptr = 0, ptrs = 0;
        try {
            cptr = gen.alloc(8 * m * n);
            for (let t = 0; t < L.targets; t++) bufs.push(gen.alloc(4 * tw4));
            ptrs = gen.pointers(bufs);
            for (let c = 0; c < s.ncb; c++) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, this.resultFbo(s, s.cb[c]));
                for (let t = 0; t < L.targets; t++) {
                    gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
                    gl.readPixels(0, 0, L.tgt_w, L.tgt_h, gl.RGBA_INTEGER, gl.UNSIGNED_INT, gen.u32(bufs[t], tw4));
                }
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.wideUnpackC(L, STORE_DF, ptrs, 4, m, n, k, bi, bj, cptr, n);
            }
            return gen.f64(cptr, m * n).slice();
        } finally {
            gen.free(cptr);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    },

    /* The elements of C the check recomputes: every one of a small C; else
     * one of each target and value of a fragment (each is its own code in
     * the shader), the four corners (the blocks' padding), the rest at
     * random (a fixed sequence), WIDE_SAMPLES in all. */
    wideSamples(s) {
        const {L, m, n} = s;
        if (m * n <= WIDE_SAMPLES) return Array.from({length: m * n}, (_, i) => [Math.floor(i / n), i % n]);
        const seen = new Set(), out = [];
        const add = (i, j) => {
            if (i < m && j < n && !seen.has(i * n + j)) { seen.add(i * n + j); out.push([i, j]); }
        };
        for (let ti = 0; ti < L.tr; ti++)
            for (let tj = 0; tj < L.tc; tj++)
                for (let i = 0; i < L.r; i++)
                    for (let j = 0; j < L.c; j++) add(ti * L.r + i, tj * L.c + j);
        add(0, n - 1); add(m - 1, 0); add(m - 1, n - 1);
        let x = 0x9e3779b9 ^ (m * 73856093) ^ (n * 19349663);
        while (out.length < WIDE_SAMPLES) {
            x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
            const i = x % m;
            x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
            add(i, x % n);
        }
        return out;
    },

    /* C's sampled elements against alpha op(A) op(B) + beta C0 in
     * double-double: |C - R| / (|alpha| sum |a b| + |beta c0|) within
     * k 2^-44 (double-float's bound: inputs rounded to hi + lo, about
     * 2^-49 each, products and sums about 2^-46 and 2^-47 a term), and
     * NaN, infinities and finite values where R has them; else a Fail
     * wrong_result.  A compiler that reassociates the error-free sums
     * leaves errors of about 2^-24 (fp32's), far past the bound. */
    verifyWide(s, c) {
        const {m, n, k, alpha, beta, transa, transb} = s;
        const A = s.srcA, B = s.srcB, C0 = beta !== 0 ? s.o.c : null;
        const bound = k * 2 ** -44;
        for (const [i, j] of this.wideSamples(s)) {
            let hi = 0, lo = 0, sum = 0, plain = 0;
            for (let q = 0; q < k; q++) {
                const x = transa ? A[q * m + i] : A[i * k + q], y = transb ? B[j * k + q] : B[q * n + j];
                const [p, e] = twoProd(x, y);
                [hi, lo] = ddAdd(hi, lo, p, e);
                sum += Math.abs(p);
                plain += p;
            }
            /* alpha (hi + lo) + beta c0, each product exact as a pair */
            const [p1, e1] = twoProd(alpha, hi);
            let [rh, rl] = ddAdd(p1, e1, alpha * lo, 0);
            let den = Math.abs(alpha) * sum, r = alpha * plain;
            if (C0) {
                const c0 = Number(C0[i * n + j]);
                const [p2, e2] = twoProd(beta, c0);
                [rh, rl] = ddAdd(rh, rl, p2, e2);
                den += Math.abs(beta * c0);
                r += beta * c0;
            }
            const got = c[i * n + j];
            const where = `store=df: C[${i}][${j}] = ${got}`;
            if (!Number.isFinite(r)) { /* NaN or an infinity among the inputs */
                const same = Number.isNaN(r) ? Number.isNaN(got) : got === r;
                if (!same) throw new Fail('wrong_result', `${where} where the reference is ${r}`);
                continue;
            }
            if (!Number.isFinite(got) || !Number.isFinite(rh))
                throw new Fail('wrong_result', `${where} where the reference is ${r}: past double-float's range (fp32's exponents, about 3.4e38)`);
            const d = Math.abs((rh - got) + rl);
            const rel = den > 0 ? d / den : d === 0 ? 0 : Infinity;
            if (rel > bound)
                throw new Fail('wrong_result', `${where} where a double-double reference gives ${rh}: error ${rel.toExponential(2)} ` +
                    `of |alpha| sum |a b| + |beta c0|, past double-float's bound k 2^-44 = ${bound.toExponential(2)}; ` +
                    `this context's double-float arithmetic is not exact (its shader compiler may reorder the error-free sums), ` +
                    `or values leave fp32's exponent range, which double-float keeps`);
        }
    },
});
