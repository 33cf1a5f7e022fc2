import type { Market } from '@/shared/market/market';

const formats = new Map<string, Intl.DateTimeFormat>();

function format(market: Market, withTime: boolean): Intl.DateTimeFormat {
  const key = `${market.locale}:${withTime}`;
  let found = formats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(market.locale, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' });
    formats.set(key, found);
  }
  return found;
}

/** The day of an instant (epoch milliseconds) in the borrower's own time zone: "23 Nov 2026". */
export function formatDay(epochMs: number, market: Market): string {
  return format(market, false).format(new Date(epochMs));
}

/** An instant with its time, for the timeline: "23 Nov 2026, 2:05 pm". */
export function formatDateTime(epochMs: number, market: Market): string {
  return format(market, true).format(new Date(epochMs));
}
