import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { AuditEntry } from './types';

/** The filters of `GET /audit`: `orderNo`, `operator` (username or id), `from` and `to` (epoch ms). Empty ones are left out. */
export type AuditSearch = Partial<Record<'orderNo' | 'operator' | 'from' | 'to', string>>;

export function fetchAudit(api: HttpClient, search: AuditSearch): Promise<AuditEntry[]> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) if (value) params.set(key, value);
  const query = params.toString();
  return api.get<AuditEntry[]>(`${CONSOLE_API}/audit${query ? `?${query}` : ''}`);
}

/** Newest first, at most 200 entries. */
export function useAudit(search: AuditSearch) {
  const api = useApiClient();
  const key: Record<string, string> = {};
  for (const [k, v] of Object.entries(search)) if (v) key[k] = v;
  return useQuery<AuditEntry[], ApiError>({
    queryKey: queryKeys.audit(key),
    queryFn: () => fetchAudit(api, key),
    staleTime: 0,
    placeholderData: keepPreviousData,
  });
}
