// The market is chosen by the page URL's `lang` parameter (PRODUCT.md §1): `lang=1` is India,
// anything else or none is Indonesia. The server picks the prerendered page by the same rule.

export type MarketId = 'in' | 'id';
export type Language = 'en' | 'id';

export interface Market {
  id: MarketId;
  /** i18n language of the catalogs. */
  language: Language;
  /** BCP 47 tag for `<html lang>`, `Intl` and `Accept-Language`. */
  locale: 'en-IN' | 'id-ID';
  currency: 'INR' | 'IDR';
  /** The `lang` query value that selects this market, or null for the default market. */
  langParam: string | null;
}

export const MARKETS: Record<MarketId, Market> = {
  in: { id: 'in', language: 'en', locale: 'en-IN', currency: 'INR', langParam: '1' },
  id: { id: 'id', language: 'id', locale: 'id-ID', currency: 'IDR', langParam: null },
};

/** The market whose money is in `currency`: an amount is shown in its own currency, whatever the page's market. */
export function marketOfCurrency(currency: Market['currency']): Market {
  return currency === 'INR' ? MARKETS.in : MARKETS.id;
}

export function marketFromSearch(search: string): Market {
  return new URLSearchParams(search).get('lang') === '1' ? MARKETS.in : MARKETS.id;
}

export const MARKET_STORAGE_KEY = 'kilat.market';

/**
 * The market for a page that keeps the choice for the visit (the borrower app): a `lang` parameter in
 * the URL decides as in `marketFromSearch` and is remembered in `storage` (sessionStorage), so later
 * pages without the parameter keep the market; without either, Indonesia.
 */
export function marketForVisit(search: string, storage: Pick<Storage, 'getItem' | 'setItem'> | null): Market {
  if (new URLSearchParams(search).has('lang')) {
    const market = marketFromSearch(search);
    try {
      storage?.setItem(MARKET_STORAGE_KEY, market.id);
    } catch {
      // Storage can be full or disabled (private mode): the market still holds for this page.
    }
    return market;
  }
  try {
    return storage?.getItem(MARKET_STORAGE_KEY) === 'in' ? MARKETS.in : MARKETS.id;
  } catch {
    return MARKETS.id;
  }
}

/** `href` with the market's `lang` parameter, so the choice sticks for the visit. */
export function withLang(href: string, market: Market): string {
  const hashAt = href.indexOf('#');
  const hash = hashAt >= 0 ? href.slice(hashAt) : '';
  const rest = hashAt >= 0 ? href.slice(0, hashAt) : href;
  const queryAt = rest.indexOf('?');
  const path = queryAt >= 0 ? rest.slice(0, queryAt) : rest;
  const params = new URLSearchParams(queryAt >= 0 ? rest.slice(queryAt + 1) : '');
  if (market.langParam === null) params.delete('lang');
  else params.set('lang', market.langParam);
  const query = params.toString();
  return `${path || '/'}${query ? `?${query}` : ''}${hash}`;
}
