// Renders each prerendered route for each market into the client build's HTML template.
// Output names follow the server's lookup: `/<path>` → `<path>.html`, or `<path>.en.html` for lang=1.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const MARKET_FILE_SUFFIX = { id: '.html', in: '.en.html' };

function escapeAttribute(text) {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fileBase(route) {
  return route === '/' ? 'index' : route.replace(/^\//, '');
}

function fill(template, tokens) {
  let html = template;
  for (const [token, value] of Object.entries(tokens)) {
    if (!html.includes(token)) throw new Error(`template lacks ${token}`);
    html = html.split(token).join(value);
  }
  if (/__KILAT_[A-Z_]+__/.test(html)) throw new Error(`unfilled token in ${html.match(/__KILAT_[A-Z_]+__/)[0]}`);
  return html;
}

/**
 * The site's stylesheet (about 2.5 KB gzip) goes into the page itself: a render-blocking request
 * costs a round trip before first paint, which on a slow mobile network is worth more than caching.
 */
async function inlineStylesheets(html, dist) {
  let out = html;
  const inlined = [];
  for (const match of html.matchAll(/<link rel="stylesheet"[^>]*href="(\/assets\/[^"]+\.css)"[^>]*>/g)) {
    const css = (await readFile(`${dist}${match[1]}`, 'utf8')).replace(/<\/style/gi, '<\\/style');
    out = out.replace(match[0], `<style>${css}</style>`);
    inlined.push(`${dist}${match[1]}`);
  }
  // Nothing links to the files any more.
  await Promise.all(inlined.map((file) => rm(file)));
  return out;
}

export async function prerender({ dist, ssrEntry }) {
  const template = await inlineStylesheets(await readFile(`${dist}/index.html`, 'utf8'), dist);
  const { render, PRERENDERED_ROUTES } = await import(pathToFileURL(ssrEntry).href);
  await rm(`${dist}/index.html`);
  const written = [];
  for (const route of PRERENDERED_ROUTES) {
    for (const market of ['id', 'in']) {
      const page = render(route, market);
      // react-dom/server emits a preload for the eager banner image at the start of its output;
      // it belongs in <head>, where the browser finds it first (it is no part of the hydrated tree).
      const preloads = [];
      const app = page.html.replace(/<link rel="preload"[^>]*\/>/g, (tag) => {
        preloads.push(tag);
        return '';
      });
      const html = fill(template.replace('</head>', `${preloads.join('')}</head>`), {
        __KILAT_LANG__: page.lang,
        __KILAT_TITLE__: page.title,
        __KILAT_DESCRIPTION__: escapeAttribute(page.description),
        __KILAT_THEME_COLOR__: page.themeColor,
        __KILAT_ROUTE__: route,
        __KILAT_MARKET__: market,
        __KILAT_APP__: app,
      });
      const name = `${fileBase(route)}${MARKET_FILE_SUFFIX[market]}`;
      await writeFile(`${dist}/${name}`, html);
      written.push(name);
    }
  }
  return written;
}
