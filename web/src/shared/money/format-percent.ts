// Percentages for display in the market's number format (`17.07%`, `17,07%`). The server sends an APR as an
// integer in hundredths of a percent and rates as decimal text (`"0.3%"`); both reach Intl as exact decimal strings,
// never as floating point (PRODUCT.md §3).
import type { Market } from '../market/market';

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(market: Market, minDigits: number, maxDigits: number): Intl.NumberFormat {
  const key = `${market.locale}:${minDigits}:${maxDigits}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.NumberFormat(market.locale, { style: 'percent', minimumFractionDigits: minDigits, maximumFractionDigits: maxDigits });
    formatters.set(key, found);
  }
  return found;
}

/** A non-negative decimal text of a percentage (`"17.07"`) as the decimal text of its fraction (`"0.1707"`). */
function percentToFraction(percent: string): string {
  const [whole = '0', frac = ''] = percent.split('.');
  const digits = (whole.padStart(3, '0') + frac).replace(/^0+(?=\d)/, '');
  const point = digits.length - frac.length - 2;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits;
  const at = padded.length - frac.length - 2;
  return `${padded.slice(0, at)}.${padded.slice(at)}`;
}

/** An APR in hundredths of a percent (`1707`) with two decimals: `17.07%` (India), `17,07%` (Indonesia). */
export function formatApr(hundredths: number, market: Market): string {
  if (!Number.isSafeInteger(hundredths)) throw new RangeError(`an APR must be an integer, got ${hundredths}`);
  const negative = hundredths < 0;
  const abs = Math.abs(hundredths);
  const text = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  const formatted = formatter(market, 2, 2).format(percentToFraction(text) as unknown as number);
  return negative ? `-${formatted}` : formatted;
}

/**
 * A rate as the server writes it (`"0.3%"`, `"15%"`, `"0.2333334%"`) in the market's format, with at most
 * `maxDigits` decimals of the percentage (rounded half-up, as Intl does), e.g. `0,3%`. Text that is not a rate
 * comes back unchanged.
 */
export function formatRate(rate: string, market: Market, maxDigits = 3): string {
  const match = /^\s*(\d+)(?:\.(\d+))?\s*%\s*$/.exec(rate);
  if (!match) return rate;
  const text = match[2] ? `${match[1]}.${match[2]}` : match[1]!;
  return formatter(market, 0, maxDigits).format(percentToFraction(text) as unknown as number);
}
