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

/**
 * What a link from the review queue to an order carries in the router's state: the queue's query (market, page), so
 * the order's "Back to the review queue" returns to the same page and market rather than the first page.
 */
export interface FromQueue {
  queue: string;
}

/** The review queue the operator came from (`state` as the queue's link left it), else its first page of `market`. */
export function queueBackPath(state: unknown, market: string): string {
  const carried = (state as Partial<FromQueue> | null)?.queue;
  if (typeof carried === 'string') {
    const query = new URLSearchParams(carried).toString();
    if (query) return `${consolePaths.queue}?${query}`;
  }
  return `${consolePaths.queue}?market=${market}`;
}
