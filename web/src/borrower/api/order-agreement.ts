import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { KeyFactStatement } from './types';

/**
 * A loan's agreement (`GET /orders/{orderNo}/agreement`), rendered by the server in the request's language
 * from the accepted KFS and the borrower's certification; ID and account numbers come masked.
 */
export interface LoanAgreement {
  orderNo: string;
  title: string;
  acceptedAt: number;
  lender: {
    name: string;
    licence?: string;
    grievanceOfficer?: { name: string; email: string; phone: string };
  };
  borrower: {
    fullName: string;
    idNumberMasked: string;
    address: string;
    phoneMasked: string;
    bankAccountMasked: string;
    bankName: string;
  };
  kfs: KeyFactStatement;
  clauses: { heading: string; text: string }[];
}

export function fetchLoanAgreement(api: HttpClient, orderNo: string): Promise<LoanAgreement> {
  return api.get<LoanAgreement>(`${orderPath(orderNo)}/agreement`);
}

export function useLoanAgreement(orderNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.orderAgreement(orderNo), queryFn: () => fetchLoanAgreement(api, orderNo) });
}
