import type { i18n as I18n } from 'i18next';
import { createI18n, type Catalog } from '@/shared/i18n/create-i18n';
import type { Language } from '@/shared/market/market';
import errorEn from './error.en.json';
import errorId from './error.id.json';

// A borrower reads one language, the one their market decides at boot, and a first visit starts at the
// login screen: so the entry carries no catalog (issue 19: the first view stays within 150 KB of compressed
// JavaScript). The market's language comes in two chunks of its own, each fetched beside screen chunks the
// app waits for anyway: the app's frame and the login screen's texts (en.json, id.json, which also hold a
// few other screens') at boot, and the other parts' (certification, loans and orders, servicing, support,
// account, money: parts-en.ts, parts-id.ts) before any screen but the login screen shows. The catalogs are
// split by part so each stays readable; their top-level keys never overlap.
const frames: Record<Language, () => Promise<{ default: Catalog }>> = {
  en: () => import('./en.json'),
  id: () => import('./id.json'),
};
const parts: Record<Language, () => Promise<{ default: Catalog }>> = {
  en: () => import('./parts-en'),
  id: () => import('./parts-id'),
};

// The error texts stay in the entry, in both languages, to say so when a catalog cannot be fetched.
const errors: Record<Language, Catalog> = { en: errorEn, id: errorId };

/** The app's i18n in `language`, once its first texts have arrived; the other language's are never fetched. */
export async function loadBorrowerI18n(language: Language): Promise<I18n> {
  const { default: catalog } = await frames[language]();
  return createBorrowerI18n(language, catalog);
}

/** i18n in `language` from its borrower catalog; without one, only the error texts. */
export function createBorrowerI18n(language: Language, catalog: Catalog = {}): I18n {
  const texts = { ...errors[language], ...catalog };
  return createI18n(language, language === 'en' ? { name: 'borrower', en: texts } : { name: 'borrower', id: texts });
}

/** Starts fetching the texts of the other parts, for a first screen that needs them. */
export function preloadPartTexts(language: Language): void {
  // A failure shows on the screen that waits for them (loadPartTexts).
  void parts[language]().catch(() => undefined);
}

const partsAdded = new WeakMap<I18n, Promise<void>>();
const partsReady = new WeakSet<I18n>();

/** Adds the texts of the other parts to `i18n`, once: the same promise on every call. */
export function loadPartTexts(i18n: I18n): Promise<void> {
  let added = partsAdded.get(i18n);
  if (!added) {
    const language = i18n.language as Language;
    added = parts[language]().then(({ default: catalog }) => {
      i18n.addResourceBundle(language, 'borrower', catalog, true);
      partsReady.add(i18n);
    });
    partsAdded.set(i18n, added);
  }
  return added;
}

/** Whether `loadPartTexts` has added them to `i18n`. */
export function hasPartTexts(i18n: I18n): boolean {
  return partsReady.has(i18n);
}
