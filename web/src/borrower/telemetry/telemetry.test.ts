import { describe, expect, it, vi } from 'vitest';
import { BURIED_POINTS_PATH, ERRORS_PATH, MAX_BATCH, MAX_ERRORS, createTelemetry, type TelemetryTransport } from './telemetry';

interface Sent {
  url: string;
  body: unknown;
  via: 'beacon' | 'fetch';
  headers?: Record<string, string>;
  keepalive?: boolean;
}

async function blobJson(blob: Blob): Promise<unknown> {
  return JSON.parse(await blob.text());
}

function recorder(beaconAccepts = true) {
  const sent: Promise<Sent>[] = [];
  const transport: TelemetryTransport = {
    beacon: (url, data) => {
      expect(data.type).toBe('application/json');
      if (beaconAccepts) sent.push(blobJson(data).then((body) => ({ url, body, via: 'beacon' as const })));
      return beaconAccepts;
    },
    fetch: (url, init) => {
      sent.push(
        Promise.resolve({
          url,
          body: JSON.parse(String(init.body)),
          via: 'fetch' as const,
          headers: init.headers as Record<string, string>,
          keepalive: init.keepalive,
        }),
      );
      return Promise.resolve(new Response('{}'));
    },
  };
  return { transport, sent: () => Promise.all(sent) };
}

function page() {
  const target = new EventTarget() as EventTarget & { document: Document };
  let visibility: DocumentVisibilityState = 'visible';
  const doc = new EventTarget() as EventTarget & { visibilityState: DocumentVisibilityState };
  Object.defineProperty(doc, 'visibilityState', { get: () => visibility });
  Object.assign(target, { document: doc });
  return {
    window: target as unknown as Window,
    hide() {
      visibility = 'hidden';
      doc.dispatchEvent(new Event('visibilitychange'));
    },
  };
}

describe('telemetry', () => {
  it('batches events and sends them with sendBeacon when the page hides', async () => {
    const { transport, sent } = recorder();
    const telemetry = createTelemetry({ transport, now: () => 1000, route: () => '/home' });
    const { window, hide } = page();
    telemetry.install(window);
    telemetry.setActive(true);
    telemetry.track('screen.view');
    telemetry.track('home.apply:tap', { amount: 500000 });
    expect(await sent()).toEqual([]);

    hide();
    expect(await sent()).toEqual([
      {
        url: BURIED_POINTS_PATH,
        via: 'beacon',
        body: {
          events: [
            { name: 'screen.view', route: '/home', at: 1000 },
            { name: 'home.apply:tap', route: '/home', at: 1000, props: { amount: 500000 } },
          ],
        },
      },
    ]);
    expect(telemetry.pending()).toEqual([]);
  });

  it('flushes on pagehide, and a full batch at once, never more than the server takes', async () => {
    const { transport, sent } = recorder();
    const telemetry = createTelemetry({ transport });
    const { window } = page();
    telemetry.install(window);
    telemetry.setActive(true);
    for (let i = 0; i < MAX_BATCH + 3; i += 1) telemetry.track(`tap.${i}`);
    const full = await sent();
    expect(full).toHaveLength(1);
    expect((full[0]!.body as { events: unknown[] }).events).toHaveLength(MAX_BATCH);
    expect(telemetry.pending()).toHaveLength(3);

    window.dispatchEvent(new Event('pagehide'));
    const all = await sent();
    expect(all).toHaveLength(2);
    expect((all[1]!.body as { events: { name: string }[] }).events.map((e) => e.name)).toEqual(['tap.50', 'tap.51', 'tap.52']);
  });

  it('keeps nothing while no borrower is signed in, and forgets the buffer at sign-out', async () => {
    const { transport, sent } = recorder();
    const telemetry = createTelemetry({ transport });
    telemetry.track('login.view');
    expect(telemetry.pending()).toEqual([]);
    telemetry.setActive(true);
    telemetry.track('home.view');
    telemetry.setActive(false);
    telemetry.flush();
    expect(await sent()).toEqual([]);
  });

  it('falls back to a keep-alive fetch with the cookie when the beacon is refused, never a session header', async () => {
    const refused = recorder(false);
    const telemetry = createTelemetry({ transport: refused.transport });
    telemetry.setActive(true);
    telemetry.track('a');
    telemetry.flush();
    const [viaFetch] = await refused.sent();
    expect(viaFetch).toMatchObject({ url: BURIED_POINTS_PATH, via: 'fetch', keepalive: true });
    expect(viaFetch!.headers).not.toHaveProperty('X-Session-Id');
  });

  it('reports uncaught errors and rejections with stack and route, a few per page load', async () => {
    const { transport, sent } = recorder();
    const telemetry = createTelemetry({ transport, now: () => 7, route: () => '/orders' });
    const { window } = page();
    const stop = telemetry.install(window);
    telemetry.setActive(true);
    const thrown = new TypeError('x is undefined');
    window.dispatchEvent(Object.assign(new Event('error'), { error: thrown, message: thrown.message }));
    window.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: 'timeout' }));
    const [first, second] = await sent();
    expect(first).toMatchObject({ url: ERRORS_PATH, body: { message: 'TypeError: x is undefined', route: '/orders', at: 7 } });
    expect((first!.body as { stack: string }).stack).toContain('TypeError');
    expect(second).toMatchObject({ url: ERRORS_PATH, body: { message: 'timeout' } });

    for (let i = 0; i < 10; i += 1) telemetry.reportError(new Error(`again ${i}`));
    expect(await sent()).toHaveLength(MAX_ERRORS);

    stop();
    const spy = vi.spyOn(telemetry, 'reportError');
    window.dispatchEvent(new Event('error'));
    expect(spy).not.toHaveBeenCalled();
  });
});
