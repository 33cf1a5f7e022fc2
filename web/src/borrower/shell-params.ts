// The native shell opens the app with `sessionId`, `channel`, `deviceId` and `appVersion` in the URL, and the
// shared client forwards them as headers (PRODUCT.md §4). In-app navigation drops the query string, so the
// values the app was opened with are kept here, in memory only (never in JS storage), and the current URL's
// win when it has them.
const SHELL_PARAMS = ['sessionId', 'channel', 'deviceId', 'appVersion'] as const;

export interface ShellParams {
  /** The query string the shared client reads its forwarded headers from. */
  search: () => string;
  /** After log-out or a 401 the shell's session is dead: stop sending it, so the cookie of a new login counts. */
  forgetSession: () => void;
}

export function createShellParams(openedWith: string, current: () => string = () => window.location.search): ShellParams {
  const opened = new URLSearchParams(openedWith);
  const kept = new Map<string, string>();
  for (const name of SHELL_PARAMS) {
    const value = opened.get(name);
    if (value !== null) kept.set(name, value);
  }
  let sessionForgotten = false;
  return {
    search: () => {
      const params = new URLSearchParams(current());
      for (const [name, value] of kept) if (!params.has(name)) params.set(name, value);
      if (sessionForgotten) params.delete('sessionId');
      return params.toString();
    },
    forgetSession: () => {
      sessionForgotten = true;
    },
  };
}
