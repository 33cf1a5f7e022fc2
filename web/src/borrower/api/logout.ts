import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { sessionStorageOrNull } from '../boot';
import { forgetAllKept } from './idempotency-key';
import { queryKeys } from './query-keys';

export const LOGOUT_PATH = '/api/v1/borrower/logout';

/** Revokes the session and clears its cookie. */
export function logOut(api: HttpClient): Promise<null> {
  return api.postJson<null>(LOGOUT_PATH, {});
}

export function useLogOut() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<null, ApiError, void>({
    mutationFn: () => logOut(api),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: queryKeys.borrower });
      // Nothing of this borrower's applications or payments stays in the tab for whoever signs in next (a 401 on the way
      // out is handled as every 401 is: app.tsx).
      forgetAllKept(sessionStorageOrNull());
    },
  });
}
