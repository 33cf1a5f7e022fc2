// The review loop across the two apps: a borrower in India applies on a phone; the demo admin that `kilat serve`
// creates in development signs in to the console on a desktop, finds the application in the review queue, opens it
// (certification in full, as a reviewer sees it), approves it with a reason after the confirmation, and finds the
// decision in the audit trail; the borrower's loan page then shows the loan approved. Screenshots of each console
// screen go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

/** A desktop browser window: the console is built for operators at a desk. */
const DESKTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false };

/** The demo admin's password, from the line `kilat serve` prints once in development. */
function adminPassword() {
  const match = /^Console: http:\/\/\S+\/console\/ as admin, password (\S+) /m.exec(site.server.output());
  assert.ok(match, `kilat serve printed no demo admin line:\n${site.server.output().slice(-2000)}`);
  return match[1];
}

async function shot(page, name, options = {}) {
  await page.screenshot({ path: path.join(outDir, `console-${name}.png`), ...options });
}

test('the console refuses a wrong password plainly, on a phone too', JOURNEY, async (tc) => {
  await site.page(tc, async (page) => {
    await page.goto(site.url('/console/'), { waitUntil: 'load' });
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not the password at all');
    // The browser logs the refusal (a 401) as a failed load: that one error is expected, any other still fails.
    const unexpected = [];
    page.removeAllListeners('console');
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/status of 401/.test(msg.text())) unexpected.push(msg.text());
    });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/login');
    await shot(page, 'sign-in-phone');
    assert.deepEqual(unexpected, []);
  });
});

test('a reviewer approves an application in the console and the borrower sees it approved', { ...JOURNEY, timeout: 240_000 }, async (tc) => {
  const market = BORROWER_MARKETS.india;
  await site.page(tc, async (borrower) => {
    const { orderNo } = await applyForLoan(borrower, site, market);

    await site.page(tc, DESKTOP, async (page) => {
      // Sign in: any console page sends an unsigned visitor to the sign-in, and back afterwards.
      await page.goto(site.url('/console/applications'), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await shot(page, 'sign-in');
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(adminPassword());
      await page.getByRole('button', { name: 'Sign in' }).click();

      // The queue of India, with the application, its amount in rupees and its APR.
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Console sections' });
      assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Review queue', 'Audit trail']);
      const link = page.getByRole('link', { name: orderNo });
      await link.waitFor();
      const row = page.getByRole('row').filter({ has: link });
      const rowText = await row.textContent();
      assert.match(rowText, /₹[\d,]+/);
      assert.match(rowText, /\d+\.\d{2}%/);
      assert.match(rowText, /Flexi EMI/);
      await shot(page, 'queue');

      // Indonesia's queue is empty: it says so.
      await page.getByRole('link', { name: 'Indonesia' }).click();
      await page.getByText('No applications are waiting for review in Indonesia.').waitFor();
      await shot(page, 'queue-empty');
      await page.getByRole('link', { name: 'India' }).click();

      // The order: under review, the borrower's certification in full for a reviewer, the accepted KFS.
      await link.click();
      const heading = page.getByRole('heading', { level: 1, name: new RegExp(orderNo) });
      await heading.waitFor();
      assert.match(await heading.textContent(), /Pending review/);
      const cert = page.getByRole('region', { name: 'Certification' });
      await cert.getByText(market.values.idNumber, { exact: true }).waitFor();
      await cert.getByText(market.values.account, { exact: true }).waitFor();
      await page.getByRole('table', { name: 'Schedule' }).waitFor();
      await shot(page, 'order');

      // Approve: a reason, then the confirmation that restates it.
      const decision = page.getByRole('region', { name: 'Decision' });
      await decision.getByLabel('Reason (the borrower sees it)').fill('Income and bank account verified.');
      await decision.getByRole('button', { name: 'Approve…' }).click();
      const confirm = decision.getByRole('group');
      assert.match(await confirm.textContent(), new RegExp(`Approve ${orderNo} for ₹`));
      await shot(page, 'order-confirm');
      await confirm.getByRole('button', { name: 'Yes, approve' }).click();
      await page.getByRole('status').filter({ hasText: `${orderNo} is approved.` }).waitFor();
      await heading.filter({ hasText: 'Approved' }).waitFor();
      assert.equal(await decision.count(), 0, 'no decision is offered once decided');
      await shot(page, 'order-approved', { fullPage: true });

      // The audit trail has the approval and the unmasked view, by this operator.
      await nav.getByRole('link', { name: 'Audit trail' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
      await page.getByLabel('Order number').fill(orderNo);
      await page.getByLabel('Operator (username or id)').fill('admin');
      await page.getByRole('button', { name: 'Search' }).click();
      const table = page.getByRole('table', { name: /entr(y|ies), newest first/ });
      await table.getByText('order.approve', { exact: true }).waitFor();
      await table.getByText('view_unmasked', { exact: true }).first().waitFor();
      // The search's answer replaces the unfiltered list the page opened with (which has the borrower's order.open):
      // wait for that to go, and fail if it stays.
      await table.getByText('order.open', { exact: true }).waitFor({ state: 'detached', timeout: 10_000 });
      assert.ok(!(await table.textContent()).includes('order.open'), 'the borrower’s own entries are not the operator’s');
      await shot(page, 'audit');

      // Signing out ends the session: the queue asks for the sign-in again.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.goto(site.url('/console/applications'), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    });

    // The borrower's loan page shows the decision.
    await borrower.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}${market.lang}`), { waitUntil: 'load' });
    // "Approved" is its status now; the timeline keeps "Under review" before it.
    await borrower.getByText(`Loan number ${orderNo}`).waitFor();
    const page = await borrower.locator('main').textContent();
    assert.ok(page.indexOf('Approved') >= 0 && page.indexOf('Approved') < page.indexOf(`Loan number ${orderNo}`), 'the status beside the loan reads Approved');
    assert.ok(page.lastIndexOf('Approved') > page.lastIndexOf(market.t.underReview), 'the timeline ends with the approval');
    await borrower.screenshot({ path: path.join(outDir, 'console-borrower-approved.png') });
  });
});
