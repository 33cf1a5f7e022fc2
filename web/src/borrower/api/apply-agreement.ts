import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { APPLY_PATH } from './apply';
import { queryKeys } from './query-keys';
import type { LoanAgreement, QuoteRequest } from './types';

/**
 * The loan agreement the borrower is about to accept with the KFS of `POST /apply` (same body, same refusals):
 * rendered by the server in the request's language from that KFS and the borrower's certification, without an
 * order number yet. At confirm the server renders it again and freezes it with the order.
 */
export function fetchApplyAgreement(api: HttpClient, request: QuoteRequest): Promise<LoanAgreement> {
  return api.postJson<LoanAgreement>(`${APPLY_PATH}/agreement`, request);
}

export function useApplyAgreement(request: QuoteRequest | null) {
  const api = useApiClient();
  return useQuery({
    queryKey: request ? queryKeys.applyAgreement(request) : ['borrower', 'apply-agreement', 'none'],
    queryFn: () => fetchApplyAgreement(api, request!),
    enabled: request !== null,
    staleTime: 60_000,
  });
}
