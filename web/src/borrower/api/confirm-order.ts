import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { ORDERS_PATH } from './orders';
import { queryKeys } from './query-keys';
import type { ConfirmOrderRequest, OrderDetail } from './types';

export type { ConfirmOrderRequest } from './types';

/**
 * Confirms an application (`POST /orders`): 201 with the new order, or 200 with the order this key already
 * made. A KFS that no longer matches is `409 kfs_changed`.
 */
export function confirmOrder(api: HttpClient, body: ConfirmOrderRequest): Promise<OrderDetail> {
  return api.postJson<OrderDetail>(ORDERS_PATH, body);
}

export function useConfirmOrder() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<OrderDetail, ApiError, ConfirmOrderRequest>({
    mutationFn: (body) => confirmOrder(api, body),
    onSuccess: (order) => {
      queryClient.setQueryData(queryKeys.order(order.orderNo), order);
      // The home screen, the order list and the offers all change with a new order.
      void queryClient.invalidateQueries({ queryKey: queryKeys.home });
      void queryClient.invalidateQueries({ queryKey: queryKeys.orders, exact: true });
      void queryClient.invalidateQueries({ queryKey: queryKeys.recommended });
    },
  });
}
