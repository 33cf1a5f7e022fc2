// Reconciliation in the console (issue 18, item 2): two Indian borrowers apply on a phone and are approved and paid
// out through the console API; each pays an installment by bank transfer and submits a UTR. Finance (the demo admin)
// opens Reconciliation at a desk, maps the bank's statement layout once (with a preview of the first lines), imports
// a statement whose credits carry the two UTRs with the exact amounts, and confirms the two matched payments in one
// action after a step that restates the total. The queue then no longer holds them, and importing the same file again
// confirms nothing twice. Screenshots go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { DESKTOP, openConsole } from '../lib/console.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

/** A second Indian borrower: another phone and PAN. */
const SECOND = {
  ...BORROWER_MARKETS.india,
  phone: '91234 56781',
  e164: '+919123456781',
  values: { ...BORROWER_MARKETS.india.values, fullName: 'Ravi Kumar', idNumber: 'ABCPK5678G', account: '501001234568', accountShown: '5010 0123 4568' },
};

/** `minor` paise as an Indian statement writes it: `1,00,000.50`. */
function rupees(minor) {
  const whole = String(Math.floor(minor / 100));
  const last = whole.slice(-3);
  const head = whole.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  return `${head ? `${head},` : ''}${last}.${String(minor % 100).padStart(2, '0')}`;
}

/** Applies, is approved and paid out, and submits `utr` for the installment due by bank transfer: (order, amount). */
async function waitingUtrPayment(page, ops, market, utr) {
  const { orderNo } = await applyForLoan(page, site, { ...market, product: 'Flexi 6 Weeks' });
  await ops.post(`/orders/${encodeURIComponent(orderNo)}/approve`, { reason: 'Documents in order.' });
  await ops.post(`/orders/${encodeURIComponent(orderNo)}/disburse`, { bankReference: `HDFC-NEFT-${utr.slice(-6)}` });
  await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}?lang=1`), { waitUntil: 'load' });
  await page.locator('section.repay').getByRole('link', { name: /Pay this installment/ }).click();
  await page.getByRole('radio', { name: /Bank transfer/ }).check();
  await page.getByRole('button', { name: /^Pay ₹/ }).click();
  await page.waitForURL(/\/app\/payments\/[^/?]+/);
  const paymentId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  await page.getByLabel('UTR', { exact: true }).fill(utr);
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await page.getByText('Transfer reported. We are checking with the bank that your money has arrived. No late charge is added to the installments it pays while we check. If we cannot find it, we will tell you here.').first().waitFor();
  const entry = (await ops.get('/payments')).find((item) => item.payment.paymentId === paymentId);
  assert.ok(entry, 'the payment waits in finance’s queue');
  return { orderNo, paymentId, amount: entry.payment.amount };
}

test('finance imports a bank statement that confirms two UTR payments in one action', { ...JOURNEY, timeout: 400_000 }, async (tc) => {
  const ops = await consoleSession(site);
  const payments = [];
  await site.page(tc, async (page) => {
    payments.push(await waitingUtrPayment(page, ops, BORROWER_MARKETS.india, '512345678901'));
  });
  await site.page(tc, async (page) => {
    payments.push(await waitingUtrPayment(page, ops, SECOND, '512345678902'));
  });
  const [a, b] = payments;
  const statement = [
    'Date,Narration,Chq./Ref.No.,Withdrawal Amt.,Deposit Amt.',
    `27/11/2026,UPI/ASHA VERMA/asha@okhdfc,512345678901,,"${rupees(a.amount)}"`,
    `27/11/2026,NEFT CR 512345678902 RAVI KUMAR,N331261234,,"${rupees(b.amount)}"`,
    '27/11/2026,UPI/SOMEONE ELSE,599999999999,,"1,000.00"',
    '28/11/2026,NEFT charges,CHG0001,11.80,',
    '',
  ].join('\n');
  const file = path.join(outDir, 'statement-hdfc.csv');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(file, statement);

  await site.page(tc, DESKTOP, async (desk) => {
    await openConsole(desk, site, '/reconciliation');
    await desk.getByRole('heading', { level: 1, name: 'Reconciliation' }).waitFor();
    await desk.getByLabel('Statement file (CSV)').setInputFiles(file);
    // The rows by column number show before a layout is chosen.
    await desk.getByRole('table', { name: /first rows, by column number/ }).getByText('Deposit Amt.').waitFor();
    await desk.getByLabel('Bank layout').selectOption({ label: 'New layout…' });
    await desk.getByLabel('Name (the bank and account)').fill('HDFC current account');
    await desk.getByLabel('Narration column (optional)').fill('2');
    await desk.getByLabel('Reference / UTR column').fill('3');
    await desk.getByLabel('Credit column').fill('5');
    await desk.getByLabel('Debit column (optional)').fill('4');
    await desk.getByRole('button', { name: 'Preview' }).click();
    const lines = desk.getByRole('table', { name: 'The first lines read with this layout' });
    await lines.getByText('512345678902').first().waitFor();
    await desk.screenshot({ path: path.join(outDir, 'console-statement-preview.png'), fullPage: true });
    await desk.getByRole('button', { name: 'Save layout' }).click();
    await desk.getByRole('status').filter({ hasText: 'Layout “HDFC current account” saved.' }).waitFor();
    await desk.getByRole('button', { name: 'Import statement-hdfc.csv' }).click();

    const matched = desk.getByRole('region', { name: 'Matched: UTR and amount agree (2)' });
    await matched.waitFor();
    await desk.getByRole('region', { name: 'Statement lines with no payment (1)' }).getByText('599999999999').waitFor();
    const total = rupees(a.amount + b.amount).replace(/\.00$/, '');
    await desk.getByRole('button', { name: `Confirm 2 matched payments (₹${total})` }).click();
    await desk.getByText(`Credit 2 payments totalling ₹${total} to their loans?`, { exact: false }).waitFor();
    await desk.screenshot({ path: path.join(outDir, 'console-statement-confirm.png'), fullPage: true });
    await desk.getByRole('button', { name: `Confirm ₹${total}` }).click();
    await desk.getByRole('status').filter({ hasText: `2 payments confirmed (₹${total} credited to loans).` }).waitFor();
    await desk.getByRole('region', { name: 'Confirmed (2)' }).waitFor();
    await desk.screenshot({ path: path.join(outDir, 'console-statement-done.png'), fullPage: true });

    // The same file again is the first import: nothing is confirmed twice.
    await desk.getByLabel('Statement file (CSV)').setInputFiles(file);
    await desk.getByLabel('Bank layout').selectOption({ label: 'HDFC current account · India' });
    await desk.getByRole('button', { name: 'Import statement-hdfc.csv' }).click();
    await desk.getByRole('status').filter({ hasText: 'This file was imported before' }).waitFor();
  });

  const queue = await ops.get('/payments');
  for (const p of payments) {
    assert.ok(!queue.some((item) => item.payment.paymentId === p.paymentId), `${p.orderNo} no longer waits`);
  }
  const history = await ops.get('/reconciliation/imports');
  assert.equal(history.length, 1);
  assert.equal(history[0].confirmedCount, 2);
});
