// The native shell opens the app with `channel`, `deviceId` and `appVersion` in the URL, and the shared
// client forwards them as headers (PRODUCT.md §4). In-app navigation drops the query string, so the values
// the app was opened with are kept here, in memory only (never in JS storage), and the current URL's win
// when it has them.
//
// The shell's session is never taken from the URL: it hands it over with a one-time `handover` code, which
// the app exchanges for a cookie session of the browser's own (docs/API-BORROWER.md, "Handing a session to
// the web app"). A `sessionId` in the URL, the old hand-over, is ignored: a link must not choose whose
// account a browser is in (security report N2). Both are removed from the address bar and from this
// history entry before anything renders, so they are neither shown, bookmarked, shared nor sent as a
// Referer.
const SHELL_PARAMS = ['channel', 'deviceId', 'appVersion'] as const;
/** Query parameters that carry a credential: read once (the code), then removed from the URL. */
const CREDENTIAL_PARAMS = ['handover', 'sessionId'] as const;

export interface ShellParams {
  /** The query string the shared client reads its forwarded headers from. */
  search: () => string;
}

export function createShellParams(openedWith: string, current: () => string = () => window.location.search): ShellParams {
  const opened = new URLSearchParams(openedWith);
  const kept = new Map<string, string>();
  for (const name of SHELL_PARAMS) {
    const value = opened.get(name);
    if (value !== null) kept.set(name, value);
  }
  return {
    search: () => {
      const params = new URLSearchParams(current());
      for (const [name, value] of kept) if (!params.has(name)) params.set(name, value);
      for (const name of CREDENTIAL_PARAMS) params.delete(name);
      return params.toString();
    },
  };
}

/**
 * Takes the hand-over code out of the page's URL: removes `handover` and `sessionId` from the address bar
 * with `history.replaceState` (the entry is replaced, so Back does not bring them back) and answers the
 * code, or null.
 */
export function takeUrlCredentials(page: { location: Location; history: History } = window): string | null {
  const url = new URL(page.location.href);
  const code = url.searchParams.get('handover')?.trim() || null;
  if (!CREDENTIAL_PARAMS.some((name) => url.searchParams.has(name))) return code;
  for (const name of CREDENTIAL_PARAMS) url.searchParams.delete(name);
  page.history.replaceState(page.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return code;
}
