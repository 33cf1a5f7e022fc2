// Answers of the console API as docs/API-CONSOLE.md describes them.
const CONFIRMED_AT = Date.UTC(2026, 10, 22, 9, 15);

export const QUEUE_IN = [
  {
    orderNo: 'KL-261122-AAAAAA',
    borrowerId: 'b-1',
    phoneMasked: '+91 ******3210',
    productCode: 'in-flexi-6m',
    productName: 'Flexi EMI',
    termCode: 'm6',
    currency: 'INR',
    amount: 2000000,
    apr: 3212,
    aprDisplay: '32.12%',
    createdAt: CONFIRMED_AT,
    ageSeconds: 26 * 3600 + 5 * 60,
    claim: null,
  },
  {
    orderNo: 'KL-261123-BBBBBB',
    borrowerId: 'b-2',
    phoneMasked: '+91 ******4455',
    productCode: 'in-flexi-14d',
    productName: 'Flexi 6 Weeks',
    termCode: '14dx3',
    currency: 'INR',
    amount: 600000,
    apr: 8387,
    aprDisplay: '83.87%',
    createdAt: CONFIRMED_AT + 26 * 3600 * 1000,
    ageSeconds: 4 * 60 + 10,
    claim: { operatorId: 'op-other', username: 'farah', until: CONFIRMED_AT + 27 * 3600 * 1000 },
  },
];

export const QUEUE_ID = [
  {
    orderNo: 'KL-261123-CCCCCC',
    borrowerId: 'b-3',
    phoneMasked: '+62 ******2222',
    productCode: 'id-kilat-30',
    productName: 'Kilat 30',
    termCode: '30d',
    currency: 'IDR',
    amount: 100000000,
    apr: 10007,
    aprDisplay: '100.07%',
    createdAt: CONFIRMED_AT,
    ageSeconds: 40,
    claim: null,
  },
];

export const KFS_IN = {
  version: 2,
  contentHash: '6ac7be4a95d9954413bf013133ce615d2a819161f00d6a9ca19579718eab252d',
  lender: {
    name: 'Kilat Finance Private Limited (NBFC)',
    licence: 'RBI registration N-14.03268',
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

const CERTIFICATION = (unmasked: boolean) => [
  {
    step: 'base',
    completedAt: CONFIRMED_AT - 3600_000,
    data: { fullName: 'Asha Verma', dateOfBirth: '1994-03-02', gender: 'female', idNumber: unmasked ? 'ABCPE1234F' : '******234F' },
  },
  {
    step: 'job',
    completedAt: CONFIRMED_AT - 3000_000,
    data: { employerName: 'Infosys', employmentType: 'salaried', income: 4500000, payDay: 1 },
  },
  {
    step: 'bank',
    completedAt: CONFIRMED_AT - 2400_000,
    data: { bankCode: 'HDFC', accountNumber: unmasked ? '501001234567' : '**** **** 4567', ifsc: 'HDFC0001234' },
  },
];

/** The borrower's whole picture as the order view gives it (India: a month's income stored). */
export const PICTURE_IN = {
  age: 32,
  income: { currency: 'INR', monthly: 4500000, yearly: 54000000, minimumMonthly: 1200000, minimumYearly: 14400000 },
  labels: { gender: 'Female', employmentType: 'Salaried (private company)', bank: 'HDFC Bank', city: 'Mumbai', region: 'Maharashtra' },
};

export const DUPLICATES = [
  { field: 'idNumber', kind: 'id', otherBorrowerId: 'b-9', otherField: 'idNumber', otherOrderNo: 'KL-261101-ZZZZZZ', otherMarket: 'IN' },
  { field: 'contact1Phone', kind: 'phone', otherBorrowerId: 'b-8', otherField: 'phone', otherOrderNo: null, otherMarket: 'IN' },
];

export const HISTORY = [
  { orderNo: 'KL-261001-OLDONE', productName: 'Flexi EMI', currency: 'INR', amount: 1000000, status: 'repaid', createdAt: CONFIRMED_AT - 50 * 86400_000, closedAt: CONFIRMED_AT - 10 * 86400_000, daysLate: 3 },
  { orderNo: 'KL-260901-OLDTWO', productName: 'Flexi 6 Weeks', currency: 'INR', amount: 500000, status: 'rejected', createdAt: CONFIRMED_AT - 80 * 86400_000, closedAt: CONFIRMED_AT - 80 * 86400_000, daysLate: 0 },
];

export function consoleOrder(options: {
  unmasked: boolean;
  status?: string;
  reviewReason?: string | null;
  reviewNote?: string | null;
  duplicates?: unknown[];
  history?: unknown[];
  claim?: { operatorId: string; username: string; until: number } | null;
}) {
  const status = options.status ?? 'pending_review';
  const timeline = [{ status: 'pending_review', event: null, actor: 'borrower', at: CONFIRMED_AT }];
  if (status !== 'pending_review') timeline.push({ status, event: status === 'approved' ? 'approve' : 'reject', actor: 'operator', at: CONFIRMED_AT + 600_000 } as never);
  return {
    order: {
      orderNo: 'KL-261123-BBBBBB',
      status,
      productCode: 'in-flexi-14d',
      productName: 'Flexi 6 Weeks',
      amount: 600000,
      termCode: '14dx3',
      netDisbursed: 582300,
      totalRepayable: 620160,
      apr: 8387,
      aprDisplay: '83.87%',
      currency: 'INR',
      createdAt: CONFIRMED_AT,
      acceptedAt: CONFIRMED_AT,
      kfs: KFS_IN,
      rejectionReason: status === 'rejected' ? (options.reviewReason ?? null) : null,
      timeline: timeline.map(({ status: s, at }) => ({ status: s, at })),
    },
    timeline,
    reviewReason: options.reviewReason ?? null,
    borrowerId: 'b-2',
    phoneMasked: '+91 ******4455',
    certification: CERTIFICATION(options.unmasked),
    unmasked: options.unmasked,
    reviewNote: options.reviewNote ?? null,
    picture: PICTURE_IN,
    duplicates: options.duplicates ?? [],
    history: options.history ?? [],
    claim: options.claim ?? null,
    loan: null,
  };
}

export const AUDIT_ENTRIES = [
  {
    id: 'a-2',
    actorKind: 'operator',
    actorId: 'op-rev',
    actorName: 'rita',
    action: 'order.approve',
    entity: 'order',
    entityId: 'o-2',
    orderNo: 'KL-261123-BBBBBB',
    currency: 'INR',
    before: { status: 'pending_review', amount: 2000000 },
    after: { status: 'approved', amount: 2500000 },
    changes: [
      { field: 'status', before: 'pending_review', after: 'approved' },
      { field: 'amount', before: 2000000, after: 2500000 },
    ],
    at: CONFIRMED_AT + 600_000,
  },
  {
    id: 'a-1',
    actorKind: 'operator',
    actorId: 'op-rev',
    actorName: 'rita',
    action: 'view_unmasked',
    entity: 'order',
    entityId: 'o-2',
    orderNo: 'KL-261123-BBBBBB',
    currency: 'INR',
    before: null,
    after: null,
    changes: [],
    at: CONFIRMED_AT + 300_000,
  },
];
