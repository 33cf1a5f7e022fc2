import type { CSSProperties } from 'react';
import { I18nextProvider } from 'react-i18next';
import type { i18n as I18n } from 'i18next';
import { ApiProvider } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import type { Market } from '@/shared/market/market';
import { MarketProvider } from '@/shared/market/market-context';
import { RouterProvider, useLocation } from '@/shared/router/router';
import type { SiteSettings } from '@/shared/settings/settings';
import { SettingsProvider, useSettings } from '@/shared/settings/settings-context';
import { ToastProvider } from '@/shared/ui/toast';
import { AboutPage } from './components/about-page';
import { HomePage } from './components/home-page';
import { NotFound } from './components/not-found';
import { SiteFooter } from './components/site-footer';
import { TopBar } from './components/top-bar';

/** The routes that are prerendered to `<route>.html` / `<route>.en.html`. */
export const PRERENDERED_ROUTES = ['/', '/about'] as const;

export interface SiteAppProps {
  market: Market;
  settings: SiteSettings;
  i18n: I18n;
  api: HttpClient;
  /** The URL path the HTML was rendered for (server render and hydration). */
  serverUrl: string;
}

/** The whole site with its real providers; the client, the prerender script and the tests all render this. */
export function SiteApp({ market, settings, i18n, api, serverUrl }: SiteAppProps) {
  return (
    <I18nextProvider i18n={i18n}>
      <MarketProvider market={market}>
        <SettingsProvider settings={settings}>
          <ApiProvider client={api}>
            <RouterProvider serverUrl={serverUrl}>
              <ToastProvider>
                <SiteLayout />
              </ToastProvider>
            </RouterProvider>
          </ApiProvider>
        </SettingsProvider>
      </MarketProvider>
    </I18nextProvider>
  );
}

function SiteLayout() {
  const settings = useSettings();
  const { path } = useLocation();
  // Theme colours are runtime settings, validated by the server as #rrggbb.
  const theme = {
    '--brand-bg': settings.themeBackgroundColor,
    '--brand-fg': settings.backgroundFontColor,
    '--text': settings.fontColor,
  } as CSSProperties;
  return (
    <div className="site" style={theme}>
      <TopBar />
      <main id="main" className="site-main">
        {path === '/' ? <HomePage /> : path === '/about' ? <AboutPage /> : <NotFound />}
      </main>
      <SiteFooter />
    </div>
  );
}
