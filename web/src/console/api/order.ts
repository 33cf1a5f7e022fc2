import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ConsoleOrder, Decision } from './types';

export function orderPath(orderNo: string): string {
  return `${CONSOLE_API}/orders/${encodeURIComponent(orderNo)}`;
}

export function fetchOrder(api: HttpClient, orderNo: string): Promise<ConsoleOrder> {
  return api.get<ConsoleOrder>(orderPath(orderNo));
}

/**
 * One order as an operator sees it. A reviewer's every read is written to the audit trail (`view_unmasked`), so each
 * opening of the page is one read (never a focus refetch), and what it showed is forgotten when the page is left:
 * unmasked numbers are never shown again from the cache without a read the trail records.
 */
export function useOrder(orderNo: string) {
  const api = useApiClient();
  return useQuery<ConsoleOrder, ApiError>({
    queryKey: queryKeys.order(orderNo),
    queryFn: () => fetchOrder(api, orderNo),
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });
}

export type DecisionKind = 'approve' | 'reject';

/** What a decision carries: the team's note (never shown to the borrower) and, to reject, the reason the borrower reads. */
export interface DecisionInput {
  kind: DecisionKind;
  note: string;
  reason: string;
}

/** Approve or reject; afterwards the order and the queues are read again. Empty texts are not sent. */
export function useDecide(orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Decision, ApiError, DecisionInput>({
    mutationFn: ({ kind, note, reason }) => {
      const body: Record<string, string> = {};
      if (note) body.note = note;
      if (kind === 'reject') body.reason = reason;
      return api.postJson<Decision>(`${orderPath(orderNo)}/${kind}`, body);
    },
    // A refusal (409: someone else decided first, or holds the application) also means the page is out of date.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
      void queryClient.invalidateQueries({ queryKey: ['console', 'applications'] });
    },
  });
}
