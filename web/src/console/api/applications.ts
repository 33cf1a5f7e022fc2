import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, QueueEntry } from './types';

export function fetchQueue(api: HttpClient, market: ApiMarket): Promise<QueueEntry[]> {
  return api.get<QueueEntry[]>(`${CONSOLE_API}/applications?market=${market}`);
}

/** The market's applications waiting for review, oldest first (the server's order), refreshed every 30 s. */
export function useQueue(market: ApiMarket) {
  const api = useApiClient();
  return useQuery<QueueEntry[], ApiError>({
    queryKey: queryKeys.queue(market),
    queryFn: () => fetchQueue(api, market),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}
