// The admins' dashboard (docs/API-CONSOLE.md, "Dashboard"): the last 30 days of one market.
import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, DashboardView } from './types';

export function fetchDashboard(api: HttpClient, market: ApiMarket): Promise<DashboardView> {
  return api.get<DashboardView>(`${CONSOLE_API}/dashboard?market=${market}`);
}

export function useDashboard(market: ApiMarket) {
  const api = useApiClient();
  return useQuery<DashboardView, ApiError>({
    queryKey: queryKeys.dashboard(market),
    queryFn: () => fetchDashboard(api, market),
    staleTime: 60_000,
  });
}
