import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { queryKeys } from '../api/query-keys';
import type { Telemetry } from './telemetry';

/** The app's telemetry, or null where none is wired (most tests). */
export const TelemetryContext = createContext<Telemetry | null>(null);

export function TelemetryProvider({ telemetry, children }: { telemetry: Telemetry | null; children: ReactNode }) {
  return <TelemetryContext.Provider value={telemetry}>{children}</TelemetryContext.Provider>;
}

export function useTelemetry(): Telemetry | null {
  return useContext(TelemetryContext);
}

/**
 * A borrower is signed in while some call of theirs has answered (the queries under `borrower`); log-out and a
 * 401 remove those queries.
 */
function useSignedIn(): boolean {
  const queryClient = useQueryClient();
  const cache = queryClient.getQueryCache();
  const subscribe = useCallback((onChange: () => void) => cache.subscribe(onChange), [cache]);
  const read = () => cache.findAll({ queryKey: queryKeys.borrower }).some((query) => query.state.status === 'success');
  return useSyncExternalStore(subscribe, read, () => false);
}

/** Keeps telemetry on while a borrower is signed in and records each screen shown. Inside the router. */
export function TelemetryBridge() {
  const telemetry = useTelemetry();
  const signedIn = useSignedIn();
  const { pathname } = useLocation();
  useEffect(() => {
    telemetry?.setActive(signedIn);
  }, [telemetry, signedIn]);
  useEffect(() => {
    if (signedIn) telemetry?.track('screen.view');
  }, [telemetry, signedIn, pathname]);
  return null;
}
