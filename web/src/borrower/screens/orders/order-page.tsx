import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useOrder, type OrderDetail } from '../../api/orders';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { InstallmentsTable } from '../products/key-fact-statement';
import { formatDateTime, formatDay } from './format';
import { OrderNotFound } from './order-not-found';
import { StatusBadge, useStatusLabel } from './order-status';
import '../loans.css';

/** One loan: how it stands, its figures and schedule from the accepted KFS, its history, its agreement. */
export function OrderPage() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const order = useOrder(orderNo);
  return (
    <Screen title={t('order.title')} backTo="/orders">
      {order.isPending ? (
        <LoadingState />
      ) : order.isError ? (
        order.error instanceof ApiError && order.error.status === 404 ? (
          <OrderNotFound />
        ) : (
          <StateNotice kind="error" title={t('order.loadFailed')} text={errorText(order.error, t)} onRetry={() => void order.refetch()} />
        )
      ) : (
        <OrderDetails order={order.data} />
      )}
    </Screen>
  );
}

function OrderDetails({ order }: { order: OrderDetail }) {
  const { t } = useTranslation();
  const market = useMarket();
  const statusLabel = useStatusLabel();
  const money = (minor: number) => formatMoney(minor, market);
  const { kfs } = order;
  return (
    <div className="order">
      <section className="card order__head" aria-labelledby="order-product">
        <div className="order__title">
          <h2 className="order__product" id="order-product">
            {order.productName}
          </h2>
          <StatusBadge status={order.status} />
        </div>
        <p className="order__amount">{money(order.amount)}</p>
        <p className="order__meta">
          <span>{t('order.number', { orderNo: order.orderNo })}</span>
          <span>{t('order.appliedOn', { date: formatDay(order.createdAt, market) })}</span>
        </p>
        {order.rejectionReason ? (
          <div className="order__reason" role="note">
            <h3 className="order__reason-title">{t('order.rejectionReason')}</h3>
            <p>{order.rejectionReason}</p>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="order-figures">
        <h2 className="kfs__heading" id="order-figures">
          {t('order.figures')}
        </h2>
        <dl className="figures">
          <div className="figures__row figures__row--apr">
            <dt>{t('kfs.apr')}</dt>
            <dd>{order.aprDisplay}</dd>
          </div>
          <div className="figures__row">
            <dt>{t('kfs.sanctioned')}</dt>
            <dd>{money(order.amount)}</dd>
          </div>
          <div className="figures__row">
            <dt>{kfs.feesDeductedAtDisbursal ? t('kfs.totalFeesDeducted') : t('kfs.totalFees')}</dt>
            <dd>{money(kfs.totalFees)}</dd>
          </div>
          <div className="figures__row figures__row--strong">
            <dt>{t('kfs.netDisbursed')}</dt>
            <dd>{money(order.netDisbursed)}</dd>
          </div>
          <div className="figures__row">
            <dt>{t('kfs.totalInterest')}</dt>
            <dd>{money(kfs.totalInterest)}</dd>
          </div>
          <div className="figures__row figures__row--total">
            <dt>{t('kfs.totalRepayable')}</dt>
            <dd>{money(order.totalRepayable)}</dd>
          </div>
        </dl>
      </section>

      <section className="card" aria-labelledby="order-schedule">
        <h2 className="kfs__heading" id="order-schedule">
          {t('kfs.schedule')}
        </h2>
        <p className="kfs__note">{t('order.scheduleNote', { date: formatDate(kfs.disbursalDate, market) })}</p>
        <InstallmentsTable installments={kfs.installments} />
      </section>

      <section className="card" aria-labelledby="order-timeline">
        <h2 className="kfs__heading" id="order-timeline">
          {t('order.timeline')}
        </h2>
        <ol className="timeline">
          {order.timeline.map((event, index) => (
            <li key={`${event.status}-${event.at}-${index}`} className="timeline__event">
              <span className="timeline__status">{statusLabel(event.status)}</span>
              <time className="timeline__at" dateTime={new Date(event.at).toISOString()}>
                {formatDateTime(event.at, market)}
              </time>
            </li>
          ))}
        </ol>
      </section>

      <section className="card order__documents" aria-labelledby="order-documents">
        <h2 className="kfs__heading" id="order-documents">
          {t('order.documents')}
        </h2>
        <p className="kfs__note">{t('order.acceptedAt', { date: formatDateTime(order.acceptedAt, market) })}</p>
        <Link className="order__agreement" to={`/orders/${encodeURIComponent(order.orderNo)}/agreement`}>
          {t('order.agreement')}
        </Link>
      </section>
    </div>
  );
}
