import { describe, expect, it } from 'vitest';
import { blankFields, minorToText, textToMinor, textToRate, toDefinition, toFields } from './product-definition';

// The demo product `in-salary-advance` as the server answers it in `definition`.
const SALARY_ADVANCE = {
  code: 'in-salary-advance',
  name: 'Salary Advance',
  market: 'IN',
  amount: { min: 200_000, max: 2_500_000, step: 50_000 },
  interest: { rate: '0.1%', per: 'day', method: 'flat' },
  rounding: 'minor',
  terms: [
    { code: '7d', period: '7d', installments: 1 },
    { code: 'm3', period: 'monthly', installments: 3 },
  ],
  fees: [{ name: 'Processing fee', percent: '2%', fixed: 0 }],
  fees_deducted_at_disbursal: true,
  late_charge: { flat: 30_000, perDay: 2_000, maxDays: 30 },
  extension: { days: 7, feePercent: '3%', feeFixed: 0, maxExtensions: 2 },
  cooling_off_days: 3,
};

describe('money typed in the form', () => {
  it('reads rupees with grouping and up to two decimals, digit by digit', () => {
    expect(textToMinor('2000', 'IN')).toBe(200_000);
    expect(textToMinor('25,000', 'IN')).toBe(2_500_000);
    expect(textToMinor('₹ 1,00,000.5', 'IN')).toBe(10_000_050);
    // 0.29 is 28.999… as a float: read as text it is 29 paise.
    expect(textToMinor('0.29', 'IN')).toBe(29);
    expect(textToMinor('1.234', 'IN')).toBeNull();
    expect(textToMinor('-5', 'IN')).toBeNull();
    expect(textToMinor('', 'IN')).toBeNull();
    expect(textToMinor('ten', 'IN')).toBeNull();
  });

  it('reads whole rupiah with dots as thousands separators', () => {
    expect(textToMinor('1.000.000', 'ID')).toBe(100_000_000);
    expect(textToMinor('Rp 5000000', 'ID')).toBe(500_000_000);
    expect(textToMinor('1.5', 'ID')).toBeNull();
    expect(textToMinor('1000,50', 'ID')).toBeNull();
  });

  it('shows minor units in the currency', () => {
    expect(minorToText(200_000, 'IN')).toBe('2000');
    expect(minorToText(10_000_050, 'IN')).toBe('100000.50');
    expect(minorToText(100_000_000, 'ID')).toBe('1000000');
  });

  it('reads percentages as the server writes them', () => {
    expect(textToRate('0.1')).toBe('0.1%');
    expect(textToRate('24%')).toBe('24%');
    expect(textToRate('0,25')).toBe('0.25%');
    expect(textToRate('abc')).toBeNull();
    expect(textToRate('-1')).toBeNull();
  });
});

describe('a definition through the form and back', () => {
  it('comes back as it went in', () => {
    const fields = toFields(SALARY_ADVANCE, 'IN');
    expect(fields.amountMin).toBe('2000');
    expect(fields.rate).toBe('0.1');
    expect(fields.terms).toEqual([
      { code: '7d', kind: 'days', days: '7', installments: '1' },
      { code: 'm3', kind: 'monthly', days: '', installments: '3' },
    ]);
    expect(fields.latePerDay).toBe('20');
    expect(fields.extension).toBe(true);
    const back = toDefinition(fields);
    expect(back).toEqual({ definition: SALARY_ADVANCE });
  });

  it('drops the extension when it is switched off and names every field that does not read', () => {
    const fields = { ...toFields(SALARY_ADVANCE, 'IN'), extension: false };
    const back = toDefinition(fields);
    expect('definition' in back && back.definition.extension).toBeNull();

    const bad = toDefinition({
      ...fields,
      name: ' ',
      amountMin: '2,000.123',
      amountMax: '1000',
      rate: '',
      terms: [
        { code: '7d', kind: 'days', days: '0', installments: '1' },
        { code: '7d', kind: 'monthly', days: '', installments: 'x' },
      ],
      fees: [{ name: '', percent: 'two', fixed: '' }],
    });
    expect(bad).toEqual({
      problems: {
        name: 'required',
        amountMin: 'rupees',
        rate: 'required',
        'terms.0.days': 'atLeast1',
        'terms.1.code': 'duplicateTerm',
        'terms.1.installments': 'atLeast1',
        'fees.0.name': 'required',
        'fees.0.percent': 'percent',
      },
    });
  });

  it('refuses a largest amount under the smallest', () => {
    const bad = toDefinition({ ...toFields(SALARY_ADVANCE, 'IN'), amountMax: '1000' });
    expect(bad).toEqual({ problems: { amountMax: 'maxBelowMin' } });
  });

  it('starts a new Indonesian product whole-rupiah with one term', () => {
    const blank = blankFields('ID');
    expect(blank.rounding).toBe('whole');
    expect(blank.terms).toHaveLength(1);
    expect(blank.market).toBe('ID');
  });
});
