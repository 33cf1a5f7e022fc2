// Turns what scripts/bench-borrower.sh measured into the "borrower" section of docs/PERFORMANCE.md and prints the
// figures. One budget, the app's first load (compressed JavaScript, counted as report.mjs counts the site's); exits 1
// when a page is over it, a measurement is missing or a response under load was not 200 (after writing the document,
// so the failure is on record).
// usage: node scripts/bench/borrower-report.mjs WORK_DIR docs/PERFORMANCE.md
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [work, docPath] = process.argv.slice(2);
if (!work || !docPath) {
  console.error('usage: node scripts/bench/borrower-report.mjs WORK_DIR DOC');
  process.exit(2);
}

const BEGIN = '<!-- borrower:begin -->';
const END = '<!-- borrower:end -->';
const DATABASES = [
  { id: 'sqlite', name: 'SQLite' },
  { id: 'postgres', name: 'PostgreSQL' },
];
const ENDPOINTS = [
  { id: 'home', path: '/api/v1/borrower/home' },
  { id: 'orders', path: '/api/v1/borrower/orders' },
];
const KB = 1000;
const APP_JS_BUDGET = 200 * KB; // web/README.md: 200 KB of compressed JavaScript for the app's first view
const KFS_BENCHES = [
  { id: 'india_full_kfs', what: 'Full KFS, India: Flexi EMI, ₹50,000 over 12 monthly EMIs (quote, fees, schedule, APR, seal)' },
  { id: 'indonesia_full_kfs', what: 'Full KFS, Indonesia: Rp10,000,000 over 12 months, flat daily rate (the same, plus OJK\'s caps)' },
  { id: 'india_apr_only', what: 'The APR alone, of the India loan\'s 12 installments' },
];

const read = (...parts) => {
  const file = path.join(work, ...parts);
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
};
const readJson = (...parts) => {
  const text = read(...parts);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
};
const meta = Object.fromEntries(
  (read('meta.txt') ?? '')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
const problems = [];
const num = (n, digits = 0) =>
  n == null || Number.isNaN(n) ? 'n/a' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

// ---- wrk ---------------------------------------------------------------------------------------------------
const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const toMs = (value, unit) => Number(value) * UNIT_MS[unit];
const fmtMs = (ms) => (ms == null ? 'n/a' : ms < 1 ? `${num(ms * 1000)} µs` : ms < 10 ? `${num(ms, 2)} ms` : `${num(ms, 1)} ms`);

function parseWrk(text) {
  if (!text) return null;
  const pct = (p) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$`, 'm').exec(text);
    return m ? toMs(m[1], m[2]) : null;
  };
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
  const total = /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m)/m.exec(text);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const non200 = /^non-200: (\d+)/m.exec(text);
  const statuses = /^statuses: (.*)$/m.exec(text);
  return {
    rps: rps ? Number(rps[1]) : null,
    requests: total ? Number(total[1]) : null,
    p50: pct(50),
    p75: pct(75),
    p90: pct(90),
    p99: pct(99),
    socketErrors: sock ? { connect: +sock[1], read: +sock[2], write: +sock[3], timeout: +sock[4] } : null,
    non200: non200 ? Number(non200[1]) : null,
    statuses: statuses ? statuses[1].trim() : null,
  };
}

const results = {};
for (const db of DATABASES) {
  const skipped = read(db.id, 'skipped.txt');
  const measured = existsSync(path.join(work, db.id, 'seed.json'));
  const entry = { skipped: skipped?.trim() ?? null, measured, seed: readJson(db.id, 'seed.json'), endpoints: {} };
  entry.rssKb = Number(read(db.id, 'rss-kb.txt') ?? NaN);
  entry.version = read(db.id, 'version.txt')?.trim() ?? null;
  const serverErrors = (name) => {
    const [count, ...causes] = (read(db.id, name) ?? '').split('\n').filter((l) => l.trim());
    return {
      count: Number(count ?? 0) || 0,
      causes: causes.map((l) => /^\s*(\d+)\s+(.*)$/.exec(l)).filter(Boolean).map((m) => `${m[1]} × ${m[2]}`),
    };
  };
  entry.errorsSeed = serverErrors('errors-seed.txt');
  entry.errorsWrk = serverErrors('errors-wrk.txt');
  if (entry.errorsWrk.count > 0) problems.push(`${db.name}: the server logged ${entry.errorsWrk.count} failed requests under wrk`);
  if (measured) {
    for (const ep of ENDPOINTS) {
      const wrk = parseWrk(read(db.id, `wrk-${ep.id}.txt`));
      const warmup = parseWrk(read(db.id, `warmup-${ep.id}.txt`));
      const [status, bytes] = (read(db.id, `${ep.id}.response`) ?? '').trim().split(/\s+/);
      const load = read(db.id, `load-${ep.id}.txt`)?.trim() ?? null;
      entry.endpoints[ep.id] = { wrk, warmup, status, bytes: Number(bytes), load };
      if (!wrk || wrk.rps == null || wrk.p50 == null || wrk.p99 == null) {
        problems.push(`${db.name} ${ep.path}: wrk's figures are missing`);
      } else if (wrk.non200 == null) {
        problems.push(`${db.name} ${ep.path}: the Lua script did not report its count of non-200 responses`);
      } else if (wrk.non200 > 0) {
        problems.push(`${db.name} ${ep.path}: ${wrk.non200} responses were not 200 (${wrk.statuses})`);
      }
      if (warmup?.non200) problems.push(`${db.name} ${ep.path}: ${warmup.non200} non-200 responses in the warm-up (${warmup.statuses})`);
      if (status !== '200') problems.push(`${db.name} ${ep.path}: a single request answered ${status || 'nothing'}`);
    }
  } else if (!skipped && (meta.databases ?? '').split(/\s+/).includes(db.id)) {
    problems.push(`${db.name}: not measured`);
  }
  results[db.id] = entry;
}

// ---- criterion ---------------------------------------------------------------------------------------------
const fmtNs = (ns) =>
  ns == null ? 'n/a' : ns < 1_000 ? `${num(ns, 1)} ns` : ns < 1_000_000 ? `${num(ns / 1_000, 2)} µs` : `${num(ns / 1_000_000, 2)} ms`;
const kfsText = read('kfs.txt') ?? '';
const kfs = {};
for (const b of KFS_BENCHES) {
  const estimates = readJson('criterion', 'kfs_12_monthly', b.id, 'new', 'estimates.json');
  const line = new RegExp(`kfs_12_monthly/${b.id}\\s+time:\\s+\\[([^\\]]+)\\]`).exec(kfsText);
  kfs[b.id] = {
    median: estimates?.median?.point_estimate ?? null,
    medianLow: estimates?.median?.confidence_interval?.lower_bound ?? null,
    medianHigh: estimates?.median?.confidence_interval?.upper_bound ?? null,
    mean: estimates?.mean?.point_estimate ?? null,
    timeLine: line ? line[1].replace(/\s+/g, ' ') : null,
  };
  if (meta.run_kfs === '1' && kfs[b.id].median == null) problems.push(`KFS benchmark ${b.id}: no median (criterion's estimates.json is missing)`);
}
if (meta.run_kfs === 'failed') problems.push('the KFS benchmark did not compile');

// ---- the app's first load (scripts/bench/transfer.mjs) ------------------------------------------------------
const appTransfer = readJson('app-transfer.json') ?? [];
const appPages = (meta.app_pages ?? '').split(/\s+/).filter(Boolean).map((page) => {
  const t = appTransfer.find((x) => new URL(x.url).pathname + new URL(x.url).search === page);
  const js = (t?.resources ?? []).filter(
    (r) => r.phase === 'first' && !r.fromServiceWorker && !r.failed && /javascript|ecmascript/.test(r.contentType),
  );
  const encodings = [...new Set(js.map((r) => r.encoding || 'identity'))];
  // The same files' precompressed gzip in web/dist, beside what was sent (brotli when the browser takes it).
  const dist = path.join(path.dirname(path.resolve(docPath)), '..', 'web', 'dist');
  const gzFiles = js.map((r) => path.join(dist, `${r.path.split('?')[0]}.gz`));
  const gzBytes = js.length && gzFiles.every(existsSync) ? gzFiles.reduce((n, f) => n + statSync(f).size, 0) : null;
  const pass = t ? t.firstView.jsBytes <= APP_JS_BUDGET : null;
  if (meta.run_app === '1' && !t) problems.push(`the first load of ${page} was not measured`);
  if (pass === false) problems.push(`the first load of ${page} fetched ${num(t.firstView.jsBytes / KB, 1)} KB of compressed JavaScript, over the ${APP_JS_BUDGET / KB} KB budget`);
  return { page, t, encodings, gzBytes, pass };
});

// ---- machine -----------------------------------------------------------------------------------------------
const osRelease = (() => {
  try {
    return /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os.type();
  } catch {
    return os.type();
  }
})();
const cpus = os.cpus();
const machine = `${cpus[0]?.model?.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB memory, ${osRelease} (Linux ${os.release()})`;
const date = meta.date ?? new Date().toISOString().replace(/:\d\d\.\d+Z$/, 'Z');

// ---- the document ------------------------------------------------------------------------------------------
const measuredDbs = DATABASES.filter((db) => results[db.id].measured);
const anySeed = measuredDbs.map((db) => results[db.id].seed).find(Boolean);
const L = [];
L.push(BEGIN);
L.push('## Borrower API and app (issue 3)');
L.push('');
L.push(
  `Written by \`scripts/bench-borrower.sh\` (\`make bench-borrower\`, also run by \`make bench\`) on ${date}, commit \`${meta.commit ?? 'none'}\`` +
    `${meta.dirty ? ' (the binary was built from a working tree with uncommitted changes to the code)' : ''}.`,
);
if (meta.stale) {
  L.push(`**\`${meta.stale}\` changed after the binary was built: these figures may be of older code.**`);
  problems.push(`${meta.stale} changed after the binary was built (run make build)`);
}
L.push(`Machine: ${machine}.`);
const pgVersion = results.postgres.version ? `, PostgreSQL ${results.postgres.version}` : '';
L.push(`Tools: ${meta.wrk ?? 'wrk ?'}, ${meta.rustc ?? 'rustc ?'}${pgVersion}, Node.js ${process.version} (seeding).`);
L.push(
  'The API and KFS figures have no budgets (issue 3 asks for them to be reported); the app\'s first load has one, ' +
    `at most ${APP_JS_BUDGET / KB} KB of compressed JavaScript (\`web/README.md\`), and the script fails when a page is over it.`,
);
L.push('');
L.push('### Home and order list under load');
L.push('');
const markets = anySeed ? `${anySeed.markets.IN} in India, ${anySeed.markets.ID} in Indonesia` : 'half India, half Indonesia';
L.push(
  `${meta.borrowers ?? '?'} signed-in borrowers (${markets}), each with its five certification steps done and one order in ` +
    '`pending_review`, seeded through the API. Every request carries the `X-Session-Id` of the next borrower, round robin ' +
    `(\`scripts/bench/borrower-wrk.lua\`, which also counts every response that is not a 200). \`wrk ${meta.wrk_args ?? '-t2 -c64'} -d${meta.wrk_duration ?? '10s'} --latency\` ` +
    `per endpoint after a ${(meta.wrk_warmup ?? '2s').replace(/^([\d.]+)([a-z]+)$/, '$1 $2')} warm-up of each; kilat with its default settings (one HTTP worker per core, ` +
    '16 pooled database connections), on a fresh SQLite file (WAL) and on a fresh PostgreSQL database on 127.0.0.1. ' +
    'wrk, kilat and PostgreSQL share the machine\'s cores.',
);
L.push('');
L.push(`Load average (1, 5, 15 min) when the script started: ${meta.load_start ?? '?'}; the last column is the 1-minute figure as each run started, this run's own seeding and warm-up included.`);
L.push('');
L.push('| Database | Endpoint | Requests/s | p50 | p99 | Non-200 | One response | Load (1 min) |');
L.push('|---|---|---|---|---|---|---|---|');
for (const db of DATABASES) {
  const r = results[db.id];
  if (!r.measured) {
    L.push(`| ${db.name} | — | ${r.skipped ? 'skipped: PostgreSQL was unreachable' : 'not measured'} | | | | | |`);
    continue;
  }
  for (const ep of ENDPOINTS) {
    const e = r.endpoints[ep.id];
    const w = e.wrk ?? {};
    const non200 = w.non200 == null ? 'n/a' : w.non200 === 0 ? '0' : `**${num(w.non200)}** (${w.statuses})`;
    L.push(
      `| ${db.name} | \`GET ${ep.path}\` | ${num(w.rps)} | ${fmtMs(w.p50)} | ${fmtMs(w.p99)} | ${non200} | ` +
        `${e.status ?? '?'}, ${num(e.bytes)} B JSON | ${e.load?.split(' ')[0] ?? '?'} |`,
    );
  }
}
L.push('');
const sockets = [];
for (const db of measuredDbs) {
  for (const ep of ENDPOINTS) {
    const s = results[db.id].endpoints[ep.id].wrk?.socketErrors;
    if (s && s.connect + s.read + s.write + s.timeout > 0) {
      sockets.push(`${db.name} \`${ep.id}\`: connect ${s.connect}, read ${s.read}, write ${s.write}, timeout ${s.timeout}`);
    }
  }
}
if (sockets.length) L.push(`wrk's socket errors: ${sockets.join('; ')}.`);
else if (measuredDbs.length) L.push('wrk reported no socket errors (connect, read, write, timeout) in any run.');
L.push('');
for (const db of measuredDbs) {
  const s = results[db.id].seed;
  if (!s) continue;
  const slowest = [...s.endpoints].sort((a, b) => b.p99Ms - a.p99Ms)[0];
  const loans = Object.entries(s.loans)
    .map(([k, v]) => `${v} × ${k}`)
    .join(', ');
  L.push(
    `- Seeding on ${db.name}: ${s.borrowers} borrowers in ${num(s.seedSeconds, 1)} s (${num(s.requests)} requests, ${s.concurrency} borrowers at a time); ` +
      `slowest call ${slowest ? `\`${slowest.endpoint}\` (p50 ${fmtMs(slowest.p50Ms)}, p99 ${fmtMs(slowest.p99Ms)})` : 'n/a'}. Loans: ${loans}.` +
      ` kilat's resident memory after the run: ${Number.isFinite(results[db.id].rssKb) ? `${num(results[db.id].rssKb / 1000, 1)} MB` : 'n/a'}.`,
  );
  const r = results[db.id];
  if (s.retryCount > 0 || r.errorsSeed.count > 0) {
    const retries = Object.entries(s.retries ?? {})
      .map(([k, v]) => `${v} × \`${k}\``)
      .join(', ');
    L.push(
      `  **While seeding, the server answered ${num(r.errorsSeed.count)} request(s) with a 5xx**` +
        `${r.errorsSeed.causes.length ? ` (causes in its log: ${r.errorsSeed.causes.join('; ')})` : ''}; ` +
        `the seeding script retried them (${retries || 'none retried'}) and every borrower was seeded. See "What the figures mean".`,
    );
  }
  if (r.errorsWrk.count > 0) {
    L.push(`  Under wrk the server logged ${num(r.errorsWrk.count)} failed request(s): ${r.errorsWrk.causes.join('; ') || 'no cause logged'}.`);
  }
}
L.push('');
L.push('### Key Fact Statement compute time');
L.push('');
if (meta.run_kfs === '1') {
  L.push(
    `\`${meta.kfs_command ?? 'cargo bench -p kilat-domain --bench kfs'}\` (\`crates/domain/benches/kfs.rs\`, criterion, one thread): ` +
      'the median time of one computation, with criterion\'s 95% confidence interval of that median.',
  );
  L.push('');
  L.push('| What | Median | 95% interval | Per second (one core) |');
  L.push('|---|---|---|---|');
  for (const b of KFS_BENCHES) {
    const k = kfs[b.id];
    const interval = k.medianLow == null ? 'n/a' : `${fmtNs(k.medianLow)} – ${fmtNs(k.medianHigh)}`;
    L.push(`| ${b.what} | ${fmtNs(k.median)} | ${interval} | ${k.median ? num(1e9 / k.median) : 'n/a'} |`);
  }
} else if (meta.run_kfs === 'failed') {
  L.push('Not measured: the benchmark (`crates/domain/benches/kfs.rs`) did not compile.');
} else {
  L.push('Not measured in this run (`BENCH_KFS=0`).');
}
L.push('');
L.push('### First load of the borrower app (budget)');
L.push('');
if (meta.run_app === '1') {
  const chromium = meta.chromium ? `${meta.chromium}, ` : '';
  const enc = [...new Set(appPages.flatMap((p) => p.encodings))].map((e) => (e === 'br' ? 'brotli' : e)).join(' and ') || 'n/a';
  L.push(
    `\`scripts/bench/transfer.mjs\` (${chromium}360×740 phone, empty cache, no session) on the SQLite server before seeding: ` +
      'the login screen, the first a new borrower sees in each market (`?lang=1` India, otherwise Indonesia). JavaScript is ' +
      `the bodies of the first view's script responses as the server sent them (${enc}), as the site's first view is counted; ` +
      'what the page or the service worker fetched after the network went quiet is not counted. The verdict is on what ' +
      'was sent; "as gzip" is the same files\' `.gz` in `web/dist` (what a browser without brotli gets). KB = 1000 bytes.',
  );
  L.push('');
  L.push(`| Page | JS files | Compressed JS | As gzip | Budget | Verdict |`);
  L.push('|---|---|---|---|---|---|');
  for (const p of appPages) {
    const f = p.t?.firstView;
    L.push(
      `| \`${p.page}\` | ${f ? f.jsFiles : 'n/a'} | ${f ? `${num(f.jsBytes / KB, 1)} KB (${num(f.jsBytes)} B)` : 'not measured'} | ` +
        `${p.gzBytes == null ? 'n/a' : `${num(p.gzBytes / KB, 1)} KB`} | ` +
        `${APP_JS_BUDGET / KB} KB | ${p.pass == null ? 'FAIL (not measured)' : p.pass ? 'PASS' : '**FAIL**'} |`,
    );
  }
} else {
  L.push('Not measured in this run (`BENCH_APP=0`, or no SQLite half in `BENCH_DATABASES`).');
}
L.push('');
L.push('### What the figures mean');
L.push('');
/** The products of a market in the catalog the binary ships (server/products/*.toml). */
function productCount(market) {
  const dir = path.join(path.dirname(path.resolve(docPath)), '..', 'server', 'products');
  if (!existsSync(dir)) return '?';
  const ofMarket = new RegExp(`^market\\s*=\\s*"${market}"`, 'm');
  return readdirSync(dir).filter((f) => f.endsWith('.toml') && ofMarket.test(readFileSync(path.join(dir, f), 'utf8'))).length;
}
const rpsOf = (db, ep) => results[db]?.endpoints?.[ep]?.wrk?.rps ?? null;
const meaning = [];
meaning.push(
  '`/home` does the most work per request: it finds the session, reads and decrypts the five certification steps, reads ' +
    `the open order, and prices every product of the borrower's market (a sample Key Fact Statement per product: ${productCount('IN')} in ` +
    `India, ${productCount('ID')} in Indonesia). \`/orders\` finds the session and reads the borrower's orders (one row each here).`,
);
const ratios = measuredDbs
  .filter((db) => rpsOf(db.id, 'home') && rpsOf(db.id, 'orders'))
  .map((db, i) => `${num(rpsOf(db.id, 'orders') / rpsOf(db.id, 'home'), 1)}×${i === 0 ? ' as many requests/s as home' : ''} on ${db.name}`);
if (ratios.length) meaning.push(`The order list serves ${ratios.join(', ')}.`);
if (rpsOf('sqlite', 'home') && rpsOf('postgres', 'home')) {
  const ratio = (ep) => rpsOf('postgres', ep) / rpsOf('sqlite', ep);
  meaning.push(
    `PostgreSQL serves ${num(ratio('home') * 100)}% of SQLite's requests/s on home and ${num(ratio('orders') * 100)}% on the order list: ` +
      'SQLite answers in-process, PostgreSQL over a local socket from a server that competes for the same cores.',
  );
}
for (const db of measuredDbs) {
  const h = rpsOf(db.id, 'home');
  if (!kfs.india_full_kfs?.median || !h) continue;
  const budgetUs = (cpus.length / h) * 1e6;
  const counts = [productCount('IN'), productCount('ID')].filter(Number.isFinite);
  if (!counts.length) break;
  const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
  meaning.push(
    `A 12-installment KFS takes ${fmtNs(kfs.india_full_kfs.median)}; the ${fewest === most ? most : `${fewest} or ${most}`} sample prices of a home request (shorter loans, ` +
      `so cheaper) cost at most about ${num((most * kfs.india_full_kfs.median) / 1000)} µs, against the ${num(budgetUs)} µs of machine time ` +
      `each home request took on ${db.name} (${cpus.length} cores / ${num(h)} requests/s, wrk's share included): most of the time ` +
      'goes elsewhere (HTTP, the database round trips, decryption, JSON, and wrk itself).',
  );
  break;
}
for (const db of measuredDbs) {
  const r = results[db.id];
  if (!r.errorsSeed.causes.some((c) => c.includes('database is locked'))) continue;
  const where = Object.keys(r.seed?.retries ?? {})
    .map((k) => `\`${k.replace(/ HTTP \d+$/, '')}\``)
    .filter((v, i, all) => all.indexOf(v) === i)
    .join(', ');
  meaning.push(
    `On ${db.name}, concurrent writes failed while seeding (${where || 'see the log causes above'}): SQLite lets one connection write at a time, ` +
      'and a transaction that has already read cannot wait for the write lock, so SQLite answers `database is locked` at once ' +
      '(SQLITE_BUSY, or SQLITE_BUSY_SNAPSHOT when another write landed since the read; `busy_timeout` does not apply). ' +
      'Borrowers saving at the same moment would see 500s; home and the order list only read, so the figures above are not affected.',
  );
}
meaning.push(
  'These are one small machine\'s figures with the load generator on the same cores, for comparing runs on that machine: ' +
    'a production server, its database and its clients on separate machines will differ.',
);
L.push(meaning.join(' '));
L.push('');
L.push('### Commands');
L.push('');
L.push('```sh');
L.push('make bench-borrower   # make build, then scripts/bench-borrower.sh (make bench runs it after scripts/bench-site.sh)');
L.push('# what the script runs, per database (PORT: a free port; DB: sqlite:///tmp/…/sqlite.db or postgres://postgres@127.0.0.1:5432/kilat_bench_…):');
L.push('KILAT_LISTEN=127.0.0.1:PORT KILAT_DATABASE_URL=DB KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn target/release/kilat serve');
L.push(`node scripts/bench/seed-borrowers.mjs http://127.0.0.1:PORT ${meta.borrowers ?? 200} ${meta.seed_concurrency ?? 8} sessions.txt seed.json`);
for (const ep of ENDPOINTS) {
  L.push(
    `BENCH_SESSIONS=sessions.txt wrk ${meta.wrk_args ?? '-t2 -c64'} -d${meta.wrk_duration ?? '10s'} --latency -s scripts/bench/borrower-wrk.lua http://127.0.0.1:PORT${ep.path}`,
  );
}
L.push(meta.kfs_command ?? 'cargo bench -p kilat-domain --bench kfs --locked');
L.push(`node scripts/bench/transfer.mjs ${(meta.app_pages || '/app/login?lang=1 /app/login').split(/\s+/).map((p) => `'http://127.0.0.1:PORT${p}'`).join(' ')}   # on the SQLite server, before seeding`);
L.push('```');
if (problems.length) {
  L.push('');
  L.push(`**This run had problems:** ${problems.join('; ')}.`);
}
L.push(END);
const section = L.join('\n');

let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
if (!doc.trim()) {
  doc =
    '# Performance\n\n' +
    'Budgets and the figures measured against them. `make bench` runs the benchmark scripts; each writes only its own\n' +
    'section, between its `<!-- NAME:begin -->` and `<!-- NAME:end -->` markers, so the sections of other benchmarks stay.\n' +
    'Figures are from one machine (named in each section): compare runs on the same machine only.\n';
}
const at = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (at >= 0 && end > at) doc = doc.slice(0, at) + section + doc.slice(end + END.length);
else doc = `${doc.replace(/\n*$/, '\n\n')}${section}\n`;
writeFileSync(docPath, doc);

// ---- console -----------------------------------------------------------------------------------------------
console.log('');
for (const db of DATABASES) {
  const r = results[db.id];
  if (!r.measured) {
    console.log(`${db.name}: ${r.skipped ?? 'not measured'}`);
    continue;
  }
  for (const ep of ENDPOINTS) {
    const w = r.endpoints[ep.id].wrk ?? {};
    console.log(`${db.name.padEnd(10)} GET ${ep.path.padEnd(24)} ${num(w.rps).padStart(8)} req/s  p50 ${fmtMs(w.p50)}  p99 ${fmtMs(w.p99)}  non-200 ${w.non200 ?? 'n/a'}`);
  }
}
for (const b of KFS_BENCHES) console.log(`KFS ${b.id}: median ${fmtNs(kfs[b.id].median)}`);
for (const p of meta.run_app === '1' ? appPages : []) {
  const f = p.t?.firstView;
  console.log(
    `${p.pass == null ? 'FAIL' : p.pass ? 'PASS' : 'FAIL'} first load of ${p.page}: ` +
      `${f ? `${num(f.jsBytes / KB, 1)} KB compressed JavaScript in ${f.jsFiles} files` : 'not measured'} (budget ${APP_JS_BUDGET / KB} KB)`,
  );
}
console.log(`Wrote the borrower section of ${path.relative(process.cwd(), docPath) || docPath}.`);
if (problems.length) {
  for (const p of problems) console.error(`PROBLEM: ${p}`);
  process.exit(1);
}
