import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { Me } from './types';

export const ME_PATH = '/api/v1/borrower/me';

export function fetchMe(api: HttpClient): Promise<Me> {
  return api.get<Me>(ME_PATH);
}

/** The signed-in borrower; a 401 sends the app to the login screen (see app.tsx). */
export function useMe() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.me, queryFn: () => fetchMe(api) });
}
