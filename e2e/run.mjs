// Runs journey files with node:test, each file in a process of its own, `--concurrency N` at once, started in the order
// given: `node --test` sorts its files by name, so the longest could not be started first (the Makefile's `e2e`).
// Usage: node run.mjs [--concurrency N] file…   Exits 1 when any test failed (or a file could not run).
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import path from 'node:path';

const files = [];
let concurrency = 1;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--concurrency') {
    concurrency = Number(args[(i += 1)]);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency takes a whole number, not ${args[i]}`);
  } else {
    files.push(path.resolve(args[i]));
  }
}
if (files.length === 0) throw new Error('usage: node run.mjs [--concurrency N] file…');

const stream = run({ files, concurrency });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(spec).pipe(process.stdout);
