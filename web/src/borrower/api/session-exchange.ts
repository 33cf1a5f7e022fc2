import type { HttpClient } from '@/shared/api/http';
import type { SessionExchange } from './types';

export const SESSION_EXCHANGE_PATH = '/api/v1/borrower/session/exchange';

/**
 * Exchanges the native shell's one-time hand-over code for a session of this browser (the server sets the
 * HttpOnly cookie). Refused with `409 signed_in_as_another` when the browser is signed in as somebody
 * else, who stays signed in; `400 handover_invalid` when the code was used or has expired.
 */
export function exchangeSession(api: HttpClient, code: string): Promise<SessionExchange> {
  return api.postJson<SessionExchange>(SESSION_EXCHANGE_PATH, { code });
}
