/* tests/web/tfjs-page.js: the page side of tests/web/tfjs.mjs (issue 39):
 * glgemm-tfjs.js against TensorFlow.js's own kernels on the same inputs.
 * window.tf is TensorFlow.js (tf.min.js); the module is /dist/glgemm-tfjs.js.
 * Each function answers plain data for the Node side to judge. */
const G = await import('/dist/glgemm-tfjs.js');
const tf = window.tf;
if (!(await tf.setBackend('webgl'))) throw new Error('TensorFlow.js: no webgl backend in this page');
await tf.ready();

/* A small deterministic generator (mulberry32), values in [-1, 1). */
function rng(seed) {
    let s = seed >>> 0;
    return () => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
    };
}
function rand(shape, seed) {
    const r = rng(seed), n = shape.reduce((a, b) => a * b, 1), x = new Float32Array(n);
    for (let i = 0; i < n; i++) x[i] = r();
    return tf.tensor(x, shape);
}

/* max |x - ref| over max |ref| (the scale of the output), and whether the
 * two are bit for bit equal. */
function compare(x, ref) {
    let d = 0, s = 0, same = x.length === ref.length;
    for (let i = 0; i < ref.length; i++) {
        d = Math.max(d, Math.abs(x[i] - ref[i]));
        s = Math.max(s, Math.abs(ref[i]));
        if (!Object.is(x[i], ref[i])) same = false;
    }
    if (x.length !== ref.length || x.some((v) => Number.isNaN(v))) return {rel: Infinity, same: false};
    return {rel: s > 0 ? d / s : d, same};
}

/* The kernel cases: name -> a function of no arguments giving a tensor. */
function kernelCases() {
    const c = {};
    const m = 37, k = 53, n = 71;
    const A = rand([m, k], 1), At = rand([k, m], 2), B = rand([k, n], 3), Bt = rand([n, k], 4);
    c['matMul 37x53x71'] = () => tf.matMul(A, B);
    c['transposeA'] = () => tf.matMul(At, B, true, false);
    c['transposeB'] = () => tf.matMul(A, Bt, false, true);
    c['transposeA transposeB'] = () => tf.matMul(At, Bt, true, true);
    const A3 = rand([3, m, k], 5), B3 = rand([3, k, n], 6), A3t = rand([3, k, m], 7), B1 = rand([1, k, n], 8);
    c['batch 3'] = () => tf.matMul(A3, B3);
    c['batch 3 x B 2-D (folded)'] = () => tf.matMul(A3, B);
    c['batch 3 x B batch 1'] = () => tf.matMul(A3, B1);
    c['A 2-D x batch 3'] = () => tf.matMul(A, B3);
    c['batch 3 transposeA x B 2-D'] = () => tf.matMul(A3t, B, true, false);
    c['batch 3 transposeB'] = () => tf.matMul(A3, rand([3, n, k], 9), false, true);
    c['4-D batch 2x3'] = () => tf.matMul(rand([2, 3, 17, 19], 10), rand([2, 3, 19, 13], 11));
    c['1x1x1'] = () => tf.matMul(rand([1, 1], 12), rand([1, 1], 13));
    c['vector 1x300x5'] = () => tf.matMul(rand([1, 300], 14), rand([300, 5], 15));
    const bias = rand([n], 20), biasMN = rand([m, n], 21), biasB = rand([3, 1, n], 22), prelu = rand([n], 23);
    for (const act of ['linear', 'relu', 'relu6', 'elu', 'leakyrelu', 'prelu', 'sigmoid'])
        for (const withBias of [false, true]) {
            const extra = {};
            if (act === 'prelu') extra.preluActivationWeights = prelu;
            if (act === 'leakyrelu') extra.leakyreluAlpha = 0.15;
            c[`fused ${act}${withBias ? ' bias' : ''}`] = () => tf.fused.matMul({a: A, b: B, bias: withBias ? bias : undefined,
                activation: act, ...extra});
        }
    c['fused bias [m, n] transposeB relu'] = () => tf.fused.matMul({a: A, b: Bt, transposeB: true, bias: biasMN, activation: 'relu'});
    c['fused batch 3 bias [3, 1, n] elu'] = () => tf.fused.matMul({a: A3, b: B3, bias: biasB, activation: 'elu'});
    c['fused batch 3 x B 2-D bias prelu [m, n]'] = () => tf.fused.matMul({a: A3, b: B, bias, activation: 'prelu',
        preluActivationWeights: biasMN});
    c['fused scalar bias sigmoid'] = () => tf.fused.matMul({a: A, b: B, bias: tf.scalar(0.25), activation: 'sigmoid'});
    return c;
}

/* A dense model (tf.layers) and its input. */
function denseModel(width, layers, inputs, seed = 100) {
    const model = tf.sequential();
    for (let i = 0; i < layers; i++) {
        const units = i === layers - 1 ? 10 : width;
        model.add(tf.layers.dense({units, inputShape: i === 0 ? [inputs] : undefined,
            activation: i === layers - 1 ? 'softmax' : i % 2 ? 'relu' : 'elu',
            kernelInitializer: tf.initializers.glorotUniform({seed: seed + i}),
            biasInitializer: tf.initializers.randomUniform({minval: -0.1, maxval: 0.1, seed: seed + 50 + i})}));
    }
    return model;
}

/* A small attention block from tf ops: x [batch, seq, width], heads. */
function attention(batch, seq, width, heads, seed = 200) {
    const dh = width / heads;
    const W = ['q', 'k', 'v', 'o'].map((_, i) => rand([width, width], seed + i).mul(1 / Math.sqrt(width)));
    const bo = rand([width], seed + 9);
    const W1 = rand([width, 2 * width], seed + 10).mul(1 / Math.sqrt(width)), b1 = rand([2 * width], seed + 11);
    const W2 = rand([2 * width, width], seed + 12).mul(1 / Math.sqrt(2 * width));
    const x = rand([batch, seq, width], seed + 20);
    const split = (t) => t.reshape([batch, seq, heads, dh]).transpose([0, 2, 1, 3]);
    const run = () => tf.tidy(() => {
        const q = split(tf.matMul(x, W[0])), kk = split(tf.matMul(x, W[1])), v = split(tf.matMul(x, W[2]));
        const p = tf.softmax(tf.matMul(q, kk, false, true).mul(1 / Math.sqrt(dh)));
        const ctx = tf.matMul(p, v).transpose([0, 2, 1, 3]).reshape([batch, seq, width]);
        const h = x.add(tf.fused.matMul({a: ctx.reshape([batch * seq, width]), b: W[3], bias: bo}).reshape([batch, seq, width]));
        const f = tf.fused.matMul({a: h.reshape([batch * seq, width]), b: W1, bias: b1, activation: 'relu'});
        return h.add(tf.matMul(f, W2).reshape([batch, seq, width]));
    });
    return run;
}

async function values(f) {
    const t = f();
    const v = await t.data();
    t.dispose();
    return v;
}

/* Every kernel case and the two models: tfjs's own results, glgemm's, and
 * tfjs's again after unregister. */
window.kernelTests = async (registerOptions) => {
    const cases = kernelCases();
    const model = denseModel(96, 4, 40);
    const mx = rand([33, 40], 300);
    const att = attention(2, 24, 32, 4);
    const all = {...cases, 'dense model predict': () => model.predict(mx), 'attention block': att};
    const ref = {};
    for (const [name, f] of Object.entries(all)) ref[name] = await values(f);
    const warnings = [];
    /* batchedMin 0: the small batches here run glgemm's batched path too */
    const reg = await G.register(tf, {batchedMin: 0, ...registerOptions, warn: (w) => warnings.push(w)});
    const got = {};
    for (const [name, f] of Object.entries(all)) got[name] = await values(f);
    const info = G.registered();
    G.unregister();
    const again = {};
    for (const [name, f] of Object.entries(all)) again[name] = await values(f);
    const out = [];
    for (const name of Object.keys(all))
        out.push({name, ...compare(got[name], ref[name]), restored: compare(again[name], ref[name]).same});
    return {reg, info, warnings, out, glError: tf.backend().gpgpu.gl.getError()};
};

/* tf.memory() over 100 predict calls. */
window.memoryTest = async () => {
    const model = denseModel(64, 3, 32, 400);
    const x = rand([16, 32], 401);
    const reg = await G.register(tf);
    const first = model.predict(x);
    await first.data();
    first.dispose();
    const before = tf.memory();
    for (let i = 0; i < 100; i++) {
        const y = model.predict(x);
        if (i % 25 === 24) await y.data();
        y.dispose();
    }
    const after = tf.memory();
    const info = G.registered();
    G.unregister();
    return {reg, info, before: {numTensors: before.numTensors, numBytes: before.numBytes, gpu: before.numBytesInGPU},
        after: {numTensors: after.numTensors, numBytes: after.numBytes, gpu: after.numBytesInGPU}};
};

/* Kept operands: a tensor met twice is packed once and reused; a
 * variable's assign (a new dataId) is not served stale; a disposed tensor's
 * packing is released at the next call; unregister releases the rest. */
window.keepTest = async () => {
    const x = rand([45, 70], 600), x2 = rand([45, 70], 601);
    const w = tf.variable(rand([70, 33], 602)), fresh = rand([70, 33], 603), other = rand([70, 33], 604);
    const ref1 = await values(() => tf.matMul(x, w));
    const ref2 = await values(() => tf.matMul(x2, fresh));
    const ref3 = await values(() => tf.matMul(x2, other));
    await G.register(tf);
    const got = [];
    for (let i = 0; i < 3; i++) got.push(compare(await values(() => tf.matMul(x, w)), ref1).rel);
    const held = G.registered();
    w.assign(fresh);
    const afterAssign = compare(await values(() => tf.matMul(x2, w)), ref2).rel;
    const afterAssign2 = compare(await values(() => tf.matMul(x2, w)), ref2).rel;
    const before = G.registered();
    x.dispose();
    const afterDispose = compare(await values(() => tf.matMul(x2, other)), ref3).rel;
    const swept = G.registered();
    G.unregister();
    const rt = await import('/dist/glgemm.js');
    const left = rt.createRunner(tf.backend().gpgpu.gl).keptInfo();
    [w, fresh, other, x2].forEach((t) => t.dispose());
    return {got, held, afterAssign, afterAssign2, before, afterDispose, swept, left: {n: left.keys.length, bytes: left.bytes}};
};

/* What falls back: int32, then a lost context; each said once. */
window.fallbackTests = async () => {
    const warnings = [];
    await G.register(tf, {warn: (w) => warnings.push(w)});
    const ai = tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'), bi = tf.tensor2d([5, 6, 7, 8], [2, 2], 'int32');
    const i1 = Array.from(await values(() => tf.matMul(ai, bi)));
    const i2 = Array.from(await values(() => tf.matMul(ai, bi)));
    const int32Warnings = warnings.slice();
    /* a batch of small separate products: tfjs's kernel (batchedMin), said once */
    const a3 = rand([3, 9, 11], 510), b3 = rand([3, 11, 7], 511);
    const batchedRef = await values(() => tf.mul(tf.matMul(a3, b3), 1));
    const batched = [];
    for (let i = 0; i < 2; i++) batched.push(Array.from(await values(() => tf.matMul(a3, b3))));
    const batchedSame = batched.every((x) => x.every((v, j) => Math.abs(v - batchedRef[j]) <= 1e-6 * Math.max(1, Math.abs(batchedRef[j]))));
    const batchedWarnings = warnings.filter((w) => /separate products/.test(w));
    const gl = tf.backend().gpgpu.gl;
    const a = rand([8, 8], 500), b = rand([8, 8], 501);
    gl.getExtension('WEBGL_lose_context').loseContext();
    const errors = [];
    for (let i = 0; i < 2; i++) {
        try { tf.matMul(a, b).dispose(); } catch (e) { errors.push(String(e.message || e)); }
    }
    const info = G.registered();
    G.unregister();
    return {i1, i2, int32Warnings, warnings, info, errors, batchedSame, batchedWarnings};
};

/* Speed: bench's model (web/worker/models.mjs: dense or encoder, full or
 * small sizes) with read-back, tfjs alone and with glgemm; median of reps. */
window.speed = async ({name, scale, reps = 3, variant}) => {
    const M = await import('/worker/models.mjs');
    const model = M.makeModel(tf, name, M.SIZES[name][scale]);
    const alone = await M.timeModel(model, reps);
    const reg = await G.register(tf, variant ? {variant} : {});
    const withG = await M.timeModel(model, reps);
    const info = G.registered();
    G.unregister();
    model.dispose();
    return {reg, info, what: model.what, tfjsMs: alone.ms, glgemmMs: withG.ms, speedup: alone.ms / withG.ms,
        rel: M.relDiff(withG.out, alone.out)};
};
window.pageReady = true;
