// Finance's work (docs/API-CONSOLE.md): approved orders awaiting payout and the disburse action, the queue of
// submitted UTRs, held payments and refunds due, and confirming, rejecting, resolving or refunding one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import { ApiError, type HttpClient } from '@/shared/api/http';
import { orderPath } from './order';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import { CSRF_HEADER } from '../csrf';
import { CONSOLE_LOCALE } from '../format';
import type {
  ApiMarket,
  BankResult,
  Confirmed,
  Disbursed,
  PaymentView,
  PayoutEntry,
  PayoutRejected,
  PutBack,
  PaymentQueueCount,
  QueuedPayment,
} from './types';

/** The rows of one page of the payout list: the server's default `pageSize`. */
export const PAYOUTS_PAGE_SIZE = 50;

/** One page (from 1) of the payout list; the server's default page size, so only `page` beyond the first is sent. */
export function fetchPayouts(api: HttpClient, market: ApiMarket, page = 1): Promise<PayoutEntry[]> {
  return api.get<PayoutEntry[]>(`${CONSOLE_API}/payouts?market=${market}${page > 1 ? `&page=${page}` : ''}`);
}

/** One page of the market's approved orders not yet paid out, longest waiting first (the server's order). */
export function usePayouts(market: ApiMarket, page = 1) {
  const api = useApiClient();
  return useQuery<PayoutEntry[], ApiError>({
    queryKey: queryKeys.payouts(market, page),
    queryFn: () => fetchPayouts(api, market, page),
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

/** The statuses finance's queue holds (`GET /payments?status=`), in its order. */
export type QueueStatus = 'verifying' | 'held' | 'refund_due';

/** The most payments `GET /payments` lists (oldest first): a list this long may leave newer ones out. */
export const PAYMENTS_QUEUE_LIMIT = 200;

/** What finance's queue is narrowed to: a market (`IN`, `ID`), a status, and a UTR, payment reference or order number. */
export interface QueueFilter {
  market?: ApiMarket;
  status?: QueueStatus;
  q?: string;
}

/** The query string of a filter (`?market=IN&status=held&q=…`), empty without one. */
export function queueQuery(filter: QueueFilter): string {
  const params = new URLSearchParams();
  if (filter.market) params.set('market', filter.market);
  if (filter.status) params.set('status', filter.status);
  if (filter.q?.trim()) params.set('q', filter.q.trim());
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function fetchPayments(api: HttpClient, filter: QueueFilter = {}): Promise<QueuedPayment[]> {
  return api.get<QueuedPayment[]>(`${CONSOLE_API}/payments${queueQuery(filter)}`);
}

/**
 * Payments whose UTR waits for verification, amounts held and refunds due, oldest first, narrowed by `filter` on the
 * server: the list stops at {@link PAYMENTS_QUEUE_LIMIT}, so a status is asked of the server, never picked out of it.
 */
export function usePaymentsQueue(filter: QueueFilter = {}) {
  const api = useApiClient();
  return useQuery<QueuedPayment[], ApiError>({
    queryKey: [...queryKeys.payments, 'list', filter.market ?? '', filter.status ?? '', filter.q?.trim() ?? ''],
    queryFn: () => fetchPayments(api, filter),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

/** How many payments wait per market and status. */
export function usePaymentCounts() {
  const api = useApiClient();
  return useQuery<PaymentQueueCount[], ApiError>({
    queryKey: queryKeys.paymentCounts,
    queryFn: () => api.get<PaymentQueueCount[]>(`${CONSOLE_API}/payments/counts`),
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
/** Says the signed-in operator is sending a refund now (or takes it over from the one who said so). */
export function useClaimRefund() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PaymentView, ApiError, { paymentId: string; takeOver: boolean }>({
    mutationFn: ({ paymentId, takeOver }) => api.postJson<PaymentView>(`${paymentPath(paymentId)}/refund/claim`, { takeOver }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}

export function useRecordRefund() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PaymentView, ApiError, { paymentId: string; bankReference: string }>({
    mutationFn: ({ paymentId, bankReference }) => api.postJson<PaymentView>(`${paymentPath(paymentId)}/refund`, { bankReference }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.payments }),
  });
}

/** Approves a payout another finance operator recorded (maker-checker): the loan starts. */
export function useApprovePayout() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Disbursed, ApiError, { orderNo: string }>({
    mutationFn: ({ orderNo }) => api.postJson<Disbursed>(`${orderPath(orderNo)}/payout/approve`, {}),
    onSettled: (_data, _error, { orderNo }) => {
      void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
    },
  });
}

/** Rejects a payout another finance operator recorded, with a reason: the order stays approved, not paid. */
export function useRejectPayout() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PayoutRejected, ApiError, { orderNo: string; reason: string }>({
    mutationFn: ({ orderNo, reason }) => api.postJson<PayoutRejected>(`${orderPath(orderNo)}/payout/reject`, { reason }),
    onSettled: (_data, _error, { orderNo }) => {
      void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
    },
  });
}

/** Withdraws an approved order the bank will not pay, with a reason the borrower reads: cancelled, nothing paid. */
export function useWithdrawOrder() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PayoutRejected, ApiError, { orderNo: string; reason: string }>({
    mutationFn: ({ orderNo, reason }) => api.postJson<PayoutRejected>(`${orderPath(orderNo)}/withdraw`, { reason }),
    onSettled: (_data, _error, { orderNo }) => {
      void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
    },
  });
}

/** Puts an order that was in a downloaded bank file back for the next one (the bank did not pay it). */
export function usePutBackPayout() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<PutBack, ApiError, { orderNo: string }>({
    mutationFn: ({ orderNo }) => api.postJson<PutBack>(`${orderPath(orderNo)}/payout/put-back`, {}),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] }),
  });
}

/** Imports the bank's result file of a market: each line answered; the payout list is read again. */
export function useImportBankResult() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<BankResult, ApiError, { market: ApiMarket; content: string }>({
    mutationFn: (body) => api.postJson<BankResult>(`${CONSOLE_API}/payouts/bank-result`, body),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] }),
  });
}

/** A CSV the server sends as a download (the bank file, a month-end export). */
export interface CsvFile {
  name: string;
  text: string;
}

/**
 * Fetches a CSV download (`GET` with the console cookie; `POST` with the CSRF token too for one that changes
 * something, the bank file): its file name from `Content-Disposition` and its text. An error
 * answer is the envelope's `ApiError`, so the screen can say what is wrong instead of saving a JSON file.
 */
export async function fetchCsv(path: string, fallbackName: string, post?: { csrf: string | null }): Promise<CsvFile> {
  let response: Response;
  // The console's language, as the shared client sends it: a refusal's `msg` is then in English, whatever the browser's.
  const headers: Record<string, string> = { Accept: 'text/csv, application/json', 'Accept-Language': CONSOLE_LOCALE };
  // A download that changes something (the bank file puts its orders in it) is a POST with the CSRF token.
  if (post) headers[CSRF_HEADER] = post.csrf ?? '';
  try {
    response = await fetch(path, { method: post ? 'POST' : 'GET', credentials: 'same-origin', headers });
  } catch {
    throw new ApiError({ code: 'network_error', status: 0 });
  }
  const text = await response.text();
  if (!response.ok) {
    let envelope: { code?: unknown; msg?: unknown; fields?: unknown } = {};
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      // Not JSON: reported with the status only.
    }
    throw new ApiError({
      code: typeof envelope.code === 'string' ? envelope.code : 'bad_response',
      msg: typeof envelope.msg === 'string' ? envelope.msg : '',
      fields: (envelope.fields && typeof envelope.fields === 'object' ? envelope.fields : {}) as Record<string, string>,
      status: response.status,
    });
  }
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  return { name, text };
}

/** Hands a fetched CSV to the browser as a file download. */
export function saveCsv(file: CsvFile): void {
  if (typeof URL.createObjectURL !== 'function') return;
  const url = URL.createObjectURL(new Blob([file.text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function bankFilePath(market: ApiMarket): string {
  return `${CONSOLE_API}/payouts/bank-file?market=${market}`;
}

export type ExportKind = 'payouts' | 'repayments' | 'refunds' | 'ledger' | 'not_credited';

export function exportPath(market: ApiMarket, kind: ExportKind, from: string, to: string): string {
  const query = new URLSearchParams({ market, kind, from, to });
  return `${CONSOLE_API}/exports?${query.toString()}`;
}
