/* Kilat service worker (PRODUCT.md §2: a real worker for fast repeat visits on slow networks).
 * HTML: network first, so settings changes show at once; the cached copy answers offline.
 * /assets/ (hashed, immutable): cache first. The API is never cached.
 * The borrower app (/app/...) is one client-rendered page for every path: its last copy answers offline
 * for any of them. It is cached when visited, not precached, so a visitor of the site never downloads it.
 * `npm run build` writes this file to dist/sw.js with VERSION and PRECACHE filled in. */
'use strict';

const VERSION = '__KILAT_SW_VERSION__';
const PRECACHE = ['/', '/?lang=1']; // the build replaces this line with the site's shell
const SHELL_CACHE = `kilat-shell-${VERSION}`;
const ASSET_CACHE = 'kilat-assets';
const ASSET_CACHE_LIMIT = 60;
const APP_SHELL_KEY = '/app/';

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((key) => key.startsWith('kilat-shell-') && key !== SHELL_CACHE).map((key) => caches.delete(key))),
      )
      .then(() => trimAssets())
      .then(() => self.clients.claim()),
  );
});

async function trimAssets() {
  const cache = await caches.open(ASSET_CACHE);
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - ASSET_CACHE_LIMIT)).map((key) => cache.delete(key)));
}

function isHtmlRequest(request, url) {
  return request.mode === 'navigate' || (request.headers.get('accept') || '').includes('text/html') || url.pathname.endsWith('.html');
}

/** A page is cached by path and market only, so URLs with other query values (sessionId...) share one entry. */
function pageKey(url, path = url.pathname) {
  return url.searchParams.get('lang') === '1' ? `${path}?lang=1` : path;
}

async function networkFirst(request, url) {
  const cache = await caches.open(SHELL_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') await cache.put(pageKey(url), response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(pageKey(url), { ignoreVary: true });
    if (cached) return cached;
    // Any page of the site falls back to its market's home page.
    const home = await cache.match(pageKey(url, '/'), { ignoreVary: true });
    if (home) return home;
    throw error;
  }
}

async function appShellNetworkFirst(request) {
  const cache = await caches.open(SHELL_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') await cache.put(APP_SHELL_KEY, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(APP_SHELL_KEY, { ignoreVary: true });
    if (cached) return cached;
    throw error;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(ASSET_CACHE);
  const cached = (await cache.match(request)) || (await caches.match(request));
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

async function staleWhileRevalidate(request) {
  const cache = await caches.open(SHELL_CACHE);
  const cached = await cache.match(request);
  const fresh = fetch(request)
    .then((response) => {
      if (response.ok) cache.put(request, response.clone());
      return response;
    })
    .catch(() => cached);
  return cached || fresh;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // The console and the API are left to the network.
  if (url.pathname.startsWith('/api/') || url.pathname.startsWith('/console/')) return;
  if (url.pathname === '/healthz' || url.pathname === '/readyz' || url.pathname === '/sw.js') return;

  if (url.pathname === '/app' || url.pathname.startsWith('/app/')) {
    if (isHtmlRequest(request, url)) event.respondWith(appShellNetworkFirst(request));
    return;
  }

  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirst(request));
  } else if (isHtmlRequest(request, url)) {
    event.respondWith(networkFirst(request, url));
  } else {
    event.respondWith(staleWhileRevalidate(request));
  }
});
