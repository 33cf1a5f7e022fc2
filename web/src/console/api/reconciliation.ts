// Reconciliation (docs/API-CONSOLE.md, "Reconciliation"): bank statement layouts, a preview of a file, imports
// matched against the UTR payments waiting for finance, and confirming the matched lines in one action.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type {
  ConfirmOutcome,
  Imported,
  ImportResult,
  ImportSummary,
  StatementMapping,
  StatementMappingRequest,
  StatementPreview,
} from './types';

const BASE = `${CONSOLE_API}/reconciliation`;

/** The largest file the server reads (2 MiB); a larger one is refused before it is sent. */
export const MAX_STATEMENT_BYTES = 2 * 1024 * 1024;

export function useMappings() {
  const api = useApiClient();
  return useQuery<StatementMapping[], ApiError>({
    queryKey: queryKeys.statementMappings,
    queryFn: () => api.get<StatementMapping[]>(`${BASE}/mappings`),
  });
}

/** Saves a new layout, or replaces the one with `id`. */
export function useSaveMapping() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<StatementMapping, ApiError, { id?: string; mapping: StatementMappingRequest }>({
    mutationFn: ({ id, mapping }) =>
      id
        ? api.putJson<StatementMapping>(`${BASE}/mappings/${encodeURIComponent(id)}`, mapping)
        : api.postJson<StatementMapping>(`${BASE}/mappings`, mapping),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.statementMappings }),
  });
}

export function usePreview() {
  const api = useApiClient();
  return useMutation<StatementPreview, ApiError, { content: string; mappingId?: string; mapping?: StatementMappingRequest }>({
    mutationFn: (body) => api.postJson<StatementPreview>(`${BASE}/preview`, body),
  });
}

export function useImportStatement() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Imported, ApiError, { mappingId: string; fileName: string; content: string }>({
    mutationFn: (body) => api.postJson<Imported>(`${BASE}/imports`, body),
    onSuccess: (done) => queryClient.setQueryData(queryKeys.statementImport(done.result.import.importId), done.result),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.statementImports }),
  });
}

export function useImports() {
  const api = useApiClient();
  return useQuery<ImportSummary[], ApiError>({
    queryKey: queryKeys.statementImports,
    queryFn: () => api.get<ImportSummary[]>(`${BASE}/imports`),
  });
}

export function useImportResult(importId: string | null) {
  const api = useApiClient();
  return useQuery<ImportResult, ApiError>({
    queryKey: queryKeys.statementImport(importId ?? ''),
    queryFn: () => api.get<ImportResult>(`${BASE}/imports/${encodeURIComponent(importId ?? '')}`),
    enabled: importId !== null,
    staleTime: 0,
  });
}

/** Confirms every matched line of an import; the result, the history and the repayments queue are read again. */
export function useConfirmMatched() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<ConfirmOutcome, ApiError, string>({
    mutationFn: (importId) => api.postJson<ConfirmOutcome>(`${BASE}/imports/${encodeURIComponent(importId)}/confirm`, {}),
    onSuccess: (done) => queryClient.setQueryData(queryKeys.statementImport(done.result.import.importId), done.result),
    onSettled: (_done, error, importId) => {
      // A failed request may have confirmed some lines before it failed: the import is read again too.
      if (error) void queryClient.invalidateQueries({ queryKey: queryKeys.statementImport(importId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.statementImports });
      void queryClient.invalidateQueries({ queryKey: queryKeys.payments });
    },
  });
}
