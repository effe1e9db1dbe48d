// The TensorFlow.js models of bench's model rows (issue 39) and of
// tests/web/tfjs.mjs: a dense model (tf.layers, model.predict) and a
// transformer encoder block (tf ops), each built from seeds, so that the
// same page gives the same weights and inputs to tfjs alone and to tfjs
// with glgemm-tfjs.js registered.  tf is the page's TensorFlow.js.
//
//   const m = makeModel(tf, 'dense', SIZES.dense.full);
//   const {ms, times, out} = await timeModel(m, 3);   // predict + read-back
//   m.dispose();

// full: the sizes issue 39's targets name; small: the tests' (seconds on
// SwiftShader).
export const SIZES = {
  dense: {
    full: { width: 2048, layers: 4, batch: 512 },
    small: { width: 128, layers: 4, batch: 64 },
  },
  encoder: {
    full: { batch: 8, seq: 256, width: 512, heads: 8, ff: 2048 },
    small: { batch: 2, seq: 32, width: 64, heads: 8, ff: 128 },
  },
};

const uniform = (tf, shape, scale, seed) => tf.randomUniform(shape, -scale, scale, 'float32', seed);

// layers dense layers of width units on width inputs (relu, the last
// linear), predict on a batch at once (batchSize: batch; predict's default
// of 32 would cut it into GEMMs of 32 rows).
function dense(tf, { width, layers, batch }, seed) {
  const model = tf.sequential();
  for (let i = 0; i < layers; i++)
    model.add(tf.layers.dense({
      units: width, inputShape: i === 0 ? [width] : undefined, activation: i < layers - 1 ? 'relu' : 'linear',
      kernelInitializer: tf.initializers.glorotUniform({ seed: seed + i }),
      biasInitializer: tf.initializers.randomUniform({ minval: -0.1, maxval: 0.1, seed: seed + 100 + i }),
    }));
  const x = uniform(tf, [batch, width], 1, seed + 200);
  return {
    flops: 2 * batch * width * width * layers,
    what: `dense model: ${layers} layers ${width} wide, batch ${batch}, predict and read-back`,
    run: () => model.predict(x, { batchSize: batch }),
    dispose: () => { model.dispose(); x.dispose(); },
  };
}

// A pre-norm transformer encoder block: layer norm, multi-head
// self-attention (q, k, v and output projections with biases), residual,
// layer norm, feed-forward (relu) and residual; x [batch, seq, width].
function encoder(tf, { batch, seq, width, heads, ff }, seed) {
  const dh = width / heads, T = batch * seq;
  const w = (r, c, s) => uniform(tf, [r, c], Math.sqrt(3 / r), s);
  const b = (n, s) => uniform(tf, [n], 0.1, s);
  const P = {
    wq: w(width, width, seed), wk: w(width, width, seed + 1), wv: w(width, width, seed + 2), wo: w(width, width, seed + 3),
    bq: b(width, seed + 4), bk: b(width, seed + 5), bv: b(width, seed + 6), bo: b(width, seed + 7),
    w1: w(width, ff, seed + 8), b1: b(ff, seed + 9), w2: w(ff, width, seed + 10), b2: b(width, seed + 11),
    g1: tf.ones([width]), h1: tf.zeros([width]), g2: tf.ones([width]), h2: tf.zeros([width]),
  };
  const x = uniform(tf, [T, width], 1, seed + 20);
  const norm = (t, g, h) => {
    const { mean, variance } = tf.moments(t, -1, true);
    return t.sub(mean).div(variance.add(1e-5).sqrt()).mul(g).add(h);
  };
  const heads4 = (t) => t.reshape([batch, seq, heads, dh]).transpose([0, 2, 1, 3]);
  const run = () => tf.tidy(() => {
    const n1 = norm(x, P.g1, P.h1);
    const q = heads4(tf.fused.matMul({ a: n1, b: P.wq, bias: P.bq }));
    const k = heads4(tf.fused.matMul({ a: n1, b: P.wk, bias: P.bk }));
    const v = heads4(tf.fused.matMul({ a: n1, b: P.wv, bias: P.bv }));
    const p = tf.softmax(tf.matMul(q, k, false, true).mul(1 / Math.sqrt(dh)));
    const ctx = tf.matMul(p, v).transpose([0, 2, 1, 3]).reshape([T, width]);
    const h = x.add(tf.fused.matMul({ a: ctx, b: P.wo, bias: P.bo }));
    const f = tf.fused.matMul({ a: norm(h, P.g2, P.h2), b: P.w1, bias: P.b1, activation: 'relu' });
    return h.add(tf.fused.matMul({ a: f, b: P.w2, bias: P.b2 })).reshape([batch, seq, width]);
  });
  return {
    flops: 2 * T * width * width * 4 + 4 * batch * seq * seq * width + 4 * T * width * ff,
    what: `transformer encoder block: sequence ${seq}, width ${width}, ${heads} heads, feed-forward ${ff}, batch ${batch}`,
    run,
    dispose: () => { Object.values(P).forEach((t) => t.dispose()); x.dispose(); },
  };
}

// name: dense or encoder; sizes: SIZES[name].full, .small or its own.
export function makeModel(tf, name, sizes, seed = 700) {
  if (name === 'dense') return dense(tf, sizes, seed);
  if (name === 'encoder') return encoder(tf, sizes, seed);
  throw new Error(`no model '${name}' (dense or encoder)`);
}

// One warm-up, then reps timed runs, each the model's run and its
// read-back: {ms (the median), times, out (the last output)}.
export async function timeModel(model, reps) {
  const times = [];
  let out = null;
  for (let i = 0; i <= reps; i++) {
    const t0 = performance.now();
    const y = model.run();
    out = await y.data();
    y.dispose();
    if (i) times.push(performance.now() - t0);
  }
  const s = [...times].sort((a, b) => a - b), h = s.length >> 1;
  return { ms: s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2, times, out };
}

// max |x - ref| over max |ref| (Infinity where the lengths differ or x has
// a NaN).
export function relDiff(x, ref) {
  if (x.length !== ref.length) return Infinity;
  let d = 0, s = 0;
  for (let i = 0; i < ref.length; i++) {
    if (Number.isNaN(x[i])) return Infinity;
    d = Math.max(d, Math.abs(x[i] - ref[i]));
    s = Math.max(s, Math.abs(ref[i]));
  }
  return s > 0 ? d / s : d;
}
