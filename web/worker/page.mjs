// The worker's page (web/worker/worker.mjs serves it): holds the WebGL2
// context and the runtime's runner, fetches the inputs as binary once per
// problem, runs what the worker asks and POSTs C back as raw float32 bytes.
// Every result is judged by the host (eval/browser.c), never here.
let rt = null, gl = null, runner = null, canvas = null, lost = false;
let inp = null; // {m, n, k, transa, transb, a, b, c0, gen}
let lastGen = -1; // the inputs the runner saw last (sameInputs)
let tf = null;

async function fetchF32(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Float32Array(await r.arrayBuffer());
}

async function postC(token, c) {
  const r = await fetch(`/c/${token}`, { method: 'POST', body: c, headers: { 'content-type': 'application/octet-stream' } });
  if (!r.ok) throw new Error(`posting C: HTTP ${r.status}`);
}

const errText = (e) => String((e && e.message) || e).split('\n')[0];

window.gg = {
  ready: true,

  async hello(runtimeUrl, wasmUrl) {
    canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    canvas.addEventListener('webglcontextlost', (ev) => { lost = true; ev.preventDefault(); });
    gl = canvas.getContext('webgl2', { antialias: false, depth: false, stencil: false, alpha: true,
                                        premultipliedAlpha: false, preserveDrawingBuffer: false,
                                        powerPreference: 'high-performance' });
    if (!gl)
      return { ok: false, why: 'no_webgl2', error: 'the page has no WebGL2 context (WebGL2 disabled or unavailable in this browser)' };
    try {
      rt = await import(runtimeUrl);
      await rt.init(wasmUrl ? { wasm: wasmUrl } : {});
      runner = rt.createRunner(gl);
    } catch (e) {
      return { ok: false, why: 'no_runtime', error: `the WebGL2 runtime ${runtimeUrl} did not start: ${errText(e)}` };
    }
    const info = runner.limits();
    info.extensions = gl.getSupportedExtensions() || [];
    info.runtime = runtimeUrl;
    return { ok: true, info };
  },

  async inputs(meta) {
    const base = `/inputs/${meta.gen}/`;
    const a = await fetchF32(base + 'a');
    const b = await fetchF32(base + 'b');
    const c0 = meta.hasC0 ? await fetchF32(base + 'c0') : null;
    inp = { ...meta, a, b, c0 };
  },

  async run(q) {
    if (q.loseContext) {
      const ext = gl.getExtension('WEBGL_lose_context');
      if (ext) ext.loseContext();
      await new Promise((r) => setTimeout(r, 0));
    }
    if (lost || gl.isContextLost())
      return { status: 'context_lost', detail: 'the WebGL context was lost (webglcontextlost)', posted: false };
    let r;
    try {
      r = await runner.run({ variant: q.variant, m: inp.m, n: inp.n, k: inp.k, alpha: q.alpha, beta: q.beta,
                             transa: inp.transa, transb: inp.transb, a: inp.a, b: inp.b, c0: inp.c0,
                             reps: q.reps, sameInputs: lastGen === inp.gen });
    } catch (e) {
      if (lost || gl.isContextLost())
        return { status: 'context_lost', detail: `the WebGL context was lost: ${errText(e)}`, posted: false };
      return { status: 'gl_error', detail: `the runtime threw: ${errText(e)}`, posted: false };
    }
    lastGen = inp.gen;
    if (lost || gl.isContextLost())
      return { status: 'context_lost', detail: 'the WebGL context was lost during the run', posted: false };
    const out = { status: r.status, detail: r.detail || '', passes: r.passes | 0, compile_s: +r.compile_s || 0,
                  upload_s: +r.upload_s || 0, seconds: r.seconds || [], median_s: +r.median_s || 0,
                  readback_s: +r.readback_s || 0, posted: false };
    if (r.c && r.c.length === inp.m * inp.n) {
      await postC(q.token, r.c);
      out.posted = true;
    }
    return out;
  },

  async tfjs(q) {
    try {
      if (!tf) {
        await new Promise((resolve, reject) => {
          const s = document.createElement('script');
          s.src = '/tfjs/tf.min.js';
          s.onload = resolve;
          s.onerror = () => reject(new Error('cannot load /tfjs/tf.min.js (web/node_modules: npm ci in web/)'));
          document.head.appendChild(s);
        });
        tf = window.tf;
        if (!(await tf.setBackend('webgl'))) throw new Error('TensorFlow.js has no webgl backend here');
        await tf.ready();
      }
    } catch (e) {
      return { status: 'unsupported', detail: `TensorFlow.js: ${errText(e)}`, posted: false };
    }
    const { m, n, k, transa, transb } = inp;
    const A = tf.tensor2d(inp.a, transa ? [k, m] : [m, k]);
    const B = tf.tensor2d(inp.b, transb ? [n, k] : [k, n]);
    const C0 = q.beta !== 0 && inp.c0 ? tf.tensor2d(inp.c0, [m, n]) : null;
    const once = async () => {
      const t0 = performance.now();
      const t = tf.tidy(() => {
        let p = tf.matMul(A, B, transa, transb);
        if (q.alpha !== 1) p = p.mul(tf.scalar(q.alpha));
        if (C0) p = p.add(C0.mul(tf.scalar(q.beta)));
        return p;
      });
      const d = await t.data();
      const s = (performance.now() - t0) / 1000;
      t.dispose();
      return { s, d };
    };
    let c = null;
    const seconds = [];
    try {
      c = (await once()).d; // warm-up: programs built, textures made
      for (let i = 0; i < Math.max(1, q.reps | 0); i++) {
        const r = await once();
        seconds.push(r.s);
        c = r.d;
      }
    } catch (e) {
      return { status: 'gl_error', detail: `tf.matMul: ${errText(e)}`, posted: false };
    } finally {
      A.dispose(); B.dispose(); if (C0) C0.dispose();
    }
    const sorted = [...seconds].sort((x, y) => x - y);
    const h = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
    const f32 = c instanceof Float32Array ? c : new Float32Array(c);
    await postC(q.token, f32);
    return { status: 'ok', detail: `tfjs ${tf.version_core} ${tf.getBackend()}, float32 render ${tf.env().getBool('WEBGL_RENDER_FLOAT32_ENABLED')}`,
             passes: 1, seconds, median_s: median, posted: true };
  },

  async probe(q) {
    if (!runner || typeof runner.probe !== 'function')
      return { status: 'unsupported', detail: 'the runtime has no probe' };
    try {
      return { status: 'ok', results: await runner.probe(q) };
    } catch (e) {
      return { status: 'gl_error', detail: errText(e) };
    }
  },
};
