import type { Market } from '@/shared/market/market';

const formats = new Map<string, Intl.DateTimeFormat>();

/** Each market's own clock (IST, WIB): a loan's dates are the market's days, as the server dates its documents. */
const TIME_ZONES: Record<Market['id'], string> = { in: 'Asia/Kolkata', id: 'Asia/Jakarta' };

function format(market: Market, withTime: boolean): Intl.DateTimeFormat {
  const key = `${market.locale}:${withTime}`;
  let found = formats.get(key);
  if (!found) {
    const timeZone = TIME_ZONES[market.id];
    found = new Intl.DateTimeFormat(market.locale, withTime ? { dateStyle: 'medium', timeStyle: 'short', timeZone } : { dateStyle: 'medium', timeZone });
    formats.set(key, found);
  }
  return found;
}

/** The day of an instant (epoch milliseconds) on the market's calendar (IST, WIB): "23 Nov 2026". */
export function formatDay(epochMs: number, market: Market): string {
  return format(market, false).format(new Date(epochMs));
}

/** The day of an instant on the market's calendar, written out: "23 November 2026". */
export function formatLongDay(epochMs: number, market: Market): string {
  return new Intl.DateTimeFormat(market.locale, { dateStyle: 'long', timeZone: TIME_ZONES[market.id] }).format(new Date(epochMs));
}

/** An instant with its time on the market's clock, for the timeline: "23 Nov 2026, 2:05 pm". */
export function formatDateTime(epochMs: number, market: Market): string {
  return format(market, true).format(new Date(epochMs));
}
