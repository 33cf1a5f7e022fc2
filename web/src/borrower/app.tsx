import { QueryClientProvider, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ConfigProvider } from 'antd-mobile';
import enUS from 'antd-mobile/es/locales/en-US';
import idID from 'antd-mobile/es/locales/id-ID';
import type { i18n as I18n } from 'i18next';
import { useEffect, useMemo } from 'react';
import { I18nextProvider } from 'react-i18next';
import { BrowserRouter, useNavigate } from 'react-router';
import { ApiProvider } from '@/shared/api/api-context';
import { setUnauthorizedHandler, type HttpClient } from '@/shared/api/http';
import type { Market } from '@/shared/market/market';
import { MarketProvider } from '@/shared/market/market-context';
import { ToastProvider } from '@/shared/ui/toast';
import { forgetAllKept } from './api/idempotency-key';
import { queryKeys } from './api/query-keys';
import { sessionStorageOrNull } from './boot';
import { APP_BASENAME } from './paths';
import { BorrowerRoutes } from './routes';
import { HandoverGate, type Handover } from './handover';
import type { Telemetry } from './telemetry/telemetry';
import { TelemetryBridge, TelemetryProvider } from './telemetry/telemetry-context';

export interface BorrowerAppProps {
  market: Market;
  i18n: I18n;
  api: HttpClient;
  queryClient: QueryClient;
  /** Batched UI events and error reports; none in most tests. */
  telemetry?: Telemetry | null;
  /** The native shell's hand-over code, to exchange before the first screen; null when the page had none. */
  handover?: Handover | null;
}

/** The borrower app with its real providers; main.tsx and the tests render this. */
export function BorrowerApp({ market, i18n, api, queryClient, telemetry = null, handover = null }: BorrowerAppProps) {
  // The kit's id-ID locale leaves a few texts in English (the input's clear button): ours fills them.
  const kitLocale = useMemo(() => {
    const base = market.id === 'in' ? enUS : idID;
    return { ...base, Input: { ...base.Input, clear: i18n.t('borrower:layout.clearInput') } };
  }, [market, i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <MarketProvider market={market}>
        {/* The kit's own texts (clear buttons, loading) in the market's language, not Chinese (PRODUCT.md §1). */}
        <ConfigProvider locale={kitLocale}>
          <ApiProvider client={api}>
            <QueryClientProvider client={queryClient}>
              <TelemetryProvider telemetry={telemetry}>
                <ToastProvider>
                  <BrowserRouter basename={APP_BASENAME}>
                    <LoginOnUnauthorized />
                    <HandoverGate handover={handover}>
                      <TelemetryBridge />
                      <BorrowerRoutes />
                    </HandoverGate>
                  </BrowserRouter>
                </ToastProvider>
              </TelemetryProvider>
            </QueryClientProvider>
          </ApiProvider>
        </ConfigProvider>
      </MarketProvider>
    </I18nextProvider>
  );
}

/**
 * A 401 from any call means the session is gone: forget what belonged to it and go to the login screen,
 * which comes back here afterwards. Replace, so the back button does not return to a screen that needs
 * a session.
 */
function LoginOnUnauthorized() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    setUnauthorizedHandler((error) => {
      const { pathname, search } = window.location;
      const here = pathname.startsWith(APP_BASENAME) ? pathname.slice(APP_BASENAME.length) || '/' : pathname;
      // A session that ended says why (expired, logged out elsewhere, account deleted): the login screen repeats it.
      const signedOut = error.signedOut && error.msg ? error.msg : undefined;
      if (here !== '/login') void navigate('/login', { replace: true, state: { from: `${here}${search}`, signedOut } });
      queryClient.removeQueries({ queryKey: queryKeys.borrower });
      // And what this tab kept of the borrower's applications and payments: whoever signs in next may be someone else.
      // (A certification draft stays: it names its borrower and comes back only to them, see step-draft.ts.)
      forgetAllKept(sessionStorageOrNull());
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate, queryClient]);
  return null;
}
