import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { KeyFactStatement } from './types';

// Written by hand from docs/API-BORROWER.md ("Apply and confirm") until the OpenAPI document describes
// orders; every amount is an integer in minor units, every time epoch milliseconds.

export const ORDERS_PATH = '/api/v1/borrower/orders';

/** The order states of docs/MONEY.md §6. */
export type OrderStatus =
  | 'pending_review'
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'disbursed'
  | 'overdue'
  | 'repaid'
  | 'exited_in_cooling_off';

/** One order as `GET /orders` lists it. */
export interface OrderSummary {
  orderNo: string;
  status: OrderStatus;
  productName: string;
  /** The amount sanctioned. */
  amount: number;
  termCode: string;
  netDisbursed: number;
  totalRepayable: number;
  /** Hundredths of a percent. */
  apr: number;
  aprDisplay: string;
  currency: 'INR' | 'IDR';
  createdAt: number;
}

/** `GET /orders/{orderNo}`, and the answer to `POST /orders`. */
export interface OrderDetail extends OrderSummary {
  /** The Key Fact Statement the borrower accepted; nothing outside it may be charged. */
  kfs: KeyFactStatement;
  acceptedAt: number;
  /** Every change of status, oldest first. */
  timeline: { status: OrderStatus; at: number }[];
}

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
export function useOrder(orderNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.order(orderNo), queryFn: () => fetchOrder(api, orderNo) });
}
