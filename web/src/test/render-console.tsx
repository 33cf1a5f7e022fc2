// Renders the operators' console through its real providers, as its entry does, with `fetch` answered by a small
// fake of the console API at the network boundary.
import { render } from '@testing-library/react';
import { vi } from 'vitest';
import { ConsoleApp } from '@/console/app';
import { bootConsole } from '@/console/boot';
import { CSRF_STORAGE_KEY } from '@/console/csrf';

export interface ApiCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
}

export type Handler = (call: ApiCall) => Response | Promise<Response>;

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

export const CSRF = 'csrf-token-1';

export const OPERATORS = {
  admin: { id: 'op-admin', username: 'admin', roles: ['admin', 'reviewer', 'finance', 'support'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  reviewer: { id: 'op-rev', username: 'rita', roles: ['reviewer'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  support: { id: 'op-sup', username: 'sam', roles: ['support'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  finance: { id: 'op-fin', username: 'fay', roles: ['finance'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  adminOnly: { id: 'op-adm', username: 'ada', roles: ['admin'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  collections: { id: 'op-col', username: 'cole', roles: ['collections'], markets: ['IN', 'ID'], passwordChangeRequired: false },
  /** Finance and reviewer of Indonesia only (the Indonesian lender's staff). */
  indonesia: { id: 'op-idn', username: 'budi', roles: ['reviewer', 'finance'], markets: ['ID'], passwordChangeRequired: false },
  /** Support of Indonesia only. */
  indonesiaSupport: { id: 'op-ids', username: 'sari', roles: ['support'], markets: ['ID'], passwordChangeRequired: false },
  /** An admin of India only: manages India's operators only. */
  indiaAdmin: { id: 'op-ina', username: 'inez', roles: ['admin'], markets: ['IN'], passwordChangeRequired: false },
  /** Signed in with a password an admin set: must choose their own first. */
  newcomer: { id: 'op-new', username: 'nina', roles: ['reviewer'], markets: ['IN'], passwordChangeRequired: true },
} as const;

/**
 * A fake console API keyed by `METHOD /path`. Unlisted calls answer 404 in the envelope, as the server does.
 * `GET /me` answers `operator` while signed in, else 401; `POST /login` signs in as `operator` and answers `CSRF`.
 * Unsafe requests without that `X-CSRF-Token` are refused with 403, as the server does.
 */
export function fakeConsoleApi(options: { operator?: (typeof OPERATORS)[keyof typeof OPERATORS]; signedIn?: boolean; handlers?: Record<string, Handler> } = {}) {
  const operator = options.operator ?? OPERATORS.reviewer;
  const handlers = options.handlers ?? {};
  let signedIn = options.signedIn ?? false;
  if (signedIn) window.localStorage.setItem(CSRF_STORAGE_KEY, CSRF);
  const calls: ApiCall[] = [];
  const defaults: Record<string, Handler> = {
    'POST /api/v1/console/login': () => {
      signedIn = true;
      return ok({ csrfToken: CSRF, operator });
    },
    'POST /api/v1/console/logout': () => {
      signedIn = false;
      return ok(null);
    },
    'GET /api/v1/console/me': () => (signedIn ? ok(operator) : refusal(401, 'unauthorized', 'Please log in again.')),
  };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), window.location.origin);
    const method = init?.method ?? 'GET';
    const text = typeof init?.body === 'string' ? init.body : '';
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const call: ApiCall = { method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined, headers };
    calls.push(call);
    const key = `${method} ${url.pathname}`;
    if (method !== 'GET' && key !== 'POST /api/v1/console/login' && headers['X-CSRF-Token'] !== CSRF) {
      return refusal(403, 'csrf_token_invalid', 'Your session could not be verified. Please reload the page and try again.');
    }
    const handler = handlers[key] ?? defaults[key];
    return handler ? handler(call) : refusal(404, 'not_found', 'Not found.');
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    callsTo: (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path),
  };
}

/** Opens the console at `url` (e.g. `/console/applications`), as a fresh page load would. */
export function renderConsole(url: string) {
  window.history.replaceState(null, '', url);
  const app = bootConsole({ storage: window.localStorage, retryReads: false });
  const result = render(<ConsoleApp {...app} />);
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
