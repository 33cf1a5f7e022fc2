import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { useApiMarket } from './market-code';
import { queryKeys } from './query-keys';
import type { ApiMarket, LoginInit } from './types';

export const LOGIN_INIT_PATH = '/api/v1/borrower/login/init';

export function fetchLoginInit(api: HttpClient, market: ApiMarket): Promise<LoginInit> {
  return api.get<LoginInit>(`${LOGIN_INIT_PATH}?market=${market}`);
}

/** What the login screen needs for the market: country code, code length, resend wait, voice offer, links. */
export function useLoginInit() {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({
    queryKey: queryKeys.loginInit(market),
    queryFn: () => fetchLoginInit(api, market),
    staleTime: 5 * 60_000,
  });
}
