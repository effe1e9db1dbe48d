/* web/src/textures.js: GEMM on textures already on the GPU (runOnTextures),
 * for a library that keeps its tensors as textures on the same context
 * (glgemm-tfjs.js: TensorFlow.js's webgl backend).  Methods of the WebGL2
 * runtime's Runner (runner.js), added to its prototype.  A part of
 * glgemm.js: `make web` joins web/src/ into web/dist/glgemm.js.
 *
 * No CPU round trip: A and B come in a dense RGBA layout (element i of the
 * stored matrices at texel i/4, channel i%4, texel t at (t % width,
 * t / width): what TensorFlow.js's dataToGPU hands), a repack draw puts
 * each block into gen's packed A/B texture layout, the variant's passes
 * run, and an output draw writes C (one float a texel, R32F, width n,
 * height batch*m) with the bias and the activation applied.
 *
 * Where the repack and output draws find each element comes from gen
 * itself: gen's packers (gw_pack_a, gw_pack_b, gw_pack_c0) pack matrices
 * of indices (each element its own position + 1) once per geometry, and
 * those index textures tell the draws where an element goes.  So the
 * draws follow every packing gen has (mc, mrt, blk, np, splits) with no
 * layout written twice. */

const ACTIVATIONS = ['linear', 'relu', 'relu6', 'elu', 'leakyrelu', 'prelu', 'sigmoid'];
const TEXTURE_OPTIONS = ['variant', 'm', 'n', 'k', 'batch', 'alpha', 'transa', 'transb', 'a', 'b', 'bias',
    'activation', 'leakyreluAlpha', 'preluWeights', 'maxTextureSize'];
const UNIT_INV = MAX_TARGETS, UNIT_BIAS = MAX_TARGETS + 1, UNIT_PRELU = MAX_TARGETS + 2;
const F24 = 1 << 24; /* floats hold every integer below this exactly */

const QUAD_VS = `#version 300 es
in vec2 aPos;
void main() { gl_Position = vec4(aPos, 0.0, 1.0); }
`;

/* Element i of a dense RGBA texture of width w. */
const DENSE_FETCH = `
float dense(highp sampler2D s, int w, int i) {
    int t = i >> 2;
    vec4 v = texelFetch(s, ivec2(t % w, t / w), 0);
    return v[i & 3];
}
`;

/* Repack: each texel of a packed block from the dense source.  uMap holds,
 * a channel each, the block-local position + 1 (row * uLocal + col) of
 * op(X)'s element there, 0 for padding. */
const REPACK_FS = `#version 300 es
precision highp float;
precision highp int;
uniform highp sampler2D uMap;
uniform highp sampler2D uSrc;
uniform int uW, uOff, uLocal, uTrans, uLd;
uniform ivec2 uOrg, uExt;
out vec4 o;
${DENSE_FETCH}
float pick(float id) {
    if (id < 0.5) return 0.0;
    int l = int(id) - 1;
    int r = uOrg.x + l / uLocal, c = uOrg.y + l % uLocal;
    if (r >= uExt.x || c >= uExt.y) return 0.0;
    return dense(uSrc, uW, uOff + (uTrans != 0 ? c * uLd + r : r * uLd + c));
}
void main() {
    vec4 id = texelFetch(uMap, ivec2(gl_FragCoord.xy), 0);
    o = vec4(pick(id.x), pick(id.y), pick(id.z), pick(id.w));
}
`;

/* The output draw: fragment (j, row) of C's R32F texture from the targets
 * of C block (uOrg), through the inverse map (x, y, target*4+channel, 1),
 * then the bias and the activation.  Batch of a fragment: uBatch0 + the
 * row over uM (batches folded into the rows), its row in the batch the
 * rest. */
function outputShader(targets, bias, act) {
    let pick = '';
    for (let t = 0; t < targets; t++)
        pick += `${t ? 'else ' : ''}if (t == ${t}) v = texelFetch(uT${t}, e.xy, 0);\n    `;
    const acts = {
        linear: '',
        relu: 'x = x < 0.0 ? 0.0 : x;',
        relu6: 'x = clamp(x, 0.0, 6.0);',
        elu: 'x = x >= 0.0 ? x : exp(x) - 1.0;',
        leakyrelu: 'x = x < 0.0 ? uLeaky * x : x;',
        prelu: 'float w = dense(uPrelu, uPreluW, bt * uPreluS.x + il * uPreluS.y + j * uPreluS.z); x = x < 0.0 ? w * x : x;',
        sigmoid: 'x = 1.0 / (1.0 + exp(-1.0 * x));',
    };
    return `#version 300 es
precision highp float;
precision highp int;
${Array.from({length: targets}, (_, t) => `uniform highp sampler2D uT${t};`).join('\n')}
uniform highp isampler2D uInv;
uniform highp sampler2D uBias, uPrelu;
uniform int uRow0, uM, uBatch0, uBiasW, uPreluW;
uniform ivec2 uOrg;
uniform ivec3 uBiasS, uPreluS;
uniform float uLeaky;
out vec4 o;
${DENSE_FETCH}
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int i = p.y - uRow0, j = p.x;
    int bt = uBatch0 + i / uM, il = i % uM;
    ivec4 e = texelFetch(uInv, ivec2(j - uOrg.y, i - uOrg.x), 0);
    int t = e.z >> 2, q = e.z & 3;
    vec4 v = vec4(0.0);
    ${pick}
    float x = v[q];
    ${bias ? 'x += dense(uBias, uBiasW, bt * uBiasS.x + il * uBiasS.y + j * uBiasS.z);' : ''}
    ${acts[act]}
    o = vec4(x, 0.0, 0.0, 0.0);
}
`;
}

/* A dense source: {texture, width, batch}, or (a and b) {load, keep,
 * batch}: load() gives {texture, width} when the runner must repack it
 * (not when keep's packing is kept); its batch. */
function needDense(name, x, batches) {
    if (x === null || typeof x !== 'object')
        throw glgemmError('invalid', `${name} must be {texture, width, batch} with a WebGLTexture (got ${x})`);
    if (x.keep !== undefined && (x.keep === null || (typeof x.keep !== 'object' && typeof x.keep !== 'function')))
        throw glgemmError('invalid', `${name}.keep must be an object (got ${x.keep})`);
    if (x.load !== undefined) {
        if (typeof x.load !== 'function') throw glgemmError('invalid', `${name}.load must be a function (got ${x.load})`);
    } else {
        if (typeof WebGLTexture === 'undefined' || !(x.texture instanceof WebGLTexture))
            throw glgemmError('invalid', `${name} must be {texture, width, batch} with a WebGLTexture (got ${x})`);
        needInt(`${name}.width`, x.width);
    }
    const b = x.batch ?? 1;
    if (batches !== undefined && b !== 1 && b !== batches)
        throw glgemmError('invalid', `${name}.batch must be 1 or batch (${batches}) (got ${b})`);
    return b;
}

/* The dense source of x: {texture, width} (x's own, or load()'s, checked). */
function denseSource(name, x) {
    if (x.load === undefined) return x;
    const d = x.load();
    if (d === null || typeof d !== 'object' || typeof WebGLTexture === 'undefined' || !(d.texture instanceof WebGLTexture))
        throw glgemmError('invalid', `${name}.load() must give {texture, width} with a WebGLTexture (got ${d})`);
    needInt(`${name}.load().width`, d.width);
    return d;
}

/* Broadcast strides (batch, row, column) of a bias or PReLU weights. */
function needStrides(name, s) {
    if (!Array.isArray(s) || s.length !== 3 || !s.every((x) => Number.isInteger(x) && x >= 0))
        throw glgemmError('invalid', `${name}.strides must be three integers >= 0 [batch, row, column] (got ${s})`);
}

/* Deletes one operand's packed textures and FBOs. */
function dropPacked(gl, e) {
    e.tex.forEach((t) => gl.deleteTexture(t));
    e.fbo.forEach((f) => gl.deleteFramebuffer(f));
}

Object.assign(Runner.prototype, {
    /* A program from two sources, cached by key; throws Fail. */
    smallProgram(key, fsrc) {
        const hit = this.programs.get(key);
        if (hit) return hit;
        const gl = this.gl;
        const started = this.compileLink(QUAD_VS, fsrc);
        if (!started) throw new Fail(gl.isContextLost() ? 'context_lost' : 'gl_error', 'cannot create shader objects');
        const {prog, vs, fs} = started;
        const ok = gl.getProgramParameter(prog, gl.LINK_STATUS);
        const log = ok ? '' : `${gl.getShaderInfoLog(fs) || ''} ${gl.getProgramInfoLog(prog) || ''}`.trim();
        gl.deleteShader(vs);
        gl.deleteShader(fs);
        if (!ok) {
            gl.deleteProgram(prog);
            if (gl.isContextLost()) throw new Fail('context_lost', 'the WebGL context was lost while compiling');
            throw new Fail('link_error', `${key}: ${log || 'failed (no log)'}`);
        }
        const p = {prog, loc: {}};
        gl.useProgram(prog);
        const n = gl.getProgramParameter(prog, gl.ACTIVE_UNIFORMS);
        for (let i = 0; i < n; i++) {
            const name = gl.getActiveUniform(prog, i).name;
            p.loc[name] = gl.getUniformLocation(prog, name);
        }
        this.programs.set(key, p);
        return p;
    },

    /* The index textures of a geometry (cached): A's and B's maps (block
     * (0, 0) of op(A) and op(B) packed with positions + 1) and C's inverse
     * map (mb x nb texels of RGBA32I: x, y, target*4+channel, 1). */
    indexMaps(s) {
        const {L, v, n, k} = s, m = s.M;
        const key = `IDX|${v.canonical}|${m}x${n}x${k}|${L.mb},${L.nb},${L.kb}|${L.a_w}x${L.a_h}|${L.b_w}x${L.b_h}|${L.tgt_w}x${L.tgt_h}`;
        const hit = this.maps.get(key);
        if (hit) return hit;
        const gl = this.gl;
        this.plainStore(); /* the uploads below */
        const mb = Math.min(L.mb, m), kb = Math.min(L.kb, k), nb = Math.min(L.nb, n);
        const {internal, fmt, type} = this.inputFormat(L.channels, 0);
        const e = {names: []};
        let src = 0, buf = 0, ptrs = 0;
        const bufs = [];
        try {
            /* The positions + 1 of a rows x cols corner (row stride ld,
             * position row*pitch + col + 1) packed by gen into a w x h
             * texture of the input's format. */
            const positions = (rows, cols, ld, pitch, pack, w, h) => {
                src = gen.alloc(4 * rows * ld);
                const f = gen.f32(src, rows * ld);
                for (let r = 0; r < rows; r++)
                    for (let c = 0; c < cols; c++) f[r * ld + c] = r * pitch + c + 1;
                buf = gen.alloc(4 * w * h * L.channels);
                pack(L, src, false, m, n, k, 0, 0, buf);
                const t = this.texture(w, h, internal, fmt, type, gen.f32(buf, w * h * L.channels));
                e.names.push(t);
                gen.free(src); gen.free(buf); src = buf = 0;
                return t;
            };
            e.a = positions(mb, kb, k, L.kb, gen.packA.bind(gen), L.a_w, L.a_h); /* A: lda = k */
            e.b = positions(kb, nb, n, L.nb, gen.packB.bind(gen), L.b_w, L.b_h); /* B: ldb = n */
            /* C: block (0, 0) as beta*C0 with beta 1 (ldc = L.nb), read back
             * into the inverse map */
            src = gen.alloc(4 * L.mb * L.nb);
            const f = gen.f32(src, L.mb * L.nb);
            for (let r = 0; r < mb; r++)
                for (let c = 0; c < nb; c++) f[r * L.nb + c] = r * L.nb + c + 1;
            const tf = L.tgt_w * L.tgt_h * 4;
            for (let t = 0; t < L.targets; t++) {
                const p = gen.alloc(4 * tf);
                bufs.push(p);
                gen.f32(p, tf).fill(0);
            }
            ptrs = gen.pointers(bufs);
            gen.packC0(L, src, L.nb, 1, m, n, k, 0, 0, 4, ptrs);
            const inv = new Int32Array(4 * L.mb * L.nb);
            for (let t = 0; t < L.targets; t++) {
                const tex = gen.f32(bufs[t], tf);
                for (let px = 0; px < L.tgt_w * L.tgt_h; px++)
                    for (let q = 0; q < 4; q++) {
                        const id = tex[px * 4 + q];
                        if (id > 0) {
                            const at = 4 * (id - 1);
                            inv[at] = px % L.tgt_w;
                            inv[at + 1] = Math.floor(px / L.tgt_w);
                            inv[at + 2] = t * 4 + q;
                            inv[at + 3] = 1;
                        }
                    }
            }
            e.inv = this.texture(L.nb, L.mb, gl.RGBA32I, gl.RGBA_INTEGER, gl.INT, inv);
            e.names.push(e.inv);
        } catch (x) {
            e.names.forEach((t) => gl.deleteTexture(t));
            throw x;
        } finally {
            gen.free(src);
            gen.free(buf);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
        this.maps.set(key, e);
        return e;
    },

    /* One operand's packed blocks (A: mblocks x kblocks of a_w x a_h, B:
     * kblocks x nblocks of b_w x b_h) and an FBO on each: {tex, fbo,
     * bytes}; throws Fail (nothing left behind) where the FBO is incomplete. */
    packedOperand(L, isA) {
        const gl = this.gl;
        const {internal, fmt, type} = this.inputFormat(L.channels, 0);
        const w = isA ? L.a_w : L.b_w, h = isA ? L.a_h : L.b_h;
        const count = isA ? L.mblocks * L.kblocks : L.kblocks * L.nblocks;
        const e = {tex: [], fbo: [], bytes: count * w * h * L.channels * 4};
        for (let i = 0; i < count; i++) {
            const t = this.texture(w, h, internal, fmt, type, null);
            const fb = gl.createFramebuffer();
            e.tex.push(t);
            e.fbo.push(fb);
            gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
            gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t, 0);
            gl.drawBuffers([gl.COLOR_ATTACHMENT0]);
            const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
            if (st !== gl.FRAMEBUFFER_COMPLETE) {
                dropPacked(gl, e);
                throw new Fail('fbo_incomplete', `packed input ${w}x${h} of ${L.channels} channels: status 0x${st.toString(16)}`);
            }
        }
        return e;
    },

    /* The packed A and B textures of a geometry (cached): the repack draws
     * fill them on each call, for operands that are not kept. */
    packedInputs(s) {
        const L = s.L;
        const key = `GPU|${L.a_w}x${L.a_h}|${L.b_w}x${L.b_h}|${L.channels}|${L.mblocks}x${L.kblocks}x${L.nblocks}`;
        let e = this.gpuInputs.get(key);
        if (!e) {
            const a = this.packedOperand(L, true);
            let b;
            try {
                b = this.packedOperand(L, false);
            } catch (x) {
                dropPacked(this.gl, a);
                throw x;
            }
            e = {a, b};
            this.gpuInputs.set(key, e);
        }
        return e;
    },

    /* Kept operands (option keep of a or b): packed once, reused while the
     * same object comes with the same geometry.  The runner holds them
     * until release(keep), or drops the least recently used past
     * keepBytes() (256 MiB unless setKeepBytes said otherwise). */
    keptOperand(s, isA, x, key) {
        const slot = `${isA ? 'A' : 'B'}|${key}`;
        const had = this.kept.get(x.keep);
        if (had) {
            this.kept.delete(x.keep); /* the most recent last */
            this.kept.set(x.keep, had);
            const sub = had.get(slot);
            if (sub) return {e: sub, fresh: false};
        }
        const e = this.packedOperand(s.L, isA);
        const subs = had ?? new Map();
        subs.set(slot, e);
        this.kept.set(x.keep, subs);
        let total = 0;
        for (const m of this.kept.values()) for (const v of m.values()) total += v.bytes;
        for (const [k, m] of this.kept) {
            if (total <= this.keepLimit || k === s.o.a.keep || k === s.o.b.keep) continue;
            for (const v of m.values()) total -= v.bytes;
            this.release(k);
        }
        return {e, fresh: true};
    },

    /* Forgets what keep kept (its textures deleted); true when it had any. */
    release(keep) {
        const m = this.kept.get(keep);
        if (!m) return false;
        for (const e of m.values()) dropPacked(this.gl, e);
        this.kept.delete(keep);
        return true;
    },

    /* The keep objects held, oldest use first, and their bytes. */
    keptInfo() {
        let bytes = 0;
        for (const m of this.kept.values()) for (const v of m.values()) bytes += v.bytes;
        return {keys: [...this.kept.keys()], bytes, limit: this.keepLimit};
    },

    /* The most bytes kept operands may hold (default 256 MiB). */
    setKeepBytes(n) {
        needInt('keepBytes', n);
        this.keepLimit = n;
    },

    /* C's R32F texture, w x h, and its FBO (one kept, remade for another size). */
    outputTarget(w, h) {
        const gl = this.gl;
        if (this.out && (this.out.w !== w || this.out.h !== h || !gl.isTexture(this.out.tex))) {
            gl.deleteTexture(this.out.tex);
            gl.deleteFramebuffer(this.out.fbo);
            this.out = null;
        }
        if (!this.out) {
            const tex = this.texture(w, h, gl.R32F, gl.RED, gl.FLOAT, null);
            const fbo = gl.createFramebuffer();
            gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
            gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
            gl.drawBuffers([gl.COLOR_ATTACHMENT0]);
            const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
            this.out = {w, h, tex, fbo};
            if (st !== gl.FRAMEBUFFER_COMPLETE) throw new Fail('fbo_incomplete', `C's R32F texture ${w}x${h}: status 0x${st.toString(16)}`);
        }
        return this.out;
    },

    /* Repack of one operand into its packed blocks: op(X) rows x cols
     * (A: M x k, B: k x n), blocks nr x nc of size br x bc; its source
     * holds the stored matrix (ld, trans) at element offset off. */
    repack(s, which, src, off) {
        const gl = this.gl, L = s.L, p = s.repackProg, loc = p.loc;
        const isA = which === 'a';
        const rows = isA ? s.M : s.k, cols = isA ? s.k : s.n;
        const br = isA ? L.mb : L.kb, bc = isA ? L.kb : L.nb;
        const nr = isA ? L.mblocks : L.kblocks, nc = isA ? L.kblocks : L.nblocks;
        const trans = isA ? s.transa : s.transb;
        const ld = isA ? (s.transa ? s.M : s.k) : (s.transb ? s.k : s.n);
        gl.useProgram(p.prog);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, isA ? s.maps.a : s.maps.b);
        gl.activeTexture(gl.TEXTURE1);
        gl.bindTexture(gl.TEXTURE_2D, src.texture);
        gl.uniform1i(loc.uMap, 0);
        gl.uniform1i(loc.uSrc, 1);
        gl.uniform1i(loc.uW, src.width);
        gl.uniform1i(loc.uOff, off);
        gl.uniform1i(loc.uLocal, bc);
        gl.uniform1i(loc.uTrans, trans ? 1 : 0);
        gl.uniform1i(loc.uLd, ld);
        gl.uniform2i(loc.uExt, rows, cols);
        gl.viewport(0, 0, isA ? L.a_w : L.b_w, isA ? L.a_h : L.b_h);
        for (let r = 0; r < nr; r++)
            for (let c = 0; c < nc; c++) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, (isA ? s.pa : s.pb).fbo[r * nc + c]);
                gl.uniform2i(loc.uOrg, r * br, c * bc);
                gl.drawArrays(gl.TRIANGLES, 0, 3);
            }
    },

    /* The output draws of one GEMM (batch index bt, or the folded batches
     * from 0): every C block's rectangle of C's texture. */
    output(s, bt) {
        const gl = this.gl, L = s.L, p = s.outProg, loc = p.loc;
        gl.useProgram(p.prog);
        gl.bindVertexArray(this.vao);
        /* passes() leaves units 2.. with the targets: the inverse map, the
         * bias and the weights bound again */
        const bind = (unit, tex) => { gl.activeTexture(gl.TEXTURE0 + unit); gl.bindTexture(gl.TEXTURE_2D, tex); };
        bind(UNIT_INV, s.maps.inv);
        if (s.o.bias) bind(UNIT_BIAS, s.o.bias.texture);
        if (s.o.activation === 'prelu') bind(UNIT_PRELU, s.o.preluWeights.texture);
        gl.bindFramebuffer(gl.FRAMEBUFFER, s.outTarget.fbo);
        gl.viewport(0, 0, s.outTarget.w, s.outTarget.h);
        const set = s.accum.resultSet(L.passes * L.kblocks);
        const row0 = bt * s.m;
        gl.uniform1i(loc.uRow0, row0);
        gl.uniform1i(loc.uM, s.m);
        gl.uniform1i(loc.uBatch0, s.folded ? 0 : bt);
        for (let c = 0; c < s.ncb; c++) {
            const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
            for (let t = 0; t < L.targets; t++) {
                gl.activeTexture(gl.TEXTURE0 + t);
                gl.bindTexture(gl.TEXTURE_2D, s.cb[c].tex[set][t]);
            }
            const i0 = bi * L.mb, j0 = bj * L.nb;
            gl.uniform2i(loc.uOrg, i0, j0);
            /* the block's rectangle as the viewport (gl_FragCoord stays) */
            gl.viewport(j0, row0 + i0, Math.min(L.nb, s.n - j0), Math.min(L.mb, s.M - i0));
            gl.drawArrays(gl.TRIANGLES, 0, 3);
        }
    },

    /* One GEMM (or a batch of them) on textures already on this context,
     * synchronously (it can serve a library's kernel, which must answer at
     * once): C = alpha op(A) op(B) (+ bias, then the activation) for each
     * of `batch` problems, into an R32F texture (width n, height batch*m,
     * one element a texel: C[b][i][j] at (j, b*m + i)) that the runner
     * owns and keeps until its next runOnTextures.  Options: variant, m,
     * n, k, batch (1), alpha (1), transa, transb, a and b ({texture, width,
     * batch}: the dense RGBA layout above, batch 1 or `batch` stored
     * matrices back to back, a batch of 1 serving every problem; or {load,
 * keep, batch}: load() gives {texture, width} when the runner repacks it,
 * and with keep (an object standing for data that does not change) an
 * operand of batch 1, or A folded, is packed once and reused, see
 * keptOperand), bias and
     * preluWeights ({texture, width, strides: [batch, row, column]}: the
     * element of C[b][i][j] at b*s0 + i*s1 + j*s2, dense), activation
     * (linear, relu, relu6, elu, leakyrelu, prelu, sigmoid), leakyreluAlpha,
     * maxTextureSize (split as if the limit were this; tests).  Returns
     * {status, detail, variant, passes, texture, width, height, ms} (ms:
     * issuing the draws, no wait); texture only when ok.  Variants with
     * store=f32, fetch=texture or texelfetch and 1, 2 or 4 channels a texel
     * (mc not 1x3 or 3x1) run here; others are 'unsupported'.  Throws only
     * for a bad argument.  GL state saved and restored as run()'s, but the GL
 * errors are checked once, after the draws (each getError waits for the
 * GPU process): an error pending before the call is taken for its own and
 * the call fails (gl_error), and errors of restoring are left. */
    runOnTextures(o = {}) {
        needOptions('runOnTextures', o, TEXTURE_OPTIONS);
        const out = {status: 'ok', detail: '', variant: null, passes: 0, texture: null, width: 0, height: 0, ms: 0};
        const {m, n, k} = o;
        needInt('m', m); needInt('n', n); needInt('k', k);
        const batch = o.batch ?? 1;
        needInt('batch', batch);
        const alpha = o.alpha ?? 1;
        needNumber('alpha', alpha);
        const transa = o.transa ?? false, transb = o.transb ?? false;
        needBool('transa', transa); needBool('transb', transb);
        const ba = needDense('a', o.a, batch), bb = needDense('b', o.b, batch);
        const act = o.activation ?? 'linear';
        if (!ACTIVATIONS.includes(act))
            throw glgemmError('invalid', `activation must be one of ${ACTIVATIONS.join(', ')} (got ${act})`);
        const leaky = o.leakyreluAlpha ?? 0.2;
        needNumber('leakyreluAlpha', leaky);
        if (o.bias !== undefined && o.bias !== null) { needDense('bias', o.bias); needStrides('bias', o.bias.strides); }
        if (act === 'prelu') { needDense('preluWeights', o.preluWeights); needStrides('preluWeights', o.preluWeights.strides); }
        if (o.maxTextureSize !== undefined) needInt('maxTextureSize', o.maxTextureSize);
        const t0 = performance.now();
        const gl = this.gl;
        if (gl.isContextLost()) return {...out, status: 'context_lost', detail: 'the WebGL context is lost'};
        const v = gen.parse(o.variant ?? DEFAULT_VARIANT);
        if (v.error) return {...out, status: 'invalid', detail: v.error};
        out.variant = v.canonical;
        const verdict = this.verdict(v);
        if (verdict.status !== 'ok') return {...out, ...verdict};
        if (v.info.store !== 0)
            return {...out, status: 'unsupported', detail: 'runOnTextures: store=f32 variants only (the repack draw writes floats)'};
        if (v.info.fetch === FETCH_UBO)
            return {...out, status: 'unsupported', detail: 'runOnTextures: fetch=ubo takes A from a uniform buffer, not a texture'};
        /* Batches folded into the rows: A not transposed, one B for all. */
        const folded = batch > 1 && ba === batch && bb === 1 && !transa;
        const M = folded ? batch * m : m;
        const maxTex = Math.min(this.lim.maxTextureSize, o.maxTextureSize ?? Infinity);
        if (n > this.lim.maxTextureSize || batch * m > this.lim.maxTextureSize)
            return {...out, status: 'unsupported', detail: `C's texture (${n} x ${batch * m}) passes the texture limit ${this.lim.maxTextureSize}`};
        const L = gen.split(v, M, n, k, maxTex);
        if (!L) return {...out, status: 'unsupported', detail: this.noSplit(M, n, k, maxTex)};
        /* what must be repacked is read first (a load() may draw with
         * the caller's own programs, so before any state of ours) */
        const keepKey = `${v.canonical}|${M}x${n}x${k}|${maxTex}|${+transa}${+transb}`;
        const keeps = (isA, x, bx) => x.keep !== undefined && (bx === 1 || (isA && folded));
        const kept = (isA, x, bx) => keeps(isA, x, bx) && !!this.kept.get(x.keep)?.get(`${isA ? 'A' : 'B'}|${keepKey}`);
        const srcA = kept(true, o.a, ba) ? null : denseSource('a', o.a);
        const srcB = kept(false, o.b, bb) ? null : denseSource('b', o.b);
        const saved = this.cur = this.save(true);
        const fresh = [];
        try {
            if (L.channels === 3)
                throw new Fail('unsupported', 'runOnTextures: 3 channels a texel (mc=1x3 or 3x1): RGB32F is not renderable');
            if (L.mb * L.kb >= F24 || L.kb * L.nb >= F24 || L.mb * L.nb >= F24)
                throw new Fail('unsupported', `runOnTextures: a block of ${L.mb}x${L.nb}x${L.kb} is past the index maps' 2^24 elements`);
            const s = {o, v, L, m, n, k, M, batch, folded, alpha, beta: 0, transa, transb,
                ubo: false, acc: v.info.acc, accum: ACCUM[v.info.acc], ncb: L.mblocks * L.nblocks,
                tiles: gen.tiles(v, L.tgt_w, L.tgt_h)};
            out.passes = L.passes * L.kblocks * (folded ? 1 : batch);
            this.defaults(L, false);
            for (let u = 0; u < SAVED_UNITS; u++) gl.bindSampler(u, null);
            this.build(s, {});
            s.maps = this.indexMaps(s);
            /* each operand's packed blocks: kept ones (repacked only when
             * new), else the geometry's shared ones (repacked each time) */
            const shared = () => (s.shared ??= this.packedInputs(s));
            const operand = (isA, x, bx) => {
                if (!keeps(isA, x, bx)) return {e: isA ? shared().a : shared().b, fresh: true};
                const r = this.keptOperand(s, isA, x, keepKey);
                if (r.fresh) fresh.push(x.keep);
                return r;
            };
            const pa = operand(true, o.a, ba), pb = operand(false, o.b, bb);
            s.pa = pa.e; s.pb = pb.e;
            s.atex = pa.e.tex; s.btex = pb.e.tex;
            this.makeTargets(s);
            s.repackProg = this.smallProgram('repack', REPACK_FS);
            const hasBias = !!o.bias;
            s.outProg = this.smallProgram(`out|${L.targets}|${+hasBias}|${act}`, outputShader(L.targets, hasBias, act));
            s.outTarget = this.outputTarget(n, batch * m);
            /* the output program's constant uniforms */
            const op = s.outProg, loc = op.loc;
            gl.useProgram(op.prog);
            for (let t = 0; t < L.targets; t++) gl.uniform1i(loc[`uT${t}`], t);
            gl.uniform1i(loc.uInv, UNIT_INV);
            if (hasBias) {
                gl.uniform1i(loc.uBias, UNIT_BIAS);
                gl.uniform1i(loc.uBiasW, o.bias.width);
                gl.uniform3i(loc.uBiasS, ...o.bias.strides);
            }
            if (act === 'prelu') {
                gl.uniform1i(loc.uPrelu, UNIT_PRELU);
                gl.uniform1i(loc.uPreluW, o.preluWeights.width);
                gl.uniform3i(loc.uPreluS, ...o.preluWeights.strides);
            }
            if (act === 'leakyrelu') gl.uniform1f(loc.uLeaky, leaky);
            gl.disable(gl.BLEND);
            const runs = folded ? 1 : batch;
            for (let bt = 0; bt < runs; bt++) {
                if (pa.fresh && (bt === 0 || ba > 1)) this.repack(s, 'a', srcA, ba > 1 ? bt * m * k : 0);
                if (pb.fresh && (bt === 0 || bb > 1)) this.repack(s, 'b', srcB, bb > 1 ? bt * k * n : 0);
                if (bt === 0 && !this.warmed.has(this.programKey(v, L))) {
                    /* the driver may finish building at the first draw */
                    this.firstUse(s);
                    this.warmed.add(this.programKey(v, L));
                }
                this.initSums(s);
                this.passes(s);
                this.output(s, bt);
            }
            this.stage(s, 'the draws');
            out.texture = s.outTarget.tex;
            out.width = n;
            out.height = batch * m;
        } catch (e) {
            /* a packing begun here may hold anything: not kept */
            fresh.forEach((x) => this.release(x));
            if (!(e instanceof Fail)) throw e;
            out.status = e.status;
            out.detail = e.detail;
            out.texture = null;
        } finally {
            gen.free(L.ptr);
            this.restore(saved, false);
            this.cur = null;
        }
        out.ms = performance.now() - t0;
        return out;
    },
});
