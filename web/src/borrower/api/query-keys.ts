import type { ApiMarket } from './types';

// Everything about the signed-in borrower lives under `borrower`, so one call forgets it all at
// log-out or on a 401; public data (settings, the login page's set-up) survives.
export const queryKeys = {
  borrower: ['borrower'] as const,
  me: ['borrower', 'me'] as const,
  siteSettings: ['public', 'site-settings'] as const,
  loginInit: (market: ApiMarket) => ['public', 'login-init', market] as const,
};
