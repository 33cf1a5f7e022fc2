import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { Extension } from './types';

export type { Extension } from './types';

/** The extension the loan offers today, before accepting (`GET /orders/{orderNo}/extension`); none is `409 choice_unavailable`. */
export function fetchExtension(api: HttpClient, orderNo: string): Promise<Extension> {
  return api.get<Extension>(`${orderPath(orderNo)}/extension`);
}

export function useExtension(orderNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.extension(orderNo), queryFn: () => fetchExtension(api, orderNo) });
}
