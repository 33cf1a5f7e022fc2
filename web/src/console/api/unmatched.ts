// Money a provider reported, signed, for a reference no payment has (docs/API-CONSOLE.md, "Money no payment
// matches"): finance's list of it, and recording what they did with it (returned it, or credited it by hand).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import type { components } from '@/shared/api/schema';
import { CONSOLE_API } from './session';
import type { ApiMarket } from './types';

/** One receipt (`GET /unmatched-receipts`): `amount` in minor units or null, times epoch ms. */
export type UnmatchedReceipt = components['schemas']['UnmatchedReceiptView'];

/** `waiting` lists what finance has not dealt with yet; `all` adds the resolved ones with what was done. */
export type UnmatchedStatus = 'waiting' | 'all';

/** The same limit as the server's (characters, after trimming). */
export const MAX_RESOLUTION = 500;

const BASE = `${CONSOLE_API}/unmatched-receipts`;

/** Under `console`, so signing out forgets them; every list of them is read again after a resolve. */
export const unmatchedKeys = {
  all: ['console', 'unmatched-receipts'] as const,
  list: (market: ApiMarket | undefined, status: UnmatchedStatus) => ['console', 'unmatched-receipts', market ?? '', status] as const,
};

/** Newest first, at most 200; without a market, every market of the operator's (and money of no known market). */
export function useUnmatchedReceipts(market: ApiMarket | undefined, status: UnmatchedStatus) {
  const api = useApiClient();
  return useQuery<UnmatchedReceipt[], ApiError>({
    queryKey: unmatchedKeys.list(market, status),
    queryFn: () => {
      const query = new URLSearchParams({ status });
      if (market) query.set('market', market);
      return api.get<UnmatchedReceipt[]>(`${BASE}?${query.toString()}`);
    },
    // Read again as often as the payments queue: providers report such money at any time.
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/**
 * Records what was done with a receipt, once. The answer replaces it in every list at once (it leaves the waiting
 * ones), and every list is read again after, also after a refusal: a 409 means another operator resolved it first.
 */
export function useResolveUnmatched() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<UnmatchedReceipt, ApiError, { id: string; resolution: string; takeBack?: boolean }>({
    mutationFn: ({ id, resolution, takeBack }) =>
      api.postJson<UnmatchedReceipt>(`${BASE}/${encodeURIComponent(id)}/resolve`, takeBack ? { resolution, takeBack } : { resolution }),
    onSuccess: (done) => {
      for (const [key, list] of queryClient.getQueriesData<UnmatchedReceipt[]>({ queryKey: unmatchedKeys.all })) {
        if (!list) continue;
        const waitingOnly = key[3] === 'waiting';
        queryClient.setQueryData<UnmatchedReceipt[]>(
          key,
          waitingOnly ? list.filter((r) => r.id !== done.id) : list.map((r) => (r.id === done.id ? done : r)),
        );
      }
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: unmatchedKeys.all }),
  });
}
