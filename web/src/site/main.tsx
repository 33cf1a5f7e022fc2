// The site's client entry. The server sends HTML prerendered for the route and market; if this page
// is one of those, React hydrates it, otherwise (a path that fell back to index.html) it renders afresh.
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { createHttpClient } from '@/shared/api/http';
import { marketFromSearch } from '@/shared/market/market';
import { normalizePath } from '@/shared/router/router';
import { readPageSettings } from '@/shared/settings/settings';
import { registerServiceWorker } from '@/shared/sw/register-service-worker';
import { SiteApp } from './app';
import { createSiteI18n } from './i18n/site-i18n';
import './site.css';

const container = document.getElementById('root');
if (container) {
  const market = marketFromSearch(window.location.search);
  const settings = readPageSettings(document, market.id);
  const i18n = createSiteI18n(market.language);
  const api = createHttpClient({ language: market.locale });
  const path = normalizePath(window.location.pathname);
  const prerendered = container.dataset.route;
  const canHydrate = prerendered === path && container.dataset.market === market.id && container.firstElementChild !== null;

  document.documentElement.lang = market.locale;
  if (settings.companyName) document.title = settings.companyName;

  const app = (
    <StrictMode>
      <SiteApp market={market} settings={settings} i18n={i18n} api={api} serverUrl={path} />
    </StrictMode>
  );
  if (canHydrate) {
    // As a transition, hydration yields to the browser every few milliseconds instead of running as
    // one long task: the page is already painted, so this keeps the main thread free (Total Blocking Time).
    startTransition(() => {
      hydrateRoot(container, app);
    });
  } else {
    container.textContent = '';
    createRoot(container).render(app);
  }

  if (import.meta.env.PROD) registerServiceWorker();
}
