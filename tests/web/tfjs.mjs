/* tests/web/tfjs.mjs: glgemm-tfjs.js (issue 39) in headless Chromium
 * (SwiftShader by default; --arg FLAG adds Chromium flags, e.g.
 * --arg --use-angle=gl-egl for llvmpipe), run by tests/web/run.sh:
 *  1. each kernel case (odd shapes, transposes, batch broadcasting, every
 *     fused activation with and without bias) and a dense model and an
 *     attention block: glgemm's outputs against TensorFlow.js's own on the
 *     same inputs (max |diff| / max |ref| <= 1e-5), then after unregister
 *     TensorFlow.js's results again bit for bit; with the default variant,
 *     two others, and blocks split past a lowered texture limit;
 *  2. tf.memory() stable over 100 predict calls;
 *  3. int32 and a lost context fall back, each said once;
 *  4. the npm package `glgemm export --js DIR` writes (GLGEMM_BIN): its
 *     files, package.json's exports and peer dependency, and tsc on the
 *     .d.ts files and on a consumer importing 'glgemm' and 'glgemm/tfjs'
 *     with TensorFlow.js's types, when web/node_modules has typescript
 *     (else a line saying it skipped);
 *  5. a page that is not the project's (an exported folder with its own
 *     copy of TensorFlow.js, served alone) registers the module and gets
 *     TensorFlow.js's outputs, its products served by glgemm.
 * --bench [dense|encoder] [full|small] [REPS] [--variant V]: also times
 * bench's model (web/worker/models.mjs) with read-back, tfjs alone and
 * with glgemm (V, else the module's default).
 * Exit 0 when every check passes; each failure prints one line. */
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import {spawnSync} from 'node:child_process';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createRequire} from 'node:module';
import {open, serve, root} from './lib.mjs';

const args = process.argv.slice(2);
const extra = [];
let bench = null, variantArg = null;
for (let i = 0; i < args.length; i++) {
    if (args[i] === '--arg') extra.push(args[++i]);
    else if (args[i] === '--bench') {
        bench = {name: 'dense', scale: 'full'};
        if (/^(dense|encoder)$/.test(args[i + 1] || '')) bench.name = args[++i];
        if (/^(full|small)$/.test(args[i + 1] || '')) bench.scale = args[++i];
        if (/^[0-9]+$/.test(args[i + 1] || '')) bench.reps = +args[++i];
    }
    else if (args[i] === '--variant') {
        variantArg = args[++i];
    }
}
let failed = 0, passed = 0;
const t0 = Date.now();
function check(cond, name, info = '') {
    if (cond) passed++;
    else {
        failed++;
        console.log(`FAIL tfjs: ${name}${info ? ': ' + info : ''}`);
    }
}

const require = createRequire(path.join(root, 'web', 'package.json'));
const puppeteer = require('puppeteer-core');
const flags = extra.length ? ['--ignore-gpu-blocklist', ...extra] : ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'];
const browser = await puppeteer.launch({
    executablePath: process.env.GLGEMM_CHROMIUM || '/usr/bin/chromium', headless: true, pipe: true,
    args: ['--no-sandbox', '--enable-unsafe-swiftshader', ...flags, '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const s = await serve({mounts: [['/', path.join(root, 'tests', 'web')], ['/t', path.join(root, 'tests', 'web')],
    ['/dist', path.join(root, 'web', 'dist')],
    ['/tfjs', path.join(root, 'web', 'node_modules', '@tensorflow', 'tfjs', 'dist')],
    ['/worker', path.join(root, 'web', 'worker')]]});

async function page() {
    const p = await open(browser, s.url + 'page.html');
    p.warnings = [];
    p.on('console', (m) => { if (m.type() === 'warn' || m.type() === 'warning') p.warnings.push(m.text()); });
    await p.addScriptTag({url: '/tfjs/tf.min.js'});
    await p.addScriptTag({url: '/t/tfjs-page.js', type: 'module'});
    await p.waitForFunction('window.pageReady === true', {timeout: 60000});
    return p;
}

const part = async (name, f) => {
    const t = Date.now();
    await f();
    console.log(`  tfjs ${name}: ${((Date.now() - t) / 1e3).toFixed(1)} s`);
};

function kernels(tag, r, bound = 1e-5) {
    check(r.reg && typeof r.reg.variant === 'string', `${tag}: register`, JSON.stringify(r.reg));
    check(r.warnings.length === 0, `${tag}: nothing fell back`, r.warnings.join(' | '));
    check(r.info && r.info.served >= r.out.length && r.info.fellBack === 0, `${tag}: calls served by glgemm`, JSON.stringify(r.info));
    for (const x of r.out) {
        check(x.rel <= bound, `${tag}: ${x.name}`, `max |diff| / max |ref| ${x.rel}`);
        check(x.restored, `${tag}: ${x.name}: unregister gives tfjs's results bit for bit`);
    }
    check(r.glError === 0, `${tag}: no GL error left`, r.glError);
}

/* The exported folder as an npm package: export writes its files, the
 * package.json's exports name them, and tsc checks the declarations and
 * a consumer that imports both modules by the package's name. */
function packageTests() {
    const BIN = process.env.GLGEMM_BIN || path.join(root, 'glgemm');
    const tmp = mkdtempSync(path.join(tmpdir(), 'glgemm-pkg-'));
    try {
        const dir = path.join(tmp, 'mod');
        const env = {...process.env};
        if (!existsSync(path.join(path.dirname(BIN), 'web', 'dist', 'glgemm.d.ts'))) env.GLGEMM_WEB_DIR = path.join(root, 'web', 'dist');
        const ex = spawnSync(BIN, ['export', 'tfjs,profile=300es', '--js', dir], {env, encoding: 'utf8'});
        check(ex.status === 0, 'package: export', ex.stderr);
        if (ex.status !== 0) return;
        const files = ['glgemm.js', 'glgemm-gen.wasm', 'glgemm-tfjs.js', 'glgemm.d.ts', 'glgemm-tfjs.d.ts', 'package.json'];
        for (const f of files) check(existsSync(path.join(dir, f)), `package: export wrote ${f}`);
        check(/npm install/.test(ex.stdout), 'package: export says it is an npm package', ex.stdout);
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
        check(pkg.type === 'module' && pkg.exports['.'].default === './glgemm.js' && pkg.exports['.'].types === './glgemm.d.ts' &&
            pkg.exports['./tfjs'].default === './glgemm-tfjs.js' && pkg.exports['./tfjs'].types === './glgemm-tfjs.d.ts',
            'package: exports of both modules with their types', JSON.stringify(pkg.exports));
        check(pkg.peerDependencies && pkg.peerDependencies['@tensorflow/tfjs-core'] && !pkg.dependencies,
            'package: TensorFlow.js a peer dependency only', JSON.stringify(pkg.peerDependencies));
        check(pkg.files.every((f) => existsSync(path.join(dir, f))), 'package: its files are all there', JSON.stringify(pkg.files));
        const tsc = path.join(root, 'web', 'node_modules', 'typescript', 'bin', 'tsc');
        if (!existsSync(tsc)) {
            console.log('  tfjs package: tsc skipped: web/node_modules has no typescript (cd web && npm install)');
            return;
        }
        const decl = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--lib', 'es2022,dom', '--target', 'es2022',
            path.join(dir, 'glgemm.d.ts'), path.join(dir, 'glgemm-tfjs.d.ts')], {encoding: 'utf8'});
        check(decl.status === 0, 'package: tsc --strict on the .d.ts files', decl.stdout + decl.stderr);
        /* a consumer: the package under node_modules/glgemm (as npm install
         * DIR links it), TensorFlow.js from web/node_modules */
        const app = path.join(tmp, 'app');
        mkdirSync(path.join(app, 'node_modules'), {recursive: true});
        cpSync(dir, path.join(app, 'node_modules', 'glgemm'), {recursive: true});
        symlinkSync(path.join(root, 'web', 'node_modules', '@tensorflow'), path.join(app, 'node_modules', '@tensorflow'));
        writeFileSync(path.join(app, 'package.json'), JSON.stringify({name: 'app', private: true, type: 'module'}));
        writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({compilerOptions: {strict: true, noEmit: true,
            module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: true},
            files: ['app.ts']}));
        writeFileSync(path.join(app, 'app.ts'), `
import {init, matmul, createRunner, DEFAULT_VARIANT, DEFAULT_DF_VARIANT, PORTFOLIO, choice, type RunOnTexturesResult} from 'glgemm';
import {register, unregister, registered} from 'glgemm/tfjs';
import * as tf from '@tensorflow/tfjs-core';
export async function main(gl: WebGL2RenderingContext): Promise<number> {
    await init();
    const c: Float32Array = await matmul(gl, new Float32Array(6), new Float32Array(6), 2, 3, 3, {transb: true});
    const d: Float64Array = await matmul(gl, new Float64Array(6), new Float64Array(6), 2, 3, 3, {variant: DEFAULT_DF_VARIANT});
    // @ts-expect-error: Float64Arrays give a Float64Array
    const e: Float32Array = await matmul(gl, new Float64Array(6), new Float64Array(6), 2, 3, 3);
    const r = createRunner(gl);
    const t = gl.createTexture();
    if (!t) return 0;
    const x: RunOnTexturesResult = r.runOnTextures({m: 1, n: 1, k: 1, a: {texture: t, width: 1}, b: {texture: t, width: 1},
        activation: 'relu', bias: {texture: t, width: 1, strides: [0, 0, 1]}});
    const ch = await choice(gl, 64, 64, 64);
    const reg = await register(tf, {variant: DEFAULT_VARIANT, warn: (w: string) => console.log(w)});
    const n: number = registered()?.served ?? 0;
    unregister();
    // @ts-expect-error: an option register() does not take
    await register(tf, {bogus: 1});
    // @ts-expect-error: not an activation
    r.runOnTextures({m: 1, n: 1, k: 1, a: {texture: t, width: 1}, b: {texture: t, width: 1}, activation: 'tanh'});
    return c.length + d.length + e.length + x.width + n + PORTFOLIO.length + ch.raceMs + (reg.variant ? 1 : 0);
}
`);
        const cons = spawnSync(process.execPath, [tsc, '-p', app], {encoding: 'utf8'});
        check(cons.status === 0, 'package: tsc on a consumer importing glgemm and glgemm/tfjs with TensorFlow.js', cons.stdout + cons.stderr);
    } finally {
        rmSync(tmp, {recursive: true, force: true});
    }
}

/* A page that is not the project's: a folder with the exported module
 * (glgemm export --js) and its own copy of TensorFlow.js, served alone; it
 * registers the module and gets TensorFlow.js's outputs from a dense
 * model (tf.layers, predict), its products served by glgemm. */
async function foreignPage() {
    const BIN = process.env.GLGEMM_BIN || path.join(root, 'glgemm');
    const site = mkdtempSync(path.join(tmpdir(), 'glgemm-site-'));
    let srv = null;
    try {
        const env = {...process.env};
        if (!existsSync(path.join(path.dirname(BIN), 'web', 'dist', 'glgemm.d.ts'))) env.GLGEMM_WEB_DIR = path.join(root, 'web', 'dist');
        const ex = spawnSync(BIN, ['export', 'tfjs,profile=300es', '--js', path.join(site, 'glgemm')], {env, encoding: 'utf8'});
        check(ex.status === 0, 'foreign page: export', ex.stderr);
        if (ex.status !== 0) return;
        mkdirSync(path.join(site, 'vendor'));
        cpSync(path.join(root, 'web', 'node_modules', '@tensorflow', 'tfjs', 'dist', 'tf.min.js'), path.join(site, 'vendor', 'tf.min.js'));
        writeFileSync(path.join(site, 'index.html'), `<!doctype html><meta charset="utf-8"><title>a page</title>
<script src="vendor/tf.min.js"></script>
<script type="module">
import {register, unregister, registered} from './glgemm/glgemm-tfjs.js';
window.run = async () => {
    await tf.setBackend('webgl');
    const model = tf.sequential();
    model.add(tf.layers.dense({units: 48, inputShape: [40], activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({seed: 1})}));
    model.add(tf.layers.dense({units: 10, activation: 'softmax', kernelInitializer: tf.initializers.glorotUniform({seed: 2})}));
    const x = tf.randomUniform([33, 40], -1, 1, 'float32', 3);
    const alone = await model.predict(x).data();
    const reg = await register(tf);
    const withG = await model.predict(x).data();
    const info = registered();
    unregister();
    let d = 0, s = 0;
    for (let i = 0; i < alone.length; i++) { d = Math.max(d, Math.abs(withG[i] - alone[i])); s = Math.max(s, Math.abs(alone[i])); }
    return {variant: reg.variant, served: info.served, fellBack: info.fellBack, rel: d / s, n: withG.length};
};
window.ready = true;
</script>`);
        srv = await serve({mounts: [['/', site]]});
        const p = await open(browser, srv.url + 'index.html');
        await p.waitForFunction('window.ready === true', {timeout: 60000});
        const r = await p.evaluate(() => window.run());
        check(r.variant && r.served >= 2 && r.fellBack === 0, 'foreign page: its own TensorFlow.js registers the module and glgemm serves', JSON.stringify(r));
        check(r.n === 330 && r.rel <= 1e-5, "foreign page: TensorFlow.js's outputs", JSON.stringify(r));
        check(p.errors.length === 0, 'foreign page: no page errors', p.errors.join(' | '));
        await p.close();
    } finally {
        if (srv) await srv.close();
        rmSync(site, {recursive: true, force: true});
    }
}

try {
    await part('package', async () => packageTests());
    await part('foreign page', foreignPage);
    const p = await page();
    await part('kernels (default variant)', async () => {
        kernels('default variant', await p.evaluate(() => window.kernelTests({})));
    });
    await part('kernels (two other variants, split)', async () => {
        kernels('mrt=1x2,mc=1x4,np=8,acc=copy', await p.evaluate(() =>
            window.kernelTests({variant: 'mrt=1x2,mc=1x4,np=8,acc=copy,fetch=texelfetch,profile=300es'})));
        kernels('mc=4x1,acc=blend,split 16', await p.evaluate(() =>
            window.kernelTests({variant: 'mrt=2x1,mc=4x1,np=4,acc=blend,profile=300es', maxTextureSize: 16})));
    });
    await part('memory', async () => {
        const r = await p.evaluate(() => window.memoryTest());
        check(r.info && r.info.served > 0 && r.info.fellBack === 0, 'memory: predict served by glgemm', JSON.stringify(r.info));
        check(r.after.numTensors === r.before.numTensors && r.after.numBytes === r.before.numBytes,
            'memory: tf.memory() numTensors and numBytes stable over 100 predict calls', JSON.stringify(r));
        check(r.after.gpu === r.before.gpu, 'memory: numBytesInGPU stable', JSON.stringify(r));
    });
    await part('keep', async () => {
        const r = await p.evaluate(() => window.keepTest());
        const js = JSON.stringify(r);
        check(r.got.every((e) => e <= 1e-5), 'keep: a tensor met again gives the same product', js);
        check(r.held.kept >= 1 && r.held.keptBytes > 0, 'keep: the operands met twice are held packed', js);
        check(r.afterAssign <= 1e-5 && r.afterAssign2 <= 1e-5, 'keep: a variable assigned anew is not served stale', js);
        check(r.afterDispose <= 1e-5, 'keep: right after a kept tensor is disposed', js);
        check(r.swept.kept < r.before.kept && r.swept.keptBytes < r.before.keptBytes,
            'keep: a disposed tensor\'s packing is released at the next call', js);
        check(r.left.n === 0 && r.left.bytes === 0, 'keep: unregister releases every kept packing', js);
    });
    check(p.errors.length === 0, 'page: no page errors', p.errors.join(' | '));
    await part('fallback', async () => {
        const r = await p.evaluate(() => window.fallbackTests());
        check(JSON.stringify(r.i1) === '[19,22,43,50]' && JSON.stringify(r.i2) === '[19,22,43,50]', 'int32: tfjs kernel result', JSON.stringify(r));
        check(r.int32Warnings.length === 1 && /int32, not float32/.test(r.int32Warnings[0]), 'int32: said once', JSON.stringify(r.int32Warnings));
        check(r.batchedSame, 'small batched products: tfjs\'s results', JSON.stringify(r));
        check(r.batchedWarnings.length === 1 && /3 separate products of 9x7x11/.test(r.batchedWarnings[0]),
            'small batched products: tfjs\'s kernel below batchedMin, said once', JSON.stringify(r.batchedWarnings));
        const lost = r.warnings.filter((w) => /context is lost/.test(w));
        check(lost.length === 1, 'lost context: falls back, said once', JSON.stringify(r.warnings));
        check(r.info && r.info.fellBack >= 4, 'lost context: calls went to tfjs', JSON.stringify(r.info));
    });
    await p.close();
    if (bench) {
        await part('bench', async () => {
            const b = await page();
            const r = await b.evaluate((o) => window.speed(o), {...bench, variant: variantArg});
            console.log(`tfjs bench: ${r.what}: tfjs ${r.tfjsMs.toFixed(0)} ms, ` +
                `with glgemm ${r.glgemmMs.toFixed(0)} ms (${r.speedup.toFixed(2)}x), rel ${r.rel.toExponential(2)}, ` +
                `served ${r.info.served}, fell back ${r.info.fellBack}, variant ${r.reg.variant}, ${r.reg.renderer}`);
            check(r.rel <= 1e-5, 'bench: outputs', r.rel);
            await b.close();
        });
    }
} catch (e) {
    check(false, 'tfjs tests ran to the end', e.stack || String(e));
} finally {
    await browser.close();
    await s.close();
}
console.log(`tfjs tests: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1e3).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
