// Debian's headless chromium through playwright-core: launch flags that work here, a phone context,
// console and page errors collected per page, screenshots on failure.
import { chromium } from 'playwright-core';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that work on this machine (see shared/TOOLCHAIN.md); Lighthouse uses the same. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A 360×740 phone (the site is built for phones first). */
export const PHONE = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  locale: 'en-US',
};

export const outDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out');

/**
 * Launches chromium with a scratch HOME (it writes under $HOME/.config and the cache) that `close()` removes.
 * playwright-core gives every launch a fresh temporary profile (--user-data-dir) of its own.
 */
export async function launchChromium() {
  const home = await mkdtemp(path.join(tmpdir(), 'kilat-chromium-home-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') },
    timeout: 60_000,
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Records console errors and uncaught page errors of `page`. Failed loads (4xx/5xx) show up as console errors
 * ("Failed to load resource"), and so do CSP violations and React's hydration mismatches.
 */
export function collectErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const loc = msg.location();
      errors.push(`console.error: ${msg.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.stack ?? err.message ?? err}`));
  page.on('crash', () => errors.push('page crashed'));
  return errors;
}

/**
 * Follows `page`'s requests, for the diagnostics of a failed journey: those still unanswered and those that failed,
 * each with how long ago it started. A screen that never comes may be waiting on a request (a chunk, an API call) or
 * may never have been asked for.
 */
export function watchRequests(page) {
  const started = new Map();
  const failed = [];
  const since = (request) => `${Math.round(performance.now() - started.get(request))} ms ago`;
  page.on('request', (request) => started.set(request, performance.now()));
  page.on('requestfinished', (request) => started.delete(request));
  page.on('requestfailed', (request) => {
    failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'} (started ${since(request)})`);
    started.delete(request);
  });
  return {
    /** What the page was doing: its URL, its level-1 headings, its unanswered and failed requests. */
    async describe() {
      const headings = await page
        .locator('h1')
        .allTextContents()
        .catch(() => []);
      const unanswered = [...started.keys()].map((request) => `${request.method()} ${request.url()} (started ${since(request)})`);
      return [
        `at ${page.url()}, headings: ${JSON.stringify(headings)}`,
        `requests unanswered: ${unanswered.length ? `\n    ${unanswered.join('\n    ')}` : 'none'}`,
        `requests failed: ${failed.length ? `\n    ${failed.join('\n    ')}` : 'none'}`,
      ].join('\n  ');
    },
  };
}

function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}

/**
 * Runs `fn(page, context)` in a new phone context of `browser`, then fails if the page logged any console error
 * or threw. When anything fails, saves a full-page screenshot to e2e/out/<test name>.png and prints where the page
 * was: its URL, its headings, its unanswered and failed requests.
 * `options` are extra context options (e.g. `{ javaScriptEnabled: false }`).
 */
export async function withPage(t, browser, options, fn) {
  const context = await browser.newContext({ ...PHONE, ...options });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const requests = watchRequests(page);
  try {
    await fn(page, context);
    if (errors.length > 0) {
      throw new Error(`the page reported ${errors.length} error(s):\n  ${errors.join('\n  ')}`);
    }
  } catch (err) {
    await mkdir(outDir, { recursive: true });
    const file = path.join(outDir, `${slug(t.fullName ?? t.name)}.png`);
    const saved = await page
      .screenshot({ path: file, fullPage: true, timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (saved) t.diagnostic(`screenshot: ${path.relative(process.cwd(), file)}`);
    t.diagnostic(`the page when it failed:\n  ${await requests.describe()}`);
    if (errors.length > 0 && !String(err.message).includes('reported')) {
      t.diagnostic(`page errors before the failure:\n  ${errors.join('\n  ')}`);
    }
    throw err;
  } finally {
    await context.close().catch(() => {});
  }
}
