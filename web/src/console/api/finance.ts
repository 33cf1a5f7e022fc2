// Finance's work (docs/API-CONSOLE.md): approved orders awaiting payout and the disburse action, the queue of
// submitted UTRs, held payments and refunds due, and confirming, rejecting, resolving or refunding one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './order';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, Confirmed, Disbursed, PaymentView, PayoutEntry, QueueCount, QueuedPayment } from './types';

export function fetchPayouts(api: HttpClient, market: ApiMarket): Promise<PayoutEntry[]> {
  return api.get<PayoutEntry[]>(`${CONSOLE_API}/payouts?market=${market}`);
}

/** The market's approved orders not yet paid out, longest waiting first (the server's order). */
export function usePayouts(market: ApiMarket) {
  const api = useApiClient();
  return useQuery<PayoutEntry[], ApiError>({
    queryKey: queryKeys.payouts(market),
    queryFn: () => fetchPayouts(api, market),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/** Releases an order's funds with the bank reference of the transfer; the lists and the order are read again after. */
export function useDisburse() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Disbursed, ApiError, { orderNo: string; bankReference: string }>({
    mutationFn: ({ orderNo, bankReference }) => api.postJson<Disbursed>(`${orderPath(orderNo)}/disburse`, { bankReference }),
    onSettled: (_data, _error, { orderNo }) => {
      void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
    },
  });
}

/** What finance's queue is narrowed to: a market (`IN`, `ID`) and a UTR, payment reference or order number. */
export interface QueueFilter {
  market?: ApiMarket;
  q?: string;
}

/** The query string of a filter (`?market=IN&q=…`), empty without one. */
export function queueQuery(filter: QueueFilter): string {
  const params = new URLSearchParams();
  if (filter.market) params.set('market', filter.market);
  if (filter.q?.trim()) params.set('q', filter.q.trim());
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function fetchPayments(api: HttpClient, filter: QueueFilter = {}): Promise<QueuedPayment[]> {
  return api.get<QueuedPayment[]>(`${CONSOLE_API}/payments${queueQuery(filter)}`);
}

/** Payments whose UTR waits for verification, amounts held and refunds due, oldest first, narrowed by `filter`. */
export function usePaymentsQueue(filter: QueueFilter = {}) {
  const api = useApiClient();
  return useQuery<QueuedPayment[], ApiError>({
    queryKey: [...queryKeys.payments, 'list', filter.market ?? '', filter.q?.trim() ?? ''],
    queryFn: () => fetchPayments(api, filter),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/** How many payments wait per market and status. */
export function usePaymentCounts() {
  const api = useApiClient();
  return useQuery<QueueCount[], ApiError>({
    queryKey: queryKeys.paymentCounts,
    queryFn: () => api.get<QueueCount[]>(`${CONSOLE_API}/payments/counts`),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/** The CSV export of the queue as filtered (a plain link: the console cookie goes with it). */
export function exportHref(filter: QueueFilter): string {
  return `${CONSOLE_API}/payments/export${queueQuery(filter)}`;
}

function paymentPath(paymentId: string): string {
  return `${CONSOLE_API}/payments/${encodeURIComponent(paymentId)}`;
}

/** Confirms a payment with the amount received (minor units). */
export function useConfirmPayment() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Confirmed, ApiError, { paymentId: string; amount: number }>({
    mutationFn: ({ paymentId, amount }) => api.postJson<Confirmed>(`${paymentPath(paymentId)}/confirm`, { amount }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}

/** Rejects a payment with the reason the borrower is shown. */
export function useRejectPayment() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PaymentView, ApiError, { paymentId: string; reason: string }>({
    mutationFn: ({ paymentId, reason }) => api.postJson<PaymentView>(`${paymentPath(paymentId)}/reject`, { reason }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}

/** What finance does with a held payment: credit the amount received to the loan, or owe all of it back. */
export type ResolveAction = 'credit' | 'refund';

/** Resolves a held payment with the amount received as it stands: credited, or to be refunded. */
export function useResolvePayment() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Confirmed, ApiError, { paymentId: string; action: ResolveAction }>({
    mutationFn: ({ paymentId, action }) => api.postJson<Confirmed>(`${paymentPath(paymentId)}/resolve`, { action }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}

/** Records the bank transfer that sent a refund due back to the borrower. */
export function useRecordRefund() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PaymentView, ApiError, { paymentId: string; bankReference: string }>({
    mutationFn: ({ paymentId, bankReference }) => api.postJson<PaymentView>(`${paymentPath(paymentId)}/refund`, { bankReference }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}
