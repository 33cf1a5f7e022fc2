import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { PRODUCTS_PATH } from './products';
import { queryKeys } from './query-keys';
import type { Recommended } from './types';

export type { Recommended } from './types';

export const RECOMMENDED_PATH = `${PRODUCTS_PATH}/recommended`;

export function fetchRecommended(api: HttpClient): Promise<Recommended> {
  return api.get<Recommended>(RECOMMENDED_PATH);
}

/**
 * The products the borrower may apply for, lowest sample APR first. The server sorts them; sorting again
 * (stably) here keeps the promise the screen makes even if a server answer did not.
 */
export function useRecommended() {
  const api = useApiClient();
  return useQuery({
    queryKey: queryKeys.recommended,
    queryFn: () => fetchRecommended(api),
    select: lowestAprFirst,
  });
}

function lowestAprFirst(data: Recommended): Recommended {
  return { ...data, products: [...data.products].sort((a, b) => a.sample.apr - b.sample.apr) };
}
