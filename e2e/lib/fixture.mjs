// One server (fresh SQLite file) and one chromium per test file, set up by node:test hooks.
import { before, after } from 'node:test';
import { startKilat } from './server.mjs';
import { launchChromium, withPage } from './browser.mjs';

/** A journey that takes longer than this has hung (the slowest, the banner's, takes about 15 s). */
export const JOURNEY = { timeout: 90_000 };

/**
 * Call at the top of a test file. The returned object is filled in by a `before` hook:
 * `site.url('/?lang=1')`, `site.server.storedMessages()`, `site.page(t, options, async (page) => …)`.
 */
export function useSite({ env } = {}) {
  const site = {
    server: null,
    chromium: null,
    url(path = '/') {
      return new URL(path, this.server.url).href;
    },
    async page(t, options, fn) {
      if (typeof options === 'function') [options, fn] = [{}, options];
      try {
        return await withPage(t, this.chromium.browser, options, fn);
      } catch (err) {
        // A journey that fails because the server went away should say so, with what it printed.
        const exited = this.server.exited();
        if (exited) t.diagnostic(`kilat serve had exited (${JSON.stringify(exited)}); its output:\n${this.server.output().slice(-4000)}`);
        throw err;
      }
    },
  };
  before(async () => {
    const [server, chromium] = await Promise.allSettled([startKilat({ env }), launchChromium()]);
    site.server = server.value ?? null;
    site.chromium = chromium.value ?? null;
    const failed = [server, chromium].find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  after(async () => {
    await Promise.all([site.chromium?.close(), site.server?.stop()]);
  });
  return site;
}
