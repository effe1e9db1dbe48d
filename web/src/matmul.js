/* web/src/matmul.js: matmul, the page's one call.  A part of glgemm.js:
 * `make web` joins web/src/ into web/dist/glgemm.js. */

/* C = alpha*op(A)*op(B) + beta*C0 on the page's WebGL2 context: a Promise
 * of C (m x n, row-major).  a: m x k row-major (k x m with transa), b: k x n
 * (n x k with transb), c: C0 (m x n), read when beta != 0.
 * The arrays decide the precision:
 *  - a and b Float64Arrays: double-float (store=df, each value hi + lo of
 *    two fp32s, about 48 bits), C a Float64Array, checked on sampled
 *    elements against a double-double reference (never returned outside
 *    double-float's bound: wrong_result instead); variant a store=df one,
 *    default DEFAULT_DF_VARIANT (the portfolio race is fp32's);
 *  - otherwise (Float32Arrays, plain arrays): fp32, C a Float32Array;
 *    variant default: the portfolio's choice for this GPU and shape class
 *    where there is a portfolio (the option portfolio, else PORTFOLIO;
 *    raceMs and _corrupt as choice() takes them), else DEFAULT_VARIANT;
 *  - one Float64Array and one not: an Error (status invalid).
 * Any m, n, k >= 1; matrices past the texture limit are split into blocks.
 * Any other option is an Error (status invalid).
 * Throws an Error naming what is wrong: no WebGL2, no float render targets,
 * a bad argument, or a variant this context cannot run; its status
 * (invalid, unsupported, context_lost, or the run's: compile_error,
 * gl_error, wrong_result, ...) and detail tell a page which. */
const MATMUL_OPTIONS = ['alpha', 'beta', 'c', 'transa', 'transb', 'variant', 'portfolio', 'raceMs', '_corrupt'];

export async function matmul(gl, a, b, m, n, k, options = {}) {
    if (!isWebGL2(gl)) throw glgemmError('unsupported', `WebGL2 context required (got ${contextName(gl)})`);
    needOptions('matmul', options, MATMUL_OPTIONS);
    const {alpha = 1, beta = 0, c, transa = false, transb = false, variant, portfolio, raceMs, _corrupt} = options;
    await init();
    const r = createRunner(gl);
    needInt('m', m); needInt('n', n); needInt('k', k);
    needBool('transa', transa); needBool('transb', transb);
    const wide = a instanceof Float64Array;
    if (wide !== (b instanceof Float64Array))
        throw glgemmError('invalid', `a is ${typeName(a)} and b ${typeName(b)}: pass both as Float64Arrays (double-float, C a Float64Array) or neither (fp32)`);
    const kind = wide ? 'Float64Array' : 'Float32Array';
    needNumbers('a', a, m * k, transa ? `k x m (${k}x${m})` : `m x k (${m}x${k})`, kind);
    needNumbers('b', b, k * n, transb ? `n x k (${n}x${k})` : `k x n (${k}x${n})`, kind);
    needNumber('alpha', alpha); needNumber('beta', beta);
    if (beta !== 0) needNumbers('c', c, m * n, `m x n (${m}x${n})`, kind);
    let use = variant ?? (wide ? DEFAULT_DF_VARIANT : DEFAULT_VARIANT);
    if (variant !== undefined && variant !== null) {
        const v = gen.parse(variant);
        const df = !v.error && v.info.store === STORE_DF;
        if (!v.error && wide && !df)
            throw glgemmError('invalid', `Float64Arrays multiply in double-float: the variant must be store=df (${v.canonical})`);
        if (df && !wide)
            throw glgemmError('invalid', `store=df multiplies doubles: pass a and b as Float64Arrays (a is ${typeName(a)})`);
    } else if (!wide && portfolioList(portfolio).length) {
        use = (await choice(gl, m, n, k, {portfolio, raceMs, _corrupt})).variant;
    }
    const res = await r.gemm({variant: use, m, n, k, alpha, beta, transa, transb, a, b, c}, {reps: 0, timed: false});
    if (res.status !== 'ok')
        throw glgemmError(res.status, res.detail, `glgemm: ${res.variant || use}: ${res.status}: ${res.detail}`);
    return res.c;
}
