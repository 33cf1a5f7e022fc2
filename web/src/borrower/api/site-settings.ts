import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import { fetchSiteSettings } from '@/shared/api/site';
import { queryKeys } from './query-keys';

export { fetchSiteSettings };

/**
 * The public settings (lender name, customer service, theme). main.tsx seeds the cache with the copy the
 * server wrote into the page, so the first screen needs no request; without it (dev server) they are fetched.
 */
export function useSiteSettings() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.siteSettings, queryFn: () => fetchSiteSettings(api), staleTime: 5 * 60_000 });
}
