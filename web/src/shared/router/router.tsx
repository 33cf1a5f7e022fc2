// A few lines of history routing instead of react-router (~13 KB gzip): the site has two routes and a
// tab kept in the hash. During hydration the server's URL is used, so the first client render matches
// the prerendered HTML; the real URL (a `#contact` hash, say) follows right after.
import {
  createContext,
  useCallback,
  useContext,
  useMemo,
  useSyncExternalStore,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
} from 'react';

const NAVIGATE_EVENT = 'kilat:navigate';

export interface RouteLocation {
  path: string;
  hash: string;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener('hashchange', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener('hashchange', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

const snapshot = () => `${window.location.pathname}${window.location.hash}`;

/** `/about/`, `/about.html` and `/about.en.html` are `/about`; `/index.html` and `/index.en.html` are `/` (the
 * server serves each page by its file name as the market's page, `lang` deciding). */
export function normalizePath(path: string): string {
  let out = path.replace(/\/index(\.en)?\.html$/, '/').replace(/(\.en)?\.html$/, '');
  if (out.length > 1) out = out.replace(/\/+$/, '');
  return out || '/';
}

function parse(value: string): RouteLocation {
  const at = value.indexOf('#');
  return {
    path: normalizePath(at >= 0 ? value.slice(0, at) : value),
    hash: at >= 0 ? value.slice(at) : '',
  };
}

/** Moves to `href` (same origin) without a page load. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

const ServerUrlContext = createContext<string>('/');

/** `serverUrl`: the path (and hash) the HTML was rendered for; used during server render and hydration. */
export function RouterProvider({ serverUrl, children }: { serverUrl: string; children: ReactNode }) {
  return <ServerUrlContext.Provider value={serverUrl}>{children}</ServerUrlContext.Provider>;
}

export function useLocation(): RouteLocation {
  const serverUrl = useContext(ServerUrlContext);
  const value = useSyncExternalStore(subscribe, snapshot, () => serverUrl);
  return useMemo(() => parse(value), [value]);
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/** An `<a>` that navigates in-page for plain left clicks and lets the browser do the rest. */
export function Link({ href, onClick, ...rest }: LinkProps) {
  const handleClick = useCallback(
    (event: MouseEvent<HTMLAnchorElement>) => {
      onClick?.(event);
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(href);
      scrollToTop();
    },
    [href, onClick],
  );
  return <a href={href} onClick={handleClick} {...rest} />;
}

export function prefersReducedMotion(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export function scrollToTop(): void {
  window.scrollTo({ top: 0, behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
}
