import type { TFunction } from 'i18next';
import { ApiError, CLIENT_ERROR } from './http';

/**
 * What to tell a person about a failed call: the server's own `msg` (already in their language) when
 * there is one, else the shared catalog's words for a timeout, a lost connection or a server fault.
 */
export function errorText(error: unknown, t: TFunction): string {
  if (error instanceof ApiError) {
    if (error.msg) return error.msg;
    if (error.code === CLIENT_ERROR.timeout) return t('shared:toast.timeout');
    if (error.code === CLIENT_ERROR.network) return t('shared:toast.networkError');
  }
  return t('shared:toast.serverError');
}
