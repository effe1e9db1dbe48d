#!/usr/bin/env node
/* tests/perf/exportspeed.mjs: the exported module's speed in a page, against
 * the same variant's kernel in the same page (issue 29's target: matmul
 * with upload and read-back >= 0.8x bench's figure).  Not a test: figures.
 *
 *   node tests/perf/exportspeed.mjs --js DIR [--size N] [--rounds R]
 *
 * DIR is a folder `glgemm export VARIANT --js DIR` wrote.  Each round loads
 * the example page (web/example/) afresh with that module: one warm-up
 * matmul, one timed matmul (upload, draws, read-back, unpack), the runner's
 * draws-only median of 3 (what bench times: draws until a 1-pixel read), and
 * tf.matMul with its read-back.  Prints every round, then the medians and
 * the median of the rounds' ratios matmul / draws-only. */
import path from 'node:path';
import {launch, open, serve, root} from '../web/lib.mjs';

function arg(name, dflt) {
    const i = process.argv.indexOf(name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}
const js = arg('--js');
const size = Number(arg('--size', '1024')), rounds = Number(arg('--rounds', '3'));
if (!js || !Number.isInteger(size) || size < 1 || !Number.isInteger(rounds) || rounds < 1) {
    console.error('usage: node tests/perf/exportspeed.mjs --js DIR [--size N] [--rounds R]');
    process.exit(2);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const s = await serve({mounts: [['/', path.join(root, 'web', 'example')], ['/glgemm', path.resolve(js)],
    ['/tfjs', path.join(root, 'web', 'node_modules', '@tensorflow', 'tfjs', 'dist')]]});
const browser = await launch();
const got = {matmul: [], draws: [], tfjs: [], ratio: []};
let variant = '';
try {
    for (let r = 0; r < rounds; r++) {
        const page = await open(browser, `${s.url}?size=${size}`);
        await page.waitForFunction(() => document.body.dataset.done || document.body.dataset.error,
            {timeout: 600000, polling: 500});
        const res = await page.evaluate(() => ({error: document.body.dataset.error, rows: window.exampleResult}));
        if (res.error || !res.rows || res.rows.length < 2)
            throw new Error(`round ${r + 1}: ${res.error || 'no rows'}`);
        const [mm, dr, tf] = res.rows;
        variant = dr.variant;
        got.matmul.push(mm.gflops);
        got.draws.push(dr.gflops);
        if (tf) got.tfjs.push(tf.gflops);
        got.ratio.push(mm.gflops / dr.gflops);
        console.log(`round ${r + 1}: matmul ${mm.gflops.toFixed(3)} GFLOP/s (err ${mm.err.toExponential(2)}), ` +
            `draws only ${dr.gflops.toFixed(3)}, tf.matMul ${tf ? tf.gflops.toFixed(3) : '-'}; ` +
            `matmul / draws ${(mm.gflops / dr.gflops).toFixed(3)}`);
        await page.close();
    }
} finally {
    await browser.close();
    await s.close();
}
console.log(`${size}^3, ${rounds} rounds, variant ${variant}`);
console.log(`median: matmul ${median(got.matmul).toFixed(3)} GFLOP/s, draws only ${median(got.draws).toFixed(3)}, ` +
    `tf.matMul ${got.tfjs.length ? median(got.tfjs).toFixed(3) : '-'}; ` +
    `matmul / draws (median of the rounds) ${median(got.ratio).toFixed(3)}`);
