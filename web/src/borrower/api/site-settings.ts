import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import { fetchSiteSettings } from '@/shared/api/site';
import { useApiMarket } from './market-code';
import { queryKeys } from './query-keys';

export { fetchSiteSettings };

/**
 * The public settings of the visit's market (lender, licence, grievance officer, customer service, theme).
 * main.tsx seeds the cache with the copy the server wrote into the page when it is this market's, so the
 * first screen needs no request; otherwise (dev server, or a page opened without `lang` in a visit that
 * chose India) they are fetched.
 */
export function useSiteSettings() {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({ queryKey: queryKeys.siteSettings(market), queryFn: () => fetchSiteSettings(api, market), staleTime: 5 * 60_000 });
}
