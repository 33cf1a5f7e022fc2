// Everything the app is made of for one page load, built from the page's URL and storage: main.tsx
// and the tests both start the app through here. Its texts come apart: main.tsx fetches the market's
// catalog (loadBorrowerI18n), the tests import it.
import { createHttpClient } from '@/shared/api/http';
import { marketForVisit } from '@/shared/market/market';
import { settingsMarket, type SiteSettings } from '@/shared/settings/settings';
import { queryKeys } from './api/query-keys';
import { createQueryClient } from './api/query-client';
import type { BorrowerAppProps } from './app';
import { createHandover } from './handover';
import { createShellParams, takeUrlCredentials } from './shell-params';
import { APP_BASENAME } from './paths';
import { browserTransport, createTelemetry } from './telemetry/telemetry';

export function bootBorrower(options: {
  search: string;
  storage: Storage | null;
  /** The settings the server wrote into the page, when it did. */
  settings: SiteSettings | null;
  retryReads?: boolean;
}): Omit<BorrowerAppProps, 'i18n' | 'telemetry'> {
  // First of all, before anything renders or is sent: the hand-over code, and any `sessionId`, leave the URL.
  const handoverCode = takeUrlCredentials();
  const market = marketForVisit(options.search, options.storage);
  const shell = createShellParams(options.search);
  const api = createHttpClient({ language: market.locale, pageSearch: shell.search });
  const queryClient = createQueryClient({ retryReads: options.retryReads });
  // The page carries the market the server chose by its URL; a visit that chose the other market earlier
  // (sessionStorage) asks the API for its own instead.
  const settings = options.settings;
  if (settings && settings.market === settingsMarket(market.id)) queryClient.setQueryData(queryKeys.siteSettings(settings.market), settings);
  return { market, api, queryClient, handover: createHandover(api, handoverCode) };
}

/** The page's telemetry: beacons, which the session cookie authenticates. */
export function bootTelemetry(target: Window = window) {
  const telemetry = createTelemetry({
    transport: browserTransport(target),
    route: () => {
      const path = target.location.pathname;
      return path.startsWith(APP_BASENAME) ? path.slice(APP_BASENAME.length) || '/' : path;
    },
  });
  telemetry.install(target);
  return telemetry;
}

/** sessionStorage, or null where the browser refuses it (some private modes throw on access). */
export function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
