// Renders the site through its real providers, as the client entry does.
import { render } from '@testing-library/react';
import { createHttpClient } from '@/shared/api/http';
import { marketFromSearch } from '@/shared/market/market';
import { normalizePath } from '@/shared/router/router';
import { DEV_SETTINGS_BY_MARKET, type SiteSettings } from '@/shared/settings/settings';
import { SiteApp } from '@/site/app';
import { createSiteI18n } from '@/site/i18n/site-i18n';

/** Renders `url` with `settings`, by default those the server writes into that market's page. */
export function renderSite(url = '/', settings?: SiteSettings) {
  window.history.replaceState(null, '', url);
  const market = marketFromSearch(window.location.search);
  const i18n = createSiteI18n(market.language);
  const api = createHttpClient({ language: market.locale });
  return render(
    <SiteApp market={market} settings={settings ?? DEV_SETTINGS_BY_MARKET[market.id]} i18n={i18n} api={api} serverUrl={normalizePath(window.location.pathname)} />,
  );
}

/** A fetch double answering with `status` and `body` as JSON. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
