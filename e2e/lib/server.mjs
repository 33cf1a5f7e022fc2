// The real release binary on a free port and a fresh SQLite file, as the journeys (and the bench) use it.
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, rm, access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The binary under test: `KILAT_BIN` if set, else what `make build` produces. */
export const kilatBin = process.env.KILAT_BIN ?? path.join(repoRoot, 'target/release/kilat');

/** A TCP port that was free a moment ago on 127.0.0.1 (bind port 0, read it, close). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const running = new Set();
// A crashed test run must not leave servers behind.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `kilat serve` on 127.0.0.1 with a new SQLite database in a temp folder and waits for `/healthz`.
 * `env` adds or overrides variables (e.g. `KILAT_SITE__COMPANY_NAME`).
 */
export async function startKilat({ env = {}, readyTimeoutMs = 30_000 } = {}) {
  try {
    await access(kilatBin);
  } catch {
    throw new Error(`${kilatBin} does not exist: run \`make build\` first (or set KILAT_BIN)`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'kilat-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The database and uploaded files (complaint photos) both live in the temp folder, removed on stop.
  const dbEnv = { KILAT_DATABASE_URL: `sqlite://${dir}/kilat.db`, KILAT_FILES__DIR: `${dir}/files` };
  const childEnv = {
    ...process.env,
    KILAT_LISTEN: `127.0.0.1:${port}`,
    ...dbEnv,
    KILAT_MODE: 'development',
    // The per-address contact limit (default 5 a minute) would trip over a few journeys from 127.0.0.1.
    KILAT_CONTACT__PER_MINUTE: '1000',
    RUST_LOG: 'warn',
    ...env,
  };
  const child = spawn(kilatBin, ['serve'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk) => {
    output += chunk;
    if (output.length > 64_000) output = output.slice(-32_000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let exitInfo = null;
  exited.then((info) => {
    exitInfo = info;
    running.delete(child);
  });

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exitInfo) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`kilat serve exited early (${JSON.stringify(exitInfo)}):\n${output}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200 && (await res.text()).trim() === 'ok') break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`kilat serve was not healthy within ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    url,
    port,
    pid: child.pid,
    /** What the server printed so far (for failure messages). */
    output: () => output,
    /** null while running, else how it exited ({ code, signal }). */
    exited: () => exitInfo,
    /** Messages stored by the contact form, newest first, as `kilat contact-messages` prints them. */
    async storedMessages() {
      const { stdout } = await execFileAsync(kilatBin, ['contact-messages'], {
        env: { ...process.env, ...dbEnv, RUST_LOG: 'error' },
        timeout: 15_000,
      });
      return JSON.parse(stdout);
    },
    /** SIGTERM (graceful), SIGKILL after 10 s; removes the database folder. */
    async stop() {
      if (!exitInfo) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
      return exitInfo;
    },
  };
}
