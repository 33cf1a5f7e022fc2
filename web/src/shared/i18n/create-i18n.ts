// i18next with catalogs per area: `shared` (this folder) plus the area's own namespace.
// Initialised synchronously, so the server render and the hydrating client see the same texts.
import i18next, { type i18n as I18n, type Resource } from 'i18next';
import type { Language } from '../market/market';
import sharedEn from './en.json';
import sharedId from './id.json';

export type Catalog = Record<string, unknown>;

/**
 * `area` holds the area's catalog in each language the page may show: the site and the console pass both;
 * the borrower app only its market's, fetched at boot.
 */
export function createI18n(language: Language, area: { name: string } & Partial<Record<Language, Catalog>>): I18n {
  const resources: Resource = {
    en: { shared: sharedEn, ...(area.en && { [area.name]: area.en }) },
    id: { shared: sharedId, ...(area.id && { [area.name]: area.id }) },
  };
  const instance = i18next.createInstance();
  void instance.init({
    lng: language,
    fallbackLng: false,
    supportedLngs: ['en', 'id'],
    ns: ['shared', area.name],
    defaultNS: area.name,
    resources,
    initAsync: false,
    // React escapes text itself.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return instance;
}
