// The home page is prerendered: with JavaScript off a visitor (or a crawler) still gets the title and the text,
// with the runtime settings filled in by the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { MARKETS, siteSettings, squash } from '../lib/site.mjs';

const site = useSite();

for (const market of Object.values(MARKETS)) {
  test(`with JavaScript off, a visitor in ${market.name} still reads the home page`, JOURNEY, async (t) => {
    const settings = await siteSettings(site.server.url, market);
    await site.page(t, { javaScriptEnabled: false }, async (page) => {
      const response = await page.goto(site.url(market.path), { waitUntil: 'load' });
      assert.equal(response.status(), 200);
      const html = await response.text();
      assert.ok(!html.includes('%%KILAT'), 'every settings placeholder was replaced');
      assert.match(html, /<script type="application\/json" id="kilat-settings">/, 'the settings data block is there');

      assert.equal(await page.title(), settings.companyName, 'the title is the company name');
      assert.match(await page.locator('html').getAttribute('lang'), market.htmlLang);
      const text = squash(await page.locator('body').innerText());
      for (const expected of [
        settings.companyName,
        market.tabs.home,
        market.tabs.contact,
        ...market.offer,
        settings.address,
        settings.email,
        settings.copyright,
        settings.grievanceOfficer.name,
      ]) {
        assert.ok(text.includes(squash(expected)), `the prerendered page shows ${JSON.stringify(expected)}`);
      }
    });
  });
}
