// A visitor reads the home page, in India (English, rupees) and in Indonesia (Indonesian, rupiah).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { MARKETS, siteSettings, squash } from '../lib/site.mjs';

const site = useSite();

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; " +
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(self)',
};

async function readsHomePage(t, market, expectedOther) {
  const settings = await siteSettings(site.server.url, market);
  await site.page(t, async (page) => {
    const response = await page.goto(site.url(market.path), { waitUntil: 'load' });
    assert.equal(response.status(), 200);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      assert.equal(response.headers()[name], value, `header ${name} on the page response`);
    }
    assert.match(response.headers()['cache-control'] ?? '', /no-cache/, 'the page is revalidated (Cache-Control)');

    assert.equal(await page.title(), settings.companyName, 'the browser title is the company name');
    assert.match(await page.locator('html').getAttribute('lang'), market.htmlLang, 'html lang');

    // The top bar: the company name and the two tabs, Home selected.
    await assert.doesNotReject(page.getByRole('banner').getByText(settings.companyName).first().waitFor());
    const home = page.getByRole('tab', { name: market.tabs.home, exact: true });
    const contact = page.getByRole('tab', { name: market.tabs.contact, exact: true });
    assert.equal(await home.getAttribute('aria-selected'), 'true');
    assert.equal(await contact.getAttribute('aria-selected'), 'false');

    // The offer in the market's currency, and not the other market's.
    const text = squash(await page.locator('body').innerText());
    for (const figure of market.offer) assert.ok(text.includes(squash(figure)), `the page shows ${figure}`);
    for (const figure of expectedOther.offer) assert.ok(!text.includes(squash(figure)), `the page does not show ${figure}`);

    // Three loan steps, and the About promises.
    const steps = page.getByRole('region', { name: market.steps }).getByRole('listitem');
    assert.equal(await steps.count(), 3, 'three loan steps');
    for (const promise of market.promises) {
      assert.ok(await page.getByRole('heading', { name: promise }).isVisible(), `the home page promises ${promise}`);
    }

    // The footer: company details and the grievance officer, all from the runtime settings.
    const footer = page.getByRole('contentinfo');
    const footerText = squash(await footer.innerText());
    for (const value of [
      settings.companyName,
      settings.address,
      settings.email,
      settings.copyright,
      settings.grievanceOfficer.name,
      settings.grievanceOfficer.email,
    ]) {
      assert.ok(footerText.includes(squash(value)), `the footer shows ${JSON.stringify(value)}`);
    }
  });
}

test('a visitor in Indonesia reads the home page in Indonesian with the offer in rupiah', JOURNEY, async (t) => {
  await readsHomePage(t, MARKETS.indonesia, MARKETS.india);
});

test('a visitor in India (lang=1) reads the home page in English with the offer in rupees', JOURNEY, async (t) => {
  await readsHomePage(t, MARKETS.india, MARKETS.indonesia);
});

test('a visitor follows the About link to /about, reads the promises and goes back home', JOURNEY, async (t) => {
  const market = MARKETS.india;
  const settings = await siteSettings(site.server.url, market);
  await site.page(t, async (page) => {
    await page.goto(site.url(market.path), { waitUntil: 'load' });
    await page.getByRole('main').getByRole('link', { name: `About ${settings.companyName}` }).click();
    await page.waitForURL((url) => url.pathname === '/about' && url.searchParams.get('lang') === '1');
    for (const promise of market.promises) {
      // Waited for, not read once: the route renders after the address changes.
      await page.getByRole('heading', { name: promise }).waitFor();
    }
    await page.getByRole('link', { name: market.tabs.home, exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('tab', { name: market.tabs.home, exact: true }).waitFor();

    // /about is also a page of its own (prerendered like the home page).
    const response = await page.goto(site.url('/about?lang=1'), { waitUntil: 'load' });
    assert.equal(response.status(), 200);
    assert.equal(await page.title(), settings.companyName);
    for (const promise of market.promises) {
      // Waited for, not read once: the route renders after the address changes.
      await page.getByRole('heading', { name: promise }).waitFor();
    }
  });
});

test('an unknown API path answers a JSON 404 in the envelope', JOURNEY, async () => {
  const res = await fetch(site.url('/api/v1/no-such-thing'));
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  const body = await res.json();
  assert.equal(body.code, 'not_found');
  assert.equal(body.data, null);
  assert.equal(typeof body.msg, 'string');
});
