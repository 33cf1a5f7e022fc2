// Turns what scripts/bench-site.sh measured into the "site" section of docs/PERFORMANCE.md, prints PASS/FAIL per
// budget and exits 1 when any budget fails (after writing the document).
// usage: node scripts/bench/report.mjs WORK_DIR docs/PERFORMANCE.md
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [work, docPath] = process.argv.slice(2);
if (!work || !docPath) {
  console.error('usage: node scripts/bench/report.mjs WORK_DIR DOC');
  process.exit(2);
}

const BEGIN = '<!-- site:begin -->';
const END = '<!-- site:end -->';
const KB = 1000;
const MB = 1000 * 1000;
const BUDGET = {
  performance: 95,
  accessibility: 100,
  'best-practices': 100,
  seo: 100,
  jsBytes: 100 * KB,
  totalBytes: 250 * KB,
  rpsRatio: 0.8,
  rssBytes: 50 * MB,
};
const PAGES = [
  { id: 'home', path: '/' },
  { id: 'home-india', path: '/?lang=1' },
];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

const read = (name) => {
  const file = path.join(work, name);
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
};
const meta = Object.fromEntries(
  (read('meta.txt') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
};
const kb = (bytes) => (bytes == null ? 'n/a' : `${(bytes / KB).toFixed(1)} KB`);
const mb = (bytes) => (bytes == null ? 'n/a' : `${(bytes / MB).toFixed(1)} MB`);
const num = (n) => (n == null ? 'n/a' : Math.round(n).toLocaleString('en-US'));

const checks = [];
const check = (name, measured, limit, pass) => checks.push({ name, measured, limit, pass: Boolean(pass) });

// ---- Lighthouse --------------------------------------------------------------------------------------------
const lighthouse = {};
const lhFiles = existsSync(path.join(work, 'lh')) ? readdirSync(path.join(work, 'lh')) : [];
for (const page of PAGES) {
  const runs = lhFiles
    .filter((f) => new RegExp(`^${page.id}-\\d+\\.json$`).test(f))
    .map((f) => JSON.parse(read(path.join('lh', f))));
  const scores = {};
  for (const c of CATEGORIES) {
    const values = runs.map((r) => r.categories?.[c]?.score).filter((s) => typeof s === 'number').map((s) => Math.round(s * 100));
    scores[c] = { median: median(values), runs: values };
  }
  // Audits that cost points in any run, to say what to fix.
  const lost = new Set();
  for (const r of runs) {
    for (const c of CATEGORIES) {
      for (const ref of r.categories?.[c]?.auditRefs ?? []) {
        const a = r.audits[ref.id];
        if (ref.weight > 0 && a && typeof a.score === 'number' && a.score < (c === 'performance' ? 0.9 : 1)) {
          lost.add(`${c}: ${a.id} (${a.displayValue ?? a.score})`);
        }
      }
    }
  }
  const metrics = {};
  const mid = runs.find((r) => Math.round(r.categories?.performance?.score * 100) === scores.performance.median);
  for (const id of ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']) {
    metrics[id] = mid?.audits?.[id]?.displayValue ?? 'n/a';
  }
  const benchmarkIndex = median(runs.map((r) => r.environment?.benchmarkIndex).filter((x) => typeof x === 'number'));
  lighthouse[page.id] = { runs: runs.length, scores, lost: [...lost], metrics, benchmarkIndex, warnings: mid?.runWarnings ?? [] };
  for (const c of CATEGORIES) {
    const m = scores[c].median;
    check(`Lighthouse ${c}, ${page.path}`, m ?? 'n/a', `≥ ${BUDGET[c]}`, m != null && m >= BUDGET[c]);
  }
}

// ---- transfer ----------------------------------------------------------------------------------------------
let transfer = [];
try {
  transfer = JSON.parse(read('transfer.json') ?? '[]');
} catch {
  transfer = [];
}
for (const page of PAGES) {
  const t = transfer.find((x) => new URL(x.url).pathname + new URL(x.url).search === page.path);
  check(`First-view JavaScript (compressed), ${page.path}`, kb(t?.firstView.jsBytes), `≤ ${kb(BUDGET.jsBytes)}`, t && t.firstView.jsBytes <= BUDGET.jsBytes);
  check(`First-view transfer in all, ${page.path}`, kb(t?.firstView.totalBytes), `≤ ${kb(BUDGET.totalBytes)}`, t && t.firstView.totalBytes <= BUDGET.totalBytes);
}

// ---- throughput and memory ---------------------------------------------------------------------------------
function parseWrk(text) {
  if (!text) return null;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const lat = (p) => new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text)?.[1] ?? 'n/a';
  return {
    rps: Number.isFinite(rps) ? rps : null,
    requests: Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: /Socket errors:[^\n]*/.exec(text)?.[0] ?? null,
    p50: lat(50),
    p99: lat(99),
    transfer: /Transfer\/sec:\s+(\S+)/.exec(text)?.[1] ?? 'n/a',
  };
}
const rounds = Number(meta.wrk_rounds ?? 1);
const wrk = { kilat: [], nginx: [] };
for (let i = 1; i <= rounds; i++) {
  for (const server of ['kilat', 'nginx']) wrk[server].push(parseWrk(read(path.join('wrk', `${server}-${i}.txt`))));
}
const valid = (r) => r && r.rps != null && r.non2xx === 0;
const best = (list) => list.filter(valid).reduce((b, r) => (!b || r.rps > b.rps ? r : b), null);
const kilatBest = best(wrk.kilat);
const nginxBest = best(wrk.nginx);
// Each round runs kilat then nginx back to back, so a round's ratio compares the two under the same conditions; the
// median of the rounds' ratios is the verdict (one quiet or busy window for one server does not decide it).
const roundRatios = wrk.kilat.map((k, i) => (valid(k) && valid(wrk.nginx[i]) ? k.rps / wrk.nginx[i].rps : null));
const ratio = roundRatios.includes(null) ? null : median(roundRatios);
check(
  'kilat requests/s on / vs nginx (median of rounds)',
  ratio == null ? 'n/a' : `${(ratio * 100).toFixed(0)}% (rounds: ${roundRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})`,
  `≥ ${BUDGET.rpsRatio * 100}%`,
  ratio != null && ratio >= BUDGET.rpsRatio,
);
const kbFile = (name) => Number(read(name) ?? 0) * 1024 || null;
const rss = {
  peak: kbFile('rss-peak-all-kb.txt'),
  peakWrk: kbFile('rss-peak-kb.txt'),
  beforeWrk: kbFile('rss-before-wrk-kb.txt'),
  after: kbFile('rss-after-kb.txt'),
};
check('kilat peak resident memory (whole run)', mb(rss.peak), `< ${mb(BUDGET.rssBytes)}`, rss.peak && rss.peak < BUDGET.rssBytes);

function responseOf(server) {
  const headers = read(`${server}.headers`) ?? '';
  const body = existsSync(path.join(work, `${server}.body`)) ? readFileSync(path.join(work, `${server}.body`)).length : 0;
  const status = /^HTTP\/\S+ (\d+)/.exec(headers)?.[1] ?? '?';
  const encoding = /^content-encoding:\s*(\S+)/im.exec(headers)?.[1] ?? 'identity';
  return { status, encoding, body, headerBytes: Buffer.byteLength(headers) };
}
const responses = { kilat: responseOf('kilat'), nginx: responseOf('nginx') };
check(
  "kilat answers wrk's request for / compressed",
  `${responses.kilat.status}, ${responses.kilat.encoding}`,
  '200, gzip',
  responses.kilat.status === '200' && responses.kilat.encoding === 'gzip',
);

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
const date = new Date().toISOString().replace(/:\d\d\.\d+Z$/, 'Z');

// ---- the document ------------------------------------------------------------------------------------------
const mark = (pass) => (pass ? 'PASS' : '**FAIL**');
const lines = [];
lines.push(BEGIN);
lines.push('## Marketing site (issue 2)');
lines.push('');
lines.push(`Written by \`scripts/bench-site.sh\` (\`make bench\`) on ${date}, commit \`${meta.commit ?? 'none'}\`.`);
lines.push(`Machine: ${machine}.`);
lines.push(`Tools: ${meta.chromium ?? 'chromium ?'}, Lighthouse ${meta.lighthouse ?? '?'}, ${meta.nginx ?? 'nginx ?'}, ${meta.wrk ?? 'wrk ?'}.`);
lines.push(
  `Load average (1, 5, 15 min) when Lighthouse started: ${meta.load_lighthouse ?? '?'}; when wrk started: ${meta.load_wrk ?? '?'}. ` +
    'Lighthouse\'s scores (its performance score above all) drop on a busy machine: run the bench when nothing else is.',
);
lines.push('');
lines.push('| Budget | Measured | Limit | Result |');
lines.push('|---|---|---|---|');
for (const c of checks) lines.push(`| ${c.name} | ${c.measured} | ${c.limit} | ${mark(c.pass)} |`);
lines.push('');
lines.push(`### Lighthouse (mobile form factor, simulated throttling; median of ${meta.lh_runs ?? '?'} runs)`);
lines.push('');
lines.push('| Page | Performance | Accessibility | Best practices | SEO | FCP | LCP | TBT | CLS | CPU benchmark index |');
lines.push('|---|---|---|---|---|---|---|---|---|---|');
for (const page of PAGES) {
  const l = lighthouse[page.id];
  const cell = (c) => `${l.scores[c].median ?? 'n/a'}${l.scores[c].runs.length > 1 ? ` (${l.scores[c].runs.join(', ')})` : ''}`;
  const m = l.metrics;
  lines.push(
    `| \`${page.path}\` | ${cell('performance')} | ${cell('accessibility')} | ${cell('best-practices')} | ${cell('seo')} | ` +
      `${m['first-contentful-paint']} | ${m['largest-contentful-paint']} | ${m['total-blocking-time']} | ${m['cumulative-layout-shift']} | ` +
      `${l.benchmarkIndex == null ? 'n/a' : Math.round(l.benchmarkIndex)} |`,
  );
}
const lostAll = PAGES.flatMap((p) => lighthouse[p.id].lost.map((x) => `\`${p.path}\` ${x}`));
if (lostAll.length) {
  lines.push('');
  lines.push(`Audits that cost points: ${lostAll.join('; ')}.`);
}
lines.push('');
lines.push('### First view (Chromium, 360×740 phone, empty cache)');
lines.push('');
lines.push('Everything the page fetched until the network was quiet after the load event. JavaScript is compressed bodies; "in all" is');
lines.push('bodies plus response headers. "Later" is what the page fetched afterwards and what the service worker fetched for itself');
lines.push(`(its script and precache, ${Number(process.env.BENCH_TRANSFER_LATER_MS ?? 4000) / 1000} s watched; Chromium reports those sizes only in part), not counted. KB = 1000 bytes.`);
lines.push('');
lines.push('| Page | JavaScript | In all | Requests | Later |');
lines.push('|---|---|---|---|---|');
for (const page of PAGES) {
  const t = transfer.find((x) => new URL(x.url).pathname + new URL(x.url).search === page.path);
  if (!t) {
    lines.push(`| \`${page.path}\` | n/a | n/a | n/a | n/a |`);
    continue;
  }
  lines.push(
    `| \`${page.path}\` | ${kb(t.firstView.jsBytes)} (${t.firstView.jsFiles} file${t.firstView.jsFiles === 1 ? '' : 's'}) | ${kb(t.firstView.totalBytes)} | ` +
      `${t.firstView.requests} | ${kb(t.later.totalBytes)} in ${t.later.requests} requests |`,
  );
}
lines.push('');
lines.push(`### Serving \`/\`: kilat and nginx on 127.0.0.1`);
lines.push('');
lines.push(
  `\`wrk -t2 -c64 -d${meta.wrk_duration ?? '10s'} -H 'Accept-Encoding: gzip' --latency\`, after a 2 s warm-up of each; ${rounds} alternating ` +
    'round(s) (kilat then nginx, back to back); the verdict is the median of the rounds\' kilat/nginx ratios. nginx serves `web/dist` with `shared/bench/nginx-reference.conf` ' +
    '(the HTML still has its `%%KILAT` placeholders there); kilat serves the same build from memory with the settings filled in ' +
    'and its security headers. wrk and the servers share the machine\'s cores.',
);
lines.push('');
lines.push('| Server | Response to wrk\'s request | Requests/s per round | Best | p50 / p99 latency (best round) |');
lines.push('|---|---|---|---|---|');
for (const server of ['kilat', 'nginx']) {
  const r = responses[server];
  const b = server === 'kilat' ? kilatBest : nginxBest;
  const perRound = wrk[server].map((x) => (x ? `${num(x.rps)}${x.non2xx ? ` (${x.non2xx} non-2xx)` : ''}` : 'n/a')).join(', ');
  lines.push(`| ${server} | ${r.status}, ${r.encoding}, ${num(r.body)} B body + ${num(r.headerBytes)} B headers | ${perRound} | ${b ? num(b.rps) : 'n/a'} | ${b ? `${b.p50} / ${b.p99}` : 'n/a'} |`);
}
lines.push('');
lines.push(
  `kilat's resident memory (VmRSS, sampled every 0.1 s from start-up to the end of the run): peak ${mb(rss.peak)}; ` +
    `${mb(rss.beforeWrk)} just before the wrk warm-up, peak ${mb(rss.peakWrk)} during the measured rounds, ${mb(rss.after)} after them.`,
);
lines.push(END);
const section = lines.join('\n');

let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
if (!doc.trim()) {
  doc =
    '# Performance\n\n' +
    'Budgets and the figures measured against them. `make bench` runs the benchmark scripts; each writes only its own\n' +
    'section, between its `<!-- NAME:begin -->` and `<!-- NAME:end -->` markers, so the sections of other benchmarks stay.\n' +
    'Figures are from one machine (named in each section): compare runs on the same machine only.\n\n' +
    `${BEGIN}\n${END}\n`;
}
const at = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (at >= 0 && end > at) doc = doc.slice(0, at) + section + doc.slice(end + END.length);
else doc = `${doc.replace(/\n*$/, '\n\n')}${section}\n`;
writeFileSync(docPath, doc);

// ---- verdict -----------------------------------------------------------------------------------------------
console.log('');
for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.measured} (budget ${c.limit})`);
for (const [id, l] of Object.entries(lighthouse)) {
  for (const x of l.lost) console.log(`      lighthouse ${id}: ${x}`);
  for (const w of l.warnings) console.log(`      lighthouse ${id} warning: ${w}`);
}
const failed = checks.filter((c) => !c.pass).length;
console.log(`\n${checks.length - failed} passed, ${failed} failed  (written to ${path.relative(process.cwd(), docPath) || docPath})`);
process.exit(failed ? 1 : 0);
