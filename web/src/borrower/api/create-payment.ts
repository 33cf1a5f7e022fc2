import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { Payment, PaymentMethod, RepaymentChoice } from './types';

export interface CreatePaymentRequest {
  choice: RepaymentChoice;
  method: PaymentMethod;
  idempotencyKey: string;
}

/**
 * Starts a payment (`POST /orders/{orderNo}/payments`): priced now, with its unique reference and instructions.
 * The same key answers the same payment, so a retry or a reload never makes a second one.
 */
export function createPayment(api: HttpClient, orderNo: string, body: CreatePaymentRequest): Promise<Payment> {
  return api.postJson<Payment>(`${orderPath(orderNo)}/payments`, { ...body });
}

export function useCreatePayment(orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Payment, ApiError, CreatePaymentRequest>({
    mutationFn: (body) => createPayment(api, orderNo, body),
    onSuccess: (payment) => queryClient.setQueryData(queryKeys.payment(payment.paymentId), payment),
    onError: (error) => {
      // The loan moved meanwhile (paid, closed, window over): show the choices it offers now.
      if (error.code === 'choice_unavailable') void queryClient.invalidateQueries({ queryKey: queryKeys.repayment(orderNo) });
    },
  });
}
