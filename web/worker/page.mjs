// The worker's page (web/worker/worker.mjs serves it): holds the WebGL2
// context and the runtime's runner, fetches the inputs as binary once per
// problem, runs what the worker asks and POSTs C back as raw float32 bytes.
// Every result is judged by the host (eval/browser.c), never here.
let rt = null, gl = null, runner = null, canvas = null, lost = false;
let inp = null; // {m, n, k, transa, transb, a, b, c0, gen}
let lastGen = -1; // the inputs the runner saw last (bench's sameInputs)
let tf = null;
let M = null; // web/worker/models.mjs, loaded by the first model op
const models = new Map(); // name|scale -> {model, ref}
let runtimeAt = '/dist/glgemm.js'; // hello's runtime URL
let gpuName = ''; // the WebGPU adapter tfjs-webgpu ran on (its detail)
// A timed rep lasts at least this long (the runtime batches GEMMs shorter
// than it): on a GPU one 1024^3 GEMM is a few milliseconds, near the
// page's own wait for the GPU process.
const MIN_REP_S = 0.025;

async function fetchF32(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Float32Array(await r.arrayBuffer());
}

// C goes as a Blob: Chromium 156 took 10.4 s to post a 64 MB Float32Array
// as the body (4.4 s in fetch, then 5.9 s before page.evaluate returned),
// and 0.65 s for the same bytes in a Blob, on SwiftShader (2 cores); at
// 4096^3 on an H200 this was most of each evaluation's 12 s.
async function postC(token, c) {
  const body = new Blob([c], { type: 'application/octet-stream' });
  const r = await fetch(`/c/${token}`, { method: 'POST', body });
  if (!r.ok) throw new Error(`posting C: HTTP ${r.status}`);
}

// TensorFlow.js loaded and on backend (webgl or webgpu); throws why not.
async function tfOn(backend) {
  if (!tf) {
    await loadScript('/tfjs/tf.min.js');
    tf = window.tf;
  }
  if (backend === 'webgpu') {
    if (!navigator.gpu) throw new Error('this page offers no WebGPU (navigator.gpu is undefined; Chromium needs a GPU and, on Linux, --enable-unsafe-webgpu: GLGEMM_BROWSER_WEBGPU=1)');
    const adapter = await withTimeout(navigator.gpu.requestAdapter(), WEBGPU_WAIT_MS, 'requestAdapter');
    if (!adapter) throw new Error('WebGPU gave no adapter (navigator.gpu.requestAdapter() returned null)');
    const ai = adapter.info || {};
    gpuName = [ai.vendor, ai.architecture, ai.device, ai.description].filter(Boolean).join(' ') || 'an adapter that names nothing';
    /* A fallback adapter (SwiftShader on the CPU) is not the anchor the
     * row stands for, WebGPU on this GPU: on the H200, Chromium 156
     * offered only SwiftShader's, at 2.3 GFLOP/s. */
    if (adapter.isFallbackAdapter || ai.isFallbackAdapter)
      throw new Error(`WebGPU's only adapter is a fallback (${gpuName}), not this GPU`);
    if (!tf.findBackend('webgpu')) await loadScript('/tfjs-webgpu/tf-backend-webgpu.min.js');
  }
  if (tf.getBackend() !== backend) {
    const ok = await withTimeout(tf.setBackend(backend), WEBGPU_WAIT_MS, `tf.setBackend('${backend}')`);
    if (!ok) throw new Error(`TensorFlow.js has no ${backend} backend here`);
  }
  await tf.ready();
}

const errText = (e) => String((e && e.message) || e).split('\n')[0];

// The answer of run and tfjs, one shape for both: the runtime's camelCase
// milliseconds (bench()'s result) as the worker protocol's seconds, the
// names eval/browser.c reads.  posted: C went to /c/<token>.
function answer(status, detail, r = {}) {
  const s = (ms) => (+ms || 0) / 1e3;
  return { status, detail: detail || '', passes: r.passes | 0, compile_s: s(r.compileMs), upload_s: s(r.uploadMs),
           seconds: (r.timesMs || []).map(s), median_s: s(r.medianMs), readback_s: s(r.readbackMs), posted: false };
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`cannot load ${src} (web/node_modules: run make web)`));
    document.head.appendChild(s);
  });
}

// How long WebGPU may take to answer before the tfjs-webgpu row gives up:
// tfjs's WebGPU backend once waited 300 s with no answer in headless
// Chromium over Vulkan on an H200.
const WEBGPU_WAIT_MS = 30000;
function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`${what} gave no answer within ${ms / 1000} s`)), ms); })])
    .finally(() => clearTimeout(t));
}

// ---- the probe's kernels (window.gg.probe) ----
let pk = null; // {prog, vao, vbo, fbo, targets[], src, w, h, n, uIters, readBuf}

function pkFree() {
  if (!pk) return;
  gl.deleteProgram(pk.prog);
  gl.deleteVertexArray(pk.vao);
  gl.deleteBuffer(pk.vbo);
  gl.deleteFramebuffer(pk.fbo);
  for (const t of pk.targets) gl.deleteTexture(t);
  if (pk.src) gl.deleteTexture(pk.src);
  pk = null;
}

function pkShader(type, src) {
  const sh = gl.createShader(type);
  gl.shaderSource(sh, src);
  gl.compileShader(sh);
  if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS)) {
    const line = (gl.getShaderInfoLog(sh) || '').split('\n')[0].trim();
    gl.deleteShader(sh);
    throw Object.assign(new Error(`probe ${type === gl.VERTEX_SHADER ? 'vertex' : 'fragment'} shader does not compile: ${line}`), { status: 'compile_error' });
  }
  return sh;
}

// The source texture as glhost/probe_native's: texel i channel c holds
// host_probe_texel_value(i, c) (probe_src.c; the host checks the sums).
function pkSource(t) {
  const ch = t.fmt === 'r32f' ? 1 : 4, n = t.w * t.h;
  const data = new Float32Array(n * ch);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < ch; c++)
      data[i * ch + c] = (Math.imul(i * 4 + c, 2654435761 | 0) >>> 22) * 0.0009765625;
  const tex = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, tex);
  for (const [k, v] of [[gl.TEXTURE_MIN_FILTER, gl.NEAREST], [gl.TEXTURE_MAG_FILTER, gl.NEAREST],
                        [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE],
                        [gl.TEXTURE_MAX_LEVEL, 0]])
    gl.texParameteri(gl.TEXTURE_2D, k, v);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  const internal = t.fmt === 'r32f' ? gl.R32F : t.fmt === 'rgba16f' ? gl.RGBA16F : gl.RGBA32F;
  gl.texImage2D(gl.TEXTURE_2D, 0, internal, t.w, t.h, 0, ch === 1 ? gl.RED : gl.RGBA, gl.FLOAT, data);
  return tex;
}

function pkDraw(iters) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, pk.fbo);
  gl.viewport(0, 0, pk.w, pk.h);
  gl.useProgram(pk.prog);
  gl.bindVertexArray(pk.vao);
  if (pk.src) { gl.activeTexture(gl.TEXTURE0); gl.bindTexture(gl.TEXTURE_2D, pk.src); }
  if (pk.uIters) gl.uniform1i(pk.uIters, iters);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
}

const px1 = new Float32Array(4);
function pkReadTarget(t, x, y, out) {
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, pk.fbo);
  gl.readBuffer(gl.COLOR_ATTACHMENT0 + t);
  gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
  gl.readPixels(x, y, 1, 1, gl.RGBA, gl.FLOAT, out);
}

const glErr = () => { const e = gl.getError(); return e ? `GL error 0x${e.toString(16).padStart(4, '0')}` : ''; };

const probeOps = {
  open(q) {
    pkFree();
    gl.getError(); // start clean: errors below are this kernel's
    pk = { targets: [], src: null, w: q.w, h: q.h, n: q.targets, readBuf: null };
    try {
      const vs = pkShader(gl.VERTEX_SHADER, q.vs), fs = pkShader(gl.FRAGMENT_SHADER, q.fs);
      pk.prog = gl.createProgram();
      gl.attachShader(pk.prog, vs); gl.attachShader(pk.prog, fs);
      gl.bindAttribLocation(pk.prog, 0, 'aPos');
      gl.linkProgram(pk.prog);
      gl.deleteShader(vs); gl.deleteShader(fs);
      if (!gl.getProgramParameter(pk.prog, gl.LINK_STATUS))
        return { status: 'link_error', detail: `probe program does not link: ${(gl.getProgramInfoLog(pk.prog) || '').split('\n')[0].trim()}` };
    } catch (e) {
      if (e.status) return { status: e.status, detail: e.message };
      throw e;
    }
    pk.vao = gl.createVertexArray();
    gl.bindVertexArray(pk.vao);
    pk.vbo = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, pk.vbo);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 3, -1, -1, 3]), gl.STATIC_DRAW);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
    gl.enableVertexAttribArray(0);
    gl.useProgram(pk.prog);
    pk.uIters = gl.getUniformLocation(pk.prog, 'uIters');
    if (q.mul) gl.uniform4fv(gl.getUniformLocation(pk.prog, 'uMul'), q.mul);
    if (q.add) gl.uniform4fv(gl.getUniformLocation(pk.prog, 'uAdd'), q.add);
    if (q.tex) {
      gl.uniform1i(gl.getUniformLocation(pk.prog, 'uTex'), 0);
      pk.src = pkSource(q.tex);
    }
    pk.fbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, pk.fbo);
    const bufs = [];
    for (let t = 0; t < q.targets; t++) {
      const tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, q.w, q.h, 0, gl.RGBA, gl.FLOAT, null);
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + t, gl.TEXTURE_2D, tex, 0);
      pk.targets.push(tex);
      bufs.push(gl.COLOR_ATTACHMENT0 + t);
    }
    gl.drawBuffers(bufs);
    const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
    if (st !== gl.FRAMEBUFFER_COMPLETE)
      return { status: 'fbo_incomplete', detail: `probe: ${q.targets} RGBA32F targets of ${q.w}x${q.h}: framebuffer incomplete (0x${st.toString(16)})` };
    gl.disable(gl.BLEND);
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.SCISSOR_TEST);
    const e = glErr();
    return e ? { status: 'gl_error', detail: `probe: setting up a kernel: ${e}` } : { status: 'ok' };
  },

  time(q) {
    if (!pk) return { status: 'invalid', detail: 'probe: no kernel open' };
    if (q.read && !pk.readBuf) pk.readBuf = new Float32Array(pk.w * pk.h * 4);
    if (q.read) {
      gl.bindFramebuffer(gl.READ_FRAMEBUFFER, pk.fbo);
      gl.readBuffer(gl.COLOR_ATTACHMENT0);
      gl.pixelStorei(gl.PACK_ALIGNMENT, 4);
    }
    const seconds = [];
    for (let i = 0; i < q.warmups + q.reps; i++) {
      const t0 = performance.now();
      if (q.read) {
        for (let j = 0; j < q.count; j++) gl.readPixels(0, 0, pk.w, pk.h, gl.RGBA, gl.FLOAT, pk.readBuf);
      } else {
        for (let j = 0; j < q.count; j++) { pkDraw(q.iters); gl.flush(); }
        pkReadTarget(0, 0, 0, px1); // waits for the draws
      }
      const s = (performance.now() - t0) / 1000;
      if (i >= q.warmups) seconds.push(s);
    }
    const e = glErr();
    return e ? { status: 'gl_error', detail: e } : { status: 'ok', seconds };
  },

  texels(q) {
    if (!pk) return { status: 'invalid', detail: 'probe: no kernel open' };
    const out = new Float32Array(q.at.length * 4);
    q.at.forEach(([t, x, y], i) => {
      if (q.read) out.set(pk.readBuf.subarray((y * pk.w + x) * 4, (y * pk.w + x) * 4 + 4), i * 4);
      else { pkReadTarget(t, x, y, px1); out.set(px1, i * 4); }
    });
    const e = glErr();
    return { status: e ? 'gl_error' : 'ok', detail: e, bits: Array.from(new Uint32Array(out.buffer)) };
  },

  close() { pkFree(); return { status: 'ok' }; },
};

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
      return { status: 'unsupported', why: 'no_webgl2', detail: 'the page has no WebGL2 context (WebGL2 disabled or unavailable in this browser)' };
    try {
      runtimeAt = runtimeUrl;
      rt = await import(runtimeUrl);
      await rt.init(wasmUrl ? { wasm: wasmUrl } : {});
      runner = rt.createRunner(gl);
    } catch (e) {
      return { status: 'unsupported', why: 'no_runtime', detail: `the WebGL2 runtime ${runtimeUrl} did not start: ${errText(e)}` };
    }
    const info = runner.limits();
    info.extensions = gl.getSupportedExtensions() || [];
    info.runtime = runtimeUrl;
    return { status: 'ok', info };
  },

  async inputs(meta) {
    const base = `/inputs/${meta.gen}/`;
    const a = await fetchF32(base + 'a');
    const b = await fetchF32(base + 'b');
    const c0 = meta.hasC0 ? await fetchF32(base + 'c0') : null;
    inp = { ...meta, a, b, c0 };
  },

  async run(q) {
    const enter = Date.now();
    if (q.loseContext) {
      const ext = gl.getExtension('WEBGL_lose_context');
      if (ext) ext.loseContext();
      await new Promise((r) => setTimeout(r, 0));
    }
    if (lost || gl.isContextLost())
      return answer('context_lost', 'the WebGL context was lost (webglcontextlost)');
    let r;
    const t0 = performance.now();
    try {
      r = await runner.bench({ variant: q.variant, m: inp.m, n: inp.n, k: inp.k, alpha: q.alpha, beta: q.beta,
                               transa: inp.transa, transb: inp.transb, a: inp.a, b: inp.b, c: inp.c0 ?? undefined,
                               reps: q.reps, sameInputs: lastGen === inp.gen, minRepS: MIN_REP_S });
    } catch (e) {
      if (lost || gl.isContextLost())
        return answer('context_lost', `the WebGL context was lost: ${errText(e)}`);
      return answer('gl_error', `the runtime threw: ${errText(e)}`);
    }
    lastGen = inp.gen;
    if (lost || gl.isContextLost())
      return answer('context_lost', 'the WebGL context was lost during the run');
    const out = answer(r.status, r.detail, r);
    // where the page's time went (the worker's GLGEMM_BROWSER_TRACE)
    out.trace = { run_s: (performance.now() - t0) / 1e3, warm_s: (+r.warmMs || 0) / 1e3,
                  timed_s: (+r.timedMs || 0) / 1e3, batch: r.batch | 0, post_s: 0, enter };
    if (r.c && r.c.length === inp.m * inp.n) {
      const p0 = performance.now();
      await postC(q.token, r.c);
      out.trace.post_s = (performance.now() - p0) / 1e3;
      out.posted = true;
    }
    out.trace.leave = Date.now();
    return out;
  },

  // q.backend: 'webgl' (the tfjs-webgl row) or 'webgpu' (tfjs-webgpu: only
  // where the page offers WebGPU; else 'unsupported' with the reason, and a
  // backend that does not come up within WEBGPU_WAIT_MS is one too).
  async tfjs(q) {
    const backend = q.backend === 'webgpu' ? 'webgpu' : 'webgl';
    try {
      await tfOn(backend);
    } catch (e) {
      return answer('unsupported', `TensorFlow.js ${backend}: ${errText(e)}`);
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
      const ms = performance.now() - t0;
      t.dispose();
      return { ms, d };
    };
    let c = null;
    const timesMs = [];
    try {
      c = (await once()).d; // warm-up: programs built, textures made
      for (let i = 0; i < Math.max(1, q.reps | 0); i++) {
        const r = await once();
        timesMs.push(r.ms);
        c = r.d;
      }
    } catch (e) {
      return answer('gl_error', `tf.matMul: ${errText(e)}`);
    } finally {
      A.dispose(); B.dispose(); if (C0) C0.dispose();
    }
    const sorted = [...timesMs].sort((x, y) => x - y);
    const h = sorted.length >> 1;
    const medianMs = sorted.length % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
    const f32 = c instanceof Float32Array ? c : new Float32Array(c);
    await postC(q.token, f32);
    const on = backend === 'webgpu' ? `on WebGPU's ${gpuName}` : `float32 render ${tf.env().getBool('WEBGL_RENDER_FLOAT32_ENABLED')}`;
    const out = answer('ok', `tfjs ${tf.version_core} ${tf.getBackend()}, ${on}`, { passes: 1, timesMs, medianMs });
    out.posted = true;
    return out;
  },

  // bench's model rows (web/worker/models.mjs): q.name dense or encoder,
  // q.scale full or small, q.with tfjs (TensorFlow.js alone) or glgemm
  // (glgemm-tfjs.js registered with q.variant, beside this runtime), q.reps.
  // The model and its inputs are made once per page; glgemm's outputs are
  // compared with tfjs's own (its row, or one untimed run of tfjs alone):
  // rel_err = max |diff| / max |ref|.  served and fell_back count the
  // matrix kernels glgemm ran and those it passed to tfjs.
  async model(q) {
    try {
      await tfOn('webgl');
      M ??= await import('/worker/models.mjs');
    } catch (e) {
      return answer('unsupported', `TensorFlow.js webgl: ${errText(e)}`);
    }
    const key = `${q.name}|${q.scale}`;
    let e = models.get(key);
    try {
      if (!e) {
        const sizes = M.SIZES[q.name] && M.SIZES[q.name][q.scale];
        if (!sizes) return answer('invalid', `no model ${q.name} at scale ${q.scale}`);
        e = { model: M.makeModel(tf, q.name, sizes), ref: null };
        models.set(key, e);
      }
      const reps = Math.max(1, q.reps | 0);
      let G = null;
      if (q.with === 'glgemm') {
        if (!e.ref) e.ref = (await M.timeModel(e.model, 0)).out;
        try {
          G = await import(new URL('glgemm-tfjs.js', new URL(runtimeAt, location.href)).href);
        } catch (x) {
          return answer('unsupported', `glgemm-tfjs.js beside ${runtimeAt}: ${errText(x)} (run make web)`);
        }
        const r = await G.register(tf, q.variant ? { variant: q.variant } : {});
        if (!r.variant) return answer('unsupported', `glgemm-tfjs.js did not register: ${r.reason}`);
      }
      let t, info = null;
      try {
        t = await M.timeModel(e.model, reps);
        if (G) info = G.registered();
      } finally {
        if (G) G.unregister();
      }
      if (!G) e.ref = t.out;
      const out = answer('ok', `${e.model.what}; ${G ? `glgemm-tfjs.js, ${info.served} products by glgemm, ${info.fellBack} by tfjs`
        : `TensorFlow.js ${tf.version_core} alone`}`, { passes: G ? info.served : 1, timesMs: t.times, medianMs: t.ms });
      out.rel_err = G ? M.relDiff(t.out, e.ref) : 0;
      out.flops = e.model.flops;
      out.served = G ? info.served : 0;
      out.fell_back = G ? info.fellBack : 0;
      return out;
    } catch (x) {
      return answer(gl && gl.isContextLost() ? 'context_lost' : 'gl_error', `model ${q.name}: ${errText(x)}`);
    }
  },

  // The probe's kernels (eval/browser_probe.c sends their GLSL ES 3.00 from
  // glhost/probe_src.c; nothing of them is written here): one kernel at a
  // time, q.act open | time | texels | close.  A repetition is timed from
  // its first draw to a 1-pixel readPixels (gl.finish does not wait in a
  // browser); read: whole readPixels of target 0.  Texels go back as their
  // float32 bit patterns (NaN and infinities survive JSON), judged by the host.
  probe(q) {
    if (lost || gl.isContextLost())
      return { status: 'context_lost', detail: 'the WebGL context was lost (webglcontextlost)' };
    try {
      return probeOps[q.act] ? probeOps[q.act](q) : { status: 'invalid', detail: `unknown probe act '${q.act}'` };
    } catch (e) {
      if (lost || gl.isContextLost())
        return { status: 'context_lost', detail: `the WebGL context was lost: ${errText(e)}` };
      return { status: 'gl_error', detail: `the page threw: ${errText(e)}` };
    }
  },
};
