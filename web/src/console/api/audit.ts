import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { AuditPage } from './types';

/**
 * The filters of `GET /audit`: `orderNo`, `operator` (username or id), `action` (one, or a family ending in a dot),
 * `from` and `to` (epoch ms). Empty ones are left out.
 */
export type AuditSearch = Partial<Record<'orderNo' | 'operator' | 'action' | 'from' | 'to', string>>;

function queryOf(search: AuditSearch & { before?: string }): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) if (value) params.set(key, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** One page of the search: from its newest entry, or from `before` (the previous page's `next`). */
export function fetchAudit(api: HttpClient, search: AuditSearch, before?: string): Promise<AuditPage> {
  return api.get<AuditPage>(`${CONSOLE_API}/audit${queryOf({ ...search, before })}`);
}

/**
 * The CSV of the same search, fetched (the cookie signs it): a search of more than 10,000 entries is refused with a
 * field error on `from`, which the screen shows. The export is itself audited.
 */
export function auditExportPath(search: AuditSearch): string {
  return `${CONSOLE_API}/audit/export${queryOf(search)}`;
}

/** Newest first, 200 entries a page; `fetchNextPage` reads the older ones while `hasNextPage`. */
export function useAudit(search: AuditSearch) {
  const api = useApiClient();
  const key: Record<string, string> = {};
  for (const [k, v] of Object.entries(search)) if (v) key[k] = v;
  return useInfiniteQuery<AuditPage, ApiError, { pages: AuditPage[] }, ReturnType<typeof queryKeys.audit>, string | undefined>({
    queryKey: queryKeys.audit(key),
    queryFn: ({ pageParam }) => fetchAudit(api, key, pageParam),
    initialPageParam: undefined,
    getNextPageParam: (last) => last.next ?? undefined,
    staleTime: 0,
    placeholderData: keepPreviousData,
  });
}
