/* web/src/inputs.js: the inputs (A and B packed and uploaded: textures, buffers, uniform blocks):
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
Object.assign(Runner.prototype, {
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
    },

    /* store=f16x8: eight halves a RGBA32UI texel, as gen's words (gen.h). */
    inputFormat(ch, store) {
        const gl = this.gl, half = store === STORE_F16;
        if (store === STORE_F16X8)
            return {internal: gl.RGBA32UI, fmt: gl.RGBA_INTEGER, type: gl.UNSIGNED_INT};
        const fmt = [0, gl.RED, gl.RG, gl.RGB, gl.RGBA][ch];
        const internal = half ? [0, gl.R16F, gl.RG16F, gl.RGB16F, gl.RGBA16F][ch]
            : [0, gl.R32F, gl.RG32F, gl.RGB32F, gl.RGBA32F][ch];
        return {internal, fmt, type: half ? gl.HALF_FLOAT : gl.FLOAT};
    },

    /* fetch=ubo: A's packed texels (a_w x a_h, ch floats each) as uniform
     * block chunks, one per pass and strip (as the native host makes them). */
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
    },

    /* A's and B's textures (A's uniform buffers for fetch=ubo): the cached
     * ones for bench's sameInputs, else packed by gen and uploaded (into the
     * textures of the same geometry where there are some). */
    upload(s) {
        if (s.wide) return this.uploadWide(s);
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
        const needA = !(s.sameInputs && ae), needB = !(s.sameInputs && be);
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
                    gen.packWords(L, b, buf, hbuf);
                    return gen.u32(hbuf, b ? wb : wa);
                }
                if (!half) return gen.f32(buf, count);
                gen.toHalves(hbuf, buf, count);
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
                        gen.packA(L, src, s.transa, m, n, k, bi, bk, buf);
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
                        gen.packB(L, src, s.transb, m, n, k, bk, bj, buf);
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
    },
});
