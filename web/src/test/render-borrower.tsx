// Renders the borrower app through its real providers, as its entry does, with `fetch` answered by a
// small fake of the API at the network boundary.
import '@/borrower/antd-render';
import { render } from '@testing-library/react';
import { vi } from 'vitest';
import { BorrowerApp } from '@/borrower/app';
import { bootBorrower } from '@/borrower/boot';
import type { Telemetry } from '@/borrower/telemetry/telemetry';
import { marketFromSearch } from '@/shared/market/market';
import { DEV_SETTINGS_BY_MARKET, type SiteSettings } from '@/shared/settings/settings';
import { borrowerI18n } from './borrower-i18n';

export interface ApiCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
}

type Answer = Response | Promise<Response>;
export type Handler = (call: ApiCall) => Answer;

export function ok(data: unknown, status = 200): Response {
  return new Response(JSON.stringify({ code: 0, msg: 'ok', data }), { status, headers: { 'Content-Type': 'application/json' } });
}

export function refusal(
  status: number,
  code: string,
  msg: string,
  options: { fields?: Record<string, string>; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify({ code, msg, data: null, ...(options.fields && { fields: options.fields }) }), {
    status,
    headers: { 'Content-Type': 'application/json', ...options.headers },
  });
}

export const LOGIN_INIT_IN = {
  market: 'IN',
  countryCode: '+91',
  phoneExample: '98765 43210',
  phoneDigits: { min: 10, max: 10 },
  codeLength: 6,
  codeTtlSeconds: 300,
  resendSeconds: 60,
  voiceCodeOffered: true,
  agreementUrl: '/app/agreement',
  privacyUrl: '/app/privacy',
  lenderName: DEV_SETTINGS_BY_MARKET.in.lenderName,
};

export const LOGIN_INIT_ID = {
  ...LOGIN_INIT_IN,
  market: 'ID',
  countryCode: '+62',
  phoneExample: '0812-3456-7890',
  phoneDigits: { min: 10, max: 13 },
  lenderName: DEV_SETTINGS_BY_MARKET.id.lenderName,
};

export const ME_IN = { id: 'b-1', phoneMasked: '+91 ******3210', market: 'IN', createdAt: Date.UTC(2026, 0, 15) };

/**
 * A fake API keyed by `METHOD /path`. Unlisted calls answer 404 in the envelope, as the server does.
 * The default answers: login init for the query's market; GET /me is 401 until a login succeeded.
 */
export function fakeApi(handlers: Record<string, Handler> = {}) {
  const calls: ApiCall[] = [];
  let signedIn = false;
  const defaults: Record<string, Handler> = {
    'GET /api/v1/borrower/login/init': (call) => ok(call.query.get('market') === 'IN' ? LOGIN_INIT_IN : LOGIN_INIT_ID),
    'POST /api/v1/borrower/login/sms-code': () => ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }),
    'POST /api/v1/borrower/login': () => {
      signedIn = true;
      return ok({ sessionId: 's-1', borrower: { id: 'b-1', phoneMasked: '+91 ******3210', market: 'IN', isNew: false } });
    },
    'GET /api/v1/borrower/me': () => (signedIn ? ok(ME_IN) : refusal(401, 'unauthorized', 'Please log in.')),
    'POST /api/v1/borrower/logout': () => {
      signedIn = false;
      return ok(null);
    },
    'GET /api/v1/site/settings': (call) => ok(call.query.get('market') === 'IN' ? DEV_SETTINGS_BY_MARKET.in : DEV_SETTINGS_BY_MARKET.id),
  };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), window.location.origin);
    const method = init?.method ?? 'GET';
    const text = typeof init?.body === 'string' ? init.body : '';
    const call: ApiCall = {
      method,
      path: url.pathname,
      query: url.searchParams,
      body: text ? JSON.parse(text) : undefined,
      headers: (init?.headers ?? {}) as Record<string, string>,
    };
    calls.push(call);
    const key = `${method} ${url.pathname}`;
    const handler = handlers[key] ?? defaults[key];
    return handler ? handler(call) : refusal(404, 'not_found', 'Not found');
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    callsTo: (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path),
    signIn: () => {
      signedIn = true;
    },
  };
}

/** Opens the app at `url` (e.g. `/app/login?lang=1`), as a fresh page load would. */
export function renderBorrower(url: string, options: { settings?: SiteSettings | null; telemetry?: Telemetry } = {}) {
  window.history.replaceState(null, '', url);
  const boot = bootBorrower({
    search: window.location.search,
    storage: window.sessionStorage,
    // What the server writes into the page: the settings of the market the URL asks for.
    settings: options.settings === undefined ? DEV_SETTINGS_BY_MARKET[marketFromSearch(window.location.search).id] : options.settings,
    retryReads: false,
  });
  const app = { ...boot, i18n: borrowerI18n(boot.market.language) };
  const result = render(<BorrowerApp {...app} telemetry={options.telemetry ?? null} />);
  return { ...result, app };
}

/** A fetch answer that waits until the test lets it go, to see the loading state. */
export function deferred(): { promise: Promise<Response>; resolve: (response: Response) => void } {
  let resolve!: (response: Response) => void;
  const promise = new Promise<Response>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
