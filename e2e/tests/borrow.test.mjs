// The heart of the product, in each market and its language, at a phone's size: a new borrower signs in with the
// code from the development outbox, completes the five certification steps, picks a loan, reads its Key Fact
// Statement with the APR and the loan's agreement, accepts both and confirms, is told the application was sent and
// when a decision comes, finds the loan under review in their list, reads its agreement, and withdraws it.
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
    });
  });
}
