import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS, DEV_SETTINGS_BY_MARKET, placeholderSettings, readFilledPageSettings, readPageSettings } from './settings';

function page(json: string): Document {
  const doc = document.implementation.createHTMLDocument('t');
  doc.body.innerHTML = `<script type="application/json" id="kilat-settings">${json}</script>`;
  return doc;
}

describe('site settings', () => {
  it('makes every string its own dotted placeholder', () => {
    const settings = placeholderSettings();
    expect(settings.companyName).toBe('%%KILAT:companyName%%');
    expect(settings.grievanceOfficer.email).toBe('%%KILAT:grievanceOfficer.email%%');
    expect(settings.themeBackgroundColor).toBe('%%KILAT:themeBackgroundColor%%');
  });

  it('reads the settings the server wrote into the page', () => {
    const real = { ...DEV_SETTINGS, companyName: 'Contoh & Co' };
    expect(readPageSettings(page(JSON.stringify(real).replace(/&/g, '\\u0026'))).companyName).toBe('Contoh & Co');
  });

  it('falls back to the development settings when the block is unfilled or broken', () => {
    expect(readPageSettings(page('%%KILAT_SETTINGS_JSON%%'))).toBe(DEV_SETTINGS);
    expect(readPageSettings(page('{"companyName": 1}'))).toBe(DEV_SETTINGS);
    expect(readPageSettings(page('not json'))).toBe(DEV_SETTINGS);
  });

  it('takes the page’s settings only for the market they were rendered for', () => {
    const india = page(JSON.stringify(DEV_SETTINGS_BY_MARKET.in));
    expect(readFilledPageSettings(india, 'in')).toEqual(DEV_SETTINGS_BY_MARKET.in);
    expect(readFilledPageSettings(india, 'id')).toBeNull();
    expect(readPageSettings(india, 'id')).toBe(DEV_SETTINGS_BY_MARKET.id);
    expect(readPageSettings(page('%%KILAT_SETTINGS_JSON%%'), 'in')).toBe(DEV_SETTINGS_BY_MARKET.in);
    expect(placeholderSettings().licence).toBe('%%KILAT:licence%%');
  });

  it('tells an unfilled block apart for areas that then ask the API', () => {
    expect(readFilledPageSettings(page('%%KILAT_SETTINGS_JSON%%'))).toBeNull();
    expect(readFilledPageSettings(page('not json'))).toBeNull();
    expect(readFilledPageSettings(page(JSON.stringify(DEV_SETTINGS)))).toEqual(DEV_SETTINGS);
  });
});
