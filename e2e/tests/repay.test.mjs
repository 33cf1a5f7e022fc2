// After payout, in India at a phone's size: a borrower applies; the operator approves and pays out through the console
// API; the borrower sees the plan, pays the due installment by bank transfer with a UTR; finance confirms; the
// installment shows paid; the borrower then repays everything by UPI, finance confirms, the order closes, and the
// borrower rates it once and is offered "borrow again". Each servicing screen is captured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

/** Screenshots the page as it stands (English in India's journey, Indonesian in Indonesia's). */
async function shoot(page, name, language = 'en') {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(outDir, `repay-${name}-${language}.png`), fullPage: true });
}

/**
 * The payment of the page the app is on (`/app/payments/{id}`), paid by `utr`; `whileVerifying` runs before finance
 * confirms its amount.
 */
async function payWithUtr(page, ops, utr, whileVerifying = async () => {}) {
  await page.waitForURL(/\/app\/payments\/[^/?]+/);
  const paymentId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  await page.getByLabel('UTR', { exact: true }).fill(utr);
  // Whether the page drew its loading state at any moment from here on: it should change once, from the form to
  // "verifying" with the UTR's card, never back to "Loading…".
  await page.evaluate(() => {
    window.kilatSawLoading = false;
    new MutationObserver(() => {
      if (document.querySelector('.state--loading')) window.kilatSawLoading = true;
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await page.getByText('Transfer reported. We are checking with the bank that your money has arrived. No late charge is added to the installments it pays while we check. If we cannot find it, we will tell you here.').first().waitFor();
  assert.equal(await page.evaluate(() => window.kilatSawLoading), false, 'the payment page showed "Loading…" after the UTR');
  await whileVerifying();
  const queue = await ops.get('/payments');
  const entry = queue.find((item) => item.payment.paymentId === paymentId);
  assert.ok(entry, 'the payment waits in finance’s queue');
  assert.equal(entry.payment.utr, utr);
  const confirmed = await ops.post(`/payments/${encodeURIComponent(paymentId)}/confirm`, { amount: entry.payment.amount });
  return { paymentId, confirmed, amount: entry.payment.amount };
}

test('an Indian borrower is paid out, pays an installment with a UTR, repays the rest, and rates the loan', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  await site.page(tc, async (page) => {
    const { orderNo } = await applyForLoan(page, site, { ...BORROWER_MARKETS.india, product: 'Flexi 6 Weeks' });
    const ops = await consoleSession(site);
    await ops.post(`/orders/${encodeURIComponent(orderNo)}/approve`, { reason: 'Documents in order.' });
    const payout = await ops.post(`/orders/${encodeURIComponent(orderNo)}/disburse`, { bankReference: 'HDFC-NEFT-000123' });
    assert.equal(payout.status, 'disbursed');

    // The loan page prompts what is due and offers the choices with their amounts.
    const loan = site.url(`/app/orders/${encodeURIComponent(orderNo)}?lang=1`);
    await page.goto(loan, { waitUntil: 'load' });
    const repay = page.locator('section.repay');
    await repay.getByText(/Your next installment: ₹[\d,.]+, due /).waitFor();
    await repay.getByRole('link', { name: /Pay this installment/ }).waitFor();
    await repay.getByRole('link', { name: /Repay everything today/ }).waitFor();
    await repay.getByRole('link', { name: /Leave the loan \(cooling-off\)/ }).waitFor();
    // The cooling-off exit in its parts, and until when it is open.
    await page.getByText(/^You can leave this loan until \d{1,2} \w{3} \d{4}, with no penalty\.$/).waitFor();
    await page.locator('section.cooling-off').getByText('Fees taken at payout, given back').waitFor();
    await expectNoAxeViolations(page, 'loan page after payout');
    await shoot(page, 'loan');

    // The plan and one installment.
    await repay.getByRole('link', { name: 'See the installment plan' }).click();
    const items = page.getByRole('list', { name: 'Installments' }).getByRole('listitem');
    await items.first().waitFor();
    assert.match(await items.first().textContent(), /Installment 1Upcoming/);
    await shoot(page, 'plan');
    await items.first().getByRole('link').click();
    await page.locator('.installment__label').getByText('Still to pay', { exact: true }).waitFor();
    await shoot(page, 'installment');

    // The extension Flexi 6 Weeks offers: the fee, the new due date and the revised schedule before accepting.
    await page.goto(loan, { waitUntil: 'load' });
    await page.locator('section.repay').getByRole('link', { name: /Extend the due date/ }).click();
    await page.getByText('New due date').waitFor();
    await page.getByRole('table').getByRole('row').nth(3).waitFor();
    await page.getByRole('button', { name: /^Accept and pay the fee, ₹/ }).waitFor();
    await shoot(page, 'extension');

    // Pay the installment by bank transfer, with the payment's reference to quote.
    await page.goto(loan, { waitUntil: 'load' });
    await page.locator('section.repay').getByRole('link', { name: /Pay this installment/ }).click();
    await page.getByRole('radio', { name: /Bank transfer/ }).check();
    await shoot(page, 'pay');
    await page.getByRole('radio', { name: /Bank transfer/ }).check();
    await page.getByRole('button', { name: /^Pay ₹/ }).click();
    await page.getByRole('heading', { name: /Transfer ₹[\d,.]+ to the collection account/ }).waitFor();
    const reference = await page.locator('.copy-row').filter({ hasText: 'Reference' }).locator('.copy-row__value').textContent();
    assert.match(reference, /^KP[0-9A-Z]{10}$/);
    // A reload keeps the same payment (and its idempotency key on the pay screen).
    await page.reload({ waitUntil: 'load' });
    await page.getByText(reference).waitFor();
    // The format is checked before anything is sent.
    await page.getByLabel('UTR', { exact: true }).fill('12345');
    await page.getByRole('button', { name: 'Submit UTR' }).click();
    await page.locator('.field__error').filter({ hasText: '12 digits (IMPS), or 16 or 22 letters and digits (NEFT, RTGS)' }).waitFor();
    await shoot(page, 'payment');
    const first = await payWithUtr(page, ops, '412345678901', async () => {
      // The payment's page, opened afresh by the reload above as from a link, turned to "verifying" with the UTR's
      // card in the same drawing (the card is there the moment the status is, and no "Loading…" came between).
      assert.equal(await page.locator('section.verifying').getByText(/^We got UTR 4123 4567 8901 for ₹[\d,.]+\.$/).count(), 1);
      await shoot(page, 'payment-verifying');
      // Until finance confirms, the loan says so.
      await page.goto(loan, { waitUntil: 'load' });
      await page.locator('section.verifying').getByText(/^We got UTR 4123 4567 8901 for ₹[\d,.]+\.$/).waitFor();
      await page.locator('section.verifying').getByText(/^Finance checks it by \d{1,2} \w{3} \d{4}\./).waitFor();
      await expectNoAxeViolations(page, 'loan page, verifying');
      await shoot(page, 'verifying');
    });
    assert.equal(first.confirmed.payment.status, 'confirmed');

    // The installment is paid.
    await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}/plan?lang=1`), { waitUntil: 'load' });
    await page.getByRole('list', { name: 'Installments' }).getByRole('listitem').first().filter({ hasText: 'Paid' }).waitFor();

    // Repay everything today, by UPI; finance confirms and the loan closes.
    await page.goto(loan, { waitUntil: 'load' });
    await page.locator('section.repay').getByRole('link', { name: /Repay everything today/ }).click();
    await page.getByRole('radio', { name: /^UPI/ }).check();
    await page.getByRole('button', { name: /^Pay ₹/ }).click();
    const second = await payWithUtr(page, ops, '512345678902');
    assert.equal(second.confirmed.orderStatus, 'repaid');

    await page.goto(loan, { waitUntil: 'load' });
    await page.getByRole('heading', { name: 'Loan closed' }).waitFor();
    await page.getByRole('link', { name: 'Borrow again' }).waitFor();
    await shoot(page, 'closed');
    await page.getByRole('radio', { name: '5 stars' }).click();
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByText('Thank you for your rating.').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Borrow again' }).getAttribute('href'), '/app/products');
  });
});

test('an Indonesian borrower sees the plan, an installment, the extension and a virtual account to pay to', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  await site.page(tc, async (page) => {
    const { orderNo } = await applyForLoan(page, site, BORROWER_MARKETS.indonesia);
    const ops = await consoleSession(site);
    await ops.post(`/orders/${encodeURIComponent(orderNo)}/approve`, { reason: 'Dokumen lengkap.' });
    await ops.post(`/orders/${encodeURIComponent(orderNo)}/disburse`, { bankReference: 'BCA-TRF-000456' });

    const loan = site.url(`/app/orders/${encodeURIComponent(orderNo)}?lang=id`);
    await page.goto(loan, { waitUntil: 'load' });
    const repay = page.locator('section.repay');
    await repay.getByRole('link', { name: /Bayar cicilan ini/ }).waitFor();
    assert.match(await repay.textContent(), /Rp\s?[\d.]+/);
    await page.getByText(/^Anda dapat membatalkan pinjaman ini sampai \d{1,2} \w{3} \d{4}, tanpa denda\.$/).waitFor();
    await page.locator('section.cooling-off').getByText('Dibayar untuk membatalkan pinjaman').waitFor();
    await expectNoAxeViolations(page, 'loan page after payout, Indonesia');
    await shoot(page, 'loan', 'id');

    await repay.getByRole('link', { name: 'Lihat rencana cicilan' }).click();
    const items = page.getByRole('list', { name: 'Cicilan' }).getByRole('listitem');
    await items.first().waitFor();
    await shoot(page, 'plan', 'id');
    await items.first().getByRole('link').click();
    await page.locator('.installment__label').getByText('Masih harus dibayar', { exact: true }).waitFor();
    await shoot(page, 'installment', 'id');

    // Kilat 30 offers an extension: its fee, the new due date and the revised schedule before accepting.
    await page.goto(loan, { waitUntil: 'load' });
    await page.locator('section.repay').getByRole('link', { name: /Perpanjang jatuh tempo/ }).click();
    await page.getByText('Jatuh tempo baru').waitFor();
    await page.getByRole('table').getByRole('row').nth(1).waitFor();
    await page.getByRole('button', { name: /^Setujui dan bayar biaya, Rp/ }).waitFor();
    await shoot(page, 'extension', 'id');
    await page.goto(loan, { waitUntil: 'load' });

    // Paying the installment: the virtual account's number, with no UTR to give.
    await page.locator('section.repay').getByRole('link', { name: /Bayar cicilan ini/ }).click();
    await page.getByRole('radio', { name: /Virtual account/ }).waitFor();
    await shoot(page, 'pay', 'id');
    await page.getByRole('button', { name: /^Bayar Rp/ }).click();
    await page.getByRole('heading', { name: /Transfer Rp\s?[\d.]+ ke virtual account Anda/ }).waitFor();
    assert.match(await page.locator('.copy-row').filter({ hasText: 'Nomor virtual account' }).locator('.copy-row__value').textContent(), /^\d{4}( \d{4}){3}$/);
    assert.equal(await page.getByLabel('UTR', { exact: true }).count(), 0);
    await page.getByText('ATM BCA').waitFor();
    await expectNoAxeViolations(page, 'virtual account payment');
    await shoot(page, 'payment', 'id');
  });
});
