// The loan journeys that move the server's business date (development's `PUT /api/v1/dev/business-date`), one after
// another on a server of their own (tests/loan-life.test.mjs has the others):
// 1. Cooling-off: two days after payout the borrower leaves the loan, pays by UTR, finance confirms; the order is
//    exited and the ledger (console and borrower) holds only the principal and the days' interest.
// 2. India, overdue: three days after the first due date, the installment and the late charge apart, the days late and
//    tomorrow's charge; home pays it with a UTR, corrected before finance confirms.
// 3. Indonesia, overdue: the installment and its late charge apart, in Indonesian.
// 4. India: a payoff priced on the payout day and paid ten days later is held for finance, and the payment says why.
// Screenshots of the key steps go to e2e/out/life-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { DESKTOP, approveInConsole, confirmInConsole, openConsole, payOutInConsole } from '../lib/console.mjs';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { borrowerGet, indian, minorOf, openLoanPage, openPayment, shoot, submitUtr } from '../lib/loan-life.mjs';

const site = useSite();
const LONG = { ...JOURNEY, timeout: 360_000 };
const openLoan = (page, orderNo, lang) => openLoanPage(site, page, orderNo, lang);

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
      await setBusinessDate(plusDays(plan.payoutDate, days));

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
    await setBusinessDate(null);
  }
});

test('India: a payoff priced on the payout day and paid ten days later is held, and the payment says why', LONG, async (tc) => {
  const market = indian(5, 'Flexi EMI');
  try {
    await site.page(tc, async (page) => {
      const { orderNo } = await applyForLoan(page, site, market);
      await site.page(tc, DESKTOP, async (ops) => {
        await approveInConsole(ops, site, orderNo);
        await payOutInConsole(ops, orderNo, 'HDFCN52026112500505');
      });
      const plan = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/plan`);
      assert.ok(plusDays(plan.payoutDate, 10) < plan.installments[0].dueDate, 'ten days in, nothing is due yet');

      // On the payout day: repay everything, by UPI. The payment page keeps its price and the day it was priced.
      await openLoan(page, orderNo);
      await page.locator('section.repay').getByRole('link', { name: /Repay everything today/ }).click();
      await page.getByRole('radio', { name: /^UPI/ }).check();
      const pay = page.getByRole('button', { name: /^Pay ₹/ });
      const asked = minorOf(await pay.textContent());
      await pay.click();
      const { paymentId } = await openPayment(page);

      // Ten days later the borrower pays that amount and sends the UTR: it no longer pays the loan off.
      await setBusinessDate(plusDays(plan.payoutDate, 10));
      await page.reload({ waitUntil: 'load' });
      await submitUtr(page, '812345678905');
      const ops = await consoleSession(site);
      const decided = await ops.post(`/payments/${encodeURIComponent(paymentId)}/confirm`, { amount: asked });
      assert.equal(decided.payment.status, 'held');
      assert.notEqual(decided.orderStatus, 'repaid');

      await page.reload({ waitUntil: 'load' });
      await page.getByRole('status').filter({ hasText: 'Payment received. We are checking it.' }).waitFor();
      const priced = humanDate(plan.payoutDate);
      await page
        .getByText(new RegExp(`^We received ₹[\\d,.]+, the amount asked on ${priced}\\. That amount was good for two days, and your money came later`))
        .waitFor();
      assert.equal(await page.getByText(/amount differs/).count(), 0);
      await expectNoAxeViolations(page, 'a payment held because its price no longer held');
      await shoot(page, 'late-price-held');
    });
  } finally {
    await setBusinessDate(null);
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

// Moving the business date wakes the server's job timer (its tick is a minute): the new date's overdue job runs at
// once, so the journeys wait seconds for it, and fail if the date's move no longer starts it.
const JOB_AFTER_MOVE_MS = 20_000;

/** Waits until the overdue job, started by the date's move, has marked the loan overdue. */
async function awaitOverdue(page, orderNo) {
  const deadline = Date.now() + JOB_AFTER_MOVE_MS;
  for (;;) {
    const order = await borrowerGet(page, `/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`);
    if (order.status === 'overdue') return;
    assert.ok(Date.now() < deadline, `the overdue job marks the loan overdue once the date moves; the server printed:\n${site.server.output().slice(-4000)}`);
    await page.waitForTimeout(250);
  }
}

/** Reloads the loan page until the overdue job, started by the date's move, has posted the late charge. */
async function awaitLateCharge(page, orderNo, lang) {
  const deadline = Date.now() + JOB_AFTER_MOVE_MS;
  for (;;) {
    await openLoan(page, orderNo, lang);
    const arrears = page.locator('section.arrears');
    await arrears.waitFor();
    if ((await arrears.locator('.figures__row').count()) >= 3) return arrears;
    assert.ok(Date.now() < deadline, `the overdue job posts the late charge once the date moves; the server printed:\n${site.server.output().slice(-4000)}`);
    await page.waitForTimeout(250);
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
