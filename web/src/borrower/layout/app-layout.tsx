import { Suspense, useCallback, useContext, useEffect, type CSSProperties, type ErrorInfo } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigationType } from 'react-router';
import { ErrorBoundary } from '@/shared/ui/error-boundary';
import { useDismissToast } from '@/shared/ui/toast';
import { useSiteSettings } from '../api/site-settings';
import { ErrorPage } from '../screens/error/error-page';
import { TelemetryContext } from '../telemetry/telemetry-context';
import { LoadingState } from '../ui/state-notice';

/** Every screen of the app: the screen itself (loaded on demand) and the lender's name below it. */
export function AppLayout() {
  const { pathname } = useLocation();
  const { data: settings } = useSiteSettings();
  const dismissToast = useDismissToast();
  // A screen that throws while rendering, or whose chunk cannot be fetched, shows the error notice instead of a blank
  // page, and the error is reported with the components it came through.
  const telemetry = useContext(TelemetryContext);
  const reportError = useCallback(
    (error: Error, info: ErrorInfo) => {
      const stack = [error.stack, info.componentStack].filter(Boolean).join('\n');
      telemetry?.reportError(Object.assign(new Error(error.message), { name: error.name, stack }), pathname);
    },
    [telemetry, pathname],
  );
  // A message is about the screen it was shown on (a wrong code, say), not the next one.
  useEffect(() => dismissToast(), [pathname, dismissToast]);
  // A new screen starts at its top (the KFS opened from the bottom of a product page starts at its APR);
  // going back keeps the browser's own scroll restoration.
  const navigationType = useNavigationType();
  useEffect(() => {
    if (navigationType !== 'POP') window.scrollTo(0, 0);
  }, [pathname, navigationType]);
  // Theme colours are runtime settings, validated by the server as #rrggbb.
  const theme = settings
    ? ({
        '--adm-color-primary': settings.themeBackgroundColor,
        '--brand-bg': settings.themeBackgroundColor,
        '--brand-fg': settings.backgroundFontColor,
        '--text': settings.fontColor,
      } as CSSProperties)
    : undefined;
  return (
    <div className="app" style={theme}>
      <ErrorBoundary resetKey={pathname} fallback={<ErrorPage />} onError={reportError}>
        <Suspense fallback={<ScreenLoading />}>
          <Outlet />
        </Suspense>
      </ErrorBoundary>
      <LenderFooter />
    </div>
  );
}

/** A screen while its chunk, or its texts, are on their way. */
export function ScreenLoading() {
  return (
    <main className="screen">
      <LoadingState />
    </main>
  );
}

/** RBI's digital lending rules: the lender is named on every borrower screen; OJK: with its licence. */
function LenderFooter() {
  const { t } = useTranslation();
  const { data: settings } = useSiteSettings();
  return (
    <footer className="app-footer">
      <p>{settings ? t('layout.lender', { lender: settings.lenderName }) : '\u00a0'}</p>
      {settings && <p className="app-footer__licence">{settings.licence}</p>}
    </footer>
  );
}
