// The borrower app's i18n, ready at once: tests import both languages' catalogs, where the app fetches
// only its market's (borrower-i18n.ts).
import { createBorrowerI18n } from '@/borrower/i18n/borrower-i18n';
import en from '@/borrower/i18n/en.json';
import id from '@/borrower/i18n/id.json';
import partsEn from '@/borrower/i18n/parts-en';
import partsId from '@/borrower/i18n/parts-id';
import type { Language } from '@/shared/market/market';

export function borrowerI18n(language: Language) {
  return createBorrowerI18n(language, language === 'en' ? { ...en, ...partsEn } : { ...id, ...partsId });
}
