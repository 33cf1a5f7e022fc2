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
      assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Review queue', 'Collections', 'Complaints', 'Contact messages', 'Payouts', 'Repayments', 'Reconciliation', 'Dashboard', 'Audit trail', 'Products', 'Operators', 'FAQ', 'Site']);
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
      await decision.getByLabel('Note for the team (never shown to the borrower)').fill('Income and bank account verified.');
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

/** A borrower API call from the borrower's own page (its session cookie, same origin). */
async function borrowerApi(page, method, apiPath, body, headers = {}) {
  return page.evaluate(
    async ([m, p, b, h]) => {
      const response = await fetch(p, { method: m, headers: { 'Content-Type': 'application/json', ...h }, body: b ? JSON.stringify(b) : undefined });
      return { status: response.status, envelope: await response.json() };
    },
    [method, apiPath, body, headers],
  );
}

test('finance pays out an approved loan, the borrower pays with a UTR, finance confirms it and the order shows it paid', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  // Another borrower than the approval journey's, so both run against one server.
  const market = { ...BORROWER_MARKETS.india, phone: '91234 56781', e164: '+919123456781' };
  await site.page(tc, async (borrower) => {
    const { orderNo } = await applyForLoan(borrower, site, market);
    await site.page(tc, DESKTOP, async (page) => {
      await page.goto(site.url(`/console/orders/${encodeURIComponent(orderNo)}`), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(adminPassword());
      await page.getByRole('button', { name: 'Sign in' }).click();
      const heading = page.getByRole('heading', { level: 1, name: new RegExp(orderNo) });
      await heading.waitFor();
      const decision = page.getByRole('region', { name: 'Decision' });
      await decision.getByLabel('Note for the team (never shown to the borrower)').fill('Income and bank account verified.');
      await decision.getByRole('button', { name: 'Approve…' }).click();
      await decision.getByRole('group').getByRole('button', { name: 'Yes, approve' }).click();
      await heading.filter({ hasText: 'Approved' }).waitFor();

      // Payouts: the approved order, its net amount; the reference checked, then the confirmation states the amount.
      const nav = page.getByRole('navigation', { name: 'Console sections' });
      await nav.getByRole('link', { name: 'Payouts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
      await row.waitFor();
      assert.match(await row.textContent(), /Flexi EMI.*₹[\d,]+.*₹[\d,]+/);
      await shot(page, 'payouts');
      await row.getByRole('button', { name: `Pay out ${orderNo}` }).click();
      const reference = row.getByLabel('Bank reference of the transfer');
      await reference.fill('no spaces allowed');
      await row.getByRole('button', { name: 'Continue' }).click();
      await row.getByText('Use 4 to 64 letters, digits, -, /, _ or . only.').waitFor();
      await reference.fill('HDFCN52026112500042');
      await row.getByRole('button', { name: 'Continue' }).click();
      const confirmText = await row.getByRole('group').textContent();
      assert.match(confirmText, new RegExp(`Record the payout of ₹[\\d,.]+ for ${orderNo} with bank reference HDFCN52026112500042`));
      await shot(page, 'payouts-confirm');
      await row.getByRole('button', { name: /^Pay out ₹/ }).click();
      await page.getByRole('status').filter({ hasText: `${orderNo} paid out` }).waitFor();
      // Gone from the list (the approval journey's order may still wait there).
      await page.getByRole('link', { name: orderNo }).waitFor({ state: 'detached' });

      // The borrower's plan exists; the borrower pays the installment due with a UTR.
      const plan = await borrowerApi(borrower, 'GET', `/api/v1/borrower/orders/${orderNo}/plan`);
      assert.equal(plan.status, 200, JSON.stringify(plan.envelope));
      assert.ok(plan.envelope.data.installments.length > 0);
      assert.equal(plan.envelope.data.installments[0].status, 'upcoming');
      const created = await borrowerApi(borrower, 'POST', `/api/v1/borrower/orders/${orderNo}/payments`, { choice: 'due', method: 'upi' }, { 'Idempotency-Key': 'e2e-console-pay-1' });
      assert.equal(created.status, 200, JSON.stringify(created.envelope));
      const payment = created.envelope.data;
      const utr = await borrowerApi(borrower, 'POST', `/api/v1/borrower/payments/${payment.paymentId}/utr`, { utr: '512345678901' });
      assert.equal(utr.status, 200, JSON.stringify(utr.envelope));

      // Repayments: the payment with its UTR and the loan's outstanding; confirmed with the amount received typed as the
      // bank statement shows it (never prefilled from the amount asked).
      await nav.getByRole('link', { name: 'Repayments' }).click();
      await page.getByRole('heading', { level: 1, name: 'Repayments' }).waitFor();
      const item = page.getByRole('listitem').filter({ hasText: payment.reference });
      await item.waitFor();
      assert.match(await item.textContent(), /512345678901/);
      await shot(page, 'repayments');
      await item.getByRole('button', { name: 'Confirm', exact: true }).click();
      const amount = item.getByLabel(/Amount received/);
      assert.equal(await amount.inputValue(), '', 'the amount received is typed, never prefilled');
      await amount.fill((payment.amount / 100).toFixed(2));
      await item.getByRole('button', { name: 'Continue' }).click();
      await shot(page, 'repayments-confirm');
      await item.getByRole('button', { name: /^Confirm ₹/ }).click();
      await page.getByRole('status').filter({ hasText: 'credited to the loan' }).waitFor();
      await page.getByText('No payments are waiting for verification.').waitFor();

      // The order view: the first installment paid, the payment confirmed, the repayment in the ledger.
      await page.goto(site.url(`/console/orders/${encodeURIComponent(orderNo)}`), { waitUntil: 'load' });
      const planTable = page.getByRole('region', { name: 'Installment plan' }).getByRole('table');
      await planTable.waitFor();
      assert.match(await planTable.getByRole('row').nth(1).textContent(), /Paid$/);
      assert.match(await page.getByRole('region', { name: 'Payout' }).textContent(), /HDFCN52026112500042/);
      assert.match(await page.getByRole('region', { name: 'Payments' }).textContent(), /512345678901.*Confirmed/);
      const ledger = page.getByRole('region', { name: 'Ledger' }).getByRole('table');
      assert.match(await ledger.getByRole('row').last().textContent(), /Repayment/);
      await shot(page, 'order-loan', { fullPage: true });
    });
  });
});
