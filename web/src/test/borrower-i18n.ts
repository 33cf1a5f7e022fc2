// The borrower app's i18n, ready at once: tests import both languages' catalogs, where the app fetches
// only its market's (loadBorrowerI18n).
import catalogEn from '@/borrower/i18n/catalog-en';
import catalogId from '@/borrower/i18n/catalog-id';
import { createBorrowerI18n } from '@/borrower/i18n/borrower-i18n';
import type { Language } from '@/shared/market/market';

export function borrowerI18n(language: Language) {
  return createBorrowerI18n(language, language === 'en' ? catalogEn : catalogId);
}
