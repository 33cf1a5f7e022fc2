import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { KeyFactStatement, QuoteRequest } from './types';

export const APPLY_PATH = '/api/v1/borrower/apply';

/**
 * The Key Fact Statement of a loan the borrower is about to confirm: `POST /quote`'s answer, but only after
 * the server has checked that this borrower may apply now, so a refusal (`certification_incomplete`,
 * `open_order_exists`, `not_eligible`, `validation_failed`, `cap_exceeded`) shows before the statement is
 * read rather than after it is accepted. Nothing is stored: a read.
 */
export function fetchApply(api: HttpClient, request: QuoteRequest): Promise<KeyFactStatement> {
  return api.postJson<KeyFactStatement>(APPLY_PATH, request);
}

export function useApply(request: QuoteRequest | null) {
  const api = useApiClient();
  return useQuery({
    queryKey: request ? queryKeys.apply(request) : ['borrower', 'apply', 'none'],
    queryFn: () => fetchApply(api, request!),
    enabled: request !== null,
    // Due dates count from today, and the statement must be the one the server will compute on confirm.
    staleTime: 60_000,
  });
}
