import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useToast } from '@/shared/ui/toast';

/** Refusals are longer to read than SPEC.md's 1 s confirmations. */
export const ERROR_TOAST_MS = 3000;

/** Shows a failed call as a toast: the server's `msg`, or the shared words for a network fault. */
export function useErrorToast(): (error: unknown) => void {
  const { t } = useTranslation();
  const toast = useToast();
  return useCallback((error: unknown) => toast(errorText(error, t), { kind: 'error', durationMs: ERROR_TOAST_MS }), [t, toast]);
}
