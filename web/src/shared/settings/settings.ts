// Runtime site settings (PRODUCT.md §2): the server writes them into every HTML page, both as
// `%%KILAT:path%%` text and as JSON in `<script type="application/json" id="kilat-settings">`.
import type { SiteSettings } from '../api/types';

export type { SiteSettings };

export const SETTINGS_ELEMENT_ID = 'kilat-settings';
export const SETTINGS_JSON_PLACEHOLDER = '%%KILAT_SETTINGS_JSON%%';

/** Used by `npm run dev` and tests, where no server fills the placeholders. */
export const DEV_SETTINGS: SiteSettings = {
  companyName: 'Kilat',
  email: 'hello@kilat.example',
  address: 'Jl. Contoh No. 1, Jakarta 10110',
  copyright: '© 2026 Kilat. All rights reserved.',
  appNameEn: 'Kilat',
  appNameId: 'Kilat',
  themeBackgroundColor: '#14286b',
  backgroundFontColor: '#ffffff',
  fontColor: '#1d2433',
  servicePhone: '+62 21 5000 1000',
  whatsappNumber: '+62 812 0000 1000',
  lenderName: 'PT Kilat Dana Example',
  grievanceOfficer: { name: 'A. Officer', email: 'grievance@kilat.example', phone: '+62 21 5000 1001' },
};

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

/** The settings the server wrote into the page, or null when the block is absent, unfilled or broken. */
export function readFilledPageSettings(doc: Document = document): SiteSettings | null {
  const text = doc.getElementById(SETTINGS_ELEMENT_ID)?.textContent?.trim();
  if (!text || text === SETTINGS_JSON_PLACEHOLDER) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return isComplete(parsed, DEV_SETTINGS) ? (parsed as SiteSettings) : null;
  } catch {
    return null;
  }
}

/** Reads the settings the server wrote into the page; falls back to DEV_SETTINGS when absent or unfilled. */
export function readPageSettings(doc: Document = document): SiteSettings {
  return readFilledPageSettings(doc) ?? DEV_SETTINGS;
}
