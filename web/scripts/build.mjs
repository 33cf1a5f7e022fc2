// `npm run build`: the client build, the SSR build, prerendered pages, the service worker and
// precompressed siblings, as docs/ARCHITECTURE.md describes `web/dist`.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { compressDist } from './compress.mjs';
import { prerender } from './prerender.mjs';
import { writeServiceWorker } from './service-worker.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const ssrOut = `${root}.ssr`;

await rm(dist, { recursive: true, force: true });
await rm(ssrOut, { recursive: true, force: true });

// One client build per area (vite.config.ts reads KILAT_WEB_AREA): the site first, into a fresh dist/,
// then the borrower app and the operators' console beside it.
process.env.KILAT_WEB_AREA = 'site';
await build({ root, logLevel: 'warn' });
for (const area of ['app', 'console']) {
  process.env.KILAT_WEB_AREA = area;
  await build({ root, logLevel: 'warn', build: { emptyOutDir: false, copyPublicDir: false } });
}
delete process.env.KILAT_WEB_AREA;
await build({
  root,
  logLevel: 'warn',
  build: { ssr: 'src/site/entry-server.tsx', outDir: ssrOut, emptyOutDir: true, copyPublicDir: false },
});

const pages = await prerender({ dist, ssrEntry: `${ssrOut}/entry-server.js` });
const sw = await writeServiceWorker({ root, dist });
const compressed = await compressDist(dist);
await rm(ssrOut, { recursive: true, force: true });

console.log(`built dist/: ${pages.join(', ')}, ${sw}; ${compressed} files precompressed (.br, .gz)`);
