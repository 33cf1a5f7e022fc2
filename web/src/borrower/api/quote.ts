import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { KeyFactStatement, QuoteRequest } from './types';

export const QUOTE_PATH = '/api/v1/borrower/quote';

/** The Key Fact Statement of a loan as it would be paid out today. The server stores nothing: a read. */
export function fetchQuote(api: HttpClient, request: QuoteRequest): Promise<KeyFactStatement> {
  return api.postJson<KeyFactStatement>(QUOTE_PATH, request);
}

/**
 * The quote for `request`, or nothing while it is null. While a new amount or term is being quoted the
 * previous figures stay (`isPlaceholderData`), so the screen does not jump.
 */
export function useQuote(request: QuoteRequest | null, options: { keepPrevious?: boolean } = {}) {
  const api = useApiClient();
  return useQuery({
    queryKey: request ? queryKeys.quote(request) : ['borrower', 'quote', 'none'],
    queryFn: () => fetchQuote(api, request!),
    enabled: request !== null,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
    // Due dates are counted from today: a quote left open past midnight would be wrong.
    staleTime: 60_000,
  });
}
