import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { orderPath } from './orders';
import { queryKeys } from './query-keys';
import type { AccountDeleted, DataExport, DeletionCheck, MenuEntry } from './types';

export const MENU_PATH = '/api/v1/borrower/menu';
export const DELETION_PATH = '/api/v1/borrower/account/deletion';
export const EXPORT_PATH = '/api/v1/borrower/export';

/** The "me" menu in the request's language. */
export function fetchMenu(api: HttpClient): Promise<MenuEntry[]> {
  return api.get<MenuEntry[]>(MENU_PATH);
}

export function useMenu(enabled = true) {
  const api = useApiClient();
  // The screen has a built-in fallback: one try is enough before showing it.
  return useQuery({ queryKey: queryKeys.menu, queryFn: () => fetchMenu(api), retry: false, enabled });
}

export function fetchDeletionCheck(api: HttpClient): Promise<DeletionCheck> {
  return api.get<DeletionCheck>(DELETION_PATH);
}

/** Whether the account can be deleted now (always read afresh: a repayment may have just cleared the way). */
export function useDeletionCheck() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.deletionCheck, queryFn: () => fetchDeletionCheck(api), staleTime: 0 });
}

/** Deletes the account; afterwards nothing of the borrower is kept in the app's cache. */
export function useDeleteAccount() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<AccountDeleted, ApiError, void>({
    mutationFn: () => api.postJson<AccountDeleted>(DELETION_PATH, {}),
    onSuccess: () => queryClient.removeQueries({ queryKey: queryKeys.borrower }),
  });
}

export function fetchDataExport(api: HttpClient): Promise<DataExport> {
  return api.get<DataExport>(EXPORT_PATH);
}

/** Saves the export's readable summary (HTML, in the borrower's language) as `kilat-data-summary.html`. */
export function saveSummary(data: DataExport): void {
  downloadFile('kilat-data-summary.html', data.summaryHtml, 'text/html');
}

/** Offers `text` as a file download named `name`. */
export function downloadFile(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** Downloads the borrower's data as `kilat-data.json`. */
export function useDataExport() {
  const api = useApiClient();
  return useMutation<DataExport, ApiError, void>({
    mutationFn: () => fetchDataExport(api),
    // The JSON file holds the data; the readable summary is saved beside it when the borrower asks (`saveSummary`).
    onSuccess: (data) =>
      downloadFile('kilat-data.json', `${JSON.stringify(data, (key, value: unknown) => (key === 'summaryHtml' ? undefined : value), 2)}\n`, 'application/json'),
  });
}

/** Where a loan's PDF documents are served (the session cookie authenticates the download). */
export function documentUrl(orderNo: string, document: 'kfs' | 'agreement' | 'no-dues'): string {
  return `${orderPath(orderNo)}/documents/${document}.pdf`;
}
