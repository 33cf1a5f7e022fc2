// One precision per loan (issue 19, item 11): every screen about a loan formats its money with `useMoney`, which
// follows the loan's statement, so its page, plan, payments, home and the list never show "₹3,468" beside "₹3,468.00".
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { marketOfCurrency, type Market } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useOrder } from '../api/orders';
import type { Currency, KeyFactStatement } from '../api/types';
import { LoadingState } from '../ui/state-notice';
import { kfsAmounts, moneyAtPrecision } from './products/format';

/**
 * The amounts of the loan the screen is about, and the market of its currency; null outside any loan. A loan's money is
 * in the loan's own currency, never the page's: an Indian loan opened on the Indonesian app still shows rupees.
 */
const LoanMoneyContext = createContext<{ amounts: readonly number[]; market: Market } | null>(null);

/** Everything under it shows money at the precision of the loan (or quote) `kfs` states; none known: the plain format. */
export function LoanMoneyProvider({ kfs, children }: { kfs: KeyFactStatement | undefined; children: ReactNode }) {
  const loan = useMemo(() => (kfs ? { amounts: kfsAmounts(kfs), market: marketOfCurrency(kfs.currency) } : null), [kfs]);
  return <LoanMoneyContext.Provider value={loan}>{children}</LoanMoneyContext.Provider>;
}

/**
 * For a summary of a loan that carries a few of its amounts but not its statement (an entry of My loans): one
 * precision for those amounts. Reading every listed order's statement instead would cost a request per loan.
 */
export function SummaryMoneyProvider({ amounts, currency, children }: { amounts: readonly number[]; currency: Currency; children: ReactNode }) {
  return <LoanMoneyContext.Provider value={{ amounts, market: marketOfCurrency(currency) }}>{children}</LoanMoneyContext.Provider>;
}

/**
 * For a screen that knows only the order's number: the loan's precision from the statement the order carries. Its
 * children wait for the order (`pending` meanwhile; the loan page has usually read it already), so no amount shows at
 * one precision and then at another; an order that cannot be read leaves the plain format rather than no screen. Put
 * around a screen's own loading and error states, its query and the order's go out together.
 */
export function OrderMoneyProvider({ orderNo, pending = <LoadingState />, children }: { orderNo: string; pending?: ReactNode; children: ReactNode }) {
  const order = useOrder(orderNo);
  if (order.isPending) return pending;
  return <LoanMoneyProvider kfs={order.data?.kfs}>{children}</LoanMoneyProvider>;
}

/** Amounts of the loan on screen, in its currency and at its precision; outside any loan, the market's, whole amounts without decimals. */
export function useMoney(): (minor: number) => string {
  const market = useMarket();
  const loan = useContext(LoanMoneyContext);
  return loan ? moneyAtPrecision(loan.amounts, loan.market) : (minor) => formatMoney(minor, market);
}
