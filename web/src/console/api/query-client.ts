import { QueryClient } from '@tanstack/react-query';
import { ApiError, CLIENT_ERROR } from '@/shared/api/http';

/** A read is tried once more after a lost connection or a server fault, never after a refusal or a timeout. */
export function shouldRetryRead(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1 || !(error instanceof ApiError)) return false;
  if (error.code === CLIENT_ERROR.timeout) return false;
  return error.status === 0 || error.status >= 500;
}

export function createQueryClient(options: { retryReads?: boolean } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: options.retryReads === false ? false : shouldRetryRead,
        staleTime: 30_000,
        refetchOnWindowFocus: false,
      },
      // Writes are never repeated by the client: the operator decides.
      mutations: { retry: false },
    },
  });
}
