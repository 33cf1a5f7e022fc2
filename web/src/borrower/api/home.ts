import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import type { OrderStatus } from './orders';
import { queryKeys } from './query-keys';
import type { ApiMarket, Product } from './types';

// Written by hand from docs/API-BORROWER.md ("Home and recommendations").

export const HOME_PATH = '/api/v1/borrower/home';

/**
 * Why the borrower may not apply now. The server may add reasons later: an unknown one still shows, as a
 * general sentence.
 */
export type IneligibleReason = 'certification_incomplete' | 'open_order' | 'income_below_minimum' | (string & {});

export interface Home {
  market: ApiMarket;
  phoneMasked: string;
  lenderName: string;
  certification: {
    complete: boolean;
    /** The first step not done yet (`base`, `personal`, `job`, `extended`, `bank`), or null when complete. */
    next: string | null;
    done: number;
    total: number;
  };
  /** The order still running (not rejected, cancelled, repaid or exited), if any. */
  openOrder: { orderNo: string; status: OrderStatus; amount: number; createdAt: number } | null;
  eligible: boolean;
  reasons: IneligibleReason[];
  products: Product[];
}

export function fetchHome(api: HttpClient): Promise<Home> {
  return api.get<Home>(HOME_PATH);
}

/** What the home screen shows: certification progress, the open order, whether the borrower may apply. */
export function useHome() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.home, queryFn: () => fetchHome(api) });
}
