import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useMarket } from '@/shared/market/market-context';
import { useInstallment } from '../../api/installment';
import type { InstallmentPlan } from '../../api/plan';
import { Screen } from '../../layout/screen';
import { LoadingState } from '../../ui/state-notice';
import { OrderNotFound } from '../orders/order-not-found';
import { formatDate } from '../products/format';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { BucketRows, InstallmentBadge, LoadFailed } from './common';
import './servicing.css';

/** One installment: its due date (and the planned one if an extension moved it), what is due, paid and outstanding. */
export function InstallmentPage() {
  const { t } = useTranslation();
  const { orderNo = '', seq = '' } = useParams();
  const number = /^[1-9]\d{0,3}$/.test(seq) ? Number(seq) : 0;
  const installment = useInstallment(orderNo, number);
  return (
    <Screen title={t('servicing.installment.title', { seq: number || seq })} backTo={`/orders/${encodeURIComponent(orderNo)}/plan`}>
      {number === 0 ? (
        <OrderNotFound />
      ) : (
        <OrderMoneyProvider orderNo={orderNo}>
          {installment.isPending ? (
            <LoadingState />
          ) : installment.isError ? (
            <LoadFailed error={installment.error} title={t('servicing.installment.loadFailed')} onRetry={() => void installment.refetch()} />
          ) : (
            <Installment item={installment.data} />
          )}
        </OrderMoneyProvider>
      )}
    </Screen>
  );
}

function Installment({ item }: { item: InstallmentPlan }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="installment-head">
        <div className="installment__head">
          <h2 className="installment__seq" id="installment-head">
            {t('servicing.installment.number', { seq: item.seq })}
          </h2>
          <InstallmentBadge status={item.status} />
        </div>
        <p className="servicing__big">{money(item.outstanding.total)}</p>
        <p className="kfs__note">{t('servicing.installment.outstandingOf', { total: money(item.due.total) })}</p>
        <dl className="figures">
          <div className="figures__row">
            <dt>{t('servicing.installment.dueDate')}</dt>
            <dd>{formatDate(item.dueDate, market)}</dd>
          </div>
          {item.plannedDueDate !== item.dueDate && (
            <div className="figures__row">
              <dt>{t('servicing.installment.plannedDueDate')}</dt>
              <dd>{formatDate(item.plannedDueDate, market)}</dd>
            </div>
          )}
        </dl>
        {item.verifying && item.status !== 'paid' && (
          <p className="servicing__verifying" role="status">
            {t('servicing.verifying')}
          </p>
        )}
      </section>
      <BucketRows buckets={item.due} label={t('servicing.installment.due')} />
      <BucketRows buckets={item.paid} label={t('servicing.installment.paid')} />
      <BucketRows buckets={item.outstanding} label={t('servicing.installment.outstanding')} />
    </div>
  );
}
