import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPhone, formatPhoneInput, phoneDigits } from './phone';

describe('phone metadata', () => {
  it('is the installed libphonenumber-js min metadata for India and Indonesia', () => {
    const script = resolve(__dirname, '../../../scripts/phone-metadata.mjs');
    const generated = execFileSync(process.execPath, [script, '--print'], { encoding: 'utf8' });
    const committed = readFileSync(resolve(__dirname, 'metadata.json'), 'utf8');
    expect(committed, 'src/shared/phone/metadata.json is stale: run `npm run gen:phone-metadata`').toBe(generated);
  });
});

describe('phone numbers in India', () => {
  it.each([
    ['9876543210', '98765 43210'],
    ['98765', '98765'],
    ['+91 98765 43210', '98765 43210'],
    ['919876543210', '98765 43210'],
    ['09876543210', '98765 43210'],
    ['98765432109999', '98765 43210'],
    ['91987654321', '91987 65432'],
  ])('formats %s as %s', (input, shown) => {
    expect(formatPhoneInput(input, 'in')).toBe(shown);
  });

  it('accepts 10 digits starting 6 to 9 and gives E.164', () => {
    expect(checkPhone('98765 43210', 'in')).toEqual({ ok: true, e164: '+919876543210' });
    expect(checkPhone('+91 6000 000 000', 'in')).toEqual({ ok: true, e164: '+916000000000' });
  });

  it.each(['5876543210', '98765 4321', '1234567890', '+7 912 345 6789', '+9'])('refuses %s', (input) => {
    expect(checkPhone(input, 'in')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('keeps the + while the country code is typed, then shows the number as at home', () => {
    let shown = '';
    const shownAfterEach: string[] = [];
    for (const key of '+91 98765 43210') {
      shown = formatPhoneInput(shown + key, 'in');
      shownAfterEach.push(shown);
    }
    expect(shownAfterEach.slice(0, 4)).toEqual(['+', '+9', '+91', '+91']);
    expect(shown).toBe('98765 43210');
    expect(formatPhoneInput('+7 912', 'in')).toBe('+7912');
  });

  it('asks for a number when there is none', () => {
    expect(checkPhone('  ', 'in')).toEqual({ ok: false, reason: 'required' });
  });
});

describe('phone numbers in Indonesia', () => {
  it.each([
    ['081234567890', '0812-3456-7890'],
    ['+62 812 3456 7890', '0812-3456-7890'],
    ['6281234567890', '0812-3456-7890'],
    ['0812', '0812'],
  ])('formats %s as %s', (input, shown) => {
    expect(formatPhoneInput(input, 'id')).toBe(shown);
  });

  it('accepts 08… with 10 to 13 digits and gives E.164', () => {
    expect(checkPhone('0812-3456-7890', 'id')).toEqual({ ok: true, e164: '+6281234567890' });
    expect(checkPhone('0812345678', 'id')).toEqual({ ok: true, e164: '+62812345678' });
    expect(checkPhone('0812345678901', 'id')).toEqual({ ok: true, e164: '+62812345678901' });
    expect(checkPhone('+62 812 3456 7890', 'id')).toEqual({ ok: true, e164: '+6281234567890' });
  });

  it('keeps the + while the country code is typed, then shows the number as at home', () => {
    let shown = '';
    for (const key of '+62 812 3456 7890') shown = formatPhoneInput(shown + key, 'id');
    expect(shown).toBe('0812-3456-7890');
  });

  it.each(['081234567', '0212345678', '812345678', '+60 12 345 6789'])('refuses %s', (input) => {
    expect(checkPhone(input, 'id')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('never keeps more than 13 digits', () => {
    expect(phoneDigits('08123456789012345', 'id')).toBe('0812345678901');
  });
});
