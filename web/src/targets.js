/* web/src/targets.js: the render targets and running sums:
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
Object.assign(Runner.prototype, {
    /* The targets' format: tch floats a texel, or (store=df, s.wide) tw
     * words in an unsigned integer texture. */
    targetFormat(tch, tw = 0) {
        const gl = this.gl;
        if (tw) return tw === 2 ? {internal: gl.RG32UI, fmt: gl.RG_INTEGER, type: gl.UNSIGNED_INT, name: 'RG32UI'}
            : {internal: gl.RGBA32UI, fmt: gl.RGBA_INTEGER, type: gl.UNSIGNED_INT, name: 'RGBA32UI'};
        return tch === 1 ? {internal: gl.R32F, fmt: gl.RED} : tch === 2 ? {internal: gl.RG32F, fmt: gl.RG}
            : {internal: gl.RGBA32F, fmt: gl.RGBA};
    },

    /* Every C block's targets: two sets (pingpong: the two sides; copy: the
     * drawn set 0 and the prev textures 1), one for blend, an FBO each;
     * kept by geometry and reused.  The running sums' first values (beta*C0
     * packed by gen) are made here, set by initSums. */
    makeTargets(s) {
        const gl = this.gl, {L} = s;
        const sets = s.accum.sets;
        const tw = s.wide ? s.tw : 0;
        const key = `${L.tgt_w}x${L.tgt_h}|${L.targets}|${L.tch}|${tw}|${sets}|${s.ncb}`;
        let e = this.targets.get(key);
        if (!e) {
            const {internal, fmt, type = gl.FLOAT, name} = this.targetFormat(L.tch, tw);
            const draw = [];
            for (let t = 0; t < L.targets; t++) draw.push(gl.COLOR_ATTACHMENT0 + t);
            e = {cb: []};
            for (let c = 0; c < s.ncb; c++) {
                const cb = {tex: [], fbo: []};
                for (let set = 0; set < sets; set++) {
                    const ts = [];
                    for (let t = 0; t < L.targets; t++) ts.push(this.texture(L.tgt_w, L.tgt_h, internal, fmt, type, null));
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
                        const fmtName = name || (L.tch === 1 ? 'R32F' : L.tch === 2 ? 'RG32F' : 'RGBA32F');
                        throw new Fail('fbo_incomplete', `framebuffer of ${L.targets} ${fmtName} target${L.targets > 1 ? 's' : ''} ${L.tgt_w}x${L.tgt_h}: status 0x${st.toString(16)}`);
                    }
                }
                e.cb.push(cb);
            }
            this.targets.set(key, e);
        }
        s.cb = e.cb;
        s.init = null;
        if (s.beta !== 0 && s.wide) {
            const c0 = needNumbers('c', s.o.c, s.m * s.n, `m x n (${s.m}x${s.n})`, 'Float64Array');
            s.init = this.packC0Wide(s, c0);
        } else if (s.beta !== 0) {
            const c0 = needMatrix('c', s.o.c, s.m * s.n, `m x n (${s.m}x${s.n})`);
            s.init = this.packC0(s, c0);
        }
        this.triangle();
    },

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
            ptrs = gen.pointers(bufs);
            const out = [];
            for (let c = 0; c < s.ncb; c++) {
                const bi = Math.floor(c / L.nblocks), bj = c % L.nblocks;
                gen.packC0(L, src, n, s.beta, m, n, k, bi, bj, L.tch, ptrs);
                out.push(bufs.map((p) => gen.f32(p, tf).slice()));
            }
            return out;
        } finally {
            gen.free(src);
            gen.free(ptrs);
            bufs.forEach((p) => gen.free(p));
        }
    },

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
    },

    /* The running sums back to their first value: cleared (beta 0: C0 not
     * read, as BLAS does) or beta*C0 uploaded. */
    initSums(s) {
        const gl = this.gl, {L} = s, set = s.accum.firstSet;
        const zero = s.wide ? new Uint32Array(4) : new Float32Array(4);
        const {fmt, type = gl.FLOAT} = this.targetFormat(L.tch, s.wide ? s.tw : 0);
        for (let c = 0; c < s.ncb; c++) {
            const cb = s.cb[c];
            if (!s.init) {
                gl.bindFramebuffer(gl.FRAMEBUFFER, cb.fbo[set]);
                for (let t = 0; t < L.targets; t++) {
                    if (s.wide) gl.clearBufferuiv(gl.COLOR, t, zero);
                    else gl.clearBufferfv(gl.COLOR, t, zero);
                }
            } else {
                for (let t = 0; t < L.targets; t++) {
                    gl.bindTexture(gl.TEXTURE_2D, cb.tex[set][t]);
                    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, L.tgt_w, L.tgt_h, fmt, type, s.init[c][t]);
                }
            }
        }
    },

    /* The framebuffer holding C block cb's sums after the last pass. */
    resultFbo(s, cb) { return cb.fbo[s.accum.resultSet(s.L.passes * s.L.kblocks)]; },

    /* Waits for the work sent so far: gl.finish() does not in WebGL, a
     * 1-pixel read does.  init: from the set the first pass reads. */
    sync(s, init) {
        const gl = this.gl, cb = s.cb[s.ncb - 1];
        gl.bindFramebuffer(gl.FRAMEBUFFER, init ? cb.fbo[s.accum.firstSet] : this.resultFbo(s, cb));
        this.readPixel(s);
    },

    /* One texel of the bound framebuffer's first target read (a wait):
     * floats, or words from store=df's integer targets. */
    readPixel(s) {
        const gl = this.gl;
        gl.readBuffer(gl.COLOR_ATTACHMENT0);
        if (s.wide) gl.readPixels(0, 0, 1, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, new Uint32Array(4));
        else gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, new Float32Array(4));
    },
});
