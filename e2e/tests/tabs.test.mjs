// A visitor moves between the two tabs of the top bar; each shows its own section and lands at the top.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { BANNER, MARKETS } from '../lib/site.mjs';

const site = useSite();

async function scrollToBottom(page) {
  await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
  await page.waitForFunction(() => window.scrollY > 0, null, { timeout: 3000, polling: 50 });
}

async function landsAtTop(page) {
  // Smooth scrolling takes a few hundred milliseconds.
  await page.waitForFunction(() => window.scrollY === 0, null, { timeout: 3000, polling: 50 });
}

for (const market of Object.values(MARKETS)) {
  test(`a visitor in ${market.name} switches between Home and Contact Us and lands at the top each time`, JOURNEY, async (t) => {
    await site.page(t, async (page) => {
      await page.goto(site.url(market.path), { waitUntil: 'load' });
      const homeTab = page.getByRole('tab', { name: market.tabs.home, exact: true });
      const contactTab = page.getByRole('tab', { name: market.tabs.contact, exact: true });
      const banner = page.locator(BANNER.root);
      const name = page.getByLabel(market.form.name, { exact: true });
      const footer = page.getByRole('contentinfo');

      assert.ok(await banner.isVisible(), 'Home shows the banner');
      assert.ok(!(await name.isVisible()), 'Home does not show the contact form');

      // Read to the bottom of Home, then choose Contact Us.
      await scrollToBottom(page);
      assert.ok(await footer.isVisible(), 'the footer is reached at the bottom of Home');
      await contactTab.click();
      await name.waitFor({ state: 'visible' });
      assert.ok(await page.getByLabel(market.form.telephone, { exact: true }).isVisible());
      assert.ok(await page.getByLabel(market.form.message, { exact: true }).isVisible());
      assert.ok(await page.getByRole('button', { name: market.form.send }).isVisible());
      assert.ok(!(await banner.isVisible()), 'Contact Us does not show the banner');
      assert.equal(await contactTab.getAttribute('aria-selected'), 'true');
      assert.equal(await homeTab.getAttribute('aria-selected'), 'false');
      await landsAtTop(page);

      // Back to Home from further down the page (as far as the contact section goes), and it lands at the top.
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
      await homeTab.click();
      await banner.waitFor({ state: 'visible' });
      assert.ok(!(await name.isVisible()), 'Home hides the contact form again');
      assert.equal(await homeTab.getAttribute('aria-selected'), 'true');
      await landsAtTop(page);
    });
  });
}
