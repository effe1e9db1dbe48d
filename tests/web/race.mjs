#!/usr/bin/env node
/* tests/web/race.mjs: what the portfolio race costs and wins on a target
 * (issue 36), runnable on another machine: it needs only Node, a Chromium
 * and web/node_modules (puppeteer-core; tests/web/deps.sh installs it).
 *
 *   node tests/web/race.mjs --module DIR [--size N] [--best VARIANT]
 *        [--chromium PATH] [--arg FLAG]...
 *
 *   --module DIR      an exported folder (glgemm export --portfolio --js DIR)
 *   --size N          the problem N^3 (default 1024)
 *   --best VARIANT    the card's tuned best, timed beside the chosen one
 *   --race-ms MS      the race's budget (matmul's raceMs; default the module's)
 *   --chromium PATH   the browser (default $GLGEMM_CHROMIUM, /usr/bin/chromium)
 *   --arg FLAG        an extra Chromium flag, repeatable (--use-angle=vulkan,
 *                     --enable-unsafe-swiftshader, ...)
 *
 * It serves DIR on 127.0.0.1, opens a page there, forgets the remembered
 * choices, calls matmul at N^3 without a variant (the race, then the
 * multiply), then times the chosen variant and --best with the runner in
 * the same page (its bench({reps: 5, minRepS: 0.025}): the median of 5 each,
 * after a warm-up),
 * and prints one JSON line:
 *   {renderer, size, chosen, raceMs, firstCallMs, chosenGflops, bestGflops,
 *    ratio, raced, check: {pass, rel_err}}
 * (check: matmul's C on 64 sampled elements against double sums, SPEC.md's
 * bound; a wrong C is an error, exit 1)
 * (ratio = chosenGflops / bestGflops; bestGflops and ratio null without
 * --best).  Exit 0; 1 when a run fails; 2 on bad usage. */
import {createRequire} from 'node:module';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {serve} from '../../web/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function usage(why) {
    console.error(`race.mjs: ${why}\nusage: node tests/web/race.mjs --module DIR [--size N] [--best VARIANT] [--race-ms MS] ` +
        '[--chromium PATH] [--arg FLAG]...');
    process.exit(2);
}

function parse(argv) {
    const o = {size: 1024, args: [], chromium: process.env.GLGEMM_CHROMIUM || '/usr/bin/chromium'};
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const val = () => {
            if (i + 1 >= argv.length) usage(`${a} needs a value`);
            return argv[++i];
        };
        if (a === '--module') o.module = val();
        else if (a === '--size') o.size = Number(val());
        else if (a === '--best') o.best = val();
        else if (a === '--race-ms') o.raceMs = Number(val());
        else if (a === '--chromium') o.chromium = val();
        else if (a === '--arg') o.args.push(val());
        else if (a === '--help' || a === '-h') usage('help');
        else usage(`unknown argument '${a}'`);
    }
    if (!o.module) usage('--module DIR is required');
    if (o.raceMs !== undefined && !(o.raceMs >= 0)) usage('--race-ms must be a number >= 0');
    if (!existsSync(path.join(o.module, 'glgemm.js')) || !existsSync(path.join(o.module, 'glgemm-gen.wasm')))
        usage(`${o.module} holds no glgemm.js and glgemm-gen.wasm (glgemm export --portfolio --js DIR)`);
    if (!Number.isInteger(o.size) || o.size < 1 || o.size > 16384) usage('--size must be an integer from 1 to 16384');
    return o;
}

const o = parse(process.argv.slice(2));
const require = createRequire(path.join(root, 'web', 'package.json'));
const puppeteer = require('puppeteer-core');
const page0 = mkdtempSync(path.join(tmpdir(), 'glgemm-race-'));
writeFileSync(path.join(page0, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>glgemm race</title><canvas id="c" width="1" height="1"></canvas>\n');
const s = await serve({mounts: [['/', page0], ['/glgemm', path.resolve(o.module)]]});
const browser = await puppeteer.launch({executablePath: o.chromium, headless: true, pipe: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run',
        ...o.args]});
let rc = 0;
try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e && e.message || e)));
    await page.goto(s.url, {waitUntil: 'load'});
    page.setDefaultTimeout(0);
    const r = await page.evaluate(async ({N, best, raceMs}) => {
        const g = await import('/glgemm/glgemm.js');
        await g.init();
        const gl = document.getElementById('c').getContext('webgl2');
        if (!gl) return {error: 'no WebGL2 in this browser'};
        const R = g.createRunner(gl);
        const lim = R.limits();
        const rand = (count) => {
            const x = new Float32Array(count);
            for (let i = 0; i < count; i++) x[i] = Math.random() * 2 - 1;
            return x;
        };
        const a = rand(N * N), b = rand(N * N);
        g.forgetChoices();
        const t0 = performance.now();
        const cMat = await g.matmul(gl, a, b, N, N, N, raceMs === null ? {} : {raceMs});
        const firstCallMs = performance.now() - t0;
        /* the answer checked: 64 sampled elements (the corners among them)
         * against double sums, SPEC.md's bound k 2^-23 sum |a b| */
        let worst = 0;
        for (let s = 0; s < 64; s++) {
            const i = s === 0 ? 0 : s === 1 ? N - 1 : Math.floor(Math.random() * N);
            const j = s === 0 ? 0 : s === 1 ? N - 1 : Math.floor(Math.random() * N);
            let ref = 0, mag = 0;
            for (let q = 0; q < N; q++) { const x = a[i * N + q] * b[q * N + j]; ref += x; mag += Math.abs(x); }
            const got = cMat[i * N + j];
            const e = Number.isFinite(got) ? Math.abs(got - ref) / (mag || 1) : Infinity;
            worst = Math.max(worst, e);
        }
        const check = {pass: worst <= N * 2 ** -23, rel_err: worst};
        const ch = g.lastChoice();
        const time = async (variant) => {
            /* GEMMs batched into reps of 25 ms, as the tuner's page times them */
            const x = await R.bench({variant, m: N, n: N, k: N, a, b, reps: 5, minRepS: 0.025});
            return x.status === 'ok' ? {gflops: x.gflops, variant: x.variant} : {error: `${variant}: ${x.status}: ${x.detail}`};
        };
        const chosen = ch ? ch.variant : g.DEFAULT_VARIANT;
        const c = await time(chosen);
        const bb = best ? await time(best) : null;
        return {renderer: lim.unmaskedRenderer || lim.renderer, size: N, chosen,
            raceMs: ch ? ch.raceMs : 0, firstCallMs,
            chosenGflops: c.gflops ?? null, bestGflops: bb ? bb.gflops ?? null : null,
            ratio: bb && bb.gflops && c.gflops ? c.gflops / bb.gflops : null,
            raced: ch ? ch.raced.map((x) => ({variant: x.variant, status: x.status, gflops: x.gflops, ms: x.ms, compileMs: x.compileMs, buildMs: x.buildMs, firstDrawMs: x.firstDrawMs})) : [],
            check, portfolio: g.PORTFOLIO.length,
            error: c.error || (bb && bb.error) || (check.pass ? null : `matmul's C is wrong: rel_err ${check.rel_err}`)};
    }, {N: o.size, best: o.best || null, raceMs: o.raceMs ?? null});
    if (errors.length) r.pageErrors = errors;
    if (r.error) rc = 1;
    console.log(JSON.stringify(r));
} catch (e) {
    console.error(`race.mjs: ${e && e.message || e}`);
    rc = 1;
} finally {
    await browser.close();
    await s.close();
    rmSync(page0, {recursive: true, force: true});
}
process.exit(rc);
