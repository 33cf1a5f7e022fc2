// One precision per loan (issue 19, item 11): when any amount of a loan's statement has paise, every amount of the loan
// shows two decimals, on its page and on every screen about it; a loan in whole rupees (or rupiah) shows none.
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
import { HOME_ELIGIBLE } from './home/fixtures.test-data';
import { ORDER_EMI, ORDER_ID, ORDER_SUMMARY, ORDER_WHOLE } from './orders/fixtures.test-data';

const NO = 'KL-261123-7F3K9Q';
const ORDER = `/api/v1/borrower/orders/${NO}`;
const text = (element: Element) => element.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const buckets = (principal: number, interest: number) => ({ principal, interest, fees: 0, lateCharges: 0, total: principal + interest });
const ZERO = buckets(0, 0);

/** The Flexi EMI loan two days after payout: still in its cooling-off period. */
const REPAYMENT_EMI = {
  orderNo: NO,
  status: 'disbursed',
  currency: 'INR',
  today: '2026-11-29',
  outstanding: 1040261,
  verifying: false,
  choices: [
    { choice: 'due', amount: 346800, installment: 1, dueDate: '2026-12-27', amountOnDueDate: 346800 },
    { choice: 'payoff', amount: 1001333, installment: null, dueDate: null, amountOnDueDate: null },
    { choice: 'cooling_off', amount: 960015, installment: null, dueDate: null, amountOnDueDate: null },
  ],
  arrears: null,
  coolingOff: { daysUsed: 2, principal: 1000000, interest: 1315, feesRefunded: 41300, repaid: 0, amount: 960015, openUntil: '2026-11-30' },
  verifyingPayment: null,
};
/** The whole-rupee loan on its first due date. */
const REPAYMENT_WHOLE = {
  ...REPAYMENT_EMI,
  today: '2026-12-06',
  outstanding: 625200,
  choices: [
    { choice: 'due', amount: 208400, installment: 1, dueDate: '2026-12-06' },
    { choice: 'payoff', amount: 612000, installment: null, dueDate: null },
  ],
  coolingOff: null,
};
const PLAN_EMI = {
  orderNo: NO,
  status: 'disbursed',
  currency: 'INR',
  payoutDate: '2026-11-27',
  today: '2026-11-29',
  principal: 1000000,
  paidOut: 958700,
  feesKept: 41300,
  feesRefunded: 0,
  paidInAll: 41300,
  due: buckets(1000000, 40261),
  paid: ZERO,
  outstanding: buckets(1000000, 40261),
  extensionsGranted: 0,
  verifying: false,
  closedBy: null,
  installments: ORDER_EMI.kfs.installments.map((i) => ({
    seq: i.number,
    dueDate: i.dueDate,
    plannedDueDate: i.dueDate,
    due: buckets(i.principal, i.interest),
    paid: ZERO,
    outstanding: buckets(i.principal, i.interest),
    status: 'upcoming',
    verifying: false,
  })),
};
const BANK_TRANSFER = {
  method: 'bank_transfer',
  payeeName: 'Kilat Finance',
  collectsFor: null,
  upiId: null,
  upiUri: null,
  bankName: 'Axis Bank',
  accountNumber: '912020012345678',
  ifsc: 'UTIB0000123',
  bankCode: null,
  virtualAccount: null,
  channels: [],
  expiresAt: null,
};
const PAYMENT_EMI = {
  paymentId: 'pay-1',
  orderNo: NO,
  choice: 'due',
  method: 'bank_transfer',
  amount: 346800,
  currency: 'INR',
  pricedOn: '2026-11-29',
  status: 'pending',
  reference: 'KPAB12CD34EF',
  utr: null,
  reason: null,
  receivedAmount: null,
  refundAmount: null,
  refundReference: null,
  instructions: BANK_TRANSFER,
  createdAt: Date.UTC(2026, 10, 29, 6),
};

beforeEach(() => window.sessionStorage.clear());

describe('a loan whose amounts have paise', () => {
  it('shows two decimals for every amount of its page, as its schedule does', async () => {
    fakeApi({ [`GET ${ORDER}`]: () => ok(ORDER_EMI), [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT_EMI) }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('Your next installment: ₹3,468.00, due 27 Dec 2026.')).toBeInTheDocument();
    expect(screen.getByText('Outstanding in total: ₹10,402.61.')).toBeInTheDocument();
    const repay = screen.getByRole('heading', { name: 'Repay' }).closest('section')!;
    expect(Array.from(repay.querySelectorAll('.choice__amount'), text)).toEqual(['₹3,468.00', '₹10,013.33', '₹9,600.15']);
    const coolingOff = screen.getByRole('heading', { name: 'Changed your mind? You can leave this loan' }).closest('section')!;
    expect(within(coolingOff).getAllByRole('definition').map(text)).toEqual(['₹10,000.00', '+ ₹13.15', '− ₹413.00', '₹9,600.15']);
    expect(document.querySelector('.order__amount')).toHaveTextContent(/^₹10,000\.00$/);
    expect(screen.getByText('Amount sanctioned').nextSibling).toHaveTextContent(/^₹10,000\.00$/);
    expect(screen.getByText('Paid out to you').nextSibling).toHaveTextContent(/^₹9,587\.00$/);
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((row) => text(within(row).getAllByRole('cell')[2]!))).toEqual([
      '₹3,468.00principal ₹3,268.00, interest ₹200.00',
      '₹3,468.00principal ₹3,333.36, interest ₹134.64',
      '₹3,466.61principal ₹3,398.64, interest ₹67.97',
    ]);
  });

  it('keeps that precision on its plan, an installment, paying, the payment and the extension', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok(ORDER_EMI),
      [`GET ${ORDER}/plan`]: () => ok(PLAN_EMI),
      [`GET ${ORDER}/plan/1`]: () => ok(PLAN_EMI.installments[0]),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT_EMI),
      'GET /api/v1/borrower/payment-types': () => ok([BANK_TRANSFER]),
      'GET /api/v1/borrower/payments/pay-1': () => ok(PAYMENT_EMI),
      [`GET ${ORDER}/extension`]: () =>
        ok({
          orderNo: NO,
          currency: 'INR',
          installment: 1,
          days: 7,
          fee: 23600,
          currentDueDate: '2026-12-27',
          newDueDate: '2027-01-03',
          extensionsGranted: 0,
          revisedSchedule: [{ seq: 1, dueDate: '2027-01-03', principal: 326800, interest: 20000, fees: 0, amount: 346800, paid: 0, lateCharges: 0, toPay: 346800 }],
        }),
    }).signIn();

    let view = renderBorrower(`/app/orders/${NO}/plan?lang=1`);
    const items = within(await screen.findByRole('list', { name: 'Installments' })).getAllByRole('listitem');
    expect(text(items[0]!)).toBe('Installment 1UpcomingDue 27 Dec 2026₹3,468.00Outstanding₹3,468.00');
    expect(screen.getByText('You have repaid').nextSibling).toHaveTextContent(/^₹0\.00$/);
    view.unmount();

    view = renderBorrower(`/app/orders/${NO}/plan/1?lang=1`);
    const card = await screen.findByRole('region', { name: 'Installment 1' });
    expect(within(card).getByText('Still to pay').nextSibling).toHaveTextContent(/^₹3,468\.00$/);
    expect(within(card).getAllByRole('definition').map(text)).toEqual(['₹3,268.00', '₹200.00', '₹0.00', '₹0.00', '27 Dec 2026']);
    view.unmount();

    view = renderBorrower(`/app/orders/${NO}/pay/due?lang=1`);
    expect(await screen.findByRole('button', { name: 'Pay ₹3,468.00' })).toBeInTheDocument();
    view.unmount();

    view = renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByRole('heading', { name: 'Transfer ₹3,468.00 to the collection account' })).toBeInTheDocument();
    view.unmount();

    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    expect(await screen.findByRole('button', { name: 'Accept and pay the fee, ₹236.00' })).toBeInTheDocument();
    expect(text(within(screen.getByRole('table')).getAllByRole('row')[1]!)).toBe('13 Jan 2027₹3,468.00principal ₹3,268.00, interest ₹200.00, fees ₹0.00');
  });

  it('never labels what the next installment asks today with its due date when paying early asks less', async () => {
    // One installment of Rp 1.028.000 on 27 Dec; paid on payout day, the days not used cost nothing (this order's
    // amounts have sen, so every amount of it shows them).
    const early = {
      ...REPAYMENT_EMI,
      currency: 'IDR',
      choices: [
        { choice: 'due', amount: 100000000, installment: 1, dueDate: '2026-12-27', amountOnDueDate: 102800000 },
        { choice: 'payoff', amount: 100000000, installment: null, dueDate: null, amountOnDueDate: null },
      ],
    };
    fakeApi({
      'GET /api/v1/borrower/home': () =>
        ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['open_order'], openOrder: { orderNo: NO, status: 'disbursed', amount: 100000000, createdAt: ORDER_SUMMARY.createdAt } }),
      [`GET ${ORDER}`]: () => ok({ ...ORDER_EMI, kfs: { ...ORDER_EMI.kfs, currency: 'IDR', market: 'ID' } }),
      [`GET ${ORDER}/repayment`]: () => ok(early),
    }).signIn();
    const view = renderBorrower('/app/home');
    expect(await screen.findByText('Cicilan berikutnya: Rp 1.028.000,00, jatuh tempo 27 Des 2026 (Rp 1.000.000,00 jika dibayar hari ini)')).toBeInTheDocument();
    view.unmount();
    renderBorrower(`/app/orders/${NO}`);
    expect(
      await screen.findByText('Cicilan berikutnya: Rp 1.028.000,00, jatuh tempo 27 Des 2026. Jika dibayar hari ini: Rp 1.000.000,00, bunga hanya untuk hari yang terpakai.'),
    ).toBeInTheDocument();
  });

  it('home and the list of loans show it at the same precision', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () =>
        ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['open_order'], openOrder: { orderNo: NO, status: 'disbursed', amount: 1000000, createdAt: ORDER_SUMMARY.createdAt } }),
      'GET /api/v1/borrower/orders': () => ok([ORDER_EMI]),
      [`GET ${ORDER}`]: () => ok(ORDER_EMI),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT_EMI),
    }).signIn();
    const view = renderBorrower('/app/home?lang=1');
    expect(await screen.findByText('Next installment: ₹3,468.00, due 27 Dec 2026')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Pay ₹3,468.00' })).toHaveAttribute('href', `/app/orders/${NO}/pay/due`);
    view.unmount();

    renderBorrower('/app/orders?lang=1');
    const card = (await screen.findByRole('link', { name: /Flexi EMI/ })).closest('article')!;
    expect(card.querySelector('.order-card__amount')).toHaveTextContent(/^₹10,000\.00$/);
    expect(within(card).getByText('Total you repay').nextSibling).toHaveTextContent(/^₹10,402\.61$/);
  });
});

describe('a loan in whole rupees', () => {
  it('shows no decimals on its page, on home or in the list', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () =>
        ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['open_order'], openOrder: { orderNo: NO, status: 'disbursed', amount: 600000, createdAt: ORDER_SUMMARY.createdAt } }),
      'GET /api/v1/borrower/orders': () => ok([ORDER_WHOLE]),
      [`GET ${ORDER}`]: () => ok(ORDER_WHOLE),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT_WHOLE),
    }).signIn();
    let view = renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('₹2,084 is due now (due 6 Dec 2026).')).toBeInTheDocument();
    const repay = screen.getByRole('heading', { name: 'Repay' }).closest('section')!;
    expect(Array.from(repay.querySelectorAll('.choice__amount'), text)).toEqual(['₹2,084', '₹6,120']);
    expect(text(document.querySelector('main')!)).not.toMatch(/₹[\d,]+\.\d\d/);
    view.unmount();

    view = renderBorrower('/app/home?lang=1');
    expect(await screen.findByText('₹2,084 is due now')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Pay ₹2,084' })).toBeInTheDocument();
    view.unmount();

    renderBorrower('/app/orders?lang=1');
    const card = (await screen.findByRole('link', { name: /Flexi 6 Weeks/ })).closest('article')!;
    expect(card.querySelector('.order-card__amount')).toHaveTextContent(/^₹6,000$/);
    expect(within(card).getByText('Total you repay').nextSibling).toHaveTextContent(/^₹6,252$/);
  });
});

describe('an Indonesian loan', () => {
  it('is in whole rupiah: no decimals', async () => {
    const ID_ORDER = `/api/v1/borrower/orders/${ORDER_ID.orderNo}`;
    fakeApi({
      [`GET ${ID_ORDER}`]: () => ok(ORDER_ID),
      [`GET ${ID_ORDER}/repayment`]: () =>
        ok({
          ...REPAYMENT_EMI,
          currency: 'IDR',
          today: '2026-12-22',
          outstanding: 106000000,
          choices: [
            { choice: 'due', amount: 102900000, installment: 1, dueDate: '2026-12-22' },
            { choice: 'payoff', amount: 102900000, installment: null, dueDate: null },
          ],
          coolingOff: null,
        }),
    }).signIn();
    renderBorrower(`/app/orders/${ORDER_ID.orderNo}?lang=id`);
    expect(await screen.findByText(/^Rp\s1\.029\.000 harus dibayar sekarang \(jatuh tempo 22 Des 2026\)\.$/)).toBeInTheDocument();
    expect(document.querySelector('.order__amount')).toHaveTextContent(/^Rp\s1\.000\.000$/);
    expect(text(document.querySelector('main')!)).not.toMatch(/Rp\s?[\d.]+,\d\d/);
  });
});
