// Each certification step's form: its values as typed, how they come from the saved (masked) step, the
// checks that mirror the server's (docs/API-BORROWER.md, "POST /certification/{step}"), and the body sent.
// Pure functions, so the rules are tested without rendering.
import type { TFunction } from 'i18next';
import type { Market } from '@/shared/market/market';
import { checkPhone, formatPhoneInput } from '@/shared/phone/phone';
import type { BankInfo, BaseInfo, CertStep, ExtendedInfo, JobInfo, PersonalInfo, StepData } from '../../api/certification';
import type { Cities, Enums, EnumOption } from '../../api/reference-data';
import { isMasked } from '../../ui/masked-value';
import { toMinorUnits } from '../../ui/money-input';

export const MIN_AGE = 18;
export const MAX_AGE = 65;

export interface FormValues {
  base: { fullName: string; dateOfBirth: string; gender: string; idNumber: string };
  personal: { education: string; maritalStatus: string; residenceType: string; regionCode: string; cityCode: string; address: string; postalCode: string };
  /** `income` a month, in whole rupees or rupiah as typed (see `incomeForRule`); `payDay` as typed. */
  job: { employmentType: string; employerName: string; income: string; payDay: string };
  /** Phones as shown in their fields (`98765 43210`). */
  extended: {
    contact1Name: string;
    contact1Relation: string;
    contact1Phone: string;
    contact2Name: string;
    contact2Relation: string;
    contact2Phone: string;
    consent: boolean;
  };
  /** `verificationCode`: the code sent to the borrower's phone, asked when an account on file changes. */
  bank: { bankCode: string; accountNumber: string; accountNumberConfirm: string; ifsc: string; verificationCode: string };
}

export type FieldName<S extends CertStep> = keyof FormValues[S] & string;
export type FieldErrors<S extends CertStep> = Partial<Record<FieldName<S>, string>>;

/**
 * Income is asked per month in both markets, as people quote it; India's rule counts it a month, Indonesia's a year
 * (`enums.incomePeriod`), so the Indonesian figure is multiplied by 12 before it is sent: exact in integers.
 */
export function monthsInIncomePeriod(enums: Pick<Enums, 'incomePeriod'>): 1 | 12 {
  return enums.incomePeriod === 'year' ? 12 : 1;
}

/** The income the rule counts (minor units per `enums.incomePeriod`) from the monthly figure typed; null if none. */
export function incomeForRule(monthlyWholeDigits: string, enums: Pick<Enums, 'incomePeriod'>): number | null {
  const monthly = toMinorUnits(monthlyWholeDigits);
  return monthly === null ? null : monthly * monthsInIncomePeriod(enums);
}

/**
 * The monthly figure, in whole units, of a stored income: a yearly one is divided by 12, rounded half up to the
 * whole rupiah (a figure saved by this form is a multiple of 12 and comes back exactly).
 */
export function monthlyIncomeDigits(stored: number, enums: Pick<Enums, 'incomePeriod'>): string {
  if (!Number.isSafeInteger(stored) || stored < 0) return '';
  const months = BigInt(monthsInIncomePeriod(enums));
  const wholeUnits = (BigInt(stored) + 50n * months) / (100n * months);
  return wholeUnits.toString();
}

/** The least monthly income, in minor units, that meets the minimum (rounded up to the minor unit). */
export function minimumMonthlyIncome(enums: Pick<Enums, 'incomePeriod' | 'minIncome'>): number {
  const months = monthsInIncomePeriod(enums);
  return Math.ceil(enums.minIncome / months);
}

/** Each step's fields in the order they appear: the first one at fault gets the focus. */
export const FIELD_ORDER: { [S in CertStep]: FieldName<S>[] } = {
  base: ['fullName', 'dateOfBirth', 'gender', 'idNumber'],
  personal: ['education', 'maritalStatus', 'residenceType', 'regionCode', 'cityCode', 'address', 'postalCode'],
  job: ['employmentType', 'employerName', 'income', 'payDay'],
  extended: ['contact1Name', 'contact1Relation', 'contact1Phone', 'contact2Name', 'contact2Relation', 'contact2Phone', 'consent'],
  bank: ['bankCode', 'accountNumber', 'accountNumberConfirm', 'ifsc', 'verificationCode'],
};

/** What the checks need besides the values. */
export interface Rules {
  t: TFunction;
  market: Market;
  enums: Enums;
  cities?: Cities;
  /** Today, for the age limits. */
  today: Date;
}

/** Text as the server keeps it: trimmed, inner runs of spaces made one. */
export function tidy(text: string): string {
  return text.trim().split(/\s+/).filter(Boolean).join(' ');
}

/** Characters as the server counts them (Unicode scalar values, not UTF-16 units). */
const length = (text: string) => [...text].length;

/** Whole years from a `YYYY-MM-DD` birth date to `today`, as the server counts them. */
export function ageOn(birth: string, today: Date): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birth);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  let age = today.getFullYear() - year;
  if (today.getMonth() + 1 < month || (today.getMonth() + 1 === month && today.getDate() < day)) age -= 1;
  return age;
}

/** The earliest and latest birth dates the age limits allow, as local dates. */
export function birthDateRange(today: Date): { min: Date; max: Date } {
  const y = today.getFullYear();
  const m = today.getMonth();
  const d = today.getDate();
  // Someone turning 66 tomorrow is still 65 today: the earliest date is the day after 66 years ago.
  return { min: new Date(y - MAX_AGE - 1, m, d + 1), max: new Date(y - MIN_AGE, m, d) };
}

/** Upper-case letters and digits only, at most `max` (PAN, IFSC). */
export function upperAlphanumeric(raw: string, max: number): string {
  return raw
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, max);
}

const has = (options: readonly EnumOption[], code: string) => options.some((option) => option.code === code);

type Check<S extends CertStep> = (values: FormValues[S], rules: Rules) => FieldErrors<S>;

function text(value: string, min: number, max: number, t: TFunction): string | undefined {
  const tidied = tidy(value);
  if (!tidied) return t('cert.errors.required');
  if (length(tidied) > max) return t('cert.errors.tooLong', { max });
  if (length(tidied) < min) return t('cert.errors.tooShort', { min });
  return undefined;
}

/** Zero-width spaces and joiners, direction marks and overrides, the byte-order mark, the soft hyphen: as the server. */
const INVISIBLE = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/u;

/** A person's name as the server takes it: letters of any script with their marks, spaces and . ' ’ - only. */
function personName(value: string, t: TFunction, problem: string): string | undefined {
  const error = text(value, 2, 100, t);
  if (error) return error;
  const tidied = tidy(value);
  if (INVISIBLE.test(tidied)) return t('cert.errors.special');
  if (!/^[\p{L}\p{M} .'’-]+$/u.test(tidied) || !/\p{L}/u.test(tidied)) return t(problem);
  return undefined;
}

function choice(value: string, options: readonly EnumOption[], t: TFunction): string | undefined {
  return has(options, value) ? undefined : t('cert.errors.choose');
}

/** Drops the fields without an error, so "no errors" is an empty object. */
function defined<S extends CertStep>(errors: Record<string, string | undefined>): FieldErrors<S> {
  return Object.fromEntries(Object.entries(errors).filter(([, error]) => error !== undefined)) as FieldErrors<S>;
}

const checkBase: Check<'base'> = (v, { t, enums, today }) => {
  const fullName = personName(v.fullName, t, 'cert.errors.nameDigits');
  let dateOfBirth: string | undefined;
  const age = ageOn(v.dateOfBirth, today);
  if (age === null) dateOfBirth = t('cert.errors.required');
  else if (age < MIN_AGE || age > MAX_AGE) dateOfBirth = t('cert.errors.age', { min: MIN_AGE, max: MAX_AGE });
  let idNumber: string | undefined;
  const id = v.idNumber.trim();
  const rule = enums.idNumber;
  if (!id) idNumber = t('cert.errors.required');
  else if (isMasked(id)) idNumber = undefined; // the saved number, kept by the server
  else if (rule.kind === 'pan') {
    // The shape first, then the 4th letter (P for a person), so the message says what is wrong.
    if (!/^[A-Z]{5}[0-9]{4}[A-Z]$/.test(id)) idNumber = t('cert.errors.pan', { example: rule.example });
    else if (id[3] !== 'P' || !new RegExp(rule.pattern).test(id)) idNumber = t('cert.errors.panPerson');
  } else if (!new RegExp(rule.pattern).test(id)) idNumber = t('cert.errors.nik');
  return defined({ fullName, dateOfBirth, gender: choice(v.gender, enums.gender, t), idNumber });
};

const checkPersonal: Check<'personal'> = (v, { t, enums, cities, market }) => {
  const region = cities?.regions.find((candidate) => candidate.code === v.regionCode);
  const digits = enums.postalCode.digits;
  let postalCode: string | undefined;
  if (!v.postalCode) postalCode = t('cert.errors.required');
  else if (!new RegExp(`^\\d{${digits}}$`).test(v.postalCode)) postalCode = t('cert.errors.postalCode', { digits });
  else if (market.id === 'in' && v.postalCode.startsWith('0')) postalCode = t('cert.errors.postalCodeZero');
  return defined({
    education: choice(v.education, enums.education, t),
    maritalStatus: choice(v.maritalStatus, enums.maritalStatus, t),
    residenceType: choice(v.residenceType, enums.residenceType, t),
    regionCode: region ? undefined : t('cert.errors.choose'),
    cityCode: region && region.cities.some((city) => city.code === v.cityCode) ? undefined : t('cert.errors.choose'),
    address: text(v.address, 5, 200, t),
    postalCode,
  });
};

const checkJob: Check<'job'> = (v, { t, enums }) => {
  const income = toMinorUnits(v.income);
  const day = /^\d{1,2}$/.test(v.payDay) ? Number(v.payDay) : 0;
  return defined({
    employmentType: choice(v.employmentType, enums.employmentType, t),
    employerName: text(v.employerName, 2, 100, t),
    income: income !== null && income > 0 ? undefined : t('cert.errors.income'),
    payDay: day >= 1 && day <= 31 ? undefined : t('cert.errors.payDay'),
  });
};

const checkExtended: Check<'extended'> = (v, { t, enums, market }) => {
  const phone = (value: string) => {
    const checked = checkPhone(value, market.id);
    if (checked.ok) return { e164: checked.e164, error: undefined };
    return { e164: null, error: t(checked.reason === 'required' ? 'cert.errors.required' : 'cert.errors.phoneInvalid') };
  };
  const phone1 = phone(v.contact1Phone);
  const phone2 = phone(v.contact2Phone);
  return defined({
    contact1Name: personName(v.contact1Name, t, 'cert.errors.personName'),
    contact1Relation: choice(v.contact1Relation, enums.relation, t),
    contact1Phone: phone1.error,
    contact2Name: personName(v.contact2Name, t, 'cert.errors.personName'),
    contact2Relation: choice(v.contact2Relation, enums.relation, t),
    contact2Phone: phone2.error ?? (phone1.e164 !== null && phone1.e164 === phone2.e164 ? t('cert.errors.phoneSame') : undefined),
    consent: v.consent ? undefined : t('cert.errors.consent'),
  });
};

const checkBank: Check<'bank'> = (v, { t, enums }) => {
  const bank = enums.banks.find((candidate) => candidate.code === v.bankCode);
  const { minDigits, maxDigits } = enums.accountNumber;
  const kept = isMasked(v.accountNumber);
  let accountNumber: string | undefined;
  let accountNumberConfirm: string | undefined;
  if (!v.accountNumber) accountNumber = t('cert.errors.required');
  else if (!kept && (v.accountNumber.length < minDigits || v.accountNumber.length > maxDigits || !/^\d+$/.test(v.accountNumber))) {
    accountNumber = t('cert.errors.accountNumber', { min: minDigits, max: maxDigits });
  } else if (!kept && !v.accountNumberConfirm) accountNumberConfirm = t('cert.errors.required');
  else if (!kept && v.accountNumberConfirm !== v.accountNumber) accountNumberConfirm = t('cert.errors.accountNumberConfirm');
  let ifsc: string | undefined;
  if (enums.ifscRequired) {
    if (!v.ifsc) ifsc = t('cert.errors.required');
    else if (!/^[A-Z]{4}0[A-Z0-9]{6}$/.test(v.ifsc)) ifsc = t('cert.errors.ifsc');
    else if (bank?.ifscPrefix && !v.ifsc.startsWith(bank.ifscPrefix)) ifsc = t('cert.errors.ifscBank', { prefix: bank.ifscPrefix, bank: bank.label });
  }
  return defined({ bankCode: bank ? undefined : t('cert.errors.choose'), accountNumber, accountNumberConfirm, ifsc });
};

export const CHECKS: { [S in CertStep]: Check<S> } = {
  base: checkBase,
  personal: checkPersonal,
  job: checkJob,
  extended: checkExtended,
  bank: checkBank,
};

/** The form's values from the saved step (masked numbers as they came), or empty ones before the first save. */
export function initialValues<S extends CertStep>(
  step: S,
  saved: StepData[S] | null,
  market: Market,
  enums: Pick<Enums, 'incomePeriod'>,
): FormValues[S] {
  const all = {
    base: (d: BaseInfo | null): FormValues['base'] => ({
      fullName: d?.fullName ?? '',
      dateOfBirth: d?.dateOfBirth ?? '',
      gender: d?.gender ?? '',
      idNumber: d?.idNumber ?? '',
    }),
    personal: (d: PersonalInfo | null): FormValues['personal'] => ({
      education: d?.education ?? '',
      maritalStatus: d?.maritalStatus ?? '',
      residenceType: d?.residenceType ?? '',
      regionCode: d?.regionCode ?? '',
      cityCode: d?.cityCode ?? '',
      address: d?.address ?? '',
      postalCode: d?.postalCode ?? '',
    }),
    job: (d: JobInfo | null): FormValues['job'] => ({
      employmentType: d?.employmentType ?? '',
      employerName: d?.employerName ?? '',
      income: d ? monthlyIncomeDigits(d.income, enums) : '',
      payDay: d ? String(d.payDay) : '',
    }),
    extended: (d: ExtendedInfo | null): FormValues['extended'] => ({
      contact1Name: d?.contact1Name ?? '',
      contact1Relation: d?.contact1Relation ?? '',
      contact1Phone: d ? formatPhoneInput(d.contact1Phone, market.id) : '',
      contact2Name: d?.contact2Name ?? '',
      contact2Relation: d?.contact2Relation ?? '',
      contact2Phone: d ? formatPhoneInput(d.contact2Phone, market.id) : '',
      consent: d?.consent ?? false,
    }),
    bank: (d: BankInfo | null): FormValues['bank'] => ({
      bankCode: d?.bankCode ?? '',
      accountNumber: d?.accountNumber ?? '',
      accountNumberConfirm: '',
      ifsc: d?.ifsc ?? '',
      verificationCode: '',
    }),
  };
  return (all[step] as unknown as (d: StepData[S] | null) => FormValues[S])(saved);
}

/**
 * The body of `POST /certification/{step}` from checked values. A stored yearly income shown as its month rounded to
 * the rupiah goes back as stored when that month was not changed (×12 would move a figure that is no multiple of 12,
 * and while an application waits for review any change is refused).
 */
export function requestBody<S extends CertStep>(
  step: S,
  values: FormValues[S],
  rules: Pick<Rules, 'market' | 'enums'>,
  saved: StepData[S] | null = null,
): StepData[S] {
  const savedIncome = step === 'job' && saved ? (saved as JobInfo).income : null;
  const all = {
    base: (v: FormValues['base']): BaseInfo => ({ ...v, fullName: tidy(v.fullName), idNumber: v.idNumber.trim() }),
    personal: (v: FormValues['personal']): PersonalInfo => ({ ...v, address: tidy(v.address) }),
    job: (v: FormValues['job']): JobInfo => ({
      employmentType: v.employmentType,
      employerName: tidy(v.employerName),
      income:
        savedIncome !== null && monthlyIncomeDigits(savedIncome, rules.enums) === v.income
          ? savedIncome
          : (incomeForRule(v.income, rules.enums) ?? 0),
      payDay: Number(v.payDay),
    }),
    extended: (v: FormValues['extended']): ExtendedInfo => {
      const e164 = (typed: string) => {
        const checked = checkPhone(typed, rules.market.id);
        return checked.ok ? checked.e164 : typed;
      };
      return { ...v, contact1Name: tidy(v.contact1Name), contact2Name: tidy(v.contact2Name), contact1Phone: e164(v.contact1Phone), contact2Phone: e164(v.contact2Phone) };
    },
    bank: (v: FormValues['bank']): BankInfo & { verificationCode?: string } => ({
      bankCode: v.bankCode,
      accountNumber: v.accountNumber,
      // A masked number sent back keeps the stored one and needs no confirmation.
      ...(!isMasked(v.accountNumber) && { accountNumberConfirm: v.accountNumberConfirm }),
      ...(rules.enums.ifscRequired && { ifsc: v.ifsc }),
      // Changing an account on file needs the code sent to the borrower's phone (the server says when).
      ...(v.verificationCode.trim() !== '' && { verificationCode: v.verificationCode.trim() }),
    }),
  };
  return (all[step] as unknown as (v: FormValues[S]) => StepData[S])(values);
}
