import { describe, expect, it } from 'vitest';

// Every Indonesian catalog of the borrower app, with the path of each text in it.
const catalogs = import.meta.glob<{ default: unknown }>(['./id.json', './*.id.json'], { eager: true });

function texts(value: unknown, path: string): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => texts(item, `${path}.${index}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => texts(item, `${path}.${key}`));
  return [];
}

const indonesian = Object.entries(catalogs).flatMap(([file, module]) => texts(module.default, file));

describe('the Indonesian texts', () => {
  it('are all there', () => {
    expect(Object.keys(catalogs).sort()).toEqual([
      './account.id.json',
      './cert.id.json',
      './error.id.json',
      './id.json',
      './loans.id.json',
      './money.id.json',
      './servicing.id.json',
      './support.id.json',
    ]);
  });

  it('call an installment "cicilan" everywhere, never "angsuran"', () => {
    expect(indonesian.filter(([, text]) => /angsuran/i.test(text)).map(([path]) => path)).toEqual([]);
  });

  it('name the Key Fact Statement "Ringkasan Informasi Pinjaman", never by its English initials', () => {
    expect(indonesian.filter(([, text]) => /\bKFS\b/.test(text)).map(([path]) => path)).toEqual([]);
  });
});
