// The console's CSRF token (docs/API-CONSOLE.md): `POST /login` answers it once and the server keeps only its hash,
// so `GET /me` cannot give it back. It is kept in localStorage, which every tab of the origin shares, as the browser
// shares the `kilat_console` cookie: a sign-in in one tab replaces both for all tabs, and a reload keeps working.
// Script on the page could read it, but such script could send the requests itself; the token only stops other sites.

export const CSRF_STORAGE_KEY = 'kilat.console.csrf';
/** The header every unsafe console request carries. */
export const CSRF_HEADER = 'X-CSRF-Token';

export interface CsrfStore {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}

/** A store over `storage` (localStorage), or kept in memory only where the browser refuses storage. */
export function createCsrfStore(storage: Storage | null): CsrfStore {
  let memory: string | null = null;
  return {
    get() {
      try {
        return storage?.getItem(CSRF_STORAGE_KEY) ?? memory;
      } catch {
        return memory;
      }
    },
    set(token) {
      memory = token;
      try {
        storage?.setItem(CSRF_STORAGE_KEY, token);
      } catch {
        // Private modes may refuse: memory still serves this page.
      }
    },
    clear() {
      memory = null;
      try {
        storage?.removeItem(CSRF_STORAGE_KEY);
      } catch {
        // As above.
      }
    },
  };
}

/** localStorage, or null where reading it throws. */
export function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
