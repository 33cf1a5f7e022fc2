// Runtime site settings (PRODUCT.md §2): the server writes them into every HTML page, both as
// `%%KILAT:path%%` text and as JSON in `<script type="application/json" id="kilat-settings">`. Each
// page gets its own market's values: the brand and that market's company (§5).
import type { SiteSettings } from '../api/types';
import type { MarketId } from '../market/market';

export type { SiteSettings };

export const SETTINGS_ELEMENT_ID = 'kilat-settings';
export const SETTINGS_JSON_PLACEHOLDER = '%%KILAT_SETTINGS_JSON%%';

/**
 * Used by `npm run dev` and tests, where no server fills the placeholders: one company per market
 * (PRODUCT.md §5), each in its market's language, with the brand shared. Like the server's demo
 * settings, they are plainly examples.
 */
export const DEV_SETTINGS_BY_MARKET: Record<MarketId, SiteSettings> = {
  id: {
    market: 'ID',
    companyName: 'Kilat',
    appNameEn: 'Kilat',
    appNameId: 'Kilat',
    themeBackgroundColor: '#14286b',
    backgroundFontColor: '#ffffff',
    fontColor: '#1d2433',
    lenderName: 'PT Kilat Dana Example',
    licence: 'Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK), nomor izin KEP-00/D.05/2026 (contoh)',
    email: 'hello@kilat.example',
    address: 'Jl. Contoh No. 1, Jakarta 10110',
    copyright: '© 2026 Kilat. All rights reserved.',
    servicePhone: '+62 21 5000 1000',
    whatsappNumber: '+62 812 0000 1000',
    whatsappUrl: 'https://wa.me/6281200001000',
    grievanceOfficer: { name: 'A. Officer', email: 'grievance@kilat.example', phone: '+62 21 5000 1001' },
    payoutClaim: '',
    usersClaim: '',
  },
  in: {
    market: 'IN',
    companyName: 'Kilat',
    appNameEn: 'Kilat',
    appNameId: 'Kilat',
    themeBackgroundColor: '#14286b',
    backgroundFontColor: '#ffffff',
    fontColor: '#1d2433',
    lenderName: 'Kilat Finance Example Private Limited (NBFC)',
    licence: 'Registered with the Reserve Bank of India as an NBFC, CoR No. N-00.00000 (example)',
    email: 'hello@in.kilat.example',
    address: '00 Example Road, Bengaluru 560001',
    copyright: '© 2026 Kilat Finance. All rights reserved.',
    servicePhone: '+91 80 0000 0100',
    whatsappNumber: '+91 90000 00100',
    whatsappUrl: 'https://wa.me/919000000100',
    grievanceOfficer: { name: 'P. Officer', email: 'grievance@in.kilat.example', phone: '+91 80 0000 0199' },
    payoutClaim: 'Money in your bank account within 2 hours.',
    usersClaim: 'Trusted by 3 million users.',
  },
};

/** The default market's (Indonesia's) development settings. */
export const DEV_SETTINGS: SiteSettings = DEV_SETTINGS_BY_MARKET.id;

/** `IN` or `ID`, as the API and the settings name a market. */
export function settingsMarket(market: MarketId): SiteSettings['market'] {
  return market === 'in' ? 'IN' : 'ID';
}

type Tree = { [key: string]: string | Tree };

function mapLeaves(tree: Tree, prefix: string): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out[key] = typeof value === 'string' ? `%%KILAT:${path}%%` : mapLeaves(value, path);
  }
  return out;
}

/**
 * Settings whose every string is its own placeholder (`%%KILAT:grievanceOfficer.email%%`).
 * Prerendering with these makes the HTML carry placeholders the server fills at run time.
 */
export function placeholderSettings(): SiteSettings {
  return mapLeaves(DEV_SETTINGS as unknown as Tree, '') as unknown as SiteSettings;
}

function isComplete(value: unknown, shape: unknown): boolean {
  if (typeof shape === 'string') return typeof value === 'string';
  if (typeof shape !== 'object' || shape === null) return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(shape).every(([key, inner]) => isComplete((value as Record<string, unknown>)[key], inner));
}

/**
 * The settings the server wrote into the page, or null when the block is absent, unfilled or broken, or
 * (with `market`) carries another market's company: each page carries its own market's.
 */
export function readFilledPageSettings(doc: Document = document, market?: MarketId): SiteSettings | null {
  const text = doc.getElementById(SETTINGS_ELEMENT_ID)?.textContent?.trim();
  if (!text || text === SETTINGS_JSON_PLACEHOLDER) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isComplete(parsed, DEV_SETTINGS)) return null;
    const settings = parsed as SiteSettings;
    return market === undefined || settings.market === settingsMarket(market) ? settings : null;
  } catch {
    return null;
  }
}

/** Reads `market`'s settings the server wrote into the page; falls back to that market's DEV settings when absent or unfilled. */
export function readPageSettings(doc: Document = document, market: MarketId = 'id'): SiteSettings {
  return readFilledPageSettings(doc, market) ?? DEV_SETTINGS_BY_MARKET[market];
}
