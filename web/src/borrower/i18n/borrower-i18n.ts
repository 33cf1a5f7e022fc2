import { createI18n } from '@/shared/i18n/create-i18n';
import type { Language } from '@/shared/market/market';
import en from './en.json';
import id from './id.json';

export function createBorrowerI18n(language: Language) {
  return createI18n(language, { name: 'borrower', en, id });
}
