// Prerendering (scripts/prerender.mjs loads the SSR build of this file): each page is rendered with
// settings whose strings are their own `%%KILAT:path%%` placeholders, which the server fills at run time.
import { renderToString } from 'react-dom/server';
import { createHttpClient } from '@/shared/api/http';
import { MARKETS, type MarketId } from '@/shared/market/market';
import { formatMoney } from '@/shared/money/format-money';
import { placeholderSettings } from '@/shared/settings/settings';
import { PRERENDERED_ROUTES, SiteApp } from './app';
import { createSiteI18n } from './i18n/site-i18n';
import { OFFER_FIGURES } from './offer-figures';

export { PRERENDERED_ROUTES };

export interface PrerenderedPage {
  html: string;
  lang: string;
  title: string;
  description: string;
  themeColor: string;
}

export function render(route: string, marketId: MarketId): PrerenderedPage {
  const market = MARKETS[marketId];
  const settings = placeholderSettings();
  const i18n = createSiteI18n(market.language);
  const api = createHttpClient({ language: market.locale, pageSearch: () => '' });
  const html = renderToString(<SiteApp market={market} settings={settings} i18n={i18n} api={api} serverUrl={route} />);
  const offer = OFFER_FIGURES[marketId];
  return {
    html,
    lang: market.locale,
    title: settings.companyName,
    description: i18n.t('meta.description', {
      company: settings.companyName,
      min: formatMoney(offer.minAmount, market),
      max: formatMoney(offer.maxAmount, market),
      payoutClaim: settings.payoutClaim,
    }),
    themeColor: settings.themeBackgroundColor,
  };
}
