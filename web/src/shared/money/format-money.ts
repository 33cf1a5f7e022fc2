// Amounts are integers in minor units (paise, sen) everywhere (PRODUCT.md §3); only display divides by 100.
import type { Market } from '../market/market';

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(market: Market, fractionDigits: number): Intl.NumberFormat {
  const key = `${market.locale}:${market.currency}:${fractionDigits}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.NumberFormat(market.locale, {
      style: 'currency',
      currency: market.currency,
      minimumFractionDigits: fractionDigits,
      maximumFractionDigits: fractionDigits,
    });
    formatters.set(key, found);
  }
  return found;
}

/**
 * Formats an amount in minor units for the market: `₹1,00,000` (lakh grouping) or `Rp 1.000.000`.
 * Whole amounts show no fraction; others show two digits. Integer arithmetic only: the major and
 * minor parts are split before Intl sees them.
 */
export function formatMoney(minor: number | bigint, market: Market): string {
  return format(minor, market, false);
}

/** As {@link formatMoney}, with the two fraction digits even for a whole amount ("₹3,468.00" beside "₹3,466.61"). */
export function formatMoneyWithFraction(minor: number | bigint, market: Market): string {
  return format(minor, market, true);
}

function format(minor: number | bigint, market: Market, alwaysFraction: boolean): string {
  const value = BigInt(minor);
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) {
    throw new RangeError(`amount must be an integer number of minor units, got ${minor}`);
  }
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const major = abs / 100n;
  const cents = abs % 100n;
  if (cents === 0n && !alwaysFraction) return formatter(market, 0).format(negative ? -major : major);
  // "major.cents" as a decimal string keeps the value exact for Intl's string input.
  const decimal = `${negative ? '-' : ''}${major}.${cents.toString().padStart(2, '0')}`;
  return formatter(market, 2).format(decimal as unknown as number);
}
