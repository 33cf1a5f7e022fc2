// A visitor goes from the site's Apply to the app's login in their market (issue 9, "The site as a way in"): India
// in English with +91, Indonesia in Indonesian with +62, and a visitor who switched from India to Indonesia in the
// same tab lands in Indonesia's app, not the India the app remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { MARKETS, siteSettings } from '../lib/site.mjs';

const site = useSite();

const APP = {
  india: { apply: 'Apply now', login: 'Log in', phone: 'Mobile number', country: '+91', otherMarket: 'Bahasa Indonesia' },
  indonesia: { apply: 'Ajukan sekarang', login: 'Masuk', phone: 'Nomor ponsel', country: '+62', otherMarket: 'English (India)' },
};

async function landsOnLogin(page, text) {
  await page.waitForURL((url) => url.pathname === '/app/login');
  await page.getByLabel(text.phone, { exact: true }).waitFor();
  assert.ok(await page.getByText(text.country, { exact: true }).first().isVisible(), `the login offers ${text.country}`);
}

for (const [name, market] of Object.entries(MARKETS)) {
  test(`a visitor in ${name} goes from the site's Apply to the app's login in their market`, JOURNEY, async (t) => {
    const text = APP[name];
    const settings = await siteSettings(site.server.url, market);
    await site.page(t, async (page) => {
      await page.goto(site.url(market.path), { waitUntil: 'load' });
      // The claims come from the market's settings (India's seed copy; none in Indonesia).
      const body = await page.locator('body').innerText();
      for (const claim of [settings.payoutClaim, settings.usersClaim].filter(Boolean)) {
        assert.ok(body.includes(claim), `the site shows ${claim}`);
      }
      await mkdir(outDir, { recursive: true });
      await page.screenshot({ path: path.join(outDir, `site-apply-${name}.png`) });
      await page.getByRole('link', { name: text.apply, exact: true }).click();
      await landsOnLogin(page, text);
      assert.equal(await page.locator('html').getAttribute('lang'), market.code === 'IN' ? 'en-IN' : 'id-ID');
      await page.screenshot({ path: path.join(outDir, `site-apply-${name}-login.png`) });
    });
  });
}

test('a visitor who switches the site from India to Indonesia logs in to Indonesia', JOURNEY, async (t) => {
  await site.page(t, async (page) => {
    await page.goto(site.url(MARKETS.india.path), { waitUntil: 'load' });
    await page.getByRole('banner').getByRole('link', { name: APP.india.login, exact: true }).click();
    await landsOnLogin(page, APP.india);
    await page.goBack({ waitUntil: 'load' });
    await page.getByRole('link', { name: APP.india.otherMarket }).click();
    await page.getByRole('banner').getByRole('link', { name: APP.indonesia.login, exact: true }).click();
    await landsOnLogin(page, APP.indonesia);
  });
});
