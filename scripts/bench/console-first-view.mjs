// The console's first view, cold, for two or more kilat binaries in alternating rounds (docs/PERFORMANCE.md, "The
// console's first view"): each binary serves a fresh development SQLite database; each round opens /console/ in a new
// chromium context (nothing cached) at 1366×768 with the CPU slowed 4× (DevTools' throttling: an office PC rather
// than this server's core), and measures with the page's own clock
//   - sign-in shown: from the navigation's start until the sign-in form can be typed in, and the JavaScript it fetched
//     (bytes on the wire);
//   - first page: from the click on "Sign in" until the demo admin's first section (the review queue) shows its
//     heading; then the JavaScript fetched in all once the operator's other sections have been fetched in the
//     background.
// Prints each run and each binary's medians.
//
// usage: node scripts/bench/console-first-view.mjs ROUNDS NAME=BINARY NAME=BINARY …
//   e.g. node scripts/bench/console-first-view.mjs 5 before=/tmp/kilat-before after=target/release/kilat
// Needs the e2e packages (cd e2e && npm ci) and Debian's chromium.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { chromium } = createRequire(path.join(ROOT, 'e2e/package.json'))('playwright-core');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CPU_SLOWDOWN = 4;

const [roundsArg, ...specs] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!(rounds > 0) || specs.length < 1 || specs.some((s) => !s.includes('='))) {
  console.error('usage: node scripts/bench/console-first-view.mjs ROUNDS NAME=BINARY [NAME=BINARY …]');
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `binary serve` on a fresh SQLite file; its URL, the demo admin's password and a stop function. */
async function start(binary) {
  const dir = await mkdtemp(path.join(tmpdir(), 'kilat-console-view-'));
  const port = await freePort();
  const child = spawn(binary, ['serve'], {
    env: { ...process.env, KILAT_LISTEN: `127.0.0.1:${port}`, KILAT_DATABASE_URL: `sqlite://${dir}/kilat.db`, KILAT_FILES__DIR: `${dir}/files`, KILAT_MODE: 'development', RUST_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok && /as admin, password (\S+)/.test(output)) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`${binary} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    password: output.match(/as admin, password (\S+)/)[1],
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** JavaScript fetched by the page so far, bytes on the wire. */
const scriptBytes = (page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((r) => r.name.endsWith('.js'))
      .reduce((sum, r) => sum + r.transferSize, 0),
  );

async function run(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Username').waitFor();
  const signInMs = await page.evaluate(() => performance.now());
  const signInBytes = await scriptBytes(page);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(server.password);
  const clicked = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
  const firstPageMs = (await page.evaluate(() => performance.now())) - clicked;
  // The other sections' pages, fetched in the background: settled once no request is left.
  await page.waitForLoadState('networkidle');
  const allBytes = await scriptBytes(page);
  await context.close();
  return { signInMs, signInBytes, firstPageMs, allBytes };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const binaries = specs.map((spec) => ({ name: spec.slice(0, spec.indexOf('=')), binary: spec.slice(spec.indexOf('=') + 1), runs: [] }));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: FLAGS });
try {
  for (const entry of binaries) entry.server = await start(entry.binary);
  // One unmeasured run each: the servers' first answers and chromium's own start.
  for (const entry of binaries) await run(browser, entry.server);
  for (let round = 1; round <= rounds; round++) {
    for (const entry of binaries) {
      const result = await run(browser, entry.server);
      entry.runs.push(result);
      console.log(
        `round ${round} ${entry.name}: sign-in shown ${result.signInMs.toFixed(0)} ms (${(result.signInBytes / 1024).toFixed(1)} KB of JS), ` +
          `first page ${result.firstPageMs.toFixed(0)} ms after the click, ${(result.allBytes / 1024).toFixed(1)} KB of JS in all`,
      );
    }
  }
} finally {
  await browser.close();
  for (const entry of binaries) await entry.server?.stop();
}
console.log(`load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}, CPU slowed ${CPU_SLOWDOWN}×`);
for (const { name, runs } of binaries) {
  console.log(
    `${name}: sign-in shown ${median(runs.map((r) => r.signInMs)).toFixed(0)} ms, ${(median(runs.map((r) => r.signInBytes)) / 1024).toFixed(1)} KB of JS; ` +
      `first page ${median(runs.map((r) => r.firstPageMs)).toFixed(0)} ms after the click; ${(median(runs.map((r) => r.allBytes)) / 1024).toFixed(1)} KB of JS in all (medians of ${runs.length})`,
  );
}
