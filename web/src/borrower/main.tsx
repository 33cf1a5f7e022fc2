// The borrower app's entry (app/index.html). Client-rendered: the server answers the same HTML for every
// path under /app, with the public settings in a JSON data block.
import './antd-render';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { readFilledPageSettings } from '@/shared/settings/settings';
import { registerServiceWorker } from '@/shared/sw/register-service-worker';
import { BorrowerApp } from './app';
import { bootBorrower, bootTelemetry, sessionStorageOrNull } from './boot';
import { createBorrowerI18n, loadBorrowerI18n } from './i18n/borrower-i18n';
import { preloadScreen } from './routes';
import { TextsFailedPage } from './screens/error/error-page';
import './borrower.css';

const container = document.getElementById('root');
if (container) {
  const app = bootBorrower({ search: window.location.search, storage: sessionStorageOrNull(), settings: readFilledPageSettings() });
  // The market's texts are fetched together with the first screen's chunk, which the app would wait for
  // anyway: rendering once they have arrived adds no round trip.
  preloadScreen(window.location.pathname, app.market.language);
  const i18n = loadBorrowerI18n(app.market.language);
  document.documentElement.lang = app.market.locale;
  const telemetry = bootTelemetry();
  const root = createRoot(container);
  i18n.then(
    (i18n) =>
      root.render(
        <StrictMode>
          <BorrowerApp {...app} i18n={i18n} telemetry={telemetry} />
        </StrictMode>,
      ),
    (error: unknown) => {
      telemetry.reportError(error);
      root.render(
        <StrictMode>
          <I18nextProvider i18n={createBorrowerI18n(app.market.language)}>
            <TextsFailedPage />
          </I18nextProvider>
        </StrictMode>,
      );
    },
  );
  if (import.meta.env.PROD) registerServiceWorker();
}
