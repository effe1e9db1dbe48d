/* store=df's error-free sums under two guards, in this page's WebGL2:
 * gen/eft.c's (each intermediate times eft_one, an opaque 1) and the same
 * text with an opaque zero added instead (each `* eft_one` made
 * `+ eft_zero`); the runner's sampled check judges each (status ok or
 * wrong_result), and where ok tests/web/check.js's judgeDf every element.  A measuring tool for the notes, not a test:
 *   node tests/web/page-eval.mjs tests/web/prof/df-guard.js --use-angle=gl-egl
 * Chromium 156 over llvmpipe 15 (2-core machine): as generated,
 * wrong_result (errors about 2^-29, fp32's); with the zero, ok.  Over
 * SwiftShader both are ok.  (A guess at why: a product by eft_one is a
 * multiply that LLVM may fuse with the subtraction after it, e.g. the
 * split's (4097 a) * one - a into one fma, which keeps what the split
 * must round away; an added zero leaves no multiply to fuse.) */
async (small) => {
    const g = await import('/dist/glgemm.js');
    const C = await import('/check.js');
    await g.init({wasm: '/dist/glgemm-gen.wasm'});
    const gl = document.getElementById('c').getContext('webgl2');
    const R = g.createRunner(gl);
    const proto = Object.getPrototypeOf(R);
    const p = C.problem64({m: 37, n: 29, k: 53, seed: 8});
    const out = {renderer: R.limits().unmaskedRenderer};
    const guards = {
        one: (fs) => fs,
        zero: (fs) => fs.replace(/ \* eft_one/g, ' + eft_zero')
            .replace('float eft_one;', 'float eft_one;\nfloat eft_zero;')
            .replace('eft_one = float(1 - min(uKBase, 0));',
                'eft_one = float(1 - min(uKBase, 0));\n    eft_zero = float(min(uKBase, 0));'),
    };
    for (const v of ['profile=300es,mrt=1x1,mc=1x1,np=5,store=df', g.DEFAULT_DF_VARIANT])
        for (const [name, f] of Object.entries(guards)) {
            R.compileLink = (vs, fs) => proto.compileLink.call(R, vs, f(fs));
            R.programs.clear();
            const r = await R.run({variant: v, m: 37, n: 29, k: 53, a: p.a, b: p.b});
            out[`${name} ${v}`] = {status: r.status, detail: r.detail.slice(0, 160),
                whole: r.c ? C.judgeDf({...p, alpha: 1, beta: 0}, r.c) : null}; /* every element, exactly */
        }
    delete R.compileLink;
    return out;
}
