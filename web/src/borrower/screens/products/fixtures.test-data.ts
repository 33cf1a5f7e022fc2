// Answers of the products and quote API, as the server gives them (copied from a debug server).
export const PRODUCT_IN = {
  code: 'in-flexi-14d',
  name: 'Flexi 6 Weeks',
  currency: 'INR',
  amount: { min: 500000, max: 4000000, step: 100000 },
  terms: [{ code: '14dx3', period: '14d', installments: 3 }],
  interest: { method: 'flat', per: 'day', rate: '0.08%' },
  feesDeductedAtDisbursal: true,
  coolingOffDays: 3,
  sample: { amount: 500000, termCode: '14dx3', netDisbursed: 485250, totalRepayable: 516800, apr: 8388, aprDisplay: '83.88%' },
};

export const PRODUCT_IN_EMI = {
  ...PRODUCT_IN,
  code: 'in-flexi-6m',
  name: 'Flexi EMI',
  amount: { min: 1000000, max: 8000000, step: 100000 },
  terms: [
    { code: 'm3', period: 'monthly', installments: 3 },
    { code: 'm6', period: 'monthly', installments: 6 },
  ],
  interest: { method: 'reducing', per: 'year', rate: '24%' },
  sample: { amount: 1000000, termCode: 'm3', netDisbursed: 958700, totalRepayable: 1040261, apr: 5036, aprDisplay: '50.36%' },
};

export const PRODUCT_ID = {
  code: 'id-kilat-30',
  name: 'Kilat 30',
  currency: 'IDR',
  amount: { min: 100000000, max: 500000000, step: 50000000 },
  terms: [
    { code: '14d', period: '14d', installments: 1 },
    { code: '30d', period: '30d', installments: 1 },
  ],
  interest: { method: 'flat', per: 'day', rate: '0.2%' },
  feesDeductedAtDisbursal: true,
  coolingOffDays: 3,
  sample: { amount: 100000000, termCode: '14d', netDisbursed: 99000000, totalRepayable: 102800000, apr: 10007, aprDisplay: '100.07%' },
};

/** The KFS of ₹6,000 over 14 days × 3. */
export const KFS_IN = {
  version: 1,
  contentHash: '6ac7be4a95d9954413bf013133ce615d2a819161f00d6a9ca19579718eab252d',
  lender: {
    name: 'Kilat Finance Private Limited (NBFC)',
    grievanceOfficer: { name: 'Priya Raman', email: 'grievance@kilat.example', phone: '+91 80 4000 1299' },
  },
  market: 'IN',
  currency: 'INR',
  productCode: 'in-flexi-14d',
  productName: 'Flexi 6 Weeks',
  termCode: '14dx3',
  interest: { rate: '0.08%', per: 'day', method: 'flat' },
  sanctionedAmount: 600000,
  disbursalDate: '2026-11-22',
  fees: [{ name: 'Processing fee', amount: 15000, tax: 2700, total: 17700 }],
  totalFees: 17700,
  feesDeductedAtDisbursal: true,
  netDisbursed: 582300,
  totalInterest: 20160,
  totalRepayable: 620160,
  installments: [
    { number: 1, dueDate: '2026-12-06', principal: 199980, interest: 6720, fees: 0, amount: 206700 },
    { number: 2, dueDate: '2026-12-20', principal: 199980, interest: 6720, fees: 0, amount: 206700 },
    { number: 3, dueDate: '2027-01-03', principal: 200040, interest: 6720, fees: 0, amount: 206760 },
  ],
  apr: 8387,
  aprDisplay: '83.87%',
  lateCharge: { flat: 40000, perDay: 0, maxDays: 0 },
  maxLateCharges: 120000,
  coolingOffDays: 3,
  extension: { days: 7, feePercent: '2%', feeFixed: 0, maxExtensions: 1 },
};

/** The same statement as version 3 seals it: with the prepayment terms. */
export const KFS_IN_V3 = {
  ...KFS_IN,
  version: 3,
  prepayment:
    'You may repay the whole loan at any time without a prepayment charge: you pay the outstanding principal, fees and late charges, the interest of every installment already due, and for the installment whose period is running only the interest for the days used; installments whose period has not started carry no interest, and interest paid in advance for days not used is credited.',
};

/** The same statement as version 4 seals it: with one extension priced, 2% of ₹6,000 = ₹120 + GST ₹21.60. */
export const KFS_IN_V4 = {
  ...KFS_IN_V3,
  version: 4,
  extensionFee: { name: 'Extension fee', amount: 12000, tax: 2160, total: 14160 },
};

/** An Indonesian version-3 statement: Rp1,000,000 for 30 days at 0.2% a day with a 1% fee, and its daily cost. */
export const KFS_ID = {
  version: 3,
  contentHash: '9b0f6c1e2d3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  lender: {
    name: 'PT Kilat Dana Indonesia',
    licence: 'Berizin dan diawasi oleh OJK (contoh)',
    grievanceOfficer: { name: 'Dewi Lestari', email: 'pengaduan@kilat.example', phone: '+62 21 5000 1299' },
  },
  market: 'ID',
  currency: 'IDR',
  productCode: 'id-kilat-30',
  productName: 'Kilat 30 Hari',
  termCode: 'd30',
  interest: { rate: '0.2%', per: 'day', method: 'flat' },
  sanctionedAmount: 100000000,
  disbursalDate: '2026-11-22',
  fees: [{ name: 'Biaya layanan', amount: 1000000, tax: 0, total: 1000000 }],
  totalFees: 1000000,
  feesDeductedAtDisbursal: true,
  netDisbursed: 99000000,
  totalInterest: 6000000,
  totalRepayable: 106000000,
  installments: [{ number: 1, dueDate: '2026-12-22', principal: 100000000, interest: 6000000, fees: 0, amount: 106000000 }],
  apr: 8847,
  aprDisplay: '88.47%',
  lateCharge: { flat: 5000000, perDay: 0, maxDays: 0 },
  maxLateCharges: 5000000,
  coolingOffDays: 3,
  extension: null,
  prepayment: KFS_IN_V3.prepayment,
  dailyCost: { days: 30, cost: 7000000, perDay: 233334, rate: '0.2333334%', cap: '0.3%', limit: 9000000 },
};

/** An Indonesian version-4 statement of a product with an extension: 7 days for 1% (Rp10.000), at most twice. */
export const KFS_ID_V4 = {
  ...KFS_ID,
  version: 4,
  extension: { days: 7, feePercent: '1%', feeFixed: 0, maxExtensions: 2 },
  extensionFee: { name: 'Extension fee', amount: 1000000, tax: 0, total: 1000000 },
};

/**
 * Flexi EMI, ₹10,000 over 3 months at 24% a year on the reducing balance: the installments rounded up to the rupee and
 * the last one taking the rest (₹3,468, ₹3,468, ₹3,466.61), so the loan's amounts have paise.
 */
export const KFS_IN_EMI = {
  ...KFS_IN_V4,
  productCode: 'in-flexi-6m',
  productName: 'Flexi EMI',
  termCode: 'm3',
  interest: { rate: '24%', per: 'year', method: 'reducing' },
  sanctionedAmount: 1000000,
  disbursalDate: '2026-11-27',
  fees: [{ name: 'Processing fee', amount: 35000, tax: 6300, total: 41300 }],
  totalFees: 41300,
  netDisbursed: 958700,
  totalInterest: 40261,
  totalRepayable: 1040261,
  installments: [
    { number: 1, dueDate: '2026-12-27', principal: 326800, interest: 20000, fees: 0, amount: 346800 },
    { number: 2, dueDate: '2027-01-27', principal: 333336, interest: 13464, fees: 0, amount: 346800 },
    { number: 3, dueDate: '2027-02-27', principal: 339864, interest: 6797, fees: 0, amount: 346661 },
  ],
  apr: 5036,
  aprDisplay: '50.36%',
  extensionFee: { name: 'Extension fee', amount: 20000, tax: 3600, total: 23600 },
};

/** ₹6,000 over 14 days × 3 at 0.1% a day, flat: every amount of the loan in whole rupees. */
export const KFS_IN_WHOLE = {
  ...KFS_IN_V4,
  interest: { rate: '0.1%', per: 'day', method: 'flat' },
  totalInterest: 25200,
  totalRepayable: 625200,
  installments: [
    { number: 1, dueDate: '2026-12-06', principal: 200000, interest: 8400, fees: 0, amount: 208400 },
    { number: 2, dueDate: '2026-12-20', principal: 200000, interest: 8400, fees: 0, amount: 208400 },
    { number: 3, dueDate: '2027-01-03', principal: 200000, interest: 8400, fees: 0, amount: 208400 },
  ],
};
