import { describe, expect, it } from 'vitest';
import { MARKETS } from '../market/market';
import { formatApr, formatRate } from './format-percent';

describe('formatApr', () => {
  it('writes an APR in hundredths of a percent with two decimals in each market', () => {
    expect(formatApr(1707, MARKETS.in)).toBe('17.07%');
    expect(formatApr(1707, MARKETS.id)).toBe('17,07%');
    expect(formatApr(0, MARKETS.id)).toBe('0,00%');
    expect(formatApr(5, MARKETS.in)).toBe('0.05%');
    expect(formatApr(10950, MARKETS.id)).toBe('109,50%');
    expect(formatApr(123456, MARKETS.in)).toBe('1,234.56%');
    expect(formatApr(123456, MARKETS.id)).toBe('1.234,56%');
  });

  it('refuses a fractional APR', () => {
    expect(() => formatApr(17.5, MARKETS.in)).toThrow(RangeError);
  });
});

describe('formatRate', () => {
  it('writes the server rate text with the market decimal separator', () => {
    expect(formatRate('0.3%', MARKETS.id)).toBe('0,3%');
    expect(formatRate('0.3%', MARKETS.in)).toBe('0.3%');
    expect(formatRate('15%', MARKETS.in)).toBe('15%');
    expect(formatRate('100%', MARKETS.id)).toBe('100%');
    expect(formatRate('0.0125%', MARKETS.id)).toBe('0,013%');
  });

  it('rounds to the decimals asked for', () => {
    expect(formatRate('0.2333334%', MARKETS.id)).toBe('0,233%');
    expect(formatRate('0.2333334%', MARKETS.id, 4)).toBe('0,2333%');
  });

  it('leaves text that is not a rate as it is', () => {
    expect(formatRate('n/a', MARKETS.id)).toBe('n/a');
  });
});
