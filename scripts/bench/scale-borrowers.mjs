// The borrower side of scripts/bench-scale.sh: signs in a sample of the borrowers `kilat dev seed` wrote, one at a
// time, as the app would (SMS code from the development outbox, login), reads each one's loan plan and repayment
// choices, and in India pays the installment due (a UPI payment, its UTR) and has finance confirm it (the console's
// POST /console/payments/{id}/confirm, as an operator with the finance role). Every call is timed; nothing runs
// concurrently, so the times are a call's own on the seeded book.
//
// usage: node scripts/bench/scale-borrowers.mjs BASE_URL SAMPLE_TSV PHONE_OFFSET OPERATOR PASSWORD OUT_DIR
//   SAMPLE_TSV: borrower id, market (IN or ID), masked phone, order number of an open loan; a row a line.
//   PHONE_OFFSET: the borrowers in the database before the seeding (the seeder numbers phones after them).
// Writes to OUT_DIR: sessions.txt (a session id a line), plan.txt, repayment.txt and methods.txt ("session path" a
// line, for borrower-wrk.lua) and summary.json (per call: count, p50, p99, max in ms; the borrowers signed in; the payments
// confirmed). Exits 1, after saying why, when a borrower cannot be signed in or a call fails. With SCALE_MARKS set, appends
// "ISO time<TAB>call" to that file as each call starts, so that the statements PostgreSQL logged can be told apart.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [base, sampleFile, offsetArg, operator, password, outDir] = process.argv.slice(2);
if (!base || !sampleFile || offsetArg === undefined || !operator || !password || !outDir) {
  console.error('usage: node scripts/bench/scale-borrowers.mjs BASE_URL SAMPLE_TSV PHONE_OFFSET OPERATOR PASSWORD OUT_DIR');
  process.exit(2);
}
const API = `${base.replace(/\/$/, '')}/api/v1`;
const OFFSET = Number(offsetArg);
const RUN = Date.now().toString(36);
const timings = new Map();

/** The seeder's phone of borrower number `n` (server/src/jobs/dataset.rs, `phone_borrower`). */
function phoneOf(n, market) {
  return market === 'IN' ? `+917${String(n % 1e9).padStart(9, '0')}` : `+62812${String(n % 1e8).padStart(8, '0')}`;
}

async function call(label, method, url, { headers = {}, body, expect = [200] } = {}) {
  if (process.env.SCALE_MARKS) appendFileSync(process.env.SCALE_MARKS, `${new Date().toISOString()}\t${label ?? `${method} ${url}`}\n`);
  const started = performance.now();
  const response = await fetch(`${API}${url}`, {
    method,
    headers: { 'accept-language': 'en', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (label) {
    if (!timings.has(label)) timings.set(label, []);
    timings.get(label).push(performance.now() - started);
  }
  if (!expect.includes(response.status)) throw new Error(`${method} ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { data: JSON.parse(text).data, response };
}

const rows = readFileSync(sampleFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [id, market, masked, orderNo] = line.split('\t');
    return { id, market, masked, orderNo };
  });
if (rows.length === 0) throw new Error(`no borrowers in ${sampleFile}`);

// Finance, signed in once: the cookie and its CSRF token.
const signIn = await call(null, 'POST', '/console/login', { body: { username: operator, password } });
const cookie = (signIn.response.headers.get('set-cookie') ?? '').match(/kilat_console=[^;]+/)?.[0];
if (!cookie) throw new Error('the finance operator could not sign in');
const finance = { cookie, origin: base.replace(/\/$/, ''), 'x-csrf-token': signIn.data.csrfToken };

const sessions = [];
const plans = [];
const repayments = [];
const methods = [];
let confirmed = 0;
for (const [i, row] of rows.entries()) {
  const number = /b(\d{9})$/.exec(row.id);
  if (!number) throw new Error(`${row.id} is not a borrower of \`kilat dev seed\``);
  const phone = phoneOf(OFFSET + Number(number[1]), row.market);
  if (!row.masked.endsWith(phone.slice(-4))) {
    throw new Error(`${row.id}: the phone worked out (…${phone.slice(-4)}) is not the stored one (${row.masked}): is PHONE_OFFSET right?`);
  }
  const market = row.market;
  const address = { 'x-forwarded-for': `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}` };
  await call('POST /borrower/login/sms-code', 'POST', '/borrower/login/sms-code', { headers: address, body: { market, phone } });
  const outbox = await call(null, 'GET', `/dev/outbox?phone=${encodeURIComponent(phone)}`, { headers: address });
  const code = outbox.data[0]?.code;
  if (!code) throw new Error(`no code in the development outbox for ${phone} (is KILAT_MODE=development?)`);
  const login = await call('POST /borrower/login', 'POST', '/borrower/login', { headers: address, body: { market, phone, code } });
  const session = login.data.sessionId;
  const borrower = { ...address, 'x-session-id': session };
  const no = encodeURIComponent(row.orderNo);
  await call('GET /borrower/home', 'GET', '/borrower/home', { headers: borrower });
  await call('GET /borrower/orders', 'GET', '/borrower/orders', { headers: borrower });
  await call('GET /borrower/orders/{orderNo}/plan', 'GET', `/borrower/orders/${no}/plan`, { headers: borrower });
  await call('GET /borrower/orders/{orderNo}/repayment', 'GET', `/borrower/orders/${no}/repayment`, { headers: borrower });
  await call('GET /borrower/payment-types', 'GET', `/borrower/payment-types?orderNo=${no}`, { headers: borrower });
  sessions.push(session);
  plans.push(`${session} /api/v1/borrower/orders/${no}/plan`);
  repayments.push(`${session} /api/v1/borrower/orders/${no}/repayment`);
  methods.push(`${session} /api/v1/borrower/payment-types?orderNo=${no}`);
  if (market !== 'IN') continue;
  // India: the installment due, by UPI, its UTR, and finance's confirmation of the amount.
  const payment = await call('POST /borrower/orders/{orderNo}/payments', 'POST', `/borrower/orders/${no}/payments`, {
    headers: { ...borrower, 'idempotency-key': `scale-${RUN}-${i}` },
    body: { choice: 'due', method: 'upi' },
  });
  const id = encodeURIComponent(payment.data.paymentId);
  const utr = `9${String(Date.now() % 1e8).padStart(8, '0')}${String(i).padStart(3, '0')}`.slice(0, 12);
  await call('POST /borrower/payments/{paymentId}/utr', 'POST', `/borrower/payments/${id}/utr`, { headers: borrower, body: { utr } });
  const done = await call('POST /console/payments/{paymentId}/confirm', 'POST', `/console/payments/${id}/confirm`, {
    headers: finance,
    body: { amount: payment.data.amount },
  });
  if (done.data.payment.status !== 'confirmed') throw new Error(`payment ${payment.data.paymentId}: ${JSON.stringify(done.data.payment)}`);
  confirmed += 1;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const calls = {};
for (const [label, list] of timings) {
  const sorted = [...list].sort((a, b) => a - b);
  calls[label] = { count: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) };
}
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'sessions.txt'), `${sessions.join('\n')}\n`);
writeFileSync(path.join(outDir, 'plan.txt'), `${plans.join('\n')}\n`);
writeFileSync(path.join(outDir, 'repayment.txt'), `${repayments.join('\n')}\n`);
writeFileSync(path.join(outDir, 'methods.txt'), `${methods.join('\n')}\n`);
writeFileSync(path.join(outDir, 'summary.json'), JSON.stringify({ borrowers: sessions.length, confirmed, calls }, null, 2));
console.log(`signed in ${sessions.length} borrowers, ${confirmed} payments confirmed`);
