/* web/src/portfolio.js: the portfolio race of the WebGL2 runtime, a part
 * of glgemm.js: `make web` joins web/src/ (the Makefile's WEB_SRC, this file
 * last) into the one module web/dist/glgemm.js (the runtime's internals,
 * createRunner, gen, DEFAULT_VARIANT and PORTFOLIO, are in scope there).
 * Not a module of its own: load web/dist/glgemm.js. */

/* ---- the portfolio race (glgemm export --portfolio) ----
 *
 * The first choice() (or matmul without a variant) of a shape class on a
 * GPU races the portfolio there: a shape class is m, n and k each rounded
 * to the nearest power of two; the stand-in problem is the class's sizes,
 * at most RACE_MAX_DIM each, on random inputs in [-1, 1].  The programs
 * that are not long start compiling at once (the runner's prebuild); each
 * variant runs through the runner (bench({reps: RACE_REPS}): the median of
 * the timed reps, each at least RACE_MIN_REP_S) and its C is checked on
 * RACE_SAMPLES sampled elements against a double-precision sum, glgemm's
 * verification rule: |C - R| <= k 2^-23 |alpha| sum |a b|, every sampled element
 * finite.  A variant that fails (any status but ok, or a wrong sample:
 * wrong_result) is never chosen; the fastest that passes is,
 * DEFAULT_VARIANT where none does.  The order: the short programs in the
 * portfolio's order, then the long ones, as race() says.  No variant starts
 * that would likely end past raceMs from the race's start (default RACE_MS,
 * RACE_FAST_MS on a fast card), its likely time guessed from those raced so
 * far and its program's length (those left: 'skipped', listed after the
 * raced ones; the first always runs).
 * The choice is remembered in localStorage under
 *   glgemm.choice/<portfolio hash>/<class>/<renderer>
 * (renderer: WEBGL_debug_renderer_info's UNMASKED_RENDERER_WEBGL, else
 * RENDERER; the hash covers the portfolio's texts in order) and in memory:
 * later calls and later page loads race nothing.  Where localStorage is
 * missing or throws, the page's memory only.  A fallback (none passed) is
 * kept in memory only: the next load races again.  forgetChoices() forgets
 * all.  Test hook: the option _corrupt (a variant text) adds 1 to every
 * element of that variant's C before the check, so it fails verification;
 * it is part of the hash, so a corrupted race never stands for a real one. */
const RACE_MAX_DIM = 512, RACE_REPS = 3, RACE_SAMPLES = 64, RACE_MS = 2000;
/* A timed rep of the race is at least this long (bench's minRepS): a 512^3
 * GEMM is under 1 ms on a GPU, which a page's 100 us timer (one not
 * cross-origin isolated) cuts into steps of 10%. */
const RACE_MIN_REP_S = 0.002;
const CHOICE_PREFIX = 'glgemm.choice/';
const choices = new Map(); /* key -> the choice, or the Promise of the race making it */
let latest = null;

function portfolioList(portfolio) {
    if (portfolio === undefined || portfolio === null) return PORTFOLIO;
    if (!Array.isArray(portfolio) || portfolio.some((v) => typeof v !== 'string'))
        throw glgemmError('invalid', 'portfolio must be an array of variant strings');
    return portfolio;
}

function bucket(x) { return 2 ** Math.round(Math.log2(x)); }

/* 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text) {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, '0');
}

function storage() {
    try {
        return globalThis.localStorage || null;
    } catch {
        return null; /* a sandboxed or opaque origin throws on access */
    }
}

function recall(key) {
    try {
        const s = storage(), t = s && s.getItem(key);
        return t ? JSON.parse(t) : null;
    } catch {
        return null;
    }
}

function remember(key, value) {
    try {
        const s = storage();
        if (s) s.setItem(key, JSON.stringify(value));
    } catch { /* full or refused: the page's memory keeps it */ }
}

/* Forgets every remembered choice (localStorage and this page's memory):
 * the next call of each shape class races again. */
export function forgetChoices() {
    choices.clear();
    latest = null;
    try {
        const s = storage();
        if (!s) return;
        const keys = [];
        for (let i = 0; i < s.length; i++) {
            const key = s.key(i);
            if (key && key.startsWith(CHOICE_PREFIX)) keys.push(key);
        }
        keys.forEach((key) => s.removeItem(key));
    } catch { /* nothing stored to forget */ }
}

/* The choice of the latest choice() or portfolio matmul of this page (a
 * copy), or null. */
export function lastChoice() {
    return latest ? structuredClone(latest) : null;
}

/* The portfolio's variant for this GPU and the shape class of m x n x k: a
 * Promise of {variant, fromMemory, raceMs, raced: [{variant, status,
 * gflops, relErr, detail, ms, compileMs, buildMs, firstDrawMs}],
 * shapeClass, renderer, fallback}: ms is what racing the variant took,
 * compileMs the part of it spent on its program: buildMs waiting for the
 * compile and link, firstDrawMs its first draw (where a driver may build
 * its pipeline).  fromMemory:
 * remembered (raceMs 0, raced empty: nothing raced now); fallback:
 * DEFAULT_VARIANT because no variant passed (or the portfolio is empty).
 * Options: portfolio (default PORTFOLIO), raceMs (default 2000, or 500
 * on a fast card: the race's budget in milliseconds), _corrupt
 * (the test hook above). */
export async function choice(gl, m, n, k, options = {}) {
    if (!isWebGL2(gl)) throw glgemmError('unsupported', `WebGL2 context required (got ${contextName(gl)})`);
    needOptions('choice', options, ['portfolio', 'raceMs', '_corrupt']);
    const {portfolio, raceMs, _corrupt} = options;
    await init();
    const r = createRunner(gl);
    needInt('m', m); needInt('n', n); needInt('k', k);
    if (raceMs !== undefined) needNumber('raceMs', raceMs);
    if (_corrupt !== undefined && typeof _corrupt !== 'string')
        throw glgemmError('invalid', '_corrupt must be a variant string');
    const list = portfolioList(portfolio);
    const cls = `${bucket(m)}x${bucket(n)}x${bucket(k)}`;
    const renderer = r.lim.unmaskedRenderer || r.lim.renderer;
    const base = {shapeClass: cls, renderer};
    if (!list.length) {
        latest = {variant: DEFAULT_VARIANT, fromMemory: false, raceMs: 0, raced: [], ...base, fallback: true};
        return lastChoice();
    }
    const hash = fnv1a(JSON.stringify(list) + (_corrupt ? `|corrupt:${_corrupt}` : ''));
    const key = `${CHOICE_PREFIX}${hash}/${cls}/${renderer}`;
    let got = choices.get(key);
    if (!got) { /* a page loaded before remembered it */
        const old = recall(key);
        if (old && typeof old.variant === 'string' && r.check(old.variant).status === 'ok') {
            got = {variant: old.variant, fallback: false};
            choices.set(key, got);
        }
    }
    if (got) {
        if (got instanceof Promise) {
            latest = {...(await got), ...base}; /* a race another call started */
        } else {
            latest = {variant: got.variant, fromMemory: true, raceMs: 0, raced: [], ...base, fallback: got.fallback};
        }
        return lastChoice();
    }
    const racing = race(r, list, cls, raceMs, _corrupt);
    choices.set(key, racing);
    let won;
    try {
        won = await racing;
    } catch (e) {
        choices.delete(key);
        throw e;
    }
    choices.set(key, {variant: won.variant, fallback: won.fallback});
    if (!won.fallback) remember(key, {variant: won.variant, raceMs: won.raceMs, raced: won.raced, at: Date.now()});
    latest = {...won, ...base};
    return lastChoice();
}

/* Milliseconds to a tenth. */
function tenths(ms) { return Math.round((ms || 0) * 10) / 10; }

/* Uniforms in [-1, 1]. */
function randomMatrix(count) {
    const x = new Float32Array(count);
    for (let i = 0; i < count; i++) x[i] = Math.random() * 2 - 1;
    return x;
}

/* glgemm's verification rule on sampled elements of C = A B (alpha 1, beta 0): the
 * corners and RACE_SAMPLES - 2 random ones. */
function verifySampled(a, b, c, m, n, k) {
    const limit = k * 2 ** -23;
    let worst = 0, why = '';
    for (let s = 0; s < RACE_SAMPLES; s++) {
        const i = s === 0 ? 0 : s === 1 ? m - 1 : Math.floor(Math.random() * m);
        const j = s === 0 ? 0 : s === 1 ? n - 1 : Math.floor(Math.random() * n);
        let r = 0, d = 0;
        for (let q = 0; q < k; q++) {
            const x = a[i * k + q] * b[q * n + j];
            r += x;
            d += Math.abs(x);
        }
        const got = c[i * n + j];
        if (!Number.isFinite(got)) return {pass: false, relErr: Infinity, why: `C[${i}][${j}] = ${got}`};
        const e = d > 0 ? Math.abs(got - r) / d : Math.abs(got - r);
        if (e > worst) {
            worst = e;
            why = `C[${i}][${j}] = ${got}, reference ${r}`;
        }
    }
    return {pass: worst <= limit, relErr: worst, why: worst <= limit ? '' : `relative error ${worst} > ${limit}: ${why}`};
}

/* The race's order: the short programs (up to RACE_LARGE times the
 * shortest one's text) in the portfolio's order, then the long ones,
 * shortest first.  A long program costs more to build than a short one
 * costs to run on every card measured (an unrolled 65 KB program: its first
 * draw 0.5 s over Vulkan on an H200 and 0.64 s on SwiftShader on 2 cores,
 * its link 2.1 s over gl-egl; a 512^3 GEMM 1 ms on the H200, 100 ms on
 * SwiftShader), so the budget goes to as many variants as it can.
 * Where the first variant's warm-up GEMM at the stand-in takes under
 * RACE_FAST_GEMM_MS (a GPU), the default budget is RACE_FAST_MS; where it
 * takes over RACE_SLOW_GEMM_MS (a software renderer), the rest time one GEMM
 * after their warm-up, not RACE_REPS. */
const RACE_LARGE = 4, RACE_FAST_GEMM_MS = 5, RACE_FAST_MS = 500, RACE_SLOW_GEMM_MS = 20;

/* Races list on the stand-in problem of class cls: {variant, fallback,
 * raceMs, raced}.  budget: raceMs, or undefined for the default. */
async function race(r, list, cls, budget, corrupt) {
    const [m, n, k] = cls.split('x').map((x) => Math.min(Number(x), RACE_MAX_DIM));
    const a = randomMatrix(m * k), b = randomMatrix(k * n);
    const bad = corrupt ? (gen.parse(corrupt).canonical || corrupt) : null;
    const t0 = performance.now(), raced = [];
    let best = null;
    /* The short programs start compiling at once; a long one (a link of
     * seconds on some drivers, which would hold up the first run) when its
     * turn comes. */
    const sizes = r.prebuild(list, m, n, k, RACE_LARGE);
    const chars = (t) => sizes.get(t).chars;
    const shortest = Math.min(...list.map(chars).filter((c) => c > 0));
    const long = (t) => chars(t) > RACE_LARGE * shortest;
    const todo = [...list.filter((t) => !long(t)), ...list.filter(long).sort((x, y) => chars(x) - chars(y))];
    let limit = budget ?? RACE_MS, reps = RACE_REPS;
    const skipped = [];
    for (const text of todo) {
        /* No variant starts that would likely end past the budget (the
         * first always runs): its likely time is the mean time of those
         * raced so far outside building their programs, plus its program's
         * length at the slowest build rate seen (ms a character). */
        const spent = performance.now() - t0;
        if (raced.length) {
            const runMs = raced.reduce((x, e) => x + e.ms - e.compileMs, 0) / raced.length;
            const rate = Math.max(0, ...raced.map((e) => e.compileMs / Math.max(1, chars(e.text))));
            if (spent + runMs + rate * chars(text) > limit) {
                skipped.push(text);
                continue;
            }
        }
        let res;
        try {
            res = await r.bench({variant: text, m, n, k, a, b, reps, minRepS: RACE_MIN_REP_S});
        } catch (e) {
            res = {status: (e && e.status) || 'invalid', variant: text, detail: (e && e.detail) || String(e && e.message || e), gflops: 0};
        }
        const entry = {text, variant: res.variant || text, status: res.status, gflops: res.gflops || 0, relErr: null,
            detail: res.detail || '', ms: Math.round((performance.now() - t0 - spent) * 10) / 10,
            compileMs: tenths(res.compileMs), buildMs: tenths(res.buildMs), firstDrawMs: tenths(res.firstDrawMs)};
        if (res.status === 'ok') {
            const c = entry.variant === bad || text === corrupt ? res.c.map((x) => x + 1) : res.c;
            const v = verifySampled(a, b, c, m, n, k);
            entry.relErr = v.relErr;
            if (!v.pass) Object.assign(entry, {status: 'wrong_result', gflops: 0, detail: v.why});
        }
        raced.push(entry);
        if (entry.status === 'ok' && (!best || entry.gflops > best.gflops)) best = entry;
        if (raced.length === 1 && res.status === 'ok') {
            if (res.warmMs < RACE_FAST_GEMM_MS) limit = budget ?? RACE_FAST_MS;
            if (res.warmMs > RACE_SLOW_GEMM_MS) reps = 1;
        }
    }
    const spent = Math.round(performance.now() - t0);
    for (const text of skipped)
        raced.push({variant: text, status: 'skipped', gflops: 0, relErr: null,
            detail: `the race's ${limit} ms would be spent (${spent} ms at its end)`});
    raced.forEach((e) => delete e.text);
    r.dropStarted(); /* those the budget skipped */
    return {variant: best ? best.variant : DEFAULT_VARIANT, fallback: !best, fromMemory: false,
        raceMs: performance.now() - t0, raced};
}
