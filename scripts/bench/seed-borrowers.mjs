// Seeds signed-in borrowers for scripts/bench-borrower.sh through the public API, as the app would: SMS code (read
// from the development outbox), login, the five certification steps, apply, confirm. Each borrower ends with one
// order in pending_review. Half are Indian, half Indonesian; each sends its own X-Forwarded-For address (198.18.0.0/15,
// the benchmarking range) so the daily limit of codes per address does not stop the seeding (the server must run
// with KILAT_TRUST_FORWARDED_FOR=true and KILAT_MODE=development).
//
// usage: node scripts/bench/seed-borrowers.mjs BASE_URL COUNT CONCURRENCY SESSIONS_OUT SUMMARY_JSON_OUT
// Writes one session id a line to SESSIONS_OUT and a summary (timings, loans) to SUMMARY_JSON_OUT; exits 1 when any
// borrower could not be seeded, after printing why.
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

const [base, countArg, concurrencyArg, sessionsOut, summaryOut] = process.argv.slice(2);
if (!base || !countArg || !concurrencyArg || !sessionsOut || !summaryOut) {
  console.error('usage: node scripts/bench/seed-borrowers.mjs BASE_URL COUNT CONCURRENCY SESSIONS_OUT SUMMARY_JSON_OUT');
  process.exit(2);
}
const COUNT = Number(countArg);
const CONCURRENCY = Number(concurrencyArg);
const API = `${base.replace(/\/$/, '')}/api/v1`;
const RUN = randomBytes(3).toString('hex');

// ---- what each borrower sends ------------------------------------------------------------------------------
const pad = (n, width) => String(n).padStart(width, '0');

/** E.164 phones that cannot clash with each other or with the emergency contacts below (98…, 08 12/13…). */
function phoneOf(i, market) {
  return market === 'IN' ? `+9170${pad(i, 8)}` : `+62857${pad(i, 8)}`;
}

function addressOf(i) {
  return `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

const GIVEN = {
  IN: ['Asha', 'Ravi', 'Meena', 'Arjun', 'Priya', 'Vikram', 'Kavya', 'Rahul', 'Divya', 'Sanjay'],
  ID: ['Budi', 'Siti', 'Andi', 'Dewi', 'Agus', 'Rina', 'Eko', 'Putri', 'Joko', 'Wulan'],
};
const FAMILY = {
  IN: ['Verma', 'Rao', 'Iyer', 'Nair', 'Patel', 'Shah', 'Gupta', 'Reddy', 'Das', 'Menon'],
  ID: ['Santoso', 'Aminah', 'Wijaya', 'Lestari', 'Saputra', 'Hidayat', 'Kusuma', 'Pratama', 'Susanto', 'Rahayu'],
};
/** Names have no digits (the server refuses them), so borrower i gets a combination of given and family names. */
function nameOf(i, market) {
  const k = Math.floor(i / 2);
  return `${GIVEN[market][k % 10]} ${FAMILY[market][Math.floor(k / 10) % 10]}`;
}

/** The bodies of server/tests/api/helpers.rs `valid_steps`, with names, ID and account numbers made distinct. */
function stepsOf(i, market) {
  const fullName = nameOf(i, market);
  if (market === 'IN') {
    const letter = String.fromCharCode(65 + (i % 26));
    return [
      ['base', { fullName, dateOfBirth: '1992-03-14', gender: 'female', idNumber: `ABCP${letter}${pad(i % 10000, 4)}F` }],
      ['personal', { education: 'graduate', maritalStatus: 'single', residenceType: 'rented', regionCode: 'MH', cityCode: 'MH-MUM',
        address: `${i + 1} Hill Road, Bandra West`, postalCode: '400050' }],
      ['job', { employmentType: 'salaried_private', employerName: 'Infosys', income: 4_500_000, payDay: 1 }],
      ['extended', { contact1Name: 'Ravi Verma', contact1Relation: 'parent', contact1Phone: '9811122233',
        contact2Name: 'Meena Rao', contact2Relation: 'friend', contact2Phone: '9822233344', consent: true }],
      ['bank', { bankCode: 'HDFC', accountNumber: `5010 0${pad(i, 7)}`, accountNumberConfirm: `50100${pad(i, 7)}`, ifsc: 'HDFC0001234' }],
    ];
  }
  return [
    ['base', { fullName, dateOfBirth: '1990-07-01', gender: 'male', idNumber: `317123456${pad(i, 7)}` }],
    ['personal', { education: 'graduate', maritalStatus: 'married', residenceType: 'owned', regionCode: 'JK', cityCode: 'JK-JKS',
      address: `Jl. Sudirman No. ${i + 1}`, postalCode: '12190' }],
    ['job', { employmentType: 'salaried_private', employerName: 'PT Maju', income: 9_000_000_000, payDay: 25 }],
    ['extended', { contact1Name: 'Siti Aminah', contact1Relation: 'spouse', contact1Phone: '081298765432',
      contact2Name: 'Andi Wijaya', contact2Relation: 'sibling', contact2Phone: '081311122233', consent: true }],
    ['bank', { bankCode: '014', accountNumber: `12${pad(i, 8)}`, accountNumberConfirm: `12${pad(i, 8)}` }],
  ];
}

/** The loan: the product term with the most installments (India: the 12-month EMI), a few amounts from its minimum. */
function loanOf(i, products) {
  let best = null;
  for (const p of products) {
    for (const t of p.terms) {
      if (!best || t.installments > best.term.installments) best = { product: p, term: t };
    }
  }
  if (!best) throw new Error('GET /borrower/products returned no product');
  const { min, max, step } = best.product.amount;
  const amount = Math.min(max, min + step * (i % 5));
  return { productCode: best.product.code, termCode: best.term.code, amount, installments: best.term.installments };
}

// ---- HTTP --------------------------------------------------------------------------------------------------
const timings = new Map(); // "METHOD /path" -> [ms, …]
const retried = new Map(); // "METHOD /path HTTP 500" -> count
let requests = 0;
const MAX_ATTEMPTS = 6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One API call; the envelope's data. A 5xx answer is retried (up to MAX_ATTEMPTS in all, with a growing pause) when
 * `retry` is set, and every retry is counted for the report: the calls that are safe to repeat are the certification
 * saves (a second save is an edit), apply (stores nothing), confirm (idempotency key) and the reads. Asking for a code
 * and logging in are not repeated.
 */
async function call(label, method, path, { session, address, body, expect = [200], retry = true } = {}) {
  const headers = { 'accept-language': 'en', 'x-forwarded-for': address };
  if (session) headers['x-session-id'] = session;
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const response = await fetch(`${API}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    requests += 1;
    if (!timings.has(label)) timings.set(label, []);
    timings.get(label).push(ms);
    if (retry && response.status >= 500 && attempt < MAX_ATTEMPTS) {
      const key = `${label} HTTP ${response.status}`;
      retried.set(key, (retried.get(key) ?? 0) + 1);
      await sleep(20 * 2 ** attempt * (0.5 + Math.random()));
      continue;
    }
    if (!expect.includes(response.status)) {
      throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 400)}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
    }
    return parse(method, path, text);
  }
}

function parse(method, path, text) {
  const envelope = JSON.parse(text);
  if (envelope.code !== 0) throw new Error(`${method} ${path}: not a success envelope: ${text.slice(0, 400)}`);
  return envelope.data;
}

async function seed(i) {
  const market = i % 2 === 0 ? 'IN' : 'ID';
  const phone = phoneOf(i, market);
  const address = addressOf(i);
  await call('POST /borrower/login/sms-code', 'POST', '/borrower/login/sms-code', { address, body: { market, phone }, retry: false });
  const outbox = await call('GET /dev/outbox', 'GET', `/dev/outbox?phone=${encodeURIComponent(phone)}`, { address });
  const code = outbox[0]?.code;
  if (!code) throw new Error(`no code in the development outbox for ${phone} (is KILAT_MODE=development?)`);
  const login = await call('POST /borrower/login', 'POST', '/borrower/login', { address, body: { market, phone, code }, retry: false });
  const session = login.sessionId;
  for (const [step, body] of stepsOf(i, market)) {
    await call('POST /borrower/certification/{step}', 'POST', `/borrower/certification/${step}`, { session, address, body });
  }
  const products = await call('GET /borrower/products', 'GET', '/borrower/products', { session, address });
  const loan = loanOf(i, products);
  const choice = { productCode: loan.productCode, amount: loan.amount, termCode: loan.termCode };
  const kfs = await call('POST /borrower/apply', 'POST', '/borrower/apply', { session, address, body: choice });
  const agreement = await call('POST /borrower/apply/agreement', 'POST', '/borrower/apply/agreement', { session, address, body: choice });
  const order = await call('POST /borrower/orders', 'POST', '/borrower/orders', {
    session,
    address,
    body: { ...choice, kfsHash: kfs.contentHash, agreementHash: agreement.agreementHash, idempotencyKey: `bench-${RUN}-${pad(i, 4)}` },
    // 200 is the order this key already made: a retry after a 5xx whose order was stored nonetheless.
    expect: [201, 200],
  });
  return { i, market, session, orderNo: order.orderNo, loan };
}

/** Runs `work` over 0..count-1, `concurrency` at a time; collects results and failures. */
async function pool(count, concurrency, work) {
  const results = new Array(count);
  const failures = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      try {
        results[i] = await work(i);
      } catch (error) {
        failures.push({ i, error: String(error?.message ?? error) });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { results, failures };
}

// ---- run ---------------------------------------------------------------------------------------------------
const started = performance.now();
const { results, failures } = await pool(COUNT, CONCURRENCY, seed);
const seedSeconds = (performance.now() - started) / 1000;

// Every seeded borrower's order list has its one order, and home shows it open.
const seeded = results.filter(Boolean);
const check = await pool(seeded.length, CONCURRENCY, async (k) => {
  const b = seeded[k];
  const address = addressOf(b.i);
  const orders = await call('GET /borrower/orders', 'GET', '/borrower/orders', { session: b.session, address });
  if (orders.length !== 1 || orders[0].orderNo !== b.orderNo) {
    throw new Error(`borrower ${b.i}: expected one order ${b.orderNo}, got ${JSON.stringify(orders).slice(0, 200)}`);
  }
  const home = await call('GET /borrower/home', 'GET', '/borrower/home', { session: b.session, address });
  if (home.openOrder?.orderNo !== b.orderNo || !home.certification?.complete) {
    throw new Error(`borrower ${b.i}: home does not show the open order and a complete certification`);
  }
});
failures.push(...check.failures.map((f) => ({ i: seeded[f.i].i, error: `check: ${f.error}` })));

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const endpoints = [...timings.entries()].map(([label, list]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return {
    endpoint: label,
    count: sorted.length,
    p50Ms: +quantile(sorted, 0.5).toFixed(2),
    p99Ms: +quantile(sorted, 0.99).toFixed(2),
    maxMs: +sorted[sorted.length - 1].toFixed(2),
  };
});
const loans = {};
for (const b of seeded) {
  const key = `${b.market} ${b.loan.productCode} ${b.loan.termCode} (${b.loan.installments} installments)`;
  loans[key] = (loans[key] ?? 0) + 1;
}
writeFileSync(sessionsOut, seeded.map((b) => b.session).join('\n') + (seeded.length ? '\n' : ''));
writeFileSync(
  summaryOut,
  JSON.stringify(
    {
      borrowers: seeded.length,
      wanted: COUNT,
      markets: { IN: seeded.filter((b) => b.market === 'IN').length, ID: seeded.filter((b) => b.market === 'ID').length },
      concurrency: CONCURRENCY,
      seedSeconds: +seedSeconds.toFixed(2),
      requests,
      loans,
      endpoints,
      retries: Object.fromEntries(retried),
      retryCount: [...retried.values()].reduce((a, b) => a + b, 0),
      failures: failures.slice(0, 20),
      failureCount: failures.length,
    },
    null,
    2,
  ),
);

console.error(
  `seeded ${seeded.length} of ${COUNT} borrowers (IN ${seeded.filter((b) => b.market === 'IN').length}, ` +
    `ID ${seeded.filter((b) => b.market === 'ID').length}) in ${seedSeconds.toFixed(1)} s, ${requests} requests, ${CONCURRENCY} at a time`,
);
if (retried.size) {
  console.error(`  retried after a 5xx answer: ${[...retried.entries()].map(([k, v]) => `${v} × ${k}`).join(', ')}`);
}
if (failures.length) {
  for (const f of failures.slice(0, 10)) console.error(`  borrower ${f.i}: ${f.error}`);
  if (failures.length > 10) console.error(`  … and ${failures.length - 10} more`);
  process.exit(1);
}
