import { focusManager } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { ORDER_DISBURSED, ORDER_ID } from '../orders/fixtures.test-data';

const NO = 'KL-261123-7F3K9Q';
const ORDER = `/api/v1/borrower/orders/${NO}`;
const text = (element: Element) => element.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const buckets = (principal: number, interest: number, fees = 0, lateCharges = 0) => ({
  principal,
  interest,
  fees,
  lateCharges,
  total: principal + interest + fees + lateCharges,
});
const ZERO = buckets(0, 0);

const INSTALLMENTS = [
  { seq: 1, dueDate: '2026-12-06', plannedDueDate: '2026-12-06', due: buckets(199980, 6720, 0, 500), paid: ZERO, outstanding: buckets(199980, 6720, 0, 500), status: 'overdue', verifying: false },
  { seq: 2, dueDate: '2026-12-20', plannedDueDate: '2026-12-20', due: buckets(199980, 6720), paid: ZERO, outstanding: buckets(199980, 6720), status: 'upcoming', verifying: false },
];
const PLAN = {
  orderNo: NO,
  status: 'overdue',
  currency: 'INR',
  payoutDate: '2026-11-22',
  today: '2026-12-08',
  principal: 600000,
  paidOut: 582300,
  feesKept: 17700,
  feesRefunded: 0,
  paidInAll: 0,
  due: buckets(399960, 13440, 0, 500),
  paid: ZERO,
  outstanding: buckets(399960, 13440, 0, 500),
  extensionsGranted: 0,
  verifying: false,
  closedBy: null,
  installments: INSTALLMENTS,
};
const REPAYMENT = {
  orderNo: NO,
  status: 'overdue',
  currency: 'INR',
  today: '2026-12-08',
  outstanding: 413900,
  verifying: false,
  choices: [
    { choice: 'due', amount: 207200, installment: 1, dueDate: '2026-12-06' },
    { choice: 'payoff', amount: 405000, installment: null, dueDate: null },
    { choice: 'extension', amount: 30000, installment: 1, dueDate: '2026-12-13' },
  ],
};
const TYPES = [
  { method: 'upi', payeeName: 'Kilat Finance', upiId: 'kilat@axis', upiUri: null, bankName: null, accountNumber: null, ifsc: null, bankCode: null, virtualAccount: null },
  { method: 'bank_transfer', payeeName: 'Kilat Finance', upiId: null, upiUri: null, bankName: 'Axis Bank', accountNumber: '912020012345678', ifsc: 'UTIB0000123', bankCode: null, virtualAccount: null },
];
const PAYMENT = {
  paymentId: 'pay-1',
  orderNo: NO,
  choice: 'due',
  method: 'bank_transfer',
  amount: 207200,
  currency: 'INR',
  pricedOn: '2026-12-08',
  status: 'pending',
  reference: 'KPAB12CD34EF',
  utr: null,
  reason: null,
  receivedAmount: null,
  refundAmount: null,
  refundReference: null,
  instructions: TYPES[1],
  createdAt: Date.UTC(2026, 11, 8, 6),
};
const EXTENSION = {
  orderNo: NO,
  currency: 'INR',
  installment: 1,
  days: 7,
  fee: 30000,
  currentDueDate: '2026-12-06',
  newDueDate: '2026-12-13',
  extensionsGranted: 0,
  revisedSchedule: [
    { seq: 1, dueDate: '2026-12-13', principal: 199980, interest: 6720, fees: 0, amount: 206700, paid: 0, lateCharges: 0, toPay: 206700 },
    { seq: 2, dueDate: '2026-12-27', principal: 199980, interest: 6720, fees: 0, amount: 206700, paid: 0, lateCharges: 0, toPay: 206700 },
  ],
};

beforeEach(() => window.sessionStorage.clear());

describe('the loan page after payout', () => {
  it('prompts for what is due and offers the choices with their amounts', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    // The loan's statement has paise (₹1,999.80 of principal in an installment): every amount shows two decimals.
    expect(await screen.findByText('₹2,072.00 is due now (due 6 Dec 2026).')).toBeInTheDocument();
    const links = within(screen.getByRole('heading', { name: 'Repay' }).closest('section')!).getAllByRole('link');
    expect(links.map((link) => [text(link), link.getAttribute('href')])).toEqual([
      ['Pay this installmentThe installment due, with any late charges₹2,072.00', `/app/orders/${NO}/pay/due`],
      ['Repay everything todayInterest only for the days used; no prepayment charge₹4,050.00', `/app/orders/${NO}/pay/payoff`],
      ['Extend the due dateFee only; the new due date is 13 Dec 2026₹300.00', `/app/orders/${NO}/extension`],
      ['See the installment plan', `/app/orders/${NO}/plan`],
    ]);
  });

  it('says a payment is being checked while a UTR waits, and shows an error with a retry', async () => {
    let answer = () => refusal(503, 'internal', 'Service unavailable.');
    fakeApi({ [`GET ${ORDER}`]: () => ok(ORDER_DISBURSED), [`GET ${ORDER}/repayment`]: () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('What you can repay could not be loaded.')).toBeInTheDocument();
    answer = () => ok({ ...REPAYMENT, verifying: true });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText(/A payment for this loan is being checked/)).toBeInTheDocument();
  });

  it('while a submitted UTR is verified the choices show but cannot be tapped, and paying says so', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok({ ...REPAYMENT, verifying: true }),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
    }).signIn();
    const view = renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText(/A payment for this loan is being checked/)).toBeInTheDocument();
    const section = screen.getByRole('heading', { name: 'Repay' }).closest('section')!;
    expect(within(section).getAllByRole('link').map((link) => text(link))).toEqual(['See the installment plan']);
    expect(within(section).getByText('Pay this installment').closest('[aria-disabled="true"]')).not.toBeNull();
    expect(within(section).getByText(/You can choose how to repay again once it is confirmed or rejected/)).toBeInTheDocument();
    view.unmount();

    // A pay link opened anyway (a bookmark, another tab) shows the state instead of the form.
    renderBorrower(`/app/orders/${NO}/pay/due?lang=1`);
    expect(await screen.findByRole('heading', { name: 'Your payment is being checked' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Pay / })).not.toBeInTheDocument();
  });

  it('when the loan has ended, asks for a rating once and offers to borrow again', async () => {
    const api = fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'repaid' }),
      [`POST ${ORDER}/rating`]: () => ok({ orderNo: NO, score: 4 }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    await screen.findByRole('heading', { name: 'Loan closed' });
    expect(screen.getByRole('link', { name: 'Borrow again' })).toHaveAttribute('href', '/app/products');
    expect(screen.getByRole('button', { name: 'Send rating' })).toBeDisabled();
    await user.click(screen.getByRole('radio', { name: '4 stars' }));
    await user.click(screen.getByRole('button', { name: 'Send rating' }));
    expect(await screen.findByText('Thank you for your rating.')).toBeInTheDocument();
    expect(api.callsTo('POST', `${ORDER}/rating`).map((call) => call.body)).toEqual([{ score: 4 }]);
    expect(screen.queryByRole('radio')).not.toBeInTheDocument();
  });

  it('when the loan has ended, shows what was paid, bucket by bucket', async () => {
    const paid = buckets(600000, 13440, 30000, 500);
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'repaid' }),
      [`GET ${ORDER}/plan`]: () => ok({ ...PLAN, status: 'repaid', paid, due: paid, outstanding: ZERO, paidInAll: 661640 }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    const summary = await screen.findByRole('region', { name: 'What you paid' });
    await within(summary).findByText('Total you paid');
    expect(within(summary).getAllByRole('term').map(text)).toEqual(['Principal', 'Interest', 'Fees and charges', 'Fee taken from the payout', 'Total you paid']);
    // The ₹177 kept from the ₹6,000 at payout (₹5,823 sent) is part of what the loan cost.
    expect(within(summary).getAllByRole('definition').map(text)).toEqual(['₹6,000.00', '₹134.40', '₹305.00', '₹177.00', '₹6,616.40']);
  });

  it('a loan paid off early shows the fee taken from the payout too, in Indonesian', async () => {
    const paid = buckets(60000000, 1200000);
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_ID, status: 'repaid' }),
      [`GET ${ORDER}/plan`]: () =>
        ok({ ...PLAN, currency: 'IDR', status: 'repaid', closedBy: 'payoff', principal: 60000000, paidOut: 57000000, feesKept: 3000000, paidInAll: 64200000, paid, due: paid, outstanding: ZERO }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=id`);
    const summary = await screen.findByRole('region', { name: 'Yang Anda bayar' });
    await within(summary).findByText('Total yang Anda bayar');
    expect(within(summary).getByText('Biaya yang dipotong dari pencairan').nextSibling).toHaveTextContent(/^Rp\s?30\.000$/);
    expect(within(summary).getByText('Total yang Anda bayar').nextSibling).toHaveTextContent(/^Rp\s?642\.000$/);
  });

  it('after a cooling-off exit, shows only the principal and the days’ interest, the fees taken at payout given back', async () => {
    const paid = buckets(600000, 960);
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'exited_in_cooling_off' }),
      [`GET ${ORDER}/plan`]: () => ok({ ...PLAN, status: 'exited_in_cooling_off', closedBy: 'cooling_off_exit', feesKept: 0, feesRefunded: 17700, paidInAll: 583260, paid, due: paid, outstanding: ZERO }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    const summary = await screen.findByRole('region', { name: 'What you paid' });
    await within(summary).findByText('Total you paid');
    expect(within(summary).getAllByRole('definition').map(text)).toEqual(['₹6,000.00', '₹9.60', '₹0.00', '-₹177.00', '₹5,832.60']);
    expect(within(summary).getByText('Fees taken at payout, given back')).toBeInTheDocument();
    expect(within(summary).queryByText('Fee taken from the payout')).not.toBeInTheDocument();
  });

  it('says so when what was paid cannot be loaded, and tries again', async () => {
    let answer = () => refusal(500, 'internal', 'Something went wrong.');
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'repaid' }),
      [`GET ${ORDER}/plan`]: () => answer(),
    }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    const summary = await screen.findByRole('region', { name: 'What you paid' });
    await user.click(await within(summary).findByRole('button', { name: 'Try again' }));
    answer = () => ok({ ...PLAN, status: 'repaid', paid: buckets(600000, 13440), outstanding: ZERO, paidInAll: 631140 });
    await user.click(within(summary).getByRole('button', { name: 'Try again' }));
    expect(await within(summary).findByText('₹6,311.40')).toBeInTheDocument();
  });

  it('an order already rated thanks instead of failing', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'exited_in_cooling_off' }),
      [`POST ${ORDER}/rating`]: () => refusal(409, 'already_rated', 'Already rated.'),
    }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    await user.click(await screen.findByRole('radio', { name: '1 star' }));
    await user.click(screen.getByRole('button', { name: 'Send rating' }));
    expect(await screen.findByText('Thank you for your rating.')).toBeInTheDocument();
  });
});

describe('the installment plan', () => {
  it('lists each installment with its due date, amount due, outstanding and status, and opens one', async () => {
    fakeApi({ [`GET ${ORDER}/plan`]: () => ok(PLAN), [`GET ${ORDER}/plan/1`]: () => ok(INSTALLMENTS[0]) }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/plan?lang=1`);
    const items = within(await screen.findByRole('list', { name: 'Installments' })).getAllByRole('listitem');
    expect(items.map(text)).toEqual([
      'Installment 1OverdueDue 6 Dec 2026₹2,072Outstanding₹2,072',
      'Installment 2UpcomingDue 20 Dec 2026₹2,067Outstanding₹2,067',
    ]);
    expect(screen.getByText('Paid out to you on 22 Nov 2026').nextSibling).toHaveTextContent('₹5,823');
    expect(screen.getByText('Outstanding', { selector: 'dt' }).nextSibling).toHaveTextContent('₹4,139');

    await user.click(within(items[0]!).getByRole('link'));
    const card = await screen.findByRole('region', { name: 'Installment 1' });
    expect(within(card).getAllByRole('definition').map(text)).toEqual(['₹1,999.80', '₹67.20', '₹0', '₹5', '6 Dec 2026']);
    expect(screen.getByText('Due date').nextSibling).toHaveTextContent('6 Dec 2026');
  });

  it('has an error state with a retry (in Indonesian)', async () => {
    let answer = () => refusal(503, 'internal', 'Service unavailable.');
    fakeApi({ [`GET ${ORDER}/plan`]: () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/plan?lang=id`);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Rencana cicilan tidak dapat dimuat.');
    answer = () => ok(PLAN);
    await user.click(within(alert).getByRole('button'));
    expect(await screen.findByText('Terlambat')).toBeInTheDocument();
  });
});

describe('an installment', () => {
  const INSTALLMENT = `/app/orders/${NO}/plan/1?lang=1`;

  it('shows what is still to pay once, with a plain label and its split, and pays it as the loan page does', async () => {
    fakeApi({
      [`GET ${ORDER}/plan/1`]: () => ok(INSTALLMENTS[0]),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
    }).signIn();
    const user = userEvent.setup();
    renderBorrower(INSTALLMENT);
    const pay = await screen.findByRole('link', { name: 'Pay ₹2,072 now' });
    // The same flow as the loan page's "Pay this installment": the due choice, at its price.
    expect(pay).toHaveAttribute('href', `/app/orders/${NO}/pay/due`);
    const card = screen.getByRole('region', { name: 'Installment 1' });
    expect(within(card).getByText('Still to pay').nextSibling).toHaveTextContent(/^₹2,072$/);
    // Once: no boxes of what is due, paid and outstanding repeating it.
    expect(screen.getAllByText('₹2,072')).toHaveLength(1);
    expect(screen.getAllByRole('region').map((region) => region.getAttribute('aria-labelledby'))).toEqual(['installment-head']);
    expect(screen.queryByText(/still to pay, of/)).toBeNull();

    await user.click(pay);
    expect(await screen.findByRole('heading', { name: 'Pay this installment' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Pay ₹2,072' })).toBeInTheDocument();
  });

  it('says in plain words what was paid of what was due, and what is still to pay (English and Indonesian)', async () => {
    const part = {
      ...INSTALLMENTS[0]!,
      paid: buckets(93200, 6720, 0, 100),
      outstanding: buckets(106780, 0, 0, 400),
    };
    fakeApi({ [`GET ${ORDER}/plan/1`]: () => ok(part), [`GET ${ORDER}/repayment`]: () => ok({ ...REPAYMENT, choices: [{ ...REPAYMENT.choices[0]!, amount: 107180 }] }) }).signIn();
    const view = renderBorrower(INSTALLMENT);
    expect(await screen.findByText('₹1,000.20 paid of ₹2,072; ₹1,071.80 still to pay')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Pay ₹1,071.80 now' })).toBeInTheDocument();
    view.unmount();

    renderBorrower(`/app/orders/${NO}/plan/1?lang=id`);
    const sentence = 'Rp 1.000,20 dari Rp 2.072 sudah dibayar; Rp 1.071,80 masih harus dibayar';
    expect(await screen.findByText((_, element) => element?.tagName === 'P' && text(element) === sentence)).toBeInTheDocument();
    expect(text(await screen.findByRole('link', { name: /^Bayar/ }))).toBe('Bayar Rp 1.071,80 sekarang');
  });

  it('offers no payment when nothing is left, the loan is closed, a payment is being checked, or the due payment is for another one', async () => {
    let installment: object = INSTALLMENTS[0]!;
    let repayment: object = REPAYMENT;
    const api = fakeApi({
      [`GET ${ORDER}/plan/1`]: () => ok(installment),
      [`GET ${ORDER}/plan/2`]: () => ok(INSTALLMENTS[1]),
      [`GET ${ORDER}/repayment`]: () => ok(repayment),
    });
    api.signIn();
    const noPay = async (seq: number, label: string, asks = true) => {
      const asked = api.callsTo('GET', `${ORDER}/repayment`).length;
      const view = renderBorrower(`/app/orders/${NO}/plan/${seq}?lang=1`);
      await screen.findByRole('region', { name: `Installment ${seq}` });
      // What the loan offers has been answered (and drawn) before the button is looked for.
      if (asks) await waitFor(() => expect(api.callsTo('GET', `${ORDER}/repayment`).length).toBeGreaterThan(asked));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(screen.queryByRole('link', { name: /^Pay .* now$/ }), label).toBeNull();
      view.unmount();
    };

    installment = { ...INSTALLMENTS[0]!, paid: INSTALLMENTS[0]!.due, outstanding: ZERO, status: 'paid' };
    repayment = { ...REPAYMENT, status: 'disbursed', choices: [{ ...REPAYMENT.choices[0]!, installment: 2, dueDate: '2026-12-20' }] };
    // Paid: the label says so, and what the loan offers is not even asked.
    await noPay(1, 'nothing left', false);
    installment = INSTALLMENTS[0]!;
    repayment = { ...REPAYMENT, status: 'repaid', choices: [{ ...REPAYMENT.choices[0]! }] };
    await noPay(1, 'loan closed');
    repayment = { ...REPAYMENT, verifying: true };
    await noPay(1, 'payment being checked');
    // Installment 2 while installment 1 is overdue: the due payment pays 1, not this one.
    repayment = REPAYMENT;
    await noPay(2, 'due payment is for installment 1');
  });
});

describe('paying', () => {
  it('picks a payment type, creates one payment with a key kept across retries, and shows its instructions', async () => {
    let fail = true;
    const api = fakeApi({
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
      [`POST ${ORDER}/payments`]: () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(PAYMENT, 201)),
      'GET /api/v1/borrower/payments/pay-1': () => ok(PAYMENT),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/pay/due?lang=1`);
    expect(await screen.findByText('₹2,072')).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: /Bank transfer/ }));
    await user.click(screen.getByRole('button', { name: 'Pay ₹2,072' }));
    expect(await screen.findByRole('alert')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Pay ₹2,072' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/payments/pay-1'));
    const bodies = api.callsTo('POST', `${ORDER}/payments`).map((call) => call.body as { choice: string; method: string; idempotencyKey: string });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({ choice: 'due', method: 'bank_transfer' });
    expect(bodies[1]!.idempotencyKey).toBe(bodies[0]!.idempotencyKey);
    expect(bodies[0]!.idempotencyKey).toMatch(/^[A-Za-z0-9_-]{8,64}$/);

    expect(await screen.findByRole('heading', { name: 'Transfer ₹2,072 to the collection account' })).toBeInTheDocument();
    expect(screen.getByText('912020012345678')).toBeInTheDocument();
    expect(screen.getByText('UTIB0000123')).toBeInTheDocument();
    expect(screen.getByText('KPAB12CD34EF')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy Reference' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy Account number' })).toBeInTheDocument();
  });

  it('a waiting payment is read again when the borrower comes back from their bank app, and shows the money arrived', async () => {
    let payment: object = PAYMENT;
    const api = fakeApi({ 'GET /api/v1/borrower/payments/pay-1': () => ok(payment) });
    api.signIn();
    renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('Waiting for your transfer')).toBeInTheDocument();
    payment = { ...PAYMENT, status: 'confirmed', receivedAmount: PAYMENT.amount };
    // Away in the bank's app, then back.
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    expect(await screen.findByText('Payment confirmed. Thank you.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/payments/pay-1')).toHaveLength(2);
    focusManager.setFocused(undefined);
  });

  it('checks the UTR as the server does, shows the server field error at the field, then "verifying"', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/payments/pay-1': () => ok(PAYMENT),
      'POST /api/v1/borrower/payments/pay-1/utr': (call) =>
        (call.body as { utr: string }).utr === '123456789012'
          ? refusal(409, 'utr_already_used', 'Used.')
          : (call.body as { utr: string }).utr === 'ABCD0123456789XY'
            ? refusal(422, 'invalid_field', 'Invalid.', { fields: { utr: 'Server says no.' } })
            : ok({ ...PAYMENT, status: 'verifying', utr: 'N123456789012345678901' }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/payments/pay-1?lang=1');
    const field = await screen.findByLabelText('UTR');
    await user.type(field, '12345');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('12 digits (IMPS), or 16 or 22 letters and digits (NEFT, RTGS)', { selector: '.field__error' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/payments/pay-1/utr')).toHaveLength(0);

    await user.clear(field);
    await user.type(field, '123456789012');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(await screen.findByText(/already been used/)).toBeInTheDocument();

    await user.clear(field);
    await user.type(field, 'abcd0123456789xy');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(await screen.findByText('Server says no.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/payments/pay-1/utr').at(-1)!.body).toEqual({ utr: 'ABCD0123456789XY' });

    await user.clear(field);
    await user.type(field, 'n123456789012345678901');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(await screen.findByText(/Transfer reported/)).toBeInTheDocument();
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
  });

  it('a UPI payment takes 12 digits only; an Indonesian virtual account shows its number and no UTR', async () => {
    fakeApi({
      'GET /api/v1/borrower/payments/pay-1': () => ok({ ...PAYMENT, method: 'upi', instructions: { ...TYPES[0], upiUri: 'upi://pay?pa=kilat@axis&am=2072.00&tr=KPAB12CD34EF' } }),
      'GET /api/v1/borrower/payments/pay-2': () =>
        ok({
          ...PAYMENT,
          paymentId: 'pay-2',
          method: 'virtual_account',
          currency: 'IDR',
          amount: 1500000,
          instructions: { method: 'virtual_account', payeeName: 'Kilat', upiId: null, upiUri: null, bankName: null, accountNumber: null, ifsc: null, bankCode: 'BCA', virtualAccount: '8808123456789012' },
        }),
    }).signIn();
    const user = userEvent.setup();
    const view = renderBorrower('/app/payments/pay-1?lang=1');
    const field = await screen.findByLabelText('UTR');
    expect(screen.getByRole('link', { name: 'Open a UPI app' })).toHaveAttribute('href', 'upi://pay?pa=kilat@axis&am=2072.00&tr=KPAB12CD34EF');
    await user.type(field, 'ABCD0123456789XY');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(screen.getByText('12 digits', { selector: '.field__error' })).toBeInTheDocument();
    view.unmount();

    renderBorrower('/app/payments/pay-2?lang=id');
    expect(await screen.findByText('8808 1234 5678 9012')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Salin Nomor virtual account' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: /^Transfer Rp\s?15\.000 ke virtual account Anda$/ })).toBeInTheDocument();
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
  });

  it('a choice the loan no longer offers is an empty state', async () => {
    fakeApi({ [`GET ${ORDER}/repayment`]: () => ok({ ...REPAYMENT, choices: [] }), 'GET /api/v1/borrower/payment-types': () => ok(TYPES) }).signIn();
    renderBorrower(`/app/orders/${NO}/pay/cooling_off?lang=1`);
    expect(await screen.findByRole('heading', { name: 'Not available now' })).toBeInTheDocument();
  });
});

const DRAGONPAY_PAYMENT = {
  ...PAYMENT,
  paymentId: 'pay-dp',
  method: 'dragonpay',
  currency: 'IDR',
  amount: 1500000,
  reference: 'KPDR7GN8PY01',
  instructions: {
    method: 'dragonpay',
    payeeName: 'PT Kilat Dana Indonesia',
    upiId: null,
    upiUri: null,
    bankName: null,
    accountNumber: null,
    ifsc: null,
    bankCode: null,
    virtualAccount: null,
    channels: ['Alfamart', 'Indomaret'],
    expiresAt: Date.UTC(2099, 0, 2, 3, 30),
  },
};

describe('money after it arrived', () => {
  const PAY = 'GET /api/v1/borrower/payments/pay-1';
  const asked = { ...PAYMENT, status: 'confirmed', utr: '123456789012' };

  it('a held payment says the amount received differs and finance is checking it', async () => {
    fakeApi({ [PAY]: () => ok({ ...asked, status: 'held', receivedAmount: 200000 }) }).signIn();
    renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('Payment received. It is not the amount asked, so we are checking it.')).toHaveClass('payment-status');
    expect(
      screen.getByText('We received ₹2,000, not the ₹2,072 asked. Finance is checking it and will either count it towards your loan or send it back to your bank account.'),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
  });

  it('money of the amount asked held because its price no longer held says so, not that the amount differs', async () => {
    fakeApi({
      [PAY]: () => ok({ ...asked, status: 'held', receivedAmount: 207200 }),
      'GET /api/v1/borrower/payments/pay-2': () =>
        ok({ ...asked, paymentId: 'pay-2', choice: 'cooling_off', status: 'held', receivedAmount: 207200 }),
    }).signIn();
    const view = renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('Payment received. We are checking it.')).toHaveClass('payment-status');
    expect(
      screen.getByText(
        'We received ₹2,072, the amount asked on 8 Dec 2026. That amount was good for two days, and your money came later, when the loan cost more. Finance is checking it and will either count it towards your loan or send it back to your bank account.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/amount differs/)).not.toBeInTheDocument();
    view.unmount();
    renderBorrower('/app/payments/pay-2?lang=1');
    expect(
      await screen.findByText(
        'We received ₹2,072 to leave the loan, after your cooling-off period ended. Finance is checking it and will either count it towards your loan or send it back to your bank account.',
      ),
    ).toBeInTheDocument();
  });

  it('a refund due says how much goes back to the bank account, and why: more than the loan owed, or a loan already repaid', async () => {
    let order = { ...ORDER_DISBURSED, status: 'disbursed' };
    fakeApi({
      [PAY]: () => ok({ ...asked, status: 'refund_due', receivedAmount: 207200, refundAmount: 7200 }),
      'GET /api/v1/borrower/payments/pay-2': () => ok({ ...asked, paymentId: 'pay-2', status: 'refund_due', receivedAmount: 207200, refundAmount: 207200 }),
      [`GET ${ORDER}`]: () => ok(order),
    }).signIn();
    const view = renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('Money to be sent back to you')).toHaveClass('payment-status');
    expect(
      screen.getByText('₹72.00 will be sent back to your bank account: it was more than your loan owed. The other ₹2,000.00 was counted towards your loan.'),
    ).toBeInTheDocument();
    view.unmount();

    order = { ...ORDER_DISBURSED, status: 'repaid' };
    renderBorrower('/app/payments/pay-2?lang=1');
    expect(await screen.findByText('₹2,072.00 will be sent back to your bank account: your loan was already repaid, so nothing was owed.')).toBeInTheDocument();
  });

  it('a refund finance decided on an open loan says it was not counted towards the loan', async () => {
    fakeApi({
      [PAY]: () => ok({ ...asked, status: 'refund_due', receivedAmount: 200000, refundAmount: 200000 }),
      [`GET ${ORDER}`]: () => ok(ORDER_DISBURSED),
    }).signIn();
    renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('₹2,000.00 will be sent back to your bank account: finance did not count it towards your loan.')).toBeInTheDocument();
  });

  it('the loan page tells what became of money that did not go as asked, and nothing when all went as asked', async () => {
    const PAYMENTS = `GET ${ORDER}/payments`;
    let payments = [
      { ...asked, paymentId: 'pay-0' },
      { ...asked, status: 'refunded', receivedAmount: 207200, refundAmount: 7200, refundReference: 'N2612345' },
    ];
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'repaid' }),
      [`GET ${ORDER}/plan`]: () => ok({ ...PLAN, status: 'repaid', outstanding: ZERO }),
      [PAYMENTS]: () => ok(payments),
    }).signIn();
    const view = renderBorrower(`/app/orders/${NO}?lang=1`);
    const section = await screen.findByRole('region', { name: 'About your payments' });
    expect(within(section).getByText('₹72.00 was sent back to your bank account. Bank reference: N2612345.')).toBeInTheDocument();
    expect(within(section).getAllByRole('listitem')).toHaveLength(1);
    view.unmount();

    payments = [{ ...asked, paymentId: 'pay-0' }];
    renderBorrower(`/app/orders/${NO}?lang=1`);
    await screen.findByRole('region', { name: 'What you paid' });
    expect(screen.queryByRole('region', { name: 'About your payments' })).not.toBeInTheDocument();
  });

  it('a refunded payment says it was sent back, with the bank reference', async () => {
    fakeApi({ [PAY]: () => ok({ ...asked, status: 'refunded', receivedAmount: 207200, refundAmount: 7200, refundReference: 'N2612345' }) }).signIn();
    renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('Money sent back to you')).toHaveClass('payment-status');
    expect(screen.getByText('₹72 was sent back to your bank account. Bank reference: N2612345.')).toBeInTheDocument();
  });

  it('a part payment finance credited says what was credited and leads to the plan; one confirmed as asked says nothing more', async () => {
    fakeApi({
      [PAY]: () => ok({ ...asked, receivedAmount: 100000 }),
      'GET /api/v1/borrower/payments/pay-2': () => ok({ ...asked, paymentId: 'pay-2', receivedAmount: 207200 }),
    }).signIn();
    const view = renderBorrower('/app/payments/pay-1?lang=1');
    expect(await screen.findByText('₹1,000 of the ₹2,072 asked was credited to your loan. The rest is still owed: see the installment plan.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the installment plan' })).toHaveAttribute('href', `/app/orders/${NO}/plan`);
    view.unmount();

    renderBorrower('/app/payments/pay-2?lang=1');
    expect(await screen.findByText('Payment confirmed. Thank you.')).toHaveClass('payment-status');
    expect(screen.queryByText(/credited to your loan/)).not.toBeInTheDocument();
  });

  it('speaks Indonesian in rupiah', async () => {
    const idr = { ...asked, currency: 'IDR', method: 'virtual_account', amount: 150000000 };
    fakeApi({
      [PAY]: () => ok({ ...idr, status: 'held', receivedAmount: 100000000 }),
      'GET /api/v1/borrower/payments/pay-2': () => ok({ ...idr, paymentId: 'pay-2', receivedAmount: 100000000 }),
      'GET /api/v1/borrower/payments/pay-3': () =>
        ok({ ...idr, paymentId: 'pay-3', status: 'refunded', receivedAmount: 150000000, refundAmount: 150000000, refundReference: 'BCA-778899' }),
    }).signIn();
    let view = renderBorrower('/app/payments/pay-1?lang=id');
    expect(await screen.findByText(/^Kami menerima Rp\s?1\.000\.000, bukan Rp\s?1\.500\.000 yang diminta\. Tim keuangan sedang memeriksanya/)).toBeInTheDocument();
    view.unmount();
    view = renderBorrower('/app/payments/pay-2?lang=id');
    expect(await screen.findByText(/^Rp\s?1\.000\.000 dari Rp\s?1\.500\.000 yang diminta telah diperhitungkan ke pinjaman Anda\./)).toBeInTheDocument();
    view.unmount();
    renderBorrower('/app/payments/pay-3?lang=id');
    expect(await screen.findByText('Dana telah dikembalikan kepada Anda')).toHaveClass('payment-status');
    expect(screen.getByText(/^Rp\s?1\.500\.000 telah dikirim kembali ke rekening bank Anda\. Referensi bank: BCA-778899\.$/)).toBeInTheDocument();
  });
});

describe('Dragonpay', () => {
  it('choosing Dragonpay opens its payment instructions: reference, amount, where to pay and until when', async () => {
    const api = fakeApi({
      [`GET ${ORDER}/repayment`]: () => ok({ ...REPAYMENT, currency: 'IDR' }),
      'GET /api/v1/borrower/payment-types': () =>
        ok([{ ...DRAGONPAY_PAYMENT.instructions, method: 'virtual_account', bankCode: 'BCA', channels: [], expiresAt: null }, { ...DRAGONPAY_PAYMENT.instructions, expiresAt: null }]),
      [`POST ${ORDER}/payments`]: () => ok(DRAGONPAY_PAYMENT),
      'GET /api/v1/borrower/payments/pay-dp': () => ok(DRAGONPAY_PAYMENT),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/pay/due?lang=id`);
    await user.click(await screen.findByRole('radio', { name: /Dragonpay/ }));
    await user.click(screen.getByRole('button', { name: /^Bayar / }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/dragonpayPaymentInstructions/pay-dp'));
    expect(api.callsTo('POST', `${ORDER}/payments`)[0]!.body).toMatchObject({ choice: 'due', method: 'dragonpay' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Instruksi pembayaran' })).toBeInTheDocument();
    expect(await screen.findByText('KPDR7GN8PY01')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Salin Nomor referensi' })).toBeInTheDocument();
    expect(screen.getByText('Alfamart')).toBeInTheDocument();
    expect(screen.getByText('Indomaret')).toBeInTheDocument();
    expect(screen.getByText(/^Bayar sebelum 2 Jan 2099/)).toBeInTheDocument();
    expect(screen.getByText('Menunggu transfer Anda')).toHaveClass('payment-status--pending');
  });

  it('the instructions page has its loading and error states, in English too', async () => {
    let answer = () => refusal(503, 'internal', 'Service unavailable.');
    fakeApi({ 'GET /api/v1/borrower/payments/pay-dp': () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/dragonpayPaymentInstructions/pay-dp?lang=1');
    expect(await screen.findByText('The payment instructions could not be loaded.')).toBeInTheDocument();
    answer = () => ok({ ...DRAGONPAY_PAYMENT, currency: 'INR' });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: /^Pay ₹15,000 with this reference number$/ })).toBeInTheDocument();
    expect(screen.getByText('Where to pay')).toBeInTheDocument();
  });
});

describe('the extension', () => {
  it('shows the fee, the new due date and the revised schedule, and accepting starts the fee payment', async () => {
    const api = fakeApi({
      [`GET ${ORDER}/extension`]: () => ok(EXTENSION),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
      [`POST ${ORDER}/extension`]: () => ok({ ...PAYMENT, choice: 'extension', method: 'upi', amount: 30000, instructions: TYPES[0] }, 201),
      'GET /api/v1/borrower/payments/pay-1': () => ok({ ...PAYMENT, choice: 'extension', method: 'upi', amount: 30000, instructions: TYPES[0] }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    expect(await screen.findByText('Extension fee (with tax)')).toBeInTheDocument();
    // A sentence, not two numbers side by side ("Geser cicilan 1 7 hari"); installment 2 moves too, so "due dates".
    expect(screen.getByRole('heading', { level: 2, name: `Move your due dates by ${EXTENSION.days} days, from installment 1` })).toBeInTheDocument();
    expect(screen.getByText('Extension fee (with tax)').nextSibling).toHaveTextContent('₹300');
    expect(screen.getByText('New due date').nextSibling).toHaveTextContent('13 Dec 2026');
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map(text)).toEqual([
      '113 Dec 2026₹2,067principal ₹1,999.80, interest ₹67.20, fees ₹0',
      '227 Dec 2026₹2,067principal ₹1,999.80, interest ₹67.20, fees ₹0',
    ]);
    await user.click(screen.getByRole('button', { name: 'Accept and pay the fee, ₹300' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/payments/pay-1'));
    expect(api.callsTo('POST', `${ORDER}/extension`)[0]!.body).toMatchObject({ method: 'upi' });
    expect(await screen.findByRole('heading', { name: 'Extend the due date' })).toBeInTheDocument();
  });

  it('asks on the new date what is still owed: what was paid taken off, the late charges posted kept', async () => {
    const owed = {
      ...EXTENSION,
      revisedSchedule: [{ ...EXTENSION.revisedSchedule[0]!, paid: 100000, lateCharges: 40000, toPay: 146700 }, EXTENSION.revisedSchedule[1]!],
    };
    fakeApi({ [`GET ${ORDER}/extension`]: () => ok(owed), 'GET /api/v1/borrower/payment-types': () => ok(TYPES) }).signIn();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    const table = await screen.findByRole('table');
    const [first] = within(table).getAllByRole('row').slice(1);
    expect(text(first!)).toBe('113 Dec 2026₹1,467principal ₹1,999.80, interest ₹67.20, fees ₹0₹1,000 of ₹2,067 paid alreadywith late charges of ₹400');
    expect(screen.getByText(/late charges already added stay to pay/)).toBeInTheDocument();
  });

  it('says in Indonesian which installment moves and by how many days, as a sentence', async () => {
    let extension = EXTENSION;
    fakeApi({ [`GET ${ORDER}/extension`]: () => ok(extension), 'GET /api/v1/borrower/payment-types': () => ok(TYPES) }).signIn();
    const view = renderBorrower(`/app/orders/${NO}/extension`);
    expect(
      await screen.findByRole('heading', { level: 2, name: `Geser jatuh tempo Anda selama ${EXTENSION.days} hari, mulai cicilan ke-1` }),
    ).toBeInTheDocument();
    view.unmount();

    // Only the last installment left: one due date moves.
    extension = { ...EXTENSION, installment: 2, revisedSchedule: [EXTENSION.revisedSchedule[1]!] };
    renderBorrower(`/app/orders/${NO}/extension`);
    expect(
      await screen.findByRole('heading', { level: 2, name: `Geser jatuh tempo cicilan ke-2 selama ${EXTENSION.days} hari` }),
    ).toBeInTheDocument();
  });

  it('says in English that one due date moves when it is the only one left', async () => {
    const last = { ...EXTENSION, installment: 2, revisedSchedule: [EXTENSION.revisedSchedule[1]!] };
    fakeApi({ [`GET ${ORDER}/extension`]: () => ok(last), 'GET /api/v1/borrower/payment-types': () => ok(TYPES) }).signIn();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    expect(await screen.findByRole('heading', { level: 2, name: `Move the due date of installment 2 by ${EXTENSION.days} days` })).toBeInTheDocument();
  });

  it('is titled as the loan page’s link that opens it, in both languages', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT),
      [`GET ${ORDER}/extension`]: () => ok(EXTENSION),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
    }).signIn();
    const user = userEvent.setup();
    for (const [lang, name] of [
      ['1', 'Extend the due date'],
      ['id', 'Perpanjang jatuh tempo'],
    ] as const) {
      const view = renderBorrower(`/app/orders/${NO}?lang=${lang}`);
      const link = await screen.findByRole('link', { name: new RegExp(`^${name}`) });
      await user.click(link);
      expect(await screen.findByRole('heading', { level: 1, name })).toBeInTheDocument();
      view.unmount();
    }
  });

  it('a fee payment finance refused is not brought back by accepting again: a new one starts under a new key', async () => {
    const fresh = { ...PAYMENT, paymentId: 'pay-2', choice: 'extension', method: 'upi', amount: 30000, instructions: TYPES[0] };
    const keys = new Map<string, object>();
    const api = fakeApi({
      [`GET ${ORDER}/extension`]: () => ok(EXTENSION),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
      // The server answers a key it knows with that key's payment, whatever became of it.
      [`POST ${ORDER}/extension`]: (call) => {
        const key = (call.body as { idempotencyKey: string }).idempotencyKey;
        const payment = keys.get(key) ?? fresh;
        keys.set(key, payment);
        return ok(payment, 201);
      },
      'GET /api/v1/borrower/payments/pay-2': () => ok(fresh),
    });
    api.signIn();
    // This tab paid the fee before under its kept key, and finance rejected the UTR.
    window.sessionStorage.setItem(`kilat.pay:${NO}:extension:upi:30000:1:2026-12-13`, 'kept-key-0001');
    keys.set('kept-key-0001', { ...fresh, paymentId: 'pay-1', status: 'rejected', reason: 'No such UTR.' });
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    await screen.findByText('Extension fee (with tax)');
    await user.click(screen.getByRole('button', { name: 'Accept and pay the fee, ₹300' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/payments/pay-2'));
    const bodies = api.callsTo('POST', `${ORDER}/extension`).map((call) => (call.body as { idempotencyKey: string }).idempotencyKey);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toBe('kept-key-0001');
    expect(bodies[1]).not.toBe(bodies[0]);
  });

  it('with no way to pay offered, says so instead of a button that cannot be tapped', async () => {
    fakeApi({ [`GET ${ORDER}/extension`]: () => ok(EXTENSION), 'GET /api/v1/borrower/payment-types': () => ok([]) }).signIn();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    expect(await screen.findByRole('heading', { name: 'No way to pay is set up for your market. Please contact support.' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Accept and pay the fee/ })).toBeNull();
  });

  it('none offered is an empty state', async () => {
    fakeApi({ [`GET ${ORDER}/extension`]: () => refusal(409, 'choice_unavailable', 'No.'), 'GET /api/v1/borrower/payment-types': () => ok(TYPES) }).signIn();
    renderBorrower(`/app/orders/${NO}/extension?lang=id`);
    expect(await screen.findByRole('heading', { name: 'Tidak ada perpanjangan' })).toBeInTheDocument();
  });

  it('while a payment of the loan is being checked, says the extension waits for it and offers no button', async () => {
    fakeApi({
      [`GET ${ORDER}/extension`]: () => refusal(409, 'payment_waiting', 'A payment of this loan is being checked.'),
      'GET /api/v1/borrower/payment-types': () => ok(TYPES),
    }).signIn();
    renderBorrower(`/app/orders/${NO}/extension?lang=1`);
    expect(await screen.findByRole('heading', { name: 'A payment is being checked' })).toBeInTheDocument();
    expect(screen.getByText(/it may already have paid this installment/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Accept and pay the fee/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Try again/ })).toBeNull();
  });
});
