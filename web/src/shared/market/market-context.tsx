import { createContext, useContext, type ReactNode } from 'react';
import { MARKETS, type Market } from './market';

const MarketContext = createContext<Market>(MARKETS.id);

export function MarketProvider({ market, children }: { market: Market; children: ReactNode }) {
  return <MarketContext.Provider value={market}>{children}</MarketContext.Provider>;
}

export function useMarket(): Market {
  return useContext(MarketContext);
}
