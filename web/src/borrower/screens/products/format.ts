import type { TFunction } from 'i18next';
import type { Market } from '@/shared/market/market';
import { formatMoney, formatMoneyWithFraction } from '@/shared/money/format-money';
import type { KeyFactStatement, ProductTerm } from '../../api/types';

/** A term as words: "6 months", "14 days", "14 days × 3" (three installments, one every 14 days). */
export function termLabel(term: ProductTerm, t: TFunction): string {
  if (term.period === 'monthly') return t('products.months', { count: term.installments });
  const days = Number.parseInt(term.period, 10);
  const period = t('products.days', { count: days });
  return term.installments > 1 ? t('products.times', { period, count: term.installments }) : period;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A calendar date from the API (`YYYY-MM-DD`) in the market's words, e.g. "6 Dec 2026" / "6 Des 2026". */
export function formatDate(isoDate: string, market: Market): string {
  let format = dateFormats.get(market.locale);
  if (!format) {
    // The date is a calendar day, not an instant: read and written in UTC so no time zone moves it.
    format = new Intl.DateTimeFormat(market.locale, { dateStyle: 'medium', timeZone: 'UTC' });
    dateFormats.set(market.locale, format);
  }
  const [year, month, day] = isoDate.split('-').map(Number);
  return format.format(new Date(Date.UTC(year!, month! - 1, day!)));
}

/** The amount a product page starts from, or the one in its URL when it fits the product. */
export function amountFromUrl(value: string | null, range: { min: number; max: number; step: number }): number {
  const amount = value !== null && /^\d+$/.test(value) ? Number(value) : range.min;
  if (!Number.isSafeInteger(amount) || amount < range.min || amount > range.max) return range.min;
  return (amount - range.min) % range.step === 0 ? amount : range.min;
}

/** Why an amount does not fit a product, with the nearest amounts that do when it is off a step. */
export type AmountProblem = { kind: 'range' } | { kind: 'step'; lower: number; upper: number };

/** Null when `amount` (minor units) is one the product lends: within min and max, and on a step from min. */
export function amountProblem(amount: number, range: { min: number; max: number; step: number }): AmountProblem | null {
  if (amount < range.min || amount > range.max) return { kind: 'range' };
  const off = (amount - range.min) % range.step;
  if (off === 0) return null;
  const lower = amount - off;
  return { kind: 'step', lower, upper: Math.min(lower + range.step, range.max) };
}

/**
 * One precision for a product's or a loan's amounts: two decimals for all of them when any has paise or sen, none otherwise, so
 * "₹3,468.00" stands beside "₹3,466.61", never "₹3,468". Integer arithmetic: the parts are split before Intl sees them.
 */
export function moneyAtPrecision(amounts: readonly number[], market: Market): (minor: number) => string {
  const fractional = amounts.some((a) => a % 100 !== 0);
  return fractional ? (minor) => formatMoneyWithFraction(minor, market) : (minor) => formatMoney(minor, market);
}

/**
 * The amounts that set a loan's precision: its statement's schedule (each installment and its parts), its fees and
 * totals. When any has paise or sen, every amount of the loan shows two decimals, on every screen of it, from the
 * quote to the last payment ("₹3,468.00" beside "₹3,466.61", never "₹3,468").
 */
export function kfsAmounts(kfs: KeyFactStatement): number[] {
  return [
    ...kfs.installments.flatMap((i) => [i.amount, i.principal, i.interest, i.fees]),
    ...kfs.fees.flatMap((fee) => [fee.amount, fee.tax, fee.total]),
    kfs.sanctionedAmount,
    kfs.totalFees,
    kfs.netDisbursed,
    kfs.totalInterest,
    kfs.totalRepayable,
  ];
}

/**
 * The installments as the schedule has them: "3 installments of ₹2,000"; when they differ, every amount in order
 * ("3 cicilan: Rp 1.816.667, Rp 1.821.667 dan Rp 1.821.666"), or runs of equal ones for a long schedule
 * ("11 of ₹4,000, then 1 of ₹3,990").
 */
export function scheduleSummary(
  installments: readonly { amount: number; dueDate: string }[],
  money: (minor: number) => string,
  t: TFunction,
  market: Market,
): string {
  const [first] = installments;
  if (!first) return '';
  const count = installments.length;
  if (count === 1) return t('money.schedule.one', { amount: money(first.amount), date: formatDate(first.dueDate, market) });
  const runs: { amount: number; count: number }[] = [];
  for (const i of installments) {
    const last = runs[runs.length - 1];
    if (last && last.amount === i.amount) last.count += 1;
    else runs.push({ amount: i.amount, count: 1 });
  }
  if (runs.length === 1) return t('money.schedule.equal', { count, amount: money(first.amount) });
  if (runs.every((r) => r.count === 1) && count <= 4) {
    const amounts = runs.map((r) => money(r.amount));
    const listed = `${amounts.slice(0, -1).join(', ')}${t('money.schedule.and')}${amounts[amounts.length - 1]}`;
    return t('money.schedule.listed', { count, amounts: listed });
  }
  const parts = runs.map((r) => t('money.schedule.run', { count: r.count, amount: money(r.amount) }));
  return t('money.schedule.runs', { count, runs: parts.join(t('money.schedule.then')) });
}
