import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { Product } from './types';

export const PRODUCTS_PATH = '/api/v1/borrower/products';

export function fetchProducts(api: HttpClient): Promise<Product[]> {
  return api.get<Product[]>(PRODUCTS_PATH);
}

/** The products of the borrower's market (the server knows the market from the session), smallest first. */
export function useProducts() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.products, queryFn: () => fetchProducts(api) });
}
