import { createI18n } from '@/shared/i18n/create-i18n';
import type { Language } from '@/shared/market/market';
import accountEn from './account.en.json';
import accountId from './account.id.json';
import certEn from './cert.en.json';
import certId from './cert.id.json';
import en from './en.json';
import id from './id.json';
import loansEn from './loans.en.json';
import loansId from './loans.id.json';
import moneyEn from './money.en.json';
import moneyId from './money.id.json';
import servicingEn from './servicing.en.json';
import servicingId from './servicing.id.json';
import supportEn from './support.en.json';
import supportId from './support.id.json';

// The catalogs are split by part of the app (certification, loans and orders, the rest) so each stays
// readable; their top-level keys never overlap.
export function createBorrowerI18n(language: Language) {
  return createI18n(language, {
    name: 'borrower',
    en: { ...en, ...certEn, ...loansEn, ...servicingEn, ...supportEn, ...accountEn, ...moneyEn },
    id: { ...id, ...certId, ...loansId, ...servicingId, ...supportId, ...accountId, ...moneyId },
  });
}
