// The product form's fields and the definition the server stores (docs/MONEY.md §7), each way. Money is typed in
// rupees or rupiah and stored in minor units, read as text digit by digit (never through a float); rates are typed
// in percent and stored as percentage text ("0.1%"). What does not read is a field error keyed like the form.
import type { ApiMarket } from './api/types';

export interface TermFields {
  code: string;
  /** `days`: every `days` days; `monthly`: once a month. */
  kind: 'days' | 'monthly';
  days: string;
  installments: string;
}

export interface FeeFields {
  name: string;
  percent: string;
  fixed: string;
}

export interface ProductFields {
  code: string;
  name: string;
  market: ApiMarket;
  amountMin: string;
  amountMax: string;
  amountStep: string;
  rate: string;
  per: 'day' | 'year';
  method: 'flat' | 'reducing';
  rounding: 'minor' | 'whole';
  terms: TermFields[];
  fees: FeeFields[];
  feesDeductedAtDisbursal: boolean;
  lateFlat: string;
  latePerDay: string;
  lateMaxDays: string;
  extension: boolean;
  extensionDays: string;
  extensionFeePercent: string;
  extensionFeeFixed: string;
  extensionMax: string;
  coolingOffDays: string;
}

/** A field's key in `ProductFields` (`terms.0.days` for a row's) → the problem, as an i18n key. */
export type FieldProblems = Record<string, string>;

type Definition = Record<string, unknown>;

/** Minor units per unit of the market's currency. */
const MINOR_PER_UNIT = 100;

/** Minor units → what the form shows: `2000`, `2000.5` → `2000.50`; rupiah whole. */
export function minorToText(minor: number, market: ApiMarket): string {
  const units = Math.trunc(minor / MINOR_PER_UNIT);
  const rest = Math.abs(minor % MINOR_PER_UNIT);
  if (rest === 0) return String(units);
  if (market === 'ID') return String(units); // rupiah amounts are whole; a stray sen is not shown
  return `${units}.${String(rest).padStart(2, '0')}`;
}

/**
 * What an admin typed → minor units, or null when it is no amount. Grouping marks are allowed (`25,000`; in
 * Indonesia `1.000.000`); India takes up to two decimals after a point, Indonesia whole rupiah.
 */
export function textToMinor(text: string, market: ApiMarket): number | null {
  let t = text.trim().replace(/[\s₹]/g, '').replace(/^Rp/i, '');
  if (market === 'ID') {
    if (!/^\d{1,3}(\.\d{3})*$|^\d+$/.test(t)) return null;
    t = t.replace(/\./g, '');
    const value = Number(t) * MINOR_PER_UNIT;
    return Number.isSafeInteger(value) ? value : null;
  }
  if (!/^(\d{1,3}(,\d{2,3})*|\d+)(\.\d{1,2})?$/.test(t)) return null;
  const [whole, fraction = ''] = t.replace(/,/g, '').split('.');
  const value = Number(whole) * MINOR_PER_UNIT + Number(fraction.padEnd(2, '0'));
  return Number.isSafeInteger(value) ? value : null;
}

/** `"0.1%"` → `0.1`. */
function rateToText(rate: unknown): string {
  return typeof rate === 'string' ? rate.replace(/%$/, '').trim() : '';
}

/** `0.1` → `"0.1%"`, or null when it is no percentage (at most seven decimals, as the server reads rates). */
export function textToRate(text: string): string | null {
  const t = text.trim().replace(/%$/, '').replace(',', '.');
  if (!/^\d{1,6}(\.\d{1,7})?$/.test(t)) return null;
  return `${t}%`;
}

function whole(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,6}$/.test(t)) return null;
  return Number(t);
}

const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
const obj = (value: unknown): Definition => (value && typeof value === 'object' ? (value as Definition) : {});

/** A stored definition → the form's fields. */
export function toFields(definition: unknown, market: ApiMarket): ProductFields {
  const d = obj(definition);
  const amount = obj(d.amount);
  const interest = obj(d.interest);
  const late = obj(d.late_charge);
  const extension = d.extension ? obj(d.extension) : null;
  const m = (value: unknown) => minorToText(num(value), market);
  return {
    code: typeof d.code === 'string' ? d.code : '',
    name: typeof d.name === 'string' ? d.name : '',
    market,
    amountMin: m(amount.min),
    amountMax: m(amount.max),
    amountStep: m(amount.step),
    rate: rateToText(interest.rate),
    per: interest.per === 'year' ? 'year' : 'day',
    method: interest.method === 'reducing' ? 'reducing' : 'flat',
    rounding: d.rounding === 'whole' ? 'whole' : 'minor',
    terms: (Array.isArray(d.terms) ? d.terms : []).map((raw) => {
      const term = obj(raw);
      const period = typeof term.period === 'string' ? term.period : '';
      const days = /^(\d+)d$/.exec(period)?.[1];
      return {
        code: typeof term.code === 'string' ? term.code : '',
        kind: days ? 'days' : 'monthly',
        days: days ?? '',
        installments: String(num(term.installments) || 1),
      };
    }),
    fees: (Array.isArray(d.fees) ? d.fees : []).map((raw) => {
      const fee = obj(raw);
      return {
        name: typeof fee.name === 'string' ? fee.name : '',
        percent: rateToText(fee.percent) || '0',
        fixed: m(fee.fixed),
      };
    }),
    feesDeductedAtDisbursal: d.fees_deducted_at_disbursal !== false,
    lateFlat: m(late.flat),
    latePerDay: m(late.perDay ?? late.per_day),
    lateMaxDays: String(num(late.maxDays ?? late.max_days)),
    extension: extension !== null,
    extensionDays: extension ? String(num(extension.days)) : '7',
    extensionFeePercent: extension ? rateToText(extension.feePercent ?? extension.fee_percent) || '0' : '0',
    extensionFeeFixed: extension ? m(extension.feeFixed ?? extension.fee_fixed) : '0',
    extensionMax: extension ? String(num(extension.maxExtensions ?? extension.max_extensions)) : '1',
    coolingOffDays: String(num(d.cooling_off_days) || 3),
  };
}

/** A blank product of a market: one term, no fee, no late charge, no extension. */
export function blankFields(market: ApiMarket): ProductFields {
  return {
    ...toFields({}, market),
    terms: [{ code: '', kind: 'days', days: '30', installments: '1' }],
    rounding: market === 'ID' ? 'whole' : 'minor',
  };
}

/** The form's fields → the definition to send, or the field problems (i18n keys under `productForm.problem`). */
export function toDefinition(f: ProductFields): { definition: Definition } | { problems: FieldProblems } {
  const problems: FieldProblems = {};
  const money = (key: string, text: string, required = true): number => {
    const value = text.trim() === '' && !required ? 0 : textToMinor(text, f.market);
    if (value === null) problems[key] = f.market === 'ID' ? 'rupiah' : 'rupees';
    return value ?? 0;
  };
  const rate = (key: string, text: string): string => {
    const value = textToRate(text.trim() === '' ? '0' : text);
    if (value === null) problems[key] = 'percent';
    return value ?? '0%';
  };
  const count = (key: string, text: string, min: number): number => {
    const value = whole(text);
    if (value === null || value < min) problems[key] = min === 0 ? 'whole' : 'atLeast' + String(min);
    return value ?? 0;
  };

  if (f.name.trim() === '') problems.name = 'required';
  const amount = {
    min: money('amountMin', f.amountMin),
    max: money('amountMax', f.amountMax),
    step: money('amountStep', f.amountStep),
  };
  if (!problems.amountMin && !problems.amountMax && amount.max < amount.min) problems.amountMax = 'maxBelowMin';
  if (f.rate.trim() === '') problems.rate = 'required';
  const interest = { rate: rate('rate', f.rate), per: f.per, method: f.method };
  if (f.terms.length === 0) problems.terms = 'oneTerm';
  const codes = new Set<string>();
  const terms = f.terms.map((term, i) => {
    const code = term.code.trim();
    if (code === '') problems[`terms.${i}.code`] = 'required';
    else if (codes.has(code)) problems[`terms.${i}.code`] = 'duplicateTerm';
    codes.add(code);
    const days = term.kind === 'days' ? count(`terms.${i}.days`, term.days, 1) : 0;
    return {
      code,
      period: term.kind === 'days' ? `${days}d` : 'monthly',
      installments: count(`terms.${i}.installments`, term.installments, 1),
    };
  });
  const fees = f.fees.map((fee, i) => {
    if (fee.name.trim() === '') problems[`fees.${i}.name`] = 'required';
    return { name: fee.name.trim(), percent: rate(`fees.${i}.percent`, fee.percent), fixed: money(`fees.${i}.fixed`, fee.fixed, false) };
  });
  const lateCharge = {
    flat: money('lateFlat', f.lateFlat, false),
    perDay: money('latePerDay', f.latePerDay, false),
    maxDays: count('lateMaxDays', f.lateMaxDays.trim() === '' ? '0' : f.lateMaxDays, 0),
  };
  const extension = f.extension
    ? {
        days: count('extensionDays', f.extensionDays, 1),
        feePercent: rate('extensionFeePercent', f.extensionFeePercent),
        feeFixed: money('extensionFeeFixed', f.extensionFeeFixed, false),
        maxExtensions: count('extensionMax', f.extensionMax, 1),
      }
    : null;
  const coolingOff = count('coolingOffDays', f.coolingOffDays, 0);
  if (Object.keys(problems).length > 0) return { problems };
  return {
    definition: {
      code: f.code.trim(),
      name: f.name.trim(),
      market: f.market,
      amount,
      interest,
      rounding: f.rounding,
      terms,
      fees,
      fees_deducted_at_disbursal: f.feesDeductedAtDisbursal,
      late_charge: lateCharge,
      extension,
      cooling_off_days: coolingOff,
    },
  };
}

/** Which form field a server field error belongs beside (`interest` → the rate; `lateCharge` → the late charge). */
export function fieldOfServerError(field: string): string {
  switch (field) {
    case 'interest':
      return 'rate';
    case 'lateCharge':
      return 'lateFlat';
    case 'extension':
      return 'extensionDays';
    case 'amount':
      return 'amountMin';
    default:
      return field;
  }
}
