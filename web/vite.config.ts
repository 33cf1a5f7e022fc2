/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

// One Vite project, one HTML entry per area, so a visitor of the site never downloads the
// borrower app or the console. Later areas add `app/index.html` and `console/index.html` here;
// each imports only from `src/shared` (eslint enforces it).
const entries = {
  site: resolve(root, 'index.html'),
};

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

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react(), devTemplate],
  resolve: {
    alias: { '@': resolve(root, 'src') },
  },
  build: {
    target: 'es2022',
    // Banner images stay files (hashed, cached forever) rather than data: URLs.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: isSsrBuild ? undefined : { input: entries },
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
  },
}));
