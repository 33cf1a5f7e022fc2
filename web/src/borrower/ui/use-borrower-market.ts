import { useEffect } from 'react';
import { MARKETS, type Market } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';

/** The URL that opens the same page in `market`: its `lang` parameter set, so the choice is remembered. */
export function urlInMarket(href: string, market: Market): string {
  const url = new URL(href);
  url.searchParams.set('lang', market.id === 'in' ? '1' : '0');
  return url.href;
}

/** How the page opens another URL in its place; an object, so a test (whose jsdom cannot load a page) can watch it. */
export const pageLocation = {
  replace: (href: string): void => window.location.replace(href),
};

/**
 * A signed-in borrower belongs to one market (`IN` or `ID`, from the API). When the app was opened in the
 * other one (a bookmark without `?lang=1`, a shared tablet), the page is opened again in the borrower's
 * market, so their screens, amounts and documents are in their language.
 */
export function useFollowBorrowerMarket(apiMarket: string | undefined, reload: (href: string) => void = pageLocation.replace): void {
  const market = useMarket();
  useEffect(() => {
    if (apiMarket !== 'IN' && apiMarket !== 'ID') return;
    const wanted = apiMarket === 'IN' ? MARKETS.in : MARKETS.id;
    if (wanted.id !== market.id) reload(urlInMarket(window.location.href, wanted));
  }, [apiMarket, market, reload]);
}
