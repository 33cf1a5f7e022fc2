import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { LoanAgreement } from './types';

export type { LoanAgreement } from './types';

/** A loan's agreement, rendered by the server in the request's language from the accepted KFS and the borrower's
 * certification; ID and account numbers come masked. */
export function fetchLoanAgreement(api: HttpClient, orderNo: string): Promise<LoanAgreement> {
  return api.get<LoanAgreement>(`${orderPath(orderNo)}/agreement`);
}

export function useLoanAgreement(orderNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.orderAgreement(orderNo), queryFn: () => fetchLoanAgreement(api, orderNo) });
}
