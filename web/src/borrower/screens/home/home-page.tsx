import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { useHome, type Home } from '../../api/home';
import { useLocationStatus } from '../../api/location';
import type { LocationStatus } from '../../api/types';
import { useOrder } from '../../api/orders';
import { useRepayment } from '../../api/repayment';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { formatDay } from '../orders/format';
import { formatDate } from '../products/format';
import { StatusBadge } from '../orders/order-status';
import { ProductCard } from '../products/product-card';
import { LocationPrompt } from './location-prompt';
import { IneligibleReasons } from './reasons';
import '../loans.css';
import '../servicing/money.css';

/**
 * Where a signed-in borrower lands: how far their details are, the loan they have running, whether they may
 * apply now (and why not), and the loans on offer.
 */
export function HomePage() {
  const { t } = useTranslation();
  const home = useHome();
  // Home is drawn once, whole: what comes in after it would push what is below down under a finger already on its way
  // to it. So the location prompt (above the loans on offer) is asked beside home, and an open loan's order and money
  // (at the top) as soon as home names the loan. Each holds the page only until its first answer: one that failed
  // shows nothing (no prompt; the loan without its money) and is not waited for again.
  const location = useLocationStatus();
  const openOrder = home.data?.openOrder ?? null;
  const paidOut = openOrder !== null && PAID_OUT.includes(openOrder.status);
  const order = useOrder(openOrder?.orderNo ?? '', { enabled: openOrder !== null });
  const repayment = useRepayment(openOrder?.orderNo ?? '', { enabled: paidOut });
  const waiting = home.isPending || location.isPending || (openOrder !== null && !order.isFetched) || (paidOut && !repayment.isFetched);
  return (
    <Screen title={t('home.title')} tabs>
      {waiting ? (
        <LoadingState />
      ) : home.isError ? (
        <StateNotice kind="error" title={t('home.loadFailed')} text={errorText(home.error, t)} onRetry={() => void home.refetch()} />
      ) : (
        <HomeContent home={home.data} location={location.data} />
      )}
    </Screen>
  );
}

function HomeContent({ home, location }: { home: Home; location: LocationStatus | undefined }) {
  const { t } = useTranslation();
  return (
    <div className="home">
      <p className="home__hello">{t('home.signedInAs', { phone: home.phoneMasked })}</p>
      {/* Once the details are done, the loan and its money come first. */}
      {home.certification.complete && home.openOrder && <OpenOrder order={home.openOrder} />}
      <Certification certification={home.certification} />
      {!home.certification.complete && home.openOrder && <OpenOrder order={home.openOrder} />}
      <LocationPrompt status={location} />
      <section className="card" aria-labelledby="home-apply">
        <h2 className="kfs__heading" id="home-apply">
          {home.eligible ? t('home.canApply') : t('home.cannotApply')}
        </h2>
        {home.eligible ? (
          <>
            <p className="home__text">{t('home.canApplyText')}</p>
            <Link className="home__cta" to="/recommend">
              {t('home.toRecommend')}
            </Link>
          </>
        ) : (
          <IneligibleReasons reasons={home.reasons} openOrderNo={home.openOrder?.orderNo} />
        )}
      </section>
      <section className="home__products" aria-labelledby="home-products">
        <h2 className="home__section-heading" id="home-products">
          {t('home.products')}
        </h2>
        {home.products.length === 0 ? (
          <p className="home__text home__text--padded">{t('products.empty')}</p>
        ) : (
          <ul className="products">
            {home.products.map((product) => (
              <li key={product.code}>
                <ProductCard product={product} heading="h3" />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function Certification({ certification }: { certification: Home['certification'] }) {
  const { t } = useTranslation();
  const { done, total, complete } = certification;
  const label = t('home.certProgress', { done, total });
  return (
    <section className="card" aria-labelledby="home-cert">
      <h2 className="kfs__heading" id="home-cert">
        {t('home.certTitle')}
      </h2>
      <div>
        <div className="progress" role="progressbar" aria-labelledby="home-cert-progress" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
          <span className="progress__bar" style={{ width: `${total > 0 ? Math.round((done / total) * 100) : 0}%` }} />
        </div>
        <p className="home__progress" id="home-cert-progress">
          {label}
        </p>
      </div>
      <p className="home__text">{complete ? t('home.certComplete') : t('home.certNeeded')}</p>
      <Link className={complete ? 'home__link' : 'home__cta'} to="/certification">
        {complete ? t('home.certReview') : done === 0 ? t('home.certStart') : t('home.certContinue')}
      </Link>
    </section>
  );
}

function OpenOrder({ order }: { order: NonNullable<Home['openOrder']> }) {
  const { t } = useTranslation();
  const market = useMarket();
  const paidOut = PAID_OUT.includes(order.status);
  return (
    <section className="card" aria-labelledby="home-order">
      <div className="order__title">
        <h2 className="kfs__heading" id="home-order">
          {t('home.openOrder')}
        </h2>
        <StatusBadge status={order.status} />
      </div>
      <OrderMoneyProvider orderNo={order.orderNo} pending={null}>
        {paidOut ? <LoanMoney orderNo={order.orderNo} /> : <OrderAmount amount={order.amount} />}
      </OrderMoneyProvider>
      <p className="order__meta">
        <span>{t('order.number', { orderNo: order.orderNo })}</span>
        <span>{t('order.appliedOn', { date: formatDay(order.createdAt, market) })}</span>
      </p>
      <Link className="home__link" to={`/orders/${encodeURIComponent(order.orderNo)}`}>
        {t('home.seeOrder')}
      </Link>
    </section>
  );
}

function OrderAmount({ amount }: { amount: number }) {
  const money = useMoney();
  return <p className="order__amount">{money(amount)}</p>;
}

/** A loan paid out and not repaid: what is due now (or next), and the way to pay it, priced by the server. */
const PAID_OUT: readonly string[] = ['disbursed', 'overdue'];

function LoanMoney({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const market = useMarket();
  const repayment = useRepayment(orderNo);
  const money = useMoney();
  const due = repayment.data?.choices.find((choice) => choice.choice === 'due');
  if (!repayment.data || !due) return null;
  const now = !due.dueDate || due.dueDate <= repayment.data.today;
  return (
    <>
      <p className="order__amount">
        {now
          ? t('money.home.dueNow', { amount: money(due.amount) })
          : // Paid early it asks less than on its date: today's amount is never labelled with that date.
            due.amountOnDueDate !== null && due.amountOnDueDate > due.amount
            ? t('money.home.dueNextEarly', { onDate: money(due.amountOnDueDate), amount: money(due.amount), date: formatDate(due.dueDate!, market) })
            : t('money.home.dueNext', { amount: money(due.amount), date: formatDate(due.dueDate!, market) })}
      </p>
      {repayment.data.verifying ? (
        <p className="money-verifying" role="status">
          {t('money.home.verifying')}
        </p>
      ) : (
        <Link className="home__cta" to={`/orders/${encodeURIComponent(orderNo)}/pay/due`}>
          {t('money.home.pay', { amount: money(due.amount) })}
        </Link>
      )}
    </>
  );
}
