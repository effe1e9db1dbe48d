/* The dense model's 4 products of 512x2048x2048 (small: 64x128x128), taken
 * apart (issue 39): tfjs's read-back of one [512, 2048] output (readbackMs);
 * one product alone through the runner's bench, GEMMs batched (kernelMs,
 * kernelGflops); 4 runOnTextures calls on tfjs's context, one 1-pixel
 * read (chain4Ms); 4 chained tf.matMul with glgemm-tfjs.js registered and
 * without (tfjsGlgemm4Ms, tfjs4Ms), one element read back.  Medians. */
async (small) => {
    const tf = window.tf;
    await tf.setBackend('webgl'); await tf.ready();
    const G = await import('/dist/glgemm-tfjs.js');
    const R = await import('/dist/glgemm.js');
    const M = await import('/worker/models.mjs');
    const backend = tf.backend(), gl = backend.gpgpu.gl;
    await R.init();
    const run = R.createRunner(gl);
    const S = small ? {m: 64, k: 128} : {m: 512, k: 2048};
    const v = 'mrt=4x2,mc=2x2,np=all,unroll=0,profile=300es,ku=4';
    const med = (a) => { const s = a.slice().sort((x, y) => x - y); return +s[s.length >> 1].toFixed(2); };
    const out = {};
    // (1) tfjs read-back of a ready [m, k] tensor
    const y = tf.randomUniform([S.m, S.k]); backend.uploadToGPU(y.dataId); const y2 = y.add(0); await y2.data();
    const rb = []; for (let i = 0; i < 5; i++) { const z = y2.mul(1); await new Promise((r) => setTimeout(r, 0)); const t0 = performance.now(); await z.data(); rb.push(performance.now() - t0); z.dispose(); }
    out.readbackMs = med(rb);
    // (2) kernel only: bench at m x k x k (batched reps)
    const a = new Float32Array(S.m * S.k).map(() => Math.random() - 0.5), b = new Float32Array(S.k * S.k).map(() => Math.random() - 0.5);
    const c2 = document.createElement('canvas').getContext('webgl2');
    const r2 = R.createRunner(c2);
    const bb = await r2.bench({variant: v, m: S.m, n: S.k, k: S.k, a, b, reps: 5});
    out.kernelMs = +bb.medianMs.toFixed(2); out.kernelGflops = +bb.gflops.toFixed(0);
    // (3) 4 chained runOnTextures on tfjs's context (no tfjs glue), one 1-pixel sync at the end
    const A = tf.tensor2d(a, [S.m, S.k]), B = tf.tensor2d(b, [S.k, S.k]);
    const sh = (n) => { const t = Math.ceil(n / 4), w = Math.min(16384, Math.ceil(Math.sqrt(t))); return [Math.ceil(t / w), w]; };
    backend.uploadToGPU(A.dataId); backend.uploadToGPU(B.dataId);
    const ga = backend.readToGPU(A.dataId, {customTexShape: sh(S.m * S.k)}), gb = backend.readToGPU(B.dataId, {customTexShape: sh(S.k * S.k)});
    const keep = {};
    const o = {variant: v, m: S.m, n: S.k, k: S.k, a: {texture: ga.texture, width: sh(S.m * S.k)[1]}, b: {load: () => ({texture: gb.texture, width: sh(S.k * S.k)[1]}), keep}};
    const fb = gl.createFramebuffer(), px = new Float32Array(4);
    const chain = () => { let r; for (let i = 0; i < 4; i++) r = run.runOnTextures(o); gl.bindFramebuffer(gl.FRAMEBUFFER, fb); gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, r.texture, 0); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, px); gl.bindFramebuffer(gl.FRAMEBUFFER, null); };
    const ch = []; for (let i = 0; i < 5; i++) { const t0 = performance.now(); chain(); ch.push(performance.now() - t0); }
    out.chain4Ms = med(ch);
    run.release(keep);
    // (4) the same 4 GEMMs through tfjs with glgemm registered (matMul chain, no bias), read-back 1 element
    await G.register(tf, {variant: v});
    const W = [0, 1, 2, 3].map((i) => tf.randomUniform([S.k, S.k], -0.02, 0.02, 'float32', i));
    const X = tf.randomUniform([S.m, S.k], -1, 1, 'float32', 9);
    const t4 = async () => { const t0 = performance.now(); const z = tf.tidy(() => W.reduce((h, w) => tf.matMul(h, w), X)); await z.slice([0, 0], [1, 1]).data(); z.dispose(); return performance.now() - t0; };
    const g4 = []; for (let i = 0; i < 6; i++) g4.push(await t4());
    out.tfjsGlgemm4Ms = med(g4.slice(1));
    G.unregister();
    const f4 = []; for (let i = 0; i < 6; i++) f4.push(await t4());
    out.tfjs4Ms = med(f4.slice(1));
    return out;
}
