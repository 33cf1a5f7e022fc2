import { useMutation } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import type { CodeRequest, CodeSent } from './types';

export const VOICE_CODE_PATH = '/api/v1/borrower/login/voice-code';

export function requestVoiceCode(api: HttpClient, body: CodeRequest): Promise<CodeSent> {
  return api.postJson<CodeSent>(VOICE_CODE_PATH, body);
}

export function useRequestVoiceCode() {
  const api = useApiClient();
  return useMutation<CodeSent, ApiError, CodeRequest>({ mutationFn: (body) => requestVoiceCode(api, body) });
}
