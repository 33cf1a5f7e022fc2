import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { PRODUCTS_PATH } from './products';
import { queryKeys } from './query-keys';
import type { Product } from './types';

export function fetchProduct(api: HttpClient, code: string): Promise<Product> {
  return api.get<Product>(`${PRODUCTS_PATH}/${encodeURIComponent(code)}`);
}

/** One product of the borrower's market; another market's or an unknown code is a 404. */
export function useProduct(code: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.product(code), queryFn: () => fetchProduct(api, code) });
}
