/* The example page: glgemm's exported module (./glgemm/glgemm.js, written by
 * `glgemm export`) against TensorFlow.js's tf.matMul (webgl backend), on two
 * random n x n matrices.  ?size=N picks n (default 1024).  With a portfolio
 * (export --portfolio) the first multiply races it on this GPU: the page
 * shows the GPU, the chosen variant and what the race cost.  When done,
 * window.exampleResult holds the rows, window.exampleChoice the choice, and
 * body[data-done] is set (the web test waits for it); a failure sets
 * body[data-error].  Its second part runs a small dense TensorFlow.js model
 * (?model=WIDTHxLAYERSxBATCH, default 256x3x128) with and without
 * glgemm-tfjs.js and shows both times and the largest difference
 * (window.exampleModel). */
import {init, matmul, createRunner, DEFAULT_VARIANT, PORTFOLIO, lastChoice, forgetChoices} from './glgemm/glgemm.js';
import {register, unregister, registered} from './glgemm/glgemm-tfjs.js';

const $ = (id) => document.getElementById(id);

function random(count) {
    const a = new Float32Array(count);
    for (let i = 0; i < count; i++) a[i] = Math.random() * 2 - 1;
    return a;
}

/* The largest rel. error (SPEC.md's denominator) on `samples` elements. */
function sampledError(a, b, c, n, samples = 32) {
    let worst = 0;
    for (let s = 0; s < samples; s++) {
        const i = Math.floor(Math.random() * n), j = Math.floor(Math.random() * n);
        let r = 0, d = 0;
        for (let q = 0; q < n; q++) {
            const x = a[i * n + q] * b[q * n + j];
            r += x;
            d += Math.abs(x);
        }
        const e = Math.abs(c[i * n + j] - r) / (d || 1);
        worst = Math.max(worst, Number.isFinite(e) ? e : Infinity);
    }
    return worst;
}

function row(tbody, what, ms, gflops, err, variant) {
    const tr = document.createElement('tr');
    for (const [text, cls] of [[what], [ms.toFixed(1)], [gflops.toFixed(2)], [err.toExponential(2)], [variant, 'variant']]) {
        const td = document.createElement('td');
        td.textContent = text;
        if (cls) td.className = cls;
        tr.appendChild(td);
    }
    tbody.appendChild(tr);
}

async function run(n) {
    $('state').textContent = `multiplying ${n}x${n} ...`;
    $('error').textContent = '';
    const tbody = $('out').querySelector('tbody');
    tbody.textContent = '';
    const a = random(n * n), b = random(n * n);
    const flops = 2 * n * n * n;
    const rows = [];

    const gl = $('gl').getContext('webgl2');
    await init();
    const info = createRunner(gl).limits();
    const gpu = info.unmaskedRenderer || info.renderer;
    $('gpu').textContent = gpu;
    /* warm-up: compiles the shader for this shape (and, with a portfolio,
     * races it the first time for this shape class on this GPU) */
    let t0 = performance.now();
    await matmul(gl, a, b, n, n, n);
    const first = performance.now() - t0;
    const ch = PORTFOLIO.length ? lastChoice() : null;
    const used = ch ? ch.variant : DEFAULT_VARIANT;
    window.exampleChoice = {renderer: gpu, variant: used, portfolio: PORTFOLIO.length,
        fromMemory: ch ? ch.fromMemory : null, raceMs: ch ? ch.raceMs : 0, raced: ch ? ch.raced : [],
        fallback: ch ? ch.fallback : null};
    $('chosen').textContent = used;
    $('race').textContent = !ch ? 'no portfolio in this module (its DEFAULT_VARIANT)'
        : ch.fromMemory ? `remembered for ${ch.shapeClass} on this GPU: no race now`
        : `raced ${ch.raced.filter((x) => x.status !== 'skipped').length} of ${PORTFOLIO.length} variants on a stand-in of class ${ch.shapeClass}: ${ch.raceMs.toFixed(0)} ms` +
          ` (first call ${first.toFixed(0)} ms in all)` +
          (ch.fallback ? '; none passed the check, DEFAULT_VARIANT used' : '') +
          ` [${ch.raced.map((x) => `${x.status}${x.gflops ? ' ' + x.gflops.toFixed(2) : ''}`).join(', ')}]`;
    t0 = performance.now();
    const c = await matmul(gl, a, b, n, n, n);
    let ms = performance.now() - t0;
    rows.push({what: 'glgemm matmul (upload + draw + read-back)', ms, gflops: flops / ms / 1e6,
        err: sampledError(a, b, c, n), variant: used});
    /* The runner's run(): one GEMM and where its time went (runMs: the
     * draws alone); the median of three. */
    const runs = [];
    for (let i = 0; i < 3; i++) {
        const r = await createRunner(gl).run({variant: used, m: n, n, k: n, a, b});
        if (r.status !== 'ok') throw new Error(`glgemm run: ${r.status}: ${r.detail}`);
        runs.push(r);
    }
    runs.sort((x, y) => x.runMs - y.runMs);
    const r = runs[1];
    rows.push({what: 'glgemm draws only (run()\'s runMs, median of 3)', ms: r.runMs, gflops: r.gflops,
        err: sampledError(a, b, r.c, n), variant: r.variant});

    if (typeof tf !== 'undefined') {
        await tf.setBackend('webgl');
        await tf.ready();
        const ta = tf.tensor2d(a, [n, n]), tb = tf.tensor2d(b, [n, n]);
        const w = tf.matMul(ta, tb);
        await w.data();
        w.dispose();
        t0 = performance.now();
        const tc = tf.matMul(ta, tb);
        const cd = await tc.data();
        ms = performance.now() - t0;
        rows.push({what: 'TensorFlow.js tf.matMul (webgl, with read-back)', ms, gflops: flops / ms / 1e6,
            err: sampledError(a, b, cd, n), variant: `tfjs ${tf.version.tfjs}`});
        tc.dispose();
        ta.dispose();
        tb.dispose();
    } else {
        $('error').textContent = 'TensorFlow.js did not load (/tfjs/tf.min.js): its row is missing.';
    }
    for (const x of rows) row(tbody, x.what, x.ms, x.gflops, x.err, x.variant);
    $('out').hidden = false;
    if (typeof tf !== 'undefined') window.exampleModel = await modelPart(used);
    $('state').textContent = `done: ${n}x${n}x${n} on ${gpu}`;
    return rows;
}

/* A dense model (layers of width units, relu, softmax at the end) on a
 * batch of random rows: predict and read back, median of three, TensorFlow.js
 * alone and with glgemm-tfjs.js registered (variant: the one above); the
 * largest |difference| over the largest |output|. */
async function modelPart(variant) {
    const [width, layers, batch] = (new URLSearchParams(location.search).get('model') || '256x3x128').split('x').map(Number);
    const model = tf.sequential();
    for (let i = 0; i < layers; i++)
        model.add(tf.layers.dense({units: i === layers - 1 ? 10 : width, inputShape: i ? undefined : [width],
            activation: i === layers - 1 ? 'softmax' : 'relu'}));
    const x = tf.randomUniform([batch, width], -1, 1);
    const time = async () => {
        const ts = [];
        let out;
        for (let i = 0; i < 4; i++) { /* the first compiles */
            const t0 = performance.now();
            const y = model.predict(x);
            out = await y.data();
            y.dispose();
            if (i) ts.push(performance.now() - t0);
        }
        ts.sort((p, q) => p - q);
        return {ms: ts[1], out};
    };
    const alone = await time();
    const reg = await register(tf, {variant});
    const withG = reg.variant ? await time() : null;
    const served = registered();
    unregister();
    let d = 0, s = 0;
    if (withG)
        for (let i = 0; i < alone.out.length; i++) {
            d = Math.max(d, Math.abs(withG.out[i] - alone.out[i]));
            s = Math.max(s, Math.abs(alone.out[i]));
        }
    const rel = s ? d / s : d;
    const tbody = $('model').querySelector('tbody');
    tbody.textContent = '';
    const rows = [[`TensorFlow.js alone: dense ${layers} x ${width}, batch ${batch}`, alone.ms.toFixed(1), '-'],
        withG ? ['with glgemm-tfjs.js', withG.ms.toFixed(1), rel.toExponential(2)]
            : [`glgemm-tfjs.js not registered: ${reg.reason}`, '-', '-']];
    for (const r of rows) {
        const tr = document.createElement('tr');
        for (const text of r) {
            const td = document.createElement('td');
            td.textContent = text;
            tr.appendChild(td);
        }
        tbody.appendChild(tr);
    }
    $('model').hidden = false;
    x.dispose();
    model.dispose();
    return {width, layers, batch, tfjsMs: alone.ms, glgemmMs: withG ? withG.ms : null, rel,
        served: served ? served.served : 0, variant: reg.variant};
}

async function go() {
    const n = Number($('size').value);
    document.body.removeAttribute('data-done');
    try {
        if (!Number.isInteger(n) || n < 1) throw new Error(`n must be an integer >= 1, got ${$('size').value}`);
        window.exampleResult = await run(n);
        document.body.dataset.done = '1';
    } catch (e) {
        $('state').textContent = 'failed';
        $('error').textContent = String(e && e.stack || e);
        document.body.dataset.error = String(e && e.message || e);
    }
}

const q = new URLSearchParams(location.search).get('size');
if (q) $('size').value = q;
$('go').addEventListener('click', go);
$('forget').addEventListener('click', () => {
    forgetChoices();
    $('race').textContent = 'forgotten: the next multiply races again';
});
go();
