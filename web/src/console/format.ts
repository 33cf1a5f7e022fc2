// Display helpers of the console: money through the shared formatter in the order's currency, times in the
// operator's time zone, ages and terms in words.
import type { TFunction } from 'i18next';
import { formatMoney } from '@/shared/money/format-money';
import { MARKETS, type Language, type Market } from '@/shared/market/market';
import type { ApiMarket, Currency } from './api/types';

/** The console is in English; dates and times read as in India's English (`25 Nov 2026, 14:05`). */
export const CONSOLE_LOCALE = 'en-IN';
export const CONSOLE_LANGUAGE: Language = 'en';

export function marketOfCurrency(currency: Currency): Market {
  return currency === 'INR' ? MARKETS.in : MARKETS.id;
}

/** Minor units in the order's currency: `₹20,000` or `Rp 1.000.000`. */
export function money(minor: number, currency: Currency): string {
  return formatMoney(minor, marketOfCurrency(currency));
}

/**
 * Minor units from an amount an operator types in the payment's currency, as a bank statement or the console writes
 * it; null when it is not one. Rupees: commas group as in `1,00,000` or `100,000`, a point starts up to two decimals
 * (`3,500.25`). Rupiah: dots group
 * thousands, a comma starts the sen, which must be zero: whole rupiah only (PRODUCT.md §7) (`Rp 1.064.000`).
 */
export function minorOf(text: string, currency: Currency): number | null {
  let minor: number;
  // The currency's sign or code, in any case, and spaces are not part of the number.
  const bare = text.replace(/\s|rp|idr|inr|rs\.?|₹/gi, '');
  if (currency === 'IDR') {
    const found = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/.exec(bare);
    const [, whole = '', sen = ''] = found ?? [];
    if (!found || sen.replace(/0/g, '') !== '') return null;
    minor = Number(whole.replace(/\./g, '')) * 100;
  } else {
    // Commas group as Indian statements write them (`1,00,000`) or by thousands (`100,000`), nowhere else.
    const found = /^(\d{1,2}(?:,\d{2})*,\d{3}|\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(bare);
    const [, whole = '', fraction = ''] = found ?? [];
    if (!found) return null;
    minor = Number(whole.replace(/,/g, '')) * 100 + Number(fraction.padEnd(2, '0'));
  }
  // Beyond a safe integer the amount is not exact: refused rather than sent rounded.
  return Number.isSafeInteger(minor) ? minor : null;
}

const dateTimeFormat = new Intl.DateTimeFormat(CONSOLE_LOCALE, {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const dayFormat = new Intl.DateTimeFormat(CONSOLE_LOCALE, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** Epoch ms → `25 Nov 2026, 14:05` in the browser's time zone. */
export function dateTime(ms: number): string {
  return dateTimeFormat.format(new Date(ms));
}

/** A calendar day `YYYY-MM-DD` (a due date) → `25 Nov 2026`, never shifted by the time zone. */
export function day(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  return dayFormat.format(new Date(Date.UTC(y, m - 1, d)));
}

/** How long an application has waited: `3 min`, `2 h 5 min`, `1 d 4 h`. */
export function age(seconds: number, t: TFunction): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return t('age.underMinute');
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return t('age.daysHours', { days, hours: hours % 24 });
  if (hours > 0) return t('age.hoursMinutes', { hours, minutes: minutes % 60 });
  return t('age.minutes', { minutes });
}

/** A term code → words: `m6` six months, `30d` thirty days, `14dx3` three installments fourteen days apart. */
export function term(code: string, t: TFunction): string {
  let match = /^m(\d+)$/.exec(code);
  if (match) return t('term.months', { count: Number(match[1]) });
  match = /^(\d+)dx(\d+)$/.exec(code);
  if (match) return t('term.installmentsOfDays', { count: Number(match[2]), days: Number(match[1]) });
  match = /^(\d+)d$/.exec(code);
  if (match) return t('term.days', { count: Number(match[1]) });
  return code;
}

export function marketName(market: ApiMarket, t: TFunction): string {
  return t(`market.${market}`);
}

const timeFormat = new Intl.DateTimeFormat(CONSOLE_LOCALE, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** Epoch ms → `14:05` in the browser's time zone (a claim's end, within the hour). */
export function time(ms: number): string {
  return timeFormat.format(new Date(ms));
}

/**
 * An E.164 mobile number grouped as each market writes it: `+91 98111 22233` (India), `+62 812-3456-7890`
 * (Indonesia). A masked or unknown number is returned as it is.
 */
export function phone(e164: string): string {
  const india = /^\+91(\d{5})(\d{5})$/.exec(e164);
  if (india) return `+91 ${india[1]} ${india[2]}`;
  if (/^\+62\d{9,12}$/.test(e164)) {
    const rest = e164.slice(6);
    return `+62 ${e164.slice(3, 6)}-${rest.slice(0, -4)}-${rest.slice(-4)}`;
  }
  return e164;
}

/** Whole years → `31 years`. */
export function years(count: number, t: TFunction): string {
  return t('picture.years', { count });
}
