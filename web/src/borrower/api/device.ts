import { useMutation } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import type { DeviceForgotten } from './types';

/** The phone's model, OS and app version, which the native shell stores with the borrower's consent (`POST /device`). */
export const DEVICE_PATH = '/api/v1/borrower/device';

/** Withdraws that consent (`DELETE /device`): the details are deleted at once; `forgotten` is false when none were kept. */
export function forgetDevice(api: HttpClient): Promise<DeviceForgotten> {
  return api.delete<DeviceForgotten>(DEVICE_PATH);
}

export function useForgetDevice() {
  const api = useApiClient();
  return useMutation<DeviceForgotten, ApiError, void>({ mutationFn: () => forgetDevice(api) });
}
