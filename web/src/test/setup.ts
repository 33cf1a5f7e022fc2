import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// `findBy…` and `waitFor` wait up to 5 s, not the library's 1 s: CI is a loaded 2-core machine, where the first render
// of a screen loaded on demand was seen taking 1.4 s. A check that never comes true still fails, only later.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no layout: scrolling is recorded, not performed.
window.scrollTo = vi.fn() as unknown as typeof window.scrollTo;
if (!window.matchMedia) {
  window.matchMedia = ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
}

afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
  // The borrower app keeps the market for the visit in sessionStorage; each test is a new visit.
  window.sessionStorage.clear();
  // The console keeps its CSRF token in localStorage; each test starts signed out.
  window.localStorage.clear();
  vi.unstubAllGlobals();
});
