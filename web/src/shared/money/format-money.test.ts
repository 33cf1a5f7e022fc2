import { describe, expect, it } from 'vitest';
import { MARKETS } from '../market/market';
import { formatMoney } from './format-money';

const NBSP = '\u00a0';

describe('formatMoney', () => {
  it('formats rupees from paise with lakh grouping', () => {
    expect(formatMoney(2_000_00, MARKETS.in)).toBe('₹2,000');
    expect(formatMoney(80_000_00, MARKETS.in)).toBe('₹80,000');
    expect(formatMoney(1_00_000_00, MARKETS.in)).toBe('₹1,00,000');
    expect(formatMoney(1_23_45_678_00, MARKETS.in)).toBe('₹1,23,45,678');
  });

  it('formats rupiah from sen with dot grouping', () => {
    expect(formatMoney(1_000_000_00, MARKETS.id)).toBe(`Rp${NBSP}1.000.000`);
    expect(formatMoney(15_000_000_00, MARKETS.id)).toBe(`Rp${NBSP}15.000.000`);
  });

  it('shows two decimals only when there are minor units', () => {
    expect(formatMoney(1_050, MARKETS.in)).toBe('₹10.50');
    expect(formatMoney(1_000_000_05, MARKETS.id)).toBe(`Rp${NBSP}1.000.000,05`);
    expect(formatMoney(-250, MARKETS.in)).toBe('-₹2.50');
  });

  it('keeps amounts beyond 2^53 exact when given as bigint', () => {
    expect(formatMoney(9_007_199_254_740_993_00n, MARKETS.in)).toBe('₹9,00,71,99,25,47,40,993');
  });

  it('refuses a fractional number of minor units', () => {
    expect(() => formatMoney(10.5, MARKETS.in)).toThrow(RangeError);
  });
});
