import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '@/test/render-site';
import { ApiError, CLIENT_ERROR, DEFAULT_TIMEOUT_MS, createHttpClient, setUnauthorizedHandler } from './http';

type FetchArgs = [input: RequestInfo | URL, init?: RequestInit];

function stubFetch(answer: (...args: FetchArgs) => Promise<Response>) {
  const fetchMock = vi.fn(answer);
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const headersOf = (init: RequestInit | undefined) => init?.headers as Record<string, string>;

describe('http client', () => {
  beforeEach(() => window.history.replaceState(null, '', '/?sessionId=s-1&channel=gp&deviceId=d-9&appVersion=2.1.0'));
  afterEach(() => {
    vi.unstubAllGlobals();
    setUnauthorizedHandler(null);
  });

  it('sends the JSON variant headers from the page URL and unwraps data', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(200, { code: 0, msg: 'ok', data: { id: 'x' } }));
    const client = createHttpClient({ language: 'en-IN' });
    await expect(client.postJson('/api/v1/things', { a: 1 })).resolves.toEqual({ id: 'x' });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/v1/things');
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"a":1}');
    expect(headersOf(init)).toMatchObject({
      'X-Requested-With': 'XMLHttpRequest',
      'X-App-Channel': 'gp',
      'Accept-Language': 'en-IN',
      'Content-Type': 'application/json',
    });
    expect(headersOf(init)).not.toHaveProperty('X-Device-Id');
    // A session is never taken from the URL (security report N2): the browser's is its cookie.
    expect(headersOf(init)).not.toHaveProperty('X-Session-Id');
    expect(init?.credentials).toBe('same-origin');
  });

  it('adds the unsafe-request headers, read on each call, to POSTs only', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(200, { code: 0, msg: 'ok', data: null }));
    let token = 'csrf-1';
    const client = createHttpClient({ language: 'en-IN', unsafeHeaders: () => ({ 'X-CSRF-Token': token }) });
    await client.get('/api/v1/console/me');
    await client.postJson('/api/v1/console/orders/KL-1/approve', { reason: 'ok' });
    token = 'csrf-2';
    await client.postForm('/api/v1/console/logout', {});
    expect(headersOf(fetchMock.mock.calls[0]![1])).not.toHaveProperty('X-CSRF-Token');
    expect(headersOf(fetchMock.mock.calls[1]![1])).toMatchObject({ 'X-CSRF-Token': 'csrf-1' });
    expect(headersOf(fetchMock.mock.calls[2]![1])).toMatchObject({ 'X-CSRF-Token': 'csrf-2' });
  });

  it('sends missing URL values as empty headers', async () => {
    window.history.replaceState(null, '', '/');
    const fetchMock = stubFetch(async () => jsonResponse(200, { code: 0, msg: 'ok', data: null }));
    await createHttpClient({ language: 'id-ID' }).get('/api/v1/x');
    expect(headersOf(fetchMock.mock.calls[0]![1])).toMatchObject({ 'X-App-Channel': '', 'Accept-Language': 'id-ID' });
  });

  it('sends the form-encoded variant with the device headers', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: 7 }));
    const client = createHttpClient({ language: 'id-ID' });
    await expect(client.postForm('/api/v1/form', { name: 'Budi Santoso', note: 'a&b' })).resolves.toBe(7);
    const init = fetchMock.mock.calls[0]![1];
    expect(init?.body).toBe('name=Budi+Santoso&note=a%26b');
    expect(headersOf(init)).toMatchObject({
      'X-Requested-With': 'XMLHttpRequest',
      'X-Device-Id': 'd-9',
      'X-App-Version': '2.1.0',
      'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
    });
    expect(headersOf(init)).not.toHaveProperty('X-Session-Id');
  });

  it('turns an error envelope into an ApiError with code, msg, fields and status', async () => {
    stubFetch(async () =>
      jsonResponse(422, { code: 'validation_failed', msg: 'Nama wajib diisi', data: null, fields: { name: 'required' } }),
    );
    const error = await createHttpClient({ language: 'id-ID' }).postJson('/x', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'validation_failed', msg: 'Nama wajib diisi', fields: { name: 'required' }, status: 422 });
    expect((error as ApiError).retryAfterSeconds).toBeNull();
  });

  it('carries the Retry-After seconds of a refusal', async () => {
    stubFetch(
      async () =>
        new Response(JSON.stringify({ code: 'code_resend_too_soon', msg: 'Wait 42 seconds', data: null }), {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '42' },
        }),
    );
    await expect(createHttpClient({ language: 'en-IN' }).postJson('/x', {})).rejects.toMatchObject({
      code: 'code_resend_too_soon',
      status: 429,
      retryAfterSeconds: 42,
    });
  });

  it('treats a non-JSON answer as a bad response carrying the status', async () => {
    stubFetch(async () => new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(createHttpClient({ language: 'en-IN' }).get('/x')).rejects.toMatchObject({ code: CLIENT_ERROR.badResponse, status: 502, msg: '' });
  });

  it('treats a 200 whose envelope code is not 0 as an error', async () => {
    stubFetch(async () => jsonResponse(200, { code: 'nope', msg: 'Refused' }));
    await expect(createHttpClient({ language: 'en-IN' }).get('/x')).rejects.toMatchObject({ code: 'nope', msg: 'Refused', status: 200 });
  });

  it('maps a network failure to network_error with status 0', async () => {
    stubFetch(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(createHttpClient({ language: 'en-IN' }).get('/x')).rejects.toMatchObject({ code: CLIENT_ERROR.network, status: 0 });
  });

  it('aborts after 60 seconds and reports a timeout', async () => {
    vi.useFakeTimers();
    try {
      stubFetch(
        (_input, init) =>
          new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          }),
      );
      const pending = createHttpClient({ language: 'en-IN' }).get('/slow').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
      let settled = false;
      void pending.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await pending).toMatchObject({ code: CLIENT_ERROR.timeout, status: 0 });
      expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('calls the 401 hook, then still rejects', async () => {
    stubFetch(async () => jsonResponse(401, { code: 'unauthorized', msg: 'Please log in', data: null }));
    const onUnauthorized = vi.fn();
    setUnauthorizedHandler(onUnauthorized);
    await expect(createHttpClient({ language: 'en-IN' }).get('/me')).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    expect(onUnauthorized.mock.calls[0]![0]).toMatchObject({ code: 'unauthorized' });
  });
});
