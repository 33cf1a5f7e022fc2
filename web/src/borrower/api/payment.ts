import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { Payment, PaymentStatus } from './types';

export type { Payment, PaymentStatus } from './types';

export function paymentPath(paymentId: string): string {
  return `/api/v1/borrower/payments/${encodeURIComponent(paymentId)}`;
}

/** One of the borrower's payments with its instructions (`GET /payments/{paymentId}`). */
export function fetchPayment(api: HttpClient, paymentId: string): Promise<Payment> {
  return api.get<Payment>(paymentPath(paymentId));
}

/** How often a payment still waiting for money or for finance is read again while its screen is open. */
export const WAITING_PAYMENT_REFRESH_MS = 15_000;

/**
 * The payment, read again every 15 s while it waits for the money or for finance, and whenever the borrower comes back
 * to the app (from their bank's or UPI app, say): a screen still saying "waiting" after the money came invites paying
 * twice.
 */
export function usePayment(paymentId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: queryKeys.payment(paymentId),
    queryFn: () => fetchPayment(api, paymentId),
    refetchInterval: (query) => (query.state.data && WAITING.includes(query.state.data.status) ? WAITING_PAYMENT_REFRESH_MS : false),
    refetchOnWindowFocus: 'always',
  });
}

const WAITING: readonly PaymentStatus[] = ['pending', 'verifying'];

/** The payments of the borrower's loan, oldest first (`GET /orders/{orderNo}/payments`). */
export function fetchLoanPayments(api: HttpClient, orderNo: string): Promise<Payment[]> {
  return api.get<Payment[]>(`/api/v1/borrower/orders/${encodeURIComponent(orderNo)}/payments`);
}

export function useLoanPayments(orderNo: string, options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({
    queryKey: queryKeys.loanPayments(orderNo),
    queryFn: () => fetchLoanPayments(api, orderNo),
    enabled: options.enabled ?? true,
  });
}
