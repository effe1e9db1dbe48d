// glgemm's browser worker: a Node program that drives headless Chromium for
// the evaluator (eval/browser.c starts it as `node web/worker/worker.mjs`
// in the evaluation worker's process group and talks to it over its stdin
// and stdout).
//
// Protocol, both ways: one JSON line per message; where the JSON has
// `bytes: N`, N raw bytes follow the line (little-endian float32 arrays).
// Requests carry `op`; every request gets exactly one answer, of one shape:
// {status, detail, ok (status is ok), ...the op's fields, bytes}.  Times are
// in seconds (the runtime's milliseconds converted by web/worker/page.mjs).
//   hello  {browser, headful, angle}
//                                  -> {info:{...limits}} | {why, detail}
//   inputs {m,n,k,transa,transb, na, nb, nc, bytes}   (A, B, C0 floats back to back)
//                                  -> {}
//   run    {variant, alpha, beta, reps, fault}
//   tfjs   {alpha, beta, reps, backend: webgl | webgpu}
//                                  -> {passes, compile_s, upload_s, seconds,
//                                      median_s, readback_s, bytes} + C
//   model  {name: dense | encoder, scale: full | small, with: tfjs | glgemm, variant, reps}
//                                  -> {seconds, median_s, rel_err, flops, served,
//                                      fell_back}: bench's model rows
//   probe  {act: open, fs, vs, w, h, targets, tex: {w, h, fmt} | null, mul, add}
//          {act: time, read, iters, count, warmups, reps}  -> {seconds}
//          {act: texels, read, at: [[target, x, y], ...]}  -> {bytes} + RGBA floats
//          {act: close}            -> {}
//          one kernel of glgemm probe at a time (GLSL from glhost/probe_src.c;
//          eval/browser_probe.c drives and judges)
//   quit                           -> (exits)
// A page that crashes (or a browser that goes away) answers the op in flight
// with status `page_crash`; a lost WebGL context with `context_lost`.  Then
// this process exits: the evaluator replaces its worker, as natively.
//
// Chromium is spawned here, not by puppeteer.launch (which detaches it into
// a process group of its own): in this process's group, so the evaluator's
// SIGKILL of the group ends it too; puppeteer connects to it.  The page and
// the input bytes come from a 127.0.0.1 HTTP server of this process, so the
// page fetches the inputs as binary rather than through page.evaluate.
//
// The runtime (web/dist/glgemm.js, from web/src/ by make web: shaders from
// gen/ as WebAssembly) is
// loaded in the page; GLGEMM_BROWSER_RUNTIME=stub loads
// web/worker/stub-runtime.mjs instead (tests of this plumbing: a CPU GEMM
// behind the same API).  GLGEMM_BROWSER_WEBGPU=1 starts Chromium with
// --enable-unsafe-webgpu (the tfjs-webgpu row on Linux);
// GLGEMM_BROWSER_ARGS adds flags of one's own (space-separated).  Test hooks: GLGEMM_BROWSER_NO_WEBGL2=1 starts
// Chromium with WebGL off.
import { spawn } from 'node:child_process';
import { readdir, stat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../serve.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// GLGEMM_BROWSER_TRACE=1: a line on stderr for each run, where its time went.
const TRACE = !!process.env.GLGEMM_BROWSER_TRACE;
const log = (...a) => process.stderr.write('glgemm browser worker: ' + a.join(' ') + '\n');
console.log = (...a) => process.stderr.write(a.join(' ') + '\n'); // stdout is the protocol

// ---- the protocol on stdin / stdout ----

// stdin's chunks, joined only once a whole line or a whole body is there
// (joining at every 64 KiB chunk copied a 4096^3 problem's 128 MB of
// inputs two thousand times).
let inbuf = Buffer.alloc(0);
let chunks = [], chunked = 0;
process.stdin.on('data', (d) => { chunks.push(d); chunked += d.length; pump(); });
process.stdin.on('end', () => shutdown(0)); // the C worker is gone
let want = null; // a header waiting for its bytes
function join() {
  if (chunks.length) { inbuf = Buffer.concat([inbuf, ...chunks]); chunks = []; chunked = 0; }
}
function pump() {
  for (;;) {
    if (!want) {
      let nl = inbuf.indexOf(10);
      if (nl < 0 && chunks.length) {
        if (!chunks.some((c) => c.indexOf(10) >= 0)) return;
        join();
        nl = inbuf.indexOf(10);
      }
      if (nl < 0) return;
      const line = inbuf.subarray(0, nl).toString('utf8');
      inbuf = inbuf.subarray(nl + 1);
      let msg;
      try { msg = JSON.parse(line); } catch (e) { log('bad request line:', line.slice(0, 80)); shutdown(2); return; }
      want = msg;
    }
    const n = want.bytes | 0;
    if (inbuf.length + chunked < n) return;
    join();
    const body = Buffer.from(inbuf.subarray(0, n)); // its own copy
    inbuf = inbuf.subarray(n);
    const msg = want;
    want = null;
    queue = queue.then(() => handle(msg, body)).catch((e) => { log('internal:', e && e.stack || e); shutdown(2); });
  }
}
let queue = Promise.resolve();

// Every answer has one shape: {status, detail, ok, ...the op's fields,
// bytes}; ok (status is ok) is what hello's and inputs' readers test.
function send(obj, bytes) {
  const b = bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
  const { status = 'ok', detail = '', ...rest } = obj;
  delete rest.ok;
  delete rest.bytes;
  const out = { status, detail, ok: status === 'ok', ...rest, bytes: b ? b.length : 0 };
  process.stdout.write(JSON.stringify(out) + '\n');
  if (b) process.stdout.write(b);
}

// hello's refusal: why (no_browser, no_runtime, no_webgl2, bad_angle) and
// the one line eval/browser.c prints.
function refuse(why, detail) {
  return { status: why === 'bad_angle' ? 'invalid' : 'unsupported', why, detail };
}

// ---- the browser ----

let chrome = null, browser = null, page = null, server = null, profile = null;
let crashed = null; // set once the page or the browser died: the reason
let crashReject = null;
const crashPromise = new Promise((_, rej) => { crashReject = rej; });
crashPromise.catch(() => {});
function onCrash(why) {
  if (crashed) return;
  crashed = why;
  crashReject(Object.assign(new Error(why), { pageCrash: true }));
}

async function shutdown(code) {
  try { if (chrome && chrome.exitCode === null) chrome.kill('SIGKILL'); } catch (e) { /* gone */ }
  try { if (profile) await rm(profile, { recursive: true, force: true }); } catch (e) { /* best effort */ }
  process.exit(code);
}
process.on('SIGTERM', () => shutdown(0));

// Inputs and results through HTTP.
let inputs = null;  // {meta, a, b, c0} as Buffers
let inputsGen = 0;
const pendingC = new Map(); // token -> resolve(Buffer)
let tokenNo = 0;

const PAGE = `<!doctype html><meta charset="utf-8"><title>glgemm worker</title>
<script type="module" src="/worker/page.mjs"></script>`;

// web/serve.mjs's server: the files under /worker, /src, /dist and
// TensorFlow.js's bundles under /tfjs; this process's own routes first:
// the page, the inputs (GET /inputs/<gen>/a|b|c0) and C (POST /c/<token>).
function ownRoutes(req, res, isolated) {
  const p = new URL(req.url, 'http://127.0.0.1').pathname;
  if (req.method === 'POST' && p.startsWith('/c/')) {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const r = pendingC.get(p.slice(3));
      pendingC.delete(p.slice(3));
      if (r) r(Buffer.concat(chunks));
      res.writeHead(204); res.end();
    });
    return true;
  }
  if (p === '/') { res.writeHead(200, { 'content-type': 'text/html', ...isolated }); res.end(PAGE); return true; }
  const m = p.match(/^\/inputs\/\d+\/(a|b|c0)$/);
  if (!m) return false;
  const buf = inputs && inputs[m[1]];
  if (!buf) { res.writeHead(404); res.end(); return true; }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': buf.length, ...isolated });
  res.end(buf);
  return true;
}

function startServer() {
  const tf = (pkg) => path.join(WEB, 'node_modules', '@tensorflow', pkg, 'dist');
  return serve({ handle: ownRoutes, mounts: [
    ['/worker', path.join(WEB, 'worker')], ['/src', path.join(WEB, 'src')], ['/dist', path.join(WEB, 'dist')],
    ['/tfjs', tf('tfjs')], ['/tfjs-webgpu', tf('tfjs-backend-webgpu')],
  ] });
}

async function exists(p) { try { await stat(p); return true; } catch (e) { return false; } }

/* Chromium profile folders of workers that were killed (the evaluator's
 * SIGKILL of a hanging worker's group, kill -9 of a tune) before they could
 * remove theirs: glgemm-chromium-<pid>-* whose node process is gone. */
async function sweepProfiles() {
  let names = [];
  try { names = await readdir(tmpdir()); } catch { return; }
  for (const name of names) {
    const m = /^glgemm-chromium-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    try { process.kill(Number(m[1]), 0); continue; } catch (e) { if (e.code !== 'ESRCH') continue; }
    await rm(path.join(tmpdir(), name), { recursive: true, force: true }).catch(() => {});
  }
}

// --angle (eval/browser.c checks that the page came up on the backend asked
// for): Chromium's own choice (SwiftShader allowed where it has no GPU), or
// one ANGLE backend.
const ANGLE_FLAGS = {
  default: ['--enable-unsafe-swiftshader'],
  vulkan: ['--use-angle=vulkan'],
  'gl-egl': ['--use-angle=gl-egl'],
  swiftshader: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
};

async function hello(msg) {
  const exe = msg.browser || '/usr/bin/chromium';
  if (!(await exists(exe)))
    return refuse('no_browser', `no browser at ${exe} (install chromium, or name one with --browser PATH)`);
  let runtime = process.env.GLGEMM_BROWSER_RUNTIME === 'stub' ? 'worker/stub-runtime.mjs' : 'dist/glgemm.js';
  if (!(await exists(path.join(WEB, runtime))))
    return refuse('no_runtime', `the WebGL2 runtime web/${runtime} is missing: run make web`);
  const wasm = (await exists(path.join(WEB, 'dist/glgemm-gen.wasm'))) ? '/dist/glgemm-gen.wasm' : null;
  if (!wasm && runtime === 'dist/glgemm.js')
    return refuse('no_runtime', 'web/dist/glgemm-gen.wasm is missing (the generator as WebAssembly): run make web');
  let puppeteer;
  try { puppeteer = (await import('puppeteer-core')).default; } catch (e) {
    return refuse('no_runtime', `web/node_modules has no puppeteer-core (the pinned npm packages): run make web`);
  }
  server = await startServer();
  const port = server.server.address().port;
  await sweepProfiles();
  profile = await mkdtemp(path.join(tmpdir(), `glgemm-chromium-${process.pid}-`));
  const angle = ANGLE_FLAGS[msg.angle || 'default'];
  if (!angle) return refuse('bad_angle', `unknown ANGLE backend '${msg.angle}'`);
  const args = [
    msg.headful ? null : '--headless=new',
    '--no-sandbox', '--no-first-run', '--no-default-browser-check', '--disable-extensions',
    '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows', '--disable-gpu-watchdog',
    '--ignore-gpu-blocklist', '--disable-breakpad', '--disable-crash-reporter',
    ...angle,
    '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    // WebGPU (bench's tfjs-webgpu row): Chromium on Linux offers it only
    // behind this flag; opt-in, since tfjs's WebGPU backend once hung a
    // page for 300 s over Vulkan on an H200.
    process.env.GLGEMM_BROWSER_WEBGPU ? '--enable-unsafe-webgpu' : null,
    ...(process.env.GLGEMM_BROWSER_ARGS || '').split(/\s+/).filter(Boolean),
    process.env.GLGEMM_BROWSER_NO_WEBGL2 ? '--disable-webgl2' : null,
    process.env.GLGEMM_BROWSER_NO_WEBGL2 ? '--disable-webgl' : null,
    'about:blank',
  ].filter(Boolean);
  chrome = spawn(exe, args, { stdio: ['ignore', 'ignore', 'pipe'] }); // not detached: our group
  let errText = '';
  let ws;
  try {
    ws = await new Promise((resolve, reject) => {
      chrome.stderr.on('data', (d) => {
        if (errText.length < 65536) errText += d;
        const m = errText.match(/DevTools listening on (ws:\S+)/);
        if (m) resolve(m[1]);
      });
      chrome.on('error', (e) => reject(e));
      chrome.on('exit', (code, sig) => reject(new Error(`${exe} exited (${sig || code}) before it listened: ${errText.trim().split('\n').pop() || ''}`)));
    });
  } catch (e) {
    return refuse('no_browser', `cannot start ${exe}: ${e.message}`);
  }
  chrome.on('exit', (code, sig) => onCrash(`the browser exited (${sig || code})`));
  browser = await puppeteer.connect({ browserWSEndpoint: ws, defaultViewport: null, protocolTimeout: 0 });
  browser.on('disconnected', () => onCrash('the browser went away'));
  page = await browser.newPage();
  page.on('error', (e) => onCrash(`the page crashed (${e.message})`));
  page.on('pageerror', (e) => log('page error:', e.message));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log('page:', m.text()); });
  await page.goto(`http://127.0.0.1:${port}/`);
  // A page whose module fails to load never gets ready: a minute, then a line.
  await page.waitForFunction(() => window.gg && window.gg.ready, { timeout: 60000 })
    .catch(() => { throw new Error('the worker page did not start within 60 s (web/worker/page.mjs: see the page errors above)'); });
  const r = await page.evaluate((rt, w) => window.gg.hello(rt, w), '/' + runtime, wasm);
  if (r.status !== 'ok') return refuse(r.why || 'no_webgl2', r.detail);
  const version = await browser.version();
  r.info.browser = version;
  return r;
}

// Runs fn (a page call), failing with the crash if the page dies first.
function guarded(p) { return Promise.race([p, crashPromise]); }

function newToken() {
  const t = String(++tokenNo);
  const got = new Promise((resolve) => pendingC.set(t, resolve));
  return { t, got };
}

// One page call whose answer may carry C (gg.run, gg.tfjs): the page posts
// C to /c/<token> before it answers, and says so with r.posted.
async function pageOp(fn, args) {
  const { t, got } = newToken();
  const e0 = performance.now(), d0 = Date.now();
  const r = await guarded(page.evaluate((name, a) => window.gg[name](a), fn, { ...args, gen: inputsGen, token: t }));
  const e1 = performance.now(), d1 = Date.now();
  let c = null;
  if (r.posted) c = await guarded(got);
  else pendingC.delete(t);
  if (r.trace)
    Object.assign(r.trace, { eval_s: (e1 - e0) / 1e3, in_s: (r.trace.enter - d0) / 1e3,
                             out_s: (d1 - r.trace.leave) / 1e3, got_s: (performance.now() - e1) / 1e3 });
  return { r, c };
}

function runOp(msg) {
  if (msg.fault === 'crash') { page.goto('chrome://crash').catch(() => {}); }
  if (msg.fault === 'hang') { page.evaluate(() => { for (;;); }).catch(() => {}); }
  return pageOp('run', { variant: msg.variant, alpha: msg.alpha, beta: msg.beta, reps: msg.reps,
                         loseContext: msg.fault === 'lose_context' });
}

function tfjsOp(msg) {
  return pageOp('tfjs', { alpha: msg.alpha, beta: msg.beta, reps: msg.reps, backend: msg.backend || 'webgl' });
}

async function handle(msg, body) {
  if (msg.op === 'quit') return shutdown(0);
  if (crashed) { send({ status: 'page_crash', detail: crashed }); return shutdown(0); }
  try {
    if (msg.op === 'hello') {
      const r = await guarded(hello(msg));
      send(r);
      if (r.status !== 'ok') return shutdown(0);
      return;
    }
    if (!page) { send({ status: 'context_lost', detail: 'no page: hello first' }); return; }
    if (msg.op === 'inputs') {
      const fa = msg.na * 4, fb = msg.nb * 4, fc = msg.nc * 4;
      inputs = { a: body.subarray(0, fa), b: body.subarray(fa, fa + fb), c0: fc ? body.subarray(fa + fb, fa + fb + fc) : null };
      inputsGen++;
      const meta = { m: msg.m, n: msg.n, k: msg.k, transa: !!msg.transa, transb: !!msg.transb, hasC0: fc > 0, gen: inputsGen };
      const t0 = performance.now();
      await guarded(page.evaluate((mm) => window.gg.inputs(mm), meta));
      send({ status: 'ok' });
      if (TRACE) log(`trace inputs ${msg.m}x${msg.n}x${msg.k}: ${((performance.now() - t0) / 1e3).toFixed(3)} s for the page to fetch them`);
      return;
    }
    if (msg.op === 'run' || msg.op === 'tfjs') {
      const t0 = performance.now();
      const { r, c } = await (msg.op === 'run' ? runOp(msg) : tfjsOp(msg));
      const t1 = performance.now();
      delete r.posted;
      const tr = r.trace;
      delete r.trace;
      send(r, c && c.length ? new Uint8Array(c.buffer, c.byteOffset, c.length) : null);
      if (TRACE && tr) {
        const f = (x) => (+x).toFixed(3);
        log(`trace ${msg.op} ${msg.variant || msg.backend || ''}: ${f((t1 - t0) / 1e3)} s in the page` +
            ` (compile ${f(r.compile_s)}, upload ${f(r.upload_s)}, warm-up ${f(tr.warm_s)},` +
            ` ${r.seconds.length} reps of ${tr.batch} ${f(tr.timed_s)}, read-back ${f(r.readback_s)},` +
            ` posting C ${f(tr.post_s)}; evaluate ${f(tr.eval_s)}, C after it ${f(tr.got_s)}, to enter ${f(tr.in_s)}, from leaving ${f(tr.out_s)}, rest ${f(tr.run_s - r.compile_s - r.upload_s - tr.warm_s - tr.timed_s - r.readback_s)}),` +
            ` then ${f((performance.now() - t1) / 1e3)} s writing the answer`);
      }
      if (r.status === 'context_lost') return shutdown(0);
      return;
    }
    if (msg.op === 'model') {
      const r = await guarded(page.evaluate((a) => window.gg.model(a),
        { name: msg.name, scale: msg.scale, with: msg.with, variant: msg.variant || '', reps: msg.reps }));
      send(r);
      if (r.status === 'context_lost') return shutdown(0);
      return;
    }
    if (msg.op === 'probe') {
      if (msg.fault === 'crash') { page.goto('chrome://crash').catch(() => {}); }
      const r = await guarded(page.evaluate((a) => window.gg.probe(a), msg));
      const bits = r.bits ? Uint32Array.from(r.bits) : null;
      delete r.bits;
      send(r, bits);
      if (r.status === 'context_lost') return shutdown(0);
      return;
    }
    send({ status: 'invalid', detail: `unknown op '${msg.op}'` });
  } catch (e) {
    if (e && e.pageCrash) { send({ status: 'page_crash', detail: e.message }); return shutdown(0); }
    if (crashed) { send({ status: 'page_crash', detail: crashed }); return shutdown(0); }
    const text = String(e && e.message || e).split('\n')[0];
    if (msg.op === 'hello') { send(refuse('no_browser', text)); return shutdown(0); }
    send({ status: 'gl_error', detail: `the page failed: ${text}` });
  }
}
