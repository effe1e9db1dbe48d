/* glgemm-tfjs.js: TensorFlow.js's matrix kernels through glgemm, on
 * TensorFlow.js's own WebGL2 context (made by `make web` from
 * web/src/tfjs.js, written by `glgemm export --js DIR` beside glgemm.js).
 *
 *   import * as tf from '@tensorflow/tfjs';
 *   import {register, unregister} from './glgemm/glgemm-tfjs.js';
 *   await tf.setBackend('webgl');
 *   await register(tf);            // BatchMatMul and _FusedMatMul of 'webgl'
 *   model.predict(x);              // multiplies through glgemm
 *   unregister();                  // TensorFlow.js's own kernels again
 *
 * register(tf, {variant, wasm, warn}) replaces the webgl backend's
 * BatchMatMul and _FusedMatMul kernels (tf.matMul, tf.layers.dense,
 * tf.fused.matMul and the converter's MatMul ops reach them).  Each call
 * reads its inputs as dense RGBA textures (tensor.dataToGPU's layout,
 * through the backend's readToGPU), runs glgemm's variant on those
 * textures (runner.runOnTextures: a repack draw into glgemm's packing, the
 * passes, an output draw with the bias and the activation) and hands the
 * result to the backend as a texture (writeTexture, what
 * tf.tensor({texture, height, width, channels}) runs): no read-back, no
 * upload.  What it does not serve (a dtype other than float32, batch
 * dimensions that do not broadcast as 1 or equal, a shape past the texture
 * limit, a lost context, a variant the context cannot run there) runs
 * TensorFlow.js's own kernel, said once a reason on the console
 * (console.warn, or options.warn). */
import {init, createRunner, choice, DEFAULT_VARIANT, PORTFOLIO} from './glgemm.js';

const KERNELS = ['BatchMatMul', '_FusedMatMul'];
const BACKEND = 'webgl';
const REGISTER_OPTIONS = ['variant', 'wasm', 'warn', 'maxTextureSize', 'batchedMin'];
/* A batch of separate products (batch dimensions not folded into one
 * GEMM's rows) runs one product after another here, tfjs's kernel all in
 * one draw: below this many multiply-adds a product, tfjs's is faster (on
 * the H200 over Vulkan, 64 products of 256x256x64 took 129 ms here against
 * 2.6 ms in tfjs). */
const BATCHED_MIN = 1 << 24;
const ACTS = ['linear', 'relu', 'relu6', 'elu', 'leakyrelu', 'prelu', 'sigmoid'];

let state = null;

function fail(status, detail) {
    return Object.assign(new Error(`glgemm-tfjs: ${detail}`), {status, detail});
}

const prod = (xs) => xs.reduce((a, b) => a * b, 1);

/* Numpy's broadcast of two shapes, or null. */
function broadcast(a, b) {
    const n = Math.max(a.length, b.length), out = [];
    for (let i = 0; i < n; i++) {
        const x = a[a.length - n + i] ?? 1, y = b[b.length - n + i] ?? 1;
        if (x !== y && x !== 1 && y !== 1) return null;
        out.push(Math.max(x, y));
    }
    return out;
}

/* The [batch, row, column] strides of a tensor broadcast against the
 * output [batch, m, n] (tfjs broadcasts bias and PReLU weights so), or
 * null where its shape does not fit that. */
function strides3(shape, batch, m, n) {
    if (shape.length > 3) {
        if (!shape.slice(0, shape.length - 3).every((d) => d === 1)) return null;
        shape = shape.slice(shape.length - 3);
    }
    const s = [1, 1, 1, ...shape].slice(-3);
    const want = [batch, m, n];
    if (!s.every((d, i) => d === 1 || d === want[i])) return null;
    return [s[0] === 1 ? 0 : s[1] * s[2], s[1] === 1 ? 0 : s[2], s[2] === 1 ? 0 : 1];
}

/* A dense texture shape for size elements: [height, width]. */
function texShape(size, maxTex) {
    const texels = Math.max(1, Math.ceil(size / 4));
    const w = Math.min(maxTex, Math.ceil(Math.sqrt(texels)));
    const h = Math.ceil(texels / w);
    return h > maxTex ? null : [h, w];
}

/* Replaces the webgl backend's BatchMatMul and _FusedMatMul with glgemm's.
 * tf: the TensorFlow.js namespace (the page's own copy); its webgl backend
 * must be set up (await tf.setBackend('webgl') or tf.ready()).  Options:
 * variant (default: the portfolio's choice for this GPU at 1024^3 where
 * the module has a portfolio, else DEFAULT_VARIANT), wasm (as init()
 * takes), warn (the function that says what falls back; console.warn).
 * Resolves to {variant, renderer}; where the context cannot serve at all
 * (no EXT_color_buffer_float, a lost context), warns and resolves to
 * {variant: null, reason} with tfjs's kernels left in place.  Registering
 * again first unregisters. */
export async function register(tf, options = {}) {
    if (!tf || typeof tf.getKernel !== 'function' || typeof tf.registerKernel !== 'function')
        throw fail('invalid', 'register(tf): pass the TensorFlow.js namespace (import * as tf from "@tensorflow/tfjs")');
    if (options === null || typeof options !== 'object') throw fail('invalid', 'options must be an object');
    for (const key of Object.keys(options))
        if (!REGISTER_OPTIONS.includes(key))
            throw fail('invalid', `register takes no option '${key}' (it takes ${REGISTER_OPTIONS.join(', ')})`);
    if (state) unregister();
    const warn = options.warn ?? ((msg) => console.warn(msg));
    const backend = tf.findBackend(BACKEND);
    if (!backend || !backend.gpgpu || !backend.gpgpu.gl)
        throw fail('unsupported', `TensorFlow.js has no '${BACKEND}' backend set up (await tf.setBackend('webgl') first)`);
    const gl = backend.gpgpu.gl;
    await init(options.wasm ? {wasm: options.wasm} : {});
    let runner;
    try {
        runner = createRunner(gl);
    } catch (e) {
        const reason = e.detail || e.message;
        warn(`glgemm-tfjs: TensorFlow.js's own matrix kernels kept: ${reason}`);
        return {variant: null, reason};
    }
    let variant = options.variant;
    if (variant === undefined || variant === null)
        variant = PORTFOLIO.length ? (await choice(gl, 1024, 1024, 1024)).variant : DEFAULT_VARIANT;
    const c = runner.check(variant);
    if (c.status !== 'ok') throw fail(c.status, `variant ${variant}: ${c.detail}`);
    const originals = {};
    for (const name of KERNELS) {
        const k = tf.getKernel(name, BACKEND);
        if (!k) throw fail('unsupported', `TensorFlow.js has no ${name} kernel for '${BACKEND}'`);
        originals[name] = k;
    }
    const multiply = tf.getKernel('Multiply', BACKEND);
    if (!multiply) throw fail('unsupported', `TensorFlow.js has no Multiply kernel for '${BACKEND}'`);
    const batchedMin = options.batchedMin ?? BATCHED_MIN;
    if (!Number.isInteger(batchedMin) || batchedMin < 0)
        throw fail('invalid', `batchedMin must be an integer >= 0 (got ${options.batchedMin})`);
    state = {tf, gl, backend, runner, multiply, variant: c.variant, originals, warn, warned: new Set(),
        maxTextureSize: options.maxTextureSize, batchedMin, served: 0, fellBack: 0, seen: new WeakSet(),
        kept: new Set()};
    for (const name of KERNELS) {
        const orig = originals[name];
        tf.unregisterKernel(name, BACKEND);
        tf.registerKernel({...orig, kernelFunc: (args) => kernel(state, orig, args)});
    }
    const lim = runner.limits();
    return {variant: state.variant, renderer: lim.unmaskedRenderer || lim.renderer};
}

/* Puts TensorFlow.js's own kernels back (nothing when not registered). */
export function unregister() {
    if (!state) return;
    const {tf, originals, runner, kept} = state;
    for (const key of kept) runner.release(key);
    for (const name of KERNELS) {
        tf.unregisterKernel(name, BACKEND);
        tf.registerKernel(originals[name]);
    }
    state = null;
}

/* What register() set up: {variant, served, fellBack, kept, keptBytes}
 * (calls served by glgemm and passed to tfjs's kernel; operands held
 * packed), or null. */
export function registered() {
    if (!state) return null;
    const own = state.runner.keptInfo().keys.filter((k) => state.kept.has(k));
    return {variant: state.variant, served: state.served, fellBack: state.fellBack, kept: own.length,
        keptBytes: state.runner.keptInfo().bytes};
}

/* Operands kept packed whose tensors tfjs has disposed: released. */
function sweep(st) {
    for (const key of st.kept)
        if (st.backend.refCount(key) === 0) {
            st.runner.release(key);
            st.kept.delete(key);
        }
    /* the runner may have dropped some past its limit */
    const held = new Set(st.runner.keptInfo().keys);
    for (const key of st.kept) if (!held.has(key)) st.kept.delete(key);
}

function kernel(st, orig, args) {
    let why;
    try {
        const out = serve(st, args);
        if (typeof out !== 'string') {
            st.served++;
            return out;
        }
        why = out;
    } catch (e) {
        why = `glgemm failed: ${e.message}`;
    }
    st.fellBack++;
    if (!st.warned.has(why)) {
        st.warned.add(why);
        st.warn(`glgemm-tfjs: ${orig.kernelName} runs TensorFlow.js's own kernel: ${why}`);
    }
    return orig.kernelFunc(args);
}

/* A tensor's dense RGBA texture, [height, width] = shape (readToGPU, what
 * tensor.dataToGPU({customTexShape}) runs).  Data still on the CPU is
 * uploaded first.  A slice (model.predict's batches are slices of its
 * input) is copied first by tfjs's Multiply by 1: TensorFlow.js 4.22's
 * readToGPU of a slice hands itself a TensorInfo where a dataId belongs
 * and throws. */
function dense(st, backend, t, shape) {
    const td = backend.texData && typeof backend.texData.get === 'function' ? backend.texData.get(t.dataId) : null;
    if (td && td.slice != null) {
        const one = backend.makeTensorInfo([], 'float32', new Float32Array([1]));
        let copy = null;
        try {
            copy = st.multiply.kernelFunc({inputs: {a: t, b: one}, backend, attrs: {}});
            return backend.readToGPU(copy.dataId, {customTexShape: shape});
        } finally {
            backend.disposeIntermediateTensorInfo(one);
            if (copy) backend.disposeIntermediateTensorInfo(copy);
        }
    }
    try {
        return backend.readToGPU(t.dataId, {customTexShape: shape});
    } catch (e) {
        if (!/not on GPU/.test(e.message)) throw e;
        backend.uploadToGPU(t.dataId);
        return backend.readToGPU(t.dataId, {customTexShape: shape});
    }
}

/* The kernel on glgemm: the output TensorInfo, or why not (a string). */
function serve(st, {inputs, backend, attrs}) {
    const {a, b} = inputs;
    const bias = inputs.bias ?? null, prelu = inputs.preluActivationWeights ?? null;
    const transa = !!attrs.transposeA, transb = !!attrs.transposeB;
    const act = attrs.activation ?? 'linear';
    if (backend !== st.backend) return 'another webgl backend than the registered one';
    const gl = st.gl;
    if (gl.isContextLost()) return 'the WebGL context is lost';
    for (const [name, t] of [['a', a], ['b', b], ['bias', bias], ['preluActivationWeights', prelu]])
        if (t && t.dtype !== 'float32') return `${name} is ${t.dtype}, not float32`;
    if (!ACTS.includes(act)) return `activation '${act}'`;
    if (act === 'prelu' && !prelu) return 'prelu without weights';
    if (a.shape.length < 2 || b.shape.length < 2) return 'a rank below 2';
    const ar = a.shape.length, br = b.shape.length;
    const m = transa ? a.shape[ar - 1] : a.shape[ar - 2], k = transa ? a.shape[ar - 2] : a.shape[ar - 1];
    const kb = transb ? b.shape[br - 1] : b.shape[br - 2], n = transb ? b.shape[br - 2] : b.shape[br - 1];
    if (k !== kb) return `inner sizes ${k} and ${kb} differ`;
    if (m < 1 || n < 1 || k < 1) return 'an empty matrix';
    const outer = broadcast(a.shape.slice(0, -2), b.shape.slice(0, -2));
    if (!outer) return 'batch dimensions that do not broadcast';
    const batchA = prod(a.shape.slice(0, -2)), batchB = prod(b.shape.slice(0, -2));
    const batch = Math.max(batchA, batchB);
    if (!(batchA === batchB || batchA === 1 || batchB === 1)) return `batches of ${batchA} and ${batchB}`;
    const folded = batch > 1 && batchA === batch && batchB === 1 && !transa;
    if (batch > 1 && !folded && m * n * k < st.batchedMin)
        return `a batch of ${batch} separate products of ${m}x${n}x${k} (below batchedMin, ${st.batchedMin} ` +
            'multiply-adds a product: glgemm runs them one by one, tfjs in one draw)';
    const outShape = [...outer, m, n];
    let biasS = null, preluS = null;
    if (bias) {
        biasS = strides3(bias.shape, batch, m, n);
        if (!biasS) return `a bias of shape [${bias.shape}]`;
    }
    if (act === 'prelu') {
        preluS = strides3(prelu.shape, batch, m, n);
        if (!preluS) return `PReLU weights of shape [${prelu.shape}]`;
    }
    const maxTex = st.runner.limits().maxTextureSize;
    const shapes = [a, b, bias, act === 'prelu' ? prelu : null].map((t) => t && texShape(prod(t.shape), maxTex));
    if (shapes.some((s, i) => [a, b, bias, act === 'prelu' ? prelu : null][i] && !s)) return 'an input past the texture limit';
    const got = [];
    sweep(st);
    try {
        const src = (t, s) => {
            const g = dense(st, backend, t, s);
            got.push(g);
            return {texture: g.texture, width: s[1]};
        };
        /* A tensor met a second time (a layer's weights, an input of
         * several products) is kept packed by the runner, so its
         * repacking is done once; tfjs's data of a dataId never changes. */
        const operand = (t, s) => {
            const x = {load: () => src(t, s)};
            if (st.seen.has(t.dataId)) {
                x.keep = t.dataId;
                st.kept.add(t.dataId);
            } else st.seen.add(t.dataId);
            return x;
        };
        const A = operand(a, shapes[0]), B = operand(b, shapes[1]);
        const o = {variant: st.variant, m, n, k, batch, transa, transb,
            a: {...A, batch: batchA}, b: {...B, batch: batchB}, activation: act};
        if (bias) o.bias = {...src(bias, shapes[2]), strides: biasS};
        if (act === 'prelu') o.preluWeights = {...src(prelu, shapes[3]), strides: preluS};
        if (act === 'leakyrelu') o.leakyreluAlpha = attrs.leakyreluAlpha ?? 0.2;
        if (st.maxTextureSize) o.maxTextureSize = st.maxTextureSize;
        const r = st.runner.runOnTextures(o);
        if (r.status !== 'ok') return `${r.status}: ${r.detail}`;
        const dataId = backend.writeTexture(r.texture, outShape, 'float32', r.height, r.width, 'R');
        return {dataId, shape: outShape, dtype: 'float32'};
    } finally {
        for (const g of got) g.tensorRef.dispose();
    }
}
