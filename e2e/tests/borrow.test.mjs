// The heart of the product, in each market and its language, at a phone's size: a new borrower signs in with the
// code from the development outbox, completes the five certification steps, picks a loan, reads its Key Fact
// Statement with the APR and the loan's agreement, accepts both and confirms, is told the application was sent and
// when a decision comes, finds the loan under review in their list, reads its agreement, and withdraws it; applying
// again while a slow quote comes, finds Apply where it stays once the figures are in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

for (const [name, market] of Object.entries(BORROWER_MARKETS)) {
  const { t, values: v } = market;
  test(`a new borrower in ${name} gets certified, applies with the KFS and finds the loan under review`, { ...JOURNEY, timeout: 180_000 }, async (tc) => {
    await site.page(tc, async (page) => {
      const { orderNo, aprText } = await applyForLoan(page, site, market, { shots: `borrow-${name}` });

      // The order list has it, under review.
      await page.goto(site.url(`/app/orders${market.lang}`), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: t.loans }).waitFor();
      const row = page.getByRole('link', { name: new RegExp(orderNo) });
      await row.waitFor();
      const item = page.getByRole('listitem').filter({ has: row });
      assert.match(await item.textContent(), new RegExp(t.underReview));

      // And its agreement, with the borrower's name and the ID number masked.
      await row.click();
      await page.getByRole('link', { name: t.agreement, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: t.agreementTitle }).or(page.getByRole('heading', { level: 1, name: t.agreement })).first().waitFor();
      await page.getByText(v.fullName).first().waitFor();
      const body = await page.locator('main').textContent();
      assert.ok(body.includes(orderNo), 'the agreement names the order');
      assert.ok(!body.includes(v.idNumber) && !body.includes(v.account), 'numbers stay masked in the agreement');
      assert.ok(body.includes(aprText), 'the agreement states the accepted APR');
      await page.screenshot({ path: path.join(outDir, `borrow-${name}-agreement.png`) });

      // Withdrawn after a confirm dialog: cancelled, and the borrower may apply again.
      await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}${market.lang}`), { waitUntil: 'load' });
      await page.getByRole('button', { name: t.withdraw }).click();
      await page.getByRole('dialog').getByRole('button', { name: t.withdrawConfirm, exact: true }).click();
      await page.locator('.order__head .status-badge--cancelled').waitFor();
      assert.equal(await page.getByRole('button', { name: t.withdraw }).count(), 0);
      await page.screenshot({ path: path.join(outDir, `borrow-${name}-cancelled.png`) });

      // Applying again: while a slow quote comes, Apply stays where it will be once the figures are in, so a tap
      // meant for it cannot land on them (it moved 107–129 px when the figures replaced a loading notice).
      await page.route('**/api/v1/borrower/quote', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await route.continue();
      });
      await page.goto(site.url(`/app/home${market.lang}`), { waitUntil: 'load' });
      await page.getByRole('link', { name: market.product }).first().click();
      const apply = page.getByRole('link', { name: t.apply, exact: true });
      await page.locator('section.quote [role="status"]').waitFor();
      const waiting = await apply.boundingBox();
      await page.locator('section.quote').getByText(/^\d+[.,]\d{2}%$/).waitFor();
      const quoted = await apply.boundingBox();
      assert.ok(Math.abs(quoted.y - waiting.y) <= 24, `Apply moved ${quoted.y - waiting.y} px when the quote came`);
      await page.unroute('**/api/v1/borrower/quote');
    });
  });
}
