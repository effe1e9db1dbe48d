/* tests/web/page-eval.mjs FILE [--small] [CHROMIUM FLAG...]: evaluates
 * FILE, the text of one async function of a boolean (small), in a headless
 * Chromium page that has TensorFlow.js (window.tf) and serves glgemm's
 * modules (/dist: glgemm.js, glgemm-tfjs.js; /worker: models.mjs), and
 * prints its answer as JSON.  A measuring tool, not a test: the functions
 * under tests/web/prof/ break a model's time down (issue 39's notes).
 * Flags: none for SwiftShader, e.g. --use-angle=vulkan on a GPU machine;
 * GLGEMM_CHROMIUM names the browser (default /usr/bin/chromium). */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {open, serve, root} from './lib.mjs';

const args = process.argv.slice(2);
if (!args.length || args[0].startsWith('--')) {
    console.error('usage: node tests/web/page-eval.mjs FILE [--small] [CHROMIUM FLAG...]');
    process.exit(2);
}
const fn = readFileSync(args[0], 'utf8');
const small = args.includes('--small');
const extra = args.slice(1).filter((a) => a !== '--small');
const require = createRequire(path.join(root, 'web', 'package.json'));
const puppeteer = require('puppeteer-core');
const flags = extra.length ? ['--ignore-gpu-blocklist', ...extra] : ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'];
const browser = await puppeteer.launch({executablePath: process.env.GLGEMM_CHROMIUM || '/usr/bin/chromium', headless: true,
    pipe: true, args: ['--no-sandbox', '--enable-unsafe-swiftshader', ...flags]});
const s = await serve({mounts: [['/', path.join(root, 'tests', 'web')], ['/dist', path.join(root, 'web', 'dist')],
    ['/worker', path.join(root, 'web', 'worker')],
    ['/tfjs', path.join(root, 'web', 'node_modules', '@tensorflow', 'tfjs', 'dist')]]});
try {
    const p = await open(browser, s.url + 'page.html');
    await p.addScriptTag({url: '/tfjs/tf.min.js'});
    console.log(JSON.stringify(await p.evaluate(`(${fn})(${small})`)));
} finally {
    await browser.close();
    await s.close();
}
