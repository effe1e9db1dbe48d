/* tests/web/lib.mjs: headless Chromium (puppeteer-core from web/node_modules)
 * and the static server, for the web tests. */
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const puppeteer = require('puppeteer-core');
export {serve} from '../../web/serve.mjs';

/* angle: Chromium's ANGLE flags (default SwiftShader). */
export async function launch(angle = ['--use-angle=swiftshader']) {
    return puppeteer.launch({
        executablePath: process.env.GLGEMM_CHROMIUM || '/usr/bin/chromium', headless: true, pipe: true,
        args: ['--no-sandbox', '--enable-unsafe-swiftshader', ...angle,
            '--disable-background-networking', '--disable-component-update', '--disable-sync',
            '--no-first-run', '--disable-quic'],
    });
}

/* A page at url; page errors and console errors collected in page.errors. */
export async function open(browser, url) {
    const page = await browser.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(String(e && e.message || e)));
    page.on('console', (m) => { if (m.type() === 'error') page.errors.push('console: ' + m.text()); });
    await page.goto(url, {waitUntil: 'load'});
    return page;
}
