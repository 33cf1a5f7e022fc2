// Collections (docs/API-CONSOLE.md, "Collections"): the overdue queue per market with its bucket counts, a loan's
// collections panel, contact attempts, promises to pay, the borrower's full phone (audited) and a loan's contact
// history for the order view.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import { CONSOLE_API } from './session';
import type {
  ApiMarket,
  CollectionsCase,
  CollectionsQueue,
  ContactHistory,
  ContactLoggedWithPromise,
  PromiseToPay,
  RevealedPhone,
} from './types';

/** The days-past-due buckets, in order. */
export const BUCKETS = ['1-7', '8-30', '31-60', '61-90', '90+'] as const;
export type Bucket = (typeof BUCKETS)[number];
export const CHANNELS = ['call', 'sms', 'whatsapp', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];
export const OUTCOMES = ['reached', 'no_answer', 'busy', 'wrong_number', 'refused', 'promised', 'disputed', 'left_message'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type QueueSort = 'dpd_desc' | 'dpd_asc';

export interface QueueFilter {
  market: ApiMarket;
  bucket: Bucket | null;
  sort: QueueSort;
  page: number;
}

export const PAGE_SIZE = 50;

const keys = {
  queue: (f: QueueFilter) => ['console', 'collections', 'queue', f] as const,
  case: (orderNo: string) => ['console', 'collections', 'case', orderNo] as const,
  history: (orderNo: string) => ['console', 'collections', 'history', orderNo] as const,
};

export function collectionsPath(orderNo: string): string {
  return `${CONSOLE_API}/collections/${encodeURIComponent(orderNo)}`;
}

/** The query string of the queue for a filter. */
export function queueQuery(f: QueueFilter): string {
  const params = new URLSearchParams({ market: f.market, sort: f.sort, page: String(f.page), pageSize: String(PAGE_SIZE) });
  if (f.bucket) params.set('bucket', f.bucket);
  return params.toString();
}

export function useCollectionsQueue(filter: QueueFilter) {
  const api = useApiClient();
  return useQuery<CollectionsQueue, ApiError>({
    queryKey: keys.queue(filter),
    queryFn: () => api.get<CollectionsQueue>(`${CONSOLE_API}/collections?${queueQuery(filter)}`),
    staleTime: 0,
    // The contact hours and the market's clock shown with the queue stay current.
    refetchInterval: 60_000,
  });
}

export function useCollectionsCase(orderNo: string) {
  const api = useApiClient();
  return useQuery<CollectionsCase, ApiError>({
    queryKey: keys.case(orderNo),
    queryFn: () => api.get<CollectionsCase>(collectionsPath(orderNo)),
    staleTime: 0,
    refetchInterval: 60_000,
  });
}

/** The contact history of a paid-out loan (the order view). */
export function useContactHistory(orderNo: string, enabled: boolean) {
  const api = useApiClient();
  return useQuery<ContactHistory, ApiError>({
    queryKey: keys.history(orderNo),
    queryFn: () => api.get<ContactHistory>(`${collectionsPath(orderNo)}/history`),
    enabled,
  });
}

/** After a contact or a promise: the case (its contacts and promises), the order view's history and the queue's rows. */
function useRefreshAfter(orderNo: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: keys.case(orderNo) });
    void client.invalidateQueries({ queryKey: keys.history(orderNo) });
    void client.invalidateQueries({ queryKey: ['console', 'collections', 'queue'] });
  };
}

/**
 * A contact attempt; the outcome `promised` carries the promise made (recorded with it), any other none. `attemptedAt`
 * (`HH:MM` of the market's today) is when it was made, if not just now: the calling hours are checked at it.
 */
export type ContactInput = { channel: Channel; note: string; attemptedAt?: string } & (
  | { outcome: Exclude<Outcome, 'promised'> }
  | { outcome: 'promised'; promiseDate: string; promiseAmount: number }
);

export function useLogContact(orderNo: string) {
  const api = useApiClient();
  const refresh = useRefreshAfter(orderNo);
  return useMutation<ContactLoggedWithPromise, ApiError, ContactInput>({
    mutationFn: (input) => api.postJson<ContactLoggedWithPromise>(`${collectionsPath(orderNo)}/contacts`, { ...input }),
    onSuccess: refresh,
  });
}

export interface PromiseInput {
  date: string;
  amount: number;
}

export function usePromiseToPay(orderNo: string) {
  const api = useApiClient();
  const refresh = useRefreshAfter(orderNo);
  return useMutation<PromiseToPay, ApiError, PromiseInput>({
    mutationFn: (input) => api.postJson<PromiseToPay>(`${collectionsPath(orderNo)}/promises`, { ...input }),
    onSuccess: refresh,
  });
}

/** The borrower's full number: each request is written to the audit trail, so it is never cached. */
export function useRevealPhone(orderNo: string) {
  const api = useApiClient();
  return useMutation<RevealedPhone, ApiError, void>({
    mutationFn: () => api.postJson<RevealedPhone>(`${collectionsPath(orderNo)}/phone`, {}),
  });
}
