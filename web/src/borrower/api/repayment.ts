import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { Repayment } from './types';

export type { Repayment, RepaymentChoice, RepaymentChoiceView } from './types';

/** The choices the loan offers today, each priced by the money engine (`GET /orders/{orderNo}/repayment`). */
export function fetchRepayment(api: HttpClient, orderNo: string): Promise<Repayment> {
  return api.get<Repayment>(`${orderPath(orderNo)}/repayment`);
}

export function useRepayment(orderNo: string, options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.repayment(orderNo), queryFn: () => fetchRepayment(api, orderNo), enabled: options.enabled ?? true });
}
