// A stand-in for the WebGL2 runtime (web/src/, web/dist/glgemm.js) with the
// same runner API (init, createRunner: limits, check, run, bench; results in
// camelCase milliseconds), for tests of the browser worker's plumbing only
// (GLGEMM_BROWSER_RUNTIME=stub): it reads the WebGL2 context's limits but
// computes C on the CPU, in float.  It never
// writes a shader (the shaders come from gen/ only) and its timings mean
// nothing: records it makes are of no card.  Keys it understands: profile
// (300es only) and mrt (its product against MAX_DRAW_BUFFERS).
let ready = false;
export async function init() { ready = true; }

export function createRunner(gl) {
  if (!ready) throw new Error('init() first');
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  const limits = () => ({
    maxDrawBuffers: gl.getParameter(gl.MAX_DRAW_BUFFERS),
    maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
    floatBlend: !!gl.getExtension('EXT_float_blend'),
    colorBufferFloat: !!gl.getExtension('EXT_color_buffer_float'),
    vendor: gl.getParameter(gl.VENDOR),
    renderer: gl.getParameter(gl.RENDERER),
    unmaskedRenderer: dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : '',
    version: gl.getParameter(gl.VERSION),
    glsl: gl.getParameter(gl.SHADING_LANGUAGE_VERSION),
  });
  const check = (text) => {
    const kv = Object.fromEntries(String(text).split(',').filter((s) => s.includes('=')).map((s) => s.split('=')));
    if (kv.profile !== '300es') return { status: 'unsupported', detail: `profile=${kv.profile || '330'}: WebGL2 runs GLSL ES 3.00 only` };
    const [r, c] = (kv.mrt || '1x1').split('x').map(Number);
    if (r * c > limits().maxDrawBuffers) return { status: 'unsupported', detail: `mrt=${kv.mrt}: more than ${limits().maxDrawBuffers} draw buffers` };
    return { status: 'ok', detail: '' };
  };
  const gemm = (q) => {
    const { m, n, k, a, b, c: c0, transa, transb } = q;
    const c = new Float32Array(m * n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++)
          s = Math.fround(s + Math.fround((transa ? a[p * m + i] : a[i * k + p]) * (transb ? b[j * k + p] : b[p * n + j])));
        s = Math.fround((q.alpha ?? 1) * s);
        if ((q.beta ?? 0) !== 0) s = Math.fround(s + Math.fround(q.beta * c0[i * n + j]));
        c[i * n + j] = s;
      }
    return c;
  };
  const RUN_OPTIONS = ['variant', 'm', 'n', 'k', 'alpha', 'beta', 'transa', 'transb', 'a', 'b', 'c'];
  const BENCH_OPTIONS = [...RUN_OPTIONS, 'reps', 'sameInputs', 'maxTextureSize', 'minRepS'];
  const needOptions = (fn, o, known) => {
    for (const key of Object.keys(o))
      if (!known.includes(key))
        throw Object.assign(new Error(`glgemm: ${fn} takes no option '${key}'`), { status: 'invalid', detail: `${fn} takes no option '${key}'` });
  };
  // The runtime's result (camelCase, milliseconds); reps 0: one run.
  const gemmTimed = (q, reps) => {
    const out = { status: 'ok', detail: 'stub runtime (CPU)', variant: q.variant, passes: 1, programCached: false,
                  compileMs: 0, buildMs: 0, firstDrawMs: 0, uploadMs: 0, runMs: 0, readbackMs: 0, gflops: 0, c: null };
    const chk = check(q.variant);
    if (chk.status !== 'ok') return { ...out, ...chk, passes: 0 };
    let t0 = performance.now();
    out.c = gemm(q);
    out.runMs = Math.max(performance.now() - t0, 1e-3);
    const timesMs = [];
    for (let i = 0; i < reps; i++) {
      t0 = performance.now();
      out.c = gemm(q);
      timesMs.push(Math.max(performance.now() - t0, 1e-3));
    }
    timesMs.sort((x, y) => x - y);
    if (reps > 0) out.runMs = timesMs[timesMs.length >> 1];
    out.gflops = 2 * q.m * q.n * q.k / out.runMs / 1e6;
    return { out, timesMs };
  };
  return {
    limits,
    check: (text) => check(text),
    async run(q = {}) {
      needOptions('run', q, RUN_OPTIONS);
      const r = gemmTimed(q, 0);
      return r.out || r;
    },
    async bench(q = {}) {
      needOptions('bench', q, BENCH_OPTIONS);
      const reps = q.reps ?? 10;
      const r = gemmTimed(q, reps);
      if (!r.out) return { ...r, timesMs: [], medianMs: 0, warmMs: 0, timedMs: 0, batch: 0 };
      return { ...r.out, timesMs: r.timesMs, medianMs: reps > 0 ? r.out.runMs : 0, warmMs: 0,
               timedMs: r.timesMs.reduce((x, y) => x + y, 0), batch: reps > 0 ? 1 : 0 };
    },
  };
}
