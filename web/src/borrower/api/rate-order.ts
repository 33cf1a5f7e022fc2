import { useMutation } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import type { RatingSaved } from './types';

/** Rates an ended loan once (`POST /orders/{orderNo}/rating`, score 1–5); a second rating is `409 already_rated`. */
export function rateOrder(api: HttpClient, orderNo: string, score: number): Promise<RatingSaved> {
  return api.postJson<RatingSaved>(`${orderPath(orderNo)}/rating`, { score });
}

export function useRateOrder(orderNo: string) {
  const api = useApiClient();
  return useMutation<RatingSaved, ApiError, number>({ mutationFn: (score) => rateOrder(api, orderNo, score) });
}
