// Writes dist/sw.js from src/service-worker/sw.js with the site shell to precache and a version
// that changes whenever that shell does (so old shell caches are dropped on activation).
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

export async function writeServiceWorker({ root, dist }) {
  const source = await readFile(`${root}src/service-worker/sw.js`, 'utf8');
  const home = await readFile(`${dist}/index.html`, 'utf8');
  // The entry's script, preloads and stylesheet, as the page references them.
  const assets = [...home.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const precache = ['/', '/?lang=1', ...new Set(assets)];
  const version = createHash('sha256').update(source).update(precache.join('\n')).digest('hex').slice(0, 12);
  const line = /^const PRECACHE = .*$/m;
  if (!line.test(source) || !source.includes('__KILAT_SW_VERSION__')) throw new Error('sw.js template markers missing');
  const out = source
    .replace(line, `const PRECACHE = ${JSON.stringify(precache)};`)
    .replace('__KILAT_SW_VERSION__', version);
  await writeFile(`${dist}/sw.js`, out);
  return `sw.js (${precache.length} precached, version ${version})`;
}
