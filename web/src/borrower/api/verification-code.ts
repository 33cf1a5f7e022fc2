import { useMutation } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';

/** What a sensitive change's code is for. */
export type VerificationPurpose = 'bank_account';

export interface CodeSent {
  resendSeconds: number;
  expiresInSeconds: number;
  phoneMasked: string;
  /** False when the provider's answer never came: the code may still arrive. */
  deliveryConfirmed: boolean;
}

/** Sends a one-time code to the signed-in borrower's own phone for a sensitive change (`POST /verification-code`). */
export function sendVerificationCode(api: HttpClient, purpose: VerificationPurpose): Promise<CodeSent> {
  return api.postJson<CodeSent>('/api/v1/borrower/verification-code', { purpose });
}

export function useSendVerificationCode(purpose: VerificationPurpose) {
  const api = useApiClient();
  return useMutation<CodeSent, ApiError, void>({ mutationFn: () => sendVerificationCode(api, purpose) });
}
