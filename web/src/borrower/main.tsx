// The borrower app's entry (app/index.html). Client-rendered: the server answers the same HTML for every
// path under /app, with the public settings in a JSON data block.
import './antd-render';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { readFilledPageSettings } from '@/shared/settings/settings';
import { registerServiceWorker } from '@/shared/sw/register-service-worker';
import { BorrowerApp } from './app';
import { bootBorrower, bootTelemetry, sessionStorageOrNull } from './boot';
import { preloadScreen } from './routes';
import './borrower.css';

const container = document.getElementById('root');
if (container) {
  preloadScreen(window.location.pathname);
  const app = bootBorrower({ search: window.location.search, storage: sessionStorageOrNull(), settings: readFilledPageSettings() });
  document.documentElement.lang = app.market.locale;
  createRoot(container).render(
    <StrictMode>
      <BorrowerApp {...app} telemetry={bootTelemetry()} />
    </StrictMode>,
  );
  if (import.meta.env.PROD) registerServiceWorker();
}
