/** The console lives under /console (docs/ARCHITECTURE.md): the server answers console/index.html for every path there. */
export const CONSOLE_BASENAME = '/console';

/** In-app paths (relative to the basename). */
export const consolePaths = {
  signIn: '/login',
  queue: '/applications',
  order: (orderNo: string) => `/orders/${encodeURIComponent(orderNo)}`,
  audit: '/audit',
  payouts: '/payouts',
  repayments: '/repayments',
  reconciliation: '/reconciliation',
  products: '/products',
  operators: '/operators',
  dashboard: '/dashboard',
  complaints: '/complaints',
  complaint: (ticketNo: string) => `/complaints/${encodeURIComponent(ticketNo)}`,
  cannedReplies: '/canned-replies',
  contact: '/contact-messages',
  faq: '/faq',
  site: '/site',
  collections: '/collections',
  collectionsCase: (orderNo: string) => `/collections/${encodeURIComponent(orderNo)}`,
} as const;
