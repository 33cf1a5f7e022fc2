// Where the borrower's money stands (issue 19, items 5 to 11): every state's texts in both languages, every figure
// from the server's answer.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_ELIGIBLE } from '../home/fixtures.test-data';
import { OLDER_ORDER, ORDER_DETAIL, ORDER_DISBURSED, ORDER_ID, ORDER_SUMMARY, ORDER_WHOLE } from '../orders/fixtures.test-data';
import { groupedDigits } from './virtual-account';

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

const ARREARS = {
  installment: 2,
  installmentTo: 2,
  dueDate: '2026-12-25',
  daysLate: 3,
  owed: 689100,
  lateCharges: 40000,
  total: 729100,
  lateChargeTomorrow: 0,
  lateChargeMoreAtMost: 0,
};
const BASE = {
  orderNo: NO,
  status: 'overdue',
  currency: 'INR',
  today: '2026-12-28',
  outstanding: 729100,
  verifying: false,
  choices: [
    { choice: 'due', amount: 729100, installment: 2, dueDate: '2026-12-25' },
    { choice: 'payoff', amount: 729100, installment: null, dueDate: null },
  ],
  arrears: null,
  coolingOff: null,
  verifyingPayment: null,
};
const OVERDUE = { ...BASE, arrears: ARREARS };
const COOLING = {
  ...BASE,
  status: 'disbursed',
  today: '2026-11-29',
  outstanding: 1015000,
  choices: [
    { choice: 'due', amount: 1015000, installment: 1, dueDate: '2026-12-27' },
    { choice: 'payoff', amount: 1002000, installment: null, dueDate: null },
    { choice: 'cooling_off', amount: 978400, installment: null, dueDate: null },
  ],
  coolingOff: { daysUsed: 2, principal: 1000000, interest: 2000, feesRefunded: 23600, repaid: 0, amount: 978400, openUntil: '2026-11-30' },
};
const VERIFYING = {
  ...OVERDUE,
  verifying: true,
  verifyingPayment: {
    paymentId: 'pay-9',
    method: 'upi',
    choice: 'due',
    amount: 689100,
    utr: '712345678901',
    submittedAt: Date.UTC(2026, 11, 28, 5),
    checkBy: '2026-12-29',
    correctionsLeft: 3,
  },
};
const PAYMENT_VERIFYING = {
  paymentId: 'pay-9',
  orderNo: NO,
  choice: 'due',
  method: 'upi',
  amount: 689100,
  currency: 'INR',
  pricedOn: '2026-12-28',
  status: 'verifying',
  reference: 'KPAB12CD34EF',
  utr: '712345678902',
  reason: null,
  receivedAmount: null,
  refundAmount: null,
  refundReference: null,
  instructions: { method: 'upi', payeeName: 'Kilat Finance', collectsFor: null, upiId: 'kilat@axis', upiUri: null, bankName: null, accountNumber: null, ifsc: null, bankCode: null, virtualAccount: null, channels: [], expiresAt: null },
  createdAt: Date.UTC(2026, 11, 28, 4),
};

beforeEach(() => window.sessionStorage.clear());

describe('an overdue loan', () => {
  it('states the installment, the days late, the parts and that the flat charge does not grow, with a Pay button', async () => {
    fakeApi({ [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }), [`GET ${ORDER}/repayment`]: () => ok(OVERDUE) }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    const card = (await screen.findByRole('heading', { name: 'Installment 2 is 3 days late' })).closest('section')!;
    expect(text(card)).toContain('It was due on 25 Dec 2026.');
    expect(within(card).getByText('Installment amount').nextSibling).toHaveTextContent('₹6,891');
    expect(within(card).getByText('Late charge').nextSibling).toHaveTextContent('+ ₹400');
    expect(within(card).getByText('To pay now').nextSibling).toHaveTextContent('₹7,291');
    expect(within(card).getByText('The late charge does not grow: nothing more is added tomorrow.')).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'Pay ₹7,291 now' })).toHaveAttribute('href', `/app/orders/${NO}/pay/due`);
    // The old prompt without its parts is gone.
    expect(screen.queryByText(/is due now \(due/)).not.toBeInTheDocument();
  });

  it('says by how much a daily charge grows tomorrow, in Indonesian with rupiah', async () => {
    const arrears = { ...ARREARS, installment: 1, installmentTo: 1, daysLate: 1, owed: 318000000, lateCharges: 3000000, total: 321000000, lateChargeTomorrow: 300000, lateChargeMoreAtMost: 9000000 };
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_ID, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok({ ...OVERDUE, currency: 'IDR', arrears, choices: [{ choice: 'due', amount: 321000000, installment: 1, dueDate: '2026-12-25' }] }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=2`);
    const card = (await screen.findByRole('heading', { name: 'Cicilan ke-1 terlambat 1 hari' })).closest('section')!;
    expect(within(card).getByText('Jumlah cicilan').nextSibling).toHaveTextContent('Rp 3.180.000');
    expect(within(card).getByText('Denda keterlambatan').nextSibling).toHaveTextContent('+ Rp 30.000');
    expect(within(card).getByText('Dibayar sekarang').nextSibling).toHaveTextContent('Rp 3.210.000');
    expect(
      within(card).getByText('Jika tidak dibayar hari ini, besok denda bertambah Rp 3.000 (paling banyak Rp 90.000 lagi seluruhnya).'),
    ).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: /^Bayar Rp\s3\.210\.000 sekarang$/ })).toBeInTheDocument();
  });

  it('home puts the certified borrower’s loan first, with what is due and a Pay button', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () =>
        ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['open_order'], openOrder: { orderNo: NO, status: 'overdue', amount: 2000000, createdAt: Date.UTC(2026, 10, 23) } }),
      [`GET ${ORDER}/repayment`]: () => ok(OVERDUE),
    }).signIn();
    renderBorrower('/app/home?lang=1');
    expect(await screen.findByText('₹7,291 is due now')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Pay ₹7,291' })).toHaveAttribute('href', `/app/orders/${NO}/pay/due`);
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings.indexOf('Your current loan')).toBeLessThan(headings.indexOf('Your details'));
    expect(screen.queryByText('₹20,000')).not.toBeInTheDocument();
  });
});

describe('the cooling-off exit', () => {
  it('states its parts and its last day', async () => {
    fakeApi({ [`GET ${ORDER}`]: () => ok(ORDER_WHOLE), [`GET ${ORDER}/repayment`]: () => ok(COOLING) }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('You can leave this loan until 30 Nov 2026, with no penalty.')).toBeInTheDocument();
    expect(screen.queryByText('Already repaid, counted towards it')).not.toBeInTheDocument();
    const card = screen.getByRole('heading', { name: 'Changed your mind? You can leave this loan' }).closest('section')!;
    expect(within(card).getByText('Loan amount (principal)').nextSibling).toHaveTextContent('₹10,000');
    expect(within(card).getByText('Interest for 2 days used').nextSibling).toHaveTextContent('+ ₹20');
    expect(within(card).getByText('Fees taken at payout, given back').nextSibling).toHaveTextContent('− ₹236');
    expect(within(card).getByText('To pay to leave the loan').nextSibling).toHaveTextContent('₹9,784');
  });

  it('counts what was repaid before towards it', async () => {
    const partPaid = {
      ...COOLING,
      choices: COOLING.choices.map((c) => (c.choice === 'cooling_off' ? { ...c, amount: 631067 } : c)),
      coolingOff: { ...COOLING.coolingOff, repaid: 347333, amount: 631067 },
    };
    fakeApi({ [`GET ${ORDER}`]: () => ok(ORDER_WHOLE), [`GET ${ORDER}/repayment`]: () => ok(partPaid) }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    const heading = await screen.findByRole('heading', { name: 'Changed your mind? You can leave this loan' });
    const card = heading.closest('section')!;
    expect(within(card).getByText('Already repaid, counted towards it').nextSibling).toHaveTextContent('− ₹3,473.33');
    expect(within(card).getByText('To pay to leave the loan').nextSibling).toHaveTextContent('₹6,310.67');
  });

  it('in Indonesian', async () => {
    fakeApi({ [`GET ${ORDER}`]: () => ok(ORDER_ID), [`GET ${ORDER}/repayment`]: () => ok(COOLING) }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=2`);
    expect(await screen.findByText('Anda dapat membatalkan pinjaman ini sampai 30 Nov 2026, tanpa denda.')).toBeInTheDocument();
    expect(screen.getByText('Bunga untuk 2 hari terpakai').nextSibling).toHaveTextContent('+ Rp 20');
  });
});

describe('a UTR being verified', () => {
  it('shows the UTR, the amount and the day it is checked by, and corrects a mistyped UTR', async () => {
    let answer = VERIFYING;
    const api = fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(answer),
      'PUT /api/v1/borrower/payments/pay-9/utr': () => {
        answer = { ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, utr: '712345678902', correctionsLeft: 2 } };
        return ok(PAYMENT_VERIFYING);
      },
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('We got UTR 7123 4567 8901 for ₹6,891.')).toBeInTheDocument();
    expect(screen.getByText('Finance checks it by 29 Dec 2026. Your loan updates when it is confirmed.')).toBeInTheDocument();
    // While verifying, no Pay button.
    expect(screen.queryByRole('link', { name: /^Pay / })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Wrong UTR? Change it' }));
    expect(screen.getByText('You can change it 3 more times.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('The correct UTR'), '1234');
    await user.click(screen.getByRole('button', { name: 'Save the correct UTR' }));
    expect(screen.getByText('12 digits', { selector: '.field__error' })).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/v1/borrower/payments/pay-9/utr')).toHaveLength(0);
    await user.clear(screen.getByLabelText('The correct UTR'));
    await user.type(screen.getByLabelText('The correct UTR'), '712345678902');
    await user.click(screen.getByRole('button', { name: 'Save the correct UTR' }));
    expect(await screen.findByText('UTR changed to 7123 4567 8902.')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/v1/borrower/payments/pay-9/utr').map((c) => c.body)).toEqual([{ utr: '712345678902' }]);
    await waitFor(() => expect(screen.getByText('We got UTR 7123 4567 8902 for ₹6,891.')).toBeInTheDocument());
  });

  it('the payment’s own page draws the waiting UTR’s card with the page, never after it', async () => {
    let answerRepayment: (answer: Response) => void = () => {};
    const api = fakeApi({
      'GET /api/v1/borrower/payments/pay-9': () => ok(PAYMENT_VERIFYING),
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => new Promise<Response>((resolve) => (answerRepayment = resolve)),
    });
    api.signIn();
    renderBorrower('/app/payments/pay-9?lang=1');
    // The loan (for its amounts) and its repayment are asked side by side, and nothing is drawn until both answered.
    await waitFor(() => expect(api.callsTo('GET', `${ORDER}/repayment`)).toHaveLength(1));
    await waitFor(() => expect(api.callsTo('GET', ORDER)).toHaveLength(1));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryAllByText(/Transfer reported/)).toEqual([]);
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    await act(async () => answerRepayment(ok({ ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, utr: '712345678902' } })));
    // The payment's status and the card come in the same drawing.
    await waitFor(() => expect(screen.queryAllByText(/Transfer reported/).length).toBeGreaterThan(0));
    expect(screen.getByText('We got UTR 7123 4567 8902 for ₹6,891.')).toBeInTheDocument();
    expect(api.callsTo('GET', `${ORDER}/repayment`)).toHaveLength(1);
  });

  it('opened from a link, the payment’s page turns to "verifying" with the UTR’s card when the UTR is sent, without "Loading…"', async () => {
    let sent = false;
    let answerRepayment: (answer: Response) => void = () => {};
    const api = fakeApi({
      'GET /api/v1/borrower/payments/pay-9': () => ok({ ...PAYMENT_VERIFYING, status: 'pending', utr: null }),
      'POST /api/v1/borrower/payments/pay-9/utr': () => {
        sent = true;
        return ok(PAYMENT_VERIFYING);
      },
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }),
      // Before the UTR the loan waits for nothing; after it, its answer names the UTR and comes when the test says.
      [`GET ${ORDER}/repayment`]: () =>
        sent
          ? new Promise<Response>((resolve) => (answerRepayment = resolve))
          : ok(OVERDUE),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/payments/pay-9?lang=1');
    await user.type(await screen.findByLabelText('UTR'), '712345678902');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    await waitFor(() => expect(api.callsTo('GET', `${ORDER}/repayment`)).toHaveLength(2));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    // While the loan's answer is on its way the form stays, and nothing says "Loading…" or "verifying" yet.
    expect(screen.queryByText('Loading…')).not.toBeInTheDocument();
    expect(screen.getByLabelText('UTR')).toBeInTheDocument();
    expect(screen.queryAllByText(/Transfer reported/)).toEqual([]);
    await act(async () => answerRepayment(ok({ ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, utr: '712345678902' } })));
    // Then the status and the card in the same drawing.
    await waitFor(() => expect(screen.queryAllByText(/Transfer reported/).length).toBeGreaterThan(0));
    expect(screen.getByText('We got UTR 7123 4567 8902 for ₹6,891.')).toBeInTheDocument();
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
  });

  it('a UTR sent again after a lost answer shows the payment "verifying" at once, not "no longer takes a UTR"', async () => {
    // The first send was recorded but its answer never came: the corrected send is refused, the payment is verifying.
    let recorded = false;
    const api = fakeApi({
      'GET /api/v1/borrower/payments/pay-9': () => ok(recorded ? PAYMENT_VERIFYING : { ...PAYMENT_VERIFYING, status: 'pending', utr: null }),
      'POST /api/v1/borrower/payments/pay-9/utr': () => {
        recorded = true;
        return refusal(409, 'payment_not_open', 'This payment no longer takes a UTR.');
      },
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(recorded ? { ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, utr: '712345678902' } } : OVERDUE),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/payments/pay-9?lang=1');
    await user.type(await screen.findByLabelText('UTR'), '712345678902');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    // At once: well before the next 15-second poll.
    expect(await screen.findByText('We got UTR 7123 4567 8902 for ₹6,891.', {}, { timeout: 2000 })).toBeInTheDocument();
    expect(screen.queryAllByText(/Transfer reported/).length).toBeGreaterThan(0);
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
    expect(screen.queryByText('This payment no longer takes a UTR.')).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/payments/pay-9')).toHaveLength(2);
  });

  it('after a UTR send whose answer was lost, reads the payment again and shows it verifying if the server got it', async () => {
    let recorded = false;
    const api = fakeApi({
      'GET /api/v1/borrower/payments/pay-9': () => ok(recorded ? PAYMENT_VERIFYING : { ...PAYMENT_VERIFYING, status: 'pending', utr: null }),
      'POST /api/v1/borrower/payments/pay-9/utr': () => {
        recorded = true;
        return Promise.reject(new TypeError('Failed to fetch'));
      },
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(recorded ? { ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, utr: '712345678902' } } : OVERDUE),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/payments/pay-9?lang=1');
    await user.type(await screen.findByLabelText('UTR'), '712345678902');
    await user.click(screen.getByRole('button', { name: 'Submit UTR' }));
    expect(await screen.findByText('We got UTR 7123 4567 8902 for ₹6,891.', {}, { timeout: 2000 })).toBeInTheDocument();
    expect(screen.queryByLabelText('UTR')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/payments/pay-9')).toHaveLength(2);
  });

  it('says why when finance acted first', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_ID, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok(VERIFYING),
      'PUT /api/v1/borrower/payments/pay-9/utr': () =>
        refusal(409, 'utr_locked', 'Finance has already checked this payment, so its UTR can no longer be changed.'),
    }).signIn();
    const user = userEvent.setup();
    renderBorrower(`/app/orders/${NO}?lang=2`);
    expect(await screen.findByText('Kami menerima UTR 7123 4567 8901 untuk Rp 6.891.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'UTR salah? Ubah' }));
    await user.type(screen.getByLabelText('UTR yang benar'), '712345678902');
    await user.click(screen.getByRole('button', { name: 'Simpan UTR yang benar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Finance has already checked this payment');
  });

  it('offers no correction once none is left', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DISBURSED, status: 'overdue' }),
      [`GET ${ORDER}/repayment`]: () => ok({ ...VERIFYING, verifyingPayment: { ...VERIFYING.verifyingPayment, correctionsLeft: 0 } }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText(/The UTR cannot be changed here any more/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Wrong UTR? Change it' })).not.toBeInTheDocument();
  });
});

describe('a virtual account (Indonesia)', () => {
  const VA_PAYMENT = {
    ...PAYMENT_VERIFYING,
    paymentId: 'pay-va',
    method: 'virtual_account',
    status: 'pending',
    utr: null,
    currency: 'IDR',
    amount: 318000000,
    instructions: {
      method: 'virtual_account',
      payeeName: 'PT Kilat Finansial Indonesia',
      collectsFor: 'PT Kilat Dana Indonesia',
      upiId: null,
      upiUri: null,
      bankName: null,
      accountNumber: null,
      ifsc: null,
      bankCode: 'BCA',
      virtualAccount: '8808467830857819',
      channels: [],
      expiresAt: Date.UTC(2030, 10, 27, 19, 20),
    },
  };

  it('names the collecting company, groups the number, copies digits only, shows the expiry and the steps', async () => {
    fakeApi({ 'GET /api/v1/borrower/payments/pay-va': () => ok(VA_PAYMENT) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/payments/pay-va?lang=2');
    expect(await screen.findByText('8808 4678 3085 7819')).toBeInTheDocument();
    expect(screen.getByText('Nama yang tampil di aplikasi bank Anda')).toBeInTheDocument();
    expect(
      screen.getByText(
        'PT Kilat Finansial Indonesia menerima pembayaran untuk PT Kilat Dana Indonesia, pemberi pinjaman Anda. Aplikasi bank Anda menampilkan nama ini: rekeningnya benar.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText(/^Bayar sebelum 28 Nov 2030,? 02\.20 WIB$/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Salin Nomor virtual account' }));
    expect(await navigator.clipboard.readText()).toBe('8808467830857819');
    expect(screen.getByText('BCA mobile (m-BCA)')).toBeInTheDocument();
    expect(screen.getByText('ATM BCA')).toBeInTheDocument();
    expect(screen.getByText('KlikBCA (internet banking)')).toBeInTheDocument();
    expect(screen.getByText('Masukkan nomor virtual account 8808 4678 3085 7819, lalu pilih OK.')).toBeInTheDocument();
  });

  it('groups digits in fours whatever the input', () => {
    expect(groupedDigits('8808467830857819')).toBe('8808 4678 3085 7819');
    expect(groupedDigits('8808-4678 3085')).toBe('8808 4678 3085');
  });
});

describe('closed and rejected loans', () => {
  const PLAN_EXITED = {
    orderNo: NO,
    status: 'exited_in_cooling_off',
    currency: 'INR',
    payoutDate: '2026-11-27',
    today: '2026-11-29',
    principal: 1000000,
    paidOut: 976400,
    feesKept: 0,
    feesRefunded: 23600,
    paidInAll: 978400,
    due: buckets(1000000, 2000),
    paid: buckets(1000000, 2000),
    outstanding: buckets(0, 0),
    extensionsGranted: 0,
    verifying: false,
    closedBy: 'cooling_off_exit',
    installments: [],
  };

  it('the list shows what an exited loan cost, not the plan’s total', async () => {
    fakeApi({
      'GET /api/v1/borrower/orders': () => ok([{ ...ORDER_SUMMARY, status: 'exited_in_cooling_off' }, OLDER_ORDER]),
      [`GET ${ORDER}/plan`]: () => ok(PLAN_EXITED),
      'GET /api/v1/borrower/orders/KL-260901-AAAAAA/plan': () => ok({ ...PLAN_EXITED, status: 'repaid', closedBy: null, feesKept: 35000, feesRefunded: 0, paidInAll: 1075261 }),
    }).signIn();
    renderBorrower('/app/orders?lang=1');
    const card = (await screen.findByRole('link', { name: /Flexi 6 Weeks/ })).closest('article')!;
    await waitFor(() => expect(within(card).getByText('What you paid').nextSibling).toHaveTextContent('₹9,784'));
    expect(within(card).queryByText('Total you repay')).not.toBeInTheDocument();
    const older = screen.getByRole('link', { name: /Flexi EMI/ }).closest('article')!;
    await waitFor(() => expect(within(older).getByText('What you paid').nextSibling).toHaveTextContent('₹10,752.61'));
  });

  it('a repaid loan’s page shows the fee taken at payout and the schedule as planned, all paid', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_WHOLE, status: 'repaid' }),
      [`GET ${ORDER}/plan`]: () => ok({ ...PLAN_EXITED, status: 'repaid', closedBy: null, feesKept: 59000, feesRefunded: 0, paidInAll: 2089600, paid: buckets(2000000, 49600, 0, 40000) }),
      [`GET ${ORDER}/payments`]: () => ok([]),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText('Fee taken from the payout')).toBeInTheDocument();
    expect(screen.getByText('Fee taken from the payout').nextSibling).toHaveTextContent('₹590');
    expect(screen.getByText('Total you paid').nextSibling).toHaveTextContent('₹20,896');
    expect(screen.getByText('The schedule as planned. Every installment is paid: nothing more is due.')).toBeInTheDocument();
  });

  it('a rejected application has no schedule, says when to apply again and how to complain', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DETAIL, status: 'rejected', rejectionReason: 'Income could not be verified.' }),
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    expect(await screen.findByText(/You can apply again now: there is no waiting period/)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Repayment schedule' })).not.toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Think this decision is wrong? Make a complaint' })).toHaveAttribute('href', '/app/complaints/new');
  });

  it('in Indonesian, with the reason the borrower may not apply yet', async () => {
    fakeApi({
      [`GET ${ORDER}`]: () => ok({ ...ORDER_DETAIL, status: 'rejected', rejectionReason: 'Penghasilan tidak dapat diverifikasi.' }),
      'GET /api/v1/borrower/home': () => ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['income_below_minimum'] }),
    }).signIn();
    renderBorrower(`/app/orders/${NO}?lang=2`);
    expect(await screen.findByText('Anda dapat mengajukan lagi setelah hal ini beres:')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Merasa keputusan ini keliru? Ajukan pengaduan' })).toBeInTheDocument();
  });
});
