// Turns what scripts/bench-borrower.sh measured into the "borrower" section of docs/PERFORMANCE.md and prints the
// figures with PASS/FAIL per target. Targets, per placement (see the script): pinned on SQLite, issue 20's (the order
// list at least 1.0× the reference's order list, home at least 0.8× it, both p99 under 10 ms, no non-200); shared,
// issue 7's per database (1.0× and 0.7×, p99 under 10 ms, no non-200) with issue 20's 2.0× for both on PostgreSQL;
// kilat's memory after the SQLite run under 50 MB; and the app's first load (compressed JavaScript, counted as
// report.mjs counts the site's). Exits 1 when a
// target fails or a measurement is missing (after writing the document, so the failure is on record).
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
  { id: 'orders', path: '/api/v1/borrower/orders', name: 'order list' },
  { id: 'home', path: '/api/v1/borrower/home', name: 'home' },
];
/** The least ratio to the reference, per endpoint: pinned on SQLite is issue 20's reference figure; shared keeps
 * issue 7's targets, raised by issue 20 on PostgreSQL. No target for a pinned PostgreSQL run (PostgreSQL floats). */
const minRatio = (dbId, placement, ep) => {
  if (placement.startsWith('pinned-')) return dbId === 'sqlite' ? { orders: 1.0, home: 0.8 }[ep] : null;
  return dbId === 'postgres' ? 2.0 : { orders: 1.0, home: 0.7 }[ep];
};
const REF_PATH = '/orders';
const P99_LIMIT_MS = 10;
const MEMORY_LIMIT_BYTES = 50e6; // MB = 10^6 bytes; /proc's "kB" are KiB
const KB = 1000;
const APP_JS_BUDGET = 150 * KB; // web/README.md, issue 19: 150 KB of compressed JavaScript for the app's first view
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
const fmtKb = (kb) => (Number.isFinite(kb) && kb > 0 ? `${num((kb * 1024) / 1e6, 1)} MB` : 'n/a');
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

const median = (xs) => {
  const v = xs.filter((x) => x != null && !Number.isNaN(x)).sort((x, y) => x - y);
  if (!v.length) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const max = (xs) => {
  const v = xs.filter((x) => x != null && !Number.isNaN(x));
  return v.length ? Math.max(...v) : null;
};
const rounds = Number(meta.rounds ?? 0);
const placements = (meta.placements ?? 'shared').split(/\s+/).filter(Boolean);
const placementName = (pl) =>
  pl.startsWith('pinned-')
    ? `pinned: servers on core${pl.includes('-', 7) || pl.includes('_') ? 's' : ''} ${pl.slice(7).replaceAll('_', ',')}, wrk on ${meta.wrk_cpus ?? '?'}`
    : 'shared: servers and wrk on every core';
const loadOf = (text) => {
  const [start, end] = (text ?? '').trim().split('\n');
  return { start: start?.trim() || null, end: end?.trim() || null };
};
/** "server_s wrk_user_s wrk_sys_s wall_s" of one run (scripts/bench-borrower.sh's wrk_run). */
const cpuOf = (text) => {
  const [server, wrkUser, wrkSys, wall] = (text ?? '').trim().split(/\s+/).map(Number);
  return Number.isFinite(server) && Number.isFinite(wall) && wall > 0 ? { server, wrk: wrkUser + wrkSys, wall } : null;
};
/** One side (kilat or the reference) of one comparison: every round's wrk figures, and their medians. */
function side(dbId, pl, prefix) {
  const runs = [];
  for (let r = 1; r <= rounds; r++) {
    runs.push({
      wrk: parseWrk(read(dbId, pl, `${prefix}-${r}.txt`)),
      load: loadOf(read(dbId, pl, `${prefix}-${r}.load`)),
      cpu: cpuOf(read(dbId, pl, `${prefix}-${r}.cpu`)),
    });
  }
  // CPU per request (µs of the server process, of wrk), and how busy each was (cores' worth), medians of the rounds.
  const perRequest = (k) => median(runs.map((x) => (x.cpu && x.wrk?.requests ? (x.cpu[k] * 1e6) / x.wrk.requests : null)));
  const busy = (k) => median(runs.map((x) => (x.cpu ? x.cpu[k] / x.cpu.wall : null)));
  const w = (k) => runs.map((x) => x.wrk?.[k] ?? null);
  const non200 = runs.reduce((n, x) => (x.wrk?.non200 == null ? null : n == null ? null : n + x.wrk.non200), 0);
  const statuses = runs.map((x) => x.wrk?.statuses).filter((t) => t && t !== '-');
  const sockets = runs.map((x) => x.wrk?.socketErrors).filter(Boolean);
  return {
    runs,
    rps: median(w('rps')),
    p50: median(w('p50')),
    p99: median(w('p99')),
    p99Worst: max(w('p99')),
    non200,
    statuses: statuses.join(', '),
    socketErrors: sockets.reduce((n, s) => n + s.connect + s.read + s.write + s.timeout, 0),
    loadStart: runs[0]?.load.start ?? null,
    loadEnd: runs[runs.length - 1]?.load.end ?? null,
    serverUsPerRequest: perRequest('server'),
    wrkUsPerRequest: perRequest('wrk'),
    serverBusy: busy('server'),
    wrkBusy: busy('wrk'),
  };
}

const serverErrors = (...parts) => {
  const [count, ...causes] = (read(...parts) ?? '').split('\n').filter((l) => l.trim());
  return {
    count: Number(count ?? 0) || 0,
    causes: causes.map((l) => /^\s*(\d+)\s+(.*)$/.exec(l)).filter(Boolean).map((m) => `${m[1]} × ${m[2]}`),
  };
};
const results = {};
for (const db of DATABASES) {
  const skipped = read(db.id, 'skipped.txt');
  const measured = existsSync(path.join(work, db.id, 'seed.json'));
  const entry = { skipped: skipped?.trim() ?? null, measured, seed: readJson(db.id, 'seed.json'), placements: {} };
  entry.version = read(db.id, 'version.txt')?.trim() ?? null;
  entry.refSeedSeconds = Number(read(db.id, 'ref-seed-seconds.txt') ?? NaN);
  entry.errorsSeed = serverErrors(db.id, 'errors-seed.txt');
  if (measured) {
    for (const pl of placements) {
      if (!existsSync(path.join(work, db.id, pl))) continue;
      const p = { endpoints: {}, name: placementName(pl) };
      const [rssKb, hwmKb] = (read(db.id, pl, 'memory-kb.txt') ?? '').trim().split(/\s+/).map(Number);
      const [refRssKb, refHwmKb] = (read(db.id, pl, 'ref-memory-kb.txt') ?? '').trim().split(/\s+/).map(Number);
      Object.assign(p, { rssKb, hwmKb, refRssKb, refHwmKb });
      p.threads = Number(read(db.id, pl, 'threads.txt') ?? NaN);
      p.wrkArgs = read(db.id, pl, 'wrk-args.txt')?.trim() ?? null;
      const [refStatus, refBytes] = (read(db.id, pl, 'ref.response') ?? '').trim().split(/\s+/);
      p.ref = { status: refStatus, bytes: Number(refBytes) };
      p.errorsWrk = serverErrors(db.id, pl, 'errors-wrk.txt');
      const where = `${db.name} (${pl})`;
      if (p.errorsWrk.count > 0) problems.push(`${where}: the server logged ${p.errorsWrk.count} failed requests under wrk`);
      const refWarmup = parseWrk(read(db.id, pl, 'warmup-ref.txt'));
      if (refWarmup?.non200) problems.push(`${where} reference: ${refWarmup.non200} non-200 responses in the warm-up (${refWarmup.statuses})`);
      if (p.ref.status !== '200') problems.push(`${where} reference ${REF_PATH}: a single request answered ${p.ref.status || 'nothing'}`);
      for (const ep of ENDPOINTS) {
        const kilat = side(db.id, pl, `wrk-${ep.id}`);
        const ref = side(db.id, pl, `wrk-ref-${ep.id}`);
        const ratios = kilat.runs.map((k, i) => {
          const a = k.wrk?.rps;
          const b = ref.runs[i]?.wrk?.rps;
          return a && b ? a / b : null;
        });
        const warmup = parseWrk(read(db.id, pl, `warmup-${ep.id}.txt`));
        const [status, bytes] = (read(db.id, pl, `${ep.id}.response`) ?? '').trim().split(/\s+/);
        p.endpoints[ep.id] = { kilat, ref, ratios, ratio: median(ratios), warmup, status, bytes: Number(bytes) };
        for (const [who, x] of [['kilat', kilat], ['the reference', ref]]) {
          x.runs.forEach((run, i) => {
            if (!run.wrk || run.wrk.rps == null || run.wrk.p50 == null || run.wrk.p99 == null) {
              problems.push(`${where} ${who} (${ep.id} round ${i + 1}): wrk's figures are missing`);
            } else if (run.wrk.non200 == null) {
              problems.push(`${where} ${who} (${ep.id} round ${i + 1}): the Lua script did not report its count of non-200 responses`);
            }
          });
        }
        if (ref.non200) problems.push(`${where}: the reference answered ${ref.non200} non-200 responses (${ref.statuses}): its figures are not comparable`);
        if (warmup?.non200) problems.push(`${where} ${ep.path}: ${warmup.non200} non-200 responses in the warm-up (${warmup.statuses})`);
        if (status !== '200') problems.push(`${where} ${ep.path}: a single request answered ${status || 'nothing'}`);
      }
      entry.placements[pl] = p;
    }
  } else if (!skipped && (meta.databases ?? '').split(/\s+/).includes(db.id)) {
    problems.push(`${db.name}: not measured`);
  }
  // Memory, the bodies and the "meaning" figures come from the shared placement (kilat's default workers), else the last.
  const pls = Object.keys(entry.placements);
  entry.main = entry.placements.shared ?? entry.placements[pls[pls.length - 1]] ?? null;
  results[db.id] = entry;
}

// ---- targets (issues 7 and 20) -------------------------------------------------------------------------------
const targets = [];
const target = (what, db, measured, limit, pass) => targets.push({ what, db, measured, limit, pass });
const shortPlacement = (pl) => (pl.startsWith('pinned-') ? `pinned, server core${/[-_]/.test(pl.slice(7)) ? 's' : ''} ${pl.slice(7).replaceAll('_', ',')}` : 'shared');
for (const db of DATABASES) {
  const r = results[db.id];
  if (!r.measured) {
    if (!r.skipped && (meta.databases ?? '').split(/\s+/).includes(db.id)) target('every target', db.name, 'not measured', '—', null);
    continue;
  }
  for (const [pl, p] of Object.entries(r.placements)) {
    const where = `${db.name}, ${shortPlacement(pl)}`;
    for (const ep of ENDPOINTS) {
      const least = minRatio(db.id, pl, ep.id);
      const e = p.endpoints[ep.id];
      const measured = e.ratio == null ? 'not measured' : `${num(e.ratio, 2)}× (rounds: ${e.ratios.map((x) => (x == null ? 'n/a' : `${num(x, 2)}×`)).join(', ')})`;
      if (least == null) continue;
      target(`${ep.name} (\`${ep.path}\`) vs the reference's order list, requests/s`, where, measured, `≥ ${num(least, 1)}×`,
        e.ratio == null ? null : e.ratio >= least);
    }
    for (const ep of ENDPOINTS) {
      const k = p.endpoints[ep.id].kilat;
      target(`${ep.name} p99 latency (median of rounds; worst round)`, where,
        k.p99 == null ? 'not measured' : `${fmtMs(k.p99)} (worst ${fmtMs(k.p99Worst)})`, `< ${P99_LIMIT_MS} ms`,
        k.p99 == null ? null : k.p99 < P99_LIMIT_MS);
    }
    const all = ENDPOINTS.flatMap((ep) => [p.endpoints[ep.id].kilat.non200, p.endpoints[ep.id].warmup?.non200 ?? null]);
    const total = all.includes(null) ? null : all.reduce((x, y) => x + y, 0);
    target('non-200 answers of kilat (both endpoints, every round and the warm-up)', where, total == null ? 'not measured' : num(total), '0',
      total == null ? null : total === 0);
  }
}
if (results.sqlite.main) {
  const { rssKb, hwmKb } = results.sqlite.main;
  const bytes = rssKb * 1024;
  target(
    'kilat\'s resident memory after the SQLite run (VmRSS; its peak VmHWM)',
    `SQLite, ${shortPlacement(results.sqlite.placements.shared ? 'shared' : Object.keys(results.sqlite.placements).pop())}`,
    Number.isFinite(rssKb) && rssKb > 0 ? `${num(bytes / 1e6, 1)} MB (peak ${num((hwmKb * 1024) / 1e6, 1)} MB)` : 'not measured',
    `< ${MEMORY_LIMIT_BYTES / 1e6} MB`,
    Number.isFinite(rssKb) && rssKb > 0 ? bytes < MEMORY_LIMIT_BYTES : null,
  );
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
if (meta.run_app === '1') {
  for (const p of appPages) {
    target(`the app's first load, \`${p.page}\`: compressed JavaScript`, 'SQLite',
      p.t ? `${num(p.t.firstView.jsBytes / KB, 1)} KB` : 'not measured', `≤ ${APP_JS_BUDGET / KB} KB`, p.pass);
  }
}

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
L.push('## Borrower API and app (issues 3 and 7)');
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
  `Load average (1, 5, 15 min) when the script started: ${meta.load_start ?? '?'}; when it wrote this: ${meta.load_end ?? '?'}. ` +
    'The machine has few cores and wrk runs on them too: the ratios against the reference, measured in the same run, are ' +
    'the figures to compare between runs; absolute requests/s move with whatever else the machine is doing.',
);
L.push('');
L.push('### Targets');
L.push('');
L.push('| Target | Database | Measured | Limit | Result |');
L.push('|---|---|---|---|---|');
for (const t of targets) {
  L.push(`| ${t.what} | ${t.db} | ${t.measured} | ${t.limit} | ${t.pass == null ? '**FAIL** (not measured)' : t.pass ? 'PASS' : '**FAIL**'} |`);
}
L.push('');
L.push('### Home and order list against the reference');
L.push('');
const markets = anySeed ? `${anySeed.markets.IN} in India, ${anySeed.markets.ID} in Indonesia` : 'half India, half Indonesia';
L.push(
  `kilat: ${meta.borrowers ?? '?'} signed-in borrowers (${markets}), each with its five certification steps done and one order in ` +
    '`pending_review`, seeded through the API. The reference (`../shared/bench/ref-server`, a plain axum + sqlx server: ' +
    'hash the token, find the live session and its borrower, list that borrower\'s orders, answer JSON; built with ' +
    `\`cargo build --release\` into \`${(meta.ref_target ?? '').replace(process.env.HOME ?? '\u0000', '~')}\`) seeded its own ` +
    `${meta.borrowers ?? '?'} borrowers, each with a session and an order (\`ref-server seed\`). Every request carries the ` +
    '`X-Session-Id` of the next borrower, round robin (`scripts/bench/borrower-wrk.lua`, which also counts every response ' +
    `that is not a 200). \`wrk -tT -c${meta.wrk_connections ?? 64} -d${meta.wrk_duration ?? '10s'} --latency\`, after a ` +
    `${(meta.wrk_warmup ?? '2s').replace(/^([\d.]+)([a-z]+)$/, '$1 $2')} warm-up of each endpoint; ${rounds} alternating rounds, ` +
    'each a kilat run followed at once by a run of the reference\'s `GET /orders`; a ratio is kilat\'s requests/s over the ' +
    'reference run that followed it, and the verdict is the median of the rounds\' ratios. Both servers run side by side ' +
    'with their default settings (kilat: one HTTP worker per core it may use, its configured pool; the reference: tokio\'s ' +
    'default runtime, a thread per core it may use, a pool of 4 SQLite or 16 PostgreSQL connections), on fresh SQLite files ' +
    '(WAL) and fresh PostgreSQL databases on 127.0.0.1. Each placement restarts both servers: **pinned** starts them with ' +
    `\`taskset -c\` on the server cores and runs wrk on the others (\`taskset -c ${meta.wrk_cpus ?? '?'}\`, a wrk thread per ` +
    'core), the reference figure of issue 20 (PostgreSQL\'s own processes are not pinned); **shared** pins nothing and runs ' +
    '`wrk -t2`, so wrk, both servers and PostgreSQL share the machine\'s cores. Latencies are the median of the rounds; ' +
    'the load average is the 1-minute figure as the first round started and as the last ended. "CPU/request" is the CPU ' +
    'time (user and system, every thread) the server process and wrk used during the run over the requests served, and ' +
    '"busy" the same time over the run\'s length, in cores: a pinned run whose wrk is near 1.0 core per wrk core is ' +
    'limited by wrk, not by the servers.',
);
L.push('');
L.push('| Database | Placement | Server and endpoint | Requests/s per round | Median | p50 | p99 (worst round) | Non-200 | CPU/request: server, wrk | Busy (cores): server, wrk | Load, start → end |');
L.push('|---|---|---|---|---|---|---|---|---|---|---|');
const fmtUs = (us) => (us == null ? 'n/a' : `${num(us)} µs`);
for (const db of DATABASES) {
  const r = results[db.id];
  if (!r.measured) {
    L.push(`| ${db.name} | — | — | ${r.skipped ? 'skipped: PostgreSQL was unreachable' : 'not measured'} | | | | | | | |`);
    continue;
  }
  for (const [pl, p] of Object.entries(r.placements)) {
    for (const ep of ENDPOINTS) {
      const e = p.endpoints[ep.id];
      for (const [label, x] of [
        [`kilat \`GET ${ep.path}\``, e.kilat],
        [`reference \`GET ${REF_PATH}\` (after ${ep.name})`, e.ref],
      ]) {
        const non200 = x.non200 == null ? 'n/a' : x.non200 === 0 ? '0' : `**${num(x.non200)}** (${x.statuses})`;
        L.push(
          `| ${db.name} | ${shortPlacement(pl)} | ${label} | ${x.runs.map((y) => num(y.wrk?.rps)).join(', ')} | ${num(x.rps)} | ${fmtMs(x.p50)} | ` +
            `${fmtMs(x.p99)} (${fmtMs(x.p99Worst)}) | ${non200} | ${fmtUs(x.serverUsPerRequest)}, ${fmtUs(x.wrkUsPerRequest)} | ` +
            `${num(x.serverBusy, 2)}, ${num(x.wrkBusy, 2)} | ${x.loadStart?.split(' ')[0] ?? '?'} → ${x.loadEnd?.split(' ')[0] ?? '?'} |`,
        );
      }
    }
  }
}
L.push('');
const sockets = [];
for (const db of measuredDbs) {
  for (const [pl, p] of Object.entries(results[db.id].placements)) {
    for (const ep of ENDPOINTS) {
      const e = p.endpoints[ep.id];
      if (e.kilat.socketErrors) sockets.push(`${db.name} (${pl}) kilat \`${ep.id}\`: ${e.kilat.socketErrors}`);
      if (e.ref.socketErrors) sockets.push(`${db.name} (${pl}) reference after \`${ep.id}\`: ${e.ref.socketErrors}`);
    }
  }
}
if (sockets.length) L.push(`wrk's socket errors (connect, read, write, timeout together): ${sockets.join('; ')}.`);
else if (measuredDbs.length) L.push('wrk reported no socket errors (connect, read, write, timeout) in any run.');
L.push('');
for (const db of measuredDbs) {
  for (const [pl, p] of Object.entries(results[db.id].placements)) {
    const bodies = ENDPOINTS.map((ep) => `\`${ep.id}\` ${p.endpoints[ep.id].status ?? '?'}, ${num(p.endpoints[ep.id].bytes)} B`).join('; ');
    L.push(
      `- ${db.name}, ${shortPlacement(pl)} (${p.wrkArgs ? `\`wrk ${p.wrkArgs}\`` : 'wrk ?'}; kilat ran ${num(p.threads)} threads), one response as the first borrower: kilat ${bodies}; the reference's \`${REF_PATH}\` ${p.ref.status ?? '?'}, ${num(p.ref.bytes)} B. ` +
        `Memory after the run (VmRSS, peak VmHWM): kilat ${fmtKb(p.rssKb)} (${fmtKb(p.hwmKb)}), the reference ${fmtKb(p.refRssKb)} (${fmtKb(p.refHwmKb)}).`,
    );
    if (p.errorsWrk.count > 0) {
      L.push(`  Under wrk the server logged ${num(p.errorsWrk.count)} failed request(s): ${p.errorsWrk.causes.join('; ') || 'no cause logged'}.`);
    }
  }
}
for (const db of measuredDbs) {
  const s = results[db.id].seed;
  if (!s) continue;
  const slowest = [...s.endpoints].sort((a, b) => b.p99Ms - a.p99Ms)[0];
  const loans = Object.entries(s.loans)
    .map(([k, v]) => `${v} × ${k}`)
    .join(', ');
  L.push(
    `- Seeding kilat on ${db.name}: ${s.borrowers} borrowers in ${num(s.seedSeconds, 1)} s (${num(s.requests)} requests, ${s.concurrency} borrowers at a time); ` +
      `slowest call ${slowest ? `\`${slowest.endpoint}\` (p50 ${fmtMs(slowest.p50Ms)}, p99 ${fmtMs(slowest.p99Ms)})` : 'n/a'}. Loans: ${loans}.` +
      ` The reference seeded its ${meta.borrowers ?? '?'} in ${Number.isFinite(results[db.id].refSeedSeconds) ? `${num(results[db.id].refSeedSeconds, 1)} s` : 'n/a'} (SQL straight to its database).`,
  );
  const r = results[db.id];
  if (s.retryCount > 0 || r.errorsSeed.count > 0) {
    const retries = Object.entries(s.retries ?? {})
      .map(([k, v]) => `${v} × \`${k}\``)
      .join(', ');
    L.push(
      `  **While seeding, the server answered ${num(r.errorsSeed.count)} request(s) with a 5xx**` +
        `${r.errorsSeed.causes.length ? ` (causes in its log: ${r.errorsSeed.causes.join('; ')})` : ''}; ` +
        `the seeding script retried them (${retries || 'none retried'}) and every borrower was seeded.`,
    );
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
const rpsOf = (db, ep) => results[db]?.main?.endpoints?.[ep]?.kilat?.rps ?? null;
const meaning = [];
meaning.push(
  '`/home` does the most work per request: in one statement it finds the session with the borrower\'s masked phone, ' +
    'reads when each certification step was done (with the job step\'s income verdict, so nothing is decrypted) and the open order; it answers with the products of the borrower\'s market ' +
    `(${productCount('IN')} in India, ${productCount('ID')} in Indonesia) and their sample Key Fact Statements, priced once a day ` +
    'per market (and again when the catalog changes) and kept, not per request. `/orders` finds the session and reads the borrower\'s orders (one row each here), ' +
    'as the reference does; the reference\'s borrowers are all in one market, and it keeps no last-seen time, logs nothing and sets no headers.',
);
const ratios = measuredDbs
  .filter((db) => rpsOf(db.id, 'home') && rpsOf(db.id, 'orders'))
  .map((db, i) => `${num(rpsOf(db.id, 'orders') / rpsOf(db.id, 'home'), 1)}×${i === 0 ? ' as many requests/s as home' : ''} on ${db.name}`);
if (ratios.length) meaning.push(`kilat's order list serves ${ratios.join(', ')}.`);
for (const db of measuredDbs) {
  const h = rpsOf(db.id, 'home');
  if (!kfs.india_full_kfs?.median || !h) continue;
  const budgetUs = (cpus.length / h) * 1e6;
  const counts = [productCount('IN'), productCount('ID')].filter(Number.isFinite);
  if (!counts.length) break;
  const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
  meaning.push(
    `A 12-installment KFS takes ${fmtNs(kfs.india_full_kfs.median)}: pricing a market's ${fewest === most ? most : `${fewest} or ${most}`} ` +
      `sample loans (shorter, so cheaper) costs at most about ${num((most * kfs.india_full_kfs.median) / 1000)} µs once a day, against the ` +
      `${num(budgetUs)} µs of machine time each home request took on ${db.name} (${cpus.length} cores / ${num(h)} requests/s, wrk's share included).`,
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
    `On ${db.name}, concurrent writes failed while seeding (${where || 'see the log causes above'}) with \`database is locked\`: ` +
      'home and the order list only read, so the figures above are not affected.',
  );
}
meaning.push('Where the time goes, in instructions per request and candidate by candidate, is in "Where the time goes (issue 7)" below.');
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
L.push('# what the script runs, per database (PORT, REF_PORT: free ports; DB, REF_DB: sqlite:///tmp/…/sqlite.db or');
L.push('# postgres://postgres@127.0.0.1:5432/kilat_bench_…, and the same with _ref for the reference):');
L.push('cargo build --release --manifest-path ../shared/bench/ref-server/Cargo.toml --target-dir ~/.cache/kilat-bench/ref-target');
L.push('KILAT_LISTEN=127.0.0.1:PORT KILAT_DATABASE_URL=DB KILAT_MODE=development KILAT_TRUST_FORWARDED_FOR=true RUST_LOG=warn target/release/kilat serve');
L.push(`node scripts/bench/seed-borrowers.mjs http://127.0.0.1:PORT ${meta.borrowers ?? 200} ${meta.seed_concurrency ?? 8} sessions.txt seed.json`);
L.push(`ref-server seed REF_DB ${meta.borrowers ?? 200} ref-tokens.txt && ref-server serve REF_DB 127.0.0.1:REF_PORT`);
L.push(`# per placement (${placements.join(', ')}), both servers restarted; pinned: \`taskset -c SERVER_CPUS\` before each server,`);
L.push(`# \`taskset -c ${meta.wrk_cpus ?? 'WRK_CPUS'}\` before wrk and -t the count of those cores (knobs: BENCH_SERVER_CPUS, BENCH_WRK_CPUS)`);
L.push(`# ${rounds || 'N'} rounds of: for each kilat endpoint, kilat then the reference`);
for (const ep of ENDPOINTS) {
  L.push(
    `BENCH_SESSIONS=sessions.txt wrk -t2 -c${meta.wrk_connections ?? 64} -d${meta.wrk_duration ?? '10s'} --latency -s scripts/bench/borrower-wrk.lua http://127.0.0.1:PORT${ep.path}`,
  );
  L.push(
    `BENCH_SESSIONS=ref-tokens.txt wrk -t2 -c${meta.wrk_connections ?? 64} -d${meta.wrk_duration ?? '10s'} --latency -s scripts/bench/borrower-wrk.lua http://127.0.0.1:REF_PORT${REF_PATH}`,
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
  for (const [pl, p] of Object.entries(r.placements)) {
    for (const ep of ENDPOINTS) {
      const e = p.endpoints[ep.id];
      console.log(
        `${db.name.padEnd(10)} ${pl.padEnd(12)} GET ${ep.path.padEnd(24)} ${num(e.kilat.rps).padStart(8)} req/s  p50 ${fmtMs(e.kilat.p50)}  p99 ${fmtMs(e.kilat.p99)}  ` +
          `non-200 ${e.kilat.non200 ?? 'n/a'}  | reference ${num(e.ref.rps)} req/s  p99 ${fmtMs(e.ref.p99)}  | ratio ${e.ratio == null ? 'n/a' : `${num(e.ratio, 2)}×`}` +
          `  | CPU/request ${fmtUs(e.kilat.serverUsPerRequest)} vs ${fmtUs(e.ref.serverUsPerRequest)}; wrk busy ${num(e.kilat.wrkBusy, 2)}`,
      );
    }
  }
}
if (meta.run_kfs === '1') for (const b of KFS_BENCHES) console.log(`KFS ${b.id}: median ${fmtNs(kfs[b.id].median)}`);
console.log('');
for (const t of targets) {
  console.log(`${t.pass ? 'PASS' : 'FAIL'}  ${t.db.padEnd(28)} ${t.what}: ${t.measured} (${t.limit})`);
}
console.log(`Wrote the borrower section of ${path.relative(process.cwd(), docPath) || docPath}.`);
for (const p of problems) console.error(`PROBLEM: ${p}`);
if (problems.length || targets.some((t) => !t.pass)) process.exit(1);
