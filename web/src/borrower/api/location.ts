import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { LocationSaved, LocationStatus } from './types';

export const LOCATION_PATH = '/api/v1/borrower/location';

/** Whether the borrower has answered the location prompt (`GET /location`). */
export function useLocationStatus() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.location, queryFn: () => api.get<LocationStatus>(LOCATION_PATH) });
}

export interface LocationAnswer {
  consent: boolean;
  latitude?: number;
  longitude?: number;
}

/** Records the one answer (`POST /location`); the server keeps a position only with consent, rounded to 0.1°. */
export function saveLocation(api: HttpClient, answer: LocationAnswer): Promise<LocationSaved> {
  return api.postJson<LocationSaved>(LOCATION_PATH, { ...answer });
}

export function useSaveLocation() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<LocationSaved, ApiError, LocationAnswer>({
    mutationFn: (answer) => saveLocation(api, answer),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.location }),
  });
}

/**
 * Withdraws consent (`DELETE /location`): the server deletes the position at once and keeps the answer as a refusal, so
 * the prompt is not shown again. Its answer is the new status.
 */
export function withdrawLocation(api: HttpClient): Promise<LocationStatus> {
  return api.delete<LocationStatus>(LOCATION_PATH);
}

export function useWithdrawLocation() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<LocationStatus, ApiError, void>({
    mutationFn: () => withdrawLocation(api),
    onSuccess: (status) => queryClient.setQueryData(queryKeys.location, status),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.location }),
  });
}
