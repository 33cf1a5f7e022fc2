import type { ApiMarket } from './types';

/** Every console query sits under `console`, so signing out forgets them all at once. */
export const queryKeys = {
  console: ['console'] as const,
  me: ['console', 'me'] as const,
  queue: (market: ApiMarket) => ['console', 'applications', market] as const,
  order: (orderNo: string) => ['console', 'order', orderNo] as const,
  payouts: (market: ApiMarket, page = 1) => ['console', 'payouts', market, page] as const,
  payments: ['console', 'payments'] as const,
  paymentsFiltered: (filter: Record<string, string>) => ['console', 'payments', filter] as const,
  paymentCounts: ['console', 'payments', 'counts'] as const,
  statementMappings: ['console', 'reconciliation', 'mappings'] as const,
  statementImports: ['console', 'reconciliation', 'imports'] as const,
  statementImport: (importId: string) => ['console', 'reconciliation', 'import', importId] as const,
  products: ['console', 'products'] as const,
  operators: ['console', 'operators'] as const,
  faq: ['console', 'faq'] as const,
  siteClaims: ['console', 'site-claims'] as const,
  dashboard: (market: ApiMarket) => ['console', 'dashboard', market] as const,
  audit: (search: Record<string, string>) => ['console', 'audit', search] as const,
};
