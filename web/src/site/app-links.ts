// Links from the site into the borrower app (docs/ARCHITECTURE.md: /app serves the app). The market always
// travels explicitly as `lang` (1 India, 0 Indonesia): the app remembers the last market of the visit, and a
// visitor who switched the site to Indonesia must not land in India's app.
import type { Market } from '@/shared/market/market';

export function appHref(path: '/home' | '/login', market: Market): string {
  return `/app${path}?lang=${market.id === 'in' ? '1' : '0'}`;
}
