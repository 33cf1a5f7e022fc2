// Answers of finance's endpoints as docs/API-CONSOLE.md describes them.
const APPROVED_AT = Date.UTC(2026, 10, 24, 10, 0);

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
  },
];

function payment(id: string, status: 'verifying' | 'held', amount: number, utr: string) {
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
    instructions: { kind: 'upi' },
    createdAt: APPROVED_AT,
  };
}

export const PAYMENTS = [
  { payment: payment('pay1', 'verifying', 350025, '700000000001'), market: 'IN', currency: 'INR', outstanding: 2100150 },
  { payment: payment('pay2', 'held', 350000, '700000000002'), market: 'IN', currency: 'INR', outstanding: 1750125 },
];
