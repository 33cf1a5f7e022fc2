import type { Market } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import type { ApiMarket } from './types';

export function apiMarket(market: Market): ApiMarket {
  return market.id === 'in' ? 'IN' : 'ID';
}

export function useApiMarket(): ApiMarket {
  return apiMarket(useMarket());
}
