// What a person types on the money keyboard is text ("2500.5"): each key's effect and the text shown as money while
// typing. The text becomes minor units through the shared reader (`@/shared/money/major-units`, integer arithmetic).
import type { Market } from '@/shared/market/market';

export type MoneyKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '.' | 'delete';

export const DIGIT_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'] as const;

export interface MoneyTextLimits {
  /** Digits after the decimal point: 2 for paise and sen. */
  maxFractionDigits?: number;
  /** Digits before it; 12 keeps every amount far inside a safe integer of minor units. */
  maxIntegerDigits?: number;
}

/** The typed text after one key. A key that would make no sense (a second point, a third decimal) is ignored. */
export function pressMoneyKey(text: string, key: MoneyKey, limits: MoneyTextLimits = {}): string {
  const maxFraction = limits.maxFractionDigits ?? 2;
  const maxInteger = limits.maxIntegerDigits ?? 12;
  if (key === 'delete') {
    const shorter = text.slice(0, -1);
    return shorter === '0' ? '' : shorter;
  }
  const point = text.indexOf('.');
  if (key === '.') {
    if (maxFraction === 0 || point >= 0) return text;
    return text === '' ? '0.' : `${text}.`;
  }
  if (point >= 0) return text.length - point - 1 >= maxFraction ? text : text + key;
  // No leading zeros: "0" then "5" is "5".
  if (text === '0' || text === '') return key === '0' ? '0' : key;
  return text.length >= maxInteger ? text : text + key;
}

/** The market's decimal separator: "." in India, "," in Indonesia. */
export function decimalSeparator(market: Market): string {
  return new Intl.NumberFormat(market.locale, { minimumFractionDigits: 1 }).formatToParts(1).find((part) => part.type === 'decimal')?.value ?? '.';
}

/**
 * The typed text as money while it is being typed: "₹25,000." or "Rp 1.000.000,5", with the market's
 * grouping and the fraction exactly as typed so far.
 */
export function formatTypedMoney(text: string, market: Market): string {
  const point = text.indexOf('.');
  const whole = point >= 0 ? text.slice(0, point) : text;
  const fraction = point >= 0 ? text.slice(point + 1) : null;
  const parts = new Intl.NumberFormat(market.locale, {
    style: 'currency',
    currency: market.currency,
    maximumFractionDigits: 0,
    minimumFractionDigits: 0,
  }).formatToParts(BigInt(whole || '0'));
  if (fraction === null) return parts.map((part) => part.value).join('');
  let lastNumberPart = -1;
  parts.forEach((part, index) => {
    if (part.type === 'integer' || part.type === 'group') lastNumberPart = index;
  });
  return parts
    .map((part, index) => (index === lastNumberPart ? `${part.value}${decimalSeparator(market)}${fraction}` : part.value))
    .join('');
}
