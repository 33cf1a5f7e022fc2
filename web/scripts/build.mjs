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

await build({ root, logLevel: 'warn' });
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
