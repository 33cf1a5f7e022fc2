// The one HTTP client of every web area (PRODUCT.md §4): 60 s timeout, the XMLHttpRequest marker,
// headers forwarded from the page URL, envelope unwrapping, typed errors and a 401 hook.
//
// No session is ever taken from the URL: the browser's session is its HttpOnly cookie. The page's
// `sessionId` was once forwarded as `X-Session-Id`, which let a link sign a browser into another account
// (security report N2); the native shell now hands its session over with a one-time code
// (borrower/handover.ts).

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Every failed call becomes this: the envelope's `code`, `msg` and `fields`, and the HTTP status (0 when no answer). */
export class ApiError extends Error {
  readonly code: string;
  readonly msg: string;
  readonly fields: Record<string, string>;
  readonly status: number;
  /** Seconds from a `Retry-After` header (429 answers), or null. */
  readonly retryAfterSeconds: number | null;
  /** Why a borrower's session ended, from a 401's `X-Signed-Out` (`expired`, `logged_out`, `account_deleted`), or null. */
  readonly signedOut: string | null;

  constructor(init: {
    code: string;
    msg?: string;
    fields?: Record<string, string>;
    status: number;
    retryAfterSeconds?: number | null;
    signedOut?: string | null;
  }) {
    super(init.msg || init.code);
    this.name = 'ApiError';
    this.code = init.code;
    this.msg = init.msg ?? '';
    this.fields = init.fields ?? {};
    this.status = init.status;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.signedOut = init.signedOut ?? null;
  }
}

/** Codes the client makes up itself when the server gave no envelope. */
export const CLIENT_ERROR = {
  network: 'network_error',
  timeout: 'timeout',
  badResponse: 'bad_response',
} as const;

export interface HttpClientOptions {
  /** `en-IN` or `id-ID`; the server answers `msg` in this language. */
  language: string;
  baseUrl?: string;
  timeoutMs?: number;
  /** The page URL's query string; read on every call so a later `history` change is seen. */
  pageSearch?: () => string;
  /** Headers added to every unsafe request (POST), read on each call: the console's `X-CSRF-Token`. */
  unsafeHeaders?: () => Record<string, string>;
}

export type Json = unknown;

let onUnauthorized: ((error: ApiError) => void) | null = null;

/** Areas that have a login (borrower app, console) set what a 401 does, e.g. redirect to their login page. */
export function setUnauthorizedHandler(handler: ((error: ApiError) => void) | null): void {
  onUnauthorized = handler;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `Retry-After` in its delta-seconds form (what the server sends); an HTTP date is not used here. */
function retryAfter(response: Response): number | null {
  const value = response.headers.get('Retry-After')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

function stringMap(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) if (typeof text === 'string') out[key] = text;
  return out;
}

export function createHttpClient(options: HttpClientOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseUrl = options.baseUrl ?? '';
  const pageSearch = options.pageSearch ?? (() => (typeof window === 'undefined' ? '' : window.location.search));

  const fromPage = (name: string) => new URLSearchParams(pageSearch()).get(name) ?? '';

  async function send<T>(method: string, path: string, body: BodyInit | undefined, headers: Record<string, string>): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);

    let response: Response;
    try {
      response = await fetch(baseUrl + path, {
        method,
        body,
        credentials: 'same-origin',
        signal: controller.signal,
        headers: {
          Accept: 'application/json',
          'Accept-Language': options.language,
          'X-Requested-With': 'XMLHttpRequest',
          ...headers,
        },
      });
    } catch {
      clearTimeout(timer);
      throw new ApiError({ code: timedOut ? CLIENT_ERROR.timeout : CLIENT_ERROR.network, status: 0 });
    }

    let envelope: unknown;
    try {
      const text = await response.text();
      envelope = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (a proxy's error page, say): reported below as a bad response with its status.
    } finally {
      clearTimeout(timer);
    }
    if (timedOut) throw new ApiError({ code: CLIENT_ERROR.timeout, status: 0 });

    const ok = response.ok && isRecord(envelope) && envelope.code === 0;
    if (ok) return (envelope as { data: T }).data;

    const error = isRecord(envelope)
      ? new ApiError({
          code: typeof envelope.code === 'string' ? envelope.code : String(envelope.code ?? CLIENT_ERROR.badResponse),
          msg: typeof envelope.msg === 'string' ? envelope.msg : '',
          fields: stringMap(envelope.fields),
          status: response.status,
          retryAfterSeconds: retryAfter(response),
          signedOut: response.status === 401 ? response.headers.get('X-Signed-Out') : null,
        })
      : new ApiError({ code: CLIENT_ERROR.badResponse, status: response.status, retryAfterSeconds: retryAfter(response) });
    if (response.status === 401) onUnauthorized?.(error);
    throw error;
  }

  const jsonHeaders = () => ({
    'X-App-Channel': fromPage('channel'),
  });
  const formHeaders = () => ({
    'X-Device-Id': fromPage('deviceId'),
    'X-App-Version': fromPage('appVersion'),
  });
  const unsafeHeaders = () => options.unsafeHeaders?.() ?? {};

  return {
    /** GET through the JSON variant. */
    get<T>(path: string): Promise<T> {
      return send<T>('GET', path, undefined, jsonHeaders());
    },
    /** JSON variant: forwards `channel` as `X-App-Channel`. */
    postJson<T>(path: string, body: Json): Promise<T> {
      return send<T>('POST', path, JSON.stringify(body), {
        'Content-Type': 'application/json',
        ...jsonHeaders(),
        ...unsafeHeaders(),
      });
    },
    /** PUT through the JSON variant (the console's full edits). */
    putJson<T>(path: string, body: Json): Promise<T> {
      return send<T>('PUT', path, JSON.stringify(body), {
        'Content-Type': 'application/json',
        ...jsonHeaders(),
        ...unsafeHeaders(),
      });
    },
    /** A file's bytes as the body (an image upload): JSON variant headers, `Content-Type` the file's. */
    postBytes<T>(path: string, body: Blob, contentType: string): Promise<T> {
      return send<T>('POST', path, body, {
        'Content-Type': contentType || 'application/octet-stream',
        ...jsonHeaders(),
        ...unsafeHeaders(),
      });
    },
    /** DELETE through the JSON variant. */
    delete<T>(path: string): Promise<T> {
      return send<T>('DELETE', path, undefined, { ...jsonHeaders(), ...unsafeHeaders() });
    },
    /** Form-encoded variant: forwards `deviceId` / `appVersion` as `X-Device-Id` / `X-App-Version`. */
    postForm<T>(path: string, body: Record<string, string>): Promise<T> {
      return send<T>('POST', path, new URLSearchParams(body).toString(), {
        'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
        ...formHeaders(),
        ...unsafeHeaders(),
      });
    },
  };
}

export type HttpClient = ReturnType<typeof createHttpClient>;
