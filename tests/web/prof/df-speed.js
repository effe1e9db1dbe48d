/* store=df in this page's WebGL2 against fp32 on the same card: matmul of
 * random Float64Arrays (53-bit values) and of the same values as
 * Float32Arrays, m = n = k = 1024 (256 with --small), each the median of
 * three timed calls after a warm-up, read-back included; the df result's
 * relative error on 512 sampled elements against a double-double sum
 * (|c - sum a b| / sum |a b|; issue 40's target 2^-40).  A measuring tool
 * for the notes, not a test:
 *   node tests/web/page-eval.mjs tests/web/prof/df-speed.js --use-angle=vulkan */
async (small) => {
    const g = await import('/dist/glgemm.js');
    const C = await import('/check.js');
    await g.init({wasm: '/dist/glgemm-gen.wasm'});
    const gl = document.getElementById('c').getContext('webgl2');
    const N = small ? 256 : 1024;
    const p = C.problem64({m: N, n: N, k: N, seed: 5});
    const a32 = Float32Array.from(p.a), b32 = Float32Array.from(p.b);
    const med = (xs) => xs.slice().sort((x, y) => x - y)[1];
    const time = async (f) => {
        await f();
        const ts = [];
        let out;
        for (let r = 0; r < 3; r++) {
            const t0 = performance.now();
            out = await f();
            ts.push(performance.now() - t0);
        }
        return {ms: med(ts), out};
    };
    /* TwoSum, Dekker's TwoProduct, and the double-double sum of one element */
    const split = (x) => { const t = 134217729 * x, h = t - (t - x); return [h, x - h]; };
    const twoProd = (x, y) => {
        const pr = x * y, [xh, xl] = split(x), [yh, yl] = split(y);
        return [pr, ((xh * yh - pr) + xh * yl + xl * yh) + xl * yl];
    };
    const ref = (i, j) => {
        let hi = 0, lo = 0, s = 0;
        for (let q = 0; q < N; q++) {
            const [ph, pl] = twoProd(p.a[i * N + q], p.b[q * N + j]);
            const t = hi + ph, bb = t - hi, e = (hi - (t - bb)) + (ph - bb);
            hi = t;
            lo += e + pl;
            s += Math.abs(ph);
        }
        return [hi, lo, s];
    };
    const out = {renderer: g.createRunner(gl).limits().unmaskedRenderer, size: N};
    const variants = [undefined, 'profile=300es,mrt=4x2,mc=1x2,np=all,fetch=texelfetch,store=df',
        'profile=300es,mrt=2x4,mc=2x1,np=all,fetch=texelfetch,store=df'];
    for (const v of variants) {
        try {
            const r = await time(() => g.matmul(gl, p.a, p.b, N, N, N, v ? {variant: v} : {}));
            let worst = 0;
            for (let s = 0; s < 512; s++) {
                const i = (s * 7919) % N, j = (s * 104729 + 13) % N;
                const [hi, lo, sc] = ref(i, j);
                const d = Math.abs((r.out[i * N + j] - hi) - lo) / sc;
                worst = Math.max(worst, d);
            }
            out[v || 'default ' + g.DEFAULT_DF_VARIANT] = {ms: r.ms, gflops: 2 * N ** 3 / r.ms / 1e6,
                rel_err: worst, log2: Math.log2(worst)};
        } catch (e) {
            out[v || 'default'] = {error: String(e).slice(0, 300)};
        }
    }
    const f = await time(() => g.matmul(gl, a32, b32, N, N, N));
    out.f32 = {ms: f.ms, gflops: 2 * N ** 3 / f.ms / 1e6};
    return out;
}
