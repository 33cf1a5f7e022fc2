import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { Payment, PaymentMethod } from './types';

/**
 * Accepts the extension (`POST /orders/{orderNo}/extension`) by starting the payment of its fee; the due date moves
 * when finance confirms the fee. Idempotent on the key, as any payment.
 */
export function acceptExtension(api: HttpClient, orderNo: string, body: { method: PaymentMethod; idempotencyKey: string }): Promise<Payment> {
  return api.postJson<Payment>(`${orderPath(orderNo)}/extension`, { ...body });
}

export function useAcceptExtension(orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Payment, ApiError, { method: PaymentMethod; idempotencyKey: string }>({
    mutationFn: (body) => acceptExtension(api, orderNo, body),
    onSuccess: (payment) => queryClient.setQueryData(queryKeys.payment(payment.paymentId), payment),
  });
}
