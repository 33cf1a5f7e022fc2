import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { useOrders, type OrderStatus, type OrderSummary } from '../../api/orders';
import { usePlan } from '../../api/plan';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { SummaryMoneyProvider, useMoney } from '../loan-money';
import { formatDay } from './format';
import { StatusBadge } from './order-status';
import '../loans.css';

/** The borrower's loans, newest first: what each is, how it stands, and what it costs in all. */
export function OrdersPage() {
  const { t } = useTranslation();
  const orders = useOrders();
  return (
    <Screen title={t('orders.title')} tabs>
      {orders.isPending ? (
        <LoadingState />
      ) : orders.isError ? (
        <StateNotice kind="error" title={t('orders.loadFailed')} text={errorText(orders.error, t)} onRetry={() => void orders.refetch()} />
      ) : orders.data.length === 0 ? (
        <StateNotice
          kind="empty"
          title={t('orders.emptyTitle')}
          text={t('orders.empty')}
          actions={
            <Link className="state__link" to="/products">
              {t('orders.toProducts')}
            </Link>
          }
        />
      ) : (
        <ul className="orders">
          {orders.data.map((order) => (
            <li key={order.orderNo}>
              {/* One precision per entry, from the amounts it shows. */}
              <SummaryMoneyProvider amounts={[order.amount, order.totalRepayable]} currency={order.currency}>
                <OrderCard order={order} />
              </SummaryMoneyProvider>
            </li>
          ))}
        </ul>
      )}
    </Screen>
  );
}

/**
 * Loans that have ended. The list answers only the plan's total, which is not what an ended loan cost (a cooling-off
 * exit pays no fees, a payoff less interest): their card shows what was paid in all, from the server.
 */
const ENDED: readonly OrderStatus[] = ['repaid', 'exited_in_cooling_off'];

function OrderCard({ order }: { order: OrderSummary }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const headingId = `order-${order.orderNo}`;
  return (
    <article className="order-card" aria-labelledby={headingId}>
      <div className="order-card__top">
        <h2 className="order-card__name" id={headingId}>
          <Link className="order-card__link" to={`/orders/${encodeURIComponent(order.orderNo)}`}>
            {order.productName}
            <span className="order-card__no">{order.orderNo}</span>
          </Link>
        </h2>
        <StatusBadge status={order.status} />
      </div>
      <p className="order-card__amount">{money(order.amount)}</p>
      <dl className="order-card__facts">
        {ENDED.includes(order.status) ? (
          <PaidInAll orderNo={order.orderNo} />
        ) : (
          <div>
            <dt>{t('orders.totalRepayable')}</dt>
            <dd>{money(order.totalRepayable)}</dd>
          </div>
        )}
        <div>
          <dt>{t('orders.appliedOn')}</dt>
          <dd>{formatDay(order.createdAt, market)}</dd>
        </div>
      </dl>
      <span className="order-card__go" aria-hidden="true">
        ›
      </span>
    </article>
  );
}

/**
 * What an ended loan cost the borrower in the end, from the plan the server replays from the ledger. The list does not
 * wait for every ended loan's plan: the row holds its place (one line) from the start, so the cards below do not move
 * when the amount comes in.
 */
function PaidInAll({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const money = useMoney();
  const plan = usePlan(orderNo);
  return (
    <div>
      <dt>{t('money.closed.paidInAll')}</dt>
      <dd aria-busy={plan.isPending}>
        {plan.data ? money(plan.data.paidInAll) : plan.isPending ? t('layout.loading') : t('orders.paidInAllFailed')}
      </dd>
    </div>
  );
}
