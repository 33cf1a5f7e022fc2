// Links from the site into the borrower app (docs/ARCHITECTURE.md: /app serves the app). Apply and Log in both
// open the app's login: a first sign-in with the phone creates the borrower, and home (where applying starts) comes
// next. Opening home first would only bounce a visitor without a session to the login through a 401. The market
// always travels explicitly as `lang` (1 India, 0 Indonesia): the app remembers the last market of the visit, and a
// visitor who switched the site to Indonesia must not land in India's app.
import type { Market } from '@/shared/market/market';

export function appLoginHref(market: Market): string {
  return `/app/login?lang=${market.id === 'in' ? '1' : '0'}`;
}
