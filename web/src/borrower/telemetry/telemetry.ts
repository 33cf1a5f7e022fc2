// The app's telemetry (docs/API-BORROWER.md, "Telemetry"): UI events are batched in memory and sent when
// the page hides (`visibilitychange` → hidden, `pagehide`) or the batch is full, with `navigator.sendBeacon`,
// which the browser delivers even while the page unloads. A beacon cannot set headers: the HttpOnly session
// cookie authenticates it (and the server's same-origin check keeps it CSRF-safe), in a browser as in the
// native shell's web view, which has a cookie session of its own since the hand-over (borrower/handover.tsx).
// Where a beacon is refused, `fetch(..., {keepalive: true})` carries the same cookie. Client errors go out at
// once, at most a few per page load.
//
// Nothing here reads contacts, SMS, call logs, installed apps or media (PRODUCT.md §2): what is sent is
// what `track` and `reportError` are given.

export const BURIED_POINTS_PATH = '/api/v1/borrower/telemetry/buried-points';
export const ERRORS_PATH = '/api/v1/borrower/telemetry/errors';

/** The server takes at most 50 events a batch. */
export const MAX_BATCH = 50;
/** Events kept while waiting to be sent; older ones are dropped beyond it. */
const MAX_BUFFER = 200;
/** Client errors reported per page load (an error in a render loop must not flood the server). */
export const MAX_ERRORS = 5;

export type PropValue = string | number | boolean;

export interface TelemetryEvent {
  name: string;
  route?: string;
  at: number;
  props?: Record<string, PropValue>;
}

export interface TelemetryTransport {
  /** `navigator.sendBeacon`; false when the browser refused to queue it. */
  beacon?: (url: string, data: Blob) => boolean;
  /** The fallback when the browser refuses a beacon. */
  fetch: (url: string, init: RequestInit) => Promise<unknown>;
}

export interface TelemetryOptions {
  transport: TelemetryTransport;
  /** The app's current route, recorded with each event. */
  route?: () => string;
  now?: () => number;
}

export interface Telemetry {
  /** Only a signed-in borrower's events are kept and sent (the calls need a session). */
  setActive(active: boolean): void;
  track(name: string, props?: Record<string, PropValue>): void;
  reportError(error: unknown, route?: string): void;
  /** Sends what is buffered. */
  flush(): void;
  /** Listens for the page hiding and for uncaught errors; returns the function that stops listening. */
  install(target: Window): () => void;
  /** Buffered events (tests). */
  pending(): readonly TelemetryEvent[];
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const now = options.now ?? Date.now;
  const route = options.route ?? (() => '');
  let buffer: TelemetryEvent[] = [];
  let active = false;
  let errorsSent = 0;

  function send(url: string, body: unknown): void {
    const json = JSON.stringify(body);
    const beacon = options.transport.beacon;
    if (beacon) {
      try {
        if (beacon(url, new Blob([json], { type: 'application/json' }))) return;
      } catch {
        // Fall through to fetch.
      }
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
    void options.transport
      .fetch(url, { method: 'POST', body: json, headers, keepalive: true, credentials: 'same-origin' })
      .catch(() => undefined);
  }

  function flush(): void {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, MAX_BATCH);
      buffer = buffer.slice(MAX_BATCH);
      send(BURIED_POINTS_PATH, { events: batch });
    }
  }

  function reportError(error: unknown, where?: string): void {
    if (!active || errorsSent >= MAX_ERRORS) return;
    errorsSent += 1;
    const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 1000) || 'Error';
    const stack = error instanceof Error && error.stack ? error.stack.slice(0, 8000) : undefined;
    send(ERRORS_PATH, { message, stack, route: (where ?? route()).slice(0, 200), at: now() });
  }

  return {
    setActive(value) {
      active = value;
      if (!value) buffer = [];
    },
    track(name, props) {
      if (!active) return;
      const event: TelemetryEvent = { name, at: now() };
      const where = route().slice(0, 200);
      if (where) event.route = where;
      if (props && Object.keys(props).length > 0) event.props = props;
      buffer.push(event);
      if (buffer.length > MAX_BUFFER) buffer = buffer.slice(buffer.length - MAX_BUFFER);
      if (buffer.length >= MAX_BATCH) flush();
    },
    reportError,
    flush,
    install(target) {
      const onVisibility = () => {
        if (target.document.visibilityState === 'hidden') flush();
      };
      const onPageHide = () => flush();
      const onError = (event: ErrorEvent) => reportError(event.error ?? event.message);
      const onRejection = (event: PromiseRejectionEvent) => reportError(event.reason);
      target.document.addEventListener('visibilitychange', onVisibility);
      target.addEventListener('pagehide', onPageHide);
      target.addEventListener('error', onError);
      target.addEventListener('unhandledrejection', onRejection);
      return () => {
        target.document.removeEventListener('visibilitychange', onVisibility);
        target.removeEventListener('pagehide', onPageHide);
        target.removeEventListener('error', onError);
        target.removeEventListener('unhandledrejection', onRejection);
      };
    },
    pending: () => buffer,
  };
}

/** The browser's transport: `sendBeacon` bound to its navigator, and `fetch`. */
export function browserTransport(target: Window): TelemetryTransport {
  const nav = target.navigator;
  return {
    beacon: typeof nav.sendBeacon === 'function' ? (url, data) => nav.sendBeacon(url, data) : undefined,
    fetch: (url, init) => target.fetch(url, init),
  };
}
