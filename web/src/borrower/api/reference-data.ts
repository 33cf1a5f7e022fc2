// Reference data for the certification forms (docs/API-BORROWER.md, "Reference data"): public, localised
// by Accept-Language (which follows the market), and shipped with the server binary, so it does not change
// while the app is open.
import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { useApiMarket } from './market-code';
import { queryKeys } from './query-keys';
import type { ApiMarket, Cities, Enums } from './types';

export type { BankOption, Cities, City, EnumOption, Enums, Region } from './types';

export const ENUMS_PATH = '/api/v1/borrower/enums';
export const CITIES_PATH = '/api/v1/borrower/cities';

export function fetchEnums(api: HttpClient, market: ApiMarket): Promise<Enums> {
  return api.get<Enums>(`${ENUMS_PATH}?market=${market}`);
}

export function fetchCities(api: HttpClient, market: ApiMarket): Promise<Cities> {
  return api.get<Cities>(`${CITIES_PATH}?market=${market}`);
}

// Static for the life of a server build: fetched once per visit and kept while the app is open.
const STATIC = { staleTime: Infinity, gcTime: 24 * 60 * 60_000 } as const;

/** The enumerations and rules of the borrower's market. */
export function useEnums() {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({ queryKey: queryKeys.enums(market), queryFn: () => fetchEnums(api, market), ...STATIC });
}

/** The regions of the borrower's market and their cities. */
export function useCities(options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({ queryKey: queryKeys.cities(market), queryFn: () => fetchCities(api, market), enabled: options.enabled, ...STATIC });
}
