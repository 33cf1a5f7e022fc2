// The loan's whole life, as issue 8's journeys word it: the borrower on a phone (360×740), the operators in the
// console at a desk (1280×800), each step through the real pages; only the provider's callback is an API call.
// 1. India: apply; a reviewer approves; finance pays out; the borrower sees the plan, extends once (the fee paid with a
//    UTR, finance confirms) and sees the new due date, pays what is due with a UTR; finance confirms; the loan closes;
//    the borrower rates it and borrows again.
// 2. Indonesia: apply, approved, paid out; the borrower repays to the virtual account; a signed Xendit VA-paid callback
//    for the exact amount closes the loan without an operator.
// 3. Indonesia, money after payout (issue 16): a signed Xendit callback for less than asked is held; the borrower is
//    told finance is checking it; finance sees received against asked in the console and credits it; the borrower's
//    payment says what was credited and the plan shows the part payment.
// The journeys that move the business date (cooling-off, overdue) are in loan-dates.test.mjs, on a server of their own,
// so the two files run at once. Screenshots of the key steps go to e2e/out/life-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { DESKTOP, approveInConsole, confirmInConsole, openConsole, payOutInConsole, paymentFact, section } from '../lib/console.mjs';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { borrowerGet, indian, minorOf, openLoanPage, openPayment, shoot, submitUtr } from '../lib/loan-life.mjs';
import { pdfText } from '../lib/pdf.mjs';

const site = useSite();
const LONG = { ...JOURNEY, timeout: 360_000 };
const openLoan = (page, orderNo, lang) => openLoanPage(site, page, orderNo, lang);

/**
 * The closed loan's no-dues certificate / surat keterangan lunas, from the link on its page (the borrower's cookie
 * authenticates the download): its file name and its text.
 */
async function noDuesCertificate(page, linkName, acceptLanguage) {
  const link = page.getByRole('link', { name: linkName });
  await link.waitFor();
  const response = await page.context().request.get(site.url(await link.getAttribute('href')), {
    headers: { 'Accept-Language': acceptLanguage },
  });
  assert.equal(response.status(), 200);
  assert.equal(response.headers()['content-type'], 'application/pdf');
  return { disposition: response.headers()['content-disposition'], text: await pdfText(await response.body()) };
}

test('India: approved and paid out in the console, extended once, repaid with UTRs, closed, rated, borrowing again', LONG, async (tc) => {
  const market = indian(1, 'Salary Advance');
  await site.page(tc, async (page) => {
    const { orderNo } = await applyForLoan(page, site, market);
    await site.page(tc, DESKTOP, async (ops) => {
      await approveInConsole(ops, site, orderNo);
      await payOutInConsole(ops, orderNo, 'HDFCN52026112500101');
      await shoot(ops, 'in-console-paid-out');

      // The loan page: paid out, what is due next, the choices; the plan.
      await openLoan(page, orderNo);
      const repay = page.locator('section.repay');
      const prompt = repay.getByText(/^Your next installment: ₹[\d,.]+, due /);
      await prompt.waitFor();
      const firstDue = (await prompt.textContent()).match(/, due (.+)\.$/)[1];
      await shoot(page, 'in-loan');
      await repay.getByRole('link', { name: 'See the installment plan' }).click();
      const items = page.getByRole('list', { name: 'Installments' }).getByRole('listitem');
      await items.first().waitFor();
      assert.equal(await items.count(), 1, 'a salary advance is one repayment');
      assert.match(await items.first().textContent(), /Installment 1Upcoming/);
      await shoot(page, 'in-plan');

      // Extend once: the fee, the new due date and the revised schedule, accepted and paid by UPI with a UTR.
      await openLoan(page, orderNo);
      await page.locator('section.repay').getByRole('link', { name: /Extend the due date/ }).click();
      const newDue = (await page.locator('.figures__row').filter({ hasText: 'New due date' }).locator('dd').textContent()).trim();
      assert.notEqual(newDue, firstDue);
      const fee = page.locator('.figures__row').filter({ hasText: 'Extension fee' }).locator('dd');
      const feeText = (await fee.textContent()).trim();
      await page.getByRole('radio', { name: /^UPI/ }).check();
      await shoot(page, 'in-extension');
      await page.getByRole('button', { name: `Accept and pay the fee, ${feeText}` }).click();
      const extensionRef = await submitUtr(page, '712345678901');
      await shoot(page, 'in-extension-verifying');
      const credited = await confirmInConsole(ops, extensionRef, { utr: '712345678901' });
      assert.equal(minorOf(credited), minorOf(feeText), 'finance confirms the fee asked');

      // The due date moved; the amount stayed (paid before it, the installment asks less: said after the date).
      await openLoan(page, orderNo);
      await page.locator('section.repay').getByText(new RegExp(`^Your next installment: ₹[\\d,.]+, due ${newDue}\\.( Paid today it is ₹[\\d,.]+: interest only for the days used\\.)?$`)).waitFor();
      await page.getByText(`Installment 1 was extended: it is now due on ${newDue}.`).waitFor();
      await page.locator('.timeline__status').filter({ hasText: 'Due date extended' }).waitFor();
      await shoot(page, 'in-extended');

      // Pay what is due by bank transfer with a UTR; finance confirms; the loan closes.
      await page.locator('section.repay').getByRole('link', { name: /Pay this installment/ }).click();
      await page.getByRole('radio', { name: /Bank transfer/ }).check();
      await page.getByRole('button', { name: /^Pay ₹/ }).click();
      const dueRef = await submitUtr(page, 'HDFCR52026112500000077');
      await confirmInConsole(ops, dueRef, { utr: 'HDFCR52026112500000077', shot: () => shoot(ops, 'in-console-confirm') });

      // The console's order view: repaid, nothing outstanding, the extension fee and the repayment in the ledger. The
      // only installment paid before its date costs no more than the payoff that day (crates/domain/src/settle.rs), so
      // it is posted as the payoff, the interest for the days not used taken off.
      await openConsole(ops, site, `/orders/${encodeURIComponent(orderNo)}`);
      await ops.getByRole('heading', { level: 1, name: new RegExp(`${orderNo}.*Repaid`) }).waitFor();
      const ledger = await ops.getByRole('region', { name: 'Ledger' }).getByRole('table').textContent();
      assert.match(ledger, /Extension fee/);
      assert.match(ledger, /Payoff/);
      await shoot(ops, 'in-console-order');
    });

    // Closed, in words; a rating, once; borrowing again leads to a new application.
    await openLoan(page, orderNo);
    await page.getByRole('heading', { name: 'Loan closed' }).waitFor();
    await page.getByText('Repaid in full. Nothing is outstanding.').waitFor();
    await page.locator('.status-badge').filter({ hasText: 'Repaid' }).first().waitFor();
    await page.getByRole('radio', { name: '5 stars' }).click();
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByText('Thank you for your rating.').waitFor();
    await shoot(page, 'in-closed');

    // The no-dues certificate: the lender, the loan, what was paid, nothing outstanding, the market's day.
    const noDues = await noDuesCertificate(page, 'No-dues certificate (PDF)', 'en-IN');
    assert.match(noDues.disposition, new RegExp(`${orderNo}-no-dues-certificate\\.pdf`));
    for (const expected of [
      'No-dues certificate',
      `Loan number: ${orderNo}`,
      'certifies that loan',
      'How it closed: Repaid in full',
      'Total paid: ₹',
      'Outstanding: ₹0',
    ]) {
      assert.ok(noDues.text.includes(expected), `${expected} in ${noDues.text}`);
    }
    assert.match(noDues.text, /Closed on: \d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept|Oct|Nov|Dec) \d{4}/);
    await page.getByRole('link', { name: 'Borrow again' }).click();
    await page.waitForURL(/\/app\/products/);
    await page.getByRole('link', { name: market.product }).first().click();
    await page.getByRole('heading', { level: 1, name: market.product }).waitFor();
    // Apply once the quote is in, where Apply stays (lib/borrower.mjs, applyForLoan).
    await page.locator('section.quote').getByText(/^\d+\.\d{2}%$/).waitFor();
    await page.getByRole('button', { name: 'Apply', exact: true }).or(page.getByRole('link', { name: 'Apply', exact: true })).first().click();
    await page.getByRole('heading', { level: 1, name: 'Key Fact Statement' }).waitFor();
    await shoot(page, 'in-borrow-again');

    // My loans: the ended loan says what it cost in all (the server's plan), in the row that held its place.
    await page.goto(site.url('/app/orders?lang=1'), { waitUntil: 'load' });
    const card = page.getByRole('article').filter({ hasText: orderNo });
    await card.locator('dd[aria-busy="false"]').filter({ hasText: /^₹[\d,]+(\.\d\d)?$/ }).waitFor();
    await shoot(page, 'in-my-loans');
  });
});

test('Indonesia: a signed Xendit VA-paid callback for the exact amount closes the loan without an operator', LONG, async (tc) => {
  const market = BORROWER_MARKETS.indonesia;
  await site.page(tc, async (page) => {
    const { orderNo } = await applyForLoan(page, site, market);
    await site.page(tc, DESKTOP, async (ops) => {
      await approveInConsole(ops, site, orderNo, 'Dokumen lengkap.');
      await payOutInConsole(ops, orderNo, 'BCA-TRF-000456', 'Indonesia');
    });

    // Repay: the installment, to the loan's virtual account.
    await openLoan(page, orderNo, '');
    await page.locator('section.repay').getByRole('link', { name: /Bayar cicilan ini/ }).click();
    await page.getByRole('radio', { name: /Virtual account/ }).check();
    await page.getByRole('button', { name: /^Bayar Rp/ }).click();
    await page.getByRole('heading', { name: /Transfer Rp\s?[\d.]+ ke virtual account Anda/ }).waitFor();
    const { paymentId } = await openPayment(page);
    // Shown in groups of four, as it is typed into a bank app; the payee the bank app shows, and who it collects for.
    const shown = await page.locator('.copy-row').filter({ hasText: 'Nomor virtual account' }).locator('.copy-row__value').textContent();
    assert.match(shown, /^\d{4}( \d{4}){3}$/);
    const account = shown.replace(/\s/g, '');
    await page.getByText(/^PT Kilat Finansial Indonesia menerima pembayaran untuk PT Kilat Dana Indonesia, pemberi pinjaman Anda\./).waitFor();
    await page.getByText(/^Bayar sebelum \d{1,2} \w{3} \d{4},? \d{2}\.\d{2} WIB$/).waitFor();
    await page.getByText('BCA mobile (m-BCA)').click();
    await page.getByText(`Masukkan nomor virtual account ${shown}, lalu pilih OK.`).waitFor();
    await expectNoAxeViolations(page, 'id virtual account');
    await shoot(page, 'id-virtual-account');

    // Xendit calls back, signed with the callback token of the development settings, for the exact amount.
    const payment = await borrowerGet(page, `/api/v1/borrower/payments/${encodeURIComponent(paymentId)}`);
    assert.equal(payment.amount % 100, 0, 'a virtual account is paid in whole rupiah');
    const callback = (token) =>
      fetch(site.url('/api/v1/webhooks/xendit/va-paid'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-callback-token': token },
        body: JSON.stringify({
          id: `cb-${paymentId}`,
          payment_id: `xnd-${paymentId}`,
          callback_virtual_account_id: `va-${orderNo}`,
          external_id: payment.reference,
          bank_code: 'BCA',
          account_number: account,
          amount: payment.amount / 100,
          currency: 'IDR',
        }),
      });
    // An unsigned callback changes nothing.
    assert.equal((await callback('not-the-token')).status, 401);
    const paid = await callback('dev-xendit-callback-token');
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.equal((await paid.json()).data.outcome, 'confirmed');
    // Xendit retries: the same event again posts nothing.
    assert.equal((await (await callback('dev-xendit-callback-token')).json()).data.outcome, 'replayed');

    // The loan page shows it closed, with nobody in the console.
    await openLoan(page, orderNo, '');
    await page.getByRole('heading', { name: 'Pinjaman selesai' }).waitFor();
    await page.getByText('Sudah lunas. Tidak ada lagi yang terutang.').waitFor();
    await page.locator('.status-badge').filter({ hasText: 'Lunas' }).first().waitFor();
    await shoot(page, 'id-closed');

    // The surat keterangan lunas, in Indonesian, amounts as the app writes them.
    const lunas = await noDuesCertificate(page, 'Surat keterangan lunas (PDF)', 'id-ID');
    assert.match(lunas.disposition, new RegExp(`${orderNo}-surat-keterangan-lunas\\.pdf`));
    for (const expected of [
      'Surat Keterangan Lunas',
      `Nomor pinjaman: ${orderNo}`,
      'menerangkan bahwa pinjaman',
      'Cara ditutup: Lunas',
      'Sisa kewajiban: Rp 0',
    ]) {
      assert.ok(lunas.text.includes(expected), `${expected} in ${lunas.text}`);
    }
    assert.match(lunas.text, /Ditutup pada: \d{1,2} (Jan|Feb|Mar|Apr|Mei|Jun|Jul|Agu|Sep|Okt|Nov|Des) \d{4}/);
    assert.doesNotMatch(lunas.text, /Rp\d/);
  });
});

/** A signed Xendit VA-paid callback for `payment` (as the borrower API answers it) of `rupiah`, paid into `account`. */
function xenditPaid(payment, account, rupiah, token = 'dev-xendit-callback-token') {
  return fetch(site.url('/api/v1/webhooks/xendit/va-paid'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'x-callback-token': token },
    body: JSON.stringify({
      id: `cb-${payment.paymentId}`,
      payment_id: `xnd-${payment.paymentId}`,
      callback_virtual_account_id: `va-${payment.orderNo}`,
      external_id: payment.reference,
      bank_code: 'BCA',
      account_number: account,
      amount: rupiah,
      currency: 'IDR',
    }),
  });
}

test('Indonesia: a Xendit transfer of less than asked is held, finance credits what was received, the plan shows a part payment', LONG, async (tc) => {
  // Its own borrower (phone, NIK, account): the journeys of this file share one server.
  const indonesia = BORROWER_MARKETS.indonesia;
  const market = {
    ...indonesia,
    phone: '0812-1111-4444',
    e164: '+6281211114444',
    values: { ...indonesia.values, idNumber: '3171234567890004', account: '1234567894', accountShown: '1234 5678 94' },
  };
  await site.page(tc, async (page) => {
    const { orderNo } = await applyForLoan(page, site, market);
    await site.page(tc, DESKTOP, async (ops) => {
      await approveInConsole(ops, site, orderNo, 'Dokumen lengkap.');
      await payOutInConsole(ops, orderNo, 'BCA-TRF-000789', 'Indonesia');

      // The borrower pays the installment to the loan's virtual account...
      await openLoan(page, orderNo, '');
      await page.locator('section.repay').getByRole('link', { name: /Bayar cicilan ini/ }).click();
      await page.getByRole('radio', { name: /Virtual account/ }).check();
      await page.getByRole('button', { name: /^Bayar Rp/ }).click();
      await page.getByRole('heading', { name: /Transfer Rp\s?[\d.]+ ke virtual account Anda/ }).waitFor();
      const { paymentId } = await openPayment(page);
      const account = (await page.locator('.copy-row').filter({ hasText: 'Nomor virtual account' }).locator('.copy-row__value').textContent()).replace(/\s/g, '');
      const payment = await borrowerGet(page, `/api/v1/borrower/payments/${encodeURIComponent(paymentId)}`);
      const asked = payment.amount;
      assert.ok(asked > 10_000_000, `an installment above Rp 100.000: ${asked}`);

      // ...but the bank moves Rp 50.000 less than asked: Xendit's signed callback for it is held, nothing credited.
      const received = asked - 5_000_000;
      const held = await xenditPaid(payment, account, received / 100);
      assert.equal(held.status, 200, await held.clone().text());
      assert.equal((await held.json()).data.outcome, 'held');
      const before = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      assert.equal(before.paid.total, 0, 'a held amount credits nothing');

      // The borrower is told the amount differs and that finance is checking it.
      await page.reload({ waitUntil: 'load' });
      await page.getByText('Pembayaran diterima. Jumlahnya berbeda dari yang diminta, jadi kami sedang memeriksanya.').waitFor();
      const heldText = page.locator('.payment-outcome');
      await heldText.filter({ hasText: /^Kami menerima Rp\s?[\d.]+, bukan Rp\s?[\d.]+ yang diminta\. Tim keuangan sedang memeriksanya/ }).waitFor();
      const [receivedShown, askedShown] = (await heldText.textContent()).match(/Rp\s?[\d.]+/g);
      assert.equal(minorOf(receivedShown, 'ID'), received);
      assert.equal(minorOf(askedShown, 'ID'), asked);
      await shoot(page, 'id-held');

      // Finance sees the held payment in its group, the amount asked beside the amount received.
      await openConsole(ops, site, '/');
      await section(ops, 'Repayments');
      await ops.getByRole('navigation', { name: 'Payment status' }).getByRole('link', { name: /^Held \(\d+\)$/ }).click();
      const item = ops.getByRole('listitem').filter({ hasText: payment.reference });
      await item.waitFor();
      await item.getByText('Held', { exact: true }).waitFor();
      assert.equal(minorOf(await paymentFact(item, 'Amount asked').textContent(), 'ID'), asked);
      assert.equal(minorOf(await paymentFact(item, 'Amount received').textContent(), 'ID'), received);
      assert.match(await paymentFact(item, 'Difference').textContent(), /^Rp\s?50\.000 less than asked$/);

      // Credit what was received, after the step that restates the money move.
      await item.getByRole('button', { name: /^Credit Rp\s?[\d.]+ received$/ }).click();
      const restated = (await item.getByRole('group').textContent()).trim();
      assert.match(restated, /^Credit the Rp\s?[\d.]+ received for KP[0-9A-Z]{10} to the loan\? Rp\s?[\d.]+ was asked: a part payment/);
      const [creditShown, askedAgain] = restated.match(/Rp\s?[\d.]+/g);
      assert.equal(minorOf(creditShown, 'ID'), received);
      assert.equal(minorOf(askedAgain, 'ID'), asked);
      assert.ok(restated.includes(payment.reference));
      await shoot(ops, 'id-console-credit');
      await item.getByRole('button', { name: /^Credit Rp\s?[\d.]+$/ }).click();
      await ops.getByRole('status').filter({ hasText: `${payment.reference}: ` }).filter({ hasText: 'credited to the loan' }).waitFor();
      await item.waitFor({ state: 'detached' });

      // The borrower's payment says what was credited; the plan shows the part payment and what is still owed.
      await page.reload({ waitUntil: 'load' });
      await page.getByText('Pembayaran dikonfirmasi. Terima kasih.').waitFor();
      await page.locator('.payment-outcome').filter({ hasText: /yang diminta telah diperhitungkan ke pinjaman Anda\. Sisanya masih terutang/ }).waitFor();
      await shoot(page, 'id-part-credited');
      await page.getByRole('link', { name: 'Lihat rencana cicilan' }).click();
      const summary = page.getByRole('region', { name: 'Pinjaman Anda sejauh ini' });
      const paidShown = summary.locator('.figures__row').filter({ hasText: 'Sudah Anda bayar' }).locator('dd');
      await paidShown.waitFor();
      assert.equal(minorOf(await paidShown.textContent(), 'ID'), received);
      const plan = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      assert.equal(plan.paid.total, received, 'the plan shows the part payment');
      const owed = summary.locator('.figures__row').filter({ hasText: 'Sisa tagihan' }).locator('dd');
      assert.equal(minorOf(await owed.textContent(), 'ID'), plan.outstanding.total);
      assert.equal(plan.status, 'disbursed', 'a part payment leaves the loan open');
      await shoot(page, 'id-plan-part-paid');
      // The loan's own page tells it too, beside the choices to pay the rest.
      await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}`), { waitUntil: 'load' });
      const told = page.getByRole('region', { name: 'Tentang pembayaran Anda' });
      await told.locator('.payment-outcome').filter({ hasText: /telah diperhitungkan ke pinjaman Anda/ }).waitFor();
      assert.ok((await told.textContent()).includes(payment.reference));
      await shoot(page, 'id-loan-payments');
    });
  });
});
