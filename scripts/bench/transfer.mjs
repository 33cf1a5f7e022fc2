// What a phone transfers on its first visit to a page, as Chromium saw it on the network.
// usage: node scripts/bench/transfer.mjs URL... > result.json
//
// "First view" is everything the page fetched until the network went quiet after the load event (no request for
// 500 ms). What the page fetches later, and what the service worker fetches for itself (its script, its precache;
// Chromium's sizes for those are partial), is reported beside it, not counted. Sizes are Playwright's request.sizes(): the compressed body as received plus
// the response headers (the CSP header alone is ~400 bytes a response).
import { launchChromium, PHONE } from '../../e2e/lib/browser.mjs';

const LATER_MS = Number(process.env.BENCH_TRANSFER_LATER_MS ?? 4000);

async function measure(browser, url) {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const entries = [];
  let phase = 'first';
  const pending = [];
  const record = (request, failed) => {
    const entry = { phase, url: request.url(), failed };
    entries.push(entry);
    pending.push(
      (async () => {
        const response = await request.response().catch(() => null);
        entry.status = response?.status() ?? 0;
        entry.contentType = (response?.headers()['content-type'] ?? '').split(';')[0];
        entry.encoding = response?.headers()['content-encoding'] ?? '';
        entry.fromServiceWorker = Boolean(response?.fromServiceWorker());
        entry.byServiceWorker = Boolean(request.serviceWorker());
        const sizes = await request.sizes().catch(() => null);
        // Chromium reports -1 (or less) for what it did not fetch over the network itself.
        entry.body = Math.max(0, sizes?.responseBodySize ?? 0);
        entry.headers = Math.max(0, sizes?.responseHeadersSize ?? 0);
      })(),
    );
  };
  context.on('requestfinished', (req) => record(req, false));
  context.on('requestfailed', (req) => record(req, true));

  await page.goto(url, { waitUntil: 'load' });
  await page.waitForLoadState('networkidle');
  phase = 'later';
  await page.waitForTimeout(LATER_MS);
  await Promise.all(pending);
  await context.close();

  const onWire = (e) => !e.fromServiceWorker && !e.failed;
  const isJs = (e) => /javascript|ecmascript/.test(e.contentType);
  const sum = (list, f) => list.reduce((n, e) => n + f(e), 0);
  const first = entries.filter((e) => e.phase === 'first' && onWire(e) && !e.byServiceWorker);
  const later = entries.filter((e) => (e.phase === 'later' || e.byServiceWorker) && onWire(e));
  return {
    url,
    firstView: {
      requests: first.length,
      jsBytes: sum(first.filter(isJs), (e) => e.body),
      jsFiles: first.filter(isJs).length,
      totalBytes: sum(first, (e) => e.body + e.headers),
      bodyBytes: sum(first, (e) => e.body),
    },
    later: { requests: later.length, totalBytes: sum(later, (e) => e.body + e.headers) },
    resources: entries.map(({ phase, url: u, status, contentType, encoding, body, headers, byServiceWorker, fromServiceWorker, failed }) => ({
      phase: byServiceWorker ? 'service-worker' : phase,
      path: new URL(u).pathname + new URL(u).search,
      status,
      contentType,
      encoding,
      body,
      headers,
      fromServiceWorker,
      failed,
    })),
  };
}

const urls = process.argv.slice(2);
if (urls.length === 0) {
  console.error('usage: node scripts/bench/transfer.mjs URL...');
  process.exit(2);
}
const chromium = await launchChromium();
try {
  const results = [];
  for (const url of urls) results.push(await measure(chromium.browser, url));
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  await chromium.close();
}
