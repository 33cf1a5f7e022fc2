import { createI18n } from '@/shared/i18n/create-i18n';
import type { Language } from '@/shared/market/market';
import en from './en.json';
import id from './id.json';

export function createSiteI18n(language: Language) {
  return createI18n(language, { name: 'site', en, id });
}
