// `npm run test`: Vitest once, then the closing line CI reads (`N passed, N failed`), counted from
// Vitest's JSON report. Extra arguments go to Vitest (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kilat-vitest-'));
const report = join(dir, 'report.json');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed = result.numPassedTests ?? 0;
  failed = result.numFailedTests ?? 0;
  skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  // A file that fails to load has no failed test but must still fail the run.
  if (failed === 0 && (result.numFailedTestSuites ?? 0) > 0) failed = result.numFailedTestSuites;
} catch {
  failed = Math.max(failed, 1);
}
rmSync(dir, { recursive: true, force: true });

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
