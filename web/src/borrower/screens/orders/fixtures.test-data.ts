// Answers of the orders API as docs/API-BORROWER.md describes them.
import { KFS_ID, KFS_IN, KFS_IN_EMI, KFS_IN_WHOLE } from '../products/fixtures.test-data';

export const ORDER_SUMMARY = {
  orderNo: 'KL-261123-7F3K9Q',
  status: 'pending_review',
  productName: 'Flexi 6 Weeks',
  amount: 600000,
  termCode: '14dx3',
  netDisbursed: 582300,
  totalRepayable: 620160,
  apr: 8387,
  aprDisplay: '83.87%',
  currency: 'INR',
  createdAt: Date.UTC(2026, 10, 22, 9, 15),
};

export const OLDER_ORDER = {
  ...ORDER_SUMMARY,
  orderNo: 'KL-260901-AAAAAA',
  status: 'repaid',
  productName: 'Flexi EMI',
  amount: 1000000,
  totalRepayable: 1040261,
  createdAt: Date.UTC(2026, 8, 1, 10, 0),
};

export const ORDER_DETAIL = {
  ...ORDER_SUMMARY,
  kfs: KFS_IN,
  acceptedAt: ORDER_SUMMARY.createdAt,
  rejectionReason: null,
  withdrawalReason: null,
  timeline: [{ status: 'pending_review', at: ORDER_SUMMARY.createdAt }],
};

/** An order that has moved on: approved, then paid out. */
export const ORDER_DISBURSED = {
  ...ORDER_DETAIL,
  status: 'disbursed',
  timeline: [
    { status: 'pending_review', at: ORDER_SUMMARY.createdAt },
    { status: 'approved', at: Date.UTC(2026, 10, 22, 11, 0) },
    { status: 'disbursed', at: Date.UTC(2026, 10, 22, 11, 45) },
  ],
};

/** The Flexi EMI loan of KFS_IN_EMI, paid out: its amounts have paise, so all of them show two decimals. */
export const ORDER_EMI = {
  ...ORDER_DISBURSED,
  productName: 'Flexi EMI',
  productCode: 'in-flexi-6m',
  termCode: 'm3',
  amount: 1000000,
  netDisbursed: 958700,
  totalRepayable: 1040261,
  apr: 5036,
  aprDisplay: '50.36%',
  kfs: KFS_IN_EMI,
};

/** A paid-out loan whose every amount is whole rupees (KFS_IN_WHOLE): no amount of it shows decimals. */
export const ORDER_WHOLE = { ...ORDER_DISBURSED, totalRepayable: 625200, kfs: KFS_IN_WHOLE };

/** An Indonesian loan, paid out: Rp1,000,000 for 30 days (KFS_ID), in whole rupiah. */
export const ORDER_ID = {
  ...ORDER_DISBURSED,
  productName: 'Kilat 30 Hari',
  productCode: 'id-kilat-30',
  termCode: 'd30',
  currency: 'IDR',
  amount: 100000000,
  netDisbursed: 99000000,
  totalRepayable: 106000000,
  apr: 8847,
  aprDisplay: '88.47%',
  kfs: KFS_ID,
};

export const AGREEMENT = {
  agreementHash: 'a6'.repeat(32),
  orderNo: ORDER_SUMMARY.orderNo,
  title: 'Loan agreement KL-261123-7F3K9Q',
  acceptedAt: ORDER_SUMMARY.createdAt,
  lender: KFS_IN.lender,
  borrower: {
    fullName: 'Asha Verma',
    idNumberMasked: '******234F',
    address: '12 MG Road, Bengaluru 560001',
    phoneMasked: '+91 ******3210',
    bankAccountMasked: '**** **** 4321',
    bankName: 'HDFC Bank',
  },
  kfs: KFS_IN,
  clauses: [
    { heading: 'The loan', text: 'The lender lends the borrower the amount sanctioned in the Key Fact Statement.' },
    { heading: 'Cooling-off', text: 'For 3 days after disbursal the borrower may leave the loan with no charge but the interest for the days used.' },
  ],
};

/** The agreement shown before confirming (`POST /apply/agreement`): no order number yet. */
export const AGREEMENT_PREVIEW = {
  ...AGREEMENT,
  orderNo: '',
  title: 'Loan agreement (to accept with the Key Fact Statement)',
  clauses: [
    ...AGREEMENT.clauses,
    { heading: '7. Prepayment', text: 'The borrower may repay the whole loan at any time without a prepayment charge.' },
  ],
};

/** A loan paid out, its first installment due. */
export const REPAYMENT_DUE = {
  orderNo: ORDER_SUMMARY.orderNo,
  status: 'disbursed',
  currency: 'INR',
  today: '2026-11-29',
  outstanding: 620000,
  verifying: false,
  choices: [
    { choice: 'due', amount: 207200, installment: 1, dueDate: '2026-12-06' },
    { choice: 'payoff', amount: 405000, installment: null, dueDate: null },
  ],
  arrears: null,
  coolingOff: null,
  verifyingPayment: null,
};

/**
 * The plan (`GET /orders/{orderNo}/plan`) of a loan just paid out on `payoutDate`: its statement's installments, each
 * on its `[dueDate, plannedDueDate]` of `dates` (the due date now, and the one of the schedule moved to the payout day).
 */
export function planOf(
  order: { orderNo: string; status: string; currency: string; kfs: { installments: readonly { number: number; principal: number; interest: number; fees: number }[] } },
  payoutDate: string,
  dates: readonly (readonly [string, string])[],
) {
  const buckets = (principal: number, interest: number, fees: number) => ({ principal, interest, fees, lateCharges: 0, total: principal + interest + fees });
  const ZERO = buckets(0, 0, 0);
  const installments = order.kfs.installments.map((i, index) => ({
    seq: i.number,
    dueDate: dates[index]![0],
    plannedDueDate: dates[index]![1],
    due: buckets(i.principal, i.interest, i.fees),
    paid: ZERO,
    outstanding: buckets(i.principal, i.interest, i.fees),
    status: 'upcoming',
    verifying: false,
  }));
  const sum = (part: 'principal' | 'interest' | 'fees') => order.kfs.installments.reduce((total, i) => total + i[part], 0);
  const due = buckets(sum('principal'), sum('interest'), sum('fees'));
  return {
    orderNo: order.orderNo,
    status: order.status,
    currency: order.currency,
    payoutDate,
    today: payoutDate,
    principal: due.principal,
    paidOut: 0,
    feesKept: 0,
    feesRefunded: 0,
    paidInAll: 0,
    due,
    paid: ZERO,
    outstanding: due,
    extensionsGranted: 0,
    verifying: false,
    closedBy: null,
    installments,
  };
}

/**
 * Confirmed on 2 Nov 2026 (the statement's schedule counts from that day: due 16 Nov, 30 Nov, 14 Dec), reviewed, and
 * paid out two days later, on 4 Nov: the server moved the schedule to 18 Nov, 2 Dec and 16 Dec, the amounts unchanged.
 */
export const ORDER_PAID_OUT_LATER = {
  ...ORDER_DISBURSED,
  createdAt: Date.UTC(2026, 10, 2, 9, 15),
  acceptedAt: Date.UTC(2026, 10, 2, 9, 15),
  kfs: {
    ...KFS_IN,
    disbursalDate: '2026-11-02',
    installments: [
      { ...KFS_IN.installments[0]!, dueDate: '2026-11-16' },
      { ...KFS_IN.installments[1]!, dueDate: '2026-11-30' },
      { ...KFS_IN.installments[2]!, dueDate: '2026-12-14' },
    ],
  },
  timeline: [
    { status: 'pending_review', at: Date.UTC(2026, 10, 2, 9, 15) },
    { status: 'approved', at: Date.UTC(2026, 10, 4, 5, 0) },
    { status: 'disbursed', at: Date.UTC(2026, 10, 4, 6, 0) },
  ],
};
