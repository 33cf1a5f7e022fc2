import { describe, expect, it } from 'vitest';
import { majorFromMinor, minorFromMajor } from './major-units';

// One table for the borrower's money keyboard (plain) and the console's amount fields (grouping allowed).
describe('minorFromMajor', () => {
  it.each<[string, number | null, number | null]>([
    // text, as the keyboard types it, as the console reads it
    ['', null, null],
    ['.', null, null],
    ['0', 0, 0],
    ['0.', 0, 0],
    ['12', 1200, 1200],
    ['12.5', 1250, 1250],
    ['12.05', 1205, 1205],
    ['0.01', 1, 1],
    ['0.29', 29, 29],
    ['25000', 2500000, 2500000],
    // Binary floating point would make this 1.1 × 100 = 110.00000000000001.
    ['1.1', 110, 110],
    ['3500.25', 350025, 350025],
    ['999999999999.99', 99999999999999, 99999999999999],
    ['3,500.2', null, 350020],
    [' 1 000 000 ', null, 100000000],
    ['1,00,000', null, 10000000],
    ['1,5', null, 1500],
    ['12.345', null, null],
    ['1.005', null, null],
    ['-5', null, null],
    ['1e3', null, null],
    ['0x10', null, null],
    // Beyond a safe integer of minor units.
    ['999999999999999', null, null],
  ])('reads %j as %j (keyboard) and %j (console)', (text, plain, grouped) => {
    expect(minorFromMajor(text)).toBe(plain);
    expect(minorFromMajor(text, { grouping: true })).toBe(grouped);
  });

  it('stops at the integer digits it is given', () => {
    expect(minorFromMajor('1234567890123', { maxIntegerDigits: 12 })).toBeNull();
    expect(minorFromMajor('123456789012', { maxIntegerDigits: 12 })).toBe(12345678901200);
  });
});

describe('majorFromMinor', () => {
  it.each<[number, string, string]>([
    // minor, exact (console prefill), shortest (keyboard)
    [0, '0', '0'],
    [5, '0.05', '0.05'],
    [10, '0.10', '0.1'],
    [350000, '3500', '3500'],
    [350025, '3500.25', '3500.25'],
    [250050, '2500.50', '2500.5'],
    [250005, '2500.05', '2500.05'],
    [2500000, '25000', '25000'],
    [99999999999999, '999999999999.99', '999999999999.99'],
  ])('writes %j as %j and %j', (minor, exact, shortest) => {
    expect(majorFromMinor(minor)).toBe(exact);
    expect(majorFromMinor(minor, { shortest: true })).toBe(shortest);
  });

  it('types back what it reads, both ways', () => {
    for (const minor of [0, 1, 10, 110, 350025, 99999999999999]) {
      expect(minorFromMajor(majorFromMinor(minor))).toBe(minor);
      expect(minorFromMajor(majorFromMinor(minor, { shortest: true }))).toBe(minor);
    }
  });

  it('answers nothing for what is not a non-negative safe integer', () => {
    expect(majorFromMinor(-1)).toBe('');
    expect(majorFromMinor(1.5)).toBe('');
    expect(majorFromMinor(Number.MAX_SAFE_INTEGER + 2)).toBe('');
  });
});
