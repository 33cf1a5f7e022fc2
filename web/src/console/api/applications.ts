import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './order';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, ClaimView, QueueCount, QueueEntry } from './types';

/** Applications per page of the queue (the server takes 1 to 100). */
export const QUEUE_PAGE_SIZE = 50;

export function fetchQueue(api: HttpClient, market: ApiMarket, page = 1): Promise<QueueEntry[]> {
  return api.get<QueueEntry[]>(`${CONSOLE_API}/applications?market=${market}&page=${page}&pageSize=${QUEUE_PAGE_SIZE}`);
}

/** One page of the market's applications waiting for review, oldest first (the server's order), refreshed every 30 s. */
export function useQueue(market: ApiMarket, page = 1) {
  const api = useApiClient();
  return useQuery<QueueEntry[], ApiError>({
    queryKey: [...queryKeys.queue(market), page],
    queryFn: () => fetchQueue(api, market, page),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/** How many applications wait in each market, and how many a reviewer holds; refreshed with the queue. */
export function useQueueCounts() {
  const api = useApiClient();
  return useQuery<QueueCount[], ApiError>({
    queryKey: ['console', 'applications', 'counts'],
    queryFn: () => api.get<QueueCount[]>(`${CONSOLE_API}/applications/counts`),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

export type ClaimAction = 'claim' | 'release';

/**
 * Claims an application (30 minutes, renewed by claiming again) or releases a claim; afterwards the order and the
 * queues are read again (a refusal, 409 `application_claimed`, also means the page is out of date).
 */
export function useClaim(orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<ClaimView | { orderNo: string }, ApiError, ClaimAction>({
    mutationFn: (action) => api.postJson<ClaimView | { orderNo: string }>(`${orderPath(orderNo)}/${action}`, {}),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
      void queryClient.invalidateQueries({ queryKey: ['console', 'applications'] });
    },
  });
}
