import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { OrderDetail } from './types';

/**
 * The borrower withdraws an application (`POST /orders/{orderNo}/cancel`): one pending review, or approved but
 * not paid out. Answers the order, now cancelled; any other state is `409 invalid_transition`.
 */
export function cancelOrder(api: HttpClient, orderNo: string): Promise<OrderDetail> {
  return api.postJson<OrderDetail>(`${orderPath(orderNo)}/cancel`, {});
}

export function useCancelOrder(orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<OrderDetail, ApiError, void>({
    mutationFn: () => cancelOrder(api, orderNo),
    onSuccess: (order) => {
      queryClient.setQueryData(queryKeys.order(order.orderNo), order);
      // A cancelled application frees the borrower to apply again.
      void queryClient.invalidateQueries({ queryKey: queryKeys.home });
      void queryClient.invalidateQueries({ queryKey: queryKeys.orders, exact: true });
      void queryClient.invalidateQueries({ queryKey: queryKeys.recommended });
    },
    onError: (error) => {
      // The order moved meanwhile (approved, paid out, declined): show how it stands now.
      if (error.code === 'invalid_transition') void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
    },
  });
}
