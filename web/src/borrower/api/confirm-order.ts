import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { ORDERS_PATH, type OrderDetail } from './orders';
import { queryKeys } from './query-keys';

export interface ConfirmOrderRequest {
  productCode: string;
  /** Minor units. */
  amount: number;
  termCode: string;
  /** The `contentHash` of the Key Fact Statement the borrower read and accepted. */
  kfsHash: string;
  /** 8 to 64 of `[A-Za-z0-9_-]`: the same key again answers the same order (see idempotency-key.ts). */
  idempotencyKey: string;
}

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
