import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { AuditEntry } from './types';

/**
 * The filters of `GET /audit`: `orderNo`, `operator` (username or id), `action` (one, or a family ending in a dot),
 * `from` and `to` (epoch ms). Empty ones are left out.
 */
export type AuditSearch = Partial<Record<'orderNo' | 'operator' | 'action' | 'from' | 'to', string>>;

function queryOf(search: AuditSearch): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) if (value) params.set(key, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}

export function fetchAudit(api: HttpClient, search: AuditSearch): Promise<AuditEntry[]> {
  return api.get<AuditEntry[]>(`${CONSOLE_API}/audit${queryOf(search)}`);
}

/** The CSV of the same search (at most 10,000 entries; the export is itself audited): a plain link, the cookie signs it. */
export function auditExportUrl(search: AuditSearch): string {
  return `${CONSOLE_API}/audit/export${queryOf(search)}`;
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
