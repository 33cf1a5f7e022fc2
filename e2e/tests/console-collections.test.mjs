// Collections (issue 18 item 4), in India: a borrower's loan is paid out and falls ten days past due (the business
// date moved, at 11:00 in India); the collections queue lists it in the 8–30 bucket with the amounts the borrower sees;
// the agent opens it, reveals the borrower's number (audited), logs a call that reached the borrower and records a
// promise to pay, which the panel and the queue then show open. The order view shows the contact history. At 21:14
// the console says calling hours are over and will not log a call. The business date is reset afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { DESKTOP, openConsole } from '../lib/console.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

async function shoot(page, name) {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(outDir, `collections-${name}.png`), fullPage: true });
}

/** The page at the two desk sizes operators use, then back to the journey's size. */
async function shootSizes(page, name) {
  for (const [width, height] of [
    [1366, 768],
    [1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    await shoot(page, `${name}-${width}x${height}`);
  }
  await page.setViewportSize(DESKTOP.viewport);
}

async function setClock(date, time) {
  const response = await fetch(site.url('/api/v1/dev/business-date'), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(date ? { date, time } : {}),
  });
  assert.equal(response.status, 200);
}

function plusDays(isoDate, days) {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

test('an overdue loan is worked through the collections queue with a promise to pay', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  const india = BORROWER_MARKETS.india;
  const market = {
    ...india,
    phone: '91234 56781',
    e164: '+919123456781',
    values: { ...india.values, idNumber: 'ABCPE5678F', account: '501001234999', accountShown: '5010 0123 4999' },
  };
  try {
    await site.page(tc, async (borrower) => {
      const { orderNo } = await applyForLoan(borrower, site, market);
      const ops = await consoleSession(site);
      await ops.post(`/orders/${encodeURIComponent(orderNo)}/approve`, { reason: 'Documents in order.' });
      await ops.post(`/orders/${encodeURIComponent(orderNo)}/disburse`, { bankReference: 'HDFC-NEFT-000777' });
      const loan = await ops.get(`/collections/${encodeURIComponent(orderNo)}`);
      const due = loan.installments[0].dueDate;
      const today = plusDays(due, 10);
      await setClock(today, '11:00');

      await site.page(tc, DESKTOP, async (page) => {
        await openConsole(page, site, '/collections?market=IN');
        await page.getByRole('heading', { level: 1, name: 'Collections' }).waitFor();
        await page.getByText('Calling hours are 08:00–19:00 in India; it is 11:0').waitFor();
        await page.getByRole('button', { name: /^8-30 days 1$/ }).click();
        // The filter is a navigation (the bucket goes into the address), rendered in a transition: wait for the
        // pressed state rather than read it once straight after the click.
        await page.getByRole('button', { name: /^8-30 days 1$/, pressed: true }).waitFor();
        assert.equal(await page.getByRole('button', { name: /^All/, pressed: true }).count(), 0);
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
        await row.waitFor();
        const cells = await row.getByRole('cell').allTextContents();
        assert.equal(cells[2], '10');
        assert.equal(cells[3], '8-30');
        await shootSizes(page, 'queue');

        // The agent's panel: the borrower's phone only, the full number on request.
        await row.getByRole('link', { name: orderNo }).click();
        await page.getByRole('heading', { level: 1, name: new RegExp(`Collections · ${orderNo}`) }).waitFor();
        await page.getByText('Contact only the borrower. Emergency contacts are never called.').waitFor();
        await page.getByRole('button', { name: 'Show full number' }).click();
        await page.getByRole('link', { name: market.e164 }).waitFor();

        // A call where the borrower promised to pay, logged with the keyboard, the promise with it: ₹2,500 by three
        // days from now.
        const contactForm = page.getByRole('form', { name: 'Log a contact attempt' });
        await contactForm.getByLabel('Channel').focus();
        await contactForm.getByLabel('Channel').selectOption('call');
        await contactForm.getByLabel('Outcome').selectOption('promised');
        const promiseBy = plusDays(today, 3);
        await contactForm.getByLabel('Pay by').fill(promiseBy);
        await contactForm.getByLabel('Amount (₹)').fill('2500');
        await contactForm.getByLabel('Note').fill('Salary on Friday; will pay then.');
        await contactForm.getByLabel('Note').press('Tab');
        await page.keyboard.press('Enter');
        await page.getByRole('status').filter({ hasText: /Contact logged, with a promise to pay ₹2,500 by/ }).waitFor();
        const log = page.getByRole('region', { name: 'Contact log' });
        await log.getByText('Salary on Friday; will pay then.').waitFor();
        const promises = page.getByRole('region', { name: 'Promises to pay' });
        await promises.getByText('Open').waitFor();
        await shootSizes(page, 'case');

        // The queue shows the promise and the last contact; the order view, the contact history.
        await page.getByRole('link', { name: 'Back to the overdue queue' }).click();
        const again = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
        await again.getByText('Open').waitFor();
        await again.getByText(/Call · Promised to pay/).waitFor();
        await page.goto(site.url(`/console/orders/${encodeURIComponent(orderNo)}`), { waitUntil: 'load' });
        const history = page.getByRole('region', { name: 'Collections: contact history' });
        await history.getByText(/Salary on Friday/).waitFor();

        // After calling hours, the console says so and will not log a call.
        await setClock(today, '21:14');
        await page.goto(site.url(`/console/collections/${encodeURIComponent(orderNo)}`), { waitUntil: 'load' });
        await page.getByText('Calling hours are 08:00–19:00 in India; it is 21:14 there now.', { exact: false }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Log contact' }).isDisabled(), true);
        await shootSizes(page, 'after-hours');
      });
    });
  } finally {
    await setClock(null);
  }
});
