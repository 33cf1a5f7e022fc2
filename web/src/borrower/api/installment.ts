import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { InstallmentPlan } from './types';

/** One installment of the plan (`GET /orders/{orderNo}/plan/{seq}`, `seq` from 1); one it does not have is a 404. */
export function fetchInstallment(api: HttpClient, orderNo: string, seq: number): Promise<InstallmentPlan> {
  return api.get<InstallmentPlan>(`${orderPath(orderNo)}/plan/${seq}`);
}

export function useInstallment(orderNo: string, seq: number) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.installment(orderNo, seq), queryFn: () => fetchInstallment(api, orderNo, seq) });
}
