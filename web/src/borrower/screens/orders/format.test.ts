import { describe, expect, it } from 'vitest';
import { MARKETS } from '@/shared/market/market';
import { formatDateTime, formatDay } from './format';

// 2026-11-26 19:16 UTC: 00:46 on the 27th in India (IST), 02:16 on the 27th in Indonesia (WIB).
const AFTER_MIDNIGHT_IST = Date.UTC(2026, 10, 26, 19, 16);

describe('a loan instant on the market clock', () => {
  it('is dated on the market calendar, whatever the device time zone', () => {
    expect(formatDay(AFTER_MIDNIGHT_IST, MARKETS.in)).toBe('27 Nov 2026');
    expect(formatDay(AFTER_MIDNIGHT_IST, MARKETS.id)).toBe('27 Nov 2026');
    // 18:29 UTC: still the 26th in India (23:59 IST), already the 27th in Indonesia (01:29 WIB).
    const beforeMidnightIst = AFTER_MIDNIGHT_IST - 47 * 60 * 1000;
    expect(formatDay(beforeMidnightIst, MARKETS.in)).toBe('26 Nov 2026');
    expect(formatDay(beforeMidnightIst, MARKETS.id)).toBe('27 Nov 2026');
  });

  it('shows the time on the market clock', () => {
    expect(formatDateTime(AFTER_MIDNIGHT_IST, MARKETS.in)).toMatch(/^27 Nov 2026, 12:46\s?am$/i);
    expect(formatDateTime(AFTER_MIDNIGHT_IST, MARKETS.id)).toBe('27 Nov 2026, 02.16');
  });
});
