#!/usr/bin/env node
/* web/serve.mjs: a tiny static http server on 127.0.0.1 (node:http only),
 * for pages that load ES modules and wasm (they need http, not file://).
 *
 *   node web/serve.mjs [--port P] [--mount /prefix=DIR]... [ROOT]
 *       serves ROOT at / and each DIR at /prefix/; prints the URL.
 *   node web/serve.mjs --example [--bin GLGEMM] [--variant V] [--port P]
 *       the example page (web/example/): exports a portfolio (glgemm export
 *       --portfolio --js DIR, where there are browser records), else `best`
 *       of this card, else the runtime's DEFAULT_VARIANT (or V) into a
 *       temporary folder, serves it at /glgemm/, TensorFlow.js at /tfjs/,
 *       the page at /; prints the URL.
 *   import {serve} from './serve.mjs': serve({mounts: [['/', dir], ...],
 *       port, handle}) -> Promise<{server, url, close()}>; handle(req, res,
 *       isolatedHeaders), when given, answers its own routes first (true
 *       when it did).
 */
import {createServer} from 'node:http';
import {readFile, stat, mkdtemp, rm} from 'node:fs/promises';
import {execFileSync} from 'node:child_process';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const TYPES = {
    '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
    '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm',
    '.json': 'application/json', '.css': 'text/css', '.map': 'application/json',
    '.txt': 'text/plain; charset=utf-8', '.svg': 'image/svg+xml',
};

/* The headers that make a page cross-origin isolated. */
const ISOLATED = {'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp'};

/* The file a request path names under the longest matching mount, or null
 * (never outside the mount's folder). */
function resolve(mounts, urlPath) {
    let p;
    try {
        p = decodeURIComponent(urlPath.split('?')[0]);
    } catch {
        return null;
    }
    const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length);
    for (const [prefix, dir] of sorted) {
        const pre = prefix.endsWith('/') ? prefix : prefix + '/';
        if (p !== prefix && !p.startsWith(pre)) continue;
        const rel = p.slice(pre.length - 1) || '/';
        const file = path.resolve(dir, '.' + path.posix.normalize(rel));
        const root = path.resolve(dir);
        if (file !== root && !file.startsWith(root + path.sep)) return null;
        return file;
    }
    return null;
}

export async function serve({mounts, port = 0, host = '127.0.0.1', quiet = true, handle = null} = {}) {
    const server = createServer(async (req, res) => {
        /* handle(req, res, isolated): a caller's own routes first (the
         * browser worker's inputs and C); true when it answered. */
        if (handle && await handle(req, res, ISOLATED)) return;
        if (req.url === '/favicon.ico') { /* none: no 404 in the page's console */
            res.writeHead(204);
            res.end();
            return;
        }
        let file = resolve(mounts, req.url);
        try {
            if (!file) throw new Error('no such path');
            let st = await stat(file);
            if (st.isDirectory()) {
                file = path.join(file, 'index.html');
                st = await stat(file);
            }
            const body = await readFile(file);
            /* Cross-origin isolated (everything here is same-origin): the
             * page's performance.now() then ticks in 5 us, not 100 us, which
             * a race of 1 ms GEMMs needs. */
            res.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
                'Content-Length': body.length, 'Cache-Control': 'no-store', ...ISOLATED});
            res.end(req.method === 'HEAD' ? undefined : body);
        } catch {
            res.writeHead(404, {'Content-Type': 'text/plain'});
            res.end('not found\n');
        }
        if (!quiet) console.error(`${req.method} ${req.url} -> ${res.statusCode}`);
    });
    await new Promise((ok, fail) => {
        server.once('error', fail);
        server.listen(port, host, ok);
    });
    const url = `http://${host}:${server.address().port}/`;
    /* close() ends the connections too: Chromium keeps some open (a
     * preconnected socket that never sent a request is not idle to Node),
     * and server.close() alone waited for them, up to minutes. */
    return {server, url, close: () => new Promise((ok) => {
        server.close(ok);
        server.closeAllConnections();
    })};
}

/* The example's folder: `glgemm export --portfolio` where browser records
 * exist (results/chromium-<gpu>/), else `glgemm export best`, else the
 * runtime's default variant. */
function exportExample(bin, dir, variant) {
    const run = (...args) => execFileSync(bin, ['export', ...args, '--js', dir], {stdio: ['ignore', 'pipe', 'pipe']});
    if (variant) {
        run(variant);
        return variant;
    }
    try {
        run('--portfolio');
        return 'a portfolio (export --portfolio)';
    } catch (e) {
        console.error(`serve: ${String(e.stderr || e.message).trim()}; exporting best`);
    }
    try {
        run('best');
        return 'best';
    } catch (e) {
        const why = String(e.stderr || e.message).trim();
        console.error(`serve: ${why}; using the runtime's default variant`);
        const src = path.join(here, 'src', 'glgemm.js');
        return readFile(src, 'utf8').then((t) => {
            const m = /^export const DEFAULT_VARIANT = "([^"]*)";$/m.exec(t);
            run(m ? m[1] : 'profile=300es');
            return m ? m[1] : 'profile=300es';
        });
    }
}

async function main(argv) {
    const mounts = [];
    let port = 0, example = false, bin = path.join(here, '..', 'glgemm'), variant = null;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const val = () => {
            if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
            return argv[++i];
        };
        if (a === '--port') port = Number(val());
        else if (a === '--mount') {
            const [pre, dir] = val().split('=');
            if (!pre || !dir) throw new Error('--mount takes /prefix=DIR');
            mounts.push([pre, dir]);
        } else if (a === '--example') example = true;
        else if (a === '--bin') bin = val();
        else if (a === '--variant') variant = val();
        else if (a === '--help' || a === '-h') {
            console.log('usage: node web/serve.mjs [--port P] [--mount /prefix=DIR]... [ROOT]\n' +
                '       node web/serve.mjs --example [--bin GLGEMM] [--variant V] [--port P]');
            return;
        } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
        else mounts.push(['/', a]);
    }
    let cleanup = null;
    if (example) {
        const dir = await mkdtemp(path.join(tmpdir(), 'glgemm-example-'));
        const js = path.join(dir, 'glgemm');
        cleanup = () => rm(dir, {recursive: true, force: true});
        let used;
        try {
            used = await exportExample(bin, js, variant);
        } catch (e) {
            await cleanup();
            throw new Error(String(e.stderr || e.message).trim());
        }
        console.error(`serve: exported ${used} into ${js}`);
        mounts.push(['/', path.join(here, 'example')], ['/glgemm', js],
            ['/tfjs', path.join(here, 'node_modules', '@tensorflow', 'tfjs', 'dist')]);
    }
    if (!mounts.length) mounts.push(['/', process.cwd()]);
    const s = await serve({mounts, port, quiet: false});
    console.log(s.url);
    const stop = async () => {
        await s.close();
        if (cleanup) await cleanup();
        process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    main(process.argv.slice(2)).catch((e) => {
        console.error(`serve: ${e.message}`);
        process.exit(2);
    });
}
