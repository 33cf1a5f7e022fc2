// What the certification API answers (docs/API-BORROWER.md), for the screens' tests.
import type { Certification, CertificationLogEntry, CertStep } from '../../api/certification';
import type { Cities, Enums } from '../../api/reference-data';

export const ENUMS_IN: Enums = {
  market: 'IN',
  gender: [
    { code: 'male', label: 'Male' },
    { code: 'female', label: 'Female' },
    { code: 'other', label: 'Other' },
  ],
  education: [
    { code: 'secondary', label: 'Secondary school' },
    { code: 'graduate', label: 'Graduate' },
  ],
  maritalStatus: [
    { code: 'single', label: 'Single' },
    { code: 'married', label: 'Married' },
  ],
  residenceType: [
    { code: 'owned', label: 'Owned' },
    { code: 'rented', label: 'Rented' },
  ],
  employmentType: [
    { code: 'salaried', label: 'Salaried' },
    { code: 'self_employed', label: 'Self-employed' },
  ],
  relation: [
    { code: 'parent', label: 'Parent' },
    { code: 'sibling', label: 'Brother or sister' },
    { code: 'friend', label: 'Friend' },
  ],
  banks: [
    { code: 'HDFC', label: 'HDFC Bank', ifscPrefix: 'HDFC' },
    { code: 'SBIN', label: 'State Bank of India', ifscPrefix: 'SBIN' },
  ],
  incomePeriod: 'month',
  minIncome: 1200000,
  idNumber: { kind: 'pan', pattern: '^[A-Z]{3}P[A-Z][0-9]{4}[A-Z]$', example: 'ABCPE1234F' },
  postalCode: { digits: 6 },
  accountNumber: { minDigits: 9, maxDigits: 18 },
  ifscRequired: true,
};

export const ENUMS_ID: Enums = {
  market: 'ID',
  gender: [
    { code: 'male', label: 'Laki-laki' },
    { code: 'female', label: 'Perempuan' },
  ],
  education: [{ code: 'sma', label: 'SMA/SMK' }],
  maritalStatus: [{ code: 'single', label: 'Belum menikah' }],
  residenceType: [{ code: 'owned', label: 'Milik sendiri' }],
  employmentType: [{ code: 'salaried', label: 'Karyawan' }],
  relation: [
    { code: 'parent', label: 'Orang tua' },
    { code: 'spouse', label: 'Suami/istri' },
  ],
  // Indonesian banks have no IFSC: the server leaves `ifscPrefix` out.
  banks: [{ code: 'BCA', label: 'Bank Central Asia' } as Enums['banks'][number]],
  incomePeriod: 'year',
  minIncome: 500000000,
  idNumber: { kind: 'nik', pattern: '^[1-9][0-9]{15}$', example: '3171234567890001' },
  postalCode: { digits: 5 },
  accountNumber: { minDigits: 10, maxDigits: 16 },
  ifscRequired: false,
};

export const CITIES_IN: Cities = {
  market: 'IN',
  regions: [
    {
      code: 'MH',
      name: 'Maharashtra',
      cities: [
        { code: 'MH-MUM', name: 'Mumbai' },
        { code: 'MH-PUN', name: 'Pune' },
      ],
    },
    {
      code: 'KA',
      name: 'Karnataka',
      cities: [
        { code: 'KA-BLR', name: 'Bengaluru' },
        { code: 'KA-MYS', name: 'Mysuru' },
      ],
    },
  ],
};

export const CITIES_ID: Cities = {
  market: 'ID',
  regions: [{ code: 'JK', name: 'DKI Jakarta', cities: [{ code: 'JK-JKS', name: 'Jakarta Selatan' }] }],
};

/** Noon UTC, so the day is the same in every time zone the tests may run in. */
export const AT_BASE = Date.UTC(2026, 10, 22, 12, 0);
export const AT_PERSONAL = Date.UTC(2026, 10, 22, 12, 30);
export const AT_BASE_AGAIN = Date.UTC(2026, 10, 23, 12, 0);

/** The statuses when the steps before `next` are done. */
export function certificationUpTo(next: CertStep | null): Certification {
  const order: CertStep[] = ['base', 'personal', 'job', 'extended', 'bank'];
  const doneCount = next === null ? order.length : order.indexOf(next);
  return {
    steps: order.map((step, index) => ({
      step,
      certStatus: index < doneCount ? 'done' : 'todo',
      completedAt: index < doneCount ? AT_BASE + index * 60_000 : null,
    })),
    complete: next === null,
    next,
  };
}

export const LOG: CertificationLogEntry[] = [
  { step: 'base', event: 'completed', at: AT_BASE },
  { step: 'personal', event: 'completed', at: AT_PERSONAL },
  { step: 'base', event: 'updated', at: AT_BASE_AGAIN },
];
