/* web/src/matmul.js: matmul, the page's one call.  A part of glgemm.js:
 * `make web` joins web/src/ into web/dist/glgemm.js. */

/* C = alpha*op(A)*op(B) + beta*C0 on the page's WebGL2 context: a Promise
 * of C (m x n, row-major Float32Array).  a: m x k row-major (k x m with
 * transa), b: k x n (n x k with transb), c: C0 (m x n), read when beta != 0.
 * Any m, n, k >= 1; matrices past the texture limit are split into blocks.
 * variant: the variant to run; without one, the portfolio's choice for
 * this GPU and shape class where there is a portfolio (the option
 * portfolio, else PORTFOLIO; raceMs and _corrupt as choice() takes them),
 * else DEFAULT_VARIANT.  Any other option is an Error (status invalid).
 * Throws an Error naming what is wrong: no WebGL2, no float render targets,
 * a bad argument, or a variant this context cannot run; its status
 * (invalid, unsupported, context_lost, or the run's: compile_error,
 * gl_error, ...) and detail tell a page which. */
const MATMUL_OPTIONS = ['alpha', 'beta', 'c', 'transa', 'transb', 'variant', 'portfolio', 'raceMs', '_corrupt'];

export async function matmul(gl, a, b, m, n, k, options = {}) {
    if (!isWebGL2(gl)) throw glgemmError('unsupported', `WebGL2 context required (got ${contextName(gl)})`);
    needOptions('matmul', options, MATMUL_OPTIONS);
    const {alpha = 1, beta = 0, c, transa = false, transb = false, variant, portfolio, raceMs, _corrupt} = options;
    await init();
    const r = createRunner(gl);
    needInt('m', m); needInt('n', n); needInt('k', k);
    needBool('transa', transa); needBool('transb', transb);
    needMatrix('a', a, m * k, transa ? `k x m (${k}x${m})` : `m x k (${m}x${k})`);
    needMatrix('b', b, k * n, transb ? `n x k (${n}x${k})` : `k x n (${k}x${n})`);
    needNumber('alpha', alpha); needNumber('beta', beta);
    if (beta !== 0) needMatrix('c', c, m * n, `m x n (${m}x${n})`);
    let use = variant ?? DEFAULT_VARIANT;
    if ((variant === undefined || variant === null) && portfolioList(portfolio).length)
        use = (await choice(gl, m, n, k, {portfolio, raceMs, _corrupt})).variant;
    const res = await r.gemm({variant: use, m, n, k, alpha, beta, transa, transb, a, b, c}, {reps: 0, timed: false});
    if (res.status !== 'ok')
        throw glgemmError(res.status, res.detail, `glgemm: ${res.variant || use}: ${res.status}: ${res.detail}`);
    return res.c;
}
