/* web/src/glstate.js: the GL state a page cares about (save, defaults, restore):
 * methods of the WebGL2 runtime's Runner (runner.js), added to its
 * prototype.  A part of glgemm.js: `make web` joins web/src/ into
 * web/dist/glgemm.js; not a module of its own. */
Object.assign(Runner.prototype, {
    save() {
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
            scissor: p(gl.SCISSOR_BOX), colorMask: p(gl.COLOR_WRITEMASK),
            blendSrcRgb: p(gl.BLEND_SRC_RGB), blendDstRgb: p(gl.BLEND_DST_RGB),
            blendSrcA: p(gl.BLEND_SRC_ALPHA), blendDstA: p(gl.BLEND_DST_ALPHA),
            blendEqRgb: p(gl.BLEND_EQUATION_RGB), blendEqA: p(gl.BLEND_EQUATION_ALPHA),
            caps: {}, store: {}, units: [],
        };
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            st.caps[c] = gl.isEnabled(gl[c]);
        for (const x of ['UNPACK_ALIGNMENT', 'PACK_ALIGNMENT', 'UNPACK_FLIP_Y_WEBGL',
            'UNPACK_PREMULTIPLY_ALPHA_WEBGL', 'UNPACK_COLORSPACE_CONVERSION_WEBGL', 'UNPACK_ROW_LENGTH',
            'UNPACK_IMAGE_HEIGHT', 'UNPACK_SKIP_ROWS', 'UNPACK_SKIP_PIXELS', 'UNPACK_SKIP_IMAGES',
            'PACK_ROW_LENGTH', 'PACK_SKIP_ROWS', 'PACK_SKIP_PIXELS'])
            st.store[x] = p(gl[x]);
        for (let u = 0; u < SAVED_UNITS; u++) {
            gl.activeTexture(gl.TEXTURE0 + u);
            st.units.push([p(gl.TEXTURE_BINDING_2D), p(gl.SAMPLER_BINDING)]);
        }
        return st;
    },

    /* Our settings: no sampler objects on our units, plain pixel store,
     * nothing that would change the fragments written. */
    defaults(L) {
        const gl = this.gl;
        for (let u = 0; u < 2 + L.targets; u++) gl.bindSampler(u, null);
        for (const c of ['SCISSOR_TEST', 'BLEND', 'DEPTH_TEST', 'STENCIL_TEST', 'CULL_FACE', 'DITHER',
            'RASTERIZER_DISCARD', 'POLYGON_OFFSET_FILL', 'SAMPLE_COVERAGE', 'SAMPLE_ALPHA_TO_COVERAGE'])
            gl.disable(gl[c]);
        gl.colorMask(true, true, true, true);
        gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
        gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
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
        gl.scissor(...st.scissor);
        gl.colorMask(...st.colorMask);
        gl.blendFuncSeparate(st.blendSrcRgb, st.blendDstRgb, st.blendSrcA, st.blendDstA);
        gl.blendEquationSeparate(st.blendEqRgb, st.blendEqA);
        for (const [c, on] of Object.entries(st.caps)) (on ? gl.enable : gl.disable).call(gl, gl[c]);
        for (const [x, val] of Object.entries(st.store)) gl.pixelStorei(gl[x], val);
        if (drain) while (gl.getError() !== gl.NO_ERROR && !gl.isContextLost());
    },
});
