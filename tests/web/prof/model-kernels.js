/* Each matrix product of bench's two models (web/worker/models.mjs; small:
 * the tests' sizes) timed alone: a 1-pixel read of the canvas before and
 * after each BatchMatMul / _FusedMatMul call (so each time is the call and
 * its GPU work, plus one wait), with TensorFlow.js alone (tfjsKernels) and
 * with glgemm-tfjs.js registered with its default variant (glgemmKernels:
 * [kernel, shapes, ms]); then the whole runs (tfjs, glgemm: three each
 * after a warm-up, no waits added) and registered()'s counts. */
async (small) => {
    const tf = window.tf;
    await tf.setBackend('webgl'); await tf.ready();
    const G = await import('/dist/glgemm-tfjs.js');
    const M = await import('/worker/models.mjs');
    const gl = tf.backend().gpgpu.gl;
    const px = new Uint8Array(4);
    const sync = () => {
        const old = gl.getParameter(gl.FRAMEBUFFER_BINDING);
        gl.bindFramebuffer(gl.FRAMEBUFFER, null);
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
        gl.bindFramebuffer(gl.FRAMEBUFFER, old);
    };
    const wrap = (log) => ['_FusedMatMul', 'BatchMatMul'].map((name) => {
        const k = tf.getKernel(name, 'webgl'), f = k.kernelFunc;
        k.kernelFunc = (args) => {
            sync();
            const t0 = performance.now();
            const r = f(args);
            sync();
            log.push([name, `${args.inputs.a.shape.join('x')}@${args.inputs.b.shape.join('x')}`, +(performance.now() - t0).toFixed(2)]);
            return r;
        };
        return () => { k.kernelFunc = f; };
    });
    const out = {};
    for (const name of ['dense', 'encoder']) {
        const model = M.makeModel(tf, name, M.SIZES[name][small ? 'small' : 'full']);
        const o = {tfjs: (await M.timeModel(model, 3)).times.map((x) => +x.toFixed(1))};
        let log = [], undo = wrap(log);
        await M.timeModel(model, 0);
        undo.forEach((u) => u());
        o.tfjsKernels = log;
        await G.register(tf);
        o.glgemm = (await M.timeModel(model, 3)).times.map((x) => +x.toFixed(1));
        log = [];
        undo = wrap(log);
        await M.timeModel(model, 0);
        undo.forEach((u) => u());
        o.glgemmKernels = log;
        o.info = G.registered();
        G.unregister();
        model.dispose();
        out[name] = o;
    }
    return out;
}
