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

/* ---- double-float (store=df): Float64Array problems, judged exactly ---- */

/* count doubles in [-1, 1] using all 53 bits (a fixed sequence). */
export function random64(count, seed) {
    const hi = random(count, seed), lo = random(count, seed + 1000);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = hi[i] * (1 - 2 ** -20) + lo[i] * 2 ** -26;
    return out;
}

export function problem64({m, n, k, transa = false, transb = false, alpha = 1, beta = 0, seed = 1}) {
    return {m, n, k, transa, transb, alpha, beta, a: random64(m * k, seed), b: random64(k * n, seed + 1),
        c0: beta !== 0 ? random64(m * n, seed + 2) : undefined};
}

/* x = M * 2^e exactly, M an integer (BigInt); x finite. */
function parts(x) {
    if (x === 0) return [0n, 0];
    const dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, x);
    const bits = dv.getBigUint64(0);
    const neg = bits >> 63n, ex = Number((bits >> 52n) & 0x7ffn), frac = bits & ((1n << 52n) - 1n);
    const M = ex === 0 ? frac : frac | (1n << 52n);
    return [neg ? -M : M, (ex === 0 ? 1 : ex) - 1075];
}

const abs = (x) => (x < 0n ? -x : x);

/* C (a Float64Array) against alpha op(A) op(B) + beta C0 computed exactly
 * (BigInt): rel_err = max |C - R| / (|alpha| sum |a b| + |beta c0|), a
 * pass within k 2^-44 (double-float's bound, as base_wide_bound's).  Every
 * value is an integer at one scale 2^-T' (T = T' + e_alpha for the sums
 * before alpha), chosen so that no term needs a right shift. */
export function judgeDf(p, c) {
    const {m, n, k, transa, transb, alpha, beta, a, b, c0} = p;
    if (!c || c.length !== m * n) return {pass: false, rel_err: Infinity, why: `C has ${c && c.length} elements, not ${m * n}`};
    for (let i = 0; i < m * n; i++)
        if (!Number.isFinite(c[i])) return {pass: false, rel_err: Infinity, why: `C[${Math.floor(i / n)}][${i % n}] = ${c[i]}`};
    const min = (xs) => xs.reduce((x, y) => Math.min(x, y[1]), 0);
    const A = Array.from({length: m * k}, (_, x) => parts(transa ? a[(x % k) * m + Math.floor(x / k)] : a[x]));
    const B = Array.from({length: k * n}, (_, x) => parts(transb ? b[(x % n) * k + Math.floor(x / n)] : b[x]));
    const C0 = beta !== 0 ? Array.from({length: m * n}, (_, x) => parts(c0[x])) : [];
    const G = Array.from(c, parts);
    const al = parts(alpha), be = parts(beta);
    const T1 = Math.max(-(min(A) + min(B)) - al[1], -(be[1] + min(C0)), -min(G)), T = T1 + al[1];
    let worst = 0, bad = '';
    for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
            let s = 0n, d = 0n; /* scale T */
            for (let q = 0; q < k; q++) {
                const [Ma, e1] = A[i * k + q], [Mb, e2] = B[q * n + j];
                const t = (Ma * Mb) << BigInt(e1 + e2 + T);
                s += t;
                d += abs(t);
            }
            let r = al[0] * s, den = abs(al[0]) * d; /* scale T1 */
            if (beta !== 0) {
                const [Mc, ec] = C0[i * n + j];
                const bc = (be[0] * Mc) << BigInt(be[1] + ec + T1);
                r += bc;
                den += abs(bc);
            }
            const [Mg, eg] = G[i * n + j];
            const diff = abs((Mg << BigInt(eg + T1)) - r);
            const e = den > 0n ? Number(diff) / Number(den) : (diff === 0n ? 0 : Infinity);
            if (e > worst) { worst = e; bad = `C[${i}][${j}] = ${c[i * n + j]}, exact ${Number(r) / Number(1n << BigInt(Math.max(0, T1)))}`; }
        }
    const limit = k * 2 ** -44;
    return {pass: worst <= limit, rel_err: worst, limit, why: worst <= limit ? '' : bad};
}

/* C computed as fp32 would (A, B, C0 rounded to floats, sums in floats):
 * what judgeDf must fail, or the test could not tell double-float from
 * fp32. */
export function fp32Result(p) {
    const {m, n, k, transa, transb, alpha, beta, a, b, c0} = p;
    const f = Math.fround, c = new Float64Array(m * n);
    for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
            let s = 0;
            for (let q = 0; q < k; q++)
                s = f(s + f(f(transa ? a[q * m + i] : a[i * k + q]) * f(transb ? b[j * k + q] : b[q * n + j])));
            c[i * n + j] = f(f(f(alpha) * s) + (beta !== 0 ? f(f(beta) * f(c0[i * n + j])) : 0));
        }
    return c;
}
