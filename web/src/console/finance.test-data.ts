// Answers of finance's endpoints as docs/API-CONSOLE.md describes them.
export const APPROVED_AT = Date.UTC(2026, 10, 24, 10, 0);

export const PAYOUTS_IN = [
  {
    orderNo: 'KL-261122-AAAAAA',
    phoneMasked: '+91 ******3210',
    productCode: 'in-flexi-6m',
    productName: 'Flexi EMI',
    termCode: 'm6',
    currency: 'INR',
    amount: 2000000,
    netDisbursed: 1940000,
    approvedAt: APPROVED_AT,
    ageSeconds: 3 * 3600 + 120,
    beneficiary: {
      name: 'Asha Verma',
      bankCode: 'HDFC',
      bankName: 'HDFC Bank',
      accountNumber: '501001234567',
      accountMasked: '**** **** 4567',
      ifsc: 'HDFC0001234',
    },
    needsApproval: false,
    pendingPayout: null as null | { bankReference: string; recordedBy: string; recordedByUsername: string; recordedAt: number },
    inBankFile: null as null | { sentAt: number; sentByUsername: string },
  },
  {
    orderNo: 'KL-261123-BBBBBB',
    phoneMasked: '+91 ******4455',
    productCode: 'in-flexi-14d',
    productName: 'Flexi 6 Weeks',
    termCode: '14dx3',
    currency: 'INR',
    amount: 600000,
    netDisbursed: 588000,
    approvedAt: APPROVED_AT + 3 * 3600 * 1000,
    ageSeconds: 90,
    beneficiary: null,
    needsApproval: true,
    pendingPayout: null as null | { bankReference: string; recordedBy: string; recordedByUsername: string; recordedAt: number },
    inBankFile: null as null | { sentAt: number; sentByUsername: string },
  },
];

function payment(
  id: string,
  status: 'verifying' | 'held' | 'refund_due',
  amount: number,
  utr: string,
  money: { receivedAmount?: number | null; refundAmount?: number | null; receivedCurrency?: string | null } = {},
) {
  return {
    paymentId: id,
    orderNo: 'KL-261120-PAIDXX',
    choice: 'due',
    method: 'upi',
    amount,
    currency: 'INR',
    pricedOn: '2026-11-25',
    status,
    reference: `KP${id.toUpperCase().padEnd(10, '0')}`,
    utr,
    reason: null,
    receivedAmount: money.receivedAmount ?? null,
    receivedCurrency: money.receivedCurrency ?? null,
    refundAmount: money.refundAmount ?? null,
    refundReference: null,
    instructions: { kind: 'upi' },
    createdAt: APPROVED_AT,
  };
}

/** Nobody said they are sending a refund (`refundSendingBy`). */
const NOT_SENDING = { refundSendingBy: null as string | null, refundSendingSince: null as number | null };

/** A UTR to verify (nothing received recorded yet), and ₹3,000 held against ₹3,500 asked. */
export const PAYMENTS = [
  { payment: payment('pay1', 'verifying', 350025, '700000000001'), market: 'IN', currency: 'INR', outstanding: 2100150, waitingSince: APPROVED_AT, ...NOT_SENDING },
  {
    payment: payment('pay2', 'held', 350000, '700000000002', { receivedAmount: 300000 }),
    market: 'IN',
    currency: 'INR',
    outstanding: 1750125,
    waitingSince: APPROVED_AT,
    ...NOT_SENDING,
  },
];

/** ₹500 received for a loan that owed ₹300 of it: ₹200 to send back. */
export const REFUND_DUE = {
  payment: payment('pay3', 'refund_due', 50000, '700000000003', { receivedAmount: 50000, refundAmount: 20000 }),
  market: 'IN',
  currency: 'INR',
  outstanding: 0,
  ...NOT_SENDING,
};

const b = (principal: number, interest: number, fees = 0, lateCharges = 0) => ({
  principal,
  interest,
  fees,
  lateCharges,
  total: principal + interest + fees + lateCharges,
});
const ZERO = b(0, 0);

/** The loan of KL-261123-BBBBBB after payout and one confirmed repayment of its first installment. */
export const LOAN = {
  payout: { date: '2026-11-25', provider: 'manual', bankReference: 'HDFCN5202611', amount: 582300, at: APPROVED_AT + 7200_000 },
  plan: {
    orderNo: 'KL-261123-BBBBBB',
    status: 'disbursed',
    currency: 'INR',
    payoutDate: '2026-11-25',
    today: '2026-12-09',
    principal: 600000,
    paidOut: 582300,
    due: b(600000, 20160),
    paid: b(200000, 6720),
    outstanding: b(400000, 13440),
    extensionsGranted: 0,
    verifying: false,
    closedBy: null,
    installments: [
      { seq: 1, dueDate: '2026-12-09', plannedDueDate: '2026-12-09', due: b(200000, 6720), paid: b(200000, 6720), outstanding: ZERO, status: 'paid', verifying: false },
      { seq: 2, dueDate: '2026-12-23', plannedDueDate: '2026-12-23', due: b(200000, 6720), paid: ZERO, outstanding: b(200000, 6720), status: 'upcoming', verifying: false },
      { seq: 3, dueDate: '2027-01-06', plannedDueDate: '2027-01-06', due: b(200000, 6720), paid: ZERO, outstanding: b(200000, 6720), status: 'upcoming', verifying: false },
    ],
  },
  payments: [
    { paymentId: 'pay1', choice: 'due', method: 'upi', status: 'confirmed', amount: 206720, receivedAmount: 206720, refundAmount: null, refundReference: null, reference: 'KPPAY1000000', utr: '700000000001', reason: null, createdAt: APPROVED_AT + 9000_000, updatedAt: APPROVED_AT + 9600_000 },
  ],
  ledger: [
    { seq: 0, kind: 'payout', date: '2026-11-25', cash: 582300, excess: 0, refunded: 0, due: b(600000, 20160), paid: ZERO, reverses: null },
    { seq: 1, kind: 'repayment', date: '2026-12-09', cash: 206720, excess: 0, refunded: 0, due: ZERO, paid: b(200000, 6720), reverses: null },
  ],
};

/**
 * The same loan left in cooling-off two days after payout (0.08% a day): the principal and ₹9.60 of interest paid, the
 * ₹177 of fees kept at payout refunded, the rest of the scheduled interest taken off the dues.
 */
export const LOAN_EXITED = {
  ...LOAN,
  plan: {
    ...LOAN.plan,
    status: 'exited_in_cooling_off',
    today: '2026-11-27',
    due: b(600000, 960),
    paid: b(600000, 960),
    outstanding: ZERO,
    closedBy: 'cooling_off_exit',
    installments: [
      { seq: 1, dueDate: '2026-12-09', plannedDueDate: '2026-12-09', due: b(200000, 960), paid: b(200000, 960), outstanding: ZERO, status: 'paid', verifying: false },
      { seq: 2, dueDate: '2026-12-23', plannedDueDate: '2026-12-23', due: b(200000, 0), paid: b(200000, 0), outstanding: ZERO, status: 'paid', verifying: false },
      { seq: 3, dueDate: '2027-01-06', plannedDueDate: '2027-01-06', due: b(200000, 0), paid: b(200000, 0), outstanding: ZERO, status: 'paid', verifying: false },
    ],
  },
  payments: [
    { ...LOAN.payments[0]!, choice: 'cooling_off', amount: 583260, receivedAmount: 583260 },
  ],
  ledger: [
    LOAN.ledger[0]!,
    { seq: 1, kind: 'cooling_off_exit', date: '2026-11-27', cash: 583260, excess: 0, refunded: 17700, due: b(0, -19200), paid: b(600000, 960), reverses: null },
  ],
};
