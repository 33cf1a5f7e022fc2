import { QueryClientProvider, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import { useEffect } from 'react';
import { I18nextProvider } from 'react-i18next';
import { BrowserRouter, useNavigate } from 'react-router';
import { ApiProvider } from '@/shared/api/api-context';
import { setUnauthorizedHandler, type HttpClient } from '@/shared/api/http';
import { queryKeys } from './api/query-keys';
import type { CsrfStore } from './csrf';
import { CsrfProvider, useCsrf } from './csrf-context';
import { CONSOLE_BASENAME, consolePaths } from './paths';
import { ConsoleRoutes } from './routes';

export interface ConsoleAppProps {
  i18n: I18n;
  api: HttpClient;
  queryClient: QueryClient;
  csrf: CsrfStore;
}

/** The operators' console with its real providers; main.tsx and the tests render this. */
export function ConsoleApp({ i18n, api, queryClient, csrf }: ConsoleAppProps) {
  return (
    <I18nextProvider i18n={i18n}>
      <CsrfProvider store={csrf}>
        <ApiProvider client={api}>
          <QueryClientProvider client={queryClient}>
            <BrowserRouter basename={CONSOLE_BASENAME}>
              <SignInOnUnauthorized />
              <ConsoleRoutes />
            </BrowserRouter>
          </QueryClientProvider>
        </ApiProvider>
      </CsrfProvider>
    </I18nextProvider>
  );
}

/**
 * A 401 from any call means the session is gone (expired after 12 hours, signed out elsewhere): forget what belonged
 * to it and go to the sign-in, which comes back to this page afterwards.
 */
function SignInOnUnauthorized() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const csrf = useCsrf();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      const { pathname, search } = window.location;
      const here = pathname.startsWith(CONSOLE_BASENAME) ? pathname.slice(CONSOLE_BASENAME.length) || '/' : pathname;
      if (here === consolePaths.signIn) return;
      csrf.clear();
      queryClient.removeQueries({ queryKey: queryKeys.console });
      void navigate(consolePaths.signIn, { replace: true, state: { from: `${here}${search}` } });
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate, queryClient, csrf]);
  return null;
}
