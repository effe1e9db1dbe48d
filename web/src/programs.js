/* web/src/programs.js: the programs (build, the prebuild of a race, their cache):
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
Object.assign(Runner.prototype, {
    /* The text depends on the problem only through the padded sizes (and
     * its header comment): made for those, one program serves every shape
     * that pads to them. */
    programKey(v, L) {
        return `${v.canonical}|${L.mpad}x${L.npad}x${L.kpad}`;
    },

    /* Compile and link requested, nothing asked back (a status query waits
     * for the driver): {prog, vs, fs}, or null where objects cannot be made. */
    startProgram(v, L) {
        return this.compileLink(gen.vertex(v), gen.fragment(v, L.mpad, L.npad, L.kpad));
    },

    /* Compile and link started (not waited for): {prog, vs, fs}, or null
     * when GL gives no shader objects (a lost context). */
    compileLink(vsrc, fsrc) {
        const gl = this.gl;
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
    },

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
    },

    /* Deletes the programs prebuild() started that no run() took. */
    dropStarted() {
        const gl = this.gl;
        for (const {prog, vs, fs} of this.started.values()) {
            gl.deleteShader(vs);
            gl.deleteShader(fs);
            gl.deleteProgram(prog);
        }
        this.started.clear();
    },

    build(s, out) {
        const gl = this.gl, {v, L} = s;
        const key = this.programKey(v, L);
        const hit = this.programs.get(key);
        if (hit) {
            gl.useProgram(hit.prog);
            s.prog = hit;
            out.programCached = true;
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
        const p = {prog, kbase: loc('uKBase'), alpha: loc('uAlpha'), alphaW: loc('uAlphaW')};
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
    },
});
