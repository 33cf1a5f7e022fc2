import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { Home } from './types';

export type { Home, IneligibleReason } from './types';

export const HOME_PATH = '/api/v1/borrower/home';

export function fetchHome(api: HttpClient): Promise<Home> {
  return api.get<Home>(HOME_PATH);
}

/** What the home screen shows: certification progress, the open order, whether the borrower may apply. */
export function useHome(options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.home, queryFn: () => fetchHome(api), enabled: options.enabled ?? true });
}
