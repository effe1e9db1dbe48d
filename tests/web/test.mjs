/* tests/web/test.mjs: the browser tests (issue 29), run by tests/web/run.sh
 * (make check).  Headless Chromium (WebGL2 on ANGLE over SwiftShader):
 *  1. the runner's bench() on profile=300es variants against a double
 *     reference (tests/web/check.js): odd shapes, transposes, alpha/beta,
 *     passes, every acc, mc, mrt, unroll, fetch, store=f16, splits past a
 *     (lowered) texture limit, the caches; what WebGL2 cannot run comes
 *     back 'unsupported' (or 'invalid') with a reason;
 *  2. matmul's errors on bad input, and the GL state it leaves;
 *  3. `glgemm export` (GLGEMM_BIN): a module folder copied to a temporary
 *     folder that is not the project's, imported from a page there; export
 *     of a variant WebGL2 cannot run, and of best without records: exit 2;
 *  4. the example page (web/example/) shows its rows with no page error;
 *  5. the browser worker's protocol (web/worker/), with the runtime and the
 *     stub: one answer shape, run's times in seconds, C;
 *  6. double-float (store=df): matmul and run() on Float64Arrays, judged
 *     exactly (BigInt) within k 2^-44, a judge that fails fp32's answer,
 *     the API's rules and errors; and where Chromium comes up on llvmpipe
 *     (ANGLE over this machine's EGL), that df there is right or refused.
 * Exit 0 when every check passes; each failure prints one line. */
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {launch, open, serve, root} from './lib.mjs';

const BIN = process.env.GLGEMM_BIN || path.join(root, 'glgemm');
const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
let failed = 0, passed = 0;
const t0 = Date.now();

function check(cond, name, info = '') {
    if (cond) {
        passed++;
    } else {
        failed++;
        console.log(`FAIL ${name}${info ? ': ' + info : ''}`);
    }
}

const V = (s) => 'profile=300es,' + s;
const odd = {m: 37, n: 29, k: 53};

/* Runner cases: expect 'ok' (judged) unless expect says otherwise. */
const cases = [
    {name: 'default variant 37x29x53', ...odd},
    {name: '1x1x1 mc=1x1', variant: V('mrt=1x1,mc=1x1'), m: 1, n: 1, k: 1},
    {name: '1x1x1 mrt=2x4 mc=2x2', variant: V('mrt=2x4,mc=2x2,np=1'), m: 1, n: 1, k: 1},
    {name: '129x65x300 mrt=2x4 mc=1x4 np=8 (10 passes)', variant: V('mrt=2x4,mc=1x4,np=8'), m: 129, n: 65, k: 300, passes: 10},
    {name: 'transa acc=copy', variant: V('mrt=2x2,mc=2x2,np=3,acc=copy'), ...odd, transa: true},
    {name: 'transb acc=pingpong', variant: V('mrt=1x2,mc=1x4,np=2,acc=pingpong'), ...odd, transb: true},
    {name: 'transa transb acc=blend mc=4x1', variant: V('mrt=2x1,mc=4x1,np=4,acc=blend'), m: 31, n: 23, k: 41, transa: true, transb: true},
    {name: 'alpha beta acc=copy', variant: V('mc=1x1,np=5,acc=copy'), m: 19, n: 17, k: 23, alpha: -0.5, beta: 2},
    {name: 'alpha beta acc=pingpong', variant: V('mrt=2x2,mc=2x2,np=2'), ...odd, alpha: 1.5, beta: -1},
    {name: 'alpha beta acc=blend', variant: V('mrt=1x4,mc=1x4,np=3,acc=blend'), ...odd, alpha: 0.25, beta: 0.5},
    {name: 'alpha=0 beta=1', variant: V('mrt=1x2,mc=2x2,np=2,acc=blend'), m: 9, n: 11, k: 13, alpha: 0, beta: 1},
    {name: 'unroll=1', variant: V('mrt=2x2,mc=1x4,np=4,unroll=1'), m: 45, n: 33, k: 70},
    {name: 'fetch=texelfetch', variant: V('mrt=2x2,mc=2x2,np=4,fetch=texelfetch'), ...odd},
    {name: 'fetch=ubo', variant: V('mrt=1x2,mc=1x4,np=3,fetch=ubo'), ...odd},
    {name: 'fetch=ubo transa beta acc=copy', variant: V('mrt=2x2,mc=2x2,np=2,fetch=ubo,acc=copy'), ...odd, transa: true, beta: 1},
    {name: 'fetch=ubo acc=blend unroll=1', variant: V('mrt=2x1,mc=4x1,fetch=ubo,acc=blend,unroll=1'), ...odd},
    {name: 'mc=1x3 (RGBA targets)', variant: V('mrt=1x2,mc=1x3,np=4'), ...odd},
    {name: 'mc=1x2 acc=copy (RG targets)', variant: V('mrt=2x1,mc=1x2,np=3,acc=copy'), ...odd},
    {name: 'mc=3x1 acc=blend', variant: V('mc=3x1,np=2,acc=blend'), ...odd},
    {name: 'mrt=1x8', variant: V('mrt=1x8,mc=1x1,np=6'), ...odd},
    {name: 'store=f16 mc=2x2', variant: V('mrt=2x2,mc=2x2,np=4,store=f16'), ...odd, half: true},
    {name: 'store=f16 mc=1x3 texelfetch', variant: V('mc=1x3,np=3,store=f16,fetch=texelfetch'), ...odd, half: true},
    {name: 'store=f16 fetch=ubo (gen: invalid)', variant: V('mrt=1x2,mc=1x4,np=2,store=f16,fetch=ubo'), ...odd, expect: 'invalid', detail: /ubo/},
    {name: 'split (texture limit 8) pingpong', variant: V('mrt=2x2,mc=2x2,np=2'), ...odd, maxTextureSize: 8, split: true},
    {name: 'split copy alpha beta', variant: V('mrt=1x2,mc=1x4,np=3,acc=copy'), ...odd, maxTextureSize: 8, alpha: 2, beta: 1, split: true},
    {name: 'split blend transb', variant: V('mc=4x1,np=1,acc=blend'), ...odd, maxTextureSize: 8, transb: true, split: true},
    {name: 'split fetch=ubo transa', variant: V('mrt=2x1,mc=2x2,np=2,fetch=ubo'), ...odd, maxTextureSize: 8, transa: true, split: true},
    {name: 'profile=330', variant: 'mrt=1x1,mc=1x1', ...odd, expect: 'unsupported', detail: /^WebGL2 runs GLSL ES 3\.00 only \(profile=300es\)$/},
    {name: 'out=image', variant: V('out=image,blk=4x4'), ...odd, expect: 'unsupported', detail: /out=image/},
    {name: 'fetch=image', variant: V('fetch=image'), ...odd, expect: 'unsupported', detail: /fetch=image/},
    {name: 'fetch=buffer', variant: V('fetch=buffer'), ...odd, expect: 'unsupported', detail: /fetch=buffer/},
    {name: 'compiler=spirv', variant: 'compiler=spirv', ...odd, expect: 'unsupported', detail: /300es/},
    {name: 'store=df on Float32Arrays (the worker\'s)', variant: V('mrt=2x2,mc=1x2,np=2,store=df'), ...odd, expect: 'unsupported', detail: /^store=df multiplies doubles: a and b must be Float64Arrays \(a is Float32Array\)$/},
    {name: 'store=f64 (no doubles in WebGL2)', variant: V('mc=1x1,store=f64'), ...odd, expect: 'unsupported', detail: /store=f64: needs double arithmetic, which WebGL2's GLSL ES 3\.00 lacks/},
    {name: 'store=dd (no doubles in WebGL2)', variant: V('mc=1x1,store=dd'), ...odd, expect: 'unsupported', detail: /store=dd: needs double arithmetic/},
    {name: 'mrt=3x3 (parse)', variant: V('mrt=3x3'), ...odd, expect: 'invalid', detail: /mrt/},
    {name: 'unknown key (parse)', variant: V('bogus=1'), ...odd, expect: 'invalid', detail: /bogus/},
];

async function runnerTests(browser, url) {
    const page = await open(browser, url + 'page.html');
    await page.evaluate(async () => {
        const g = await import('/dist/glgemm.js');
        const C = await import('/t/check.js');
        await g.init({wasm: '/dist/glgemm-gen.wasm'});
        await g.init(); /* idempotent: no second load */
        const gl = document.getElementById('c').getContext('webgl2');
        window.T = {g, C, gl, R: g.createRunner(gl)};
    });
    for (const c of cases) {
        if (only && !only.test(c.name)) continue;
        const r = await page.evaluate(async (c) => {
            const {C, R} = window.T;
            const p = C.problem(c);
            const pick = ['variant', 'm', 'n', 'k', 'alpha', 'beta', 'transa', 'transb', 'maxTextureSize'];
            const o = Object.fromEntries(pick.filter((key) => c[key] !== undefined).map((key) => [key, c[key]]));
            const out = await R.bench({...o, a: p.a, b: p.b, c: p.c0 ?? undefined, reps: c.reps ?? 2});
            const res = {status: out.status, detail: out.detail, passes: out.passes, reps: out.timesMs.length,
                median: out.medianMs, variant: out.variant, compile: out.compileMs, upload: out.uploadMs,
                readback: out.readbackMs};
            if (out.status === 'ok') Object.assign(res, C.judge(p, out.c, !!c.half));
            return res;
        }, c);
        const expect = c.expect || 'ok';
        check(r.status === expect, c.name, `status ${r.status} (${r.detail})`);
        if (expect !== 'ok') {
            check(c.detail.test(r.detail), `${c.name}: reason`, r.detail);
            continue;
        }
        if (r.status !== 'ok') continue;
        check(r.pass, `${c.name}: result`, `rel_err ${r.rel_err} > ${r.limit} (${r.why})`);
        check(r.reps === 2 && r.median > 0 && r.compile >= 0 && r.upload >= 0 && r.readback >= 0,
            `${c.name}: timings`, JSON.stringify(r));
        if (c.passes) check(r.passes === c.passes, `${c.name}: passes`, `${r.passes}`);
        if (c.variant) check(r.variant && r.variant.includes('profile=300es'), `${c.name}: canonical`, r.variant);
    }
    if (!only || only.test('runner')) await runnerMore(page);
    check(page.errors.length === 0, 'runner page: no page errors', page.errors.join(' | '));
    await page.close();
}

/* Caches, sameInputs, check(), limits(). */
async function runnerMore(page) {
    const r = await page.evaluate(async () => {
        const {C, R, g} = window.T;
        const out = {};
        const p = C.problem({m: 37, n: 29, k: 53, seed: 7});
        const v = 'profile=300es,mrt=2x2,mc=2x2,np=4';
        const r1 = await R.bench({variant: v, m: 37, n: 29, k: 53, a: p.a, b: p.b, reps: 1});
        const r2 = await R.bench({variant: v, m: 38, n: 30, k: 54 - 1, a: C.random(38 * 53, 3), b: C.random(53 * 30, 4), reps: 1});
        out.cached = [r1.programCached, r2.programCached];
        /* Another variant of the same packing on the same inputs: A and B
         * not passed at all, the uploaded ones reused. */
        const r3 = await R.bench({variant: 'profile=300es,mrt=2x2,mc=2x2,np=2,acc=copy,fetch=texelfetch', m: 37, n: 29, k: 53, reps: 1, sameInputs: true});
        out.same = r3.status === 'ok' ? C.judge(p, r3.c) : {pass: false, why: r3.status + ' ' + r3.detail};
        /* New data into the same textures (no sameInputs). */
        const q = C.problem({m: 37, n: 29, k: 53, seed: 9});
        const r4 = await R.bench({variant: v, m: 37, n: 29, k: 53, a: q.a, b: q.b, reps: 1});
        out.refill = r4.status === 'ok' ? C.judge(q, r4.c) : {pass: false, why: r4.status};
        out.limits = R.limits();
        out.checks = [
            R.check('profile=300es,mrt=2x2'),
            R.check('mrt=2x2'),
            R.check('profile=300es,mrt=9x1'),
            R.check('profile=300es,fetch=ubo,np=all', 64, 64, 5000),
            R.check('profile=300es,fetch=ubo,np=16', 64, 64, 5000),
        ];
        /* No float blending: a context whose EXT_float_blend is hidden. */
        const cv = document.createElement('canvas');
        const gl2 = cv.getContext('webgl2');
        const real = gl2.getExtension.bind(gl2);
        gl2.getExtension = (name) => (name === 'EXT_float_blend' ? null : real(name));
        const R2 = g.createRunner(gl2);
        out.noblend = R2.check('profile=300es,acc=blend');
        out.noblendRun = (await R2.run({variant: 'profile=300es,acc=blend', m: 4, n: 4, k: 4, a: C.random(16, 1), b: C.random(16, 2)})).status;
        /* A lost context: the status, then after its restoration right
         * results again (the runner forgets the old objects). */
        const cl = document.createElement('canvas');
        document.body.appendChild(cl);
        cl.addEventListener('webglcontextlost', (e) => e.preventDefault());
        const gl3 = cl.getContext('webgl2'), R3 = g.createRunner(gl3), lose = gl3.getExtension('WEBGL_lose_context');
        const q3 = C.problem({m: 13, n: 11, k: 17, seed: 3});
        const run3 = () => R3.run({variant: 'profile=300es,mrt=2x2,mc=2x2,np=2', m: 13, n: 11, k: 17, a: q3.a, b: q3.b});
        const event = (name) => new Promise((ok, fail) => {
            cl.addEventListener(name, ok, {once: true});
            setTimeout(() => fail(new Error(`no ${name} in 10 s`)), 10000);
        });
        const before = await run3();
        const lostEvent = event('webglcontextlost');
        lose.loseContext();
        const lost = await run3();
        await lostEvent; /* restoring is allowed once the loss's event (default prevented) is over */
        await new Promise((ok) => setTimeout(ok, 0));
        const restored = event('webglcontextrestored');
        lose.restoreContext();
        await restored;
        const after = await run3();
        out.lost = {before: before.status, lost: lost.status, lostDetail: lost.detail, after: after.status,
            judge: after.status === 'ok' ? C.judge(q3, after.c) : null};
        /* The page's run(): one GEMM, camelCase milliseconds, none of
         * bench's options. */
        const q4 = C.problem({m: 21, n: 19, k: 25, alpha: 0.5, beta: 2, transa: true, seed: 4});
        const pub = await R.run({variant: 'profile=300es,mrt=2x2,mc=2x2,np=4,acc=copy', m: 21, n: 19, k: 25,
            alpha: 0.5, beta: 2, transa: true, a: q4.a, b: q4.b, c: q4.c0});
        out.pub = {keys: Object.keys(pub), judge: pub.status === 'ok' ? C.judge(q4, pub.c) : {pass: false, why: pub.status + ' ' + pub.detail},
            times: [pub.compileMs, pub.buildMs, pub.firstDrawMs, pub.uploadMs, pub.runMs, pub.readbackMs], gflops: pub.gflops,
            programCached: pub.programCached};
        const thrown = async (f) => {
            try {
                await f();
                return null;
            } catch (e) {
                return {status: e.status, detail: e.detail, message: e.message};
            }
        };
        const base = {m: 4, n: 4, k: 4, a: C.random(16, 1), b: C.random(16, 2)};
        out.pubReject = {
            reps: await thrown(() => R.run({...base, reps: 3})),
            sameInputs: await thrown(() => R.run({...base, sameInputs: true})),
            maxTextureSize: await thrown(() => R.run({...base, maxTextureSize: 8})),
            minRepS: await thrown(() => R.run({...base, minRepS: 0.025})),
            c0: await thrown(() => R.run({...base, beta: 1, c0: C.random(16, 3)})),
            badM: await thrown(() => R.run({...base, m: 0})),
            matmulReps: await thrown(() => g.matmul(T.gl, base.a, base.b, 4, 4, 4, {reps: 3})),
            matmulMinRep: await thrown(() => g.matmul(T.gl, base.a, base.b, 4, 4, 4, {minRepS: 0.01})),
            choiceReps: await thrown(() => g.choice(T.gl, 4, 4, 4, {portfolio: [], reps: 3})),
            benchBadReps: await thrown(() => R.bench({...base, reps: -1})),
        };
        const failed = await R.run({...base, variant: 'profile=300es,out=image,blk=4x4'});
        out.pubFail = {status: failed.status, detail: failed.detail, c: failed.c};
        return out;
    });
    check(!r.cached[0] && r.cached[1], 'program cache: one program for shapes that pad alike', JSON.stringify(r.cached));
    check(r.same.pass, 'sameInputs: A and B reused by another variant', r.same.why);
    check(r.refill.pass, 'new inputs into kept textures', r.refill.why);
    const L = r.limits;
    check(L.maxDrawBuffers >= 4 && L.maxTextureSize >= 2048 && L.colorBufferFloat === true &&
        typeof L.floatBlend === 'boolean' && /WebGL 2/.test(L.version) && /GLSL ES 3/.test(L.glsl) &&
        'vendor' in L && 'renderer' in L && 'unmaskedRenderer' in L, 'limits()', JSON.stringify(L));
    const [ok, p330, bad, ubobig, ubofit] = r.checks;
    check(ok.status === 'ok', 'check: ok', JSON.stringify(ok));
    check(p330.status === 'unsupported' && p330.detail === 'WebGL2 runs GLSL ES 3.00 only (profile=300es)', 'check: profile 330', JSON.stringify(p330));
    check(bad.status === 'invalid' && /mrt/.test(bad.detail), 'check: parse error', JSON.stringify(bad));
    check(ubobig.status === 'unsupported' && /uniform block/.test(ubobig.detail), 'check: ubo past the block limit', JSON.stringify(ubobig));
    check(ubofit.status === 'ok', 'check: ubo within the block limit', JSON.stringify(ubofit));
    check(r.noblend.status === 'unsupported' && /float/i.test(r.noblend.detail), 'check: acc=blend without EXT_float_blend', JSON.stringify(r.noblend));
    check(r.noblendRun === 'unsupported', 'run: acc=blend without EXT_float_blend', r.noblendRun);
    check(r.lost.before === 'ok' && r.lost.lost === 'context_lost' && r.lost.after === 'ok' && r.lost.judge.pass,
        'context lost, then restored', JSON.stringify(r.lost));
    const want = ['status', 'detail', 'variant', 'passes', 'programCached', 'compileMs', 'buildMs', 'firstDrawMs',
        'uploadMs', 'runMs', 'readbackMs', 'gflops', 'c'];
    check(r.pub.judge.pass, 'run(): the page\'s one GEMM (alpha, beta, c, transa)', JSON.stringify(r.pub.judge));
    check(want.every((key) => r.pub.keys.includes(key)) && r.pub.keys.every((key) => want.includes(key)),
        'run(): its result\'s names, camelCase', r.pub.keys.join(','));
    check(r.pub.times.every((x) => typeof x === 'number' && x >= 0) && r.pub.times[4] > 0 && r.pub.gflops > 0 &&
        r.pub.times[0] >= r.pub.times[1], 'run(): times in milliseconds', JSON.stringify(r.pub));
    for (const key of ['reps', 'sameInputs', 'maxTextureSize', 'minRepS', 'c0']) {
        const e = r.pubReject[key];
        check(e && e.status === 'invalid' && e.detail === `run takes no option '${key}' (it takes variant, m, n, k, alpha, beta, transa, transb, a, b, c)` &&
            e.message === `glgemm: ${e.detail}`, `run() refuses bench's option ${key}`, JSON.stringify(e));
    }
    const pr = r.pubReject;
    check(pr.badM && pr.badM.status === 'invalid' && /^m must be an integer/.test(pr.badM.detail), 'run(): a bad argument throws status invalid', JSON.stringify(pr.badM));
    check(pr.matmulReps && pr.matmulReps.status === 'invalid' && /^matmul takes no option 'reps'/.test(pr.matmulReps.detail),
        'matmul refuses reps', JSON.stringify(pr.matmulReps));
    check(pr.matmulMinRep && pr.matmulMinRep.status === 'invalid' && /^matmul takes no option 'minRepS'/.test(pr.matmulMinRep.detail),
        'matmul refuses minRepS', JSON.stringify(pr.matmulMinRep));
    check(pr.choiceReps && pr.choiceReps.status === 'invalid' && /^choice takes no option 'reps'/.test(pr.choiceReps.detail),
        'choice refuses reps', JSON.stringify(pr.choiceReps));
    check(pr.benchBadReps && pr.benchBadReps.status === 'invalid' && /reps must be an integer >= 0/.test(pr.benchBadReps.detail),
        'bench: reps -1 throws status invalid', JSON.stringify(pr.benchBadReps));
    check(r.pubFail.status === 'unsupported' && /out=image/.test(r.pubFail.detail) && r.pubFail.c === null,
        'run(): a variant the context cannot run answers its status', JSON.stringify(r.pubFail));
}

/* matmul: errors, defaults, the GL state it leaves. */
async function matmulTests(browser, url) {
    const page = await open(browser, url + 'page.html');
    const r = await page.evaluate(async () => {
        const g = await import('/dist/glgemm.js');
        const C = await import('/t/check.js');
        await g.init({wasm: '/dist/glgemm-gen.wasm'});
        const err = async (f) => {
            try {
                await f();
                return 'no error';
            } catch (e) {
                return String(e.message);
            }
        };
        const a = C.random(12, 1), b = C.random(16, 2), out = {}; /* 3x4 and 4x4 */
        out.nullCtx = await err(() => g.matmul(null, a, b, 3, 4, 4));
        const c1 = document.createElement('canvas');
        out.webgl1 = await err(() => g.matmul(c1.getContext('webgl'), a, b, 3, 4, 4));
        const c2 = document.createElement('canvas');
        c2.getContext = () => null; /* a page without WebGL2 */
        out.stubbed = await err(() => g.matmul(c2.getContext('webgl2'), a, b, 3, 4, 4));
        out.runnerNull = await err(() => g.createRunner(null));
        const c3 = document.createElement('canvas');
        const gl3 = c3.getContext('webgl2');
        const real = gl3.getExtension.bind(gl3);
        gl3.getExtension = (n) => (n === 'EXT_color_buffer_float' ? null : real(n));
        out.noFloat = await err(() => g.matmul(gl3, a, b, 3, 4, 4));
        const gl = document.getElementById('c').getContext('webgl2');
        out.badM = await err(() => g.matmul(gl, a, b, 2.5, 4, 4));
        out.badK = await err(() => g.matmul(gl, a, b, 3, 4, 0));
        out.badTrans = await err(() => g.matmul(gl, a, b, 3, 4, 5, {transa: 'N'}));
        out.shortA = await err(() => g.matmul(gl, a.subarray(0, 5), b, 3, 4, 4));
        out.shortB = await err(() => g.matmul(gl, a, b.subarray(0, 5), 3, 4, 4));
        out.noC = await err(() => g.matmul(gl, a, b, 3, 4, 4, {beta: 1}));
        out.badAlpha = await err(() => g.matmul(gl, a, b, 3, 4, 4, {alpha: NaN}));
        out.p330 = await err(() => g.matmul(gl, a, b, 3, 4, 4, {variant: 'larsen'}));
        try {
            await g.matmul(gl, a, b, 3, 4, 4, {variant: 'larsen'});
            out.p330err = null;
        } catch (e) {
            out.p330err = {status: e.status, detail: e.detail};
        }
        try {
            await g.matmul(gl, a, b, 3, 4, 0);
            out.badKerr = null;
        } catch (e) {
            out.badKerr = {status: e.status, detail: e.detail};
        }

        /* The page's own state, which matmul must leave as it was. */
        const fb = gl.createFramebuffer(), tex = gl.createTexture(), prog = gl.createProgram();
        const vs = gl.createShader(gl.VERTEX_SHADER), fs = gl.createShader(gl.FRAGMENT_SHADER);
        gl.shaderSource(vs, '#version 300 es\nvoid main(){gl_Position=vec4(0.0);}');
        gl.shaderSource(fs, '#version 300 es\nprecision mediump float;out vec4 o;void main(){o=vec4(1.0);}');
        gl.compileShader(vs); gl.compileShader(fs);
        gl.attachShader(prog, vs); gl.attachShader(prog, fs); gl.linkProgram(prog);
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
        gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
        gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
        gl.activeTexture(gl.TEXTURE3);
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.activeTexture(gl.TEXTURE1);
        gl.bindTexture(gl.TEXTURE_2D, tex);
        gl.useProgram(prog);
        gl.viewport(1, 2, 3, 4);
        gl.enable(gl.SCISSOR_TEST);
        gl.scissor(0, 1, 2, 3);
        gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, true);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
        const p = C.problem({m: 37, n: 29, k: 53, alpha: 0.5, beta: -2, transb: true, seed: 5});
        const c = await g.matmul(gl, p.a, p.b, 37, 29, 53, {alpha: 0.5, beta: -2, c: p.c0, transb: true});
        out.result = C.judge(p, c);
        const pf = await g.matmul(gl, Array.from(p.a), Array.from(p.b), 37, 29, 53, {alpha: 0.5, beta: -2, c: Array.from(p.c0), transb: true,
            variant: 'profile=300es,mrt=1x2,mc=4x1,np=2,acc=blend,fetch=ubo'});
        out.plainArrays = C.judge(p, pf);
        gl.activeTexture(gl.TEXTURE3);
        const unit3 = gl.getParameter(gl.TEXTURE_BINDING_2D) === tex;
        gl.activeTexture(gl.TEXTURE1);
        const unit1 = gl.getParameter(gl.TEXTURE_BINDING_2D) === tex;
        out.state = {
            fb: gl.getParameter(gl.FRAMEBUFFER_BINDING) === fb,
            prog: gl.getParameter(gl.CURRENT_PROGRAM) === prog,
            viewport: Array.from(gl.getParameter(gl.VIEWPORT)).join(','),
            scissor: gl.isEnabled(gl.SCISSOR_TEST) && Array.from(gl.getParameter(gl.SCISSOR_BOX)).join(',') === '0,1,2,3',
            flip: gl.getParameter(gl.UNPACK_FLIP_Y_WEBGL) === true && gl.getParameter(gl.UNPACK_ALIGNMENT) === 1,
            units: unit3 && unit1,
            error: gl.getError(),
        };
        return out;
    });
    check(/WebGL2 context required \(got null\)/.test(r.nullCtx), 'matmul(null): clear error', r.nullCtx);
    check(/WebGL2 context required \(got WebGL1\)/.test(r.webgl1), 'matmul(WebGL1): clear error', r.webgl1);
    check(/WebGL2 context required \(got null\)/.test(r.stubbed), 'matmul on a page without WebGL2', r.stubbed);
    check(/WebGL2 context required/.test(r.runnerNull), 'createRunner(null)', r.runnerNull);
    check(/EXT_color_buffer_float is not available/.test(r.noFloat), 'no EXT_color_buffer_float', r.noFloat);
    check(/\bm must be an integer/.test(r.badM), 'm = 2.5', r.badM);
    check(/\bk must be an integer/.test(r.badK), 'k = 0', r.badK);
    check(/\btransa must be true or false \(got 'N'\)/.test(r.badTrans), "transa 'N'", r.badTrans);
    check(/\ba is too short/.test(r.shortA), 'a too short', r.shortA);
    check(/\bb is too short/.test(r.shortB), 'b too short', r.shortB);
    check(/\bc must be/.test(r.noC), 'beta without c', r.noC);
    check(/\balpha must be/.test(r.badAlpha), 'alpha NaN', r.badAlpha);
    check(/unsupported.*profile=300es/.test(r.p330), 'matmul with a profile=330 variant', r.p330);
    check(r.p330err && r.p330err.status === 'unsupported' && /profile=300es/.test(r.p330err.detail),
        'matmul\'s Error carries status and detail', JSON.stringify(r.p330err));
    check(r.badKerr && r.badKerr.status === 'invalid' && /k/.test(r.badKerr.detail),
        'a bad argument\'s Error: status invalid', JSON.stringify(r.badKerr));
    check(r.result.pass, 'matmul alpha/beta/transb', JSON.stringify(r.result));
    check(r.plainArrays.pass, 'matmul with plain arrays, blend + ubo', JSON.stringify(r.plainArrays));
    const s = r.state;
    check(s.fb && s.prog && s.viewport === '1,2,3,4' && s.scissor && s.flip && s.units && s.error === 0,
        'matmul leaves the page\'s GL state', JSON.stringify(s));
    check(page.errors.length === 0, 'matmul page: no page errors', page.errors.join(' | '));
    await page.close();
}

/* The portfolio race (issue 36): it picks a verified variant and C is
 * right; a later load of the page (the same browser profile, so the same
 * localStorage) races nothing; after forgetChoices it races again; a
 * variant made to fail verification (the _corrupt hook) is never chosen,
 * none passing falls back to DEFAULT_VARIANT; a given variant races
 * nothing; a page whose localStorage throws keeps choices in memory. */
async function portfolioTests(browser, url) {
    const P = [V('mrt=2x2,mc=2x2,np=8'), V('mrt=1x4,mc=1x4,np=4,acc=blend'), 'mrt=1x1,mc=1x1' /* profile 330 */];
    const page = await open(browser, url + 'page.html');
    const call = (args) => page.evaluate(async ({P, shape, opts = {}, forget, peek}) => {
        const g = await import('/dist/glgemm.js');
        const C = await import('/t/check.js');
        await g.init({wasm: '/dist/glgemm-gen.wasm'});
        if (forget) g.forgetChoices();
        const gl = document.getElementById('c').getContext('webgl2');
        const p = C.problem({...shape, seed: 11});
        const c = await g.matmul(gl, p.a, p.b, shape.m, shape.n, shape.k, {portfolio: P, ...opts});
        const out = {judge: C.judge(p, c), choice: g.lastChoice(), def: g.DEFAULT_VARIANT};
        if (peek) {
            out.keys = [];
            try {
                for (let i = 0; i < localStorage.length; i++) out.keys.push(localStorage.key(i));
            } catch (e) {
                out.keys = String(e);
            }
            out.renderer = g.createRunner(gl).limits().unmaskedRenderer;
        }
        return out;
    }, args);
    const shape = {m: 100, n: 90, k: 70}, same = {m: 120, n: 80, k: 60}; /* one class: 128x64x64 */
    const first = await call({P, shape, forget: true, peek: true});
    const ch = first.choice;
    check(first.judge.pass, 'portfolio: the raced matmul is right', JSON.stringify(first.judge));
    check(ch && !ch.fromMemory && ch.raced.length === 3 && ch.raceMs > 0 && ch.shapeClass === '128x64x64',
        'portfolio: the first call races', JSON.stringify(ch));
    if (ch && ch.raced.length === 3) {
        const ok = ch.raced.filter((x) => x.status === 'ok');
        const fastest = ok.reduce((x, y) => (y.gflops > x.gflops ? y : x), ok[0] || {});
        check(ch.raced[2].status === 'unsupported', 'portfolio: the profile=330 entry is unsupported', JSON.stringify(ch.raced[2]));
        check(ok.length === 2 && ok.every((x) => x.relErr !== null && x.relErr <= 70 * 2 ** -23),
            'portfolio: the WebGL2 variants pass the sampled check', JSON.stringify(ch.raced));
        check(ch.variant === fastest.variant && !ch.fallback, 'portfolio: the fastest verified one is chosen', JSON.stringify(ch));
    }
    check(Array.isArray(first.keys) && first.keys.some((x) => x.startsWith('glgemm.choice/') && x.includes('/128x64x64/') &&
        x.endsWith('/' + first.renderer)), 'portfolio: remembered in localStorage by class and renderer', JSON.stringify(first.keys));
    const again = await call({P, shape: same});
    check(again.choice.fromMemory && again.choice.raced.length === 0 && again.choice.variant === ch.variant && again.judge.pass,
        'portfolio: a second call of the class races nothing', JSON.stringify(again.choice));

    await page.reload({waitUntil: 'load'});
    const later = await call({P, shape: same});
    check(later.choice.fromMemory && later.choice.raced.length === 0 && later.choice.raceMs === 0 &&
        later.choice.variant === ch.variant && later.judge.pass, 'portfolio: a later page load races nothing', JSON.stringify(later.choice));
    const other = await call({P, shape: {m: 9, n: 10, k: 300}});
    check(!other.choice.fromMemory && other.choice.raced.length === 3 && other.choice.shapeClass === '8x8x256' && other.judge.pass,
        'portfolio: another class races', JSON.stringify(other.choice));

    await page.reload({waitUntil: 'load'});
    const forgot = await call({P, shape: same, forget: true});
    check(!forgot.choice.fromMemory && forgot.choice.raced.length === 3 && forgot.judge.pass,
        'portfolio: after forgetChoices it races again', JSON.stringify(forgot.choice));

    /* The test hook: the first variant's C perturbed before the check. */
    const bad = await call({P: P.slice(0, 2), shape, opts: {_corrupt: P[0]}});
    const bc = bad.choice;
    check(bc && !bc.fromMemory && bc.raced[0].status === 'wrong_result' && bc.raced[1].status === 'ok' &&
        bc.variant === bc.raced[1].variant && bad.judge.pass, 'portfolio: a variant failing verification is never chosen', JSON.stringify(bc));
    const none = await call({P: P.slice(0, 1), shape, opts: {_corrupt: P[0]}});
    check(none.choice.fallback && none.choice.variant === none.def && none.choice.raced[0].status === 'wrong_result' && none.judge.pass,
        'portfolio: none passing: DEFAULT_VARIANT', JSON.stringify(none.choice));
    const given = await call({P, shape: {m: 5, n: 6, k: 7}, opts: {variant: P[1]}, forget: true});
    check(given.choice === null && given.judge.pass, 'portfolio: a given variant races nothing', JSON.stringify(given.choice));
    const badOpt = await page.evaluate(async () => {
        const g = await import('/dist/glgemm.js');
        const gl = document.getElementById('c').getContext('webgl2');
        const a = new Float32Array(4);
        try {
            await g.matmul(gl, a, a, 2, 2, 2, {portfolio: 'profile=300es'});
            return 'no error';
        } catch (e) {
            return e.message;
        }
    });
    check(/portfolio must be an array of variant strings/.test(badOpt), 'portfolio: a bad portfolio option', badOpt);
    const budget = await call({P, shape: {m: 33, n: 33, k: 33}, opts: {raceMs: 0}});
    check(budget.choice.raced[0].status === 'ok' && budget.choice.raced.slice(1).every((x) => x.status === 'skipped') &&
        budget.choice.variant === budget.choice.raced[0].variant, 'portfolio: raceMs 0 races the first only', JSON.stringify(budget.choice));
    /* The order: short programs first, in the portfolio's order, then the
     * long ones (np=64 unrolled: 20 KB against 2.6 KB); each raced entry
     * says where its time went. */
    const LONG = V('mrt=2x2,mc=2x2,np=64,unroll=1');
    const ord = await call({P: [P[0], LONG, P[1]], shape: {m: 17, n: 15, k: 60}, opts: {raceMs: 1e9}, forget: true});
    const oc = ord.choice, canon = (x) => x.replace(/,compiler=.*$/, '');
    check(oc && oc.raced.length === 3 && oc.raced.every((x) => x.status === 'ok') &&
        oc.raced.map((x) => canon(x.variant).includes('np=64')).join() === 'false,false,true' &&
        oc.raced.every((x) => x.ms > 0 && x.compileMs >= 0 && x.buildMs >= 0 && x.firstDrawMs >= 0 && x.compileMs <= x.ms) &&
        ord.judge.pass, 'portfolio: short programs race first, the long one last, each with its times', JSON.stringify(oc));
    /* A budget the first run spends: the rest skipped, listed after it. */
    const tight = await call({P: [LONG, P[0], P[1]], shape: {m: 40, n: 40, k: 40}, opts: {raceMs: 1}, forget: true});
    const tc = tight.choice;
    check(tc && tc.raced.length === 3 && tc.raced[0].status === 'ok' && tc.raced[0].variant.includes('np=8') &&
        tc.raced.slice(1).every((x) => x.status === 'skipped' && /would be spent/.test(x.detail)) && tight.judge.pass,
        'portfolio: raceMs 1 races the first short program only', JSON.stringify(tc));
    check(page.errors.length === 0, 'portfolio page: no page errors', page.errors.join(' | '));
    await page.close();

    /* localStorage that throws (an opaque or sandboxed origin). */
    const p2 = await browser.newPage();
    p2.errors = [];
    p2.on('pageerror', (e) => p2.errors.push(String(e && e.message || e)));
    await p2.evaluateOnNewDocument(() => {
        Object.defineProperty(window, 'localStorage', {configurable: true,
            get() { throw new DOMException('denied', 'SecurityError'); }});
    });
    await p2.goto(url + 'page.html', {waitUntil: 'load'});
    const noStore = (shape2) => p2.evaluate(async ({P, shape2}) => {
        const g = await import('/dist/glgemm.js');
        const C = await import('/t/check.js');
        await g.init({wasm: '/dist/glgemm-gen.wasm'});
        const gl = document.getElementById('c').getContext('webgl2');
        const p = C.problem(shape2);
        const c = await g.matmul(gl, p.a, p.b, shape2.m, shape2.n, shape2.k, {portfolio: P});
        g.forgetChoices(); g.lastChoice(); /* neither throws */
        const c2 = await g.matmul(gl, p.a, p.b, shape2.m, shape2.n, shape2.k, {portfolio: P});
        return {j: C.judge(p, c), j2: C.judge(p, c2), choice: g.lastChoice()};
    }, {P: P.slice(0, 2), shape2});
    const ns = await noStore({m: 20, n: 20, k: 20});
    check(ns.j.pass && ns.j2.pass && !ns.choice.fromMemory, 'portfolio without localStorage: races, right results', JSON.stringify(ns.choice));
    const ns2 = await p2.evaluate(async () => {
        const g = await import('/dist/glgemm.js');
        const gl = document.getElementById('c').getContext('webgl2');
        return g.choice(gl, 20, 20, 20, {portfolio: ['profile=300es,mrt=2x2,mc=2x2,np=8', 'profile=300es,mrt=1x4,mc=1x4,np=4,acc=blend']});
    });
    check(ns2.fromMemory && ns2.raced.length === 0, 'portfolio without localStorage: kept in the page\'s memory', JSON.stringify(ns2));
    check(p2.errors.length === 0, 'portfolio page without localStorage: no page errors', p2.errors.join(' | '));
    await p2.close();
}

function exportCmd(args, opts = {}) {
    return spawnSync(BIN, ['export', ...args], {encoding: 'utf8', ...opts});
}

/* The exported module, from a folder that is not the project's. */
async function exportTests(browser) {
    const tmp = mkdtempSync(path.join(tmpdir(), 'glgemm-webtest-'));
    try {
        const variant = 'profile=300es,mrt=2x2,mc=2x2,np=8,acc=copy';
        const ex = exportCmd([variant, '--js', path.join(tmp, 'out')]);
        check(ex.status === 0, 'export: exit 0', ex.stderr);
        if (ex.status !== 0) return;
        const canon = ex.stdout.split('\n')[0];
        const site = path.join(tmp, 'site');
        cpSync(path.join(tmp, 'out'), site, {recursive: true});
        cpSync(path.join(root, 'tests', 'web', 'check.js'), path.join(site, 'check.js'));
        cpSync(path.join(root, 'tests', 'web', 'page.html'), path.join(site, 'index.html'));
        const s = await serve({mounts: [['/', site]]});
        const page = await open(browser, s.url);
        const r = await page.evaluate(async () => {
            const g = await import('/glgemm.js'); /* its wasm: the default URL beside it */
            const C = await import('/check.js');
            const gl = document.getElementById('c').getContext('webgl2');
            const out = {def: g.DEFAULT_VARIANT, results: []};
            for (const q of [{m: 37, n: 29, k: 53}, {m: 1, n: 1, k: 1}, {m: 67, n: 5, k: 130, transa: true, alpha: -1, beta: 0.5},
                {m: 3, n: 70, k: 9, transb: true}]) {
                const p = C.problem(q);
                const c = await g.matmul(gl, p.a, p.b, q.m, q.n, q.k, {alpha: p.alpha, beta: p.beta, c: p.c0,
                    transa: p.transa, transb: p.transb});
                out.results.push({shape: `${q.m}x${q.n}x${q.k}`, ...C.judge(p, c)});
            }
            return out;
        });
        check(r.def === canon && canon.includes('acc=copy'), 'exported DEFAULT_VARIANT', `${r.def} vs ${canon}`);
        for (const x of r.results) check(x.pass, `exported module ${x.shape}`, `rel_err ${x.rel_err} (${x.why})`);
        check(page.errors.length === 0, 'exported module page: no page errors', page.errors.join(' | '));
        await page.close();
        await s.close();

        const bad = exportCmd(['mrt=2x2,mc=2x2', '--js', path.join(tmp, 'bad')]);
        check(bad.status === 2 && /profile=300es/.test(bad.stderr) && !existsSync(path.join(tmp, 'bad')),
            'export of a profile=330 variant: exit 2, nothing written', `${bad.status} ${bad.stderr}`);
        const img = exportCmd(['profile=300es,out=image,blk=4x4', '--js', path.join(tmp, 'bad')]);
        check(img.status === 2 && /out=image/.test(img.stderr), 'export out=image: exit 2', `${img.status} ${img.stderr}`);
        const dfx = exportCmd(['profile=300es,store=df,mc=1x2,np=8', '--js', path.join(tmp, 'df')]);
        const dfjs = dfx.status === 0 ? readFileSync(path.join(tmp, 'df', 'glgemm.js'), 'utf8') : '';
        check(dfx.status === 0 && /^export const DEFAULT_DF_VARIANT = "mrt=1x1,mc=1x2,np=8,unroll=0,profile=300es,compiler=glsl,acc=pingpong,store=df";$/m.test(dfjs) &&
            /^export const DEFAULT_VARIANT = "[^"]*store=f32";$/m.test(dfjs), 'export of a store=df variant: DEFAULT_DF_VARIANT, DEFAULT_VARIANT kept',
        `${dfx.status} ${dfx.stderr}`);
        const f64x = exportCmd(['profile=300es,store=f64,mc=1x1', '--js', path.join(tmp, 'bad')]);
        check(f64x.status === 2 && /store=f64 needs double arithmetic/.test(f64x.stderr) && !existsSync(path.join(tmp, 'bad')),
            'export store=f64: exit 2', `${f64x.status} ${f64x.stderr}`);
        const none = exportCmd(['best', '--card', 'no-such-card', '--js', path.join(tmp, 'bad')], {cwd: tmp});
        check(none.status === 2 && /no WebGL2-capable/.test(none.stderr) && /glgemm tune/.test(none.stderr) &&
            !existsSync(path.join(tmp, 'bad')), 'export best with no records: exit 2', `${none.status} ${none.stderr}`);
        const help = exportCmd(['--help']);
        check(help.status === 0 && /--js DIR/.test(help.stdout) && /--card SLUG/.test(help.stdout), 'export --help', help.stdout);
        const nojs = exportCmd([variant]);
        check(nojs.status === 2 && /--js/.test(nojs.stderr), 'export without --js: exit 2', nojs.stderr);
        /* A second export over the first replaces both files. */
        const again = exportCmd(['profile=300es,mc=1x4', '--js', path.join(tmp, 'out')]);
        const js = readFileSync(path.join(tmp, 'out', 'glgemm.js'), 'utf8');
        check(again.status === 0 && js.includes('export const DEFAULT_VARIANT = "mrt=1x1,mc=1x4,'), 'export over an older one', again.stderr);
        check(js.includes('\nexport const PORTFOLIO = [];\n') && !/^portfolio:/m.test(again.stdout),
            'export without --portfolio: PORTFOLIO stays empty', again.stdout);
    } finally {
        rmSync(tmp, {recursive: true, force: true});
    }
}

/* `glgemm export --portfolio` over two browser cards (this project's
 * SwiftShader records at 256^3 and a crafted second card), its folder
 * copied outside the project and imported from a page there; its exit 2
 * cases (no browser records, a bad --max). */
async function exportPortfolioTests(browser) {
    const tmp = mkdtempSync(path.join(tmpdir(), 'glgemm-portfolio-'));
    try {
        const res = path.join(tmp, 'work', 'results');
        mkdirSync(path.join(res, 'chromium-swiftshader'), {recursive: true});
        mkdirSync(path.join(res, 'chromium-fake-gpu'), {recursive: true});
        mkdirSync(path.join(res, 'llvmpipe'), {recursive: true});
        cpSync(path.join(root, 'results', 'chromium-swiftshader', 'tune-256x256x256.csv'),
            path.join(res, 'chromium-swiftshader', 'tune-256x256x256.csv'));
        const head = 'card,m,n,k,mrt,mc,np,unroll,profile,compiler,acc,store,out,blk,fetch,passes,status,seconds,gflops,rel_err\n';
        const row = (card, v, status, g) => `${card},512,512,512,${v},4,${status},0.01,${g},1e-7\n`;
        writeFileSync(path.join(res, 'chromium-fake-gpu', 'tune-512x512x512.csv'), head +
            row('chromium-fake-gpu', '2x2,2x2,8,0,300es,glsl,pingpong,f32,rt,-,texture', 'ok', 100) +
            row('chromium-fake-gpu', '1x1,1x4,16,0,300es,glsl,copy,f32,rt,-,texture', 'ok', 80) +
            row('chromium-fake-gpu', '2x4,2x2,8,0,330,glsl,pingpong,f32,rt,-,texture', 'ok', 900) + /* not WebGL2 */
            row('chromium-fake-gpu', '2x4,2x2,8,0,300es,glsl,pingpong,f16,rt,-,texture', 'ok', 800) + /* not f32 */
            row('chromium-fake-gpu', '2x4,2x2,4,0,300es,glsl,pingpong,f32,rt,-,texture', 'wrong_result', 0));
        writeFileSync(path.join(res, 'llvmpipe', 'tune-512x512x512.csv'), head +
            row('llvmpipe', '4x2,2x2,4,0,300es,glsl,pingpong,f32,rt,-,texture', 'ok', 5000)); /* not a browser card */
        const out = path.join(tmp, 'out');
        const ex = exportCmd(['--portfolio', '--js', out], {cwd: path.join(tmp, 'work')});
        check(ex.status === 0, 'export --portfolio: exit 0', ex.stderr);
        if (ex.status !== 0) return;
        const listed = [...ex.stdout.matchAll(/^ {2}\d+ {2}(\S+) {2}\(summed coverage/gm)].map((x) => x[1]);
        const fake = /^ {2}chromium-fake-gpu 512x512x512\s+([\d.]+)/m.exec(ex.stdout);
        const sw = /^ {2}chromium-swiftshader 256x256x256\s+([\d.]+)/m.exec(ex.stdout);
        check(listed.length >= 2 && listed.length <= 8 && fake && Number(fake[1]) === 1 && sw && Number(sw[1]) === 1 &&
            listed.includes('mrt=2x2,mc=2x2,np=8,unroll=0,profile=300es,compiler=glsl,acc=pingpong,store=f32') &&
            !/profile=330|store=f16|4x2,mc=2x2,np=4/.test(ex.stdout), 'export --portfolio: the chosen set and its coverage', ex.stdout);
        const one = exportCmd(['--portfolio', '--max', '1', '--js', path.join(tmp, 'one')], {cwd: path.join(tmp, 'work')});
        const oneJs = one.status === 0 ? readFileSync(path.join(tmp, 'one', 'glgemm.js'), 'utf8') : '';
        check(one.status === 0 && /^export const PORTFOLIO = \["[^"]+"\];$/m.test(oneJs) && /portfolio: 1 variant /.test(one.stdout),
            'export --portfolio --max 1: one variant', one.stdout + one.stderr);

        const site = path.join(tmp, 'site');
        cpSync(out, site, {recursive: true});
        cpSync(path.join(root, 'tests', 'web', 'check.js'), path.join(site, 'check.js'));
        cpSync(path.join(root, 'tests', 'web', 'page.html'), path.join(site, 'index.html'));
        const srv = await serve({mounts: [['/', site]]});
        const page = await open(browser, srv.url);
        const r = await page.evaluate(async () => {
            const g = await import('/glgemm.js');
            const C = await import('/check.js');
            g.forgetChoices();
            const gl = document.getElementById('c').getContext('webgl2');
            const out = {portfolio: g.PORTFOLIO, def: g.DEFAULT_VARIANT, results: []};
            for (const q of [{m: 64, n: 48, k: 80}, {m: 3, n: 70, k: 9, transb: true, alpha: 2, beta: -1}]) {
                const p = C.problem(q);
                const c = await g.matmul(gl, p.a, p.b, q.m, q.n, q.k, {alpha: p.alpha, beta: p.beta, c: p.c0,
                    transa: p.transa, transb: p.transb});
                out.results.push({shape: `${q.m}x${q.n}x${q.k}`, ...C.judge(p, c), choice: g.lastChoice()});
            }
            return out;
        });
        check(JSON.stringify(r.portfolio) === JSON.stringify(listed) && r.def === listed[0],
            'exported PORTFOLIO and DEFAULT_VARIANT', `${JSON.stringify(r.portfolio)} vs ${JSON.stringify(listed)}`);
        for (const x of r.results) {
            check(x.pass, `exported portfolio module ${x.shape}`, `rel_err ${x.rel_err} (${x.why})`);
            check(x.choice && !x.choice.fromMemory && x.choice.raced.length === listed.length && listed.includes(x.choice.variant),
                `exported portfolio module ${x.shape}: raced`, JSON.stringify(x.choice));
        }
        check(page.errors.length === 0, 'exported portfolio page: no page errors', page.errors.join(' | '));
        await page.close();
        await srv.close();

        /* tests/web/race.mjs, the measuring script for the targets, on that
         * folder at a small size. */
        const rm = spawnSync(process.execPath, [path.join(root, 'tests', 'web', 'race.mjs'), '--module', out, '--size', '48',
            '--best', listed[listed.length - 1], '--arg', '--enable-unsafe-swiftshader', '--arg', '--use-angle=swiftshader'],
        {encoding: 'utf8', timeout: 120000});
        let rj = null;
        try { rj = JSON.parse(rm.stdout.trim().split('\n').pop()); } catch { /* checked below */ }
        check(rm.status === 0 && rj && rj.renderer && listed.includes(rj.chosen) && rj.raceMs > 0 && rj.chosenGflops > 0 &&
            rj.bestGflops > 0 && Math.abs(rj.ratio - rj.chosenGflops / rj.bestGflops) < 1e-9 && rj.raced.length === listed.length,
        'tests/web/race.mjs: one JSON line', `${rm.status} ${rm.stdout} ${rm.stderr}`);
        const rbad = spawnSync(process.execPath, [path.join(root, 'tests', 'web', 'race.mjs'), '--size', '48'], {encoding: 'utf8'});
        check(rbad.status === 2 && /--module/.test(rbad.stderr), 'tests/web/race.mjs without --module: exit 2', rbad.stderr);

        const empty = path.join(tmp, 'empty');
        mkdirSync(path.join(empty, 'results', 'llvmpipe'), {recursive: true});
        const none = exportCmd(['--portfolio', '--js', path.join(tmp, 'bad')], {cwd: empty});
        check(none.status === 2 && /glgemm tune --backend browser/.test(none.stderr) && none.stderr.trim().split('\n').length === 1 &&
            !existsSync(path.join(tmp, 'bad')), 'export --portfolio without browser records: exit 2', `${none.status} ${none.stderr}`);
        for (const max of ['0', '9', 'x', '']) {
            const b = exportCmd(['--portfolio', '--max', max, '--js', path.join(tmp, 'bad')], {cwd: path.join(tmp, 'work')});
            check(b.status === 2 && /--max must be an integer from 1 to 8/.test(b.stderr) && !existsSync(path.join(tmp, 'bad')),
                `export --portfolio --max '${max}': exit 2`, `${b.status} ${b.stderr}`);
        }
        const alone = exportCmd(['profile=300es', '--max', '2', '--js', path.join(tmp, 'bad')]);
        check(alone.status === 2 && /--max goes with --portfolio/.test(alone.stderr), 'export --max without --portfolio: exit 2', alone.stderr);
        const help = exportCmd(['--help']);
        check(/--portfolio/.test(help.stdout) && /--max N/.test(help.stdout), 'export --help names --portfolio and --max', help.stdout);
    } finally {
        rmSync(tmp, {recursive: true, force: true});
    }
}

/* The example page, on a small size, with an exported module beside it:
 * one variant, then a portfolio (this project's browser records): the GPU,
 * the chosen variant and the race's cost shown; a reload races nothing. */
async function exampleTests(browser) {
    const tmp = mkdtempSync(path.join(tmpdir(), 'glgemm-example-'));
    try {
        for (const portfolio of [false, true]) {
            const tag = portfolio ? 'example (portfolio)' : 'example';
            const dir = path.join(tmp, portfolio ? 'pf' : 'one');
            const ex = exportCmd(portfolio ? ['--portfolio', '--js', dir] : ['profile=300es,mrt=2x2,mc=1x4,np=16', '--js', dir],
                {cwd: root});
            check(ex.status === 0, `${tag}: export`, ex.stderr);
            const s = await serve({mounts: [['/', path.join(root, 'web', 'example')], ['/glgemm', dir],
                ['/tfjs', path.join(root, 'web', 'node_modules', '@tensorflow', 'tfjs', 'dist')]]});
            const page = await open(browser, s.url + '?size=96&model=64x3x32');
            const look = async () => {
                await page.waitForFunction(() => document.body.dataset.done || document.body.dataset.error, {timeout: 90000});
                return page.evaluate(() => ({done: document.body.dataset.done, error: document.body.dataset.error,
                    rows: window.exampleResult, choice: window.exampleChoice, text: document.getElementById('out').innerText,
                    model: window.exampleModel, modelText: document.getElementById('model').innerText,
                    shown: ['gpu', 'chosen', 'race'].map((id) => document.getElementById(id).innerText)}));
            };
            const r = await look();
            check(r.done === '1' && !r.error, `${tag} page finishes`, r.error);
            check(r.rows && r.rows.length === 3, `${tag}: glgemm rows and the tfjs row`, JSON.stringify(r.rows));
            for (const x of r.rows || [])
                check(x.gflops > 0 && x.err < 1e-4, `${tag} row '${x.what}'`, JSON.stringify(x));
            check(/GFLOP\/s/.test(r.text) && /tf\.matMul/.test(r.text), `${tag} shows the table`, r.text);
            const md = r.model || {};
            check(md.tfjsMs > 0 && md.glgemmMs > 0 && md.rel <= 1e-5 && (portfolio || md.served > 0),
                `${tag}: the model part, with and without glgemm-tfjs.js`, JSON.stringify(md));
            check(/with glgemm-tfjs\.js/.test(r.modelText || '') && /TensorFlow\.js alone/.test(r.modelText || ''),
                `${tag} shows the model's table`, r.modelText);
            const ch = r.choice || {};
            check(ch.renderer && r.shown[0] === ch.renderer && r.shown[1] === ch.variant && r.rows[0].variant === ch.variant,
                `${tag} shows the GPU and the variant`, JSON.stringify(r.shown));
            if (portfolio) {
                check(ch.portfolio > 0 && ch.fromMemory === false && ch.raced.length === ch.portfolio && ch.raceMs > 0 &&
                    /raced \d+ of \d+ variants .*: \d+ ms/.test(r.shown[2]), `${tag}: raced, its cost shown`, JSON.stringify(ch) + r.shown[2]);
                await page.reload({waitUntil: 'load'});
                const again = await look();
                check(again.choice && again.choice.fromMemory === true && again.choice.variant === ch.variant &&
                    /no race now/.test(again.shown[2]), `${tag}: a reload races nothing`, JSON.stringify(again.choice));
            } else {
                check(ch.portfolio === 0 && /no portfolio/.test(r.shown[2]), `${tag}: no race without a portfolio`, r.shown[2]);
            }
            check(page.errors.length === 0, `${tag} page: no page errors`, page.errors.join(' | '));
            await page.close();
            await s.close();
        }
    } finally {
        rmSync(tmp, {recursive: true, force: true});
    }
}

/* The browser worker's protocol (web/worker/worker.mjs, as eval/browser.c
 * drives it), with the runtime and with the stub: every answer has one
 * shape, {status, detail, ok, ..., bytes}; run's times in seconds. */
function workerClient(env) {
    const w = spawn(process.execPath, [path.join(root, 'web', 'worker', 'worker.mjs')],
        {env: {...process.env, ...env}, stdio: ['pipe', 'pipe', 'pipe']});
    let buf = Buffer.alloc(0), waiting = null, stderr = '';
    w.stderr.on('data', (d) => { stderr += d; });
    const pump = () => {
        if (!waiting) return;
        const nl = buf.indexOf(10);
        if (nl < 0) return;
        const msg = JSON.parse(buf.subarray(0, nl).toString('utf8'));
        if (buf.length < nl + 1 + msg.bytes) return;
        const body = buf.subarray(nl + 1, nl + 1 + msg.bytes);
        buf = buf.subarray(nl + 1 + msg.bytes);
        const ok = waiting;
        waiting = null;
        ok({msg, body: Buffer.from(body)});
    };
    w.stdout.on('data', (d) => { buf = Buffer.concat([buf, d]); pump(); });
    const ask = (req, bytes) => new Promise((ok, fail) => {
        waiting = ok;
        const t = setTimeout(() => fail(new Error(`worker: no answer to ${req.op} in 60 s: ${stderr}`)), 60000);
        waiting = (x) => { clearTimeout(t); ok(x); };
        w.stdin.write(JSON.stringify(bytes ? {...req, bytes: bytes.length} : req) + '\n');
        if (bytes) w.stdin.write(bytes);
        pump();
    });
    const quit = () => new Promise((ok) => {
        w.on('exit', ok);
        w.stdin.write('{"op":"quit"}\n');
    });
    return {ask, quit, stderr: () => stderr};
}

async function workerTests() {
    const chromium = process.env.GLGEMM_CHROMIUM || '/usr/bin/chromium';
    const shape = (tag, msg, extra) => check(typeof msg.status === 'string' && typeof msg.detail === 'string' &&
        msg.ok === (msg.status === 'ok') && typeof msg.bytes === 'number' && extra.every((key) => key in msg),
        `worker ${tag}: one answer shape`, JSON.stringify(msg).slice(0, 300));
    const bad = workerClient({});
    const refused = await bad.ask({op: 'hello', browser: chromium, angle: 'bogus'});
    shape('hello refused', refused.msg, ['why']);
    check(refused.msg.status === 'invalid' && refused.msg.why === 'bad_angle' && /unknown ANGLE backend 'bogus'/.test(refused.msg.detail),
        'worker: a bad --angle refused', JSON.stringify(refused.msg));
    await bad.quit();
    const m = 7, n = 5, k = 9, alpha = 0.5, beta = 2;
    const a = new Float32Array(m * k).map((_, i) => ((i * 7) % 11) / 11 - 0.5);
    const b = new Float32Array(k * n).map((_, i) => ((i * 5) % 13) / 13 - 0.5);
    const c0 = new Float32Array(m * n).map((_, i) => ((i * 3) % 7) / 7 - 0.5);
    for (const [tag, env] of [['runtime', {}], ['stub', {GLGEMM_BROWSER_RUNTIME: 'stub'}]]) {
        const w = workerClient(env);
        try {
            const hello = await w.ask({op: 'hello', browser: chromium, headful: false, angle: 'swiftshader'});
            shape(`${tag} hello`, hello.msg, ['info']);
            check(hello.msg.status === 'ok' && hello.msg.info && hello.msg.info.maxDrawBuffers >= 1 && hello.msg.info.maxTextureSize >= 2048,
                `worker ${tag}: hello`, JSON.stringify(hello.msg).slice(0, 300) + w.stderr());
            if (hello.msg.status !== 'ok') continue;
            const body = Buffer.concat([a, b, c0].map((x) => Buffer.from(x.buffer)));
            const inp = await w.ask({op: 'inputs', m, n, k, transa: false, transb: false, na: a.length, nb: b.length, nc: c0.length}, body);
            shape(`${tag} inputs`, inp.msg, []);
            check(inp.msg.status === 'ok', `worker ${tag}: inputs`, JSON.stringify(inp.msg));
            const run = await w.ask({op: 'run', variant: 'profile=300es,mrt=1x2,mc=2x2,np=3,acc=copy', alpha, beta, reps: 3});
            const r = run.msg;
            shape(`${tag} run`, r, ['passes', 'compile_s', 'upload_s', 'seconds', 'median_s', 'readback_s']);
            check(r.status === 'ok' && r.seconds.length === 3 && r.seconds.every((x) => x > 0 && x < 60) && r.median_s > 0 && r.median_s < 60 &&
                r.compile_s >= 0 && r.compile_s < 60 && r.upload_s >= 0 && r.readback_s >= 0 && r.bytes === 4 * m * n &&
                !('trace' in r) && !('posted' in r), `worker ${tag}: run's answer in seconds`, JSON.stringify(r));
            if (r.bytes === 4 * m * n) {
                const c = new Float32Array(run.body.buffer, run.body.byteOffset, m * n);
                let worst = 0;
                for (let i = 0; i < m; i++)
                    for (let j = 0; j < n; j++) {
                        let s = 0;
                        for (let q = 0; q < k; q++) s += a[i * k + q] * b[q * n + j];
                        worst = Math.max(worst, Math.abs(c[i * n + j] - (alpha * s + beta * c0[i * n + j])));
                    }
                check(worst < 1e-5, `worker ${tag}: run's C`, `worst ${worst}`);
            }
            const no = await w.ask({op: 'run', variant: 'mrt=1x1,mc=1x1', alpha: 1, beta: 0, reps: 2});
            shape(`${tag} run refused`, no.msg, ['seconds', 'median_s']);
            check(no.msg.status === 'unsupported' && /GLSL ES 3\.00 only/.test(no.msg.detail) && no.msg.bytes === 0,
                `worker ${tag}: a profile=330 variant`, JSON.stringify(no.msg));
            if (tag === 'runtime') {
                const tf = await w.ask({op: 'tfjs', alpha, beta, reps: 2, backend: 'webgl'});
                shape('tfjs', tf.msg, ['passes', 'compile_s', 'upload_s', 'seconds', 'median_s', 'readback_s']);
                check(tf.msg.status === 'ok' && tf.msg.seconds.length === 2 && tf.msg.median_s > 0 && tf.msg.bytes === 4 * m * n &&
                    /^tfjs /.test(tf.msg.detail), 'worker: tfjs answers as run does', JSON.stringify(tf.msg));
            }
            const unknown = await w.ask({op: 'bogus'});
            shape(`${tag} unknown op`, unknown.msg, []);
            check(unknown.msg.status === 'invalid' && /unknown op 'bogus'/.test(unknown.msg.detail), `worker ${tag}: an unknown op`, JSON.stringify(unknown.msg));
        } finally {
            await w.quit();
        }
    }
}

/* Double-float on one page: cases of run() and matmul on Float64Arrays. */
const dfCases = [
    {name: 'matmul, DEFAULT_DF_VARIANT', ...odd, matmul: true},
    {name: 'matmul mrt=2x2 mc=1x2 np=4 (7 passes) transa alpha beta', variant: V('mrt=2x2,mc=1x2,np=4,store=df'), ...odd,
        transa: true, alpha: -0.75, beta: 1.5, matmul: true},
    {name: 'run mrt=2x2 mc=1x2 np=4 (7 passes) alpha beta', variant: V('mrt=2x2,mc=1x2,np=4,store=df'), ...odd,
        alpha: 0.5, beta: -2, passes: 7},
    {name: 'mrt=1x1 mc=1x1 np=5 (11 passes) transb beta', variant: V('mrt=1x1,mc=1x1,np=5,store=df'), ...odd, transb: true, beta: 2, passes: 11},
    {name: 'mrt=2x1 mc=2x1 np=3 texelfetch transa transb', variant: V('mrt=2x1,mc=2x1,np=3,store=df,fetch=texelfetch'), ...odd,
        transa: true, transb: true, alpha: 3.25},
    {name: 'mrt=1x4 mc=1x2 np=4 unroll=1', variant: V('mrt=1x4,mc=1x2,np=4,unroll=1,store=df'), m: 45, n: 33, k: 70},
    {name: 'alpha=0 beta=-0.5', variant: V('mrt=2x2,mc=1x2,np=8,store=df'), m: 9, n: 11, k: 13, alpha: 0, beta: -0.5},
    {name: '1x1x1', variant: V('mc=1x1,store=df'), m: 1, n: 1, k: 1, alpha: 0.5, beta: 1},
    {name: 'split (texture limit 8) alpha beta transb', variant: V('mrt=2x2,mc=1x2,np=2,store=df'), ...odd, transb: true,
        alpha: 1.25, beta: -1, maxTextureSize: 8},
];

async function dfTests(browser, url) {
    const page = await open(browser, url + 'page.html');
    await page.evaluate(async () => {
        const g = await import('/dist/glgemm.js');
        const C = await import('/t/check.js');
        await g.init({wasm: '/dist/glgemm-gen.wasm'});
        const gl = document.getElementById('c').getContext('webgl2');
        window.T = {g, C, gl, R: g.createRunner(gl)};
    });
    for (const c of dfCases) {
        if (only && !only.test('df ' + c.name)) continue;
        const r = await page.evaluate(async (c) => {
            const {g, C, gl, R} = window.T;
            const p = C.problem64({...c, seed: 21});
            const o = {alpha: c.alpha, beta: c.beta, transa: c.transa, transb: c.transb, c: p.c0};
            let out;
            try {
                if (c.matmul) {
                    const cc = await g.matmul(gl, p.a, p.b, c.m, c.n, c.k, c.variant ? {...o, variant: c.variant} : o);
                    out = {status: 'ok', c: cc};
                } else {
                    const how = {variant: c.variant, m: c.m, n: c.n, k: c.k, ...o, a: p.a, b: p.b};
                    out = c.maxTextureSize ? await R.bench({...how, reps: 1, maxTextureSize: c.maxTextureSize}) : await R.run(how);
                }
            } catch (e) {
                return {status: e.status, detail: e.detail};
            }
            if (out.status !== 'ok') return {status: out.status, detail: out.detail};
            return {status: 'ok', passes: out.passes, type: out.c.constructor.name, ...C.judgeDf(p, out.c),
                fp32: C.judgeDf(p, C.fp32Result(p))};
        }, c);
        check(r.status === 'ok', `df ${c.name}`, `${r.status} (${r.detail})`);
        if (r.status !== 'ok') continue;
        check(r.type === 'Float64Array', `df ${c.name}: C is a Float64Array`, r.type);
        check(r.pass, `df ${c.name}: within k 2^-44`, `rel_err ${r.rel_err} > ${r.limit} (${r.why})`);
        if (c.k > 1) check(!r.fp32.pass, `df ${c.name}: fp32's answer would fail`, JSON.stringify(r.fp32));
        if (c.passes) check(r.passes === c.passes, `df ${c.name}: passes`, `${r.passes}`);
        console.log(`  df ${c.name}: rel_err ${r.rel_err.toExponential(2)} (2^${Math.log2(r.rel_err || 2 ** -200).toFixed(1)}), bound ${r.limit.toExponential(2)}`);
    }
    if (!only || only.test('df api')) await dfApi(page);
    check(page.errors.length === 0, 'df page: no page errors', page.errors.join(' | '));
    await page.close();
}

/* What fp32 cannot hold, the rules of the arrays, the sampled check. */
async function dfApi(page) {
    const r = await page.evaluate(async () => {
        const {g, C, gl, R} = window.T;
        const thrown = async (f) => {
            try {
                await f();
                return null;
            } catch (e) {
                return {status: e.status, detail: e.detail, message: e.message};
            }
        };
        const out = {def: g.DEFAULT_DF_VARIANT};
        /* 1 + 2^-30 + 2^-40 (fp32 keeps 1) and (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60 */
        const sum = await g.matmul(gl, new Float64Array([1, 2 ** -30, 2 ** -40]), new Float64Array([1, 1, 1]), 1, 1, 3);
        out.sum = sum[0] - 1;
        const sq = await g.matmul(gl, new Float64Array([1 + 2 ** -30]), new Float64Array([1 + 2 ** -30]), 1, 1, 1);
        out.sq = sq[0] - 1;
        /* alpha and beta as doubles, C0 a Float32Array or a plain array */
        const ab = await g.matmul(gl, new Float64Array([1]), new Float64Array([1]), 1, 1, 1,
            {alpha: 1 + 2 ** -35, beta: 2 ** -33, c: new Float32Array([1])});
        out.ab = ab[0] - 1;
        const plainC = await g.matmul(gl, new Float64Array([2]), new Float64Array([3]), 1, 1, 1, {beta: 1, c: [2 ** -40]});
        out.plainC = plainC[0] - 6;
        const f64 = new Float64Array(12), f32 = new Float32Array(12);
        out.mixed = await thrown(() => g.matmul(gl, f64, f32, 3, 4, 3));
        out.mixed2 = await thrown(() => g.matmul(gl, [1, 2, 3], f64, 1, 4, 3));
        out.f32df = await thrown(() => g.matmul(gl, f32, f32, 3, 4, 3, {variant: 'profile=300es,mc=1x1,store=df'}));
        out.f64f32 = await thrown(() => g.matmul(gl, f64, f64, 3, 4, 3, {variant: 'profile=300es,mc=1x1'}));
        out.f64dd = await thrown(() => g.matmul(gl, f64, f64, 3, 4, 3, {variant: 'profile=300es,mc=1x1,store=dd'}));
        out.mc2x2 = await thrown(() => g.matmul(gl, f64, f64, 3, 4, 3, {variant: 'profile=300es,mc=2x2,store=df'}));
        out.blend = await thrown(() => g.matmul(gl, f64, f64, 3, 4, 3, {variant: 'profile=300es,mc=1x2,acc=blend,store=df'}));
        out.short = await thrown(() => g.matmul(gl, f64.subarray(0, 5), f64, 3, 4, 3));
        out.noC = await thrown(() => g.matmul(gl, f64, f64, 3, 4, 3, {beta: 1}));
        /* k past the texture limit: k blocks, each its passes */
        const long = await R.run({variant: 'profile=300es,mc=1x1,np=all,store=df', m: 1, n: 1, k: 100000,
            a: new Float64Array(100000).fill(1 + 2 ** -30), b: new Float64Array(100000).fill(1)});
        out.long = {status: long.status, detail: long.detail, passes: long.passes, d: long.c && long.c[0] - 100000 * (1 + 2 ** -30)};
        out.check = R.check('profile=300es,mrt=2x2,mc=1x2,store=df');
        /* f32 untouched: Float32Arrays still give a Float32Array */
        const q = C.problem({m: 7, n: 5, k: 9, seed: 3});
        const c32 = await g.matmul(gl, q.a, q.b, 7, 5, 9);
        out.f32 = {type: c32.constructor.name, judge: C.judge(q, c32)};
        /* The sampled check (not page API): a C off by 2^-30 of one sampled
         * element, as a compiler that breaks the error-free sums leaves
         * it, is refused as wrong_result; the right one passes. */
        const p = C.problem64({m: 37, n: 29, k: 53, alpha: 0.5, beta: 2, seed: 4});
        const good = await R.run({variant: 'profile=300es,mrt=2x2,mc=1x2,np=4,store=df', m: 37, n: 29, k: 53, alpha: 0.5, beta: 2,
            a: p.a, b: p.b, c: p.c0});
        const s = {m: 37, n: 29, k: 53, alpha: 0.5, beta: 2, transa: false, transb: false, srcA: p.a, srcB: p.b, o: {c: p.c0},
            L: {tr: 2, tc: 2, r: 1, c: 2}};
        const verify = (c) => { try { R.verifyWide(s, c); return 'ok'; } catch (e) { return `${e.status}: ${e.detail}`; } };
        out.verifyGood = verify(good.c);
        const bad = good.c.slice();
        bad[1 * 29 + 3] *= 1 + 2 ** -30; /* C[1][3]: target 3 of fragment 0, always sampled */
        out.verifyBad = verify(bad);
        out.verifyFp32 = verify(C.fp32Result(p));
        return out;
    });
    check(r.def === 'mrt=2x2,mc=1x2,np=64,unroll=0,profile=300es,compiler=glsl,acc=pingpong,store=df,fetch=texelfetch', 'DEFAULT_DF_VARIANT', r.def);
    check(Math.abs(r.sum - (2 ** -30 + 2 ** -40)) <= 2 ** -46, 'df: 1 + 2^-30 + 2^-40 (fp32 keeps 1)', `${r.sum}`);
    check(Math.abs(r.sq - (2 ** -29 + 2 ** -60)) <= 2 ** -47, 'df: (1 + 2^-30)^2 (fp32 rounds to 1 + 2^-29 at best)', `${r.sq}`);
    check(Math.abs(r.ab - (2 ** -35 + 2 ** -33)) <= 2 ** -46, 'df: alpha and beta as doubles, C0 a Float32Array', `${r.ab}`);
    check(Math.abs(r.plainC - 2 ** -40) <= 2 ** -45, 'df: C0 a plain array', `${r.plainC}`);
    const inv = (e, re, name) => check(e && e.status === 'invalid' && re.test(e.detail), name, JSON.stringify(e));
    inv(r.mixed, /^a is Float64Array and b Float32Array: pass both as Float64Arrays/, 'df: mixed Float64Array and Float32Array: invalid');
    inv(r.mixed2, /^a is Array and b Float64Array/, 'df: a plain array and a Float64Array: invalid');
    inv(r.f32df, /^store=df multiplies doubles: pass a and b as Float64Arrays \(a is Float32Array\)$/, 'df: a store=df variant on Float32Arrays: invalid');
    inv(r.f64f32, /^Float64Arrays multiply in double-float: the variant must be store=df/, 'df: Float64Arrays with a store=f32 variant: invalid');
    inv(r.f64dd, /store=df/, 'df: Float64Arrays with store=dd: invalid');
    check(r.mc2x2 && r.mc2x2.status === 'invalid' && /mc=2x2/.test(r.mc2x2.detail), 'df: mc=2x2 (8 words a texel): invalid', JSON.stringify(r.mc2x2));
    check(r.blend && r.blend.status === 'invalid' && /acc=pingpong/.test(r.blend.detail), 'df: acc=blend: invalid', JSON.stringify(r.blend));
    inv(r.short, /^a is too short/, 'df: a too short');
    inv(r.noC, /^c must be a Float64Array/, 'df: beta without c');
    check(r.long.status === 'ok' && r.long.passes > 1 && Math.abs(r.long.d) <= 100000 * 2 ** -46,
        'df: k = 100000, past the texture limit: k blocks, 1e5 (1 + 2^-30)', JSON.stringify(r.long));
    check(r.check.status === 'ok', 'df: check() says ok', JSON.stringify(r.check));
    check(r.f32.type === 'Float32Array' && r.f32.judge.pass, 'df: Float32Arrays still fp32, a Float32Array', JSON.stringify(r.f32));
    check(r.verifyGood === 'ok', 'df: the sampled check passes a right C', r.verifyGood);
    check(/^wrong_result: store=df: C\[1\]\[3\] = .* past double-float's bound k 2\^-44/.test(r.verifyBad),
        'df: the sampled check refuses a C off by 2^-30 in one element', r.verifyBad);
    check(/^wrong_result/.test(r.verifyFp32), 'df: the sampled check refuses an fp32 answer', r.verifyFp32);
}

/* Chromium over this machine's EGL (llvmpipe where there is no GPU): df
 * is right there, or refused as wrong_result (a compiler that breaks the
 * error-free sums): never a wrong C.  Skipped where no such page comes up. */
async function dfLlvmpipe(url) {
    const b = await launch(['--use-angle=gl-egl', '--ignore-gpu-blocklist']);
    try {
        const page = await open(b, url + 'page.html');
        const r = await page.evaluate(async () => {
            const g = await import('/dist/glgemm.js');
            const C = await import('/t/check.js');
            await g.init({wasm: '/dist/glgemm-gen.wasm'});
            const gl = document.getElementById('c').getContext('webgl2');
            if (!gl) return {renderer: null};
            const dbg = gl.getExtension('WEBGL_debug_renderer_info');
            const out = {renderer: dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER), runs: []};
            for (const v of [g.DEFAULT_DF_VARIANT, 'profile=300es,mrt=1x1,mc=1x1,np=5,store=df']) {
                const p = C.problem64({m: 37, n: 29, k: 53, alpha: 0.5, beta: 2, seed: 8});
                try {
                    const c = await g.matmul(gl, p.a, p.b, 37, 29, 53, {alpha: 0.5, beta: 2, c: p.c0, variant: v});
                    out.runs.push({variant: v, status: 'ok', ...C.judgeDf(p, c)});
                } catch (e) {
                    out.runs.push({variant: v, status: e.status, detail: e.detail});
                }
            }
            return out;
        });
        await page.close();
        if (!r.renderer || !/llvmpipe/i.test(r.renderer)) {
            console.log(`  df on llvmpipe: skipped (Chromium with --use-angle=gl-egl came up on ${r.renderer})`);
            return;
        }
        for (const x of r.runs) {
            check(x.status === 'ok' ? x.pass : x.status === 'wrong_result' && /double-float/.test(x.detail),
                `df on ${r.renderer}: right or refused (${x.variant})`, JSON.stringify(x));
            console.log(`  df on llvmpipe (ANGLE gl-egl), ${x.variant}: ${x.status}${x.status === 'ok' ? ` rel_err ${x.rel_err.toExponential(2)}` : ''}`);
        }
    } finally {
        await b.close();
    }
}

const s = await serve({mounts: [['/', path.join(root, 'tests', 'web')], ['/t', path.join(root, 'tests', 'web')],
    ['/src', path.join(root, 'web', 'src')], ['/dist', path.join(root, 'web', 'dist')]]});
const browser = await launch();
try {
    const part = async (name, f) => {
        const t = Date.now();
        await f();
        console.log(`  ${name}: ${((Date.now() - t) / 1e3).toFixed(1)} s`);
    };
    await part('runner', () => runnerTests(browser, s.url));
    if (!only || only.test('matmul')) await part('matmul', () => matmulTests(browser, s.url));
    if (!only || only.test('portfolio')) await part('portfolio', () => portfolioTests(browser, s.url));
    if (!only || only.test('export')) await part('export', () => exportTests(browser));
    if (!only || only.test('export') || only.test('portfolio')) await part('export --portfolio', () => exportPortfolioTests(browser));
    if (!only || only.test('example')) await part('example', () => exampleTests(browser));
    if (!only || only.test('worker')) await part('worker', () => workerTests());
    if (!only || only.test('df')) await part('df', () => dfTests(browser, s.url));
    if (!only || only.test('df')) await part('df on llvmpipe', () => dfLlvmpipe(s.url));
} catch (e) {
    check(false, 'web tests ran to the end', e.stack || String(e));
} finally {
    await browser.close();
    await s.close();
}
console.log(`web tests: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1e3).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
