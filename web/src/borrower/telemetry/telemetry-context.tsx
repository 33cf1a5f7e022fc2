import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
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
 * Keeps telemetry on while a borrower is signed in (their `me` is known; a 401 forgets it) and records each
 * screen shown. Inside the router and the query client.
 */
export function TelemetryBridge() {
  const telemetry = useTelemetry();
  // Observes the cache only: the screens that need `me` fetch it.
  const { data: me } = useQuery({ queryKey: queryKeys.me, enabled: false });
  const signedIn = me !== undefined;
  const { pathname } = useLocation();
  useEffect(() => {
    telemetry?.setActive(signedIn);
  }, [telemetry, signedIn]);
  useEffect(() => {
    if (signedIn) telemetry?.track('screen.view');
  }, [telemetry, signedIn, pathname]);
  return null;
}
