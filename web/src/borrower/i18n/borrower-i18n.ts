import type { i18n as I18n } from 'i18next';
import { createI18n, type Catalog } from '@/shared/i18n/create-i18n';
import type { Language } from '@/shared/market/market';
import errorEn from './error.en.json';
import errorId from './error.id.json';

// A borrower reads one language, the one their market decides at boot, so the entry carries neither
// language's catalogs: each language's is a chunk of its own (catalog-en.ts, catalog-id.ts), fetched beside
// the first screen's chunk (issue 19: the first view stays within 150 KB of compressed JavaScript).
// The catalogs are split by part of the app (certification, loans and orders, the rest) so each stays
// readable; their top-level keys never overlap.
const catalogs: Record<Language, () => Promise<{ default: Catalog }>> = {
  en: () => import('./catalog-en'),
  id: () => import('./catalog-id'),
};

// The error texts stay in the entry, in both languages, to say so when the catalog cannot be fetched.
const errors: Record<Language, Catalog> = { en: errorEn, id: errorId };

/** The app's i18n in `language`, once its catalog has arrived; the other language's is never fetched. */
export async function loadBorrowerI18n(language: Language): Promise<I18n> {
  const { default: catalog } = await catalogs[language]();
  return createBorrowerI18n(language, catalog);
}

/** i18n in `language` from its borrower catalog; without one, only the error texts. */
export function createBorrowerI18n(language: Language, catalog: Catalog = {}): I18n {
  const texts = { ...errors[language], ...catalog };
  return createI18n(language, language === 'en' ? { name: 'borrower', en: texts } : { name: 'borrower', id: texts });
}
