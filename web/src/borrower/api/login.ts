import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { LoggedIn, LoginRequest } from './types';

export const LOGIN_PATH = '/api/v1/borrower/login';

/** Signs in (the server sets the HttpOnly session cookie; the answer's sessionId is for the native shell). */
export function logIn(api: HttpClient, body: LoginRequest): Promise<LoggedIn> {
  return api.postJson<LoggedIn>(LOGIN_PATH, body);
}

export function useLogIn() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<LoggedIn, ApiError, LoginRequest>({
    mutationFn: (body) => logIn(api, body),
    // Whatever an earlier borrower left in the cache is not this one's.
    onSuccess: () => queryClient.removeQueries({ queryKey: queryKeys.borrower }),
  });
}
