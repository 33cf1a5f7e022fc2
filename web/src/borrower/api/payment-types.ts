import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { PaymentInstructions } from './types';

export type { PaymentInstructions, PaymentMethod } from './types';

/** The payment types of the order's market (`GET /payment-types?orderNo=`). */
export function fetchPaymentTypes(api: HttpClient, orderNo: string): Promise<PaymentInstructions[]> {
  return api.get<PaymentInstructions[]>(`/api/v1/borrower/payment-types?orderNo=${encodeURIComponent(orderNo)}`);
}

export function usePaymentTypes(orderNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.paymentTypes(orderNo), queryFn: () => fetchPaymentTypes(api, orderNo) });
}
