// Lighthouse accessibility of the borrower app's home, loan and payment pages at a phone's size (390×844), signed in,
// with a loan paid out and a payment open: the budget is 100 on each (issue 19, "Done when"). Run by
// scripts/bench-app-a11y.sh against a development server it started and seeded with one borrower
// (scripts/bench/seed-borrowers.mjs, one Indian borrower with an application under review).
//
// usage: node scripts/bench/app-a11y.mjs BASE_URL SESSION_ID KILAT_LOG OUT_DIR RUNS
// Approves and pays out the borrower's application through the console API (the demo admin kilat serve printed in
// KILAT_LOG), opens a payment of the installment due, then runs Lighthouse (accessibility only) RUNS times on each
// page with the session's cookie; writes OUT_DIR/a11y.json ({ page: { path, scores, failing } }) and prints a line
// per page. Exits 1 when any median score is below 100.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [base, session, kilatLog, outDir, runsArg] = process.argv.slice(2);
if (!base || !session || !kilatLog || !outDir) {
  console.error('usage: node scripts/bench/app-a11y.mjs BASE_URL SESSION_ID KILAT_LOG OUT_DIR [RUNS]');
  process.exit(2);
}
const RUNS = Number(runsArg ?? 1);
const API = `${base.replace(/\/$/, '')}/api/v1`;
const origin = new URL(base).origin;
const require = createRequire(import.meta.url);
const LIGHTHOUSE = require.resolve('lighthouse/cli/index.js');
const CHROME_FLAGS =
  '--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync';

async function call(method, url, { headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const envelope = JSON.parse(text);
  if (envelope.code !== 0) throw new Error(`${method} ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { data: envelope.data, response };
}

// The console, as the demo admin (every role).
const password = readFileSync(kilatLog, 'utf8').match(/as admin, password (\S+)/)?.[1];
if (!password) throw new Error(`${kilatLog} names no demo admin password (is KILAT_MODE=development?)`);
const login = await call('POST', `${API}/console/login`, { headers: { Origin: origin }, body: { username: 'admin', password } });
const consoleHeaders = {
  Origin: origin,
  Cookie: login.response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '),
  'X-CSRF-Token': login.data.csrfToken,
};
const borrower = { 'X-Session-Id': session, 'Accept-Language': 'en-IN' };

const orders = (await call('GET', `${API}/borrower/orders`, { headers: borrower })).data;
if (orders.length !== 1) throw new Error(`expected the seeded borrower's one order, got ${orders.length}`);
const orderNo = orders[0].orderNo;
const no = encodeURIComponent(orderNo);
await call('POST', `${API}/console/orders/${no}/approve`, { headers: consoleHeaders, body: { reason: 'Documents in order.' } });
await call('POST', `${API}/console/orders/${no}/disburse`, { headers: consoleHeaders, body: { bankReference: 'BENCH-A11Y-0001' } });
const payment = (
  await call('POST', `${API}/borrower/orders/${no}/payments`, {
    headers: { ...borrower, 'Idempotency-Key': 'bench-a11y-payment-1' },
    body: { choice: 'due', method: 'upi' },
  })
).data;

const PAGES = {
  home: '/app/home?lang=1',
  loan: `/app/orders/${no}?lang=1`,
  payment: `/app/payments/${encodeURIComponent(payment.paymentId)}?lang=1`,
};
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const results = {};
let failed = false;
for (const [name, pagePath] of Object.entries(PAGES)) {
  const scores = [];
  let failing = [];
  for (let run = 1; run <= RUNS; run++) {
    const out = path.join(outDir, `a11y-${name}-${run}.json`);
    execFileSync(
      process.execPath,
      [
        LIGHTHOUSE,
        `${base.replace(/\/$/, '')}${pagePath}`,
        '--quiet',
        '--only-categories=accessibility',
        '--form-factor=mobile',
        '--screenEmulation.mobile=true',
        '--screenEmulation.width=390',
        '--screenEmulation.height=844',
        '--screenEmulation.deviceScaleFactor=3',
        `--extra-headers=${JSON.stringify({ Cookie: `kilat_session=${session}` })}`,
        '--output=json',
        `--output-path=${out}`,
        `--chrome-flags=${CHROME_FLAGS}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' } },
    );
    const report = JSON.parse(readFileSync(out, 'utf8'));
    if (report.finalDisplayedUrl && !new URL(report.finalDisplayedUrl).pathname.startsWith(pagePath.split('?')[0])) {
      throw new Error(`${name}: Lighthouse ended on ${report.finalDisplayedUrl}, not ${pagePath} (was the session taken?)`);
    }
    scores.push(Math.round(report.categories.accessibility.score * 100));
    failing = report.categories.accessibility.auditRefs
      .map((ref) => report.audits[ref.id])
      .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary')
      .map((audit) => audit.id);
  }
  const score = median(scores);
  results[name] = { path: pagePath, scores, median: score, failing };
  if (score < 100) failed = true;
  console.log(`${score === 100 ? 'PASS' : 'FAIL'} lighthouse accessibility ${name} ${pagePath}: ${score} (runs ${scores.join(', ')})${failing.length ? `; failing: ${failing.join(', ')}` : ''}`);
}
writeFileSync(path.join(outDir, 'a11y.json'), JSON.stringify(results, null, 2));
process.exit(failed ? 1 : 0);
