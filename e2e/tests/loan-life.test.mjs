// The loan's whole life, as issue 8's three journeys word it: the borrower on a phone (360×740), the operators in the
// console at a desk (1280×800), each step through the real pages; only the provider's callback is an API call.
// 1. India: apply; a reviewer approves; finance pays out; the borrower sees the plan, extends once (the fee paid with a
//    UTR, finance confirms) and sees the new due date, pays what is due with a UTR; finance confirms; the loan closes;
//    the borrower rates it and borrows again.
// 2. Indonesia: apply, approved, paid out; the borrower repays to the virtual account; a signed Xendit VA-paid callback
//    for the exact amount closes the loan without an operator.
// 3. Cooling-off: two days after payout the borrower leaves the loan, pays by UTR, finance confirms; the order is
//    exited and the ledger (console and borrower) holds only the principal and the days' interest.
// 4. Indonesia, money after payout (issue 16): a signed Xendit callback for less than asked is held; the borrower is
//    told finance is checking it; finance sees received against asked in the console and credits it; the borrower's
//    payment says what was credited and the plan shows the part payment.
// Screenshots of the key steps go to e2e/out/life-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { DESKTOP, approveInConsole, confirmInConsole, openConsole, payOutInConsole, paymentFact, section } from '../lib/console.mjs';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { pdfText } from '../lib/pdf.mjs';

const site = useSite();
const LONG = { ...JOURNEY, timeout: 360_000 };

async function shoot(page, name) {
  await page.screenshot({ path: path.join(outDir, `life-${name}.png`), fullPage: true });
}

/** Minor units of an amount as the page shows it: `₹10,020.50` (India) or `Rp 1.050.000,50` (Indonesia). */
function minorOf(text, market = 'IN') {
  const plain = text.replace(/[^\d.,]/g, '');
  const [whole, fraction = ''] = market === 'IN' ? plain.replace(/,/g, '').split('.') : plain.replace(/\./g, '').split(',');
  assert.match(whole, /^\d+$/, `an amount: ${text}`);
  return Number(BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0')));
}

/** A borrower API read from the borrower's own page (its session cookie, same origin). */
async function borrowerGet(page, apiPath) {
  return page.evaluate(async (p) => {
    const response = await fetch(p, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    const body = await response.json();
    if (body.code !== 0) throw new Error(`${p}: ${JSON.stringify(body)}`);
    return body.data;
  }, apiPath);
}

/** The payment the app is on (`/app/payments/{id}`): its id, and its reference as the page shows it (UTR methods). */
async function openPayment(page) {
  await page.waitForURL(/\/app\/payments\/[^/?]+/);
  const paymentId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  return { paymentId };
}

/** Submits `utr` on the payment page the app is on; answers the payment's reference. */
async function submitUtr(page, utr) {
  await openPayment(page);
  const reference = await page.locator('.copy-row').filter({ hasText: 'Reference' }).locator('.copy-row__value').textContent();
  assert.match(reference, /^KP[0-9A-Z]{10}$/);
  await page.getByLabel('UTR', { exact: true }).fill(utr);
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await page.getByRole('status').filter({ hasText: 'Payment received, verifying' }).first().waitFor();
  return reference;
}

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

/** The borrower's loan page, loaded afresh. */
async function openLoan(page, orderNo, lang = '?lang=1') {
  await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}${lang}`), { waitUntil: 'load' });
  await page.getByText(new RegExp(`${orderNo}`)).first().waitFor();
}

/** A new Indian borrower: each journey its own phone, PAN and account, so all three share one server. */
function indian(n, product) {
  const india = BORROWER_MARKETS.india;
  return {
    ...india,
    product,
    phone: `91234 5679${n}`,
    e164: `+91912345679${n}`,
    values: { ...india.values, idNumber: `ABCPE123${n}F`, account: `50100123456${n}`, accountShown: `5010 0123 456${n}` },
  };
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

      // The due date moved; the amount stayed.
      await openLoan(page, orderNo);
      await page.locator('section.repay').getByText(new RegExp(`^Your next installment: ₹[\\d,.]+, due ${newDue}\\.$`)).waitFor();
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
    await page.getByRole('button', { name: 'Apply', exact: true }).or(page.getByRole('link', { name: 'Apply', exact: true })).first().click();
    await page.getByRole('heading', { level: 1, name: 'Key Fact Statement' }).waitFor();
    await shoot(page, 'in-borrow-again');
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
      await page.getByText('Pembayaran diterima, sedang diverifikasi: jumlahnya berbeda, jadi tim keuangan memeriksanya.').waitFor();
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

/** `rate` ("0.1%", "24%") of `principal` for `days` (a daily or yearly rate), rounded half up, as the KFS states it. */
function interestFor(principal, rate, per, days) {
  const [whole, fraction = ''] = rate.replace('%', '').split('.');
  const scale = 10n ** BigInt(fraction.length) * 100n; // percent with its decimals
  const numerator = BigInt(principal) * BigInt(whole + fraction) * BigInt(days);
  const denominator = scale * (per === 'year' ? 365n : 1n);
  return Number((numerator * 2n + denominator) / (2n * denominator));
}

test('Cooling-off: two days after payout the borrower leaves and pays only the principal and the days’ interest', LONG, async (tc) => {
  const market = indian(3, 'Flexi EMI');
  const setDate = async (date) => {
    const response = await fetch(site.url('/api/v1/dev/business-date'), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ date }),
    });
    assert.equal(response.status, 200);
    return (await response.json()).data;
  };
  try {
    await site.page(tc, async (page) => {
      const { orderNo } = await applyForLoan(page, site, market);
      await site.page(tc, DESKTOP, async (ops) => {
        await approveInConsole(ops, site, orderNo);
        await payOutInConsole(ops, orderNo, 'HDFCN52026112500303');
      });

      // Two days pass, within the product's cooling-off days (the operators' 12-hour sessions end meanwhile).
      const { kfs } = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`);
      const plan = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      const days = 2;
      assert.ok(kfs.coolingOffDays >= days);
      const later = new Date(`${plan.payoutDate}T00:00:00Z`);
      later.setUTCDate(later.getUTCDate() + days);
      await setDate(later.toISOString().slice(0, 10));

      // What the KFS says it costs: the principal plus the days' interest; fees taken at payout come back.
      const principal = kfs.sanctionedAmount;
      const interest = interestFor(principal, kfs.interest.rate, kfs.interest.per, days);
      const refunded = kfs.feesDeductedAtDisbursal ? kfs.totalFees : 0;
      const exit = { principal, interest, refunded, amount: principal + interest - refunded };

      await openLoan(page, orderNo);
      // The exit in its parts, and the window's last day: the payout day and the KFS's cooling-off days.
      const until = new Date(`${plan.payoutDate}T00:00:00Z`);
      until.setUTCDate(until.getUTCDate() + kfs.coolingOffDays);
      const untilText = new Intl.DateTimeFormat('en-IN', { dateStyle: 'medium', timeZone: 'UTC' }).format(until);
      await page.getByText(`You can leave this loan until ${untilText}, with no penalty.`).waitFor();
      const offer = page.locator('section.cooling-off');
      const part = async (label) => minorOf(await offer.locator('.figures__row').filter({ hasText: label }).locator('dd').textContent());
      assert.equal(await part('Loan amount (principal)'), exit.principal);
      assert.equal(await part(`Interest for ${days} days used`), exit.interest);
      assert.equal(await part('Fees taken at payout, given back'), exit.refunded);
      assert.equal(await part('To pay to leave the loan'), exit.amount);
      await expectNoAxeViolations(page, 'cooling-off loan page');
      const choice = page.locator('section.repay').getByRole('link', { name: /Leave the loan \(cooling-off\)/ });
      assert.equal(minorOf(await choice.locator('.choice__amount').textContent()), exit.amount, 'the loan page offers the exit at the KFS’s price');
      await shoot(page, 'cooling-loan');
      await choice.click();
      await page.getByRole('radio', { name: /^UPI/ }).check();
      const pay = page.getByRole('button', { name: /^Pay ₹/ });
      assert.equal(minorOf(await pay.textContent()), exit.amount);
      await shoot(page, 'cooling-pay');
      await pay.click();
      const reference = await submitUtr(page, '812345678904');
      await site.page(tc, DESKTOP, async (ops) => {
        await openConsole(ops, site, '/repayments');
        const credited = await confirmInConsole(ops, reference, { utr: '812345678904' });
        assert.equal(minorOf(credited), exit.amount);

        // The console's order view: exited; the plan keeps no fee or charge; the exit paid principal and interest only.
        await openConsole(ops, site, `/orders/${encodeURIComponent(orderNo)}`);
        await ops.getByRole('heading', { level: 1, name: new RegExp(`${orderNo}.*Exited in cooling-off`) }).waitFor();
        const rows = ops.getByRole('region', { name: 'Installment plan' }).getByRole('table').getByRole('row');
        const planRows = (await rows.allTextContents()).slice(1);
        assert.ok(planRows.length > 0);
        const cells = async (row) => (await row.getByRole('cell').allTextContents()).map((c) => c.trim());
        let planPrincipal = 0;
        let planInterest = 0;
        for (let i = 1; i <= planRows.length; i += 1) {
          const [, , p, int, fees, late] = await cells(rows.nth(i));
          planPrincipal += minorOf(p);
          planInterest += minorOf(int);
          assert.equal(minorOf(fees), 0, 'no fee is kept');
          assert.equal(minorOf(late), 0, 'no late charge');
        }
        assert.equal(planPrincipal, exit.principal);
        assert.equal(planInterest, exit.interest);
        const ledger = ops.getByRole('region', { name: 'Ledger' }).getByRole('table');
        const entry = ledger.getByRole('row').filter({ hasText: 'Cooling-off exit' });
        const headers = (await ledger.getByRole('columnheader').allTextContents()).map((h) => h.trim());
        const values = await cells(entry);
        const column = (name) => {
          const at = headers.indexOf(name);
          assert.ok(at >= 0, `the ledger has a column ${name}: ${headers.join(' | ')}`);
          return minorOf(values[at]);
        };
        assert.equal(column('Cash'), exit.amount);
        assert.equal(column('Principal paid'), exit.principal);
        assert.equal(column('Interest paid'), exit.interest);
        assert.equal(column('Fees paid'), 0);
        assert.equal(column('Late charges paid'), 0);
        assert.equal(column('Fees refunded'), exit.refunded);
        await shoot(ops, 'cooling-console-order');
      });

      // The borrower's loan: left in cooling-off; what was paid, split, matches the KFS's figures.
      await openLoan(page, orderNo);
      await page.getByText('You left this loan in its cooling-off period. Nothing is outstanding.').waitFor();
      const paid = page.getByRole('region', { name: 'What you paid' });
      const figure = async (label) => minorOf(await paid.locator('.figures__row').filter({ hasText: label }).locator('dd').textContent());
      assert.equal(await figure('Principal'), exit.principal);
      assert.equal(await figure('Interest'), exit.interest);
      assert.equal(await figure('Fees and charges'), 0);
      assert.equal(await figure('Fees taken at payout, given back'), exit.refunded);
      assert.equal(await figure('Total you paid'), exit.amount);
      await shoot(page, 'cooling-closed');
    });
  } finally {
    await setDate(null);
  }
});

/** `date` (`YYYY-MM-DD`) moved by `days`, as `YYYY-MM-DD`. */
function plusDays(date, days) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** A calendar day as the app writes it: "25 Dec 2026" (India), "25 Des 2026" (Indonesia). */
function humanDate(date, locale = 'en-IN') {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
}

/** Moves the server's business date (India's; `null` back to today). */
async function setBusinessDate(date) {
  const response = await fetch(site.url('/api/v1/dev/business-date'), {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ date }),
  });
  assert.equal(response.status, 200);
}

/** Waits until the overdue job (the server's one-minute timer) has marked the loan overdue. */
async function awaitOverdue(page, orderNo) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const order = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`);
    if (order.status === 'overdue') return;
    assert.ok(Date.now() < deadline, `the overdue job marks the loan overdue within its timer; the server printed:\n${site.server.output().slice(-4000)}`);
    await page.waitForTimeout(5_000);
  }
}

/** Reloads the loan page until the overdue job (the server's one-minute timer) has posted the late charge. */
async function awaitLateCharge(page, orderNo, lang) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    await openLoan(page, orderNo, lang);
    const arrears = page.locator('section.arrears');
    await arrears.waitFor();
    if ((await arrears.locator('.figures__row').count()) >= 3) return arrears;
    assert.ok(Date.now() < deadline, `the overdue job posts the late charge within its timer; the server printed:\n${site.server.output().slice(-4000)}`);
    await page.waitForTimeout(5_000);
  }
}

test('India, overdue: the parts, the days late and tomorrow; home pays it; the UTR sent is shown and corrected before finance confirms', LONG, async (tc) => {
  const market = indian(4, 'Flexi 6 Weeks');
  try {
    await site.page(tc, async (page) => {
      const { orderNo } = await applyForLoan(page, site, market);
      await site.page(tc, DESKTOP, async (ops) => {
        await approveInConsole(ops, site, orderNo);
        await payOutInConsole(ops, orderNo, 'HDFCN52026112500404');
      });
      const plan = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      const first = plan.installments[0];
      const { kfs } = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`);
      assert.equal(kfs.lateCharge.perDay, 0, 'Flexi 6 Weeks charges once');

      // Three days after the first due date, the overdue job has run: the installment and the ₹400 charge, apart.
      await setBusinessDate(plusDays(first.dueDate, 3));
      const arrears = await awaitLateCharge(page, orderNo, '?lang=1');
      await arrears.getByRole('heading', { name: 'Installment 1 is 3 days late' }).waitFor();
      await arrears.getByText(`It was due on ${humanDate(first.dueDate)}.`).waitFor();
      const row = async (label) => minorOf(await arrears.locator('.figures__row').filter({ hasText: label }).locator('dd').textContent());
      assert.equal(await row('Installment amount'), first.due.total);
      assert.equal(await row('Late charge'), kfs.lateCharge.flat);
      const total = first.due.total + kfs.lateCharge.flat;
      assert.equal(await row('To pay now'), total);
      await arrears.getByText('The late charge does not grow: nothing more is added tomorrow.').waitFor();
      const payNow = arrears.getByRole('link', { name: /^Pay ₹[\d,.]+ now$/ });
      assert.equal(minorOf(await payNow.textContent()), total);
      // Each repay choice reads as its name over its hint (not run together on one line), the amount beside.
      for (const choice of await page.locator('.choices .choice').all()) {
        const name = await choice.locator('.choice__name').boundingBox();
        const hint = await choice.locator('.choice__hint').boundingBox();
        assert.ok(hint.y >= name.y + name.height - 1, `the hint sits under the name: ${await choice.textContent()}`);
      }
      await expectNoAxeViolations(page, 'overdue loan page');
      await shoot(page, 'in-overdue-loan');

      // Home: the loan and its money first, with a Pay button.
      await page.goto(site.url('/app/home?lang=1'), { waitUntil: 'load' });
      const due = page.getByText(/^₹[\d,.]+ is due now$/);
      await due.waitFor();
      assert.equal(minorOf(await due.textContent()), total);
      const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
      assert.ok(headings.indexOf('Your current loan') < headings.indexOf('Your details'), headings.join(' | '));
      await expectNoAxeViolations(page, 'home, overdue');
      await shoot(page, 'in-overdue-home');

      // Pay from home by UPI; the loan shows the UTR sent, the amount and when finance checks it; a typo is corrected.
      await page.getByRole('link', { name: /^Pay ₹/ }).click();
      await page.getByRole('radio', { name: /^UPI/ }).check();
      await page.getByRole('button', { name: /^Pay ₹/ }).click();
      const reference = await submitUtr(page, '912345678904');
      await openLoan(page, orderNo);
      const verifying = page.locator('section.verifying');
      await verifying.getByText(`We got UTR 9123 4567 8904 for ₹`, { exact: false }).waitFor();
      assert.equal(minorOf((await verifying.locator('.verifying__got').textContent()).split(' for ')[1]), total);
      await verifying.getByText(/^Finance checks it by \d{1,2} \w{3} \d{4}\. Your loan updates when it is confirmed\.$/).waitFor();
      await verifying.getByRole('button', { name: 'Wrong UTR? Change it' }).click();
      await verifying.getByLabel('The correct UTR').fill('912345678905');
      await verifying.getByRole('button', { name: 'Save the correct UTR' }).click();
      await verifying.getByText('UTR changed to 9123 4567 8905.').waitFor();
      await verifying.getByText(`We got UTR 9123 4567 8905 for ₹`, { exact: false }).waitFor();
      await expectNoAxeViolations(page, 'verifying UTR');
      await shoot(page, 'in-overdue-verifying');

      // Finance sees the corrected UTR and confirms; the loan is up to date, and a late correction is refused.
      await site.page(tc, DESKTOP, async (ops) => {
        await openConsole(ops, site, '/repayments');
        await confirmInConsole(ops, reference, { utr: '912345678905' });
      });
      await openLoan(page, orderNo);
      assert.equal(await page.locator('section.arrears').count(), 0);
      assert.equal(await page.locator('section.verifying').count(), 0);
      await shoot(page, 'in-overdue-paid');
    });
  } finally {
    await setBusinessDate(null);
  }
});

test('Indonesia, overdue: the installment and its late charge apart, in Indonesian', LONG, async (tc) => {
  const market = { ...BORROWER_MARKETS.indonesia, phone: '0812-1111-2299', e164: '+6281211112299', values: { ...BORROWER_MARKETS.indonesia.values, idNumber: '3171234567890099', account: '1234567899', accountShown: '1234 5678 99' } };
  try {
    await site.page(tc, async (page) => {
      const { orderNo } = await applyForLoan(page, site, market);
      await site.page(tc, DESKTOP, async (ops) => {
        await approveInConsole(ops, site, orderNo, 'Dokumen lengkap.');
        await payOutInConsole(ops, orderNo, 'BCA-TRF-000499', 'Indonesia');
      });
      const plan = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      const first = plan.installments[0];
      // Just paid out: the cooling-off period's last day, in Indonesian.
      const { kfs } = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`);
      await openLoan(page, orderNo, '');
      await page.getByText(`Anda dapat membatalkan pinjaman ini sampai ${humanDate(plusDays(plan.payoutDate, kfs.coolingOffDays), 'id-ID')}, tanpa denda.`).waitFor();
      // Two business days in turn, as a server running every day sees them: the first run marks the loan overdue,
      // the next posts the day's late charge (Kilat 30 has a daily charge and no flat one).
      await setBusinessDate(plusDays(first.dueDate, 2));
      await awaitOverdue(page, orderNo);
      await setBusinessDate(plusDays(first.dueDate, 3));
      const arrears = await awaitLateCharge(page, orderNo, '');
      await arrears.getByRole('heading', { name: /^Cicilan ke-1 terlambat \d hari$/ }).waitFor();
      await arrears.getByText(`Jatuh temponya ${humanDate(first.dueDate, 'id-ID')}.`).waitFor();
      const row = async (label) => minorOf(await arrears.locator('.figures__row').filter({ hasText: label }).locator('dd').textContent(), 'ID');
      assert.equal(await row('Jumlah cicilan'), first.due.total);
      const late = await row('Denda keterlambatan');
      assert.ok(late > 0);
      assert.equal(await row('Dibayar sekarang'), first.due.total + late);
      await arrears.getByText(/^(Denda tidak bertambah|Jika tidak dibayar hari ini, besok denda bertambah|Besok tidak ada tambahan)/).waitFor();
      await arrears.getByRole('link', { name: /^Bayar Rp\s?[\d.]+ sekarang$/ }).waitFor();
      await expectNoAxeViolations(page, 'overdue loan page, Indonesia');
      await shoot(page, 'id-overdue-loan');
    });
  } finally {
    await setBusinessDate(null);
  }
});
