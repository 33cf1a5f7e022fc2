import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { Payment } from './types';

export type { Payment, PaymentStatus } from './types';

export function paymentPath(paymentId: string): string {
  return `/api/v1/borrower/payments/${encodeURIComponent(paymentId)}`;
}

/** One of the borrower's payments with its instructions (`GET /payments/{paymentId}`). */
export function fetchPayment(api: HttpClient, paymentId: string): Promise<Payment> {
  return api.get<Payment>(paymentPath(paymentId));
}

export function usePayment(paymentId: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.payment(paymentId), queryFn: () => fetchPayment(api, paymentId) });
}

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
