import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { OrderDetail, OrderSummary } from './types';

export type { OrderDetail, OrderStatus, OrderSummary } from './types';

export const ORDERS_PATH = '/api/v1/borrower/orders';

export function fetchOrders(api: HttpClient): Promise<OrderSummary[]> {
  return api.get<OrderSummary[]>(ORDERS_PATH);
}

/** The borrower's orders, newest first (the server's order, kept even if it ever changed). */
export function useOrders() {
  const api = useApiClient();
  return useQuery({
    queryKey: queryKeys.orders,
    queryFn: () => fetchOrders(api),
    select: newestFirst,
  });
}

function newestFirst(orders: OrderSummary[]): OrderSummary[] {
  return [...orders].sort((a, b) => b.createdAt - a.createdAt);
}

export function orderPath(orderNo: string): string {
  return `${ORDERS_PATH}/${encodeURIComponent(orderNo)}`;
}

export function fetchOrder(api: HttpClient, orderNo: string): Promise<OrderDetail> {
  return api.get<OrderDetail>(orderPath(orderNo));
}

/** One of the borrower's orders; another borrower's or an unknown number is a 404. */
export function useOrder(orderNo: string, options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.order(orderNo), queryFn: () => fetchOrder(api, orderNo), enabled: options.enabled ?? true });
}
