// A stand-in for the WebGL2 runtime (web/src/, web/dist/glgemm.js) with the same API, for tests of the
// browser worker's plumbing only (GLGEMM_BROWSER_RUNTIME=stub): it reads the
// WebGL2 context's limits but computes C on the CPU, in float.  It never
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
    const { m, n, k, a, b, c0, transa, transb } = q;
    const c = new Float32Array(m * n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++)
          s = Math.fround(s + Math.fround((transa ? a[p * m + i] : a[i * k + p]) * (transb ? b[j * k + p] : b[p * n + j])));
        s = Math.fround(q.alpha * s);
        if (q.beta !== 0) s = Math.fround(s + Math.fround(q.beta * c0[i * n + j]));
        c[i * n + j] = s;
      }
    return c;
  };
  return {
    limits,
    check: (text) => check(text),
    async run(q) {
      const chk = check(q.variant);
      if (chk.status !== 'ok') return { ...chk, passes: 0, seconds: [], median_s: 0, c: null };
      let c = gemm(q);
      const seconds = [];
      for (let i = 0; i < (q.reps ?? 10); i++) {
        const t0 = performance.now();
        c = gemm(q);
        seconds.push(Math.max((performance.now() - t0) / 1000, 1e-6));
      }
      seconds.sort((x, y) => x - y);
      return { status: 'ok', detail: 'stub runtime (CPU)', passes: 1, compile_s: 0, upload_s: 0, seconds,
               median_s: seconds.length ? seconds[seconds.length >> 1] : 0, readback_s: 0, c };
    },
  };
}
