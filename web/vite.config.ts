/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

// One Vite project, one HTML entry per area, so a visitor of the site never downloads the
// borrower app or the console; each area imports only from `src/shared` (eslint enforces it).
const entries: Record<string, string> = {
  site: resolve(root, 'index.html'),
  app: resolve(root, 'app/index.html'),
  console: resolve(root, 'console/index.html'),
};

// `npm run build` builds one area at a time (scripts/build.mjs sets KILAT_WEB_AREA), so no chunk is
// shared between areas: the site stays one script, and its prerender can inline and delete its own
// stylesheet without touching a file the app links to. `npm run dev` serves every area.
const area = process.env.KILAT_WEB_AREA;
if (area && !entries[area]) throw new Error(`KILAT_WEB_AREA=${area} names no area (${Object.keys(entries).join(', ')})`);
const input = area ? { [area]: entries[area]! } : entries;

// `npm run dev` serves the raw template: give its prerender tokens harmless values. The client then
// renders afresh (no data-route), with the development settings.
const devTemplate: Plugin = {
  name: 'kilat-dev-template',
  apply: 'serve',
  transformIndexHtml: (html) =>
    html
      .replace('__KILAT_LANG__', 'id-ID')
      .replace('__KILAT_TITLE__', 'Kilat')
      .replace('__KILAT_THEME_COLOR__', '#14286b')
      .replace(/__KILAT_[A-Z_]+__/g, ''),
};

// The server answers app/index.html for every path under /app, and console/index.html under /console (client
// routing); so does `npm run dev`.
const devAppFallback: Plugin = {
  name: 'kilat-dev-app-fallback',
  apply: 'serve',
  configureServer(server) {
    server.middlewares.use((req, _res, next) => {
      const path = req.url?.split('?')[0] ?? '';
      const area = /^\/(app|console)(\/|$)/.exec(path)?.[1];
      if (area && !/\.[a-z0-9]+$/i.test(path)) {
        const query = req.url?.slice(path.length) ?? '';
        req.url = `/${area}/index.html${query}`;
      }
      next();
    });
  },
};

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react(), devTemplate, devAppFallback],
  resolve: {
    alias: { '@': resolve(root, 'src') },
  },
  build: {
    target: 'es2022',
    // Banner images stay files (hashed, cached forever) rather than data: URLs.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: isSsrBuild ? undefined : { input },
  },
  server: {
    // `npm run dev` against a locally running `kilat serve`.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    // Several 5 s waits may add up in one test on a loaded machine.
    testTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, which left a core idle (130 s
    // here; 85 s with two).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each worker keeps one jsdom and one module registry for all its files instead of a new one per file: setting
    // up jsdom and importing antd-mobile and the app again for each of 53 files was two thirds of the run (204 s
    // against 65 s here). The files must not lean on each other: setup.ts resets the DOM, the URL, both storages
    // and the stubs after every test, and the files passed in six shuffled orders (--sequence.shuffle.files).
    isolate: false,
  },
}));
