import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { queryKeys } from './query-keys';
import type { PrivacyPolicy } from './types';

export type { PrivacyPolicy } from './types';

export const PRIVACY_PATH = '/api/v1/borrower/privacy';

export function fetchPrivacyPolicy(api: HttpClient): Promise<PrivacyPolicy> {
  return api.get<PrivacyPolicy>(PRIVACY_PATH);
}

/** Public and per language, so it survives log-out and is kept apart for each language. */
export function usePrivacyPolicy() {
  const api = useApiClient();
  const { language } = useMarket();
  return useQuery({ queryKey: queryKeys.privacy(language), queryFn: () => fetchPrivacyPolicy(api), staleTime: 30 * 60_000 });
}
