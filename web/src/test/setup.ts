import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

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
