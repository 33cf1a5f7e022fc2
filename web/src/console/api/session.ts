// Sign-in, sign-out and the signed-in operator (`/api/v1/console/login`, `/logout`, `/me`).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { useCsrf } from '../csrf-context';
import { queryKeys } from './query-keys';
import type { LoggedIn, LoginRequest, Operator } from './types';

export const CONSOLE_API = '/api/v1/console';

export function fetchMe(api: HttpClient): Promise<Operator> {
  return api.get<Operator>(`${CONSOLE_API}/me`);
}

/** The signed-in operator; a 401 means nobody is (the app then shows the sign-in). */
export function useMe(options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  return useQuery<Operator, ApiError>({
    queryKey: queryKeys.me,
    queryFn: () => fetchMe(api),
    enabled: options.enabled ?? true,
    staleTime: 5 * 60_000,
  });
}

export function useSignIn() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  const csrf = useCsrf();
  return useMutation<LoggedIn, ApiError, LoginRequest>({
    mutationFn: (body) => api.postJson<LoggedIn>(`${CONSOLE_API}/login`, body),
    onSuccess: (answer) => {
      // Whatever an earlier operator left in the cache is not this one's.
      queryClient.removeQueries({ queryKey: queryKeys.console });
      csrf.set(answer.csrfToken);
      queryClient.setQueryData(queryKeys.me, answer.operator);
    },
  });
}

/** The signed-in operator chooses their own password (`POST /password`); the answer is the operator, free to go on. */
export function useChangeOwnPassword() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Operator, ApiError, { currentPassword: string; password: string }>({
    mutationFn: (body) => api.postJson<Operator>(`${CONSOLE_API}/password`, body),
    onSuccess: (operator) => queryClient.setQueryData(queryKeys.me, operator),
  });
}

export function useSignOut() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  const csrf = useCsrf();
  return useMutation<unknown, ApiError, void>({
    mutationFn: () => api.postJson(`${CONSOLE_API}/logout`, {}),
    // Signed out on this side whatever the server said: a 401 means the session had already ended.
    onSettled: () => {
      csrf.clear();
      queryClient.removeQueries({ queryKey: queryKeys.console });
    },
  });
}
