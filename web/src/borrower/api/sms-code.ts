import { useMutation } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import type { CodeRequest, CodeSent } from './types';

export const SMS_CODE_PATH = '/api/v1/borrower/login/sms-code';

export function requestSmsCode(api: HttpClient, body: CodeRequest): Promise<CodeSent> {
  return api.postJson<CodeSent>(SMS_CODE_PATH, body);
}

export function useRequestSmsCode() {
  const api = useApiClient();
  return useMutation<CodeSent, ApiError, CodeRequest>({ mutationFn: (body) => requestSmsCode(api, body) });
}
