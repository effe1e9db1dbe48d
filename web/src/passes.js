/* web/src/passes.js: the passes (as the native host draws them) and the read-back:
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
/* The three ways the running sums go from pass to pass, one object each
 * (s.accum, chosen by the variant's acc): the target sets they need, the
 * set the first pass reads, what each C block and each pass binds, what
 * follows a pass, and the set holding the result.
 *  - pingpong: two sets; a pass reads one as textures and draws the other.
 *  - copy: draws set 0, then copies each target into set 1, which the next
 *    pass reads (BrookGPU's way).
 *  - blend: one set; each pass is added into it by the blend unit. */
const ACCUM = {
    [ACC_PINGPONG]: {
        sets: 2, firstSet: 0, blend: false,
        firstDraw(r, cb) { r.bindPrev(cb.tex[0]); return cb.fbo[1]; },
        beginBlock() {},
        beforePass(r, cb, pass) {
            const src = pass % 2;
            r.bindPrev(cb.tex[src]);
            r.gl.bindFramebuffer(r.gl.FRAMEBUFFER, cb.fbo[1 - src]);
        },
        afterPass() {},
        resultSet(total) { return total % 2; },
    },
    [ACC_COPY]: {
        sets: 2, firstSet: 1, blend: false,
        firstDraw(r, cb) { r.bindPrev(cb.tex[1]); return cb.fbo[0]; },
        beginBlock(r, cb) {
            r.gl.bindFramebuffer(r.gl.FRAMEBUFFER, cb.fbo[0]);
            r.bindPrev(cb.tex[1]);
        },
        beforePass() {},
        /* The framebuffer into the textures the next pass reads (unit 2+t
         * holds tex[1][t]). */
        afterPass(r, L, pass, total) {
            if (pass + 1 >= total) return;
            const gl = r.gl;
            for (let t = 0; t < L.targets; t++) {
                gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
                gl.activeTexture(gl.TEXTURE2 + t);
                gl.copyTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 0, 0, L.tgt_w, L.tgt_h);
            }
        },
        resultSet() { return 0; },
    },
    [ACC_BLEND]: {
        sets: 1, firstSet: 0, blend: true,
        firstDraw(r, cb) { return cb.fbo[0]; },
        beginBlock(r, cb) { r.gl.bindFramebuffer(r.gl.FRAMEBUFFER, cb.fbo[0]); },
        beforePass() {},
        afterPass() {},
        resultSet() { return 0; },
    },
};

Object.assign(Runner.prototype, {
    /* The previous sums, target t on unit 2 + t. */
    bindPrev(tex) {
        const gl = this.gl;
        for (let t = 0; t < tex.length; t++) {
            gl.activeTexture(gl.TEXTURE2 + t);
            gl.bindTexture(gl.TEXTURE_2D, tex[t]);
        }
    },

    bindInputs(s, a, b) {
        const gl = this.gl;
        if (!s.ubo) {
            gl.activeTexture(gl.TEXTURE0);
            gl.bindTexture(gl.TEXTURE_2D, a);
        }
        gl.activeTexture(gl.TEXTURE1);
        gl.bindTexture(gl.TEXTURE_2D, b);
    },

    /* One pass's draw: the whole viewport, its tiles in the variant's order
     * (tile=WxH: one scissored draw each), or (fetch=ubo) one draw per
     * strip of UBO_STRIP rows with the strip's chunk of A bound. */
    drawPass(s, abuf, pass) {
        const gl = this.gl, L = s.L;
        if (!s.ubo && s.tiles) {
            /* each tile as the viewport (the shader reads gl_FragCoord,
             * which the viewport does not move): no scissor box to save */
            for (const [x, y, w, h] of s.tiles) {
                gl.viewport(x, y, w, h);
                gl.drawArrays(gl.TRIANGLES, 0, 3);
            }
            gl.viewport(0, 0, L.tgt_w, L.tgt_h);
            return;
        }
        if (!s.ubo) {
            gl.drawArrays(gl.TRIANGLES, 0, 3);
            return;
        }
        const strips = L.tgt_h / UBO_STRIP;
        this.touch(this.cur, 'scissor');
        gl.enable(gl.SCISSOR_TEST);
        for (let st = 0; st < strips; st++) {
            gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, abuf, (pass * strips + st) * s.uboStride, L.ubo_vec4s * 16);
            gl.scissor(0, st * UBO_STRIP, L.tgt_w, UBO_STRIP);
            gl.drawArrays(gl.TRIANGLES, 0, 3);
        }
        gl.disable(gl.SCISSOR_TEST);
    },

    /* Program state that holds for every pass. */
    setupDraw(s) {
        const gl = this.gl, L = s.L, p = s.prog;
        gl.useProgram(p.prog);
        if (s.wide) gl.uniform4uiv(p.alphaW, s.alphaW); /* alpha in the store's words */
        else gl.uniform1f(p.alpha, s.alpha);
        gl.viewport(0, 0, L.tgt_w, L.tgt_h);
        if (s.accum.blend) {
            this.touch(this.cur, 'blend');
            gl.enable(gl.BLEND);
            gl.blendEquation(gl.FUNC_ADD);
            gl.blendFunc(gl.ONE, gl.ONE);
        } else {
            gl.disable(gl.BLEND);
        }
    },

    /* The first pass of the first block on one fragment, waited for (the
     * running sums are set again after it). */
    firstUse(s) {
        const gl = this.gl, L = s.L, cb = s.cb[0];
        this.setupDraw(s);
        gl.uniform1i(s.prog.kbase, 0);
        this.bindInputs(s, s.atex[0], s.btex[0]);
        gl.bindFramebuffer(gl.FRAMEBUFFER, s.accum.firstDraw(this, cb));
        if (s.ubo) gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, s.atex[0], 0, L.ubo_vec4s * 16);
        gl.viewport(0, 0, 1, 1);
        gl.drawArrays(gl.TRIANGLES, 0, 3);
        gl.viewport(0, 0, L.tgt_w, L.tgt_h);
        gl.disable(gl.BLEND);
        this.readPixel(s);
    },

    passes(s) {
        const L = s.L, p = s.prog, acc = s.accum;
        const total = L.passes * L.kblocks;
        this.setupDraw(s);
        for (let c = 0; c < s.ncb; c++) {
            const cb = s.cb[c], bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
            let pass = 0;
            acc.beginBlock(this, cb);
            for (let bk = 0; bk < L.kblocks; bk++) {
                const abuf = s.atex[bi * L.kblocks + bk];
                this.bindInputs(s, abuf, s.btex[bk * L.nblocks + bj]);
                for (let q = 0; q < L.passes; q++, pass++) {
                    this.gl.uniform1i(p.kbase, q * L.np);
                    acc.beforePass(this, cb, pass);
                    this.drawPass(s, abuf, q);
                    acc.afterPass(this, L, pass, total);
                }
            }
        }
        this.gl.disable(this.gl.BLEND);
    },

    /* Every target of every C block read as RGBA floats into the wasm
     * heap, unpacked there by gen into C. */
    readBack(s) {
        const gl = this.gl, {L, m, n, k} = s;
        const tf = L.tgt_w * L.tgt_h * 4;
        const bufs = [];
        let cptr = 0, ptrs = 0;
        try {
            cptr = gen.alloc(4 * m * n);
            for (let t = 0; t < L.targets; t++) bufs.push(gen.alloc(4 * tf));
            ptrs = gen.pointers(bufs);
            for (let c = 0; c < s.ncb; c++) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, this.resultFbo(s, s.cb[c]));
                for (let t = 0; t < L.targets; t++) {
                    gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
                    gl.readPixels(0, 0, L.tgt_w, L.tgt_h, gl.RGBA, gl.FLOAT, gen.f32(bufs[t], tf));
                }
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.unpackC(L, ptrs, 4, m, n, k, bi, bj, cptr, n);
            }
            return gen.f32(cptr, m * n).slice();
        } finally {
            gen.free(cptr);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    },
});
