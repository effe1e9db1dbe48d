/* web/src/glstate.js: the GL state a page cares about (save, defaults, restore):
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
Object.assign(Runner.prototype, {
    /* The state to put back.  light (runOnTextures, which serves a library
     * call by call): only what WebGL answers without a round trip to the
     * GPU process, and the colour mask; the scissor box, the blend
     * function and equations and WebGL2's pixel-store integers (about 90
     * us a query on the H200 machine, 1.3 ms a full save) are read only
     * when the call is about to change them (touch()). */
    save(light = false) {
        const gl = this.gl, p = (x) => gl.getParameter(x);
        const st = {
            drawFb: p(gl.DRAW_FRAMEBUFFER_BINDING), readFb: p(gl.READ_FRAMEBUFFER_BINDING),
            viewport: p(gl.VIEWPORT), program: p(gl.CURRENT_PROGRAM), active: p(gl.ACTIVE_TEXTURE),
            vao: p(gl.VERTEX_ARRAY_BINDING), arrayBuf: p(gl.ARRAY_BUFFER_BINDING),
            uniformBuf: p(gl.UNIFORM_BUFFER_BINDING),
            ubo0: gl.getIndexedParameter(gl.UNIFORM_BUFFER_BINDING, 0),
            ubo0Start: gl.getIndexedParameter(gl.UNIFORM_BUFFER_START, 0),
            ubo0Size: gl.getIndexedParameter(gl.UNIFORM_BUFFER_SIZE, 0),
            packBuf: p(gl.PIXEL_PACK_BUFFER_BINDING), unpackBuf: p(gl.PIXEL_UNPACK_BUFFER_BINDING),
            colorMask: p(gl.COLOR_WRITEMASK),
            caps: {}, store: {}, units: [],
        };
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            st.caps[c] = gl.isEnabled(gl[c]);
        for (let u = 0; u < SAVED_UNITS; u++) {
            gl.activeTexture(gl.TEXTURE0 + u);
            st.units.push([p(gl.TEXTURE_BINDING_2D), p(gl.SAMPLER_BINDING)]);
        }
        if (!light) for (const what of ['scissor', 'blend', 'store']) this.touch(st, what);
        return st;
    },

    /* Reads into st (once) what a call is about to change: the scissor
     * box, the blend state, or the pixel-store settings. */
    touch(st, what) {
        const gl = this.gl, p = (x) => gl.getParameter(x);
        if (!st || st[what] !== undefined && what !== 'store' || what === 'store' && st.storeRead) return;
        if (what === 'scissor') st.scissor = p(gl.SCISSOR_BOX);
        else if (what === 'blend')
            st.blend = {srcRgb: p(gl.BLEND_SRC_RGB), dstRgb: p(gl.BLEND_DST_RGB), srcA: p(gl.BLEND_SRC_ALPHA),
                dstA: p(gl.BLEND_DST_ALPHA), eqRgb: p(gl.BLEND_EQUATION_RGB), eqA: p(gl.BLEND_EQUATION_ALPHA)};
        else if (what === 'store') {
            for (const x of ['UNPACK_ALIGNMENT', 'PACK_ALIGNMENT', 'UNPACK_FLIP_Y_WEBGL',
                'UNPACK_PREMULTIPLY_ALPHA_WEBGL', 'UNPACK_COLORSPACE_CONVERSION_WEBGL', 'UNPACK_ROW_LENGTH',
                'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_ROWS', 'UNPACK_SKIP_PIXELS', 'UNPACK_SKIP_IMAGES',
                'PACK_ROW_LENGTH', 'PACK_SKIP_ROWS', 'PACK_SKIP_PIXELS'])
                st.store[x] = p(gl[x]);
            st.storeRead = true;
        }
    },

    /* Our settings: no sampler objects on our units, nothing that would
     * change the fragments written; and (store: where we upload) plain
     * pixel store, its old values read into this.cur first. */
    defaults(L, store = true) {
        const gl = this.gl;
        for (let u = 0; u < 2 + L.targets; u++) gl.bindSampler(u, null);
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            gl.disable(gl[c]);
        gl.colorMask(true, true, true, true);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
        if (store) this.plainStore();
    },

    /* Plain pixel-store settings for an upload (the old ones read first). */
    plainStore() {
        const gl = this.gl;
        this.touch(this.cur, 'store');
        gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
        gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
        for (const x of ['UNPACK_ROW_LENGTH', 'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_ROWS',
            'UNPACK_SKIP_PIXELS', 'UNPACK_SKIP_IMAGES', 'PACK_ROW_LENGTH', 'PACK_SKIP_ROWS', 'PACK_SKIP_PIXELS'])
            gl.pixelStorei(gl[x], 0);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
        gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    },

    /* Back to st; drain: clear the GL errors left (runOnTextures checks
     * once after its draws and leaves the errors of restoring alone: each
     * getError waits for the GPU process). */
    restore(st, drain = true) {
        const gl = this.gl;
        if (gl.isContextLost()) return;
        st.units.forEach(([tex, sampler], u) => {
            gl.activeTexture(gl.TEXTURE0 + u);
            gl.bindTexture(gl.TEXTURE_2D, tex);
            gl.bindSampler(u, sampler);
        });
        gl.activeTexture(st.active);
        gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, st.drawFb);
        gl.bindFramebuffer(gl.READ_FRAMEBUFFER, st.readFb);
        gl.viewport(...st.viewport);
        gl.useProgram(st.program);
        gl.bindVertexArray(st.vao);
        gl.bindBuffer(gl.ARRAY_BUFFER, st.arrayBuf);
        if (st.ubo0 && st.ubo0Size > 0) gl.bindBufferRange(gl.UNIFORM_BUFFER, 0, st.ubo0, st.ubo0Start, st.ubo0Size);
        else gl.bindBufferBase(gl.UNIFORM_BUFFER, 0, st.ubo0);
        gl.bindBuffer(gl.UNIFORM_BUFFER, st.uniformBuf);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, st.packBuf);
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, st.unpackBuf);
        if (st.scissor) gl.scissor(...st.scissor);
        gl.colorMask(...st.colorMask);
        if (st.blend) {
            gl.blendFuncSeparate(st.blend.srcRgb, st.blend.dstRgb, st.blend.srcA, st.blend.dstA);
            gl.blendEquationSeparate(st.blend.eqRgb, st.blend.eqA);
        }
        for (const [c, on] of Object.entries(st.caps)) (on ? gl.enable : gl.disable).call(gl, gl[c]);
        for (const [x, val] of Object.entries(st.store)) gl.pixelStorei(gl[x], val);
        if (drain) while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
    },
});
