// The native shell's session hand-over (docs/API-BORROWER.md, "Handing a session to the web app"): the page
// was opened with a one-time `handover` code, which boot took out of the URL; it is exchanged once for a
// cookie session before any screen asks the API for anything, so the first screen already sees it.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, type HttpClient } from '@/shared/api/http';
import { queryKeys } from './api/query-keys';
import { exchangeSession } from './api/session-exchange';
import { LoadingState } from './ui/state-notice';

/** How the exchange ended, for what the person is told. */
export type HandoverOutcome = 'signed-in' | 'kept-own-session' | 'invalid' | 'failed';

export interface Handover {
  /** The exchange, started on the first call and shared by every later one: a code works only once. */
  outcome: () => Promise<HandoverOutcome>;
}

/** The page's hand-over, or null when it was opened without a code. */
export function createHandover(api: HttpClient, code: string | null): Handover | null {
  if (!code) return null;
  let started: Promise<HandoverOutcome> | null = null;
  return {
    outcome: () =>
      (started ??= exchangeSession(api, code).then(
        (): HandoverOutcome => 'signed-in',
        (error: unknown): HandoverOutcome => {
          if (!(error instanceof ApiError)) return 'failed';
          if (error.code === 'signed_in_as_another') return 'kept-own-session';
          if (error.code === 'handover_invalid' || error.code === 'validation_failed') return 'invalid';
          return 'failed';
        },
      )),
  };
}

/** Holds the screens back until the hand-over is settled; then, when it did not sign the person in, says why above
 * the screens until they close it (a toast would go with the first screen's change). */
export function HandoverGate({ handover, children }: { handover: Handover | null; children: ReactNode }) {
  const [settled, setSettled] = useState(handover === null);
  const [notice, setNotice] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const { t } = useTranslation();
  useEffect(() => {
    if (!handover) return;
    let live = true;
    void handover.outcome().then((outcome) => {
      if (!live) return;
      // Whatever was read before belongs to no session, or to the one the browser kept.
      queryClient.removeQueries({ queryKey: queryKeys.borrower });
      if (outcome === 'kept-own-session') setNotice(t('handover.keptOwnSession'));
      if (outcome === 'invalid') setNotice(t('handover.invalid'));
      if (outcome === 'failed') setNotice(t('handover.failed'));
      setSettled(true);
    });
    return () => {
      live = false;
    };
  }, [handover, queryClient, t]);
  if (!settled) return <LoadingState text={t('handover.signingIn')} />;
  return (
    <>
      {notice && (
        <div className="handover-notice" role="alert">
          <p className="handover-notice__text">{notice}</p>
          <button type="button" className="handover-notice__close" onClick={() => setNotice(null)}>
            {t('handover.close')}
          </button>
        </div>
      )}
      {children}
    </>
  );
}
