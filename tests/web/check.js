/* tests/web/check.js: runs in the test page.  Random inputs, the
 * double-precision reference and SPEC.md's error rule:
 *   rel_err = max |C - R| / (|alpha| * sum_k |A_ik B_kj| + |beta C0_ij|),
 * a pass when rel_err <= K * 2^-23 and every element is finite. */

/* splitmix-ish deterministic uniforms in [-1, 1]. */
export function random(count, seed) {
    const out = new Float32Array(count);
    let s = (seed * 2654435761) >>> 0;
    for (let i = 0; i < count; i++) {
        s = (s + 0x6D2B79F5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
    }
    return out;
}

/* x as a half sees it (round to nearest even), back as a number. */
export function halfRound(x) {
    if (Math.f16round) return Math.f16round(x);
    throw new Error('no Math.f16round in this browser');
}

/* The problem of a case: inputs, and what judges C. */
export function problem({m, n, k, transa = false, transb = false, alpha = 1, beta = 0, seed = 1}) {
    return {m, n, k, transa, transb, alpha, beta, a: random(m * k, seed), b: random(k * n, seed + 1),
        c0: beta !== 0 ? random(m * n, seed + 2) : undefined};
}

export function judge(p, c, half = false) {
    const {m, n, k, transa, transb, alpha, beta, a, b, c0} = p;
    const rnd = half ? halfRound : (x) => x;
    const A = new Float64Array(m * k), B = new Float64Array(k * n);
    for (let i = 0; i < m; i++)
        for (let q = 0; q < k; q++) A[i * k + q] = rnd(transa ? a[q * m + i] : a[i * k + q]);
    for (let q = 0; q < k; q++)
        for (let j = 0; j < n; j++) B[q * n + j] = rnd(transb ? b[j * k + q] : b[q * n + j]);
    let worst = 0, bad = null;
    if (!c || c.length !== m * n) return {pass: false, rel_err: Infinity, why: `C has ${c && c.length} elements, not ${m * n}`};
    for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
            let s = 0, d = 0;
            for (let q = 0; q < k; q++) {
                const x = A[i * k + q] * B[q * n + j];
                s += x;
                d += Math.abs(x);
            }
            const c0v = beta !== 0 ? c0[i * n + j] : 0;
            const r = alpha * s + beta * c0v;
            const den = Math.abs(alpha) * d + Math.abs(beta * c0v);
            const got = c[i * n + j];
            if (!Number.isFinite(got)) return {pass: false, rel_err: Infinity, why: `C[${i}][${j}] = ${got}`};
            const e = den > 0 ? Math.abs(got - r) / den : Math.abs(got - r);
            if (e > worst) { worst = e; bad = `C[${i}][${j}] = ${got}, reference ${r}`; }
        }
    const limit = k * 2 ** -23;
    return {pass: worst <= limit, rel_err: worst, limit, why: worst <= limit ? '' : bad};
}
