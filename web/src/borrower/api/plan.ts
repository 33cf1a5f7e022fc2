import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { LoanPlan } from './types';

export type { Buckets, InstallmentPlan, InstallmentState, LoanPlan } from './types';

/** The installment plan replayed from the loan's ledger (`GET /orders/{orderNo}/plan`); 404 before payout. */
export function fetchPlan(api: HttpClient, orderNo: string): Promise<LoanPlan> {
  return api.get<LoanPlan>(`${orderPath(orderNo)}/plan`);
}

export function usePlan(orderNo: string, options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.plan(orderNo), queryFn: () => fetchPlan(api, orderNo), enabled: options.enabled ?? true });
}
